"""The look along a straight row of readings (vision/sticks/rows.py): where its window goes, which rows it
takes, and what it reads on rendered rows of five sticks (card 1) on held-out tables."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.sticks import StickSceneSpec, render_stick_scene
from vision.sticks.detections import Stick
from vision.sticks.recognize import StickRecognizer
from vision.sticks.rows import MOST_STRETCH, ROW_CARD, ROW_FILL, ROW_LEAST, ROW_SHARES, ROW_TURN, straight_run

SIZE = (1280, 720)


class WithoutRowLook(StickRecognizer):
    """The reader with every other look it takes, but not the one along a row."""

    def _along_row(self, image, homography, ignore, readings, sticks, polysticks):
        return sticks, polysticks


def _row(centre: np.ndarray, angle: float, length: float) -> tuple[np.ndarray, np.ndarray]:
    """The two ends of a row of `length` px through `centre`, and its direction."""
    along = np.array([np.cos(angle), np.sin(angle)])
    return np.array([centre - along * length / 2, centre + along * length / 2]), along


def test_a_row_read_as_a_piece_is_stretched_to_the_end_peaks_along_it() -> None:
    ends, along = _row(np.array([640.0, 360.0]), 0.1, 450.0)
    piece = np.array([ends[0], ends[0] + along * 180])  # the locator's one long faint reading of the row
    aside = np.array([[100.0, 600.0], [160.0, 640.0]])  # a vein's faint reading elsewhere
    far_peak = np.array([[1000.0, 100.0]])  # an end peak off the row's line
    run = straight_run([(0.12, piece), (0.1, aside)], np.vstack([ends, far_peak]), SIZE)
    assert run is not None
    reached = (ends - run.origin) @ run.along
    assert run.low == pytest.approx(reached.min(), abs=1e-6) and run.high == pytest.approx(reached.max(), abs=1e-6)
    x0, y0, w, h = run.window(SIZE, ROW_SHARES[0])
    assert (w, h) == (round(SIZE[0] * ROW_SHARES[0]), round(SIZE[1] * ROW_SHARES[0]))  # 450 px fits twice as close
    assert np.all((ends >= [x0, y0]) & (ends < [x0 + w, y0 + h]))


def test_a_steep_row_gets_a_turned_window() -> None:
    ends, _ = _row(np.array([640.0, 360.0]), np.radians(80), 400.0)
    run = straight_run([(0.3, ends)], ends, SIZE)
    assert run is not None
    x0, y0, w, h = run.window(SIZE, ROW_SHARES[0])
    assert h > w
    assert np.all((ends >= [x0, y0]) & (ends < [x0 + w, y0 + h]))


def test_no_run_where_it_is_short_or_no_end_peak_lies_along_it() -> None:
    ends, _ = _row(np.array([640.0, 360.0]), 0.3, 0.8 * ROW_LEAST * SIZE[0])
    assert straight_run([(0.5, ends)], ends, SIZE) is None  # a pen, a stick: shorter than any row of five
    ends, _ = _row(np.array([640.0, 360.0]), 0.3, 2 * ROW_LEAST * SIZE[0])
    assert straight_run([(0.5, ends)], np.array([[100.0, 100.0]]), SIZE) is None  # a card's edge: no end peak on it
    assert straight_run([(0.5, ends)], ends, SIZE) is not None
    assert straight_run([], ends, SIZE) is None


# Rows of five anywhere in the frame's middle, at any angle, as long as a run must be or longer.
ROWS = {
    "x": st.floats(300, 980),
    "y": st.floats(200, 520),
    "angle": st.floats(0, np.pi),
    "length": st.floats(ROW_LEAST * SIZE[0] + 1, 700),
}


@settings(max_examples=200, deadline=None)
@given(
    **ROWS,
    piece=st.floats(0.35, 1.0),  # a piece reaches an end peak ROW_REACH of its lengths on
    share=st.sampled_from(ROW_SHARES),
)
def test_the_window_lies_in_the_frame_and_holds_a_row_that_fits(
    x: float, y: float, angle: float, length: float, piece: float, share: float
) -> None:
    ends, along = _row(np.array([x, y]), angle, length)
    reading = np.array([ends[0], ends[0] + along * piece * length])
    run = straight_run([(0.2, reading)], ends, SIZE)
    assert run is not None
    x0, y0, w, h = run.window(SIZE, share)
    assert 0 <= x0 <= SIZE[0] - w and 0 <= y0 <= SIZE[1] - h
    inside = np.all((ends >= [x0, y0]) & (ends <= [x0 + w, y0 + h]))
    span = np.abs(ends[1] - ends[0])
    largest = MOST_STRETCH * ROW_FILL * share * np.array([max(SIZE), min(SIZE)])
    fits = (span <= largest).all() or (span[::-1] <= largest).all()
    in_frame = np.all((ends >= 0) & (ends <= SIZE))
    assert inside or not (fits and in_frame)


@settings(max_examples=200, deadline=None)
@given(**ROWS, piece=st.floats(0.35, 0.5), turn=st.floats(-ROW_TURN / 2, ROW_TURN / 2))
def test_a_piece_read_turned_off_the_row_still_finds_it(
    x: float, y: float, angle: float, length: float, piece: float, turn: float
) -> None:
    """The locator's reading of part of a row may be turned a few degrees off it (held-out 40275, a row on the
    marble): the run is fitted through the row's end peaks too, so the row read closer lies along it."""
    ends, along = _row(np.array([x, y]), angle, length)
    turned = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) @ along
    reading = np.array([ends[0], ends[0] + turned * piece * length])
    run = straight_run([(0.2, reading)], ends, SIZE)
    assert run is not None
    joints = ends[0] + np.linspace(0, 1, 6)[:, None] * (ends[1] - ends[0])
    assert run.holds([Stick(joints[k : k + 2], 1.0) for k in range(5)], [], SIZE)


