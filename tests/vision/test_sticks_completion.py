"""Faint sticks are read only where they complete a five-stick pattern; unsure extras that spoil one go."""

import random
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.scenes import Camera
from models.synth.sticks import lattice_sticks
from vision.sticks import completion
from vision.sticks.completion import COVERED, MIN_STICK_PX, add_faint_sticks, drop_unsure_extras
from vision.sticks.detections import Stick
from vision.sticks.lattice import SAMPLES, segment_distance
from vision.sticks.plane import table_plane
from vision.sticks.recognize import StickRecognizer, _distinct


def _layout(card: int, seed: int) -> list[np.ndarray]:
    """A card's five sticks as a webcam sees them, in picture pixels."""
    rng = random.Random(seed)
    camera = Camera.looking_at((1280, 720), rng.uniform(80, 140), rng.uniform(0, 50), rng.uniform(-180, 180), 64)
    return [camera.project(s.ends) for s in lattice_sticks(rng, card, 61.0, 60.0, np.zeros(2))]


def _decoys(read: list[np.ndarray], missing: np.ndarray) -> list[np.ndarray]:
    """Faint readings that complete no pattern: the missing stick moved half a stick across itself (its ends
    off the lattice), one lying across a read stick's middle, and one far off."""
    axis = missing[1] - missing[0]
    beside = missing + np.array([-axis[1], axis[0]]) / 2
    middle, half = read[0].mean(axis=0), (read[0][1] - read[0][0]) / 2
    turned = np.array([-half[1], half[0]])
    return [beside, np.array([middle - turned, middle + turned]), missing + 20 * axis]


def _card(readings: list[tuple[float, np.ndarray]], plane: np.ndarray) -> int | None:
    groups = StickRecognizer.polysticks([Stick(e, s) for s, e in readings], plane, square=True)
    return groups[0].card if len(groups) == 1 else None


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.sets(st.integers(0, 4), min_size=1, max_size=4), st.integers(0, 10_000))
def test_missing_sticks_are_taken_and_decoys_are_not(card: int, missing: set[int], seed: int) -> None:
    """One to four of a card's sticks read only faintly, among faint decoys scoring higher."""
    sticks = _layout(card, seed)
    read = [s for k, s in enumerate(sticks) if k not in missing]
    faint = [(0.25, d) for k in missing for d in _decoys(read, sticks[k])] + [(0.2, sticks[k]) for k in missing]
    plane = table_plane(np.array(sticks), (1280, 720))
    completed = add_faint_sticks([(0.9, s) for s in read], faint, plane)
    assert len(completed) == 5 and all(any(e is sticks[k] for _, e in completed) for k in missing)
    assert _card(completed, plane) == card


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 10_000))
def test_faint_sticks_alone_make_no_pattern(card: int, seed: int) -> None:
    """A card's five sticks all read faintly, with no read stick among them: not taken."""
    sticks = _layout(card, seed)
    plane = table_plane(np.array(sticks), (1280, 720))
    corners = [np.array([[x, 20.0], [x, 100.0]]) for x in (20.0, 1260.0)]
    far = max(corners, key=lambda c: min(np.linalg.norm(s - c[0], axis=1).min() for s in sticks))
    assert len(add_faint_sticks([(0.9, far)], [(0.25, s) for s in sticks], plane)) == 1


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 10_000))
def test_a_whole_pattern_takes_no_faint_stick(card: int, seed: int) -> None:
    sticks = _layout(card, seed)
    plane = table_plane(np.array(sticks), (1280, 720))
    faint = [(0.2, d) for k in range(5) for d in _decoys([sticks[(k + 1) % 5]], sticks[k])]
    assert len(add_faint_sticks([(0.9, s) for s in sticks], faint, plane)) == 5


