"""A group that is no card, read again on its lattice from centre heat: cards come whole, broken layouts stay."""

import itertools
import random

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models.synth.scenes import Camera
from models.synth.sticks import BROKEN_WAYS, illegal_sticks, lattice_sticks
from vision.sticks.completion import reread_layouts
from vision.sticks.detections import Stick
from vision.sticks.plane import table_plane
from vision.sticks.recognize import StickRecognizer
from vision.sticks.reread import reread_group

LENGTH_MM, THICKNESS_MM = 60.0, 5.0


def _camera(seed: int) -> Camera:
    rng = random.Random(seed)
    return Camera.looking_at((1280, 720), rng.uniform(80, 140), rng.uniform(0, 50), rng.uniform(-180, 180), 64)


def _layout(card: int, seed: int) -> list[np.ndarray]:
    """A card's five sticks as a webcam sees them, in picture pixels."""
    camera, rng = _camera(seed), random.Random(seed)
    return [camera.project(s.ends) for s in lattice_sticks(rng, card, LENGTH_MM + 1, LENGTH_MM, np.zeros(2))]


def _heat(marked: list[np.ndarray], reach: float = 0.0):
    """Centre heat marking a stick (0.5) on segments whose middle lies within `reach` px of the marked points
    and cold (0.02) elsewhere: the locator's peaks are a cell or two wide, and a hand lays sticks a little off
    the lattice."""
    marked = np.array(marked, np.float64).reshape(-1, 2)

    def stick_heat(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        if not len(marked):
            return np.full(len(starts), 0.02)
        middles = (starts + stops) / 2
        near = np.linalg.norm(middles[:, None] - marked[None], axis=2).min(axis=1) <= reach
        return np.where(near, 0.5, 0.02)

    return stick_heat


def _card(readings: list[tuple[float, np.ndarray]], plane: np.ndarray) -> int | None:
    groups = StickRecognizer.polysticks([Stick(e, s) for s, e in readings], plane, square=True)
    return groups[0].card if len(groups) == 1 else None


def _both_ways(sticks: list[np.ndarray]) -> bool:
    """Whether some two of the sticks are far from parallel in the picture."""
    units = [(s[1] - s[0]) / np.linalg.norm(s[1] - s[0]) for s in sticks]
    return any(abs(float(u @ v)) < 0.6 for u in units for v in units)


def _one_missing(card: int, missing: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """A card's sticks, the four read of them (running both ways, or the example is dropped), and the plane."""
    sticks = _layout(card, seed)
    read = [s for k, s in enumerate(sticks) if k != missing]
    assume(_both_ways(read))
    return sticks, read, table_plane(np.array(sticks), (1280, 720))


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.sets(st.integers(0, 4), min_size=1, max_size=2), st.integers(0, 10_000))
def test_sticks_marked_only_by_heat_complete_the_card(card: int, missing: set[int], seed: int) -> None:
    sticks = _layout(card, seed)
    read = [s for k, s in enumerate(sticks) if k not in missing]
    assume(_both_ways(read))
    plane = table_plane(np.array(sticks), (1280, 720))
    stick_heat = _heat([sticks[k].mean(axis=0) for k in missing], 0.15 * np.linalg.norm(sticks[0][1] - sticks[0][0]))
    result = reread_group([(0.8, s) for s in read], plane, stick_heat)
    assert result is not None and _card(result, plane) == card
    for k in missing:  # each missing stick comes back where it lies
        tolerance = 0.2 * np.linalg.norm(sticks[k][1] - sticks[k][0])
        assert any(np.abs(np.sort(e, axis=0) - np.sort(sticks[k], axis=0)).max() <= tolerance for _, e in result)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(0, 10_000))
def test_without_heat_a_missing_stick_stays_missing(card: int, missing: int, seed: int) -> None:
    _, read, plane = _one_missing(card, missing, seed)
    assert reread_group([(0.8, s) for s in read], plane, _heat([])) is None


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(2, 55), st.integers(0, 10_000))
def test_two_sticks_end_to_end_read_as_overlapping_pieces_are_read_as_two(card: int, seed: int) -> None:
    """Where two sticks meet end to end in a line, the locator may read one and a half sticks from each
    end, the readings overlapping in the middle."""
    sticks = _layout(card, seed)
    pairs = [
        (i, j)
        for i in range(5)
        for j in range(5)
        if i != j
        and np.linalg.norm(sticks[i][1] - sticks[j][0]) < 0.1 * np.linalg.norm(sticks[i][1] - sticks[i][0])
        and abs(float(np.dot(*[(s[1] - s[0]) / np.linalg.norm(s[1] - s[0]) for s in (sticks[i], sticks[j])]))) > 0.9
    ]
    assume(pairs)
    i, j = pairs[0]
    start, joint, end = sticks[i][0], sticks[i][1], sticks[j][1]
    overlapping = [np.array([start, joint + 0.4 * (end - joint)]), np.array([joint + 0.4 * (start - joint), end])]
    read = [s for k, s in enumerate(sticks) if k not in (i, j)] + overlapping
    plane = table_plane(np.array(sticks), (1280, 720))
    result = reread_group([(0.8, s) for s in read], plane, _heat([]))
    assert result is not None and _card(result, plane) == card


