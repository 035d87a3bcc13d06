"""The stick locator's targets and decoding (no network), and the table plane taken from sticks alone."""

import math
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models.synth.scenes import Camera
from models.synth.sticks import lattice_sticks
from vision.geometry import turned, turned_back
from vision.locator import doubled
from vision.sticks.detections import Stick
from vision.sticks.locate import (
    CROSS_CENTRE,
    END_ACROSS,
    END_REACH,
    GRID,
    INPUT_SIZE,
    STRIDE,
    LocatorReadings,
    _snapped_to_end_peaks,
    decode,
    encode_targets,
)
from vision.sticks.plane import table_plane
from vision.sticks.recognize import StickRecognizer


def _logits(heat: np.ndarray) -> np.ndarray:
    p = np.clip(heat, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


ANYWHERE = ((0.0, GRID[0] * STRIDE - 1.0), (0.0, GRID[1] * STRIDE - 1.0))
# Centres near the input's middle: a stick, one crossing it and a lone one 200 px to the side all stay inside.
MIDDLE = ((270.0, 370.0), (100.0, 268.0))


def _drawn_stick(draw, lengths: tuple[float, float], centres=ANYWHERE) -> np.ndarray:
    centre = np.array([draw(st.floats(*centres[0])), draw(st.floats(*centres[1]))])
    angle = draw(st.floats(0, math.pi))
    half = draw(st.floats(*lengths)) / 2 * np.array([math.cos(angle), math.sin(angle)])
    return np.array([centre - half, centre + half])


def _inside(ends: np.ndarray) -> bool:
    return bool(((ends >= 0) & (ends <= np.array(GRID) * STRIDE - 1)).all())


def _facing(a: np.ndarray, b: np.ndarray, centre: np.ndarray) -> bool:
    """Whether two end points face each other across a centre, as a crossed stick's ends would."""
    return float(np.linalg.norm((a + b) / 2 - centre)) <= CROSS_CENTRE * float(np.linalg.norm(b - a))


@st.composite
def stick_sets(draw) -> list[np.ndarray]:
    """Sticks whose centres and ends lie at least three cells from each other's, so their peaks stay apart,
    and no two ends face each other across a centre (which reads as a crossed stick)."""
    sticks: list[np.ndarray] = []
    for _ in range(draw(st.integers(1, 8))):
        ends = _drawn_stick(draw, (20, 160))
        points = [p for s in sticks for p in (s.mean(axis=0), *s)]
        apart = all(np.linalg.norm(p - q) >= 3 * STRIDE for p in (ends.mean(axis=0), *ends) for q in points)
        if _inside(ends) and apart and not _mimics_a_crossing([*sticks, ends]):
            sticks.append(ends)
    return sticks


def _mimics_a_crossing(sticks: list[np.ndarray]) -> bool:
    """Whether two ends, not one stick's own pair, face each other across any stick's centre."""
    ends = [(k, p) for k, s in enumerate(sticks) for p in s]
    return any(
        _facing(p, q, s.mean(axis=0))
        for i, (k, p) in enumerate(ends)
        for m, q in ends[i + 1 :]
        if k != m
        for s in sticks
    )


@settings(max_examples=40, deadline=None)
@given(stick_sets())
def test_decoding_the_targets_gives_every_stick_back(sticks: list[np.ndarray]) -> None:
    heat, reg, weight = encode_targets(sticks)
    assert int((heat[0] > 0.999).sum()) == len(sticks) and int((heat[1] > 0.999).sum()) == 2 * len(sticks)
    assert weight.max() == (1.0 if sticks else 0.0)
    found, crossed = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
    assert len(found) == len(sticks) and not crossed
    for truth in sticks:
        errors = [min(np.abs(ends - truth).max(), np.abs(ends[::-1] - truth).max()) for _, ends in found]
        assert min(errors) < 1e-3


def test_nothing_marked_decodes_to_nothing() -> None:
    heat, reg, weight = encode_targets([])
    assert heat.max() == 0 and weight.max() == 0
    assert decode(np.concatenate([_logits(heat), reg])) == ([], [])


@pytest.mark.parametrize("read", [0.6, 0.9, 1.3])
def test_an_end_is_moved_to_the_end_peak_along_the_stick(read: float) -> None:
    truth = np.array([[100.0, 100.0], [180.0, 140.0]])
    heat, reg, _ = encode_targets([truth])
    off = np.array(reg)
    cells = np.nonzero(heat[0] > 0.5)
    off[2:4][:, cells[0], cells[1]] *= read  # the half-vector read too short or too long
    ((_, ends),), _ = decode(np.concatenate([_logits(heat), off]), threshold=0.99)
    assert min(np.abs(ends - truth).max(), np.abs(ends[::-1] - truth).max()) < 1e-3


def test_an_end_beside_the_stick_is_not_taken_for_its_own() -> None:
    """A stick whose own end peaks are missing keeps its ends rather than take another's, beside it."""
    stick = np.array([[100.0, 100.0], [200.0, 100.0]])
    other = np.array([[200.0, 115.0], [200.0, 215.0]])  # its near end 15 px off the stick's axis
    heat, reg, _ = encode_targets([stick, other])
    heat[1, 22:29, 22:29] = heat[1, 22:29, 47:54] = 0  # no end peak at (100, 100) nor (200, 100), cells of 4 px
    found, _ = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
    (ends,) = [e for _, e in found if abs(e[0, 1] - e[1, 1]) < 1]
    assert np.abs(np.sort(ends[:, 0]) - [100, 200]).max() < 1e-3


def _same(found: list[tuple[float, np.ndarray]], truth: np.ndarray, tolerance: float = 1e-3) -> bool:
    """Whether a reading has the truth's ends; near ends of sticks meeting at a corner share one end peak."""
    return any(min(np.abs(e - truth).max(), np.abs(e[::-1] - truth).max()) < tolerance for _, e in found)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.data())
