"""Named areas of the table in millimetres: which player or which purpose an object belongs to.

Zones live in table coordinates, not pixels, so they stay put when the camera moves and the homography
is re-estimated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from calibration.homography import TableHomography
from calibration.mat import MatLayout

PURPOSES = ("lane", "pi", "sticks", "hand", "user")

Point = tuple[float, float]


@dataclass(frozen=True)
class Zone:
    """A polygon in table mm with a name, a purpose and, for per-player areas, a player number (1-based)."""

    name: str
    polygon: tuple[Point, ...]
    purpose: str = "user"
    player: int | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("zone name: expected a non-empty string")
        if len(self.polygon) < 3:
            raise ValueError(f"zone {self.name!r}: expected at least 3 polygon points")
        if self.purpose not in PURPOSES:
            raise ValueError(f"zone {self.name!r}: purpose must be one of {', '.join(PURPOSES)}")
        if self.player is not None and self.player < 1:
            raise ValueError(f"zone {self.name!r}: player must be 1 or more")

    def contains(self, point: Sequence[float]) -> bool:
        """Inside or on the border (even-odd rule, so any simple polygon a user draws works)."""
        x, y = float(point[0]), float(point[1])
        inside = False
        pts = self.polygon
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
            if _on_segment(x, y, x0, y0, x1, y1):
                return True
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                inside = not inside
        return inside

    @property
    def center(self) -> Point:
        """The vertex mean: a point to label the zone at."""
        xs, ys = zip(*self.polygon, strict=True)
        return (sum(xs) / len(xs), sum(ys) / len(ys))


def _on_segment(x: float, y: float, x0: float, y0: float, x1: float, y1: float, eps: float = 1e-9) -> bool:
    cross = (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
    within = min(x0, x1) - eps <= x <= max(x0, x1) + eps and min(y0, y1) - eps <= y <= max(y0, y1) + eps
    return abs(cross) <= eps * max(1.0, abs(x1 - x0) + abs(y1 - y0)) and within


class Zones:
    """An ordered set of zones with unique names; later zones lie on top of earlier ones."""

    def __init__(self, zones: Iterable[Zone] = ()) -> None:
        self._zones = tuple(zones)
        names = [z.name for z in self._zones]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate zone names: {', '.join(duplicates)}")

    def __iter__(self) -> Iterator[Zone]:
        return iter(self._zones)

    def __len__(self) -> int:
        return len(self._zones)

    def __getitem__(self, name: str) -> Zone:
        for zone in self._zones:
            if zone.name == name:
                return zone
        raise KeyError(name)

    def __repr__(self) -> str:
        return f"Zones({list(self._zones)!r})"

    def with_zone(self, zone: Zone) -> Zones:
        """A copy with `zone` on top, replacing any zone of the same name (a user redrawing it)."""
        return Zones([z for z in self._zones if z.name != zone.name] + [zone])

    def zone_at(self, point_mm: Sequence[float]) -> Zone | None:
        """The topmost zone containing the table point, or None outside every zone."""
        for zone in reversed(self._zones):
            if zone.contains(point_mm):
                return zone
        return None


def mat_zones(layout: MatLayout | None = None) -> Zones:
    """The zones printed on the mat: lane-N belongs to player N; pi, sticks and hand to their purpose."""
    zones = []
    for name, (x0, y0, x1, y1) in (layout or MatLayout()).zone_rects.items():
        purpose, _, number = name.partition("-")
        polygon = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
        zones.append(Zone(name, polygon, purpose, int(number) if number else None))
    return Zones(zones)


def zone_from_pixels(
    name: str,
    polygon_px: np.ndarray,
    homography: TableHomography,
    purpose: str = "user",
    player: int | None = None,
) -> Zone:
    """A zone the user drew on a camera frame, stored in table mm so it survives camera moves."""
    mm = homography.pixel_to_mm(np.asarray(polygon_px, dtype=np.float64).reshape(-1, 2))
    return Zone(name, tuple((float(x), float(y)) for x, y in mm), purpose, player)


class ZoneError(ValueError):
    """A drawn zone that cannot be used; the message names the zone and what is wrong."""


MIN_AREA_MM2 = 100.0  # a zone smaller than a 1 cm square is a slip of the mouse, not an area of the table


def drawn_zone(
    name: str, points: Sequence[Sequence[float]], purpose: str | None = None, player: int | None = None
) -> Zone:
    """A zone as a user draws it. Without `purpose`, a name like "lane-2" says it: a lane for player 2
    (the printed zones' convention); any other name is a "user" zone."""
    if purpose is None:
        kind, _, number = name.rpartition("-")
        if kind in PURPOSES and number.isdigit() and int(number) >= 1:
            purpose, player = kind, player or int(number)
        else:
            purpose = "user"
    try:
        return Zone(name, tuple((float(x), float(y)) for x, y in points), purpose, player)
    except ValueError as exc:
        raise ZoneError(str(exc)) from exc


def check_drawn_zone(zone: Zone, layout: MatLayout | None = None, tolerance_mm: float = 1.0) -> None:
    """Raise ZoneError unless the zone is a well-formed polygon on the mat.

    Well-formed: finite corners, no edge crossing another, an area of at least MIN_AREA_MM2. On the mat:
    every corner within the mat's outline (to `tolerance_mm`, for zones drawn by clicking on a frame).
    """
    layout = layout or MatLayout()
    pts = np.array(zone.polygon, dtype=np.float64)
    if not np.isfinite(pts).all():
        raise ZoneError(f"zone {zone.name!r}: corners must be finite numbers")
    n = len(pts)
    for i in range(n):
        for j in range(i + 1, n):
            if j - i in (1, n - 1):
                continue  # neighbouring edges share a corner
            if _segments_cross(pts[i], pts[(i + 1) % n], pts[j], pts[(j + 1) % n]):
                raise ZoneError(f"zone {zone.name!r}: edges {i + 1} and {j + 1} cross; draw the corners in order")
    area = 0.5 * abs(float(np.dot(pts[:, 0], np.roll(pts[:, 1], -1)) - np.dot(pts[:, 1], np.roll(pts[:, 0], -1))))
    if area < MIN_AREA_MM2:
        raise ZoneError(f"zone {zone.name!r}: area {area:.0f} mm², expected at least {MIN_AREA_MM2:.0f}")
    for k, (x, y) in enumerate(pts):
        inside = (
            -tolerance_mm <= x <= layout.width_mm + tolerance_mm
            and -tolerance_mm <= y <= layout.height_mm + tolerance_mm
        )
        if not inside:
            raise ZoneError(
                f"zone {zone.name!r}: corner {k + 1} ({x:.1f}, {y:.1f}) mm lies off the "
                f"{layout.width_mm:.0f} x {layout.height_mm:.0f} mm mat"
            )


def _segments_cross(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    """Do the closed segments ab and cd share a point (touching counts: a polygon must not touch itself)?"""

    def orient(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> float:
        return float((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    d1, d2, d3, d4 = orient(c, d, a), orient(c, d, b), orient(a, b, c), orient(a, b, d)
    if ((d1 > 0) != (d2 > 0) and d1 != 0 and d2 != 0) and ((d3 > 0) != (d4 > 0) and d3 != 0 and d4 != 0):
        return True
    return any(
        o == 0 and _on_segment(*p, *s, *e)
        for o, p, s, e in ((d1, a, c, d), (d2, b, c, d), (d3, c, a, b), (d4, d, a, b))
    )
