"""The DIGIT layout a frame shows: its largest touching group of sticks, and what the rest of the table says.

The referee (rules.digit_game) takes one group's lattice edges. The table may hold more: sticks lying apart
from the group break the pattern, and the stick count is the frame's, not the group's.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

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


def judged_turn(first: TableLayout, second: TableLayout) -> tuple[MoveVerdict, Status]:
    """The move from the first table to the second (both with a layout), and every problem of the turn.

    Each frame's lattice frame is taken from its own sticks, and a layout turned near 45 degrees in the
    picture can come back a quarter turn apart. The table itself does not turn: the turn that moves least is
    taken. The groups' own stick counts give way to the tables': sticks apart from the group break the pattern.
    """
    assert first.layout is not None and second.layout is not None
    turned = [Layout(normalize(transform(second.layout, t)), second.layout.on_lattice) for t in SYMMETRIES[:4]]
    verdict = min(
        (judge_move(first.layout, layout) for layout in turned),
        key=lambda v: (max(len(v.removed), len(v.added)), bin(v.status.value).count("1")),
    )
    status = verdict.status & ~Status.WRONG_STICK_COUNT
    status |= (first.status() | second.status()) & (Status.WRONG_STICK_COUNT | Status.PATTERN_BROKEN)
    return verdict, status


def layout_key(table: TableLayout) -> Hashable:
    """What makes two frames show one table: the layout's edges whichever quarter turn its lattice frame came
    back in, whether it is on the lattice, the table's problems and its stick count."""
    status, count = table.status().value, len(table.sticks)
    if table.layout is None:
        return None, False, status, count
    edges = min(tuple(sorted(normalize(transform(table.layout, t)))) for t in SYMMETRIES[:4])
    return edges, table.layout.on_lattice, status, count
