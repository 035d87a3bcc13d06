"""The bench's clips are one scene each, filmed as it is laid: the same table, camera and cards (or tiles) in
every frame, each card or tile from the frame it is laid in."""

from dataclasses import replace

import cv2
import numpy as np

from models.synth.dominoes import render_dominoes
from models.synth.samples import SAMPLE_SCENES, domino_scenes
from models.synth.scenes import SceneSpec, render_scene

MARGIN = 24  # px: a card's shadow, the blur and JPEG's 16 px blocks reach past its outline


def _outside(quads: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return cv2.dilate(mask, np.ones((2 * MARGIN + 1, 2 * MARGIN + 1), np.uint8)) == 0


def _assert_laid_in_part(part: np.ndarray, whole: np.ndarray, laid: list, every: list) -> None:
    """The partial render's objects `laid` are the whole render's first ones (`every`), in place, and its
    picture is the whole one's but where the objects not yet laid lie."""
    for mine, theirs in zip(laid, every, strict=False):
        np.testing.assert_array_equal(mine.corners, theirs.corners)
    away = _outside([thing.corners for thing in every[len(laid) :]], whole.shape)
    difference = np.abs(part.astype(int) - whole.astype(int)).max(axis=2)
    assert np.percentile(difference[away], 99.9) <= 2  # the same picture there, up to JPEG's rounding
    assert difference[~away].mean() > 5  # and what is not yet laid is not there


def test_a_scene_laid_in_part_is_the_whole_scene_without_the_cards_not_yet_laid() -> None:
    for seed, spec in (SAMPLE_SCENES["tempus-row.jpg"], (5, SceneSpec(layout="row", n_cards=(6, 6)))):
        whole = render_scene(seed, spec)
        for laid in (1, 4):
            part = render_scene(seed, replace(spec, laid=laid))
            assert [c.face for c in part.cards] == [c.face for c in whole.cards[:laid]]
            _assert_laid_in_part(part.image, whole.image, part.cards, whole.cards)


def test_a_table_of_pis_laid_in_part_is_the_whole_table_without_the_tiles_not_yet_laid() -> None:
    seed, spec = domino_scenes()["dominoes-28.jpg"]
    whole = render_dominoes(seed, spec)
    for laid in (4, 12):
        part = render_dominoes(seed, replace(spec, laid=laid))
        assert [t.pips for t in part.tiles] == [t.pips for t in whole.tiles[:laid]]
        _assert_laid_in_part(part.image, whole.image, part.tiles, whole.tiles)


def test_a_table_with_some_tiles_shown_is_the_whole_table_without_the_others() -> None:
    """Any tiles of the layout, not only its first: the hand's tiles come and go as a game is filmed."""
    seed, spec = domino_scenes()["dominoes-28.jpg"]
    whole = render_dominoes(seed, spec)
    shown = (1, 5, 6, 20, 27)
    part = render_dominoes(seed, replace(spec, shown=shown))
    kept = [whole.tiles[i] for i in shown]
    assert [t.pips for t in part.tiles] == [t.pips for t in kept]
    others = [t for i, t in enumerate(whole.tiles) if i not in shown]
    _assert_laid_in_part(part.image, whole.image, part.tiles, kept + others)
