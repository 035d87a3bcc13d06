"""Where frames come from: a camera index, a video file, a stream URL, or a still image."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

# FFmpeg's own lines ("moov atom not found") would reach stderr beside the one line that says what to do;
# OpenCV reads this before it opens the first video. Set it in the shell (to 32, say) to see them again.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

from vision.image_io import ImageLoadError, load_image

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v"}
REOPEN_FIRST_S, REOPEN_WAIT_S = 0.1, 2.0  # a live source that stops is opened again after these waits, doubling
POLL_S = 0.05  # how often a referee waiting for a frame looks at the clock
# What a camera is asked to film. Many webcams start at 640x480, where the same table's stick layouts read 309 of
# 330 against 326 at 1280x720 (models/sticks.md, "Where it fails"); a camera that cannot film this gives its
# nearest mode. MJPG, as USB webcams send 720p uncompressed at a few frames a second.
CAMERA_SIZE = (1280, 720)
CAMERA_FOURCC = "MJPG"


RATE_WINDOW = 30  # frames over which a rate is measured


class SourceError(Exception):
    """A source that gives no frames; the message says what to check."""


class Rate:
    """How many a second over the last `window` ticks. Thread-safe: a capture thread ticks while a web page
    asks."""

    def __init__(self, window: int = RATE_WINDOW) -> None:
        self._at: deque[float] = deque(maxlen=window)
        self._lock = threading.Lock()

    def tick(self) -> None:
        with self._lock:
            self._at.append(time.monotonic())

    def clear(self) -> None:
        with self._lock:
            self._at.clear()

    def per_second(self) -> float:
        with self._lock:
            if len(self._at) < 2:
                return 0.0
            return (len(self._at) - 1) / max(self._at[-1] - self._at[0], 1e-6)


@dataclass
class FrameCounts:
    """What a source gave over a watch: frames read, and frames dropped because a newer one came before the
    referee asked (a live source only; a film waits for its referee)."""

    read: int = 0
    dropped: int = 0
    rate: Rate = field(default_factory=Rate)  # frames read a second

    def took(self, dropping: bool = False) -> None:
        self.read += 1
        self.dropped += dropping
        self.rate.tick()


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
    says what to check in the player's words. A camera is asked for CAMERA_SIZE."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        capture = cv2.VideoCapture(source)
        if isinstance(source, int) and capture.isOpened():
            capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*CAMERA_FOURCC))
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, CAMERA_SIZE[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, CAMERA_SIZE[1])
        return capture
    finally:
        cv2.utils.logging.setLogLevel(level)


def frames(spec: str, count: int, timeout_s: float = 10.0) -> Iterator[np.ndarray]:
    """Up to `count` good frames. Undecodable frames are skipped; a source that gives none in `timeout_s`
    (a camera unplugged or busy, a dead URL) raises SourceError."""
    return (frame for _, frame in timed_frames(spec, count, timeout_s))


def timed_frames(
    spec: str, count: int, timeout_s: float = 10.0, counts: FrameCounts | None = None
) -> Iterator[tuple[float, np.ndarray]]:
    """`frames`, each with its time in seconds: a video file's own timestamps (its frame rate's, where the
    container gives none), a camera's or a stream's since its first frame; a still image is at 0. `counts`
    tallies the frames read and dropped as they come."""
    counts = counts if counts is not None else FrameCounts()
    source = parse_source(spec)
    if isinstance(source, str) and Path(source).suffix.lower() in IMAGE_SUFFIXES:
        try:
            image = load_image(source)
        except ImageLoadError as exc:
            raise SourceError(str(exc)) from exc
        counts.took()
        yield 0.0, image
        return
    if isinstance(source, str) and "://" not in source and not Path(source).exists():
        raise SourceError(f"{source}: no such file; give a camera index (0), a video or image file, or a URL")
    capture = _quietly_opened(source)
    if not capture.isOpened():
        capture.release()
        raise SourceError(_cannot_open(source))
    if is_live(spec):
        newest = NewestFrame(capture, lambda: _quietly_opened(source), counts)
        yield from _live_frames(newest, spec, count, timeout_s)
        return
    try:
        rate = capture.get(cv2.CAP_PROP_FPS)
        given, read = 0, 0
        while given < count:
            ok, frame = capture.read()
            read += ok
            if not ok:
                break  # a video file has ended
            if frame is not None and frame.size:
                given += 1
                counts.took()
                seconds = capture.get(cv2.CAP_PROP_POS_MSEC) / 1000
                if seconds <= 0 and read > 1 and rate > 0:  # a container without timestamps: count frames
                    seconds = (read - 1) / rate
                yield seconds, frame
        if given == 0:
            raise SourceError(f"{spec}: gave no frames; is it a video OpenCV can decode?")
    finally:
        capture.release()


def _live_frames(newest: NewestFrame, spec: str, count: int, timeout_s: float) -> Iterator[tuple[float, np.ndarray]]:
    """The newest frame each time one is asked for, timed from the first one taken."""
    try:
        first = None
        for _ in range(count):
            try:
                taken = newest.next(timeout_s)
            except cv2.error as exc:
                why = exc.err or str(exc).strip()
                fix = "plug it in again" if isinstance(parse_source(spec), int) else "check that the stream runs"
                raise SourceError(f"{spec}: the camera's driver failed ({why}); {fix}") from exc
            if taken is None:
                raise SourceError(f"{spec}: no frame for {timeout_s:.0f} s; the camera or stream stopped")
            stamp, frame = taken
            first = stamp if first is None else first
            yield stamp - first, frame
    finally:
        newest.close()


class NewestFrame:
    """A camera or stream read in a thread of its own, so that whoever asks gets the newest frame: the camera
    does not wait on a slow referee, and what it films meanwhile is dropped, not queued (a stream's queue would
    only grow, and the verdicts fall behind the table). A capture that stops giving frames (a camera unplugged,
    a stream gone) is opened again, waiting longer each time, up to REOPEN_WAIT_S between tries."""

    def __init__(
        self, capture: cv2.VideoCapture, reopen: Callable[[], cv2.VideoCapture], counts: FrameCounts | None = None
    ) -> None:
        self.counts = counts if counts is not None else FrameCounts()
        self._reopen = reopen
        self._ready = threading.Condition()
        self._frame: tuple[float, np.ndarray] | None = None
        self._failure: Exception | None = None
        self._stopped = False
        self._thread = threading.Thread(target=self._read, args=(capture,), daemon=True)
        self._thread.start()

    def next(self, timeout_s: float) -> tuple[float, np.ndarray] | None:
        """The newest frame not yet given, with its monotonic time when read; None if none comes in time. An
        error the capture raised (a backend that lost the device) is raised here."""
        deadline = time.monotonic() + timeout_s
        with self._ready:
            while self._frame is None and self._failure is None:
                if time.monotonic() > deadline:
                    return None
                self._ready.wait(POLL_S)
            if self._failure is not None:
                raise self._failure
            taken, self._frame = self._frame, None
            return taken

    def close(self) -> None:
        with self._ready:
            self._stopped = True
        self._thread.join(timeout=REOPEN_WAIT_S)  # a stalled stream may hold its read longer: it ends on its own

    def _read(self, capture: cv2.VideoCapture) -> None:
        wait = REOPEN_FIRST_S
        while not self._stopped:
            try:
                ok, frame = capture.read()
            except cv2.error as exc:  # the backend itself broke: opening it again would not mend it
                with self._ready:
                    self._failure = exc
                break
            if ok and frame is not None and frame.size:
                with self._ready:
                    self.counts.took(dropping=self._frame is not None)
                    self._frame = (time.monotonic(), frame)
                    self._ready.notify_all()
                wait = REOPEN_FIRST_S
                continue
            capture.release()
            time.sleep(wait)
            wait = min(2 * wait, REOPEN_WAIT_S)
            capture = self._reopen()
        capture.release()
