"""The corner-index check (vision/cards/index.py): where it looks, what it decides, and what it reads."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from models.synth.scenes import SceneSpec, card_outline_mm, paste_art, render_scene
from models.train_card_index import corner_labels
from vision.cards.artwork import CardFace, decko_style, draw_card
from vision.cards.index import NINE, OVERRULE_BELOW, SIX, IndexReader, index_crops, told_by_index
from vision.cards.recognize import Card
from vision.geometry import from_corner

INDEX_SEED = 50_001_000  # the held-out 6s and 9s of tests/vision/test_cards.py, printed with indices alone


def _card_photo(face: CardFace, corner_index: str, angle: float, mark: str = "") -> tuple[np.ndarray, np.ndarray]:
    """The print-and-play design's `face` on a grey table, turned by `angle`, with no underline."""
    style = replace(decko_style(), corner_index=corner_index, underline=False, ornament="none", corner_mark=mark)
    art = np.asarray(draw_card(face, style, height_px=300), np.float32)
    quad = (card_outline_mm(np.array([320.0, 240.0]), angle, scale=3.2)).astype(np.float32)
    image = np.full((480, 640, 3), 110, np.float32)
    paste_art(image, art, quad)
    return image.astype(np.uint8), quad


@pytest.mark.parametrize("angle", [0.0, 0.7, math.pi / 2, 2.5, -2.0])
def test_both_corners_are_cropped_upright_as_their_own_index(angle: float) -> None:
    """With an index in each of two opposite corners, the second turned half round, the two crops show the same
    upright index; turned half round, the card gives the same two crops swapped."""
    image, quad = _card_photo(SIX, "both", angle)
    top_left, bottom_right = index_crops(image, quad)
    ink = _ink(top_left)
    assert ink.sum() > 20 and abs(int(_ink(bottom_right).sum()) - int(ink.sum())) < 0.2 * ink.sum()
    assert np.abs(_centroid(_ink(bottom_right)) - _centroid(ink)).max() < 1.5
    turned = index_crops(image, from_corner(quad, 2))
    assert np.array_equal(turned[0], bottom_right) and np.array_equal(turned[1], top_left)
    blank, _ = _card_photo(SIX, "none", angle)
    assert all(_ink(crop).sum() < 3 for crop in index_crops(blank, quad))


def _ink(crop: np.ndarray) -> np.ndarray:
    """The design's orange ink (the only strongly coloured pixels on its cream paper and the grey table) about the
    index: the crop's far corner may take in the big numeral's edge."""
    return (crop[:26, :26].max(axis=2).astype(int) - crop[:26, :26].min(axis=2)) > 80


def _centroid(mask: np.ndarray) -> np.ndarray:
    return np.argwhere(mask).mean(axis=0)


probabilities = arrays(np.float64, (2, 3), elements=st.floats(0, 1)).map(
    lambda a: (a + 1e-9) / (a + 1e-9).sum(axis=1, keepdims=True)
)


@given(probabilities)
def test_six_and_nine_are_judged_alike(p: np.ndarray) -> None:
    """Swapping what the corners say of 6 and of 9 swaps the verdict."""
    swapped = {SIX: NINE, NINE: SIX, None: None}
    assert told_by_index(p[:, [0, 2, 1]]) == swapped[told_by_index(p)]


@given(probabilities, st.floats(0, 1))
def test_a_surer_six_never_loses_the_verdict(p: np.ndarray, share: float) -> None:
    """Moving some of a corner's 9 over to 6 never takes a 6 back, nor makes a 9 of what was not one."""
    surer = p.copy()
    surer[0, 1] += share * surer[0, 2]
    surer[0, 2] -= share * surer[0, 2]
    before, after = told_by_index(p), told_by_index(surer)
    assert before != SIX or after == SIX
    assert after != NINE or before == NINE


@given(probabilities.map(lambda p: p[0]))
def test_a_blank_corner_leaves_the_verdict_to_the_other(corner: np.ndarray) -> None:
    blank = np.array([1.0, 0.0, 0.0])
    assert told_by_index(np.stack([corner, blank])) == told_by_index(np.stack([blank, corner]))
    assert told_by_index(np.stack([blank, blank])) is None


def test_two_faint_indices_that_agree_decide() -> None:
    faint = np.array([0.35, 0.6, 0.05])
    assert told_by_index(np.stack([faint, faint])) == SIX
    assert told_by_index(np.stack([faint, [1.0, 0.0, 0.0]])) is None


def test_training_labels_name_the_index_printed_in_each_corner() -> None:
    scene = render_scene(INDEX_SEED, SceneSpec(split="heldout", faces=(SIX, NINE) * 3, index_only=True))
    for card in scene.cards:
        top_left, bottom_right = corner_labels(card)
        assert top_left == (1 if card.face == SIX else 2)
        assert bottom_right == (top_left if card.style.corner_index == "both" else 0)


@pytest.mark.parametrize("face", [SIX, NINE])
@pytest.mark.parametrize("corner_index", ["top_left", "both"])
def test_the_network_reads_a_clear_index(face: CardFace, corner_index: str) -> None:
    """A large, sharp print-and-play card, at five angles: its corner index read right and sure."""
    reader = IndexReader()
    for angle in (0.0, 0.7, math.pi / 2, 2.5, -2.0):
        image, quad = _card_photo(face, corner_index, angle)
        for turn in (0, 2):
            assert told_by_index(reader.probabilities(image, [from_corner(quad, turn)])[0]) == face


@pytest.mark.parametrize("mark", ["star", "dot", "A"])
def test_a_corner_mark_is_printed_where_an_index_would_be(mark: str) -> None:
    """A design's corner mark (the index network's training shows it marks that are not an index) lies in
    the corner regions the network reads."""
    image, quad = _card_photo(SIX, "none", 0.7, mark)
    assert all(_ink(crop).sum() > 20 for crop in index_crops(image, quad))


@pytest.mark.parametrize("confidence", [0.6, 0.99])
def test_an_unsure_reading_gives_way_to_the_index(confidence: float) -> None:
    """A 6 read as a 9 the classifier is unsure of is read as the index says, turned half round; a sure reading
    stands (OVERRULE_BELOW), and so does a card that is no 6 or 9."""
    image, quad = _card_photo(SIX, "both", 0.7)
    misread = Card(NINE, from_corner(quad, 2), confidence)
    other = Card(CardFace("digit", (8,)), quad, 0.6)
    settled, untouched = IndexReader().settled(image, [misread, other])
    assert untouched is other
    if confidence < OVERRULE_BELOW:
        assert settled.face == SIX and np.array_equal(settled.corners, quad)
    else:
        assert settled is misread
