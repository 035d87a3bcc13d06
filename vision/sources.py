"""Where frames come from: a camera index, a video file, a stream URL, or a still image."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.image_io import ImageLoadError, load_image

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v"}


class SourceError(Exception):
    """A source that gives no frames; the message says what to check."""


def parse_source(spec: str) -> int | str:
    """'0' is camera 0; anything else is a path or a URL that OpenCV can open."""
    return int(spec) if spec.isdigit() else spec


def is_live(spec: str) -> bool:
    """Whether the source is a camera index or a stream URL, not a file."""
    source = parse_source(spec)
    return isinstance(source, int) or "://" in source


def is_film(spec: str) -> bool:
    """Whether the source moves: a camera, a stream or a video file, not a still picture."""
    return is_live(spec) or Path(spec).suffix.lower() in VIDEO_SUFFIXES


def _cannot_open(source: int | str) -> str:
    if isinstance(source, int):
        return f"camera {source}: cannot be opened; check that it is plugged in and no other program uses it"
    if "://" in source:
        return f"{source}: cannot be opened; check the address and that the stream is running"
    return f"{source}: cannot be opened as a video; check that it is a video file OpenCV can decode (MP4, AVI...)"


def _quietly_opened(source: int | str) -> cv2.VideoCapture:
    """The capture, opened without OpenCV's own warnings (V4L2, FFmpeg) on stderr: where it fails, SourceError
    says what to check in the player's words."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(source)
    finally:
        cv2.utils.logging.setLogLevel(level)


def frames(spec: str, count: int, timeout_s: float = 10.0) -> Iterator[np.ndarray]:
    """Up to `count` good frames. Undecodable frames are skipped; a source that gives none in `timeout_s`
    (a camera unplugged or busy, a dead URL) raises SourceError."""
    return (frame for _, frame in timed_frames(spec, count, timeout_s))


def timed_frames(spec: str, count: int, timeout_s: float = 10.0) -> Iterator[tuple[float, np.ndarray]]:
    """`frames`, each with its time in seconds: a video file's own timestamps (its frame rate's, where the
    container gives none), a camera's or a stream's since its first frame; a still image is at 0."""
    source = parse_source(spec)
    if isinstance(source, str) and Path(source).suffix.lower() in IMAGE_SUFFIXES:
        try:
            yield 0.0, load_image(source)
        except ImageLoadError as exc:
            raise SourceError(str(exc)) from exc
        return
    if isinstance(source, str) and "://" not in source and not Path(source).exists():
        raise SourceError(f"{source}: no such file; give a camera index (0), a video or image file, or a URL")
    capture = _quietly_opened(source)
    try:
        if not capture.isOpened():
            raise SourceError(_cannot_open(source))
        recorded = not is_live(spec)
        rate = capture.get(cv2.CAP_PROP_FPS) if recorded else 0.0
        given, read, first = 0, 0, None
        deadline = time.monotonic() + timeout_s
        while given < count:
            ok, frame = capture.read()
            read += ok
            if ok and frame is not None and frame.size:
                given += 1
                deadline = time.monotonic() + timeout_s
                if recorded:
                    seconds = capture.get(cv2.CAP_PROP_POS_MSEC) / 1000
                    if seconds <= 0 and read > 1 and rate > 0:  # a container without timestamps: count frames
                        seconds = (read - 1) / rate
                else:
                    first = first if first is not None else time.monotonic()
                    seconds = time.monotonic() - first
                yield seconds, frame
            elif not ok and recorded:
                break  # a video file has ended
            elif time.monotonic() > deadline:
                raise SourceError(f"{spec}: no frame for {timeout_s:.0f} s; the camera or stream stopped")
        if given == 0:
            raise SourceError(f"{spec}: gave no frames; is it a video OpenCV can decode?")
    finally:
        capture.release()
