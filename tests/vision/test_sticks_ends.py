"""A loose stick's ends found again along its axis (vision/sticks/ends.py): on sticks drawn on a plain or
grainy table, read short or long, and on rendered held-out heaps."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.sticks.recognize as recognize
from models.evaluate_sticks import match_sticks
from models.synth.sticks import StickSceneSpec, render_stick_scene
from vision.sticks.ends import OFF_LENGTH, SEARCH, refined_ends
from vision.sticks.recognize import StickRecognizer, _loose_ends_refined

HEAPS = 60


def _drawn(rng: np.random.Generator, length: float) -> tuple[np.ndarray, np.ndarray]:
    """A stick `length` px long, 4-7 px thick, at any angle on a grainy table of another colour, and its ends."""
    table = rng.uniform(60, 200, 3)
    image = np.clip(table + rng.normal(0, 6, (360, 480, 3)), 0, 255).astype(np.uint8)
    stick = np.clip(table + rng.choice([-1, 1]) * rng.uniform(60, 90) * np.sign(rng.normal(size=3)), 0, 255)
    angle = rng.uniform(0, np.pi)
    centre = np.array([240.0, 180.0]) + rng.uniform(-40, 40, 2)
    half = length / 2 * np.array([np.cos(angle), np.sin(angle)])
    ends = np.array([centre - half, centre + half])
    a, b = np.rint(ends).astype(int)
    cv2.line(image, tuple(map(int, a)), tuple(map(int, b)), tuple(float(c) for c in stick), int(rng.integers(4, 8)))
    return cv2.GaussianBlur(image, (0, 0), 0.8), ends


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(80, 160), st.floats(0.32, 0.42), st.sampled_from(["short", "long"]))
def test_a_stick_read_short_or_long_gets_its_own_ends(seed, length, off, way) -> None:
    rng = np.random.default_rng(seed)
    image, truth = _drawn(rng, length)
    along = (truth[1] - truth[0]) / length
    # One end read `off` of the length in or out, the other a little either way.
    moved = -off if way == "short" else off
    read = np.array([truth[0] + rng.uniform(-0.03, 0.03) * length * along, truth[1] + moved * length * along])
    found = refined_ends(image, read, length)
    # Found as the evaluation finds a stick (models/evaluate_sticks.py): both ends within 8 px or 15 %.
    assert np.linalg.norm(found - truth, axis=1).max() <= max(8.0, 0.15 * length)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(60, 160), st.floats(1 / OFF_LENGTH + 0.01, OFF_LENGTH - 0.01))
def test_a_stick_about_the_median_length_is_left_as_read(seed, length, share) -> None:
    rng = np.random.default_rng(seed)
    image, truth = _drawn(rng, length)
    assert np.array_equal(refined_ends(image, truth, length / share), truth)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(20, 160), st.floats(0.2, 5.0))
def test_refined_ends_stay_on_the_axis_within_the_search(seed, length, share) -> None:
    """Whatever the picture, the ends move only along the stick, and no further than SEARCH of its length or of
    the median's, the longer."""
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    a = rng.uniform([40, 40], [280, 200])
    angle = rng.uniform(0, 2 * np.pi)
    read = np.array([a, a + length * np.array([np.cos(angle), np.sin(angle)])])
    found = refined_ends(image, read, length * share).astype(np.float64)
    along = (read[1] - read[0]) / length
    offsets = found - read
    assert np.abs(offsets @ np.array([-along[1], along[0]])).max() < 1e-3 * length + 1e-3
    assert np.abs(offsets @ along).max() <= SEARCH * max(length, length * share) + 1e-3


class Recording(StickRecognizer):
    """The reader, keeping the sticks it had before their ends were refined."""

    def timed(self, image, homography=None, ignore=()):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(recognize, "_loose_ends_refined", self._kept)
            return super().timed(image, homography, ignore)

    def _kept(self, image, sticks, polysticks):
        self.before = sticks
        return _loose_ends_refined(image, sticks, polysticks)


@pytest.fixture(scope="module")
def heap_readings() -> list[tuple[object, list, list]]:
    """Held-out heaps, each with the sticks read, and as they were before their ends were refined."""
    reader, readings = Recording(), []
    for i in range(HEAPS):
        scene = render_stick_scene(7_300_000 + i, StickSceneSpec(split="heldout", kind="pickup"))
        sticks = reader(scene.image)[0]
        readings.append((scene, sticks, reader.before))
    return readings


@pytest.mark.slow
def test_held_out_heaps_have_more_sticks_found_with_their_ends_refined(heap_readings) -> None:
    refined = sum(len(match_sticks(scene, read)) for scene, read, _ in heap_readings)
    as_located = sum(len(match_sticks(scene, read)) for scene, _, read in heap_readings)
    assert refined >= as_located + 3
    assert all(len(r) == len(a) for _, r, a in heap_readings)  # the ends move; no stick comes or goes
