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
from models.synth.backs import grid_table, turned_up
from models.synth.samples import filmed, race_frames, write_clip
from models.synth.scenes import SceneSpec, render_scene
from rules.blocks import blocks_matched
from rules.decko import DeckoCard, card_text
from vision.cards.artwork import CardFace
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


def darkened(film: str, path: Path, light: float = 0.12) -> Path:
    """A copy of `film` at `path` filmed with the light cut to `light` of its own, as in a room left unlit."""

    def frames() -> Iterator[np.ndarray]:
        capture = cv2.VideoCapture(film)
        while (frame := capture.read()[1]) is not None:
            yield np.round(frame * light).astype(np.uint8)
        capture.release()

    write_clip(path, frames())
    return path


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


# Grid o' Digits filmed (`grid_film`): the cells (by the decimal each holds) face up, state by state, and the digits
# revealed. Player 1 reveals two right and a wrong card, which go back face down; player 2 reveals the first five
# again (kept), two more right and the same wrong card, which go back down with the two; player 1 keeps the next five.
GRID_STATES: list[tuple[int, ...]] = [
    (), (0,), (0, 1), (0, 1, 12), (),
    *((*range(n),) for n in range(1, 6)), (*range(6),), (*range(7),), (*range(7), 12), (*range(5),),
    *((*range(n),) for n in range(6, 11)),
]  # fmt: skip
GRID_REVEALS = [1, 4, 7, 1, 4, 1, 5, 9, 2, 6, 7, 2, 6, 5, 3, 5]
GRID_FRAMES_PER_STATE = 6


def grid_film(path: Path, seed: int, states: int = len(GRID_STATES), first: int = 0) -> None:
    """A film at `path` of the held-out grid of `seed` played as GRID_STATES have it, from the `first` to the
    `states`th."""
    spec, order = grid_table(random.Random(seed), "heldout")
    cell = {decimal: k for k, decimal in enumerate(order)}

    def frames() -> Iterator[np.ndarray]:
        for n, decimals in enumerate(GRID_STATES[first:states], start=first):
            image = render_scene(seed, turned_up(spec, order, {cell[d] for d in decimals})).image
            yield from filmed(image, GRID_FRAMES_PER_STATE, seed + n)

    write_clip(path, frames())


def filmed_table(seed: int, card: DeckoCard | None) -> Iterator[np.ndarray]:
    """The held-out table of `seed` with `card` alone on it (None: none), filmed for FLASH_FRAMES_PER_STEP
    frames: the same card design in the same place whatever the card."""
    digits = (card or 0,) if isinstance(card, int | None) else card
    faces = (CardFace("digit" if len(digits) == 1 else "wild", digits),)
    spec = SceneSpec(split="heldout", layout="row", faces=faces, one_deck_style=True, laid=int(card is not None))
    return filmed(render_scene(seed, spec).image, FLASH_FRAMES_PER_STEP, seed)


def flash_film(path: Path, seed: int, answers: list[DeckoCard]) -> None:
    """A film at `path` of the flash-card drill on the held-out table of `seed`: the table empty, then each of
    `answers` laid alone and taken away again."""
    steps = [None, *(step for answer in answers for step in (answer, None))]
    write_clip(path, (frame for card in steps for frame in filmed_table(seed, card)))


FLASH_FRAMES_PER_STEP = 5
