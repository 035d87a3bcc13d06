"""Cards lying face down beside the cards read (a deck beside a race, the appending game's Deck) and paper notes
written on by hand (a score sheet): the reader leaves out the backs and notes it would read as cards, and takes no
face for either, over held-out scenes (back patterns, fonts, hands, designs and tables the check never saw)."""

from models.evaluate import Laid, evaluate_cards
from vision.cards.recognize import CardRecognizer

FIRST_SEED = 97_800_000  # held-out scenes no other test renders
SCENES = 24


def test_backs_beside_the_cards_are_not_read_as_cards_over_held_out_scenes() -> None:
    with_check = evaluate_cards(SCENES, FIRST_SEED, quiet=True, laid=Laid.FACE_DOWN)
    without = evaluate_cards(SCENES, FIRST_SEED, CardRecognizer(backs=False), quiet=True, laid=Laid.FACE_DOWN)
    assert with_check.cards > 120
    assert without.false_detections >= 10, "too few backs read as cards for the scenes to test the check"
    assert with_check.false_rate <= 0.015, f"{with_check.false_detections} false readings, backs among them"
    assert with_check.read_right >= without.read_right - 1, "faces taken for backs"


def test_no_face_is_taken_for_a_back_where_every_card_lies_face_up() -> None:
    with_check = evaluate_cards(SCENES, FIRST_SEED, quiet=True)
    without = evaluate_cards(SCENES, FIRST_SEED, CardRecognizer(backs=False), quiet=True)
    assert with_check.read_right >= without.read_right - 1


def test_fewer_notes_written_on_beside_the_cards_are_read_as_cards_over_held_out_scenes() -> None:
    # Notes are read as cards more seldom than backs: twice the scenes (measured: 10 false without, 6 with).
    with_check = evaluate_cards(2 * SCENES, FIRST_SEED, quiet=True, prints=["written_notes"])
    without = evaluate_cards(2 * SCENES, FIRST_SEED, CardRecognizer(backs=False), quiet=True, prints=["written_notes"])
    assert without.false_detections >= 8, "too few notes read as cards for the scenes to test the check"
    assert with_check.false_detections <= without.false_detections - 3, "notes read as cards"
    assert with_check.read_right >= without.read_right - 1, "faces taken for notes"
