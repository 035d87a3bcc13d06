"""The printable play mat as data in table millimetres, and its rendering to paper.

Table coordinates: millimetres, origin at the mat's top-left corner, x to the right, y down (the same
handedness as image pixels, so a homography between them never mirrors). Everything that detects, maps
or draws the mat reads the geometry from `MatLayout`, so the printed page and the detector cannot drift
apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.cards.artwork import CARD_MM

A3_MM = (420.0, 297.0)
A4_MM = (210.0, 297.0)
DICTIONARY = cv2.aruco.DICT_4X4_50
INK = (165, 165, 165)  # zone outlines and names: light enough that recognisers do not take them for sticks

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in mm
ZONE_GAP_MM = 6.0
LANE_SHARE = 0.6  # of the play mat's height between the marker bands, for its lanes


@dataclass(frozen=True)
class Marker:
    """One printed ArUco marker: its dictionary id and top-left corner, both in table mm."""

    id: int
    x: float
    y: float
    size: float

    @property
    def corners(self) -> np.ndarray:
        """The four corners in ArUco order (top-left, top-right, bottom-right, bottom-left), in mm."""
        x, y, s = self.x, self.y, self.size
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)


@dataclass(frozen=True)
class MatLayout:
    """Mat size, marker size and placement, and the printed zones.

    Markers sit at the four corners, two more along each long edge (at a third and two thirds, so none
    straddles the join of two A4 sheets) and one at the middle of each short edge: ten in all, so the
    homography survives a hand over any two of them.

    The play mat prints narrow Tempus lanes above the pi, stick and hand areas; they show where each
    player's line starts and which way it runs, but a card is wider than they are. The race mat
    (`race=True`) has the same markers, so one calibration serves both prints, and gives the whole page to
    two lanes a card tall, or three a card wide for cards laid sideways.
    """

    width_mm: float = A3_MM[0]
    height_mm: float = A3_MM[1]
    marker_mm: float = 32.0
    margin_mm: float = 10.0
    lanes: int = None  # type: ignore[assignment]  # 4 on the play mat, 2 on the race mat
    dictionary: int = DICTIONARY
    race: bool = False

    def __post_init__(self) -> None:
        if self.lanes is None:
            object.__setattr__(self, "lanes", 2 if self.race else 4)
        if not 2 <= self.lanes <= 4:
            raise ValueError(f"lanes: expected 2 to 4, got {self.lanes}")
        if min(self.width_mm, self.height_mm) < 4 * (self.marker_mm + self.margin_mm):
            raise ValueError("mat too small for its markers")
        if self.race and self.lane_height_mm < CARD_MM[0]:
            raise ValueError(
                f"lanes: {self.lanes} race lanes of {self.lane_height_mm:.0f} mm are narrower than a card "
                f"({CARD_MM[0]:.0f} mm even laid sideways); print fewer lanes"
            )

    @property
    def _inner(self) -> Rect:
        """The area between the marker bands, where zones are printed."""
        band = self.margin_mm + self.marker_mm + ZONE_GAP_MM
        return band, band, self.width_mm - band, self.height_mm - band

    @property
    def lane_height_mm(self) -> float:
        """Each lane's width across its line of cards."""
        _, y0, _, y1 = self._inner
        share = 1.0 if self.race else LANE_SHARE
        return (share * (y1 - y0) - (self.lanes - 1) * ZONE_GAP_MM * self.race) / self.lanes

    @cached_property
    def markers(self) -> tuple[Marker, ...]:
        w, h, s, m = self.width_mm, self.height_mm, self.marker_mm, self.margin_mm
        left, right, top, bottom = m, w - m - s, m, h - m - s
        long_is_x = w >= h
        places = [(left, top), (right, top), (right, bottom), (left, bottom)]
        if long_is_x:
            places += [(w * f - s / 2, top) for f in (1 / 3, 2 / 3)]
            places += [(w * f - s / 2, bottom) for f in (2 / 3, 1 / 3)]
            places += [(left, (h - s) / 2), (right, (h - s) / 2)]
        else:
            places += [(left, h * f - s / 2) for f in (1 / 3, 2 / 3)]
            places += [(right, h * f - s / 2) for f in (2 / 3, 1 / 3)]
            places += [((w - s) / 2, top), ((w - s) / 2, bottom)]
        return tuple(Marker(i, x, y, s) for i, (x, y) in enumerate(places))

    @cached_property
    def zone_rects(self) -> dict[str, Rect]:
        """Printed zones: the Tempus lanes across the top, then (not on the race mat) the pi, sticks and hand
        areas. The race mat's lanes are kept apart by a gap, so that a card is never half in each."""
        gap = ZONE_GAP_MM
        x0, y0, x1, y1 = self._inner
        pitch = self.lane_height_mm + gap * self.race
        rects = {
            f"lane-{i + 1}": (x0, y0 + i * pitch, x1, y0 + i * pitch + self.lane_height_mm) for i in range(self.lanes)
        }
        if self.race:
            return rects
        split = y0 + LANE_SHARE * (y1 - y0)
        inner_w = x1 - x0 - 2 * gap
        a = x0 + 0.3 * inner_w
        b = a + gap + 0.45 * inner_w
        rects["pi"] = (x0, split + gap, a, y1)
        rects["sticks"] = (a + gap, split + gap, b, y1)
        rects["hand"] = (b + gap, split + gap, x1, y1)
        return rects

    @property
    def outline(self) -> np.ndarray:
        """The mat's four corners in mm, clockwise from the top-left."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


def marker_layout(layout: MatLayout | None = None) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in table mm (ArUco corner order), the reference for detection."""
    layout = layout or MatLayout()
    return {m.id: m.corners for m in layout.markers}


