"""Sources that behave as real ones do (a camera filming at its own rate; a camera unplugged mid-watch; a film
of a game laid), for the watch tests."""

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

import server.watching as watching
import vision.sources as sources
from models.evaluate import appending_line_spec, block_sets_spec
from models.synth.samples import race_frames, write_clip
from rules.blocks import blocks_matched
from rules.decko import card_text
from vision.sources import FrameCounts, SourceError, timed_frames

UNPLUGGED = "camera 0: no frame for 10 s; the camera or stream stopped"


def unplug_after(monkeypatch: pytest.MonkeyPatch, frames: int) -> None:
    """Every watch's source gives `frames` frames, then fails as an unplugged camera does."""

    def stops(source: str, count: int, counts: FrameCounts | None = None) -> Iterator[tuple[float, np.ndarray]]:
        for n, frame in enumerate(timed_frames(source, count, counts=counts)):
            if n == frames:
                raise SourceError(UNPLUGGED)
            yield frame

    monkeypatch.setattr(watching, "timed_frames", stops)


class FilmedCamera:
    """A camera looking at the table a film shows: the film's frames at `fps`, whether or not anyone asks for
    them, then its last frame held (the table as the players left it). While `plugged` is clear it gives
    nothing, as a camera pulled out."""

    def __init__(self, film: str, fps: float, plugged: threading.Event | None = None) -> None:
        self._film, self._wait = cv2.VideoCapture(film), 1 / fps
        self._last: np.ndarray | None = None
        self._plugged = plugged

    def isOpened(self) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(self._wait)
        if self._plugged is not None and not self._plugged.is_set():
            return False, None
        ok, frame = self._film.read()
        self._last = frame if ok else self._last
        return self._last is not None, self._last

    def release(self) -> None:
        self._film.release()


def camera_filming(
    monkeypatch: pytest.MonkeyPatch, film: str, fps: float, plugged: threading.Event | None = None
) -> None:
    """Every camera opened shows `film` as a FilmedCamera does (while `plugged`, if given, is set)."""
    monkeypatch.setattr(sources, "_quietly_opened", lambda source: FilmedCamera(film, fps, plugged))


def appending_film(path: Path, first_seed: int, cards: tuple[int, int] = (8, 12), wilds: int = 2) -> list[str]:
    """A film at `path` of a held-out appending line (the first from `first_seed` with `cards` cards and at least
    `wilds` Wilds) laid a card at a time; its cards, as the judge writes them."""

    def spec(seed: int):
        return appending_line_spec(random.Random(seed), "heldout")

    def fits(seed: int) -> bool:
        faces = spec(seed).faces[1:]
        return cards[0] <= len(faces) <= cards[1] and sum(f.kind == "wild" for f in faces) >= wilds

    seed = next(s for s in range(first_seed, first_seed + 1000) if fits(s))
    write_clip(path, race_frames(seed, spec(seed)))
    return [card_text(f.played) for f in spec(seed).faces[1:]]


def block_sets_film(path: Path, seed: int) -> list[int]:
    """A film at `path` of the held-out block-game sets of `seed` set down a card at a time; the block each set
    makes (the first, where its Wilds make more than one)."""
    spec = block_sets_spec(random.Random(seed), "heldout")
    write_clip(path, race_frames(seed, spec))
    played = [face.played for face in spec.faces]
    return [blocks_matched(played[k : k + 5])[0] for k in range(0, len(played), 5)]
