"""`tableref calibrate`, `kit mat` and `recognize --calibration` as a user meets them."""

import json

import cv2
import numpy as np
import pytest
import typer

from calibration.evaluate import mat_views
from calibration.homography import TableHomography, mm_to_pixel
from calibration.profile import CalibrationProfile, load_profile, save_profile
from calibration.zones import mat_zones
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


def test_calibrate_says_what_to_fix_about_the_camera_s_picture(tmp_path) -> None:
    """A mat seen in a dim room: calibrated all the same, with the advice to light the table."""
    from models.synth.degrade import Degradation, degrade

    frame_path = tmp_path / "dim.png"
    cv2.imwrite(str(frame_path), degrade(next(mat_views(1, seed=7)).frame, Degradation.dim, 7))
    result = tableref(
        "calibrate", str(frame_path), "--profile", str(tmp_path / "t.json"), "--annotate", str(tmp_path / "a.png")
    )
    assert result.returncode == 0, result.stderr
    assert "light the table" in result.stderr and str(frame_path) in result.stderr


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


def test_kit_race_mat_with_too_many_lanes_says_why(tmp_path) -> None:
    result = tableref("kit", "mat", "-o", str(tmp_path / "mat.pdf"), "--race", "--lanes", "4")
    assert result.returncode == 2
    assert "narrower than a card" in result.stderr and not (tmp_path / "mat.pdf").exists()


def _profile(tmp_path):
    # 2 px per mm, the mat's origin at pixel (100, 50).
    table = TableHomography(np.array([[0.5, 0, -50], [0, 0.5, -25], [0, 0, 1]]), (1280, 720), (0, 1, 2), 0.3)
    path = tmp_path / "table.json"
    save_profile(CalibrationProfile(table, mat_zones()), path)
    return path


def test_zones_are_drawn_removed_and_saved_in_the_profile(tmp_path) -> None:
    path = _profile(tmp_path)
    lanes = ["--add", "lane-1=46,46 374,46 374,144 46,144", "--add", "lane-2=46,152 374,152 374,251 46,251"]
    result = tableref("zones", str(path), "--remove", "lane-3", "--remove", "lane-4", *lanes)
    assert result.returncode == 0, result.stderr
    assert "replaced lane-1" in result.stdout and "lane-2     lane, player 2" in result.stdout
    zones = load_profile(path).zones
    assert [z.name for z in zones] == ["pi", "sticks", "hand", "lane-1", "lane-2"]
    assert zones["lane-2"].polygon[2] == (374.0, 251.0) and zones["lane-2"].player == 2
    # A clicked zone in frame pixels lands in table mm through the profile's homography.
    result = tableref("zones", str(path), "--pixels", "--add", "mine=120,70 320,70 320,270", "--json")
    assert result.returncode == 0, result.stderr
    mine = {z["name"]: z for z in json.loads(result.stdout)}["mine"]
    assert mine["polygon"] == [[10.0, 10.0], [110.0, 10.0], [110.0, 110.0]] and mine["purpose"] == "user"


def test_race_lanes_replace_the_printed_lanes(tmp_path) -> None:
    path = _profile(tmp_path)
    result = tableref("zones", str(path), "--race", "--json")
    assert result.returncode == 0, result.stderr
    names = [z["name"] for z in json.loads(result.stdout)]
    assert names == ["pi", "sticks", "hand", "lane-1", "lane-2"]
    assert load_profile(path).zones["lane-2"].player == 2


def test_a_bad_zone_leaves_the_profile_unchanged(tmp_path) -> None:
    path = _profile(tmp_path)
    before = path.read_bytes()
    result = tableref("zones", str(path), "--add", "ok=10,10 60,10 60,60", "--add", "bow=50,50 150,150 150,50 50,150")
    assert result.returncode == 2
    assert "bow" in result.stderr and "cross" in result.stderr and "unchanged" in result.stderr
    doubled = tmp_path / "zones.json"
    square = [[60, 60], [160, 60], [160, 160]]
    doubled.write_text(json.dumps({"zones": [{"name": "a", "polygon": square}, {"name": "a", "polygon": square}]}))
    result = tableref("zones", str(path), "--load", str(doubled))
    assert result.returncode == 2 and "given twice: a" in result.stderr
    assert path.read_bytes() == before


