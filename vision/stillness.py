"""A table that has not changed since it was last read need not be read again.

A camera over a game sees the same table most of the time: between turns nothing moves but the sensor's noise.
Once two readings of the still table agree, a frame that differs from the frame last read by no more than that
noise is answered with the last reading, which is what reading it again would give; a watch then spends a
fraction of a core while the table is still, and reads at once when something on it moves. A table just
changed is read until two readings agree, so a reading the noise tipped in one frame is not repeated into a
settled verdict. Every few still frames one is read all the same, so that a change too faint for the
comparison (a thin stick nudged on a cloth of its colour) is read a moment later rather than never.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import cv2
import numpy as np

T = TypeVar("T")

# Frames are compared in grey at half size, a window of WINDOW x WINDOW of its pixels (8x8 of the frame's) at a
# time: a card laid, a tile or a stick moved changes many such windows by tens of grey levels, while a
# webcam's noise averages out within one.
WINDOW = 4
# A window's change counts past NOISE_TIMES times the spread of the windows' changes over the frame (the
# frame's noise), but never under LEAST_CHANGE grey levels nor over MOST_CHANGE. Rendered clips' still frames
# change by 2 at most, a dim webcam's (noise of 12 levels, JPEG at 60) by 7; a matchstick 2 px wide, 25 levels
# darker than its cloth, changes a window it crosses by 6 or more.
NOISE_TIMES = 6.0
LEAST_CHANGE, MOST_CHANGE = 5.0, 12.0
READ_AGAIN_AFTER = 5  # still frames answered from memory before one is read again


class Remembered(Generic[T]):
    """`read` over a watch's frames, answering a frame that shows the table unchanged with the last reading once
    two readings of the still table agree: their `key`s are equal (readings whose keys never are, read every frame)."""

    def __init__(self, read: Callable[[np.ndarray], T], key: Callable[[T], Any] = lambda reading: reading) -> None:
        self._read, self._key = read, key
        self._last: np.ndarray | None = None  # the frame last read, grey at half size
        self._reading: T | None = None
        self._last_key: Any = None  # the last reading's key
        self._agreed = False  # the last two readings were of a still table, and agree
        self._answered = 0  # still frames answered from memory since the last read
        self.read_count = 0  # frames read, not answered from memory

    def __call__(self, frame: np.ndarray) -> T:
        small = grey_half(frame)
        last = self._last
        still = last is not None and last.shape == small.shape and not moved(last, small)
        if still and self._agreed and self._answered < READ_AGAIN_AFTER:
            self._answered += 1
            return copy.copy(self._reading)  # type: ignore[return-value]
        try:
            reading = self._read(frame)
        except BaseException:
            self._last, self._agreed = None, False  # the next frame is read, whatever it shows
            raise
        key = self._key(reading)
        self._agreed = still and key == self._last_key
        self._last, self._reading, self._last_key, self._answered = small, reading, key, 0
        self.read_count += 1
        return copy.copy(reading)


def moved(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether anything moved between two grey half-size frames (`grey_half`): a window whose mean change,
    apart from the whole frame's (a camera's exposure stepping), stands out of the noise."""
    change = cv2.blur(after - before, (WINDOW, WINDOW))
    apart = change[::WINDOW, ::WINDOW]  # windows that share no pixel: the noise's spread
    shift = float(np.median(apart))
    noise = 1.4826 * float(np.median(np.abs(apart - shift)))
    level = min(max(NOISE_TIMES * noise, LEAST_CHANGE), MOST_CHANGE)
    return float(np.abs(change - shift).max()) > level


def grey_half(frame: np.ndarray) -> np.ndarray:
    """The frame as frames are compared: grey, at half size, in float."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = grey.shape[:2]
    return cv2.resize(grey, (max(w // 2, 1), max(h // 2, 1)), interpolation=cv2.INTER_AREA).astype(np.float32)
