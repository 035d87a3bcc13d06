"""`tableref evaluate table`: each kind's detections counted where that kind is not, and only there."""

import numpy as np

from models.evaluate_table import COUNTED, false_counts
from rules.sticks import Edge
from vision.sticks.detections import Polystick, Stick
from vision.table import TableReading


def _reading() -> TableReading:
    sticks = [Stick(np.array([[10.0 + 60 * i, 50], [60.0 + 60 * i, 50]]), 0.5) for i in range(5)]
    row = Polystick(tuple(range(5)), tuple(Edge.parse(f"{i},0h") for i in range(5)), True, True, 1)
    return TableReading("frame", 400, 100, cards=["card"], dominoes=["tile", "tile"], sticks=sticks, polysticks=[row])


def test_a_frame_counts_only_the_kinds_it_does_not_hold() -> None:
    reading = _reading()
    assert false_counts(reading, "cards") == {"dominoes": 2, "sticks": 5, "digit": 1}
    assert false_counts(reading, "dominoes") == {"sticks": 5, "digit": 1}  # tile frames hold digit cards
    assert false_counts(reading, "sticks") == {"cards": 1, "dominoes": 2}
    assert false_counts(reading, "empty") == {"cards": 1, "dominoes": 2, "sticks": 5, "digit": 1}
    assert all(kind not in counted for kind, counted in COUNTED.items())
