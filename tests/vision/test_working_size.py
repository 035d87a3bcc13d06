"""Pictures larger than the working size: each recogniser reads a shrunk copy and answers in the picture's own
pixels, as well as it reads the frame the picture was enlarged from."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.evaluate import scene_spec as card_scene_spec
from models.evaluate import score_scene as score_cards
from models.evaluate_dominoes import evaluation_spec
from models.evaluate_dominoes import score_scene as score_dominoes
from models.evaluate_sticks import StickScore
from models.evaluate_sticks import scene_spec as stick_scene_spec
from models.evaluate_sticks import score_scene as score_sticks
from models.synth.dominoes import render_dominoes
from models.synth.scenes import render_scene
from models.synth.sticks import render_stick_scene
from vision.cards.recognize import CardRecognizer
from vision.dominoes import DominoRecognizer
from vision.sticks.recognize import StickRecognizer
from vision.working_size import WORKING_SIDE, working_copy, working_homography

ENLARGED = 3  # a 1280x720 render enlarged to 3840x2160, a 4K frame or about a 12-megapixel photo


@given(st.integers(1, 3 * WORKING_SIDE + 7), st.integers(1, 12), st.booleans(), st.integers(0, 2**32 - 1))
def test_the_copy_is_the_picture_shrunk_by_the_least_whole_factor(long: int, short: int, wide: bool, seed: int):
    h, w = (short, long) if wide else (long, short)
    image = np.random.default_rng(seed).integers(0, 256, (h, w), np.uint8)
    copy, scale = working_copy(image)
    if long <= WORKING_SIDE:
        assert copy is image and scale == 1.0
        return
    factor = round(1 / scale)
    assert factor > 1 and long // factor <= WORKING_SIDE < long // (factor - 1)
    assert copy.shape == (max(1, h // factor), max(1, w // factor))
    if short >= factor:  # each pixel the mean of its block
        blocks = image[: copy.shape[0] * factor, : copy.shape[1] * factor].astype(np.float64)
        means = blocks.reshape(copy.shape[0], factor, copy.shape[1], factor).mean(axis=(1, 3))
        assert np.abs(copy - means).max() <= 1


def test_a_homography_of_the_picture_maps_the_copy_to_the_same_places() -> None:
    homography = np.array([[0.4, 0.02, -30.0], [-0.01, 0.45, 12.0], [1e-5, 2e-5, 1.0]])
    points = np.array([[100.0, 200.0], [3000.0, 1500.0]])
    on_copy = working_homography(homography, 0.5)
    expected = cv2.perspectiveTransform(points[None], homography)[0]
    assert np.allclose(cv2.perspectiveTransform(points[None] * 0.5, on_copy)[0], expected)
    assert working_homography(homography, 1.0) is homography and working_homography(None, 0.5) is None


def _enlarged(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, None, fx=ENLARGED, fy=ENLARGED, interpolation=cv2.INTER_CUBIC)


def _read_sizes(monkeypatch: pytest.MonkeyPatch, owner: type, method: str) -> list[int]:
    """The long sides of the frames `owner.method` is given from now on."""
    seen: list[int] = []
    inner = getattr(owner, method)

    def spy(self, image, *args, **kwargs):
        seen.append(max(image.shape[:2]))
        return inner(self, image, *args, **kwargs)

    monkeypatch.setattr(owner, method, spy)
    return seen


def test_cards_in_an_enlarged_picture_are_read_on_the_copy_in_the_pictures_pixels(monkeypatch) -> None:
    recognizer = CardRecognizer()
    seeds = range(20_000_000, 20_000_008)
    scenes = [render_scene(seed, card_scene_spec(seed)) for seed in seeds]
    plain = sum(score_cards(s, recognizer(s.image)).read_right for s in scenes)
    sizes = _read_sizes(monkeypatch, CardRecognizer, "read")
    big = [
        replace(s, image=_enlarged(s.image), cards=[replace(c, corners=c.corners * ENLARGED) for c in s.cards])
        for s in scenes
    ]
    scores = [score_cards(s, recognizer(s.image)) for s in big]
    assert sizes and max(sizes) <= WORKING_SIDE
    assert sum(s.read_right for s in scores) >= plain - 2
    assert sum(s.false_detections for s in scores) <= 2


def test_tiles_in_an_enlarged_picture_are_read_on_the_copy_in_the_pictures_pixels(monkeypatch) -> None:
    recognizer = DominoRecognizer()
    scenes = [render_dominoes(50_000_000 + i, evaluation_spec(i, 50_000_000)[1]) for i in (0, 1, 2, 4)]
    plain = sum(score_dominoes(s, recognizer(s.image)).read_right for s in scenes)
    sizes = _read_sizes(monkeypatch, DominoRecognizer, "_looks")
    big = [
        replace(
            s,
            image=_enlarged(s.image),
            tiles=[replace(t, corners=t.corners * ENLARGED, halves=t.halves * ENLARGED) for t in s.tiles],
        )
        for s in scenes
    ]
    scores = [score_dominoes(s, recognizer(s.image)) for s in big]
    assert sizes and max(sizes) <= WORKING_SIDE
    assert sum(s.read_right for s in scores) >= plain - 2
    assert sum(s.false_detections for s in scores) <= 2


def test_stick_layouts_in_an_enlarged_picture_are_read_on_the_copy_in_the_pictures_pixels(monkeypatch) -> None:
    recognizer = StickRecognizer()
    sizes = _read_sizes(monkeypatch, StickRecognizer, "_both_networks")
    score = StickScore()
    for index in range(0, 55, 7):  # eight shapes
        scene = render_stick_scene(20_000 + index, stick_scene_spec(index, "heldout", 330))
        scene = replace(
            scene, image=_enlarged(scene.image), sticks=[replace(s, ends=s.ends * ENLARGED) for s in scene.sticks]
        )
        score_sticks(score, scene, *recognizer(scene.image))
    assert sizes and max(sizes) <= WORKING_SIDE
    assert score.lattice_right >= 7
