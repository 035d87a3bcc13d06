"""The card recogniser on seeded held-out renders: fonts, designs and tables that training never used."""

import numpy as np
import pytest

from models.evaluate import CardScore, evaluate_cards, score_scene
from models.synth.scenes import SceneSpec, render_scene
from vision.cards.artwork import CardFace
from vision.cards.classify import Reading
from vision.cards.recognize import CardRecognizer, select_cards

# The README's held-out set: read once per test run, judged three ways.
HELDOUT_SCENES, HELDOUT_FIRST_SEED = 120, 20_000_000
HELDOUT_SEED = 50_000_000  # other held-out renders for the focused tests below
READ_RIGHT_WHEN_FOUND = 0.98
RECALL_FLOOR = 0.65  # measured 67.5 % with the committed models


@pytest.fixture(scope="module")
def recognizer() -> CardRecognizer:
    return CardRecognizer()


@pytest.fixture(scope="module")
def heldout(recognizer: CardRecognizer) -> CardScore:
    return evaluate_cards(HELDOUT_SCENES, HELDOUT_FIRST_SEED, recognizer, quiet=True)


def test_what_it_reports_is_right(heldout: CardScore) -> None:
    assert heldout.cards >= 300
    assert heldout.read_right / heldout.found >= READ_RIGHT_WHEN_FOUND, heldout.confusions
    assert heldout.false_rate < 0.01, heldout.confusions


def test_finds_at_least_what_it_found_when_last_measured(heldout: CardScore) -> None:
    assert heldout.found / heldout.cards >= RECALL_FLOOR, heldout.confusions


@pytest.mark.xfail(reason="recall on held-out renders is 67.5 %: touching cards and busy tables are missed (issue 2)")
def test_meets_the_issue_bar(heldout: CardScore) -> None:
    assert heldout.accuracy >= 0.995, heldout.confusions


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


def test_the_play_mat_alone_has_no_cards(recognizer: CardRecognizer) -> None:
    """People play on the mat: its ArUco markers and zone lines must never read as digits."""
    from calibration.evaluate import mat_views

    assert sum(len(recognizer(view.frame)) for view in mat_views(12, seed=90_000)) == 0
