"""The bench's race clip is one scene filmed as a player lays it: the same table, camera and cards in every
frame, each card from the frame it is laid in."""

from dataclasses import replace

import cv2
import numpy as np

from models.synth.samples import SAMPLE_SCENES
from models.synth.scenes import SceneSpec, render_scene

MARGIN = 24  # px: a card's shadow, the blur and JPEG's 16 px blocks reach past its outline


def _outside(quads: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return cv2.dilate(mask, np.ones((2 * MARGIN + 1, 2 * MARGIN + 1), np.uint8)) == 0


def test_a_scene_laid_in_part_is_the_whole_scene_without_the_cards_not_yet_laid() -> None:
    for seed, spec in (SAMPLE_SCENES["tempus-row.jpg"], (5, SceneSpec(layout="row", n_cards=(6, 6)))):
        whole = render_scene(seed, spec)
        for laid in (1, 4):
            part = render_scene(seed, replace(spec, laid=laid))
            assert [c.face for c in part.cards] == [c.face for c in whole.cards[:laid]]
            for mine, theirs in zip(part.cards, whole.cards, strict=False):
                np.testing.assert_array_equal(mine.corners, theirs.corners)
            away = _outside([c.corners for c in whole.cards[laid:]], whole.image.shape)
            difference = np.abs(part.image.astype(int) - whole.image.astype(int)).max(axis=2)
            assert np.percentile(difference[away], 99.9) <= 2  # the same picture there, up to JPEG's rounding
            assert difference[~away].mean() > 5  # and the cards not yet laid are not there
