"""The table seen from straight above: a frame warped through the homography, and points mapped back.

A recogniser can read the top-down image, where every card has its true shape and size, and its
findings come back to frame pixels (or table mm) through `to_frame` (or `to_mm`). The view covers the
mat and a margin around it, since cards and sticks also lie just off the mat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.homography import TableHomography, pixel_to_mm
from calibration.mat import MatLayout
from vision.cards.classify import Reading
from vision.cards.recognize import SURE, Card, select_cards
from vision.geometry import points_in_quads

# Where the card recogniser reads the top-down view best, measured on rendered mat views with cards in
# lanes (tilts up to 45 degrees): a card 88 mm tall is then about 106 px, inside the sizes it was trained on.
READ_PX_PER_MM = 1.2
READ_MARGIN_MM = 20.0


@dataclass(frozen=True, eq=False)
class TopDownView:
    """Top-down pixel (u, v) shows table point ((u + 0.5) / px_per_mm - margin_mm, same for v) mm."""

    table: TableHomography
    px_per_mm: float = READ_PX_PER_MM
    margin_mm: float = READ_MARGIN_MM
    layout: MatLayout = field(default_factory=MatLayout)

    def __post_init__(self) -> None:
        if not self.px_per_mm > 0 or not self.margin_mm >= 0:
            raise ValueError("px_per_mm must be positive and margin_mm not negative")

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the top-down image in pixels."""
        span = np.array([self.layout.width_mm, self.layout.height_mm]) + 2 * self.margin_mm
        w, h = np.round(span * self.px_per_mm).astype(int)
        return int(w), int(h)

    @property
    def mm_to_view(self) -> np.ndarray:
        """Table mm -> top-down pixels (3x3)."""
        s, offset = self.px_per_mm, self.margin_mm * self.px_per_mm - 0.5
        return np.array([[s, 0, offset], [0, s, offset], [0, 0, 1]])

    def warp(self, frame: np.ndarray) -> np.ndarray:
        """The frame (raw, lens distortion and all) as seen from above."""
        image = self.table.lens.undistort(frame) if self.table.lens else frame
        matrix = self.mm_to_view @ self.table.matrix
        return cv2.warpPerspective(image, matrix, self.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def to_mm(self, points: np.ndarray) -> np.ndarray:
        """Top-down pixels (..., 2) -> table mm, same shape."""
        pts = np.asarray(points, dtype=np.float64)
        return pixel_to_mm(np.linalg.inv(self.mm_to_view), pts.reshape(-1, 2)).reshape(pts.shape)

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        """Top-down pixels (..., 2) -> raw frame pixels, same shape."""
        pts = np.asarray(points, dtype=np.float64)
        return self.table.mm_to_pixel(self.to_mm(pts).reshape(-1, 2)).reshape(pts.shape)

    def from_frame(self, points: np.ndarray) -> np.ndarray:
        """Raw frame pixels (..., 2) -> top-down pixels, same shape."""
        pts = np.asarray(points, dtype=np.float64)
        mm = self.table.pixel_to_mm(pts.reshape(-1, 2))
        return pixel_to_mm(self.mm_to_view, mm).reshape(pts.shape)


def read_cards(
    recognizer: Callable[[np.ndarray], list[Card]],
    frame: np.ndarray,
    view: TopDownView,
    raw: list[Card] | None = None,
) -> list[Card]:
    """Cards read on the raw frame (`raw`, if already read) and on the top-down view, in frame pixels,
    each card kept once.

    Measured by `tableref evaluate calibration` (40 rendered mat views, cards in lanes, tilts to 45
    degrees): the raw frame alone reads 63 % of the cards right, the top-down view 72 %, both together
    80 %, with no false card in any way; lines read exactly right go from 49 % to 70 %. It costs a
    second reading (74 -> 165 ms median).
    """
    raw = recognizer(frame) if raw is None else raw
    above = [
        Card(c.face, view.to_frame(c.corners).astype(np.float32), c.confidence) for c in recognizer(view.warp(frame))
    ]
    return merged(view, raw, above)


def merged(view: TopDownView, raw: list[Card], above: list[Card]) -> list[Card]:
    """The cards read on the raw frame and on the top-down view (`above`, in frame pixels), each card kept once,
    and none of the mat's own print (`off_markers`)."""
    return off_markers(view, select_cards([Reading(c.face, c.corners, c.confidence) for c in raw + above]))


def off_markers(view: TopDownView, cards: list[Card]) -> list[Card]:
    """The cards but those read less than SURE with their centre on one of the mat's printed markers: a marker's
    corner read as a card (the race mat's one false card in `tableref evaluate calibration`, a Starter read
    0.55 sure). A card laid over a marker hides it, and is read surely."""
    if not cards:
        return cards
    centres = np.array([view.table.pixel_to_mm(c.corners).mean(axis=0) for c in cards])
    on = points_in_quads(centres, [m.corners for m in view.layout.markers]).any(axis=1)
    return [c for c, marked in zip(cards, on, strict=True) if c.confidence >= SURE or not marked]