class _Camera:
    """A stand-in for cv2.VideoCapture: gives `frames`, then behaves as `after` says (unplugged or broken)."""

    def __init__(self, frames, after):
        self.frames, self.after = list(frames), after

    def isOpened(self):
        return True

    def read(self):
        if self.frames:
            return True, self.frames.pop(0)
        if self.after == "raise":
            raise cv2.error("backend lost the device")
        return False, None

    def release(self):
        pass

    def set(self, prop, value):
        return False  # a camera that films in one mode only


def _calibrate_from(monkeypatch, tmp_path, capsys, camera) -> tuple[int, str]:
    import vision.sources
    from server.calibrate import calibrate_table

    clock = iter(range(0, 10_000, 3))  # every look at the clock is 3 s later: a timeout comes fast
    monkeypatch.setattr(vision.sources.cv2, "VideoCapture", lambda source: camera)
    monkeypatch.setattr(vision.sources.time, "monotonic", lambda: next(clock))
    with pytest.raises(typer.Exit) as stop:
        calibrate_table("0", tmp_path / "p.json", tmp_path / "p.png", False, None)
    return stop.value.exit_code, capsys.readouterr().err


def test_a_camera_unplugged_before_the_mat_is_seen_says_so(monkeypatch, tmp_path, capsys) -> None:
    blank = np.full((720, 1280, 3), 90, np.uint8)
    code, err = _calibrate_from(monkeypatch, tmp_path, capsys, _Camera([blank, blank], "unplugged"))
    assert code == 1
    assert "no frame for" in err and "stopped" in err
    assert not (tmp_path / "p.json").exists()


def test_a_camera_whose_backend_fails_mid_stream_says_so(monkeypatch, tmp_path, capsys) -> None:
    code, err = _calibrate_from(monkeypatch, tmp_path, capsys, _Camera([np.zeros((720, 1280, 3), np.uint8)], "raise"))
    assert code == 1 and "0: the camera's driver failed (backend lost the device); plug it in again" in err


def test_a_corrupt_frame_is_skipped_and_the_mat_found_after_it(monkeypatch, tmp_path, capsys) -> None:
    import vision.sources
    from server.calibrate import calibrate_table

    view = next(mat_views(1, seed=7))
    camera = _Camera([np.zeros((0, 0, 3), np.uint8), view.frame], "unplugged")
    monkeypatch.setattr(vision.sources.cv2, "VideoCapture", lambda source: camera)
    calibrate_table("0", tmp_path / "p.json", tmp_path / "p.png", False, None)
    assert "mat found" in capsys.readouterr().out
    assert load_profile(tmp_path / "p.json").table.image_size == (1280, 720)


def test_a_truncated_video_file_still_calibrates_from_its_good_frames(tmp_path) -> None:
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for view in mat_views(4, seed=7):
        writer.write(view.frame)
    writer.release()
    data = video.read_bytes()
    video.write_bytes(data[: len(data) // 2])
    result = tableref(
        "calibrate", str(video), "--profile", str(tmp_path / "p.json"), "--annotate", str(tmp_path / "a.png")
    )
    assert result.returncode == 0, result.stderr
    assert "mat found" in result.stdout


def test_a_broken_lens_file_is_named(tmp_path) -> None:
    lens = tmp_path / "lens.json"
    lens.write_text("{}")
    result = tableref("calibrate", "0", "--lens", str(lens))
    assert result.returncode == 2 and "lens.json" in result.stderr and "version" in result.stderr


def test_evaluate_calibration_reports_both_figures() -> None:
    result = tableref("evaluate", "calibration", "--frames", "2", "--lane-frames", "1")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["homography"]["frames"] == 2 and 0 <= out["homography"]["within_tolerance"] <= 1
    assert set(out["lanes"]) >= {"raw", "topdown", "both", "cards_laid"}
    assert out["lanes"]["both"]["cards_read_right"] >= out["lanes"]["raw"]["cards_read_right"]


def test_evaluate_calibration_skips_either_figure_when_given_no_views() -> None:
    result = tableref("evaluate", "calibration", "--frames", "0", "--lane-frames", "1")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["homography"] is None and out["lanes"]["cards_laid"] > 0