def render_mat(layout: MatLayout | None = None, dpi: float = 300) -> Image.Image:
    """The whole mat as one page (A3 for the default layout); pixel edge x*dpi/25.4 is table x mm."""
    layout = layout or MatLayout()
    scale = dpi / 25.4
    size = (round(layout.width_mm * scale), round(layout.height_mm * scale))
    page = np.full((size[1], size[0]), 255, dtype=np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(layout.dictionary)
    for marker in layout.markers:
        _paint_marker(page, marker, dictionary, scale)
    image = Image.fromarray(page).convert("RGB")
    draw = ImageDraw.Draw(image)
    line = max(1, round(0.5 * scale))
    font = ImageFont.load_default(size=max(8, round(5 * scale)))
    for name, (x0, y0, x1, y1) in layout.zone_rects.items():
        box = [round(x0 * scale), round(y0 * scale), round(x1 * scale), round(y1 * scale)]
        draw.rectangle(box, outline=INK, width=line)
        draw.text((box[0] + round(2.5 * scale), box[1] + round(2 * scale)), name, fill=INK, font=font)
    return image


def _paint_marker(page: np.ndarray, marker: Marker, dictionary: cv2.aruco.Dictionary, scale: float) -> None:
    # One pixel per cell, then each cell painted between its own rounded mm edges: the printed corners
    # stay within half a pixel of the layout at any dpi.
    cells = cv2.aruco.generateImageMarker(dictionary, marker.id, dictionary.markerSize + 2, borderBits=1)
    n = cells.shape[0]
    xs = [round((marker.x + marker.size * k / n) * scale) for k in range(n + 1)]
    ys = [round((marker.y + marker.size * k / n) * scale) for k in range(n + 1)]
    for r in range(n):
        for c in range(n):
            page[ys[r] : ys[r + 1], xs[c] : xs[c + 1]] = cells[r, c]


def render_mat_tiles(
    layout: MatLayout | None = None, dpi: float = 300, sheet_mm: tuple[float, float] = A4_MM
) -> list[Image.Image]:
    """The mat cut into sheets (A4 by default) that join edge to edge, in reading order.

    Each sheet carries alignment ticks across its joins: laid side by side, the ticks on neighbouring
    sheets meet in straight lines. Raises ValueError when a marker would straddle a join, because a
    marker split over two sheets would be read with the sheets' misalignment baked in.
    """
    layout = layout or MatLayout()
    sheet_w, sheet_h = _sheet_orientation(layout, sheet_mm)
    cols = math.ceil(layout.width_mm / sheet_w - 1e-9)
    rows = math.ceil(layout.height_mm / sheet_h - 1e-9)
    for marker in layout.markers:
        x0, y0 = marker.x, marker.y
        if any(x0 < c * sheet_w < x0 + marker.size for c in range(1, cols)) or any(
            y0 < r * sheet_h < y0 + marker.size for r in range(1, rows)
        ):
            raise ValueError(f"marker {marker.id} straddles a sheet join")
    scale = dpi / 25.4
    whole = render_mat(layout, dpi)
    page_px = (round(sheet_w * scale), round(sheet_h * scale))
    tick, line = round(10 * scale), max(1, round(0.3 * scale))
    pages = []
    for r in range(rows):
        for c in range(cols):
            left, top = round(c * sheet_w * scale), round(r * sheet_h * scale)
            page = Image.new("RGB", page_px, "white")
            right, bottom = min(left + page_px[0], whole.width), min(top + page_px[1], whole.height)
            page.paste(whole.crop((left, top, right, bottom)), (0, 0))
            draw = ImageDraw.Draw(page)
            for frac in (0.25, 0.5, 0.75):
                ty, tx = round(frac * page_px[1]), round(frac * page_px[0])
                if c > 0:
                    draw.line((0, ty, tick, ty), fill=INK, width=line)
                if c < cols - 1:
                    draw.line((page_px[0] - tick, ty, page_px[0], ty), fill=INK, width=line)
                if r > 0:
                    draw.line((tx, 0, tx, tick), fill=INK, width=line)
                if r < rows - 1:
                    draw.line((tx, page_px[1] - tick, tx, page_px[1]), fill=INK, width=line)
            pages.append(page)
    return pages


def _sheet_orientation(layout: MatLayout, sheet_mm: tuple[float, float]) -> tuple[float, float]:
    """The sheet orientation that needs fewer sheets (portrait A4 for an A3 landscape mat: two)."""

    def count(w: float, h: float) -> int:
        return math.ceil(layout.width_mm / w - 1e-9) * math.ceil(layout.height_mm / h - 1e-9)

    a, b = sheet_mm
    return (a, b) if count(a, b) <= count(b, a) else (b, a)
