"""The card evaluation's Tempus-line figure: a line counts only when read whole and in order."""

import functools

from models.evaluate import line_read_exactly
from models.synth.scenes import SceneSpec, render_scene
from vision.cards.artwork import CardFace
from vision.cards.lines import read_line
from vision.cards.recognize import Card

LINE = (CardFace("starter", (3,)), *(CardFace("digit", (d,)) for d in (1, 4, 1, 5, 9)))


def _scene():
    return render_scene(20_000_001, SceneSpec(split="heldout", layout="row", faces=LINE, one_deck_style=True))


def test_the_laid_line_read_back_whole_is_exact() -> None:
    scene = _scene()
    cards = [Card(truth.face, truth.corners, 1.0) for truth in scene.cards]
    assert line_read_exactly(scene, functools.partial(read_line, cards[::-1]))  # the order is the table's


def test_a_missed_or_misread_card_or_no_starter_is_not_exact() -> None:
    scene = _scene()
    cards = [Card(truth.face, truth.corners, 1.0) for truth in scene.cards]
    misread = [*cards[:2], Card(CardFace("digit", (7,)), cards[2].corners, 1.0), *cards[3:]]
    for read in (cards[:3] + cards[4:], misread, cards[1:]):
        assert not line_read_exactly(scene, functools.partial(read_line, read))
