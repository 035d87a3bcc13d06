"""Quad geometry shared by the recognisers."""

import math

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.geometry import (
    centres_inside,
    from_corner,
    landscape,
    order_clockwise,
    point_in_quad,
    rectangle_tilt,
    side_lengths,
    tilts_kept,
    turned,
    turned_back,
)


@st.composite
def convex_quads(draw: st.DrawFn) -> np.ndarray:
    """A rectangle turned and squashed by a random affine map: convex, either winding."""
    cx, cy = draw(st.floats(-50, 50)), draw(st.floats(-50, 50))
    w, h = draw(st.floats(2, 60)), draw(st.floats(2, 60))
    angle, shear = draw(st.floats(0, 2 * math.pi)), draw(st.floats(-0.8, 0.8))
    box = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 @ np.array([[1, shear], [0, 1]])
    c, s = math.cos(angle), math.sin(angle)
    quad = box @ np.array([[c, s], [-s, c]]) + (cx, cy)
    return quad[::-1] if draw(st.booleans()) else quad


@settings(max_examples=60)
@given(st.lists(convex_quads(), min_size=1, max_size=6))
def test_centres_inside_agrees_with_the_one_point_test(quads: list[np.ndarray]) -> None:
    inside = centres_inside(quads)
    for i, a in enumerate(quads):
        for j, b in enumerate(quads):
            centre = a.mean(axis=0)
            # Points within a hair of an edge may go either way (the one-point test works in float32).
            margin = abs(_signed_distance(centre, b))
            if i != j and margin > 1e-3:
                assert inside[i, j] == point_in_quad(centre, b)
        assert not inside[i, i]


def _signed_distance(point: np.ndarray, quad: np.ndarray) -> float:
    return cv2.pointPolygonTest(quad.astype(np.float32), (float(point[0]), float(point[1])), True)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(1, 39), st.data())
def test_a_portrait_frame_turns_to_landscape_and_its_points_turn_back(height: int, width: int, data) -> None:
    width = min(width, height - 1)  # portrait: taller than wide
    image = np.random.default_rng(height * 41 + width).integers(0, 255, (height, width, 3), np.uint8)
    turned_image, portrait_height = landscape(image)
    assert portrait_height == height and turned_image.shape == (width, height, 3)
    x, y = data.draw(st.integers(0, width - 1)), data.draw(st.integers(0, height - 1))
    tx, ty = turned(np.array([x, y]), height)
    assert (turned_image[ty, tx] == image[y, x]).all()
    assert turned_back(np.array([[tx, ty]]), height).tolist() == [[x, y]]


def test_a_landscape_frame_is_left_as_it_is() -> None:
    image = np.zeros((20, 30, 3), np.uint8)
    same, portrait_height = landscape(image)
    assert same is image and portrait_height is None


@settings(max_examples=60)
@given(convex_quads(), st.integers(-8, 8))
def test_an_outline_from_another_corner_keeps_its_turn_and_sides(quad: np.ndarray, k: int) -> None:
    turned_quad = from_corner(quad, k)
    assert np.array_equal(turned_quad, np.roll(quad, -k, axis=0))
    assert np.allclose(np.sort(side_lengths(turned_quad)), np.sort(side_lengths(quad)))


@settings(max_examples=60)
@given(convex_quads())
def test_clockwise_order_starts_top_left_and_turns_clockwise(quad: np.ndarray) -> None:
    ordered = order_clockwise(quad).astype(np.float64)
    assert int(np.argmin(ordered.sum(axis=1))) == 0
    edges = from_corner(ordered, 1) - ordered
    following = from_corner(edges, 1)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    assert (turns >= -1e-3 * np.abs(edges).max() ** 2).all()  # y down: clockwise on screen turns positive


def test_a_tilt_asked_again_within_a_frame_is_the_answer_kept_and_other_outlines_get_their_own() -> None:
    """Within `tilts_kept` (a frame, for the card reader) `rectangle_tilt` answers the same outlines, frame size
    and aspect as before; outside it, anew."""
    rng = np.random.default_rng(0)
    cards = rng.uniform(100, 600, (5, 1, 2)) + np.array([[0, 0], [40, 0], [40, 56], [0, 56]])
    squashed = cards * (1, 0.6)  # the same cards seen steeper
    with tilts_kept():
        tilt, plane = rectangle_tilt(cards, (1280, 720), 1.4)
        assert rectangle_tilt(cards.copy(), (1280, 720), 1.4)[1] is plane
        assert not plane.flags.writeable  # kept: no caller may change it
        steeper, other = rectangle_tilt(squashed, (1280, 720), 1.4)
        assert abs(steeper) > abs(tilt) and other is not plane
        assert rectangle_tilt(squashed, (1280, 720), 2.0)[1] is not other
        assert rectangle_tilt(cards, (1280, 720), 1.4)[1] is plane
    again = rectangle_tilt(cards, (1280, 720), 1.4)
    assert again[0] == tilt and again[1] is not plane and np.array_equal(again[1], plane)
