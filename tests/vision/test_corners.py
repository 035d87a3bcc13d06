"""The corner networks on held-out renders: loose outlines of cards and of domino tiles come back onto their
own corners."""

import random

import numpy as np
import pytest

from models.evaluate import Laid, scene_spec
from models.synth.dominoes import render_dominoes
from models.synth.scenes import render_scene
from models.train_card_corners import in_outline_order, loose_outline
from models.train_cards import training_spec as card_spec
from models.train_dominoes import training_spec as tile_spec
from vision.cards.corners import card_corners
from vision.dominoes.corners import tile_corners
from vision.geometry import quad_iou

HELDOUT_SEED = 52_000_000  # held-out scenes no evaluation reads
TOUCHING_SEED = 52_700_000  # held-out Tempus lines laid touching, which no evaluation reads either
SCENES = 16


def _card_scene(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    scene = render_scene(seed, card_spec(seed, split="heldout"))
    return scene.image, [card.corners for card in scene.cards]


def _touching_line(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    scene = render_scene(seed, scene_spec(seed, Laid.TOUCHING))
    return scene.image, [card.corners for card in scene.cards]


def _tile_scene(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    scene = render_dominoes(seed, tile_spec(seed, split="heldout"))
    return scene.image, [np.asarray(tile.corners, np.float32) for tile in scene.tiles]


def _refined(refiner, scene_of, first_seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(loose outline, refined outline, the object's corners in the outline's order) for every card or tile of
    SCENES scenes from `first_seed`."""
    found = []
    for seed in range(first_seed, first_seed + SCENES):
        image, corners = scene_of(seed)
        rng = random.Random(seed)
        loose = [loose_outline(rng, c) for c in corners]
        truths = [in_outline_order(q, c) for q, c in zip(loose, corners, strict=True)]
        found += zip(loose, refiner.refine(image, loose), truths, strict=True)
    return found


@pytest.fixture(scope="module", params=["cards", "tiles"])
def outlines(request) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    if request.param == "cards":
        return _refined(card_corners(), _card_scene, HELDOUT_SEED)
    return _refined(tile_corners(), _tile_scene, HELDOUT_SEED)


def _corner_error(quad: np.ndarray, truth: np.ndarray) -> float:
    """Mean corner distance as a share of the object's diagonal."""
    return float(np.linalg.norm(quad - truth, axis=1).mean() / np.linalg.norm(truth[0] - truth[2]))


def test_refined_corners_are_nearer_the_card(outlines) -> None:
    before = np.median([_corner_error(loose, truth) for loose, _, truth in outlines])
    after = np.median([_corner_error(refined, truth) for _, refined, truth in outlines])
    assert after < before / 2, f"median corner error {before:.3f} -> {after:.3f} of the diagonal"


def test_most_refined_outlines_fit_their_card(outlines) -> None:
    loose = np.mean([quad_iou(loose, truth) > 0.8 for loose, _, truth in outlines])
    refined = np.mean([quad_iou(refined, truth) > 0.8 for _, refined, truth in outlines])
    assert refined > max(0.75, 2 * loose), f"outlines overlapping their object by 0.8: {loose:.1%} -> {refined:.1%}"


def test_refined_outlines_keep_the_loose_ones_corner_order(outlines) -> None:
    """The i-th refined corner is the object's corner the loose outline's i-th stood for: the nearest of the
    object's corners put in the loose outline's order (a long tile's loose corner may lie nearer another)."""
    for _, refined, truth in outlines:
        nearest = [int(np.argmin(np.linalg.norm(truth - corner, axis=1))) for corner in refined]
        if quad_iou(refined, truth) > 0.6:  # far off, "nearest" says little
            assert nearest == [0, 1, 2, 3]


@pytest.mark.parametrize("refiner", [card_corners, tile_corners])
def test_nothing_to_refine(refiner) -> None:
    assert refiner().refine(np.zeros((100, 100, 3), np.uint8), []) == []


@pytest.mark.parametrize(
    "flat",
    [
        [[100, 100], [200, 100], [300, 100], [400, 100]],  # a locator's two axes parallel: no area at all
        [[100, 100], [200, 100], [300, 100], [200, 300]],  # three corners in a line: no map to a square
    ],
)
def test_an_outline_that_cannot_be_warped_stays_and_the_rest_are_refined_as_ever(flat) -> None:
    refiner = card_corners()
    image, corners = _card_scene(HELDOUT_SEED)
    loose = [loose_outline(random.Random(0), c) for c in corners]
    flat = np.array(flat, np.float32)
    refined = refiner.refine(image, [*loose, flat])
    assert np.array_equal(refined[-1], flat)
    assert all(np.allclose(a, b) for a, b in zip(refined, refiner.refine(image, loose), strict=False))


def test_cards_laid_touching_are_put_on_their_own_corners() -> None:
    """In a race each card is laid a little over the one before: a loose outline of a card there has its
    neighbours' edges across it. Before the network learnt such lines, half came back fitting their card."""
    found = _refined(card_corners(), _touching_line, TOUCHING_SEED)
    fit = np.mean([quad_iou(refined, truth) > 0.8 for _, refined, truth in found])
    assert fit > 0.7, f"refined outlines overlapping their card by 0.8: {fit:.1%}"