def test_sticks_crossed_at_their_middles_are_both_read(data) -> None:
    """Crossed near their middles, two sticks share one centre peak, where the network regresses the mean of
    their doubled half-vectors, a short one. Both are read from their end peaks; a third, lone stick sets
    the frame's stick length."""
    first = _drawn_stick(data.draw, (60, 120), MIDDLE)
    turn = data.draw(st.floats(np.radians(45), np.radians(135)))
    c, s = math.cos(turn), math.sin(turn)
    half = (first[1] - first[0]) / 2 @ np.array([[c, s], [-s, c]]) * data.draw(st.floats(0.9, 1.1))
    centre = first.mean(axis=0) + data.draw(st.floats(-0.05, 0.05)) * (first[1] - first[0])
    second = np.array([centre - half, centre + half])
    lone = second + data.draw(st.sampled_from([-1, 1])) * np.array([[200.0, 0.0]])
    assume(_inside(first) and _inside(second) and _inside(lone))
    heat, reg, weight = encode_targets([first, second, lone])
    shared = (weight[2] > 0) & (np.hypot(*np.mgrid[: GRID[1], : GRID[0]][::-1] - (centre / STRIDE)[:, None, None]) < 3)
    mean = (np.array(doubled((first[1] - first[0]) / 2 / STRIDE)) + np.array(doubled(half / STRIDE))) / 2
    reg[2:4][:, shared] = mean[:, None]
    found, _ = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
    assert all(_same(found, t, tolerance=1.0) for t in (first, second, lone))


def _crossed_off_middle(draw) -> tuple[np.ndarray, np.ndarray]:
    """Two sticks of about one length near the input's middle, turned 60-120 degrees, crossing 10-16 % off
    the first's middle and within 10 % of the second's: their centres lie apart, each keeps a peak."""
    first = _drawn_stick(draw, (90, 120), MIDDLE)
    along = first[1] - first[0]
    turn = draw(st.floats(np.radians(60), np.radians(120)))
    c, s = math.cos(turn), math.sin(turn)
    other = along @ np.array([[c, s], [-s, c]]) * draw(st.floats(0.95, 1.1))
    point = first.mean(axis=0) + draw(st.sampled_from([-1, 1])) * draw(st.floats(0.1, 0.16)) * along
    start = point - draw(st.floats(0.4, 0.6)) * other
    return first, np.array([start, start + other])


