"""Tempus lanes: which cards on the table belong to which player's line, and in what order.

A lane is a zone of purpose "lane". It reads the way its polygon's first edge runs, from the end that
edge starts at: the printed lanes read left to right, and a user draws a lane from its starting end,
first corner to second along the lane.
A lane's line may run on past the lane's far end (an A3 mat holds four or five cards a lane, a race
deck holds up to fifty), so a card beyond that end, within the lane's width, still belongs to it.

Inside a lane, cards form rows across the lane (one row in a printed lane; a wide lane drawn by a user
may hold several). The line starts at the Starter and reads along its row, then row by row away from it.
Everything here takes plain table positions in millimetres, never images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.zones import Point, Zone, Zones

# Two cards sit in different rows when their centres lie this far apart across the lane: half a card's
# height (88 mm), so a hand-laid row's wobble stays one row and the next row down never joins it.
ROW_SPLIT_MM = 44.0


@dataclass(frozen=True)
class Lane:
    """A lane zone as a reading frame: `start` is the middle of its starting end, `along` and `across`
    unit vectors (across is along turned a quarter clockwise on the table: "down" for a lane read
    left to right)."""

    zone: Zone
    start: np.ndarray
    along: np.ndarray
    across: np.ndarray
    length: float
    width: float

    @classmethod
    def from_zone(cls, zone: Zone) -> Lane:
        """The lane's axes from the smallest rectangle around its polygon, turned to its first edge."""
        points = np.array(zone.polygon, dtype=np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(points)
        theta = np.radians(angle)
        axis_w = np.array([np.cos(theta), np.sin(theta)])
        axis_h = np.array([-np.sin(theta), np.cos(theta)])
        first_edge = np.subtract(zone.polygon[1], zone.polygon[0])
        along, length, width = (
            (axis_w, w, h) if abs(first_edge @ axis_w) >= abs(first_edge @ axis_h) else (axis_h, h, w)
        )
        along = along if first_edge @ along > 0 else -along
        center = np.array([cx, cy])
        across = np.array([-along[1], along[0]])
        return cls(zone, center - along * length / 2, along, across, float(length), float(width))

    def local(self, point: Sequence[float]) -> tuple[float, float]:
        """A table point as (mm along the lane from its start, mm across from its centre line)."""
        offset = np.asarray(point, dtype=np.float64) - self.start
        return float(offset @ self.along), float(offset @ self.across)

    def claims(self, point: Sequence[float]) -> bool:
        """On past the lane's far end, within its width."""
        along, across = self.local(point)
        return along > self.length and abs(across) <= self.width / 2


def lanes_of(zones: Zones) -> list[Lane]:
    """The lanes among the zones, by player number, then name."""
    found = [z for z in zones if z.purpose == "lane"]
    found.sort(key=lambda z: (z.player if z.player is not None else 1_000_000, z.name))
    return [Lane.from_zone(z) for z in found]


@dataclass(frozen=True)
class LaneLine:
    """One lane's reading. Indices point into the positions given to `read_lanes`.

    `starter` is None when the lane holds cards but no Starter; `stray` are cards in the lane that are
    not in the line: before the Starter, in a row before its row, or Starters beyond the first. With
    `stand_in`, no Starter was read and the line starts at a card that stands for it."""

    lane: Lane
    starter: int | None
    cards: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    stray: tuple[int, ...]
    stand_in: bool = False

    @property
    def empty(self) -> bool:
        return self.starter is None and not self.stray


@dataclass(frozen=True)
class LaneReading:
    lines: tuple[LaneLine, ...]
    outside: tuple[int, ...]  # cards in no lane


def read_lanes(
    positions: Sequence[Point],
    starters: Sequence[bool],
    zones: Zones,
    confidences: Sequence[float] | None = None,
    row_split_mm: float = ROW_SPLIT_MM,
    stand_ins: Sequence[bool] | None = None,
) -> LaneReading:
    """Split cards (table mm centres; which are Starters) among the lanes and order each lane's line.

    A card belongs to the zone it lies in, the topmost where zones overlap (as `recognize --calibration`
    reports it), when that zone is a lane; a card in no zone goes to the lane it continues past the far
    end of. With several Starters in a lane, the most confident one (else the first along) starts it. In a
    lane with no Starter, a card flagged in `stand_ins` that comes first along the lane starts it instead:
    a Starter ("3.") misread as a 3 still begins the line, and a 3 there could begin no other.
    """
    if len(starters) != len(positions):
        raise ValueError("starters: expected one flag per position")
    confidences = confidences if confidences is not None else [1.0] * len(positions)
    stand_ins = stand_ins if stand_ins is not None else [False] * len(positions)
    lanes = lanes_of(zones)
    members: dict[str, list[int]] = {lane.zone.name: [] for lane in lanes}
    outside = []
    for i, point in enumerate(positions):
        zone = zones.zone_at(point)
        if zone is None:
            beyond = [lane for lane in lanes if lane.claims(point)]
            zone = min(beyond, key=lambda lane: abs(lane.local(point)[1]) / lane.width).zone if beyond else None
        if zone is not None and zone.name in members:
            members[zone.name].append(i)
        else:
            outside.append(i)
    lines = tuple(
        _order(lane, members[lane.zone.name], positions, starters, confidences, row_split_mm, stand_ins)
        for lane in lanes
    )
    return LaneReading(lines, tuple(outside))


def _order(
    lane: Lane,
    members: list[int],
    positions: Sequence[Point],
    starters: Sequence[bool],
    confidences: Sequence[float],
    row_split_mm: float,
    stand_ins: Sequence[bool],
) -> LaneLine:
    local = {i: lane.local(positions[i]) for i in members}
    lane_starters = sorted((i for i in members if starters[i]), key=lambda i: (-confidences[i], local[i][0]))
    first = min(members, key=lambda i: local[i][0], default=None)
    stand_in = not lane_starters and first is not None and stand_ins[first]
    if stand_in:
        lane_starters = [first]
    if not lane_starters:
        return LaneLine(lane, None, (), (), tuple(sorted(members, key=lambda i: local[i])))
    starter = lane_starters[0]
    rows = _rows(sorted((i for i in members if i != starter), key=lambda i: local[i][1]), local, row_split_mm)
    start_along, start_across = local[starter]
    line_rows: list[tuple[int, ...]] = []
    stray = list(lane_starters[1:])
    for row in rows:
        row = [i for i in row if i not in stray]
        row_across = float(np.median([local[i][1] for i in row])) if row else 0.0
        if abs(row_across - start_across) < row_split_mm:  # the Starter's own row: read on from it
            line_rows.append(tuple(sorted((i for i in row if local[i][0] > start_along), key=lambda i: local[i][0])))
            stray += [i for i in row if local[i][0] <= start_along]
        elif row_across > start_across:  # a later row: read it whole, from the lane's start
            line_rows.append(tuple(sorted(row, key=lambda i: local[i][0])))
        else:
            stray += row
    line_rows.sort(key=lambda r: np.median([local[i][1] for i in r]) if r else start_across)
    line_rows = [r for r in line_rows if r]
    cards = tuple(i for r in line_rows for i in r)
    return LaneLine(lane, starter, cards, tuple(line_rows), tuple(sorted(stray, key=lambda i: local[i])), stand_in)


def _rows(by_across: list[int], local: dict[int, tuple[float, float]], split: float) -> list[list[int]]:
    """Cards sorted across the lane, cut wherever the gap across exceeds `split`."""
    rows: list[list[int]] = []
    for i in by_across:
        if rows and local[i][1] - local[rows[-1][-1]][1] < split:
            rows[-1].append(i)
        else:
            rows.append([i])
    return rows
