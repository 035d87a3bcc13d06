"""Frames blurred as by a moving camera: the pip reader's doubts read again by its copy trained on blurred crops."""

import random

import cv2
import pytest

from models.evaluate_dominoes import evaluation_spec, score_scene
from models.synth.dominoes import render_dominoes
from models.synth.scenes import motion_kernel
from vision.dominoes import DominoRecognizer
from vision.dominoes.pips import PipReader

SEED = 53_000_000  # held-out scenes no evaluation reads


@pytest.fixture(scope="module")
def blurred_scenes() -> list:
    """Held-out scenes of the evaluation's four kinds, each blurred 7 or 9 px at a random angle."""
    rng = random.Random(SEED)
    scenes = []
    for i in range(12):
        scene = render_dominoes(SEED + i, evaluation_spec(i, SEED)[1])
        kernel = motion_kernel(rng.choice((7, 9)), rng.uniform(0, 180))
        scenes.append((scene, cv2.filter2D(scene.image, -1, kernel)))
    return scenes


def test_blurred_frames_are_read_better_with_the_second_reader(blurred_scenes: list) -> None:
    cv2.setNumThreads(1)
    both = DominoRecognizer(threads=1)
    first_alone = DominoRecognizer(threads=1, blurred_reader=PipReader())  # reads again what it read
    right = {"both": 0, "first": 0}
    false = {"both": 0, "first": 0}
    for scene, image in blurred_scenes:
        for name, recognizer in (("both", both), ("first", first_alone)):
            score = score_scene(scene, recognizer(image))
            right[name] += score.read_right
            false[name] += score.false_detections
    tiles = sum(len(scene.tiles) for scene, _ in blurred_scenes)
    assert right["both"] >= right["first"] + 0.03 * tiles, (right, tiles)
    assert false["both"] <= false["first"] + 1, false