def _spurs(sticks: list[np.ndarray], count: int) -> list[np.ndarray]:
    """Readings that touch the layout off its lattice: from a stick's end, turned 45 degrees off it."""
    spurs = []
    for stick in sticks[:count]:
        axis = stick[1] - stick[0]
        turned = np.array([axis[0] - axis[1], axis[0] + axis[1]]) / np.sqrt(2)
        spurs.append(np.array([stick[1], stick[1] + turned]))
    return spurs


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(1, 2), st.integers(0, 10_000))
def test_unsure_readings_that_spoil_a_card_are_dropped_and_sure_ones_kept(card: int, count: int, seed: int) -> None:
    sticks = _layout(card, seed)
    plane = table_plane(np.array(sticks), (1280, 720))
    read = [(0.7, s) for s in sticks]
    unsure = drop_unsure_extras(read + [(0.4, s) for s in _spurs(sticks, count)], plane)
    assert len(unsure) == 5 and _card(unsure, plane) == card
    sure = read + [(0.9, s) for s in _spurs(sticks, count)]
    assert len(drop_unsure_extras(sure, plane)) == 5 + count


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(1, 4), st.integers(0, 10_000))
def test_an_extra_surer_than_a_stick_it_would_leave_is_not_dropped(card: int, faint: int, off: int, seed: int) -> None:
    """A stick turned off the lattice (read 0.47) beside a faint reading where a stick would complete a card
    (0.3): the turned one is not dropped for the faint one, and the broken layout stays broken. Fainter than
    every stick of the card, it is dropped."""
    sticks = _layout(card, seed)
    plane = table_plane(np.array(sticks), (1280, 720))
    (turned,) = _spurs([sticks[(faint + off) % 5]], 1)
    read = [(0.3 if k == faint else 0.7, s) for k, s in enumerate(sticks)]
    assert len(drop_unsure_extras([*read, (0.47, turned)], plane)) == 6
    kept = drop_unsure_extras([*read, (0.25, turned)], plane)
    assert len(kept) == 5 and _card(kept, plane) == card


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from([(1, 0), (0, 1), (1, 1), (2, 0), (0, 2)]), st.integers(0, 10_000))
def test_readings_running_on_a_row_are_cut_off_it_whatever_their_scores(extras: tuple[int, int], seed: int) -> None:
    """Five sticks in a row (card 1), the middle one faint, with one or two readings running on along the row's
    line scoring above it: the row is cut to five whatever they score, as a plank seam's line is read on past
    a row, and the seam check then judges the row cut from it (vision/sticks/seams.py)."""
    sticks = _layout(1, seed)
    plane = table_plane(np.array(sticks), (1280, 720))
    ends = np.array(sticks)
    centres = ends.mean(axis=1)
    axis = centres[-1] - centres[0]
    ends = ends[np.argsort(centres @ axis)]
    step = (ends[-1].mean(axis=0) - ends[0].mean(axis=0)) / 4
    before, after = extras
    run_on = [ends[0] - (k + 1) * step for k in range(before)] + [ends[-1] + (k + 1) * step for k in range(after)]
    read = [(0.3 if k == 2 else 0.7, e) for k, e in enumerate(ends)] + [(0.5, e) for e in run_on]
    kept = drop_unsure_extras(read, plane)
    assert len(kept) == 5 and _card(kept, plane) == 1
    assert not any(any(e is r for _, e in kept) for r in run_on)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(0, 10_000))
