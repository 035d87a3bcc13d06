"""Lines of the appending game (Decko Digits): the Starter and digits of pi with Wilds standing in, read in the
order laid as `judge append PHOTO` reads them, on seeded held-out renders."""

import random
from dataclasses import replace

import pytest

from models.evaluate import Laid, appending_line_spec, evaluate_cards
from models.synth.scenes import render_scene
from vision.cards.artwork import CardFace
from vision.cards.lines import read_appending_line
from vision.cards.recognize import CardRecognizer

APPENDING_SEED = 97_100_000  # held-out appending lines that no evaluation or other test reads
LINES_FLOOR = 0.85  # measured 115 of 120 lines exact (95.8 %) on seeds 6000000..
CARDS_FLOOR = 0.95


@pytest.fixture(scope="module")
def recognizer() -> CardRecognizer:
    return CardRecognizer()


def test_appending_lines_are_read_card_for_card_wilds_included(recognizer: CardRecognizer) -> None:
    score = evaluate_cards(30, APPENDING_SEED, recognizer, quiet=True, laid=Laid.APPENDING)
    assert score.lines == 30 and score.cards >= 300
    assert score.lines_exact / score.lines >= LINES_FLOOR, score.confusions
    assert score.accuracy >= CARDS_FLOOR and score.false_rate < 0.01, score.confusions


def test_a_starter_misread_as_the_wild_3_8_still_heads_the_line(recognizer: CardRecognizer) -> None:
    """The Wild 3/8 is a card of the game, so it cannot be read away; the stand-in heading the longest line is
    taken for the Starter, and a Wild 3/8 inside the line stays one."""
    seed = next(s for s in range(APPENDING_SEED, APPENDING_SEED + 50) if _has_wild_3_8(s))
    scene = render_scene(seed, appending_line_spec(random.Random(seed), "heldout"))
    truth = [card.face for card in scene.cards]
    cards = recognizer(scene.image)
    starter = next(i for i, card in enumerate(cards) if card.face.kind == "starter")
    misread = [replace(c, face=CardFace("wild", (3, 8))) if i == starter else c for i, c in enumerate(cards)]
    for read in (cards, misread):
        line = read_appending_line(recognizer.classifier, scene.image, read)
        assert [line.starter.face, *(c.face for c in line.cards)] == truth


def _has_wild_3_8(seed: int) -> bool:
    return CardFace("wild", (3, 8)) in appending_line_spec(random.Random(seed), "heldout").faces
