"""A learner's memory of pi's decimals, kept from one flash-card drill to the next, so that the drills help
"memorize more and more digits" (``rulebooks/decko-digits.md``, Flash Cards).

Readings taken where the sheet is silent (it names no method): spaced repetition in Leitner's boxes, as paper
flash cards are kept.

- Each decimal sits in a box, 0 to TOP_BOX. The first answer it gets in a drill moves it: right, one box up;
  wrong, back to box 0. A decimal asked again in the same drill after a miss moves no further.
- A decimal in box b is asked again INTERVALS[b] drills later: box 0 and box 1 in the next drill, box 4 only
  after eight. A decimal not asked (a drill stopped early) stays due.
- A drill asks every decimal due, in a shuffled order. Where fewer than FEWEST are due (as when most in play are
  learnt and wait), the soonest due make up the number; such a decimal, asked before its time, goes back to
  box 0 if missed but no box up if right, so a box's wait is never cut short.
- The decimals in play start with the first FIRST_REACH and grow a block of five at a time (Decko's cards
  carry pi in blocks of five, told by their dot marks) once every decimal in play sits in LEARNT_BOX or above:
  answered right the first time asked in two drills. A decimal new in play has not been asked yet.
- A drill that got no answer is not counted.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.pi import PI_DECIMALS

BLOCK = 5
FIRST_REACH = 2 * BLOCK
TOP_BOX = 4
LEARNT_BOX = 2
INTERVALS = (1, 1, 2, 4, 8)  # drills until a decimal in each box is asked again
FEWEST = 5
DECIMALS = len(PI_DECIMALS)


@dataclass(frozen=True)
class Recall:
    """One decimal as the learner knows it: its box, the drill (counted from 0) it is next asked in, and
    whether it was ever answered."""

    box: int = 0
    due: int = 0
    asked: bool = False


@dataclass(frozen=True)
class Memory:
    reach: int = FIRST_REACH  # the decimals in play: the first `reach`
    drills: int = 0  # drills taken, each with an answer
    recalls: tuple[Recall, ...] = (Recall(),) * FIRST_REACH  # one per decimal in play

    @property
    def learnt(self) -> int:
        return sum(recall.box >= LEARNT_BOX for recall in self.recalls)

    def due(self) -> list[int]:
        """The decimals (0-based) the next drill asks, in the order of the places: every one due, made up to
        FEWEST by the soonest due."""
        due = [place for place, recall in enumerate(self.recalls) if recall.due <= self.drills]
        if len(due) >= FEWEST:
            return due
        later = sorted((recall.due, place) for place, recall in enumerate(self.recalls) if place not in due)
        return sorted(due + [place for _, place in later[: FEWEST - len(due)]])

    def to_json(self) -> dict[str, Any]:
        return {
            "reach": self.reach,
            "drills": self.drills,
            "learnt": self.learnt,
            "boxes": [recall.box if recall.asked else None for recall in self.recalls],  # None: never asked
        }


def drill_order(memory: Memory, seed: int) -> tuple[int, ...]:
    """The decimals the next drill asks (0-based), shuffled by `seed`."""
    due = memory.due()
    return tuple(random.Random(seed).sample(due, len(due)))


def after_drill(memory: Memory, answers: Iterable[tuple[int, bool]]) -> Memory:
    """The memory once a drill's answers (each decimal asked, 0-based, and whether the card laid was right, in
    the order given) are taken in. Only each decimal's first answer moves it; a decimal out of play is no
    answer of this drill."""
    first: dict[int, bool] = {}
    for place, right in answers:
        if place < memory.reach:
            first.setdefault(place, right)
    if not first:
        return memory
    drill = memory.drills
    recalls = list(memory.recalls)
    for place, right in first.items():
        was = recalls[place]
        if right and was.due > drill:  # asked early to make up the number: the wait stands
            recalls[place] = Recall(was.box, was.due, asked=True)
            continue
        box = min(was.box + 1, TOP_BOX) if right else 0
        recalls[place] = Recall(box, drill + INTERVALS[box], asked=True)
    reach = memory.reach
    if reach < DECIMALS and all(recall.box >= LEARNT_BOX for recall in recalls):
        added = min(BLOCK, DECIMALS - reach)  # in box 0, so play grows by one block at a time
        recalls += [Recall(0, drill + 1)] * added
        reach += added
    return Memory(reach, drill + 1, tuple(recalls))
