"""The DIGIT layout of a frame (largest touching group, the rest of the table), and outlines left out."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.digit_game import Status
from rules.sticks import PENTASTICKS, Edge
from vision.sticks import Polystick, Stick, StickRecognizer
from vision.sticks.layout import table_layout
from vision.sticks.locate import GRID, LocatorReadings
from vision.sticks.recognize import MIN_STICK_PX


def sticks(n: int) -> list[Stick]:
    return [Stick(np.array([[10.0 * i, 0.0], [10.0 * i, 50.0]]), 0.9) for i in range(n)]


@given(st.integers(1, 55), st.integers(0, 3))
def test_a_card_with_sticks_apart_is_a_broken_pattern(card: int, apart: int) -> None:
    edges = tuple(sorted(PENTASTICKS[card - 1]))
    group = Polystick(tuple(range(5)), edges, True, True, card)
    strays = [Polystick((5 + k,), (Edge((0, 0), (1, 0)),), True, True, None) for k in range(apart)]
    table = table_layout(sticks(5 + apart), [*strays, group])
    assert table.layout is not None and table.layout.edges == tuple(sorted(edges))
    assert table.apart == apart
    expected = Status.VALID if not apart else Status.WRONG_STICK_COUNT | Status.PATTERN_BROKEN
    assert table.status() == expected


def test_a_bare_table_is_no_layout() -> None:
    table = table_layout([], [])
    assert table.layout is None and table.status() == Status.WRONG_STICK_COUNT | Status.PATTERN_BROKEN


def test_sticks_inside_ignored_outlines_are_not_read() -> None:
    scene = render_stick_scene(91_000, StickSceneSpec(split="heldout", kind="lattice", card=1, table="birch"))
    recognizer = StickRecognizer()
    found, _ = recognizer(scene.image)
    ends = np.concatenate([s.ends for s in scene.sticks])
    box = np.array([ends.min(axis=0) - 20, [ends.max(axis=0)[0] + 20, ends.min(axis=0)[1] - 20]])
    outline = np.array([box[0], box[1], ends.max(axis=0) + 20, [box[0][0], ends.max(axis=0)[1] + 20]])
    hidden, _ = recognizer(scene.image, ignore=[outline])
    assert found and not hidden


def test_two_short_sticks_at_a_corner_are_read_not_cut_to_nothing() -> None:
    """Two readings at a corner, 56 and 36 px (as a locator once gave on a held-out frame): their common
    length would cut them into pieces under the shortest readable stick, which read nothing at all."""
    sure = [(0.39, np.array([[452.7, 182.4], [500.9, 211.3]])), (0.38, np.array([[481.3, 241.8], [500.9, 211.3]]))]
    empty = np.zeros(GRID[::-1], np.float32)
    readings = LocatorReadings(sure, [], [], np.zeros((0, 2)), np.zeros(0), empty, np.stack([empty, empty]), 0.5)
    found, _ = StickRecognizer()._layout(np.zeros((540, 960, 3), np.uint8), readings, None, [])
    assert sorted(len(s.ends) for s in found) == [2, 2]
    assert all(np.linalg.norm(s.ends[1] - s.ends[0]) >= MIN_STICK_PX for s in found)
