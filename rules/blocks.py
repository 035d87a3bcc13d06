"""Decko Digits' block game: players collect the Reference card's ten five-digit blocks of pi, setting each down
as five face-up cards; whoever has set down the most blocks wins. (The sheet's heading for it was lost; it is
named after what players collect.)

Readings taken where the sheet (``rulebooks/decko-digits.md``) is silent:

- Five cards match a block if they pair one to one with its five digits, each card fitting its digit (a Wild
  either of its two): the sheet has players "set down five face-up cards matching a block", not lay them in
  its order. ``in_order`` asks for the block's order as well, as the cards lie in their row.
- With Wilds one set can match more than one block; it counts as one of them (the verdict lists each).
- A block is set down once in a game. On a table where sets can only make the same block, one of them counts
  and the others are flagged; the count is the most blocks the sets make, each set one block and each block
  once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.decko import DeckoCard, card_fits, card_text, checked
from rules.pi import BLOCKS

BLOCK_SIZE = 5


def blocks_matched(cards: Sequence[DeckoCard], in_order: bool = False) -> tuple[int, ...]:
    """The blocks (numbered 1..10 as on the Reference card) that the five `cards` make; none for another count."""
    laid = [checked(card) for card in cards]
    if len(laid) != BLOCK_SIZE:
        return ()
    orders = [laid] if in_order else list(itertools.permutations(laid))
    return tuple(
        number
        for number, block in enumerate(BLOCKS, start=1)
        if any(all(card_fits(c, d) for c, d in zip(order, block, strict=True)) for order in orders)
    )


@dataclass(frozen=True)
class BlockSet:
    """One set of cards on the table: the blocks it could make, and the one it counts as (None: none)."""

    cards: tuple[DeckoCard, ...]
    blocks: tuple[int, ...]
    counted: int | None

    def to_json(self) -> dict[str, Any]:
        return {"cards": [card_text(c) for c in self.cards], "blocks": list(self.blocks), "counted": self.counted}


@dataclass(frozen=True)
class BlockTable:
    sets: tuple[BlockSet, ...]

    @property
    def count(self) -> int:
        """Blocks set down: each set one block, each block once."""
        return sum(s.counted is not None for s in self.sets)

    def to_json(self) -> dict[str, Any]:
        return {"blocks": self.count, "sets": [s.to_json() for s in self.sets]}


def judge_sets(sets: Sequence[Sequence[DeckoCard]], in_order: bool = False) -> BlockTable:
    """Which block each set of cards makes, as many sets counted as can be, each block once; where sets must
    share a block, the earlier set counts."""
    matched = [blocks_matched(cards, in_order) for cards in sets]
    owner: dict[int, int] = {}  # block -> the set it is counted for

    def place(i: int, seen: set[int]) -> bool:
        """Augment the counting with set i (Kuhn's matching): a block free, or freed by moving its set on."""
        for block in matched[i]:
            if block not in seen:
                seen.add(block)
                if block not in owner or place(owner[block], seen):
                    owner[block] = i
                    return True
        return False

    for i in range(len(sets)):
        place(i, set())
    counted = {i: block for block, i in owner.items()}
    return BlockTable(
        tuple(
            BlockSet(tuple(checked(card) for card in cards), blocks, counted.get(i))
            for i, (cards, blocks) in enumerate(zip(sets, matched, strict=True))
        )
    )
