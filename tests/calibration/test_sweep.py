"""The lanes' free stretches swept for cards no look read (calibration/sweep.py)."""

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import calibration.sweep as sweep
from calibration.evaluate import race_lines, race_zones
from calibration.homography import TableHomography
from calibration.lanes import lanes_of
from calibration.mat import MatLayout
from calibration.sweep import APART, lane_aligned, lane_windows, swept_cards
from calibration.synth import race_view
from vision.cards.artwork import CARD_MM, CardFace
from vision.cards.classify import CardClassifier, Reading
from vision.cards.recognize import Card

LANES = lanes_of(race_zones())


@given(st.lists(st.floats(0, 330), max_size=6), st.sampled_from(LANES))
def test_windows_lie_on_the_lane_card_sized_and_clear_of_the_cards_taken(taken, lane):
    along, outlines = lane_windows(lane, taken)
    width, height = CARD_MM
    assert np.all(along >= width / 2 - 1e-9) and np.all(along <= lane.length - width / 2 + 1e-9)
    for t in taken:
        assert np.all(np.abs(along - t) >= APART * width)
    for t, outline in zip(along, outlines, strict=True):
        local = (outline - lane.start) @ np.column_stack([lane.along, lane.across])
        assert np.allclose(local.mean(axis=0), [t, 0.0])
        assert np.allclose(np.ptp(local, axis=0), [width, height])


def _view(seed: int, cards: int, sloppiness: float = 1.0):
    layout = MatLayout()
    view = race_view(seed, layout, LANES, race_lines(seed, len(LANES), cards), 45.0, sloppiness=sloppiness)
    table = TableHomography(np.linalg.inv(view.mm_to_px), (1280, 720), (), 0.0)
    laid = [Card(card.face, card.corners_px.astype(np.float32), 1.0) for row in view.lines for card in row]
    return view, table, laid


def _under(laid: list[Card], card: Card) -> Card | None:
    """The laid card whose outline holds `card`'s centre."""
    centre = tuple(map(float, card.center))
    return next((c for c in laid if cv2.pointPolygonTest(c.corners, centre, False) >= 0), None)


def test_a_card_left_unread_in_a_lane_is_found_and_read():
    """Each lane's line given but for one card (the Starter, then the second card, in turn): the sweep finds
    the one left out, on held-out designs, and reads it right."""
    classifier = CardClassifier.shipped()
    right = wrong = 0
    for seed in range(1000, 1012):
        view, table, laid = _view(seed, 3)
        left_out = [laid[(seed % 2) + 4 * lane] for lane in range(len(LANES))]
        found = swept_cards(classifier, view.frame, table, LANES, [c for c in laid if c not in left_out])
        for card in found:
            truth = _under(left_out, card)
            right += truth is not None and truth.face == card.face
            wrong += truth is None or truth.face != card.face
    assert right >= 20  # of 24
    assert wrong == 0


def test_empty_stretches_of_lane_give_no_card():
    """Lanes holding only their Starters, all read: the rest of each lane is bare mat, and nothing is found."""
    classifier = CardClassifier.shipped()
    found = []
    for seed in range(2000, 2012):
        view, table, laid = _view(seed, 0)
        found += swept_cards(classifier, view.frame, table, LANES, laid)
    assert found == []


def test_an_unsure_card_in_a_lane_is_read_again_on_the_lanes_outline():
    """Cards given on loose outlines (a fifth too large, a little off), read unsurely as a wrong digit: read
    again on the outline the lane gives them, they come back right. A sure reading is left as it is."""
    classifier = CardClassifier.shipped()
    right = total = 0
    for seed in range(1000, 1010):
        view, table, laid = _view(seed, 3)
        loose = [
            Card(
                CardFace("digit", (7,)), (1.2 * (c.corners - c.center) + c.center + [4.0, -3.0]).astype(np.float32), 0.5
            )
            for c in laid
        ]
        sure = Card(CardFace("digit", (7,)), laid[1].corners, 0.95)
        out = lane_aligned(classifier, view.frame, table, LANES, [*loose, sure])
        assert out[-1] is sure
        right += sum(card.face == truth.face for card, truth in zip(out, laid, strict=False))
        total += len(laid)
    assert right >= 0.9 * total


def _read_again_shifted(classifier: CardClassifier, shift_mm: float) -> int:
    """Over 10 race views, every card given on its outline moved `shift_mm` along its lane and read unsurely as
    a wrong digit: how many `lane_aligned` reads right."""
    right = 0
    for seed in range(1000, 1010):
        view, table, laid = _view(seed, 3)
        moved = []
        for card in laid:
            mm = table.pixel_to_mm(card.corners)
            lane = min(LANES, key=lambda lane: abs((mm.mean(axis=0) - lane.start) @ lane.across))
            outline = table.mm_to_pixel(mm + shift_mm * lane.along).astype(np.float32)
            moved.append(Card(CardFace("digit", (7,)), outline, 0.45))
        out = lane_aligned(classifier, view.frame, table, LANES, moved)
        right += sum(card.face == truth.face for card, truth in zip(out, laid, strict=True))
    return right


def test_an_unsure_card_read_off_along_its_lane_is_read_again_where_it_lies(monkeypatch):
    """Cards given 9 mm along the lane from where they lie (an outline grown over the mat's print), read
    unsurely as a wrong digit: the lane's outlines shifted along it find them; its outline at their centre
    alone reads far fewer right (65 of 80 when written, against 80)."""
    classifier = CardClassifier.shipped()
    shifted = _read_again_shifted(classifier, 9.0)
    monkeypatch.setattr(sweep, "ALIGN_SHIFTS_MM", (0.0,))
    centred = _read_again_shifted(classifier, 9.0)
    assert shifted >= 76  # of 80
    assert shifted >= centred + 8


def test_a_lane_reading_replaces_a_card_only_from_the_floor():
    """However unsure the card, a lane reading under ALIGN_MIN does not replace it."""
    view, table, laid = _view(1000, 3)

    class Unsure:
        def read(self, frame, quads, faces=None):
            return [Reading(CardFace("digit", (1,)), q, sweep.ALIGN_MIN - 0.05, False) for q in quads]

    cards = [Card(card.face, card.corners, 0.2) for card in laid]
    assert lane_aligned(Unsure(), view.frame, table, LANES, cards) == cards


def _left_out_found(classifier: CardClassifier, sloppiness: float) -> int:
    """Over 30 race views, one card of each lane left out of the cards given: how many the sweep reads right."""
    right = 0
    for seed in range(1000, 1030):
        view, table, laid = _view(seed, 3, sloppiness)
        left_out = [laid[(seed % 4) + 4 * lane] for lane in range(len(LANES))]
        for card in swept_cards(classifier, view.frame, table, LANES, [c for c in laid if c not in left_out]):
            truth = _under(left_out, card)
            right += truth is not None and truth.face == card.face
    return right


@pytest.mark.slow
def test_cards_laid_askew_are_found_by_turning_and_shifting_the_window(monkeypatch):
    """Cards laid five times as carelessly as usual (turned 8.6 degrees, 7.5 mm off the centre line, at one
    standard deviation): the nudged windows find more of the cards left out than the upright ones alone."""
    classifier = CardClassifier.shipped()
    nudged = _left_out_found(classifier, 5.0)
    monkeypatch.setattr(sweep, "NUDGED_MOST", 0)
    assert nudged > _left_out_found(classifier, 5.0)
    assert nudged >= 0.85 * 60