@settings(max_examples=90, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.sampled_from(BROKEN_WAYS), st.integers(0, 10_000))
def test_a_broken_layout_is_not_read_again_even_in_heat(card: int, way: str, seed: int) -> None:
    """One stick moved off the lattice, with every lattice edge around hot: the group stays as it was."""
    rng, camera = random.Random(seed), _camera(seed)
    placed = lattice_sticks(rng, card, LENGTH_MM + 1, LENGTH_MM, np.zeros(2))
    broken = illegal_sticks(rng, placed, LENGTH_MM, THICKNESS_MM, way)
    assume(broken is not None)
    sticks = [camera.project(s.ends) for s in broken[0]]
    plane = table_plane(np.array(sticks), (1280, 720))
    everywhere = lambda starts, stops: np.full(len(starts), 0.5)  # noqa: E731
    assert reread_group([(0.8, s) for s in sticks], plane, everywhere) is None


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(2, 55), st.integers(0, 4), st.integers(0, 1), st.integers(0, 10_000))
def test_a_stick_read_short_between_two_groups_joins_them(card: int, short: int, end: int, seed: int) -> None:
    """A stick read at 0.7 of its length no longer touches the sticks at one end, leaving two groups."""
    sticks = _layout(card, seed)
    kept = sticks[short][1 - end]
    read = list(sticks)
    read[short] = np.array([kept, kept + 0.7 * (sticks[short][end] - kept)])
    plane = table_plane(np.array(sticks), (1280, 720))
    found = [(0.8, s) for s in read]
    polysticks = StickRecognizer.polysticks([Stick(e, s) for s, e in found], plane, square=True)
    assume(len(polysticks) == 2)
    assert _card(reread_layouts(found, polysticks, plane, _heat([])), plane) == card


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(0, 10_000))
def test_a_stick_on_an_outline_to_ignore_is_not_added(card: int, missing: int, seed: int) -> None:
    """The heat marks a missing stick, but a card read there covers it: the layout stays incomplete."""
    sticks, read, plane = _one_missing(card, missing, seed)
    found = [(0.8, s) for s in read]
    polysticks = StickRecognizer.polysticks([Stick(e, s) for s, e in found], plane, square=True)
    assume(len(polysticks) == 1)  # the missing stick does not hold the layout together
    length = np.linalg.norm(sticks[missing][1] - sticks[missing][0])
    stick_heat = _heat([sticks[missing].mean(axis=0)], 0.15 * length)
    over = sticks[missing].mean(axis=0) + 0.2 * length * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    assert len(reread_layouts(found, polysticks, plane, stick_heat)) == 5
    assert reread_layouts(found, polysticks, plane, stick_heat, [over]) is found


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(0, 4), st.integers(0, 10_000))
def test_a_card_that_leaves_out_a_crossing_stick_is_not_taken(card: int, missing: int, crossed: int, seed: int) -> None:
    """The heat marks a missing stick, but the end peaks show a stick crossing the layout that no reading
    holds: the layout may be broken, so it is not completed into a card. End peaks at the card's own ends
    stop nothing."""
    sticks, read, plane = _one_missing(card, missing, seed)
    assume(crossed != missing)
    found = [(0.8, s) for s in read]
    polysticks = StickRecognizer.polysticks([Stick(e, s) for s, e in found], plane, square=True)
    assume(len(polysticks) == 1)
    length = np.linalg.norm(sticks[missing][1] - sticks[missing][0])
    stick_heat = _heat([sticks[missing].mean(axis=0)], 0.15 * length)
    a, b = sticks[crossed]
    along, across = (b - a) / np.linalg.norm(b - a), np.array([a[1] - b[1], b[0] - a[0]]) / np.linalg.norm(b - a)
    slant = 0.5 * np.linalg.norm(b - a) * (0.5 * along + 0.87 * across)  # a stick's half, 60 degrees off
    crossing = np.array([(a + b) / 2 - slant, (a + b) / 2 + slant])
    own_ends = np.concatenate(sticks)
    assume(np.linalg.norm(crossing[:, None] - own_ends[None], axis=2).min() > 0.35 * length)
    assert len(reread_layouts(found, polysticks, plane, stick_heat, strong_ends=own_ends)) == 5
    assert reread_layouts(found, polysticks, plane, stick_heat, strong_ends=crossing) is found


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(0, 10_000))
def test_a_card_whose_laid_stick_shows_no_body_is_not_taken(card: int, missing: int, seed: int) -> None:
    """The heat marks a missing stick, but the picture shows no body there (`shows_body`, asked only of the
    stick the re-read lays): the layout stays incomplete."""
    sticks, read, plane = _one_missing(card, missing, seed)
    found = [(0.8, s) for s in read]
    polysticks = StickRecognizer.polysticks([Stick(e, s) for s, e in found], plane, square=True)
    assume(len(polysticks) == 1)
    length = np.linalg.norm(sticks[missing][1] - sticks[missing][0])
    stick_heat = _heat([sticks[missing].mean(axis=0)], 0.15 * length)
    asked = []
    laid_shows = lambda ends: asked.append(ends) or True  # noqa: E731
    assert len(reread_layouts(found, polysticks, plane, stick_heat, shows_body=laid_shows)) == 5
    assert len(asked) == 1 and np.linalg.norm(asked[0].mean(axis=0) - sticks[missing].mean(axis=0)) < 0.2 * length
    assert reread_layouts(found, polysticks, plane, stick_heat, shows_body=lambda ends: False) is found


