import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.homography import TableHomography
from calibration.mat import MatLayout
from calibration.zones import (
    Zone,
    ZoneError,
    Zones,
    check_drawn_zone,
    drawn_zone,
    mat_zones,
    zone_from_pixels,
)

SQUARE = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))


def test_mat_zones_carry_players_and_purposes():
    zones = mat_zones()
    assert [z.name for z in zones] == ["lane-1", "lane-2", "lane-3", "lane-4", "pi", "sticks", "hand"]
    assert [z.player for z in zones] == [1, 2, 3, 4, None, None, None]
    assert [z.purpose for z in zones] == ["lane"] * 4 + ["pi", "sticks", "hand"]
    assert zones["sticks"].purpose == "sticks"
    with pytest.raises(KeyError):
        zones["lane-5"]


def test_zone_at_finds_each_printed_zone_by_its_centre():
    zones = mat_zones()
    for zone in zones:
        assert zones.zone_at(zone.center) is zone


def test_zone_at_is_none_outside_and_on_the_marker_band():
    zones = mat_zones()
    assert zones.zone_at((20.0, 20.0)) is None
    assert zones.zone_at((-5.0, 150.0)) is None
    assert zones.zone_at((1000.0, 1000.0)) is None


def test_borders_belong_to_the_zone():
    zone = Zone("a", SQUARE)
    assert zone.contains((0.0, 5.0))
    assert zone.contains((10.0, 10.0))
    assert zone.contains((5.0, 0.0))
    assert not zone.contains((10.000001, 5.0))


def test_a_later_zone_lies_on_top():
    lane = mat_zones()["lane-1"]
    x0, y0 = lane.polygon[0]
    drawn = Zone("corner", ((x0, y0), (x0 + 30, y0), (x0 + 30, y0 + 20), (x0, y0 + 20)), "user", 2)
    zones = mat_zones().with_zone(drawn)
    assert zones.zone_at((x0 + 10, y0 + 10)) == drawn
    assert zones.zone_at((x0 + 100, y0 + 10)).name == "lane-1"


def test_with_zone_replaces_a_zone_of_the_same_name():
    zones = mat_zones().with_zone(Zone("pi", SQUARE, "pi"))
    assert len(zones) == 7
    assert zones["pi"].polygon == SQUARE
    assert zones.zone_at((5.0, 5.0)).name == "pi"


def test_concave_user_zone():
    ell = Zone("ell", ((0, 0), (20, 0), (20, 5), (5, 5), (5, 20), (0, 20)))
    assert ell.contains((2, 15))
    assert ell.contains((15, 2))
    assert not ell.contains((15, 15))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "", "polygon": SQUARE}, "non-empty"),
        ({"name": "a", "polygon": SQUARE[:2]}, "at least 3"),
        ({"name": "a", "polygon": SQUARE, "purpose": "snacks"}, "purpose"),
        ({"name": "a", "polygon": SQUARE, "player": 0}, "player"),
    ],
)
def test_zone_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Zone(**kwargs)


def test_zone_names_are_unique():
    with pytest.raises(ValueError, match="duplicate zone names: a"):
        Zones([Zone("a", SQUARE), Zone("a", SQUARE)])


def test_zone_from_pixels_goes_through_the_homography():
    # 2 px per mm, table origin at pixel (100, 50).
    matrix = np.array([[0.5, 0, -50], [0, 0.5, -25], [0, 0, 1]])
    table = TableHomography(matrix, (1280, 720), (0, 1), 0.0)
    zone = zone_from_pixels("mine", np.array([[100, 50], [300, 50], [300, 150]]), table, player=3)
    assert zone.polygon == ((0.0, 0.0), (100.0, 0.0), (100.0, 50.0))
    assert zone.player == 3
    assert zone.purpose == "user"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.floats(-20, 440), st.floats(-20, 320))
def test_zone_at_agrees_with_the_printed_rectangles(x, y):
    rects = MatLayout().zone_rects
    hits = [n for n, (x0, y0, x1, y1) in rects.items() if x0 <= x <= x1 and y0 <= y <= y1]
    found = mat_zones().zone_at((x, y))
    if not hits:
        assert found is None
    else:
        assert found is not None and found.name == hits[-1]  # shared lane edges go to the later lane


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(st.floats(0.2, 1.0), st.floats(0, 1)), min_size=3, max_size=12),
    st.lists(st.tuples(st.floats(-1.2, 1.2), st.floats(-1.2, 1.2)), min_size=1, max_size=20),
)
def test_point_in_polygon_matches_opencv(spokes, points):
    # A star-shaped polygon (vertices sorted by angle) is simple, concave or not.
    angles = np.cumsum([a for _, a in spokes]) + 0.01
    angles = angles / angles[-1] * 2 * np.pi * 0.999
    polygon = tuple((float(r * np.cos(t)), float(r * np.sin(t))) for (r, _), t in zip(spokes, angles, strict=True))
    zone = Zone("star", polygon)
    contour = np.array(polygon, dtype=np.float32)
    for x, y in points:
        distance = cv2.pointPolygonTest(contour, (x, y), True)
        if abs(distance) > 1e-3:
            assert zone.contains((x, y)) == (distance > 0)


