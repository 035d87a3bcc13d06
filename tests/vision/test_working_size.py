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
from vision.working_size import WORKING_SIDE, to_picture, to_working, working_copy, working_homography

ENLARGED = 3  # a 1280x720 render enlarged to 3840x2160, a 4K frame or about a 12-megapixel photo


@given(st.integers(1, 3 * WORKING_SIDE + 7), st.integers(1, 12), st.booleans(), st.integers(0, 2**32 - 1))
def test_the_copy_is_the_picture_shrunk_by_the_least_whole_factor(long: int, short: int, wide: bool, seed: int):
    h, w = (short, long) if wide else (long, short)
    image = np.random.default_rng(seed).integers(0, 256, (h, w), np.uint8)
    copy, factor = working_copy(image)
    if long <= WORKING_SIDE:
        assert copy is image and factor == 1
        return
    assert factor > 1 and long // factor <= WORKING_SIDE < long // (factor - 1)
    assert copy.shape == (max(1, h // factor), max(1, w // factor))
    if short >= factor:  # each pixel the mean of its block
        blocks = image[: copy.shape[0] * factor, : copy.shape[1] * factor].astype(np.float64)
        means = blocks.reshape(copy.shape[0], factor, copy.shape[1], factor).mean(axis=(1, 3))
        assert np.abs(copy - means).max() <= 1


@given(st.integers(1, 6), st.floats(0, 5000), st.floats(0, 5000))
def test_a_copy_pixel_stands_for_its_blocks_centre_and_a_homography_follows(factor: int, x: float, y: float):
    """Pixel centres lie at whole coordinates: copy pixel i holds picture pixels i*f .. i*f + f - 1."""
    point = np.array([[x, y]])
    assert np.allclose(to_working(to_picture(point, factor), factor), point)
    assert np.allclose(to_picture(np.array([[0.0, 2.0]]), factor), [[(factor - 1) / 2, 2 * factor + (factor - 1) / 2]])
    homography = np.array([[0.4, 0.02, -30.0], [-0.01, 0.45, 12.0], [1e-5, 2e-5, 1.0]])
    expected = cv2.perspectiveTransform(to_picture(point, factor)[None], homography)[0]
    assert np.allclose(cv2.perspectiveTransform(point[None], working_homography(homography, factor))[0], expected)
    assert working_homography(None, factor) is None and working_homography(homography, 1) is homography


def _enlarged(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, None, fx=ENLARGED, fy=ENLARGED, interpolation=cv2.INTER_CUBIC)


def _given(monkeypatch: pytest.MonkeyPatch, owner: type, method: str, pick) -> list:
    """`pick(image, first argument after it)` for each call of `owner.method` from now on."""
    seen: list = []
    inner = getattr(owner, method)

    def spy(self, image, *args, **kwargs):
        seen.append(pick(image, args[0] if args else None))
        return inner(self, image, *args, **kwargs)

    monkeypatch.setattr(owner, method, spy)
    return seen


def _read_sizes(monkeypatch: pytest.MonkeyPatch, owner: type, method: str) -> list[int]:
    """The long sides of the frames `owner.method` is given from now on."""
    return _given(monkeypatch, owner, method, lambda image, _: max(image.shape[:2]))


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
    # Turned upright (a phone held so), with every other tile's outline given to ignore: only the rest are read.
    scene = big[0]
    upright = np.ascontiguousarray(np.rot90(scene.image, -1))
    height = scene.image.shape[0]
    turned = [replace(t, corners=_turned(t.corners, height), halves=_turned(t.halves, height)) for t in scene.tiles]
    ignored = [t.corners for t in turned[::2]]
    read = recognizer(upright, ignore=ignored)
    assert not any(cv2.pointPolygonTest(q.astype(np.float32), tuple(map(float, d.center)), False) >= 0
                   for d in read for q in ignored)  # fmt: skip
    rest = score_dominoes(replace(scene, image=upright, tiles=turned[1::2]), read)
    assert rest.read_right >= len(turned[1::2]) - 2 and rest.false_detections == 0


def _turned(points: np.ndarray, height: int) -> np.ndarray:
    """Points of a landscape picture `height` px tall, in that picture turned a quarter clockwise."""
    return np.stack([height - 1 - points[..., 1], points[..., 0]], axis=-1)


def test_stick_layouts_in_an_enlarged_picture_are_read_on_the_copy_in_the_pictures_pixels(monkeypatch) -> None:
    recognizer = StickRecognizer()
    sizes = _read_sizes(monkeypatch, StickRecognizer, "_both_networks")
    # The map to table millimetres each look is given, the first look's first.
    maps = _given(monkeypatch, StickRecognizer, "_looks", lambda image, homography: homography)
    score, calibrated = StickScore(), StickScore()
    for index in range(0, 55, 7):  # eight shapes
        scene = render_stick_scene(20_000 + index, stick_scene_spec(index, "heldout", 330))
        scene = replace(
            scene, image=_enlarged(scene.image), sticks=[replace(s, ends=s.ends * ENLARGED) for s in scene.sticks]
        )
        score_sticks(score, scene, *recognizer(scene.image))
        # A calibration's map of the enlarged picture's pixels to table millimetres (the render's, scaled).
        to_mm = np.linalg.inv(np.diag([ENLARGED, ENLARGED, 1.0]) @ scene.homography)
        score_sticks(calibrated, scene, *recognizer(scene.image, to_mm))
    assert sizes and max(sizes) <= WORKING_SIDE
    assert score.lattice_right >= 7 and calibrated.lattice_right >= 7
    # The first look's map takes the copy's pixels to the millimetres the calibration gives their picture pixels.
    maps.clear()
    recognizer(scene.image, to_mm)
    corners = np.array([[[0.0, 0.0], [1919.0, 0.0], [1919.0, 1079.0], [0.0, 1079.0]]])
    expected = cv2.perspectiveTransform(to_picture(corners, 2), to_mm)
    assert np.allclose(cv2.perspectiveTransform(corners, maps[0]), expected)