def test_a_row_read_closer_counts_only_along_the_run_and_as_long() -> None:
    ends, along = _row(np.array([640.0, 360.0]), 0.4, 450.0)
    run = straight_run([(0.2, ends)], ends, SIZE)
    assert run is not None
    normal = np.array([-along[1], along[0]])

    def cut(share: float, shift: float = 0.0) -> list[Stick]:
        """The first `share` of the row cut in five, moved `shift` px across its line."""
        joints = ends[0] + np.linspace(0, share, 6)[:, None] * (ends[1] - ends[0]) + shift * normal
        return [Stick(joints[k : k + 2], 1.0) for k in range(5)]

    row = cut(1.0)
    assert run.holds(row, [], SIZE)
    assert not run.holds(cut(1.0, 3 * run.reach), [], SIZE)  # a row beside the run's line
    assert not run.holds(cut(0.2), [], SIZE)  # one stick cut in five
    unit = row[0].length
    beside = Stick(np.array([[100.0, 650.0], [100.0 + unit, 650.0]]), 1.0)  # a stick of the row's length off its line
    assert run.holds(row, [*row[:2], beside], SIZE)  # the row's own readings give no length
    long_beside = Stick(beside.ends * [2.0, 1.0], 1.0)
    assert not run.holds(row, [long_beside], SIZE)  # two sticks in line cut in five: pieces too short


@pytest.fixture(scope="module")
def readers() -> tuple[StickRecognizer, StickRecognizer]:
    reader = StickRecognizer()
    return reader, WithoutRowLook(reader.locator, blurred_locator=reader.blurred_locator)


# The 40 of tuning seeds 9800000..9800159 whose rows of five render on the held-out birch (rendering all 160 to
# find them costs half a minute; the test checks each is birch).
BIRCH_ROWS = (5, 15, 26, 27, 34, 35, 40, 55, 56, 58, 60, 72, 74, 78, 79, 81, 85, 86, 89, 93, 97, 100, 116, 118, 122)
BIRCH_ROWS += (124, 125, 127, 130, 131, 132, 133, 134, 138, 139, 143, 146, 147, 150, 159)


def _read_rows(reader: StickRecognizer, seeds: range | list[int], table: str | None = None) -> list[bool]:
    """Whether each held-out row of five of `seeds` is read; each must render on `table` if given."""
    results = []
    for seed in seeds:
        scene = render_stick_scene(seed, StickSceneSpec(split="heldout", card=ROW_CARD))
        assert table is None or scene.table == table
        results.append(any(p.card == ROW_CARD for p in reader(scene.image)[1]))
    return results


def test_rows_of_five_on_held_out_tables_are_read_along_the_row(readers) -> None:
    """20 held-out rows of five (tuning seeds where the reader without this look lost two): all 20 read
    when written."""
    with_look, _ = readers
    assert sum(_read_rows(with_look, range(9_800_020, 9_800_040))) >= 19


def test_a_seam_read_as_a_row_does_not_keep_the_look_from_a_true_row(readers) -> None:
    """Rows of five on the held-out birch, whose plank seams the locator also reads as rows of five: the seams
    are dropped before the row look, so a seam read as card 1 no longer stands in for the row's card and keeps
    the look away. 40 rows at tuning seeds 9800000..: 37 read with the look before the seams, 39 after (when
    written)."""
    with_look, _ = readers
    assert sum(_read_rows(with_look, [9_800_000 + k for k in BIRCH_ROWS], table="birch")) >= 39


@pytest.mark.slow
def test_the_row_look_gains_rows_and_loses_none(readers) -> None:
    """80 held-out rows of five from tuning seeds: 67 read without the look, 73 with it (when written)."""
    with_look, without = readers
    with_row = _read_rows(with_look, range(9_800_040, 9_800_120))
    first = _read_rows(without, range(9_800_040, 9_800_120))
    assert sum(with_row) >= sum(first) + 3
    assert not any(f and not w for w, f in zip(with_row, first, strict=True))
