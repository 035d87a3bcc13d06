"""The DIGIT layout a frame shows: its largest touching group of sticks, and what the rest of the table says.

The referee (rules.digit_game) takes one group's lattice edges. The table may hold more: sticks lying apart
from the group break the pattern, and the stick count is the frame's, not the group's.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from rules.digit_game import STICKS, Layout, MoveVerdict, Status, judge_move
from rules.sticks import SYMMETRIES, normalize, transform
from vision.sticks.detections import Polystick, Stick


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
    move: the sticks' places in the picture can, as the camera stays put, and they are counted too. The
    groups' own stick counts give way to the tables': sticks apart from the group break the pattern.
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
    length = np.median([np.linalg.norm(s.ends[1] - s.ends[0]) for s in (*before, *after)])
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


def layout_key(table: TableLayout) -> Hashable:
    """What makes two frames show one table: the layout's edges whichever quarter turn its lattice frame came
    back in, whether it is on the lattice, the table's problems and its stick count."""
    status, count = table.status().value, len(table.sticks)
    if table.layout is None:
        return None, False, status, count
    edges = min(tuple(sorted(normalize(transform(table.layout, t)))) for t in SYMMETRIES[:4])
    return edges, table.layout.on_lattice, status, count
