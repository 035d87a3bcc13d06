"""What a user is told when a frame source cannot be opened: the advice must fit the kind of source."""

import itertools
import time

import cv2
import numpy as np
import pytest

from vision.sources import FrameCounts, NewestFrame, SourceError, _live_frames, frames, timed_frames


def test_an_undecodable_video_is_not_called_a_camera(tmp_path) -> None:
    video = tmp_path / "table.mp4"
    video.write_bytes(b"not a video at all")
    with pytest.raises(SourceError) as error:
        next(frames(str(video), 1, timeout_s=1))
    assert str(video) in str(error.value)
    assert "video file" in str(error.value) and "plugged" not in str(error.value)


def test_a_missing_camera_is_named_as_one_and_opencv_keeps_its_own_warnings(capfd) -> None:
    with pytest.raises(SourceError, match=r"camera 97: .*plugged in"):
        next(frames("97", 1, timeout_s=1))
    assert "WARN" not in capfd.readouterr().err  # OpenCV's V4L2 and FFmpeg lines would only confuse


def test_a_video_files_frames_come_with_their_times(tmp_path) -> None:
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for shade in range(0, 200, 20):
        writer.write(np.full((48, 64, 3), shade, np.uint8))
    writer.release()
    counts = FrameCounts()
    timed = list(timed_frames(str(video), 100, counts=counts))
    assert [round(seconds, 3) for seconds, _ in timed] == [i / 5 for i in range(10)]
    assert (counts.read, counts.dropped) == (10, 0)  # a film waits for its referee: nothing is dropped
    assert [int(frame.mean() / 20 + 0.5) for _, frame in timed] == list(range(10))  # in order, none skipped
    assert len(list(frames(str(video), 4))) == 4


def test_a_photo_is_one_frame_at_time_zero(tmp_path) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.zeros((8, 8, 3), np.uint8))
    assert [seconds for seconds, _ in timed_frames(str(photo), 10)] == [0.0]


class FakeCamera:
    """A camera filming at `fps`: each frame shows its number; after `fails_after` frames it gives none."""

    def __init__(self, fps: float = 100.0, fails_after: int | None = None, start: int = 0) -> None:
        self.fps, self.fails_after, self.shown, self.start = fps, fails_after, 0, start

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(1 / self.fps)
        if self.fails_after is not None and self.shown >= self.fails_after:
            return False, None
        self.shown += 1
        return True, np.full((4, 4, 3), (self.start + self.shown) % 256, np.uint8)

    def release(self) -> None:
        pass


def test_a_slow_referee_gets_the_newest_frame_not_a_queue() -> None:
    """A camera at 100 fps read by a referee taking 50 ms a frame: each frame taken is the one just filmed,
    and the ones between are dropped and counted."""
    camera = FakeCamera()
    newest = NewestFrame(camera, lambda: FakeCamera())
    try:
        taken = []
        for _ in range(8):
            _, frame = newest.next(1.0)
            taken.append((int(frame[0, 0, 0]), camera.shown))
            time.sleep(0.05)
    finally:
        newest.close()
    assert all(shown - number <= 3 for number, shown in taken)  # a queue would fall 5 frames behind a turn
    assert all(b - a >= 3 for (a, _), (b, _) in itertools.pairwise(taken))  # what was filmed meanwhile: dropped
    counts = newest.counts
    assert counts.dropped >= 20 and counts.read >= counts.dropped + len(taken)
    assert 20 < counts.rate.per_second() <= 101  # the camera's rate, not the referee's 20 a second


def test_a_camera_that_drops_out_is_opened_again() -> None:
    """Unplugged after 5 frames, and back when opened again: the frames go on, numbered from 100."""
    newest = NewestFrame(FakeCamera(fails_after=5), lambda: FakeCamera(start=100))
    try:
        numbers = [int(newest.next(2.0)[1][0, 0, 0]) for _ in range(10)]
    finally:
        newest.close()
    assert numbers[0] <= 5 and numbers[-1] > 100


def test_a_camera_that_never_comes_back_ends_the_watch_with_a_clear_error() -> None:
    live = _live_frames(NewestFrame(FakeCamera(fails_after=2), lambda: FakeCamera(fails_after=0)), "0", 10, 1.0)
    with pytest.raises(SourceError, match=r"0: no frame for 1 s; the camera or stream stopped"):
        list(live)


class BrokenBackend(FakeCamera):
    """A camera whose driver raises after two frames, as OpenCV's backends do when a device is lost."""

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.shown >= 2:
            raise cv2.error("V4L2: the device is gone")
        return super().read()


def test_a_camera_whose_driver_fails_ends_the_watch_with_a_clear_error() -> None:
    live = _live_frames(NewestFrame(BrokenBackend(), lambda: FakeCamera()), "0", 10, 1.0)
    said = r"0: the camera's driver failed \(V4L2: the device is gone\); plug it in again"
    with pytest.raises(SourceError, match=said):
        list(live)


class ModeAsked(FakeCamera):
    """A camera that films in the mode it is last asked for; `asked` holds what it was asked, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[int, float]] = []
        self.size = [640, 480]

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        self.asked.append((prop, value))
        if prop in (cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT):
            self.size[prop == cv2.CAP_PROP_FRAME_HEIGHT] = int(value)
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        ok, _ = super().read()
        return ok, np.zeros((self.size[1], self.size[0], 3), np.uint8)


def test_a_camera_is_asked_for_720p_and_a_video_file_is_not(monkeypatch, tmp_path) -> None:
    import vision.sources

    camera = ModeAsked()
    monkeypatch.setattr(vision.sources.cv2, "VideoCapture", lambda source: camera)
    assert next(frames("0", 1)).shape == (720, 1280, 3)
    assert camera.asked[0] == (cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))  # before the size, as V4L2 needs

    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    opened: list[Recorded] = []
    monkeypatch.setattr(
        vision.sources.cv2, "VideoCapture", lambda source: opened.append(Recorded(source)) or opened[-1]
    )
    assert next(frames(str(video), 1)).shape == (48, 64, 3)
    assert len(opened) == 1 and not opened[0].asked  # a file is read as it was filmed


class Recorded:
    """OpenCV's own capture, keeping what it was asked to set."""

    def __init__(self, source: str) -> None:
        self.capture, self.asked = REAL_CAPTURE(source), []

    def set(self, prop: int, value: float) -> bool:
        self.asked.append((prop, value))
        return self.capture.set(prop, value)

    def __getattr__(self, name: str):
        return getattr(self.capture, name)


REAL_CAPTURE = cv2.VideoCapture
