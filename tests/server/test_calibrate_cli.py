"""`tableref calibrate`, `kit mat` and `recognize --calibration` as a user meets them."""

import json

import cv2
import numpy as np

from calibration.evaluate import mat_views
from calibration.homography import mm_to_pixel
from tests.server.test_cli import tableref


def test_calibrate_an_image_then_place_points_through_the_profile(tmp_path) -> None:
    view = next(mat_views(1, seed=7))
    frame_path = tmp_path / "frame.png"
    cv2.imwrite(str(frame_path), view.frame)
    profile, picture = tmp_path / "table.json", tmp_path / "seen.png"
    result = tableref("calibrate", str(frame_path), "--json", "--profile", str(profile), "--annotate", str(picture))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) >= {"homography", "marker_ids", "error_mm"}
    assert out["error_mm"] < 1.0
    assert picture.is_file() and json.loads(profile.read_text())["version"] == 1
    # The saved homography maps a known table point back where the camera put it.
    point_mm = np.array([[210.0, 150.0]])
    seen = mm_to_pixel(view.mm_to_px, point_mm)
    recovered = mm_to_pixel(np.linalg.inv(np.array(out["homography"])), point_mm)
    assert np.abs(seen - recovered).max() < 2.0


def test_calibrate_without_a_mat_says_so(tmp_path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((240, 320, 3), 128, np.uint8))
    result = tableref("calibrate", str(blank), "--profile", str(tmp_path / "p.json"))
    assert result.returncode == 1
    assert "mat was not found" in result.stderr


def test_calibrate_from_a_missing_camera_file_names_it(tmp_path) -> None:
    result = tableref("calibrate", str(tmp_path / "nothing.mp4"))
    assert result.returncode == 1
    assert "nothing.mp4" in result.stderr


def test_recognize_refuses_a_broken_profile_naming_the_field(tmp_path) -> None:
    profile = tmp_path / "bad.json"
    profile.write_text(json.dumps({"version": 1, "image_size": [1280, 720], "homography": [[1, 0], [0, 1]]}))
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 128, np.uint8))
    result = tableref("recognize", str(blank), "--calibration", str(profile))
    assert result.returncode == 2
    assert "homography" in result.stderr


def test_kit_mat_writes_a_pdf(tmp_path) -> None:
    out = tmp_path / "mat.pdf"
    result = tableref("kit", "mat", "-o", str(out), "--a4")
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(b"%PDF")
