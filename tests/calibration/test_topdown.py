import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.evaluate import measure_lanes
from calibration.homography import TableHomography, mm_to_pixel
from calibration.mat import MatLayout
from calibration.synth import camera_homography
from calibration.topdown import TopDownView, off_markers, read_cards
from tests.server.test_tempus_lanes import race
from vision.cards.artwork import CARD_MM, CardFace
from vision.cards.recognize import SURE, Card, CardRecognizer


def _table(seed: int) -> TableHomography:
    pose = camera_homography(np.random.default_rng(seed), (420.0, 297.0))
    return TableHomography(np.linalg.inv(pose), (1280, 720), (), 0.0)


@pytest.mark.parametrize("margin", [0.0, 20.0])
def test_the_view_shows_each_table_point_where_it_says(margin):
    table = _table(12)
    point = np.array([[150.3, 201.7]])
    u, v = mm_to_pixel(table.matrix, point)[0]
    ys, xs = np.mgrid[0:720, 0:1280]
    frame = (255 * np.exp(-((xs - u) ** 2 + (ys - v) ** 2) / (2 * 3.0**2))).astype(np.float32)
    view = TopDownView(table, px_per_mm=2.0, margin_mm=margin)
    top = view.warp(frame)
    assert top.shape[:2] == (round((297 + 2 * margin) * 2), round((420 + 2 * margin) * 2)) == view.size[::-1]
    rows, cols = np.mgrid[0 : top.shape[0], 0 : top.shape[1]]
    centroid = np.array([(cols * top).sum(), (rows * top).sum()]) / top.sum()
    assert view.to_mm(centroid) == pytest.approx(point[0], abs=0.3)
    assert view.to_frame(centroid) == pytest.approx([u, v], abs=0.6)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 1000), st.floats(0.5, 4), st.floats(0, 50), st.floats(0, 1279), st.floats(0, 719))
def test_frame_and_view_points_map_back_and_forth(seed, px_per_mm, margin, x, y):
    view = TopDownView(_table(seed), px_per_mm, margin, MatLayout())
    point = np.array([x, y])
    assert view.to_frame(view.from_frame(point)) == pytest.approx(point, abs=1e-6)


def test_a_view_needs_a_positive_scale():
    with pytest.raises(ValueError, match="px_per_mm"):
        TopDownView(_table(0), px_per_mm=0)


def test_cards_read_both_ways_sit_where_they_were_laid():
    """Every card read (raw frame and top-down view merged) maps to a laid card's place and face."""
    recognizer = CardRecognizer()
    read = 0
    for seed in (24, 25):
        view, profile = race(seed)
        laid = [c for row in view.lines for c in row]
        for card in read_cards(recognizer, view.frame, TopDownView(profile.table)):
            center = profile.table.pixel_to_mm(card.corners).mean(axis=0)
            nearest = min(laid, key=lambda c: np.linalg.norm(c.corners_mm.mean(axis=0) - center))
            assert np.linalg.norm(nearest.corners_mm.mean(axis=0) - center) < 20.0  # a card is 63 x 88 mm
            assert nearest.face == card.face
            read += 1
    assert read >= 8


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 1000), st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.floats(0.3, 1.0))
def test_an_unsure_card_on_a_printed_marker_is_the_mats_print(seed, across, down, confidence):
    """A reading centred anywhere on one of the mat's markers stands only if sure; anywhere else it stands."""
    view = TopDownView(_table(seed))
    markers = view.layout.markers
    marker = markers[seed % len(markers)]
    on = np.array([marker.x + across * marker.size, marker.y + down * marker.size])
    off = np.array([view.layout.width_mm / 2, view.layout.height_mm / 2])  # the mat's middle: a zone, no marker
    half = np.array(CARD_MM) / 2
    cards = [
        Card(
            CardFace("starter", (3,)),
            view.table.mm_to_pixel(centre + half * [[-1, -1], [1, -1], [1, 1], [-1, 1]]),
            confidence,
        )
        for centre in (on, off)
    ]
    kept = off_markers(view, cards)
    assert (cards[0] in kept) == (confidence >= SURE)
    assert cards[1] in kept


@pytest.mark.slow
def test_reading_both_ways_finds_more_cards_than_the_raw_frame():
    """The figure behind `recognize --calibration` and `judge tempus --calibration` reading top-down too."""
    result = measure_lanes(40, seed=1000)
    assert result["mat_not_found"] == 0
    assert result["both"]["cards_read_right"] >= result["raw"]["cards_read_right"] + 0.05
    assert result["both"]["lanes_exact"] > result["raw"]["lanes_exact"]
    assert result["both"]["false_cards"] <= 2
