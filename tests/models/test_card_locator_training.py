"""The card locator's training frames: each block's cards land where its targets say."""

import itertools
import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from models.synth.scenes import PORTRAIT_SIZE, render_scene
from models.train_card_locator import (
    MAT_SEED,
    PORTRAIT_SEED,
    TOUCHING_SEED,
    card_free_sample,
    frame_sample,
    mat_sample,
    portrait_sample,
    touching_sample,
    touching_spec,
)
from models.train_cards import tempus_line_spec, training_spec
from vision.cards.artwork import CardFace
from vision.cards.centres import GRID, INPUT_SIZE, encode_targets
from vision.cards.classify import CardClassifier


def _cards(corners: np.ndarray) -> list[np.ndarray]:
    return [c for c in corners[0] if np.isfinite(c).all()]


def _inside_canvas(card: np.ndarray) -> bool:
    centre = card.mean(axis=0)
    return 0 <= centre[0] < INPUT_SIZE[0] and 0 <= centre[1] < INPUT_SIZE[1]


def test_a_scene_frame_holds_every_card_of_its_scene() -> None:
    seed = 30_000_005
    canvas, corners = frame_sample(seed)
    assert canvas.shape == (1, INPUT_SIZE[1], INPUT_SIZE[0], 3)
    cards = _cards(corners)
    assert len(cards) == len(render_scene(seed, training_spec(seed, "train")).cards) > 0
    heat, _, _ = encode_targets(cards)
    assert heat.shape == (GRID[1], GRID[0]) and (heat > 0.999).sum() == sum(map(_inside_canvas, cards))


def test_a_card_free_frame_has_no_card() -> None:
    for seed in (7, 8):  # a domino frame and a stick frame
        canvas, corners = card_free_sample(seed)
        assert canvas.shape == (1, INPUT_SIZE[1], INPUT_SIZE[0], 3) and not _cards(corners)


@pytest.mark.parametrize("seed", [MAT_SEED, MAT_SEED + 1])  # the camera's frame, the top-down view
def test_mat_views_hold_their_lanes_cards(seed: int) -> None:
    canvas, corners = mat_sample(seed)
    cards = _cards(corners)
    assert cards and all(_inside_canvas(c) for c in cards)
    # The targets lie on the cards: the classifier reads what is inside them as cards.
    readings = CardClassifier().read(canvas[0], [c.astype(np.float32) for c in cards])
    read = [r for r in readings if r is not None and not r.rejected]
    assert len(read) >= 0.75 * len(cards)


def test_portrait_frames_are_turned_with_their_cards_and_faces() -> None:
    """The targets follow the frame's turn point for point, so each card keeps its face's corner order: the
    classifier, given them in order, reads each card's own face the right way up."""
    seed = PORTRAIT_SEED + 3
    canvas, corners = portrait_sample(seed)
    assert canvas.shape == (1, INPUT_SIZE[1], INPUT_SIZE[0], 3)
    scene = render_scene(seed, replace(training_spec(seed, "train"), size=PORTRAIT_SIZE))
    cards = _cards(corners)
    assert len(cards) == len(scene.cards) >= 3
    readings = CardClassifier().read(canvas[0], [c.astype(np.float32) for c in cards], either_way=False)
    right = [r is not None and r.face == truth.face for r, truth in zip(readings, scene.cards, strict=True)]
    assert sum(right) >= 0.75 * len(cards)


def test_streaks_cross_cards_only_and_leave_other_scenes_as_they_were() -> None:
    seed = 34_000_000
    spec = training_spec(seed, "train")
    plain = render_scene(seed, spec)
    assert np.array_equal(plain.image, render_scene(seed, replace(spec, streaks=0.0)).image)
    streaked = render_scene(seed, replace(spec, streaks=1.0))
    changed = np.abs(streaked.image.astype(int) - plain.image.astype(int)).max(axis=2) > 40
    on_cards = np.zeros(changed.shape, np.uint8)
    for card in plain.cards:
        cv2.fillConvexPoly(on_cards, np.round(card.corners).astype(np.int32), 1)
    on_cards = cv2.dilate(on_cards, np.ones((5, 5), np.uint8)).astype(bool)
    assert changed.sum() > 0.01 * on_cards.sum()
    assert not (changed & ~on_cards).any()


@pytest.mark.parametrize("seed", [3, 4])
def test_a_tempus_line_laid_with_a_negative_gap_lays_each_card_over_the_one_before(seed: int) -> None:
    def overlapping(gap_mm: tuple[float, float]) -> tuple[int, int]:
        scene = render_scene(seed, tempus_line_spec(random.Random(seed), "train", gap_mm))
        quads = [card.corners.astype(np.float32) for card in scene.cards]
        return sum(cv2.intersectConvexConvex(a, b)[0] > 1 for a, b in itertools.pairwise(quads)), len(quads)

    laid_over, cards = overlapping((-8.0, -8.0))
    assert laid_over >= cards // 2  # in a grid, a row's last card and the next row's first lie apart
    assert overlapping((12.0, 12.0))[0] == 0


def test_touching_frames_hold_every_card_of_their_line() -> None:
    seed = TOUCHING_SEED + 1
    _, corners = touching_sample(seed)
    cards = _cards(corners)
    line = render_scene(seed, touching_spec(seed))
    assert len(cards) == len(line.cards) >= 6
    assert line.cards[0].face == CardFace("starter", (3,))
