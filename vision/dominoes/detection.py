"""The one validated type every domino stage hands on: a tile's outline and its two halves."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MAX_PIPS = 9  # double-nine sets are the largest the project referees


class InvalidDominoError(ValueError):
    """Numbers that cannot describe a domino seen in a picture."""


def _point(value: np.ndarray | tuple[float, float], what: str) -> np.ndarray:
    point = np.asarray(value, dtype=np.float32).reshape(-1)
    if point.shape != (2,) or not np.isfinite(point).all():
        raise InvalidDominoError(f"{what} must be a finite (x, y), not {value!r}")
    return point


@dataclass(frozen=True, slots=True, eq=False)
class Half:
    """One end of a tile: where its middle is in the picture and how many pips it shows."""

    center: np.ndarray
    pips: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "center", _point(self.center, "a half's centre"))
        if type(self.pips) is not int or not 0 <= self.pips <= MAX_PIPS:
            raise InvalidDominoError(f"a half shows 0..{MAX_PIPS} pips, not {self.pips!r}")

    def to_json(self) -> dict:
        return {"center": [round(float(v), 1) for v in self.center], "pips": self.pips}


@dataclass(frozen=True, slots=True, eq=False)
class Domino:
    """One tile read from a frame, in image pixels.

    `corners` are the tile's own top-left, top-right, bottom-right, bottom-left with `halves[0]` at the top
    edge, so the matching rules know which end lies where. Equal values can lie twice on a table, so two
    readings are the same tile only if they are the same object.
    """

    corners: np.ndarray
    halves: tuple[Half, Half]
    confidence: float

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, dtype=np.float32)
        if corners.shape != (4, 2) or not np.isfinite(corners).all():
            raise InvalidDominoError(f"a tile has four finite corners, not {self.corners!r}")
        if cv2.contourArea(corners, oriented=True) <= 0 or not cv2.isContourConvex(corners):
            raise InvalidDominoError("a tile's corners must run clockwise round a convex outline")
        if len(self.halves) != 2 or not all(isinstance(h, Half) for h in self.halves):
            raise InvalidDominoError("a tile has exactly two halves")
        if not 0.0 <= self.confidence <= 1.0:
            raise InvalidDominoError(f"confidence runs from 0 to 1, not {self.confidence!r}")
        object.__setattr__(self, "corners", corners)
        object.__setattr__(self, "halves", tuple(self.halves))

    @property
    def center(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    @property
    def pips(self) -> tuple[int, int]:
        return (self.halves[0].pips, self.halves[1].pips)

    def to_json(self) -> dict:
        return {
            "center": [round(float(v), 1) for v in self.center],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "halves": [h.to_json() for h in self.halves],
            "confidence": round(float(self.confidence), 3),
        }

    def __repr__(self) -> str:
        x, y = self.center
        return f"<Domino {self.pips[0]}|{self.pips[1]} at ({x:.0f}, {y:.0f}) confidence {self.confidence:.2f}>"
