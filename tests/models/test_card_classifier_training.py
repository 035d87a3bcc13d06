"""The fine-tuning crops of the card classifier: labels that agree with what the crops show."""

import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.finetune_cards import LOCATED_SEED, card_free_crops, located_crops, thinned
from models.synth.scenes import SceneSpec, _draw_streak, render_scene, split_fonts
from vision.cards.artwork import DARK_PAPER_SHARE, FACE_CLASSES, CardFace, decko_style, random_style
from vision.cards.classify import N_CLASSES, NOT_CARD, CardClassifier


def test_located_crops_are_labelled_as_the_shipped_classifier_reads_them() -> None:
    """Half the cards' crops are half-turned: a label that did not turn with its crop would disagree."""
    classifier = CardClassifier()
    agree = faces = 0
    for seed in range(LOCATED_SEED, LOCATED_SEED + 4):
        crops, labels = located_crops(seed)
        cards = labels != NOT_CARD
        read = classifier.probabilities(list(crops[cards])).argmax(axis=1)
        agree += int((read == labels[cards]).sum())
        faces += int(cards.sum())
    assert faces >= 20 and agree >= 0.8 * faces


def test_card_free_crops_are_all_not_a_card() -> None:
    crops, labels = card_free_crops(41_000_001)  # a domino frame
    assert len(crops) > 0 and (labels == NOT_CARD).all()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, N_CLASSES - 1), max_size=60), st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_thinning_keeps_every_card_and_at_most_the_negatives_asked(labels: list[int], most: int, seed: int) -> None:
    y = np.array(labels, np.int64)
    x = np.arange(len(y))  # each sample's own index, to check which are kept
    kept_x, kept_y = thinned((x, y), most, np.random.default_rng(seed))
    assert (y[kept_x] == kept_y).all()
    assert (kept_y != NOT_CARD).sum() == (y != NOT_CARD).sum()
    assert (kept_y == NOT_CARD).sum() == min(most, (y == NOT_CARD).sum())


@settings(max_examples=40, deadline=None)
@given(st.tuples(*[st.integers(0, 200)] * 3), st.integers(0, 2**32 - 1))
def test_an_inked_sash_is_the_ink_lightened_at_most_half_way_and_nearly_solid(ink: tuple, seed: int) -> None:
    art = np.full((90, 60, 4), 255.0, np.float32)
    _draw_streak(random.Random(seed), art, ink)
    darkest = art[..., :3].reshape(-1, 3)[np.argmin(art[..., :3].sum(axis=2))]
    # Over white, a sash of ink lightened by l and laid at opacity a leaves 255 - a (1 - l) (255 - ink).
    depth = (255.0 - darkest) / (255.0 - np.array(ink, np.float32))
    assert np.ptp(depth) < 0.02  # the ink's own hue
    assert 0.37 <= depth.mean() <= 1.0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_dark_paper_share_sets_how_often_a_design_is_dark(seed: int) -> None:
    fonts = split_fonts("train")
    default = random_style(random.Random(seed), fonts)
    assert random_style(random.Random(seed), fonts, dark_share=DARK_PAPER_SHARE) == default
    assert sum(random_style(random.Random(seed), fonts, dark_share=1.0).paper) < 300
    assert sum(random_style(random.Random(seed), fonts, dark_share=0.0).paper) >= 300


@pytest.mark.parametrize("deck", ["random", "one design", "the kit's"])
def test_wilds_printed_every_way_change_only_the_wilds(deck: str) -> None:
    """`varied_wilds` draws from a stream of its own: a scene without Wilds renders the same with it, and scenes
    of Wilds print some of them otherwise (high digit first, or as one pair of numerals), a given design's too."""
    changes = {"random": {}, "one design": {"one_deck_style": True}, "the kit's": {"deck_style": decko_style()}}[deck]
    digits = tuple(face for face in FACE_CLASSES if face.kind == "digit")[:6]
    wilds = tuple(face for face in FACE_CLASSES if face.kind == "wild")
    for faces in (digits, wilds):
        same = []
        for seed in range(3):
            spec = SceneSpec(split="train", faces=faces, **changes)
            plain = render_scene(seed, spec)
            varied = render_scene(seed, replace(spec, varied_wilds=True))
            same.append(np.array_equal(plain.image, varied.image))
        if faces == digits:
            assert all(same)
        else:  # one design's Wilds may be drawn as it prints them (a chance in six a scene); five designs hardly
            assert not (all(same) if changes else any(same)), same


@pytest.mark.parametrize("deck", ["random", "one design"])
def test_indices_alone_print_sixes_and_nines_otherwise(deck: str) -> None:
    """`index_only` draws from a stream of its own: the cards lie where they lay, and 6s and 9s are printed
    otherwise (the underline gone, an index top left or in both corners)."""
    changes = {"random": {}, "one design": {"one_deck_style": True}}[deck]
    sixes_nines = (CardFace("digit", (6,)), CardFace("digit", (9,))) * 3
    same = []
    for seed in range(4):
        spec = SceneSpec(split="train", faces=sixes_nines, **changes)
        plain = render_scene(seed, spec)
        marked = render_scene(seed, replace(spec, index_only=True))
        same.append(np.array_equal(plain.image, marked.image))
        assert [c.corners.tolist() for c in plain.cards] == [c.corners.tolist() for c in marked.cards]
    # One design may already print so and be drawn so again (a scene in twelve); six designs hardly.
    assert not (all(same) if changes else any(same)), same
    # The kit's design printed with one index top left and no underline already: the stream picks that print
    # (the scene the same, pixel for pixel) or indices in both corners, once a scene.
    one_index = replace(decko_style(), corner_index="top_left", underline=False)
    same = []
    for seed in range(6):
        spec = SceneSpec(split="train", faces=sixes_nines, deck_style=one_index)
        same.append(
            np.array_equal(render_scene(seed, spec).image, render_scene(seed, replace(spec, index_only=True)).image)
        )
    assert any(same) and not all(same), same


def test_corner_marks_come_from_a_stream_of_their_own() -> None:
    """Marks change the designs' corners only: the cards lie where they lay, in the same designs otherwise."""
    spec = SceneSpec(split="train", faces=(CardFace("digit", (6,)), CardFace("digit", (9,))) * 3)
    for seed in range(3):
        plain, marked = render_scene(seed, spec), render_scene(seed, replace(spec, corner_marks=1.0))
        assert [c.corners.tolist() for c in plain.cards] == [c.corners.tolist() for c in marked.cards]
        for p, m in zip(plain.cards, marked.cards, strict=True):
            assert m.style.corner_mark and m.style == replace(p.style, corner_mark=m.style.corner_mark)
        assert not np.array_equal(plain.image, marked.image)
