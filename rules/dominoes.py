"""Domino tiles: two ends of 0..9 pips, written as ``"3|5"``."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PIPS = 9
"""The largest sets the project referees are double-nine; a tile end never shows more."""

_TEXT = re.compile(r"\s*(\d)\s*\|\s*(\d)\s*")


class InvalidDominoError(ValueError):
    """Text or pip counts that do not describe a domino."""


@dataclass(frozen=True, slots=True, eq=False)
class Domino:
    """A tile. Equal to its turned-round self, but it keeps the written order for display.

    The written order is what a placement needs (which end lies where), so it is kept rather than
    normalised away; comparisons and hashing ignore it because a tile is one physical object.
    """

    first: int
    second: int

    def __post_init__(self) -> None:
        for end in (self.first, self.second):
            # bool is an int subclass; True|False is not a tile.
            if type(end) is not int or not 0 <= end <= MAX_PIPS:
                raise InvalidDominoError(f"a domino end shows 0..{MAX_PIPS} pips, not {end!r}")

    @classmethod
    def parse(cls, text: str) -> Domino:
        match = _TEXT.fullmatch(text)
        if match is None:
            raise InvalidDominoError(f"expected a domino like '3|5', got {text!r}")
        return cls(int(match[1]), int(match[2]))

    @property
    def ends(self) -> tuple[int, int]:
        return (self.first, self.second)

    @property
    def key(self) -> tuple[int, int]:
        """The orientation-free identity, low end first: for sorting and set membership."""
        return (self.first, self.second) if self.first <= self.second else (self.second, self.first)

    @property
    def pips(self) -> int:
        return self.first + self.second

    @property
    def is_double(self) -> bool:
        return self.first == self.second

    def turned(self) -> Domino:
        return Domino(self.second, self.first)

    def to_json(self) -> list[int]:
        return [self.first, self.second]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Domino):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return f"{self.first}|{self.second}"

    def __repr__(self) -> str:
        return f"Domino.parse({str(self)!r})"


def double_set(top: int) -> tuple[Domino, ...]:
    """Every tile of a double-``top`` set once, low end first: (top+1)(top+2)/2 tiles."""
    if type(top) is not int or not 0 <= top <= MAX_PIPS:
        raise InvalidDominoError(f"sets run from double-0 to double-{MAX_PIPS}, not double-{top!r}")
    return tuple(Domino(low, high) for low in range(top + 1) for high in range(low, top + 1))
