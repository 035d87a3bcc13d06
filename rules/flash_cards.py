"""Decko Digits' flash cards, as a drill for one: the referee asks for a decimal of pi among the first N, the
player lays the card they take it to be, and hears whether it is right, until every decimal in play has been
answered right once.

Readings taken where the sheet (``rulebooks/decko-digits.md``: "use them as flash cards to help memorize more and
more digits") is silent:

- The decimals in play are asked in a shuffled order (a seed makes it repeatable), as flash cards are drawn; a
  decimal answered wrong is asked again after the others, until it is answered right.
- A card answers for a decimal if it is that digit's card, or its Wild. The Starter is not an answer.
- One card lies on the table for an answer; it is taken away before the next question. A table showing more
  than one card answers nothing (the drill says so).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.decko import DeckoCard, card_fits, card_text, checked
from rules.flash_memory import Memory, after_drill, drill_order
from rules.pi import PI_DECIMALS


class FlashError(ValueError):
    """A drill that cannot be set: the message says why."""


@dataclass(frozen=True)
class FlashAnswer:
    place: int  # the decimal asked, 0-based
    card: DeckoCard

    @property
    def digit(self) -> int:
        return PI_DECIMALS[self.place]

    @property
    def right(self) -> bool:
        return card_fits(self.card, self.digit)

    def to_json(self) -> dict[str, Any]:
        return {"decimal": self.place + 1, "digit": self.digit, "card": card_text(self.card), "right": self.right}


@dataclass(frozen=True)
class FlashDrill:
    order: tuple[int, ...]  # the decimals asked (0-based), in turn; one answered wrong comes again at the end
    answers: tuple[FlashAnswer, ...] = ()
    waiting: bool = False  # the last answer still lies on the table: it goes before the next question
    crowded: bool = False  # the table showed more than one card, which answers nothing
    learner: str | None = None  # whose memory the drill was drawn from (rules/flash_memory.py), if anyone's
    memory: Memory | None = None  # the learner's memory as the drill began

    @property
    def asked(self) -> int | None:
        """The decimal asked now (0-based); None once every one has been answered right."""
        return self.order[len(self.answers)] if len(self.answers) < len(self.order) else None

    @property
    def over(self) -> bool:
        return self.asked is None

    @property
    def right(self) -> int:
        return sum(answer.right for answer in self.answers)

    @property
    def run(self) -> int:
        """Right answers in a row, to the last."""
        count = 0
        for answer in reversed(self.answers):
            if not answer.right:
                break
            count += 1
        return count

    @property
    def best_run(self) -> int:
        best = count = 0
        for answer in self.answers:
            count = count + 1 if answer.right else 0
            best = max(best, count)
        return best

    @property
    def remembered(self) -> Memory | None:
        """The learner's memory with this drill's answers so far taken in."""
        if self.memory is None:
            return None
        return after_drill(self.memory, ((answer.place, answer.right) for answer in self.answers))

    def to_json(self) -> dict[str, Any]:
        asked = self.asked
        remembered = self.remembered
        learner = {} if remembered is None else {"learner": self.learner, "memory": remembered.to_json()}
        return {
            "asked": None if asked is None else asked + 1,
            "answers": [answer.to_json() for answer in self.answers],
            "right": self.right,
            "run": self.run,
            "best_run": self.best_run,
            "waiting": self.waiting,
            "crowded": self.crowded,
            "over": self.over,
            "order": [place + 1 for place in self.order],
            **learner,
        }


def new_drill(digits: int, seed: int) -> FlashDrill:
    """The first `digits` decimals, shuffled by `seed`."""
    if not 1 <= digits <= len(PI_DECIMALS):
        raise FlashError(f"the drill asks 1 to {len(PI_DECIMALS)} decimals, not {digits}")
    return FlashDrill(tuple(random.Random(seed).sample(range(digits), digits)))


def remembered_drill(learner: str, memory: Memory, seed: int) -> FlashDrill:
    """The learner's next drill: the decimals their memory has due, shuffled by `seed`."""
    return FlashDrill(drill_order(memory, seed), learner=learner, memory=memory)


def seen(drill: FlashDrill, cards: Sequence[DeckoCard]) -> FlashDrill:
    """The drill once the table settles showing `cards` (its Digit and Wild cards): an empty table readies the
    next question, one card answers the one asked (a wrong answer's decimal comes again at the end)."""
    cards = [checked(card) for card in cards]
    if not cards:
        return replace(drill, waiting=False, crowded=False)
    if len(cards) > 1:
        return replace(drill, crowded=True)
    if drill.waiting or drill.asked is None:
        return replace(drill, crowded=False)
    answer = FlashAnswer(drill.asked, cards[0])
    again = () if answer.right else (answer.place,)
    return replace(drill, order=(*drill.order, *again), answers=(*drill.answers, answer), waiting=True, crowded=False)
