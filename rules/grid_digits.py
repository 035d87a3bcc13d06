"""Decko Digits' Grid o' Digits: the first 25 Digit cards lie shuffled face down in a grid, and players take turns
revealing them in the order of pi's decimals. A card that is not the next decimal ends the turn, and the turn's
cards go back face down; every streak of five right cards stays face up for the game; whoever reveals the grid's
last card wins.

Readings taken where the sheet (``rulebooks/decko-digits.md``) is silent:

- A revealed card is right if its digit is the next decimal's: the grid's two 1s (or three 5s) are alike.
- A turn ends only on a wrong card: the sheet gives a player no other way to stop.
- A streak counts a turn's right cards from the last five kept: the five that complete it stay face up, and the
  cards right after them start the next streak, in the same turn.
- The house rule's grid of any multiple of five cards holds the first that many decimals (up to the fifty).
- Reciting the face-up cards out of order also ends a turn; a camera cannot hear it, so it is not judged.
- Revealing a digit that no face-down card has (a misread, or a card from outside the grid) and turning down a
  card that stays face up are noted as problems; the game goes on as the cards were revealed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.pi import PI_DECIMALS

GRID_CARDS = 25
STREAK = 5  # right cards in a row that stay face up


class GridError(ValueError):
    """A grid or a play the game does not allow."""


@dataclass(frozen=True)
class Reveal:
    digit: int
    player: int  # 1-based
    place: int  # the decimal (0-based) it had to be
    right: bool
    kept: bool  # it completed a streak of five, which stays face up


@dataclass(frozen=True)
class GridGame:
    """A game as far as it went: made by `new_game`, moved on by `reveal` and `turn_down`."""

    cards: int
    players: int
    reveals: tuple[Reveal, ...] = ()
    kept: int = 0  # decimals face up for good (a multiple of STREAK)
    streak: tuple[int, ...] = ()  # this turn's right cards not yet kept
    player: int = 1  # whose turn it is
    to_turn_down: tuple[int, ...] = ()  # the last wrong turn's cards, still face up
    problems: tuple[str, ...] = ()
    found: int = 0  # cards already face up when the game was first seen, revealed by no player the game knows

    @property
    def over(self) -> bool:
        return self.kept == self.cards

    @property
    def winner(self) -> int | None:
        """The player who revealed the last card (None where the grid was all face up when first seen)."""
        return self.reveals[-1].player if self.over and self.reveals else None

    @property
    def next_digit(self) -> int | None:
        return None if self.over else PI_DECIMALS[self.kept + len(self.streak)]

    @property
    def face_up(self) -> Counter[int]:
        """The digits face up on the grid as the game has it."""
        return Counter(PI_DECIMALS[: self.kept]) + Counter(self.streak) + Counter(self.to_turn_down)

    @property
    def face_down(self) -> Counter[int]:
        return Counter(PI_DECIMALS[: self.cards]) - self.face_up

    def reveal(self, digit: int) -> GridGame:
        """The player whose turn it is turns up a card showing `digit`."""
        if self.over:
            raise GridError(f"every card of the grid is face up: player {self.winner} won")
        if not 0 <= digit <= 9:
            raise GridError(f"not a digit: {digit!r}")
        problems = self.problems
        if self.face_down[digit] == 0:
            problems += (
                f"{a_digit(digit)} was revealed, but no {digit} is left face down "
                "(a misread, or not a card of the grid)",
            )
        place = self.kept + len(self.streak)
        right = digit == PI_DECIMALS[place]
        if not right:
            wrong = Reveal(digit, self.player, place, right=False, kept=False)
            return replace(
                self,
                reveals=(*self.reveals, wrong),
                streak=(),
                player=self.player % self.players + 1,
                to_turn_down=(*self.to_turn_down, *self.streak, digit),
                problems=problems,
            )
        streak = (*self.streak, digit)
        done = len(streak) == STREAK
        return replace(
            self,
            reveals=(*self.reveals, Reveal(digit, self.player, place, right=True, kept=done)),
            kept=self.kept + STREAK if done else self.kept,
            streak=() if done else streak,
            problems=problems,
        )

    def turn_down(self, digits: Iterable[int]) -> GridGame:
        """Cards showing `digits` are turned face down: the last wrong turn's, as the sheet asks."""
        pending = list(self.to_turn_down)
        problems = list(self.problems)
        for digit in digits:
            if digit in pending:
                pending.remove(digit)
            else:
                problems.append(f"{a_digit(digit)} was turned face down that stays face up (a streak's or a kept card)")
        return replace(self, to_turn_down=tuple(pending), problems=tuple(problems))

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "players": self.players,
            "kept": self.kept,
            "face_up_for_good": list(PI_DECIMALS[: self.kept]),
            "streak": list(self.streak),
            "next_digit": self.next_digit,
            "player": None if self.over else self.player,
            "winner": self.winner,
            "to_turn_down": list(self.to_turn_down),
            "reveals": [
                {"digit": r.digit, "player": r.player, "place": r.place, "right": r.right, "kept": r.kept}
                for r in self.reveals
            ],
            "problems": list(self.problems),
            "found_face_up": self.found,
        }


def a_digit(digit: int | None) -> str:
    """'a 7', 'an 8'."""
    return f"an {digit}" if digit == 8 else f"a {digit}"


def new_game(cards: int = GRID_CARDS, players: int = 2) -> GridGame:
    """A grid of the first `cards` decimals (a multiple of five, up to fifty), all face down, for `players`."""
    if cards % STREAK or not STREAK <= cards <= len(PI_DECIMALS):
        raise GridError(f"a grid holds a multiple of {STREAK} cards up to {len(PI_DECIMALS)}, not {cards}")
    if players < 1:
        raise GridError(f"a game needs a player or more, not {players}")
    return GridGame(cards, players)


def play(reveals: Sequence[int], cards: int = GRID_CARDS, players: int = 2) -> GridGame:
    """The game after `reveals`, each wrong turn's cards turned down before the next is revealed (typed play)."""
    game = new_game(cards, players)
    for digit in reveals:
        game = game.reveal(digit)
        game = game.turn_down(game.to_turn_down)
    return game


def turns(game: GridGame) -> list[list[Reveal]]:
    """The game's reveals turn by turn: a turn ends with its wrong card."""
    grouped: list[list[Reveal]] = [[]]
    for reveal in game.reveals:
        grouped[-1].append(reveal)
        if not reveal.right:
            grouped.append([])
    return [turn for turn in grouped if turn]
