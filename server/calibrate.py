"""`tableref calibrate`: find the mat, write the profile; `calibrate lens`: the camera's intrinsics."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import typer

from calibration.annotate import draw_calibration
from calibration.homography import MatNotFoundError, detect_markers, estimate_homography
from calibration.lens import LensError, calibrate_lens
from calibration.profile import CalibrationProfile, load_lens, save_lens, save_profile
from calibration.zones import mat_zones
from vision.sources import SourceError, frames


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"tableref: {message}", err=True)
    return typer.Exit(code=code)


def calibrate_table(source: str, profile: Path, annotate: Path, as_json: bool, lens: Path | None) -> None:
    lens_model = load_lens(lens) if lens else None
    last_error = "no frame"
    try:
        # A hand may cover the mat in the first frames of a stream: try a few before giving up.
        for frame in frames(source, count=15):
            try:
                table = estimate_homography(frame, lens=lens_model)
            except MatNotFoundError as exc:
                last_error = str(exc)
                continue
            break
        else:
            raise _fail(f"{source}: the mat was not found ({last_error}); is the whole mat in view and lit?")
    except SourceError as exc:
        raise _fail(str(exc)) from exc
    zones = mat_zones()
    save_profile(CalibrationProfile(table, zones), profile)
    cv2.imwrite(str(annotate), draw_calibration(frame, detect_markers(frame), table, zones))
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
