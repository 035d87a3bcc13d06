"""What a user is told when a frame source cannot be opened: the advice must fit the kind of source."""

import cv2
import numpy as np
import pytest

from vision.sources import SourceError, frames, timed_frames


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
    timed = list(timed_frames(str(video), 100))
    assert [round(seconds, 3) for seconds, _ in timed] == [i / 5 for i in range(10)]
    assert [int(frame.mean() / 20 + 0.5) for _, frame in timed] == list(range(10))  # in order, none skipped
    assert len(list(frames(str(video), 4))) == 4


def test_a_photo_is_one_frame_at_time_zero(tmp_path) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.zeros((8, 8, 3), np.uint8))
    assert [seconds for seconds, _ in timed_frames(str(photo), 10)] == [0.0]
