import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.homography import TableHomography
from calibration.lens import LensModel
from calibration.profile import (
    CalibrationProfile,
    ProfileError,
    lens_to_json,
    load_lens,
    load_profile,
    profile_from_json,
    profile_to_json,
    save_lens,
    save_profile,
)
from calibration.zones import Zone, mat_zones

MATRIX = np.array([[0.41, 0.02, -80.5], [-0.01, 0.43, -30.25], [1e-5, 2e-5, 1.0]])
LENS = LensModel(
    np.array([[910.0, 0, 641.5], [0, 905.0, 358.0], [0, 0, 1]]),
    np.array([-0.21, 0.05, 0.001, -0.002, 0.0]),
    (1280, 720),
    0.31,
)


def _profile(lens=LENS):
    zones = mat_zones().with_zone(Zone("dish", ((0, 0), (30, 0), (15, 25)), "user", 2))
    return CalibrationProfile(TableHomography(MATRIX, (1280, 720), (0, 1, 2, 5, 9), 0.1234, lens), zones)


def _valid():
    return profile_to_json(_profile())


@pytest.mark.parametrize("lens", [LENS, None])
def test_round_trip(tmp_path, lens):
    path = tmp_path / "sub" / "table.json"
    save_profile(_profile(lens), path)
    loaded = load_profile(path)
    assert json.loads(path.read_text())["version"] == 1
    assert np.array_equal(loaded.table.matrix, MATRIX)
    assert loaded.table.image_size == (1280, 720)
    assert loaded.table.marker_ids == (0, 1, 2, 5, 9)
    assert loaded.table.error_mm == 0.1234
    assert list(loaded.zones) == list(_profile().zones)
    if lens is None:
        assert loaded.table.lens is None
    else:
        assert np.array_equal(loaded.table.lens.camera_matrix, LENS.camera_matrix)
        assert np.array_equal(loaded.table.lens.dist_coeffs, LENS.dist_coeffs)
        assert loaded.table.lens.image_size == (1280, 720)
        assert loaded.table.lens.rms_px == 0.31
    assert not list(tmp_path.glob("sub/*.partial"))


def test_place_maps_pixels_to_mm_and_zones():
    profile = CalibrationProfile(TableHomography(np.diag([0.5, 0.5, 1.0]), (1280, 720), (0, 1), 0.0), mat_zones())
    centre = profile.zones["sticks"].center
    [(mm, zone), (_, outside)] = profile.place(np.array([[2 * centre[0], 2 * centre[1]], [10.0, 10.0]]))
    assert mm == pytest.approx(centre)
    assert zone.name == "sticks"
    assert outside is None


def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _drop(path):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


BAD = [
    (_set(["version"], 2), "version: expected 1, got 2"),
    (_set(["version"], "1"), 'version: expected 1, got "1"'),
    (_set(["version"], True), "version: expected 1, got true"),
    (_drop(["version"]), "version: missing"),
    (_set(["colour"], "red"), "colour: unknown field"),
    (_set(["image_size"], [1280]), "image_size: expected [width, height] as positive integers"),
    (_set(["image_size"], [1280, 0]), "image_size: expected [width, height]"),
    (_set(["image_size"], [1280.0, 720]), "image_size: expected [width, height]"),
    (_drop(["image_size"]), "image_size: missing"),
    (_set(["homography"], [[1, 0, 0], [0, 1, 0]]), "homography: expected 3x3 numbers"),
    (_set(["homography"], [[1, 0, 0], [0, 1, 0], [0, 0, "1"]]), "homography: expected 3x3 numbers"),
    (_set(["homography"], [[1, 0, 0], [0, 1, 0], [0, 0, float("nan")]]), "homography: expected 3x3 numbers"),
    (_set(["homography"], [[1, 2, 3], [2, 4, 6], [0, 0, 1]]), "homography: singular matrix"),
    (_set(["homography"], "eye"), "homography: expected 3x3 numbers"),
    (_drop(["homography"]), "homography: missing"),
    (_set(["marker_ids"], [0, 0]), "marker_ids: expected a list of distinct non-negative integers"),
    (_set(["marker_ids"], [-1]), "marker_ids: expected"),
    (_set(["marker_ids"], {"0": 1}), "marker_ids: expected"),
    (_drop(["marker_ids"]), "marker_ids: missing"),
    (_set(["error_mm"], -0.1), "error_mm: expected a non-negative number"),
    (_set(["error_mm"], None), "error_mm: expected a non-negative number"),
    (_drop(["error_mm"]), "error_mm: missing"),
    (_set(["zones"], {}), "zones: expected a list"),
    (_drop(["zones"]), "zones: missing"),
    (_set(["zones", 1], "lane"), "zones[1]: expected an object"),
    (_set(["zones", 1, "layer"], 3), "zones[1].layer: unknown field"),
    (_set(["zones", 1, "name"], ""), "zones[1].name: expected a non-empty string"),
    (_set(["zones", 1, "name"], "lane-1"), "zones[1].name: duplicate name 'lane-1'"),
    (_drop(["zones", 2, "name"]), "zones[2].name: missing"),
    (_set(["zones", 3, "polygon"], [[0, 0], [1, 1]]), "zones[3].polygon: expected at least 3 [x, y] points"),
    (_set(["zones", 3, "polygon", 2], [1, 2, 3]), "zones[3].polygon[2]: expected [x, y] numbers"),
    (_set(["zones", 3, "polygon", 0], [1, None]), "zones[3].polygon[0]: expected [x, y] numbers"),
    (_drop(["zones", 3, "polygon"]), "zones[3].polygon: missing"),
    (_set(["zones", 4, "purpose"], "snacks"), "zones[4].purpose: expected one of lane, pi, sticks, hand, user"),
    (_set(["zones", 0, "player"], 0), "zones[0].player: expected null or an integer from 1"),
    (_set(["zones", 0, "player"], "1"), "zones[0].player: expected null"),
    (_set(["lens"], []), "lens: expected an object or null"),
    (_set(["lens", "focal"], 1), "lens.focal: unknown field"),
    (_drop(["lens", "camera_matrix"]), "lens.camera_matrix: missing"),
    (_set(["lens", "camera_matrix"], [[1, 0], [0, 1]]), "lens.camera_matrix: expected 3x3 numbers"),
    (_set(["lens", "camera_matrix", 0, 0], -900), "lens.camera_matrix: expected [[fx, 0, cx]"),
    (_set(["lens", "camera_matrix", 2], [0, 1, 1]), "lens.camera_matrix: expected [[fx, 0, cx]"),
    (_set(["lens", "dist_coeffs"], [0.1, 0.2, 0.3]), "lens.dist_coeffs: expected a list of 4, 5, 8, 12, 14 numbers"),
    (_drop(["lens", "dist_coeffs"]), "lens.dist_coeffs: missing"),
    (_set(["lens", "image_size"], [1920, 1080]), "lens.image_size: lens is for 1920x1080, profile for 1280x720"),
    (_set(["lens", "rms_px"], "low"), "lens.rms_px: expected a non-negative number"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m for _, m in BAD])
