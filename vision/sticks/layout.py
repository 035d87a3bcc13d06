"""The DIGIT layout a frame shows: its largest touching group of sticks, and what the rest of the table says.

The referee (rules.digit_game) takes one group's lattice edges. The table may hold more: sticks lying apart
from the group break the pattern, and the stick count is the frame's, not the group's.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.digit_game import STICKS, Layout, Status
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
