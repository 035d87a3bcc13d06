"""Grid o' Digits as a camera sees it: the Digit cards face up on the grid, and the game (rules/grid_digits.py)
moved on by what changed between two settled views of it.

Cards are told apart by where they lie, since the grid's cards do not move: a card seen where none was face up
is revealed, and a card of the last wrong turn no longer seen was turned down. A card the game keeps face up
that is not seen is taken as hidden (a hand over it), not turned down, so a hand reaching across the grid
changes nothing. Cards revealed between two settled views are taken in the order that fits pi best (the
player calls each digit before turning it). Cards already face up when the game is first seen are taken as
found, credited to no player.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from rules.grid_digits import GridGame
from rules.pi import PI_DECIMALS
from vision.cards.recognize import Card

SAME_PLACE = 0.5  # two sightings this close (a share of the card's height) are one card
# Most of a grid lies face down, so a card is taken for a back from far less than elsewhere (the reader's
# NOT_FACE_ABOVE). Chosen on 60 training-split tables the network was not trained on (seeds 71600000..): of the cards
# read there, those on faces dropped and those on backs kept, at 0.15: 4 and 4 of 806 and 94; at 0.3: 1 and 7;
# at 0.5: 0 and 15 (models/card_backs.md).
GRID_BACK_ABOVE = 0.15


@dataclass(frozen=True)
class FaceUp:
    digit: int
    centre: tuple[float, float]
    height: float  # px

    def same_place(self, other: FaceUp) -> bool:
        apart = np.hypot(self.centre[0] - other.centre[0], self.centre[1] - other.centre[1])
        return bool(apart < SAME_PLACE * max(self.height, other.height))


def face_up(cards: list[Card]) -> list[Card]:
    """The cards read that a grid's table does not take for backs."""
    return [card for card in cards if card.back <= GRID_BACK_ABOVE]


def face_up_cards(cards: list[Card]) -> tuple[FaceUp, ...]:
    """The Digit cards read face up (not the Starter beside the grid, nor a Wild, which the grid has none of), in
    reading order of the frame."""
    seen = [
        FaceUp(card.face.digits[0], (float(card.center[0]), float(card.center[1])), _height(card.corners))
        for card in face_up(cards)
        if card.face.kind == "digit"
    ]
    return tuple(sorted(seen, key=lambda c: (c.centre[1], c.centre[0])))


def _height(corners: np.ndarray) -> float:
    return float((np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1])) / 2)


@dataclass(frozen=True)
class GridView:
    """A game and where its face-up cards lie: `staying` (the fives kept, then this turn's streak) and `turning`
    (the last wrong turn's cards, to be turned down)."""

    game: GridGame
    staying: tuple[FaceUp, ...] = ()
    turning: tuple[FaceUp, ...] = ()
    turned_down: tuple[int, ...] = ()  # what the last view showed turned down
    revealed: int = 0  # how many of the game's reveals the last view showed

    def seen(self, cards: tuple[FaceUp, ...]) -> GridView:
        """The view after a settled frame that shows `cards` face up."""
        gone = [c for c in self.turning if not any(c.same_place(s) for s in cards)]
        view = replace(
            self,
            game=self.game.turn_down(c.digit for c in gone),
            turning=tuple(c for c in self.turning if c not in gone),
            turned_down=tuple(c.digit for c in gone),
        )
        known = view.staying + view.turning
        for card in _fitting_order(view.game, [c for c in cards if not any(c.same_place(k) for k in known)]):
            if view.game.over:
                break
            view = view._revealed(card)
        return replace(view, revealed=len(view.game.reveals) - len(self.game.reveals))

    def found(self, cards: tuple[FaceUp, ...]) -> GridView:
        """The first view of a game already under way (a watch begun mid-game, a photo): the `cards` face up are
        placed as `seen` places reveals (the fives kept, a streak, a wrong turn's cards to turn down), but were
        revealed by no player the game knows, and the turns are counted from here, the first player's first."""
        view = self.seen(cards)
        game = replace(view.game, reveals=(), player=self.game.player, found=len(view.game.reveals))
        return replace(view, game=game, revealed=0)

    def _revealed(self, card: FaceUp) -> GridView:
        streak = len(self.game.streak)
        game = self.game.reveal(card.digit)
        if game.reveals[-1].right:
            return replace(self, game=game, staying=(*self.staying, card))
        kept = len(self.staying) - streak
        return replace(
            self, game=game, staying=self.staying[:kept], turning=(*self.turning, *self.staying[kept:], card)
        )

    def to_json(self) -> dict:
        return self.game.to_json()


def _fitting_order(game: GridGame, cards: list[FaceUp]) -> list[FaceUp]:
    """The cards in the order that reveals the most right ones: at each place the card the game needs next, if
    there is one; the rest as they lie."""
    left, ordered = list(cards), []
    place = game.kept + len(game.streak)
    while left:
        wanted = PI_DECIMALS[place] if place < game.cards else None
        pick = next((c for c in left if c.digit == wanted), None)
        if pick is None:
            return ordered + left
        ordered.append(pick)
        left.remove(pick)
        place += 1
    return ordered
