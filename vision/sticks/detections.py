"""What the stick recogniser reports: one validated type per object kind, serialised as the JSON contract."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.digit_game import Layout
from rules.sticks import PENTASTICKS, Edge


class DetectionError(ValueError):
    """A detection that cannot be: ends that coincide, a confidence outside 0..1, edges that do not fit."""


@dataclass(frozen=True, slots=True, eq=False)
class Stick:
    """One stick: the two ends of its middle line in image pixels (2x2), and how sure the reading is.

    Which end comes first carries no meaning. Two sticks are the same only if they are the same object.
    """

    ends: np.ndarray
    confidence: float

    def __post_init__(self) -> None:
        ends = np.asarray(self.ends, dtype=np.float32).reshape(-1)
        if ends.shape != (4,) or not np.all(np.isfinite(ends)):
            raise DetectionError(f"a stick has two finite ends [[x, y], [x, y]], not {self.ends!r}")
        ends = ends.reshape(2, 2)
        if np.linalg.norm(ends[1] - ends[0]) <= 0:
            raise DetectionError("a stick's two ends cannot coincide")
        if not 0.0 <= self.confidence <= 1.0:
            raise DetectionError(f"confidence is in 0..1, not {self.confidence!r}")
        object.__setattr__(self, "ends", ends)

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.ends[1] - self.ends[0]))

    @property
    def center(self) -> np.ndarray:
        return self.ends.mean(axis=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "ends": [[round(float(x), 1), round(float(y), 1)] for x, y in self.ends],
            "confidence": round(float(self.confidence), 3),
        }


@dataclass(frozen=True, slots=True)
class Polystick:
    """Sticks that touch, snapped to the square lattice.

    `sticks` indexes the frame's stick list; `edges[i]` is where `sticks[i]` lies, in the group's own frame
    (x along the lattice direction nearest the picture's x, y turned from it as the picture's y is, smallest
    x and y 0). `on_lattice` is false where sticks cross, an end touches a middle, a stick lies off the two
    directions or off the unit length: the edges are then only the nearest lattice reading. `card` is the
    pentastick's number (1..55) when the group is a legal five-stick pattern, else None.
    """

    sticks: tuple[int, ...]
    edges: tuple[Edge, ...]
    connected: bool
    on_lattice: bool
    card: int | None

    def __post_init__(self) -> None:
        if len(self.sticks) != len(self.edges) or not self.sticks:
            raise DetectionError("a polystick has one edge per stick, and at least one stick")
        if len(set(self.sticks)) != len(self.sticks) or min(self.sticks) < 0:
            raise DetectionError(f"stick indices are distinct and not negative: {self.sticks!r}")
        if self.card is not None and not 1 <= self.card <= len(PENTASTICKS):
            raise DetectionError(f"cards are numbered 1..{len(PENTASTICKS)}, not {self.card!r}")

    def layout(self) -> Layout:
        """The group as the DIGIT referee takes it."""
        return Layout(self.edges, self.on_lattice)

    def to_json(self) -> dict[str, Any]:
        return {
            "sticks": list(self.sticks),
            "edges": [edge.to_json() for edge in self.edges],
            "connected": self.connected,
            "on_lattice": self.on_lattice,
            "card": self.card,
        }


def median_length(sticks: Iterable[Stick]) -> float:
    """The median of the sticks' lengths (image px)."""
    return float(np.median([s.length for s in sticks]))