def _star(spokes, center=(210.0, 150.0), scale=100.0):
    """A simple polygon: vertices at increasing angles around a centre (concave or not)."""
    angles = np.cumsum([a for _, a in spokes]) + 0.01
    angles = angles / angles[-1] * 2 * np.pi * 0.999
    return [
        (center[0] + scale * r * np.cos(t), center[1] + scale * r * np.sin(t))
        for (r, _), t in zip(spokes, angles, strict=True)
    ]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.floats(0.3, 1.0), st.floats(0.2, 1)), min_size=3, max_size=10))
def test_a_simple_polygon_on_the_mat_is_a_good_zone(spokes):
    check_drawn_zone(drawn_zone("mine", _star(spokes)))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.floats(0.5, 1.0), st.floats(0.5, 1)), min_size=5, max_size=10), st.data())
def test_swapping_two_corners_of_a_convex_zone_makes_its_edges_cross(spokes, data):
    # On a circle: convex. (With four corners, swapping opposite ones only reverses the order.)
    corners = _star([(1.0, a) for _, a in spokes])
    i = data.draw(st.integers(0, len(corners) - 1))
    j = (i + data.draw(st.integers(2, len(corners) - 2))) % len(corners)  # not neighbours
    corners[i], corners[j] = corners[j], corners[i]
    with pytest.raises(ZoneError, match="cross"):
        check_drawn_zone(drawn_zone("bow", corners))


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ([(10, 10), (20, 10), (30, 10)], "area 0"),
        ([(10, 10), (15, 10), (15, 15), (10, 15)], "area 25"),
        ([(400, 10), (430, 10), (430, 50)], "corner 2 .* off the 420 x 297 mm mat"),
        ([(10, -5), (50, 10), (10, 50)], "corner 1"),
        ([(10, 10), (50, float("nan")), (10, 50)], "finite"),
    ],
)
def test_bad_drawn_zones_say_what_is_wrong(corners, message):
    with pytest.raises(ZoneError, match=message):
        check_drawn_zone(drawn_zone("bad", corners))


def test_a_zone_clicked_just_past_the_mat_edge_is_kept():
    check_drawn_zone(drawn_zone("edge", [(-0.5, 0), (420.8, 0), (420.8, 100)]))


def test_drawn_zone_names_say_purpose_and_player():
    assert (drawn_zone("lane-3", SQUARE).purpose, drawn_zone("lane-3", SQUARE).player) == ("lane", 3)
    assert drawn_zone("sticks-2", SQUARE).purpose == "sticks"
    assert (drawn_zone("lane", SQUARE).purpose, drawn_zone("north", SQUARE).player) == ("user", None)
    assert drawn_zone("lane-0", SQUARE).purpose == "user"
    assert drawn_zone("north", SQUARE, "lane", 2).player == 2
    with pytest.raises(ZoneError, match="at least 3"):
        drawn_zone("a", SQUARE[:2])


@pytest.mark.parametrize(("count", "across"), [(2, 88 + 6), (3, 63)])
def test_race_lanes_hold_a_card_on_the_mat_clear_of_the_markers(count, across):
    layout = MatLayout(lanes=count, race=True)
    lanes = list(mat_zones(layout))
    assert [(z.name, z.purpose, z.player) for z in lanes] == [(f"lane-{i}", "lane", i) for i in range(1, count + 1)]
    for zone in lanes:
        check_drawn_zone(zone, layout)
        xs, ys = zip(*zone.polygon, strict=True)
        assert max(ys) - min(ys) >= across and max(xs) - min(xs) >= 4 * 63
        for marker in layout.markers:
            x0, y0 = marker.corners.min(axis=0)
            x1, y1 = marker.corners.max(axis=0)
            assert max(xs) <= x0 or min(xs) >= x1 or max(ys) <= y0 or min(ys) >= y1, marker.id
    assert Zones(lanes)  # distinct names