def test_a_broken_layout_keeps_all_its_sticks(card: int, moved: int, seed: int) -> None:
    """Five sticks, one turned off the lattice about its end: nothing to drop, the layout stays broken."""
    sticks = _layout(card, seed)
    plane = table_plane(np.array(sticks), (1280, 720))
    sticks[moved] = _spurs([sticks[moved]], 1)[0]
    read = [(0.4, s) for s in sticks]
    assert len(drop_unsure_extras(read, plane)) == 5


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(0, 10), st.integers(0, 3))
def test_a_reading_along_better_ones_is_dropped(seed: int, candidates: int, kept: int) -> None:
    """Readings are taken best first unless short, or lying COVERED or more of their length (SAMPLES points)
    within 3 px or 6 % of a length of readings taken before them."""
    rng = np.random.default_rng(seed)

    def readings(n: int) -> list[tuple[float, np.ndarray]]:
        # On a coarse grid with a little noise, so that readings often run along each other.
        return [(float(rng.random()), rng.integers(0, 4, (2, 2)) * 40.0 + rng.normal(0, 2, (2, 2))) for _ in range(n)]

    first, offered = readings(kept), readings(candidates)
    taken = [e for _, e in first]
    for _, ends in sorted(offered, key=lambda c: -c[0]):
        samples = np.linspace(ends[0], ends[1], SAMPLES)
        along = np.zeros(SAMPLES, bool)
        for a, b in taken:
            for k, p in enumerate(samples):
                along[k] |= segment_distance(p, a, b)[0] <= max(3.0, 0.06 * np.linalg.norm(b - a))
        if np.linalg.norm(ends[1] - ends[0]) >= MIN_STICK_PX and along.mean() < COVERED:
            taken.append(ends)
    result = _distinct(offered, first)
    assert len(result) == len(taken) and all(np.array_equal(e, t) for (_, e), t in zip(result, taken, strict=True))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.integers(0, 4), st.integers(0, 10_000))
def test_a_faint_stick_that_shows_no_body_completes_nothing(card: int, missing: int, seed: int) -> None:
    """The fifth stick read faintly, but `shows_body` finds no body there: not taken."""
    sticks = _layout(card, seed)
    read = [(0.9, s) for k, s in enumerate(sticks) if k != missing]
    plane = table_plane(np.array(sticks), (1280, 720))
    faint = [(0.2, sticks[missing])]
    assert len(add_faint_sticks(read, faint, plane, lambda ends: True)) == 5
    assert len(add_faint_sticks(read, faint, plane, lambda ends: ends is not sticks[missing])) == 4


def _clutter(sticks: list[np.ndarray], rng: random.Random, count: int) -> list[np.ndarray]:
    """Faint readings among a layout: its sticks' copies stretched, shrunk, turned and moved about it, some
    near enough to a card's shape to be tried in one, most not."""
    centre = np.mean([s.mean(axis=0) for s in sticks], axis=0)
    unit = float(np.median([np.linalg.norm(s[1] - s[0]) for s in sticks]))
    clutter = []
    for _ in range(count):
        ends = rng.choice(sticks)
        middle = centre + np.array([rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)]) * unit
        angle, scale = np.radians(rng.choice([0.0, 90.0]) + rng.uniform(-25, 25)), rng.uniform(0.5, 1.8)
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        clutter.append(middle + (ends - ends.mean(axis=0)) @ turn.T * scale)
    return clutter


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 55), st.sets(st.integers(0, 4), min_size=1, max_size=3), st.integers(0, 10_000))
def test_pruning_pairs_that_fit_no_card_changes_no_completion(card: int, missing: set[int], seed: int) -> None:
    """The search for faint completions skips sets holding two sticks no card could hold together
    (`could_share_a_card`): it takes the same sticks as the search that tries every set."""
    rng = random.Random(seed)
    sticks = _layout(card, seed)
    read = [(0.9, s) for k, s in enumerate(sticks) if k not in missing]
    faint = [(0.2, sticks[k]) for k in missing] + [(rng.uniform(0.1, 0.3), c) for c in _clutter(sticks, rng, 12)]
    plane = table_plane(np.array(sticks), (1280, 720))
    pruned = add_faint_sticks(read, faint, plane)
    with patch.object(completion, "could_share_a_card", lambda ends: np.ones((len(ends), len(ends)), bool)):
        every_set = add_faint_sticks(read, faint, plane)
    assert [id(e) for _, e in pruned] == [id(e) for _, e in every_set]