def _row_joints(seed: int) -> np.ndarray:
    """The I card's six joints in order along its row, as a webcam sees them (picture px, 6 x 2)."""
    points = np.array(_layout(1, seed)).reshape(-1, 2)
    along = np.linalg.svd(points - points.mean(axis=0))[2][0]
    points = points[np.argsort(points @ along)]
    return np.array([points[0], *((points[1:-1:2] + points[2:-1:2]) / 2), points[-1]])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10_000))
def test_a_row_read_as_overlapping_runs_is_read_as_five_sticks_where_end_peaks_mark_its_joints(seed: int) -> None:
    """The I card read as runs of one and a half sticks and one stick: the end peaks at its joints say where
    its sticks lie, and it is read only with them, with one reading a stick long, and with heat on every stick."""
    joints = _row_joints(seed)
    runs = [np.array([joints[a], (joints[a + 1] + joints[a + 2]) / 2]) for a in range(4)]
    read = [(0.8, s) for s in [*runs, joints[[4, 5]]]]
    plane = table_plane(np.array([e for _, e in read]), (1280, 720))
    hot = _heat((joints[:-1] + joints[1:]) / 2, 5.0)
    result = reread_group(read, plane, hot, joints)
    assert result is not None and _card(result, plane) == 1
    for piece in itertools.pairwise(joints):  # each stick comes back where it lies, within a fifth of a stick
        off = [min(np.abs(e - piece).max(), np.abs(e[::-1] - piece).max()) for _, e in result]
        assert min(off) < 0.2 * np.linalg.norm(joints[1] - joints[0])
    assert reread_group(read, plane, hot) is None  # no end peaks given
    assert reread_group(read, plane, hot, joints[[0, 1, 2, 5]]) is None  # two joints unmarked
    assert reread_group(read, plane, _heat([]), joints) is None  # no stick's heat there
    runs_only = [(0.8, s) for s in [*runs, joints[[3, 5]]]]
    assert reread_group(runs_only, plane, hot, joints) is None  # no reading a stick long: the peaks alone


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from([36, 37, 38]))
def test_a_row_of_four_is_not_read_as_five_even_with_its_joints_marked(seed: int, card: int) -> None:
    """Four sticks in a row and a piece of one a fifth of the row long, every joint marked and every edge hot:
    no cut in five, however foreshortened, puts its joints on the end peaks."""
    sticks = _layout(card, seed)
    ends = np.array(sticks).reshape(-1, 2)
    units = [(s[1] - s[0]) / np.linalg.norm(s[1] - s[0]) for s in sticks]
    row = [s for s, u in zip(sticks, units, strict=True) if sum(abs(float(u @ v)) > 0.9 for v in units) == 4]
    assume(len(row) == 4)
    piece = np.array([row[0][0], row[0][0] + 0.8 * (row[0][1] - row[0][0])])
    plane = table_plane(np.array(sticks), (1280, 720))
    everywhere = lambda starts, stops: np.full(len(starts), 0.5)  # noqa: E731
    assert reread_group([(0.8, s) for s in [*row, piece]], plane, everywhere, ends) is None
