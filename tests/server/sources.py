"""Sources that fail as real ones do, for the watch tests."""

from collections.abc import Iterator

import numpy as np
import pytest

import server.watching as watching
from vision.sources import SourceError, timed_frames

UNPLUGGED = "camera 0: no frame for 10 s; the camera or stream stopped"


def unplug_after(monkeypatch: pytest.MonkeyPatch, frames: int) -> None:
    """Every watch's source gives `frames` frames, then fails as an unplugged camera does."""

    def stops(source: str, count: int) -> Iterator[tuple[float, np.ndarray]]:
        for n, frame in enumerate(timed_frames(source, count)):
            if n == frames:
                raise SourceError(UNPLUGGED)
            yield frame

    monkeypatch.setattr(watching, "timed_frames", stops)
