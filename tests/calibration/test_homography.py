import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.evaluate import SHEET_PX_PER_MM, known_points, mat_views, measure_accuracy
from calibration.homography import (
    HomographyTracker,
    Markers,
    MatNotFoundError,
    TableHomography,
    check_moved,
    detect_markers,
    estimate_homography,
    homography_from_markers,
    mm_to_pixel,
    pixel_to_mm,
)
from calibration.mat import MatLayout, marker_layout, render_mat
from calibration.synth import camera_homography, render_view


def _sheet():
    return cv2.cvtColor(np.asarray(render_mat(dpi=SHEET_PX_PER_MM * 25.4)), cv2.COLOR_RGB2BGR)


SHEET = _sheet()


def _view(mm_to_px, seed, occluders=None):
    return render_view(np.random.default_rng(seed), SHEET, SHEET_PX_PER_MM, mm_to_px, occluders)


def _pose(seed, max_tilt_deg=45.0):
    return camera_homography(np.random.default_rng(seed), (420.0, 297.0), max_tilt_deg=max_tilt_deg)


def _error_mm(found, mm_to_px):
    points = known_points()
    truth = cv2.perspectiveTransform(points.reshape(-1, 1, 2), mm_to_px).reshape(-1, 2)
    return np.linalg.norm(found.pixel_to_mm(truth) - points, axis=1).max()


def test_accuracy_on_rendered_mats():
    """The issue's bar on a seeded set: within 2 mm in at least 99% of frames, 0-2 markers covered.

    Kept to 40 frames so the default run stays fast; the slow test below runs 2000."""
    result = measure_accuracy(frames=40, seed=2024)
    assert result["not_found"] == 0
    assert result["within_tolerance"] >= 0.99
    assert result["median_error_mm"] < 0.5


def test_accuracy_over_no_frames_is_refused_plainly():
    with pytest.raises(ValueError, match="at least one frame"):
        measure_accuracy(frames=0)


@pytest.mark.slow
def test_accuracy_on_many_rendered_mats():
    result = measure_accuracy(frames=2000, seed=99)
    assert result["within_tolerance"] >= 0.99


def test_covered_markers_are_not_reported_and_the_fit_holds():
    covered_seen = 0
    for view in mat_views(12, seed=5):
        found = estimate_homography(view.frame)
        assert not set(view.covered) & set(found.marker_ids)
        assert _error_mm(found, view.mm_to_px) < 2.0
        assert found.error_mm < 2.0
        covered_seen += len(view.covered)
    assert covered_seen >= 6


def test_a_straight_down_view_finds_all_markers_precisely():
    pose = _pose(3, max_tilt_deg=0.0)
    found = estimate_homography(_view(pose, 3))
    assert found.marker_ids == tuple(range(10))
    assert found.image_size == (1280, 720)
    assert _error_mm(found, pose) < 0.5


def test_a_misplaced_marker_is_voted_out():
    pose = _pose(8)
    markers = detect_markers(_view(pose, 8))
    assert len(markers) == 10
    corners = markers.corners.copy()
    corners[0] += 25.0  # a marker reported 25 px away from where it lies (say, a loose printout)
    found = homography_from_markers(Markers(markers.ids, corners), (1280, 720))
    assert int(markers.ids[0]) not in found.marker_ids
    assert _error_mm(found, pose) < 1.0


def test_an_empty_table_has_no_mat():
    with pytest.raises(MatNotFoundError, match="found 0 mat marker"):
        estimate_homography(np.full((720, 1280, 3), 128, np.uint8))


def test_one_marker_is_not_enough():
    pose = _pose(4)
    markers = detect_markers(_view(pose, 4))
    one = Markers(markers.ids[:1], markers.corners[:1])
    with pytest.raises(MatNotFoundError, match="need at least 2"):
        homography_from_markers(one, (1280, 720))


def test_markers_of_another_dictionary_or_id_are_ignored():
    other = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    frame = np.full((400, 400), 255, np.uint8)
    frame[100:300, 100:300] = cv2.aruco.generateImageMarker(other, 42, 200)
    assert len(detect_markers(frame)) == 0
    assert len(detect_markers(frame, MatLayout())) == 0


def test_json_fields():
    pose = _pose(6)
    found = estimate_homography(_view(pose, 6))
    data = found.to_json()
    assert set(data) == {"homography", "image_size", "marker_ids", "error_mm"}
    assert np.array(data["homography"]).shape == (3, 3)
    assert data["image_size"] == [1280, 720]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.integers(0, 10_000),
    st.lists(st.tuples(st.floats(0, 420), st.floats(0, 297)), min_size=1, max_size=8),
)
def test_pixel_mm_round_trip(seed, points):
    matrix = np.linalg.inv(_pose(seed))
    points = np.array(points)
    table = TableHomography(matrix, (1280, 720), (), 0.0)
    assert np.allclose(table.pixel_to_mm(table.mm_to_pixel(points)), points, atol=1e-6)
    assert np.allclose(pixel_to_mm(matrix, mm_to_pixel(matrix, points)), points, atol=1e-6)


def _shifted(pose, dx, dy):
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]]) @ pose


def test_a_still_mat_is_not_flagged_even_with_a_hand_over_two_markers():
    pose = _pose(21)
    first = estimate_homography(_view(pose, 21))
    covers = [marker_layout()[i] for i in (0, 5)]
    check = check_moved(first, _view(pose, 22, covers))
    assert check.current is not None
    assert not check.moved
    assert check.shift_px < 1.5


def test_a_moved_camera_is_flagged_with_its_shift():
    pose = _pose(31)
    first = estimate_homography(_view(pose, 31))
    check = check_moved(first, _view(_shifted(pose, 8.0, -6.0), 32))
    assert check.moved
    assert check.shift_px == pytest.approx(10.0, abs=1.0)


def test_a_lost_mat_is_neither_moved_nor_still():
    pose = _pose(41)
    first = estimate_homography(_view(pose, 41))
    check = check_moved(first, np.zeros((720, 1280, 3), np.uint8))
    assert check.current is None
    assert not check.moved
    assert np.isnan(check.shift_px)


def test_tracker_rechecks_every_n_frames_and_follows_a_move():
    pose = _pose(51)
    still = [_view(pose, 100 + i) for i in range(3)]
    moved = _view(_shifted(pose, 20.0, 0.0), 200)
    tracker = HomographyTracker(every=2)
    checks = [tracker.update(frame) for frame in [still[0], still[1], still[2], still[0]]]
    assert [c is not None for c in checks] == [True, False, True, False]
    first = tracker.homography
    assert first is not None and not checks[2].moved
    assert tracker.update(moved) is not None
    assert tracker.last_check.moved
    assert tracker.homography is not first
    assert tracker.homography.shift_px(first) == pytest.approx(20.0, abs=1.5)


def test_tracker_waits_for_the_mat():
    tracker = HomographyTracker(every=1)
    check = tracker.update(np.zeros((720, 1280, 3), np.uint8))
    assert check.current is None and tracker.homography is None
    tracker.update(_view(_pose(61), 61))
    assert tracker.homography is not None


def test_tracker_checks_its_period():
    with pytest.raises(ValueError, match="every"):
        HomographyTracker(every=0)
