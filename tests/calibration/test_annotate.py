import numpy as np

from calibration.annotate import draw_calibration
from calibration.evaluate import mat_views
from calibration.homography import detect_markers, homography_from_markers
from calibration.zones import mat_zones


def test_drawing_marks_markers_outline_and_zones_without_touching_the_frame():
    view = next(mat_views(1, seed=3))
    before = view.frame.copy()
    markers = detect_markers(view.frame)
    table = homography_from_markers(markers, (1280, 720))
    markers_only = draw_calibration(view.frame, markers)
    full = draw_calibration(view.frame, markers, table, mat_zones())
    assert np.array_equal(view.frame, before)
    assert full.shape == markers_only.shape == before.shape
    changed_markers = np.any(markers_only != before, axis=2).sum()
    changed_full = np.any(full != before, axis=2).sum()
    assert 0 < changed_markers < changed_full


def test_grey_frames_come_back_in_colour():
    view = next(mat_views(1, seed=4))
    grey = view.frame[..., 1]
    assert draw_calibration(grey, detect_markers(grey)).shape == (720, 1280, 3)
