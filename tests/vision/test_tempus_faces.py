"""A Tempus line read among the faces of a Tempus deck, which holds no Wild cards."""

import pytest

from models.synth.scenes import SceneSpec, render_scene
from vision.cards.artwork import CardFace
from vision.cards.classify import CardClassifier
from vision.cards.lines import TEMPUS_FACES, as_tempus_cards
from vision.cards.recognize import Card

STARTER = CardFace("starter", (3,))
SURE = 0.7


@pytest.fixture(scope="module")
def starters() -> list:
    """Held-out scenes of Starters only: the "3." the open reading can take for the Wild "3/8"."""
    return [render_scene(90_000_000 + seed, SceneSpec(split="heldout", faces=(STARTER,) * 6)) for seed in range(30)]


@pytest.fixture(scope="module")
def classifier() -> CardClassifier:
    return CardClassifier.shipped()


def test_read_among_tempus_faces_the_starters_come_out_right_more_often(starters, classifier) -> None:
    opened = restricted = wild = 0
    for scene in starters:
        quads = [card.corners for card in scene.cards]
        free_readings = classifier.read(scene.image, quads)
        for free, tempus in zip(free_readings, classifier.read(scene.image, quads, faces=TEMPUS_FACES), strict=True):
            opened += free is not None and free.face == STARTER and free.confidence >= SURE
            restricted += tempus is not None and tempus.face == STARTER and tempus.confidence >= SURE
            wild += free is not None and free.face.kind == "wild"
            assert tempus is None or tempus.face in TEMPUS_FACES
    assert restricted >= opened
    assert restricted > opened or wild == 0
    assert restricted >= 0.95 * sum(len(scene.cards) for scene in starters)


def test_only_the_cards_read_as_wilds_are_read_again(starters, classifier) -> None:
    scene = starters[0]
    wilds = [Card(CardFace("wild", (3, 8)), card.corners, 0.9) for card in scene.cards[:3]]
    kept = [Card(CardFace("digit", (8,)), card.corners, 0.9) for card in scene.cards[3:]]
    out = as_tempus_cards(classifier, scene.image, wilds + kept)
    assert out[3:] == kept  # the same objects, untouched
    assert all(card.face == STARTER for card in out[:3])