def test_every_bad_field_is_named(tmp_path, change, message):
    data = _valid()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value).startswith(message)
    assert caught.value.field == message.split(":")[0]


def test_not_an_object():
    with pytest.raises(ProfileError, match=r"^profile: expected a JSON object"):
        profile_from_json([1, 2])


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(ProfileError, match=r"^profile: cannot read"):
        load_profile(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1,')
    with pytest.raises(ProfileError, match=r"^profile: not valid JSON"):
        load_profile(broken)


def test_lens_may_be_absent():
    data = _valid()
    del data["lens"]
    assert profile_from_json(data).table.lens is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)
FIELDS = ["version", "image_size", "homography", "marker_ids", "error_mm", "zones", "lens"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.sampled_from(FIELDS), JSON)
def test_any_value_loads_or_fails_with_a_profile_error(field, value):
    data = copy.deepcopy(_valid())
    data[field] = value
    try:
        profile_from_json(data)
    except ProfileError as err:
        assert err.field.split("[")[0].split(".")[0] == field


def test_lens_file_round_trip(tmp_path):
    path = tmp_path / "lens.json"
    save_lens(LENS, path)
    assert json.loads(path.read_text())["version"] == 1
    lens = load_lens(path)
    assert np.array_equal(lens.camera_matrix, LENS.camera_matrix)
    assert np.array_equal(lens.dist_coeffs, LENS.dist_coeffs)
    assert (lens.image_size, lens.rms_px) == (LENS.image_size, LENS.rms_px)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_drop(["version"]), "version: missing"),
        (_set(["dist_coeffs"], []), "dist_coeffs: expected a list of"),
        (_set(["camera_matrix"], None), "camera_matrix: expected 3x3 numbers"),
        (_set(["image_size"], [0, 720]), "image_size: expected [width, height]"),
    ],
)
def test_bad_lens_file(tmp_path, change, message):
    data = {"version": 1, **lens_to_json(LENS)}
    change(data)
    path = tmp_path / "lens.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError) as caught:
        load_lens(path)
    assert str(caught.value).startswith(message)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1279), st.floats(0, 719)), max_size=20))
def test_a_point_is_in_a_purpose_where_the_topmost_zone_there_has_it(points):
    profile = _profile()
    px = np.array(points, float).reshape(-1, 2)
    in_hand = profile.in_purpose(px, "hand")
    assert in_hand.tolist() == [zone is not None and zone.purpose == "hand" for _, zone in profile.place(px)]
    mm = profile.table.pixel_to_mm(px)
    hand = [z for z in profile.zones if z.purpose == "hand"]
    assert hand and all(h == any(z.contains(p) for z in hand) for h, p in zip(in_hand, mm, strict=True))


def test_frames_of_another_size_are_named():
    profile = _profile()
    assert profile.size_problem((1280, 720)) is None
    problem = profile.size_problem((640, 480))
    assert "640x480" in problem and "1280x720" in problem
