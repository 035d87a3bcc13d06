"""Death by Digits (Pandaqi, 2025): the deal for a table of players, and what a combo played face up to the
Evidence does. (Guesses and accusations are checked against hidden cards, by the players themselves.)

Readings taken where the sheet (``rulebooks/death-by-digits.md``) is silent:

- Players: 2 to 4. The deal (twice as many cards as players to each, 3 for the Murder) takes 2P² + 3 of the
  9P cards in play, which five or more players exceed (5 players: 53 of 45), so the setup refuses them rather
  than dealing short hands. One player has no one to guess from or steal from.
- The Midnumber is X / 2 "rounded": half up by default (3 players: 9 / 2 = 4.5 -> 5); ``Rounding.DOWN`` is the
  other reading (-> 4).
- Two cards "combine to the Midnumber if added or subtracted": their sum, or the larger less the smaller.
- A combo that does nothing does nothing in the base game; ``IfNothing`` holds the sheet's three variants.
- The special cards of Dastardly Digits (numbered below 1 or above 18) say on their faces what they do; they
  are not judged here.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MURDER_CARDS = 3
COPIES = 3  # each number is in the deck three times
PRINTED_HIGHEST = 18  # the printed deck's numbers run 1..18: six players at most, whatever the deal allows
MIN_PLAYERS = 2


class DeathByDigitsError(ValueError):
    """A table that cannot be dealt, or a play that is not one of the game's."""


class Rounding(enum.Enum):
    UP = "up"
    DOWN = "down"


class IfNothing(enum.Enum):
    """What a combo that does nothing does: nothing (the base game) or one of the sheet's variants."""

    NOTHING = "nothing"
    FLIP = "flip"  # flip one Evidence card, face up <-> face down
    LOOK = "look"  # look privately at one face-down Evidence card
    DRAW = "draw"  # the cards left after the deal are a draw pile (the Evidence starts empty): draw from it


@dataclass(frozen=True)
class Setup:
    """The deal for `players`: cards 1..highest, three of each."""

    players: int
    highest: int  # X: three times the players
    midnumber: int
    hand: int  # cards dealt to each player

    @property
    def deck(self) -> int:
        return COPIES * self.highest

    @property
    def evidence(self) -> int:
        """The cards left face down as the shared Evidence once hands and the Murder are dealt."""
        return self.deck - self.players * self.hand - MURDER_CARDS

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "highest": self.highest,
            "deck": self.deck,
            "hand": self.hand,
            "murder": MURDER_CARDS,
            "evidence": self.evidence,
            "midnumber": self.midnumber,
        }


def _needed(players: int) -> int:
    """Cards the deal takes: twice as many as players to each, and the Murder."""
    return players * 2 * players + MURDER_CARDS


# The most players the deal fits, among the tables the printed numbers (1..18) cover.
LARGEST_TABLE = max(p for p in range(MIN_PLAYERS, PRINTED_HIGHEST // COPIES + 1) if _needed(p) <= COPIES**2 * p)


def setup(players: int, rounding: Rounding = Rounding.UP) -> Setup:
    """The deal for `players`; DeathByDigitsError, saying why, where the cards do not go round."""
    if players < MIN_PLAYERS:
        raise DeathByDigitsError(f"Death by Digits needs at least {MIN_PLAYERS} players, got {players}")
    highest = COPIES * players
    if _needed(players) > COPIES * highest:
        raise DeathByDigitsError(
            f"{players} players need {_needed(players)} cards ({2 * players} each and {MURDER_CARDS} for the Murder) "
            f"but cards 1 to {highest}, three of each, are {COPIES * highest}: the deal does not fit; play with "
            f"{MIN_PLAYERS} to {LARGEST_TABLE} players"
        )
    midnumber = (highest + 1) // 2 if rounding is Rounding.UP else highest // 2
    return Setup(players, highest, midnumber, 2 * players)


@dataclass(frozen=True)
class ComboVerdict:
    """What a combo played face up to the Evidence does."""

    cards: tuple[int, ...]
    # "steal" (1 card: 3 random cards from other players, unless someone holding its number calls Stop),
    # "take" (2 that make the Midnumber: 2 cards from the Evidence), "peek" (three of a kind: look at one Murder
    # card) or "nothing"
    effect: str
    made: str | None  # for two cards, how they make the Midnumber: "4 + 1" or "9 - 4"
    if_nothing: IfNothing  # what "nothing" means at this table

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "effect": self.effect,
            "made": self.made,
            "if_nothing": self.if_nothing.value,
        }


def combo(cards: Sequence[int], game: Setup, if_nothing: IfNothing = IfNothing.NOTHING) -> ComboVerdict:
    """Judge a combo of 1, 2 or 3 cards played by one player; DeathByDigitsError for cards no deck of `game`
    holds or a count the sheet has no combo for."""
    played = tuple(cards)
    if not 1 <= len(played) <= 3:
        raise DeathByDigitsError(f"a combo is 1, 2 or 3 cards, got {len(played)}")
    outside = [n for n in played if not 1 <= n <= game.highest]
    if outside:
        raise DeathByDigitsError(f"cards run 1 to {game.highest} with {game.players} players, got {outside}")
    made = None
    if len(played) == 1:
        effect = "steal"
    elif len(played) == 2:
        low, high = sorted(played)
        if low + high == game.midnumber:
            made = f"{low} + {high}"
        elif high - low == game.midnumber:
            made = f"{high} - {low}"
        effect = "take" if made else "nothing"
    else:
        effect = "peek" if len(set(played)) == 1 else "nothing"
    return ComboVerdict(played, effect, made, if_nothing)
