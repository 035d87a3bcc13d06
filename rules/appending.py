"""Decko Digits' appending game: players take turns appending digits of pi to the Starter from hands of Digit and
Wild cards; the first to empty their hand wins. (The sheet's heading for it was lost; it is named after what
players do.)

Readings taken where the sheet (``rulebooks/decko-digits.md``) is silent:

- A Wild fits the next place if either of its two digits is the next digit of pi.
- A line past the fiftieth decimal is wrong there: the deck has no such card.
- A turn appends "as many cards as possible": the longest run of the hand's cards that fits place after place
  from the end of the line (``appendable``); among runs as long, one that keeps Wilds in hand for later
  (they fit more places).
- The sheet's Special Rule (``jump_to_end``): once the deck is gone, a hand that is exactly the last digits of the
  fifty, none of whose cards fits any place still open before them, is laid there and wins. A photo cannot
  tell the deck is empty, so the player says so (``--deck-empty``); a line laid with such a jump is not judged
  from a photo.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.decko import DeckoCard, card_fits, card_text, checked
from rules.pi import PI_DECIMALS


def fits(card: DeckoCard, place: int) -> bool:
    """Whether `card` may be appended as decimal number `place` (0-based) of pi."""
    return place < len(PI_DECIMALS) and card_fits(card, PI_DECIMALS[place])


@dataclass(frozen=True)
class AppendVerdict:
    cards: tuple[DeckoCard, ...]  # after the Starter, in order
    correct: int  # cards in order from the Starter before the first that does not fit
    first_wrong: int | None  # its index (0-based, after the Starter); None if every card fits

    @property
    def next_digit(self) -> int | None:
        """The digit the line needs next (a right line only; None once the fifty are laid)."""
        if self.first_wrong is not None or self.correct >= len(PI_DECIMALS):
            return None
        return PI_DECIMALS[self.correct]

    @property
    def expected(self) -> int | None:
        """The digit the first wrong card's place needs (None: no wrong card, or one past the fiftieth)."""
        place = self.first_wrong
        return PI_DECIMALS[place] if place is not None and place < len(PI_DECIMALS) else None

    @property
    def complete(self) -> bool:
        return self.first_wrong is None and self.correct == len(PI_DECIMALS)

    def to_json(self) -> dict[str, Any]:
        wrong = None
        if self.first_wrong is not None:
            got = card_text(self.cards[self.first_wrong])
            wrong = {"index": self.first_wrong, "expected": self.expected, "got": got}
        return {
            "cards": [card_text(c) for c in self.cards],
            "correct": self.correct,
            "first_error": wrong,
            "next_digit": self.next_digit,
            "complete": self.complete,
        }


def judge_line(cards: Sequence[DeckoCard]) -> AppendVerdict:
    """The line after the Starter: how many cards fit in order, and the first that does not."""
    line = tuple(checked(card) for card in cards)
    correct = next((i for i, card in enumerate(line) if not fits(card, i)), len(line))
    return AppendVerdict(line, correct, correct if correct < len(line) else None)


def appendable(laid: int, hand: Sequence[DeckoCard]) -> list[DeckoCard]:
    """The longest run of `hand`'s cards that can be appended in order after `laid` right cards; where runs tie,
    the one that spends fewest Wilds. Empty: no card fits, so the player draws (up to three draws a turn)."""
    pool = [checked(card) for card in hand]
    best: list[DeckoCard] = []

    def extend(run: list[DeckoCard], left: list[DeckoCard]) -> None:
        nonlocal best
        if (len(run), -_wilds(run)) > (len(best), -_wilds(best)):
            best = list(run)
        place = laid + len(run)
        tried: set[DeckoCard] = set()
        for i, card in enumerate(left):
            if card not in tried and fits(card, place):
                tried.add(card)
                extend([*run, card], left[:i] + left[i + 1 :])

    extend([], pool)
    return best


def _wilds(run: list[DeckoCard]) -> int:
    return sum(isinstance(card, tuple) for card in run)


def jump_to_end(laid: int, hand: Sequence[DeckoCard]) -> list[DeckoCard] | None:
    """The Special Rule, once the deck is empty: the whole `hand`, in the order it is laid as the last decimals of
    the fifty (each card fitting its place there), where no card of it fits any place left open between the
    line (`laid` right cards) and them; None where the rule does not apply."""
    cards = [checked(card) for card in hand]
    start = len(PI_DECIMALS) - len(cards)
    if not cards or start < laid:
        return None
    if any(fits(card, place) for card in cards for place in range(laid, start)):
        return None
    orders = (list(order) for order in itertools.permutations(cards))
    return next((order for order in orders if all(fits(card, start + i) for i, card in enumerate(order))), None)
