"""The DIGIT layout of a frame (largest touching group, the rest of the table), and outlines left out."""

import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.digit_game import Status
from rules.sticks import PENTASTICKS, Edge
from vision.sticks import Polystick, Stick, StickRecognizer
from vision.sticks.completion import MIN_STICK_PX
from vision.sticks.layout import judged_turn, sticks_laid_anew, table_layout
from vision.sticks.locate import GRID, LocatorReadings


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


def laid(edges: list[Edge], unit: float, angle: float, rng: random.Random) -> list[Stick]:
    """Sticks on the lattice edges as a camera that stays put sees them: `unit` px a side, turned `angle`,
    each end nudged up to a tenth of a unit by the hand that laid it."""
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    sticks = []
    for edge in edges:
        ends = np.array([edge.a, edge.b], float) * unit @ turn.T + (400, 300)
        sticks.append(Stick(ends + [[rng.uniform(-0.07, 0.07) * unit for _ in "xy"] for _ in "ab"], 0.9))
    return sticks


@given(st.integers(0, 10**6), st.integers(1, 15), st.floats(40, 150), st.floats(0, np.pi))
def test_the_sticks_laid_anew_are_the_ones_moved_to_another_edge(seed: int, n: int, unit: float, angle: float) -> None:
    rng = random.Random(seed)
    grid = [Edge((x, y), (x + 1, y)) for x in range(6) for y in range(6)]
    grid += [Edge((x, y), (x, y + 1)) for x in range(6) for y in range(6)]
    before = rng.sample(grid, n)
    moved = rng.randint(0, n)
    free = [e for e in grid if e not in before]
    after = before[moved:] + rng.sample(free, moved)
    rng.shuffle(after)
    assert sticks_laid_anew(tuple(laid(before, unit, angle, rng)), tuple(laid(after, unit, angle, rng))) == moved


@given(st.integers(1, 55), st.integers(0, 3), st.sampled_from([(1, 0), (0, 1), (-1, 2)]))
def test_a_layout_shifted_whole_counts_the_sticks_laid_anew_that_the_lattice_cannot_see(card, seed, shift) -> None:
    """Each frame's lattice is its own, so the shifted layout has the same edges as before: only the sticks'
    places in the picture show how many sticks moved."""
    edges = sorted(PENTASTICKS[card - 1])
    rng = random.Random(seed)
    tables = [
        table_layout(
            laid([e.translated(*offset) for e in edges], 90, 0.3, rng),
            [Polystick(tuple(range(5)), tuple(edges), True, True, card)],
        )
        for offset in ((0, 0), shift)
    ]
    verdict, status, moved = judged_turn(*tables)
    assert not verdict.removed and not verdict.added  # the lattice reading alone: no stick moved
    # Slid along itself, a line keeps four sticks where sticks lay: one stick moved end to end, the same pattern.
    anew = len({e.translated(*shift) for e in edges} - set(edges))
    assert moved == anew
    assert status == (Status.SEVERAL_STICKS_MOVED if anew > 1 else Status.NO_STICK_MOVED)


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


def test_a_move_that_puts_a_stick_past_the_horizon_is_no_cameras_move(monkeypatch) -> None:
    """A homography fitted to a few matches can send part of the table behind the camera; the turn is then
    judged as if the camera stood still rather than on sticks with no place in the picture."""
    import vision.sticks.layout as layout

    table = table_layout(sticks(5), [Polystick(tuple(range(5)), tuple(sorted(PENTASTICKS[0])), True, True, 1)])
    frame = np.zeros((720, 1280, 3), np.uint8)
    horizon = np.array([[1.0, 0, 0], [0, 1, 0], [0.01, 0, 1]])  # w = 0.01 x + 1: x <= -100 is behind the camera
    monkeypatch.setattr(layout, "table_motion", lambda *args: horizon)
    assert layout.camera_motion(frame, frame, table, table) is not None
    far = table_layout(
        [Stick(s.ends - (200, 0), 0.9) for s in sticks(5)],
        [Polystick(tuple(range(5)), tuple(sorted(PENTASTICKS[0])), True, True, 1)],
    )
    assert layout.camera_motion(frame, frame, table, far) is None
