import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.evaluate import SHEET_PX_PER_MM, known_points
from calibration.homography import estimate_homography
from calibration.lens import PAGE_MM, LensError, LensModel, board_points, calibrate_lens, charuco_board, render_board
from calibration.mat import render_mat
from calibration.synth import camera_homography, render_view

FOCAL = 900.0
LENS = LensModel(
    np.array([[FOCAL, 0, 639.5], [0, FOCAL, 359.5], [0, 0, 1]]),
    np.array([-0.2, 0.05, 0.0, 0.0, 0.0]),
    (1280, 720),
)
BOARD_PX_PER_MM = 4.0


def _bgr(image):
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


def _board_views(count, seed):
    sheet = _bgr(render_board(dpi=BOARD_PX_PER_MM * 25.4))
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        pose = camera_homography(rng, PAGE_MM, focal=FOCAL, fill=(0.6, 0.9))
        yield render_view(rng, sheet, BOARD_PX_PER_MM, pose, lens=LENS)


def test_printed_board_is_a4_landscape_and_readable():
    page = render_board(dpi=100)
    assert page.size == (round(297 / 25.4 * 100), round(210 / 25.4 * 100))
    found = board_points(_bgr(page), charuco_board())
    assert found is not None
    objects, pixels = found
    assert len(objects) == len(pixels) == 40  # every inner corner of a 9 x 6 board


def test_calibration_recovers_the_camera():
    lens = calibrate_lens(_board_views(12, seed=7))
    fx, fy = lens.camera_matrix[0, 0], lens.camera_matrix[1, 1]
    assert fx == pytest.approx(FOCAL, rel=0.03)
    assert fy == pytest.approx(FOCAL, rel=0.03)
    assert lens.camera_matrix[0, 2] == pytest.approx(639.5, abs=15)
    assert lens.camera_matrix[1, 2] == pytest.approx(359.5, abs=15)
    assert lens.dist_coeffs[0] == pytest.approx(-0.2, abs=0.05)
    assert lens.image_size == (1280, 720)
    assert lens.rms_px < 1.0


def test_too_few_views():
    blank = np.full((720, 1280, 3), 200, np.uint8)
    with pytest.raises(LensError, match="board found in 0 views"):
        calibrate_lens([blank] * 6)


def test_frames_must_share_a_size():
    with pytest.raises(LensError, match="differ in size"):
        calibrate_lens([np.zeros((720, 1280, 3), np.uint8), np.zeros((480, 640, 3), np.uint8)])


def test_undistort_checks_the_frame_size():
    with pytest.raises(ValueError, match="calibrated for 1280x720"):
        LENS.undistort(np.zeros((480, 640, 3), np.uint8))


def test_undistorted_frame_straightens_the_mat_edge():
    # A straight table edge seen through the lens bends; undistorted, it is straight again.
    rng = np.random.default_rng(3)
    pose = camera_homography(rng, (420.0, 297.0), focal=FOCAL, max_tilt_deg=0.0, fill=(0.95, 0.95))
    edge = cv2.perspectiveTransform(np.array([[[x, 0.0]] for x in np.linspace(0, 420, 9)]), pose).reshape(-1, 2)
    bent = LENS.distort_points(edge)
    assert _straightness(bent) > 2.0
    assert _straightness(LENS.undistort_points(bent)) < 0.01


def _straightness(points):
    """Largest distance (px) of the points from the line through the end points."""
    a, b = points[0], points[-1]
    d = (b - a) / np.linalg.norm(b - a)
    return np.abs((points - a) @ np.array([-d[1], d[0]])).max()


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.floats(0, 1279), st.floats(0, 719)), min_size=1, max_size=10))
def test_distort_and_undistort_are_inverse(points):
    points = np.array(points)
    assert np.allclose(LENS.distort_points(LENS.undistort_points(points)), points, atol=1e-3)


def test_homography_with_the_lens_model_is_accurate_on_a_distorted_view():
    sheet = _bgr(render_mat(dpi=SHEET_PX_PER_MM * 25.4))
    points = known_points()
    with_lens, without = [], []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        pose = camera_homography(rng, (420.0, 297.0), focal=FOCAL)
        frame = render_view(rng, sheet, SHEET_PX_PER_MM, pose, lens=LENS)
        seen = LENS.distort_points(cv2.perspectiveTransform(points.reshape(-1, 1, 2), pose).reshape(-1, 2))
        for lens, errors in ((LENS, with_lens), (None, without)):
            found = estimate_homography(frame, lens=lens)
            errors.append(np.linalg.norm(found.pixel_to_mm(seen) - points, axis=1).max())
            assert np.allclose(found.mm_to_pixel(found.pixel_to_mm(seen)), seen, atol=1e-3)
    assert max(with_lens) < 1.0
    assert max(without) > 2 * max(with_lens)
