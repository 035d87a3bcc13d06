import itertools

import cv2
import numpy as np
import pytest

from calibration.homography import detect_markers
from calibration.mat import A4_MM, MatLayout, marker_layout, render_mat, render_mat_tiles

DPI = 100
SCALE = DPI / 25.4


def _bgr(image):
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


def _overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_default_mat_has_ten_markers_with_unique_ids_inside_the_sheet():
    layout = MatLayout()
    markers = marker_layout(layout)
    assert sorted(markers) == list(range(10))
    for corners in markers.values():
        assert corners.shape == (4, 2)
        assert corners.min() >= layout.margin_mm - 1e-9
        assert corners[:, 0].max() <= layout.width_mm - layout.margin_mm + 1e-9
        assert corners[:, 1].max() <= layout.height_mm - layout.margin_mm + 1e-9
        side = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        assert np.allclose(side, layout.marker_mm)


def test_markers_and_zones_never_overlap():
    layout = MatLayout()
    boxes = [(m.x, m.y, m.x + m.size, m.y + m.size) for m in layout.markers]
    rects = list(layout.zone_rects.values())
    for i, a in enumerate(boxes + rects):
        for b in (boxes + rects)[i + 1 :]:
            assert not _overlaps(a, b) or (a in rects and b in rects and _touch_only(a, b))


def _touch_only(a, b):
    # Lanes share an edge; the overlap of two rectangles that only touch has zero area.
    return min(a[2], b[2]) - max(a[0], b[0]) <= 1e-9 or min(a[3], b[3]) - max(a[1], b[1]) <= 1e-9


@pytest.mark.parametrize("lanes", [2, 3, 4])
def test_zone_names(lanes):
    names = list(MatLayout(lanes=lanes).zone_rects)
    assert names == [f"lane-{i}" for i in range(1, lanes + 1)] + ["pi", "sticks", "hand"]


@pytest.mark.parametrize("lanes", [1, 5])
def test_lane_count_is_checked(lanes):
    with pytest.raises(ValueError, match="lanes"):
        MatLayout(lanes=lanes)


def test_rendered_markers_sit_where_the_layout_says():
    image = render_mat(dpi=DPI)
    assert image.size == (round(420 * SCALE), round(297 * SCALE))
    found = detect_markers(_bgr(image))
    assert sorted(found.ids.tolist()) == list(range(10))
    layout = marker_layout()
    for marker_id, corners in zip(found.ids, found.corners, strict=True):
        # Cells are painted between rounded pixel edges; OpenCV puts pixel centres at integers.
        expected = np.round(layout[int(marker_id)] * SCALE) - 0.5
        assert np.abs(corners - expected).max() < 0.25


def test_zone_outlines_are_printed_and_interiors_left_blank():
    image = np.asarray(render_mat(dpi=DPI).convert("L"))
    for x0, y0, x1, y1 in MatLayout().zone_rects.values():
        assert image[round((y0 + y1) / 2 * SCALE), round(x0 * SCALE)] < 230
        assert image[round((y0 + y1) / 2 * SCALE), round((x0 + x1) / 2 * SCALE)] == 255


def test_a4_tiles_join_into_the_whole_mat():
    pages = render_mat_tiles(dpi=DPI)
    assert [p.size for p in pages] == [(round(A4_MM[0] * SCALE), round(A4_MM[1] * SCALE))] * 2
    joined = np.hstack([np.asarray(p) for p in pages])
    whole = np.asarray(render_mat(dpi=DPI))
    assert joined.shape == whole.shape
    differs = np.any(joined != whole, axis=2)
    assert 0 < differs.mean() < 0.002  # only the alignment ticks
    assert sorted(detect_markers(_bgr(joined)).ids.tolist()) == list(range(10))


def test_a4_tick_marks_meet_across_the_join():
    left, right = (np.asarray(p.convert("L")) for p in render_mat_tiles(dpi=DPI))
    left_rows = np.flatnonzero(left[:, -2] < 250)
    right_rows = np.flatnonzero(right[:, 1] < 250)
    assert len(left_rows) > 0
    assert np.array_equal(left_rows, right_rows)


def test_tiling_refuses_to_split_a_marker():
    with pytest.raises(ValueError, match="straddles"):
        render_mat_tiles(dpi=20, sheet_mm=(140.0, 297.0))


@pytest.mark.parametrize("lanes", [2, 3])
def test_race_mat_prints_the_same_markers_and_only_lanes_apart(lanes):
    race = MatLayout(lanes=lanes, race=True)
    assert race.markers == MatLayout().markers  # one calibration serves either print
    rects = list(race.zone_rects.values())
    assert list(race.zone_rects) == [f"lane-{i}" for i in range(1, lanes + 1)]
    for a, b in itertools.pairwise(rects):
        assert b[1] - a[3] > 0  # a gap: a card is never half in two lanes
    found = detect_markers(_bgr(render_mat(race, dpi=DPI)))
    assert sorted(found.ids.tolist()) == list(range(10))


def test_race_lanes_narrower_than_a_card_are_refused():
    with pytest.raises(ValueError, match="narrower than a card"):
        MatLayout(lanes=4, race=True)
