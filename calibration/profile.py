"""The calibration profile: one camera's view of the table, saved as versioned JSON.

A profile is written once by `tableref calibrate` and read by every later run, possibly after hand
edits, so loading checks every field and names the first bad one instead of failing later on a
malformed matrix.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from calibration.homography import TableHomography
from calibration.lens import LensModel
from calibration.zones import PURPOSES, Point, Zone, Zones

VERSION = 1
_FIELDS = {"version", "image_size", "homography", "marker_ids", "error_mm", "zones", "lens"}
_ZONE_FIELDS = {"name", "polygon", "purpose", "player"}
_LENS_FIELDS = {"camera_matrix", "dist_coeffs", "image_size", "rms_px"}
_DIST_LENGTHS = (4, 5, 8, 12, 14)  # the distortion models OpenCV accepts


class ProfileError(ValueError):
    """A profile that cannot be used; `field` is the JSON path of the offending value."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


@dataclass(frozen=True)
class CalibrationProfile:
    """The table homography (with its lens model, if any) and the zones drawn on the table."""

    table: TableHomography
    zones: Zones

    def place(self, points_px: np.ndarray) -> list[tuple[Point, Zone | None]]:
        """Frame pixels (n, 2) -> each point's table position in mm and the zone it lies in."""
        mm = self.table.pixel_to_mm(points_px)
        return [((float(x), float(y)), self.zones.zone_at((x, y))) for x, y in mm]

    def in_purpose(self, points_px: np.ndarray, purpose: str) -> np.ndarray:
        """Whether each frame pixel (n, 2) lies in a zone of `purpose` (the topmost zone there, as `place`
        names it): a player's hand area, the pi area."""
        return np.array([zone is not None and zone.purpose == purpose for _, zone in self.place(points_px)], bool)

    def size_problem(self, size: tuple[int, int]) -> str | None:
        """Why frames of `size` (width, height) cannot be placed on the table by this profile, or None: it maps
        the pixels of the camera frames it was made from only."""
        if tuple(self.table.image_size) == tuple(size):
            return None
        w, h = self.table.image_size
        return f"is {size[0]}x{size[1]} pixels, but the calibration was made on {w}x{h} frames; calibrate at this size"


def profile_to_json(profile: CalibrationProfile) -> dict[str, Any]:
    table, lens = profile.table, profile.table.lens
    return {
        "version": VERSION,
        "image_size": list(table.image_size),
        "homography": table.matrix.tolist(),
        "marker_ids": list(table.marker_ids),
        "error_mm": table.error_mm,
        "zones": [
            {"name": z.name, "polygon": [list(p) for p in z.polygon], "purpose": z.purpose, "player": z.player}
            for z in profile.zones
        ],
        "lens": None if lens is None else lens_to_json(lens),
    }


def lens_to_json(lens: LensModel) -> dict[str, Any]:
    return {
        "camera_matrix": lens.camera_matrix.tolist(),
        "dist_coeffs": lens.dist_coeffs.tolist(),
        "image_size": list(lens.image_size),
        "rms_px": lens.rms_px,
    }


def profile_from_json(data: Any) -> CalibrationProfile:
    """Validate a decoded profile; raises ProfileError naming the first bad field."""
    if not isinstance(data, dict):
        raise ProfileError("profile", "expected a JSON object")
    _no_unknown(data, _FIELDS, "")
    _version(data)
    image_size = _size(_required(data, "image_size", ""), "image_size")
    matrix = _matrix(_required(data, "homography", ""), "homography")
    ids = _required(data, "marker_ids", "")
    if not isinstance(ids, list) or not all(_is_int(i) and i >= 0 for i in ids) or len(set(ids)) != len(ids):
        raise ProfileError("marker_ids", "expected a list of distinct non-negative integers")
    error = _required(data, "error_mm", "")
    if not _is_number(error) or error < 0:
        raise ProfileError("error_mm", "expected a non-negative number")
    lens = None if data.get("lens") is None else _lens(data["lens"], "lens.", image_size)
    parsed = zones_from_json(_required(data, "zones", ""))
    for i, zone in enumerate(parsed):
        if any(z.name == zone.name for z in parsed[:i]):
            raise ProfileError(f"zones[{i}].name", f"duplicate name {zone.name!r}")
    table = TableHomography(matrix, image_size, tuple(ids), float(error), lens)
    return CalibrationProfile(table, Zones(parsed))


def zones_from_json(data: Any, field: str = "zones") -> list[Zone]:
    """Validate a list of zone objects (the profile's "zones" entries); ProfileError names the bad field."""
    if not isinstance(data, list):
        raise ProfileError(field, "expected a list")
    return [_zone(zone, f"{field}[{i}]") for i, zone in enumerate(data)]


def save_profile(profile: CalibrationProfile, path: str | os.PathLike[str]) -> None:
    """Write the profile; the file is replaced whole, so a crash never leaves half a profile."""
    _write(profile_to_json(profile), path)