def _without_centre(heat: np.ndarray, stick: np.ndarray) -> None:
    """Take a stick's centre peak out of the heatmaps (in place): the network gave it to the stick it crosses."""
    cells = np.hypot(*np.mgrid[: GRID[1], : GRID[0]][::-1] - (stick.mean(axis=0) / STRIDE)[:, None, None])
    heat[0][cells < 1.5] = 0.0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.data())
def test_a_stick_crossed_away_from_the_middles_is_read_from_its_end_peaks(data) -> None:
    """Crossed off their middles, the network may mark one centre only. The other stick is read from its two
    end peaks, which no reading ends at, across the stick read; a lone stick sets the frame's stick length."""
    first, second = _crossed_off_middle(data.draw)
    lone = first + data.draw(st.sampled_from([-1, 1])) * np.array([[200.0, 0.0]])
    assume(_inside(first) and _inside(second) and _inside(lone))
    heat, reg, _ = encode_targets([first, second, lone])
    _without_centre(heat, second)
    found, crossed = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
    assert len(found) == 2 and _same(found, first) and _same(found, lone)
    ((_, ends, other),) = crossed
    assert _same([(0, ends)], second, tolerance=1.0) and _same([(0, other)], first)


def test_no_stick_is_made_of_end_peaks_where_read_sticks_cross_already() -> None:
    """In a heap, sticks read cross each other, and a pair of different sticks' ends across one of them may
    pass for a stick: the end peaks left unread are not paired up there."""
    first = np.array([[200.0, 200.0], [300.0, 200.0]])
    second = np.array([[265.0, 152.0], [261.0, 250.0]])  # crosses the first 63 % along, halfway along itself
    third = np.array([[215.0, 160.0], [235.0, 255.0]])  # crosses the first 23 % along, with a centre of its own
    lone = first + np.array([[0.0, 120.0]])
    sticks = [first, second, lone]
    heat, reg, _ = encode_targets(sticks)
    _without_centre(heat, second)
    _, alone = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
    heat, reg, _ = encode_targets([*sticks, third])
    _without_centre(heat, second)
    found, in_a_heap = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
    assert len(alone) == 1 and _same([(0, alone[0][1])], second, tolerance=1.0)
    assert len(found) == 3 and not in_a_heap


def test_lattice_layouts_decode_to_their_sticks_alone() -> None:
    """Every card under a webcam's view: no pair of ends faces across a stick's centre, so nothing extra."""
    rng = random.Random(11)
    for card in range(1, 56):
        camera = Camera.looking_at((1280, 720), rng.uniform(60, 110), rng.uniform(0, 55), rng.uniform(-180, 180), 64)
        placed = lattice_sticks(rng, card, 61.0, 60.0, np.zeros(2))
        sticks = [camera.project(s.ends) / 2 for s in placed]  # the locator sees the frame at half size
        heat, reg, _ = encode_targets(sticks)
        found, crossed = decode(np.concatenate([_logits(heat), reg]), threshold=0.99)
        assert len(found) == 5 and not crossed and all(_same(found, t, tolerance=STRIDE) for t in sticks), card


