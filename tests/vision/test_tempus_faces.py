"""A Tempus line read among the faces of a Tempus deck, which holds no Wild cards."""

import numpy as np
import pytest

from models.synth.scenes import SceneSpec, render_scene
from models.train_cards import training_spec
from vision.cards.artwork import CardFace
from vision.cards.classify import CardClassifier
from vision.cards.lines import (
    TEMPUS_FACES,
    as_tempus_cards,
    holes_filled,
    read_as_laid,
    read_from_neighbours,
    read_line,
)
from vision.cards.recognize import Card
from vision.geometry import from_corner

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


def test_a_wild_the_classifier_doubts_is_a_card_still_takes_a_tempus_face(starters, classifier) -> None:
    """Cards read as Wilds on outlines half off them, where the classifier sees more table than card: a Tempus
    deck holds no Wild, so each comes back as its likeliest Tempus face, never as the Wild."""
    doubted = 0
    for scene in starters[:5]:
        for card in scene.cards:
            off = card.corners + 0.55 * (card.corners[1] - card.corners[0])  # slid over half a width
            wild = Card(CardFace("wild", (3, 8)), off.astype(np.float32), 0.5)
            doubted += classifier.read(scene.image, [off], faces=TEMPUS_FACES)[0] is None
            (out,) = as_tempus_cards(classifier, scene.image, [wild])
            assert out.face in TEMPUS_FACES
    assert doubted >= 3  # the case exists: outlines the classifier takes for no card


@pytest.fixture(scope="module")
def rows() -> list:
    """Held-out Tempus rows and grids of digits after the Starter, one deck design each."""
    scenes = []
    for seed in range(40):
        spec = training_spec(70_500_000 + seed, split="heldout")
        if spec.faces is not None:
            scenes.append(render_scene(70_500_000 + seed, spec))
    return scenes


def test_a_card_read_the_other_way_up_from_its_line_is_read_as_laid(rows, classifier) -> None:
    """One card of each line given as read half-turned (its outline's corners turned two places, its face
    what the classifier reads that way up): read as the line lies, it comes back right; the rest stay."""
    restored = changed = 0
    for scene in rows:
        cards = [Card(truth.face, truth.corners, 1.0) for truth in scene.cards]
        k = len(cards) // 2
        turned = from_corner(cards[k].corners, 2)
        misread = classifier.read(scene.image, [turned], faces=TEMPUS_FACES, either_way=False)[0]
        cards[k] = Card(misread.face if misread else cards[k].face, turned, 0.5)
        line = read_as_laid(classifier, scene.image, read_line(cards))
        faces = [line.starter.face, *(card.face for card in line.cards)]
        restored += faces[k] == scene.cards[k].face
        changed += sum(a != b.face for i, (a, b) in enumerate(zip(faces, scene.cards, strict=True)) if i != k)
    assert len(rows) >= 10
    assert restored >= 0.9 * len(rows)
    assert changed <= 1


def test_a_card_missing_inside_a_line_is_found_in_its_hole(rows, classifier) -> None:
    """Each line given whole but for one card inside it (in the middle of the laying order): the hole it
    leaves is read, and the card comes back right; a whole line gains nothing."""
    found = 0
    for scene in rows:
        cards = [Card(truth.face, truth.corners, 1.0) for truth in scene.cards]
        whole = read_line(cards)
        assert holes_filled(classifier, scene.image, whole) is whole
        k = len(cards) // 2
        line = holes_filled(classifier, scene.image, read_line(cards[:k] + cards[k + 1 :]))
        found += [line.starter.face, *(card.face for card in line.cards)] == [truth.face for truth in scene.cards]
    assert found >= 0.7 * len(rows)


def test_an_unsure_card_is_read_again_where_its_neighbours_put_it(rows, classifier) -> None:
    """One card of each line given unsure, as a wrong digit, on an outline a fifth too large and a little off:
    read again where the cards before and after it put it, it comes back right."""
    restored = 0
    for scene in rows:
        cards = [Card(truth.face, truth.corners, 1.0) for truth in scene.cards]
        k = len(cards) // 2
        loose = (
            1.2 * (cards[k].corners - cards[k].center)
            + cards[k].center
            + 0.1 * (cards[k].corners[1] - cards[k].corners[0])
        )
        wrong = CardFace("digit", ((cards[k].face.digits[0] + 1) % 10,))
        cards[k] = Card(wrong, loose.astype(np.float32), 0.5)
        line = read_from_neighbours(classifier, scene.image, read_line(cards))
        restored += [line.starter.face, *(card.face for card in line.cards)] == [truth.face for truth in scene.cards]
    assert restored >= 0.8 * len(rows)
