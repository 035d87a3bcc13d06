"""What a user is told when a frame source cannot be opened: the advice must fit the kind of source."""

import pytest

from vision.sources import SourceError, frames


def test_an_undecodable_video_is_not_called_a_camera(tmp_path) -> None:
    video = tmp_path / "table.mp4"
    video.write_bytes(b"not a video at all")
    with pytest.raises(SourceError) as error:
        next(frames(str(video), 1, timeout_s=1))
    assert str(video) in str(error.value)
    assert "video file" in str(error.value) and "plugged" not in str(error.value)


def test_a_missing_camera_is_named_as_one() -> None:
    with pytest.raises(SourceError, match=r"camera 97: .*plugged in"):
        next(frames("97", 1, timeout_s=1))