def load_profile(path: str | os.PathLike[str]) -> CalibrationProfile:
    """Read and validate a profile; any problem, unreadable file included, is a ProfileError."""
    return profile_from_json(_read(path))


def save_lens(lens: LensModel, path: str | os.PathLike[str]) -> None:
    """Write a lens calibration on its own, to apply to later `calibrate` runs with the same camera."""
    _write({"version": VERSION, **lens_to_json(lens)}, path)


def load_lens(path: str | os.PathLike[str]) -> LensModel:
    """Read and validate a lens file written by `save_lens`; problems are ProfileErrors."""
    data = _read(path)
    if not isinstance(data, dict):
        raise ProfileError("lens", "expected a JSON object")
    _version(data)
    return _lens({k: v for k, v in data.items() if k != "version"}, "")


def _write(data: dict[str, Any], path: str | os.PathLike[str]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    partial.replace(path)


def _read(path: str | os.PathLike[str]) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ProfileError("profile", f"cannot read {path}: {err}") from err
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ProfileError("profile", f"not valid JSON ({err})") from err


def _version(data: dict) -> None:
    version = _required(data, "version", "")
    if not _is_int(version) or version != VERSION:
        raise ProfileError("version", f"expected {VERSION}, got {json.dumps(version)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _required(data: dict, key: str, prefix: str) -> Any:
    if key not in data:
        raise ProfileError(prefix + key, "missing")
    return data[key]


def _no_unknown(data: dict, known: set[str], prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ProfileError(prefix + unknown[0], "unknown field")


def _size(value: Any, field: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2 or not all(_is_int(v) and v > 0 for v in value):
        raise ProfileError(field, "expected [width, height] as positive integers")
    return int(value[0]), int(value[1])


def _matrix(value: Any, field: str) -> np.ndarray:
    rows_ok = isinstance(value, list) and len(value) == 3
    if not rows_ok or not all(isinstance(r, list) and len(r) == 3 and all(map(_is_number, r)) for r in value):
        raise ProfileError(field, "expected 3x3 numbers")
    matrix = np.array(value, dtype=np.float64)
    if abs(np.linalg.det(matrix)) < 1e-12 * max(1.0, np.abs(matrix).max() ** 3):
        raise ProfileError(field, "singular matrix")
    return matrix


def _zone(value: Any, field: str) -> Zone:
    if not isinstance(value, dict):
        raise ProfileError(field, "expected an object")
    _no_unknown(value, _ZONE_FIELDS, field + ".")
    name = _required(value, "name", field + ".")
    if not isinstance(name, str) or not name:
        raise ProfileError(field + ".name", "expected a non-empty string")
    polygon = _required(value, "polygon", field + ".")
    if not isinstance(polygon, list) or len(polygon) < 3:
        raise ProfileError(field + ".polygon", "expected at least 3 [x, y] points")
    for j, point in enumerate(polygon):
        if not isinstance(point, list) or len(point) != 2 or not all(map(_is_number, point)):
            raise ProfileError(f"{field}.polygon[{j}]", "expected [x, y] numbers")
    purpose = value.get("purpose", "user")
    if purpose not in PURPOSES:
        raise ProfileError(field + ".purpose", f"expected one of {', '.join(PURPOSES)}")
    player = value.get("player")
    if player is not None and not (_is_int(player) and player >= 1):
        raise ProfileError(field + ".player", "expected null or an integer from 1")
    return Zone(name, tuple((float(x), float(y)) for x, y in polygon), purpose, player)


def _lens(value: Any, prefix: str, image_size: tuple[int, int] | None = None) -> LensModel:
    if not isinstance(value, dict):
        raise ProfileError(prefix.rstrip(".") or "lens", "expected an object or null")
    _no_unknown(value, _LENS_FIELDS, prefix)
    matrix = _matrix(_required(value, "camera_matrix", prefix), prefix + "camera_matrix")
    if matrix[0, 0] <= 0 or matrix[1, 1] <= 0 or matrix[2].tolist() != [0, 0, 1]:
        raise ProfileError(prefix + "camera_matrix", "expected [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0")
    dist = _required(value, "dist_coeffs", prefix)
    if not isinstance(dist, list) or len(dist) not in _DIST_LENGTHS or not all(map(_is_number, dist)):
        lengths = ", ".join(map(str, _DIST_LENGTHS))
        raise ProfileError(prefix + "dist_coeffs", f"expected a list of {lengths} numbers")
    size = _size(_required(value, "image_size", prefix), prefix + "image_size")
    if image_size is not None and size != image_size:
        profile_size = f"{image_size[0]}x{image_size[1]}"
        raise ProfileError(prefix + "image_size", f"lens is for {size[0]}x{size[1]}, profile for {profile_size}")
    rms = value.get("rms_px", 0.0)
    if not _is_number(rms) or rms < 0:
        raise ProfileError(prefix + "rms_px", "expected a non-negative number")
    return LensModel(matrix, np.array(dist, dtype=np.float64), size, float(rms))
