"""`tableref calibrate`: find the mat, write the profile; `calibrate lens`: the camera's intrinsics;
`tableref zones`: the zones a user draws on the table."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import typer

from calibration.annotate import draw_calibration
from calibration.homography import MatNotFoundError, detect_markers, estimate_homography
from calibration.lens import LensError, calibrate_lens
from calibration.mat import MatLayout
from calibration.profile import (
    CalibrationProfile,
    ProfileError,
    load_lens,
    load_profile,
    profile_to_json,
    save_lens,
    save_profile,
    zones_from_json,
)
from calibration.zones import Zone, ZoneError, Zones, check_drawn_zone, drawn_zone, mat_zones
from server.app import advise, progress_bar, write_image
from vision.sources import SourceError, frames


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"tableref: {message}", err=True)
    return typer.Exit(code=code)


def mat_layout(race: bool, lanes: int | None) -> MatLayout:
    """The printed mat a command is told about: the play mat or the race mat, with its lane count."""
    try:
        return MatLayout(lanes=lanes, race=race)
    except ValueError as exc:
        raise _fail(str(exc), 2) from exc


def calibrate_table(
    source: str, profile: Path, annotate: Path, as_json: bool, lens: Path | None, layout: MatLayout | None = None
) -> None:
    try:
        lens_model = load_lens(lens) if lens else None
    except ProfileError as exc:
        raise _fail(f"{lens}: {exc}", 2) from exc
    last_error, frame = "no frame", None
    try:
        # A hand may cover the mat in the first frames of a stream: try a few before giving up. A camera
        # that stops (unplugged) raises SourceError after frames()'s timeout; undecodable frames are skipped.
        for frame in frames(source, count=15):
            try:
                table = estimate_homography(frame, lens=lens_model)
            except MatNotFoundError as exc:
                last_error = str(exc)
                continue
            break
        else:
            if frame is not None:
                advise(source, frame)  # a dark or blurred view is a common reason the markers go unseen
            raise _fail(f"{source}: the mat was not found ({last_error}); is the whole mat in view and lit?")
    except SourceError as exc:
        raise _fail(str(exc)) from exc
    except cv2.error as exc:  # a frame OpenCV cannot work on (a camera's failing driver is a SourceError)
        raise _fail(f"{source}: reading a frame failed ({exc.err or exc}); check the camera or file") from exc
    advise(source, frame)  # the camera is set up here: the time to say what to fix before play
    zones = mat_zones(layout)
    save_profile(CalibrationProfile(table, zones), profile)
    write_image(annotate, draw_calibration(frame, detect_markers(frame), table, zones))
    if as_json:
        typer.echo(json.dumps(table.to_json()))
    else:
        typer.echo(
            f"mat found: {len(table.marker_ids)} markers, reprojection error {table.error_mm:.2f} mm\n"
            f"wrote {profile} and {annotate}"
        )


def calibrate_camera_lens(source: str, output: Path, count: int) -> None:
    try:
        views = list(frames(source, count=count))
        model = calibrate_lens(views)
    except (SourceError, LensError) as exc:
        raise _fail(f"{source}: {exc}") from exc
    save_lens(model, output)
    typer.echo(f"lens calibrated from {len(views)} views, RMS {model.rms_px:.2f} px; wrote {output}")


def parse_points(text: str) -> list[tuple[float, float]]:
    """'x,y x,y x,y' (spaces or semicolons between points) -> [(x, y), ...]; ValueError says what is wrong."""
    points = []
    for item in text.replace(";", " ").split():
        x, sep, y = item.partition(",")
        try:
            points.append((float(x), float(y)))
        except ValueError:
            sep = ""
        if not sep:
            raise ValueError(f"point {item!r}: expected x,y")
    return points


def edit_zones(
    path: Path,
    add: list[str],
    remove: list[str],
    load: Path | None,
    pixels: bool,
    reset: bool,
    as_json: bool,
    printed: MatLayout | None = None,
) -> None:
    """`tableref zones`: change a profile's zones (reset, race lanes, load, remove, then add), save, list.

    `printed` is the mat the user names: --reset starts from its zones, and a race mat's lanes replace the
    profile's lanes, on top of its other areas."""
    printed = printed or MatLayout()
    try:
        profile = load_profile(path)
    except ProfileError as exc:
        raise _fail(f"{path}: {exc}", 2) from exc
    zones = mat_zones(printed) if reset else profile.zones
    race = printed.race and not reset
    if race:
        zones = Zones([z for z in zones if z.purpose != "lane"] + list(mat_zones(printed)))
    try:
        new = _loaded_zones(load) if load else []
        for item in add:
            name, sep, points = item.partition("=")
            if not sep or not name.strip():
                raise ZoneError(f"--add takes NAME=x,y x,y x,y ..., got {item!r}")
            try:
                corners = parse_points(points)
            except ValueError as exc:
                raise ZoneError(f"zone {name.strip()!r}: {exc}") from exc
            if pixels:
                mm = profile.table.pixel_to_mm(np.array(corners, dtype=float).reshape(-1, 2))
                corners = [(round(x, 1), round(y, 1)) for x, y in mm.tolist()]
            new.append(drawn_zone(name.strip(), corners))
        names = [z.name for z in new]
        if len(set(names)) != len(names):
            raise ZoneError(
                f"a zone name is given twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}"
            )
        for name in remove:
            if name not in {z.name for z in zones}:
                raise ZoneError(f"no zone named {name!r} to remove")
            zones = Zones([z for z in zones if z.name != name])
        for zone in new:
            check_drawn_zone(zone)
            replaced = zone.name in {z.name for z in zones}
            zones = zones.with_zone(zone)
            if not as_json:
                typer.echo(f"{'replaced' if replaced else 'added'} {zone.name}")
    except (ZoneError, ProfileError) as exc:
        raise _fail(f"{path}: {exc}; the profile is unchanged", 2) from exc
    if add or remove or load or reset or race:
        save_profile(CalibrationProfile(profile.table, zones), path)
    if as_json:
        typer.echo(json.dumps(profile_to_json(CalibrationProfile(profile.table, zones))["zones"]))
        return
    typer.echo(f"{path}: {len(zones)} zones (later ones lie on top)")
    for zone in zones:
        role = zone.purpose + (f", player {zone.player}" if zone.player else "")
        corners = " ".join(f"{x:g},{y:g}" for x, y in zone.polygon)
        typer.echo(f"  {zone.name:<10} {role:<16} {corners}")


def _loaded_zones(load: Path) -> list[Zone]:
    """Zones from a JSON file: a list of zone objects as in a profile, or an object with a "zones" list."""
    try:
        data = json.loads(load.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ZoneError(f"cannot read zones from {load}: {exc}") from exc
    try:
        return zones_from_json(data["zones"] if isinstance(data, dict) and "zones" in data else data)
    except ProfileError as exc:
        raise ZoneError(f"{load}: {exc}") from exc


def evaluate_calibration(frames: int, lane_frames: int, seed: int) -> None:
    """`tableref evaluate calibration`: the homography's accuracy and the lanes' reading, one JSON object."""

    from calibration.evaluate import measure_accuracy, measure_lanes

    with progress_bar() as progress:
        task = progress.add_task("mat views", total=frames)
        homography = measure_accuracy(frames, seed, on_frame=lambda: progress.advance(task)) if frames else None
        task = progress.add_task("cards in lanes", total=lane_frames)
        lanes = (
            measure_lanes(lane_frames, seed + 1000, on_frame=lambda: progress.advance(task)) if lane_frames else None
        )
    typer.echo(json.dumps({"homography": homography, "lanes": lanes}))
