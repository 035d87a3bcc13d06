"""The table reading: which recognisers run, and what a calibration hands them."""

import numpy as np
import pytest

from calibration.homography import TableHomography
from calibration.topdown import TopDownView
from vision.table import TableReader


class RecordingSticks:
    """Stands in for the stick recogniser and keeps what it was given."""

    def __init__(self) -> None:
        self.homographies: list[np.ndarray | None] = []

    def timed(self, image: np.ndarray, homography: np.ndarray | None = None, ignore=()) -> tuple:
        self.homographies.append(homography)
        return [], [], {"bars_ms": 0.0}


def test_only_the_kinds_asked_for_are_loaded_and_read() -> None:
    reader = TableReader(("sticks",))
    assert reader.cards is None and reader.dominoes is None
    reader.sticks = RecordingSticks()
    reading = reader.read(np.zeros((120, 160, 3), np.uint8))
    assert reading.cards == [] and reading.dominoes == []
    assert set(reading.timings) == {"sticks_bars_ms"}


def test_unknown_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="marbles"):
        TableReader(("cards", "marbles"))


def test_with_a_calibration_sticks_snap_in_table_millimetres() -> None:
    reader = TableReader(("sticks",))
    reader.sticks = RecordingSticks()
    matrix = np.array([[0.5, 0.02, -10], [0.01, 0.6, -20], [0.0, 0.0001, 1.0]])
    table = TableHomography(matrix, (160, 120), (0, 1, 2, 3), 0.1)
    frame = np.zeros((120, 160, 3), np.uint8)
    reader.read(frame)
    reader.read(frame, topdown=TopDownView(table))
    without, with_calibration = reader.sticks.homographies
    assert without is None
    assert np.array_equal(with_calibration, matrix)
