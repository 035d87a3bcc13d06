"""The DIGIT layout a frame shows: its largest touching group of sticks, and what the rest of the table says.

The referee (rules.digit_game) takes one group's lattice edges. The table may hold more: sticks lying apart
from the group break the pattern, and the stick count is the frame's, not the group's.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

import numpy as np

from rules.digit_game import STICKS, Layout, MoveVerdict, Status, judge_move
from rules.sticks import SYMMETRIES, normalize, transform
from vision.alignment import table_motion
from vision.geometry import to_plane
from vision.sticks.detections import Polystick, Stick, median_length


@dataclass(frozen=True)
class TableLayout:
    """`layout` is the largest group (None on a bare table); `apart` counts the sticks outside it."""

    sticks: tuple[Stick, ...]
    polysticks: tuple[Polystick, ...]
    layout: Layout | None
    apart: int

    def status(self) -> Status:
        """Every problem of the table as a DIGIT layout: the group's own, and the table's stick count and
        stray sticks in place of the group's."""
        status = self.layout.status() & ~Status.WRONG_STICK_COUNT if self.layout else Status.PATTERN_BROKEN
        if len(self.sticks) != STICKS:
            status |= Status.WRONG_STICK_COUNT
        if self.apart:
            status |= Status.PATTERN_BROKEN
        return status


def table_layout(sticks: list[Stick], polysticks: list[Polystick]) -> TableLayout:
    """The layout of a recognised frame (see TableLayout)."""
    group = max(polysticks, key=lambda p: len(p.sticks), default=None)
    layout = group.layout() if group else None
    return TableLayout(tuple(sticks), tuple(polysticks), layout, len(sticks) - (len(group.sticks) if group else 0))


# A stick left where it lay moves less than this many stick lengths between two frames of a camera that stays
# put (a hand's nudge); one moved to another lattice edge moves its middle 0.7 of a length (a quarter turn about
# an end) or more.
STAYED = 0.3


def judged_turn(first: TableLayout, second: TableLayout) -> tuple[MoveVerdict, Status, int]:
    """The move from the first table to the second (both with a layout), every problem of the turn, and how
    many sticks moved.

    Each frame's lattice frame is taken from its own sticks, and a layout turned near 45 degrees in the
    picture can come back a quarter turn apart. The table itself does not turn: the turn that moves least is
    taken. The lattice cannot see a layout shifted whole, or three sticks moved into the layout shifted by one
    move: the sticks' places in the picture can, and they are counted too (a camera that moved between the
    frames has its move taken out first, `seen_from`). The groups' own stick counts give way to the tables':
    sticks apart from the group break the pattern.
    """
    assert first.layout is not None and second.layout is not None
    turned = [Layout(normalize(transform(second.layout, t)), second.layout.on_lattice) for t in SYMMETRIES[:4]]
    verdict = min(
        (judge_move(first.layout, layout) for layout in turned),
        key=lambda v: (max(len(v.removed), len(v.added)), bin(v.status.value).count("1")),
    )
    status = verdict.status & ~Status.WRONG_STICK_COUNT
    status |= (first.status() | second.status()) & (Status.WRONG_STICK_COUNT | Status.PATTERN_BROKEN)
    moved = max(len(verdict.removed), len(verdict.added), sticks_laid_anew(first.sticks, second.sticks))
    if moved > 1:
        status = status & ~Status.NO_STICK_MOVED | Status.SEVERAL_STICKS_MOVED
    return verdict, status, moved


def sticks_laid_anew(before: tuple[Stick, ...], after: tuple[Stick, ...]) -> int:
    """How many sticks of `after` lie where no stick of `before` lay: their middles matched one to one, nearest
    pairs first, within STAYED stick lengths."""
    if not before or not after:
        return len(after)
    middles = [np.array([s.ends.mean(axis=0) for s in sticks]) for sticks in (before, after)]
    length = median_length((*before, *after))
    apart = np.linalg.norm(middles[0][:, None] - middles[1][None], axis=2)
    kept: set[int] = set()
    stayed: set[int] = set()
    for i, j in zip(*np.unravel_index(np.argsort(apart, axis=None), apart.shape), strict=True):
        if apart[i, j] > STAYED * length:
            break
        if i not in kept and j not in stayed:
            kept.add(i)
            stayed.add(j)
    return len(after) - len(stayed)


# Left out round each stick where the table is matched between two frames (stick lengths beside and beyond it):
# its shadow, and the table a hand's nudge may have shifted it over.
HIDDEN_AROUND = 0.2
# The camera is taken as still where the table's own move shifts no stick end this far (stick lengths).
CAMERA_STILL = 0.05


def camera_motion(
    first_frame: np.ndarray, second_frame: np.ndarray, first: TableLayout, second: TableLayout
) -> np.ndarray | None:
    """The camera's move between two frames of a turn as the table shows it (second frame px -> first's,
    vision.alignment), every stick of either table left out; None where the table shows too little to tell, or
    where the move would put a stick of the second beyond the first camera's horizon (no camera's move)."""
    motion = table_motion(first_frame, second_frame, stick_outlines(first.sticks), stick_outlines(second.sticks))
    ends = np.array([s.ends for s in second.sticks], np.float64).reshape(-1, 2)
    if motion is None or not np.isfinite(to_plane(motion, ends)).all():
        return None
    return motion


def camera_moved(motion: np.ndarray, table: TableLayout) -> bool:
    """Whether the camera's `motion` shifts an end of the table's sticks CAMERA_STILL stick lengths or more."""
    if not table.sticks:
        return False
    ends = np.array([s.ends for s in table.sticks], np.float64)
    shift = np.linalg.norm(to_plane(motion, ends) - ends, axis=-1)
    return bool(shift.max() >= CAMERA_STILL * median_length(table.sticks))


def seen_from(table: TableLayout, motion: np.ndarray) -> TableLayout:
    """The table with its sticks where the camera `motion` maps them (as the other frame's camera saw them)."""
    sticks = tuple(replace(s, ends=to_plane(motion, np.asarray(s.ends, np.float64))) for s in table.sticks)
    return replace(table, sticks=sticks)


def stick_outlines(sticks: tuple[Stick, ...]) -> list[np.ndarray]:
    """Each stick's outline widened by HIDDEN_AROUND stick lengths all round."""
    if not sticks:
        return []
    reach = HIDDEN_AROUND * median_length(sticks)
    outlines = []
    for stick in sticks:
        a, b = np.asarray(stick.ends, np.float64)
        along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9) * reach
        across = np.array([-along[1], along[0]])
        outlines.append(np.array([a - along - across, b + along - across, b + along + across, a - along + across]))
    return outlines


def layout_key(table: TableLayout) -> Hashable:
    """What makes two frames show one table: the layout's edges whichever quarter turn its lattice frame came
    back in, whether it is on the lattice, the table's problems and its stick count."""
    status, count = table.status().value, len(table.sticks)
    if table.layout is None:
        return None, False, status, count
    edges = min(tuple(sorted(normalize(transform(table.layout, t)))) for t in SYMMETRIES[:4])
    return edges, table.layout.on_lattice, status, count