def test_the_sticks_own_plane_squares_every_card_under_a_tilted_view() -> None:
    rng = random.Random(5)
    right = 0
    for card in range(1, 56):
        camera = Camera.looking_at((1280, 720), rng.uniform(90, 150), rng.uniform(0, 50), rng.uniform(-180, 180), 64)
        placed = lattice_sticks(rng, card, 61.0, 60.0, np.zeros(2))
        sticks = [Stick(camera.project(s.ends), 0.9) for s in placed]
        plane = table_plane(np.array([s.ends for s in sticks], np.float64), (1280, 720))
        (poly,) = StickRecognizer.polysticks(sticks, plane, square=True)
        right += poly.card == card and poly.on_lattice
    assert right >= 54


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.floats(0.2, 0.8), st.floats(0.2, 0.8), st.booleans())
def test_a_stick_is_marked_on_its_own_segment_in_either_orientation(x: float, y: float, portrait: bool) -> None:
    """The heat a stick's centre leaves in the maps marks that stick's segment in the frame's own pixels, also
    when the frame is a portrait one the locator turned; not a segment across it, nor one far away. A stick
    read half as long from one end of a segment (a stick partly hidden) marks the segment; a whole stick
    shifted half its length along it does not."""
    size = (720, 1280) if portrait else (1280, 720)  # width, height
    scale = min(INPUT_SIZE[0] / max(size), INPUT_SIZE[1] / min(size))

    def readings(stick: np.ndarray) -> LocatorReadings:  # a stick as the landscape network sees it, input px
        heat, regressed, _ = encode_targets([stick])
        return LocatorReadings(
            [], [], [], np.zeros((0, 2)), np.zeros(0), heat[0], regressed[2:4], scale, size[1] if portrait else None
        )

    def in_frame(points: np.ndarray) -> np.ndarray:
        return turned_back(points / scale, size[1]) if portrait else points / scale

    centre = np.array([x * size[0], y * size[1]])
    seen = turned(centre, size[1]) if portrait else centre  # where the landscape network saw it
    stick = seen * scale + np.array([[-20.0, 0.0], [20.0, 0.0]])
    across = seen * scale + np.array([[0.0, -20.0], [0.0, 20.0]])
    far = stick + np.array([75.0, 0.0]) * (1 if x < 0.5 else -1)
    whole = readings(stick)
    segments = [in_frame(s) for s in (stick, across, far)] + [np.full((2, 2), np.nan), np.array([[-900, 9], [-800, 9]])]
    heat = whole.stick_heat(*np.stack(segments, axis=1))
    assert heat[0] > 0.9 and heat[1:].max() < 0.1
    half = readings(np.array([stick[0], stick.mean(axis=0)]))
    shifted = readings(stick + np.array([20.0, 0.0]))
    assert half.stick_heat(*in_frame(stick)[:, None])[0] > 0.9
    assert shifted.stick_heat(*in_frame(stick)[:, None])[0] < 0.1


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(1, 8), st.integers(0, 12))
def test_each_end_moves_to_the_best_end_peak_within_reach(seed: int, sticks: int, peaks: int) -> None:
    """An end moves to the end peak within END_REACH of the stick along it and END_ACROSS across (at least
    1.5 cells each) whose score less its distance in stick lengths is highest, and stays where none is."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0, 200, (sticks, 2))
    halves = rng.uniform(-40, 40, (sticks, 2))
    end_scores = rng.uniform(0.2, 1.0, peaks)
    # Peaks scattered near the sticks' ends, so that some fall within reach and some do not.
    near_ends = np.concatenate([centers - halves, centers + halves])
    end_points = near_ends[rng.integers(0, len(near_ends), peaks)] + rng.normal(0, 8, (peaks, 2))
    moved, on_peaks, lengths = _snapped_to_end_peaks(centers, halves, end_scores, end_points)
    for i, (centre, half) in enumerate(zip(centers, halves, strict=True)):
        length = 2 * np.linalg.norm(half)
        assert lengths[i] == pytest.approx(length)
        axis = half / np.linalg.norm(half)
        both = True
        for k, end in enumerate((centre - half, centre + half)):
            best, best_rank = end, -np.inf
            for score, point in zip(end_scores, end_points, strict=True):
                along, across = abs((point - end) @ axis), abs((point - end) @ [-axis[1], axis[0]])
                within = along <= max(1.5 * STRIDE, END_REACH * length) and across <= max(
                    1.5 * STRIDE, END_ACROSS * length
                )
                rank = score - np.hypot(along, across) / length
                if within and rank > best_rank:
                    best, best_rank = point, rank
            both &= best_rank > -np.inf
            assert np.allclose(moved[i, k], best)
        assert on_peaks[i] == both
