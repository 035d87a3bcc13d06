"""What a filmed table shows once it holds still: each frame's reading in, the states they settle to out.

A reading counts once it is read alike (by `key`) for `settle` frames in a row, and is timed at the first of
them: a hand passing over the table, or one frame misread, changes nothing. A frame where nothing was read
(None) neither counts nor breaks a run. Plain values in and out, as every game's rules take.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

SETTLE_FRAMES = 3

T = TypeVar("T")


class SettlingError(ValueError):
    """A settling option that cannot work."""


@dataclass(frozen=True, slots=True)
class Settled(Generic[T]):
    """A state the table settled to at `seconds` (the first frame of its run), as read in that frame."""

    seconds: float
    reading: T


class Settler(Generic[T]):
    """Readings added frame by frame (`add`); `settled` holds the states settled so far, each different from
    the one before it by `key`."""

    def __init__(self, settle: int = SETTLE_FRAMES, key: Callable[[T], Hashable] = lambda reading: reading) -> None:
        if settle < 1:
            raise SettlingError(f"settle must be 1 or more, got {settle}")
        self.settle, self.key = settle, key
        self.settled: list[Settled[T]] = []
        self._run: Settled[T] | None = None  # the first frame of the current run
        self._run_key: Hashable = None
        self._run_length = 0

    def add(self, seconds: float, reading: T | None) -> Settled[T] | None:
        """The frame at `seconds` read `reading` (None: nothing read); the state it settles, if any."""
        if reading is None:
            return None
        key = self.key(reading)
        if self._run is None or key != self._run_key:
            self._run, self._run_key, self._run_length = Settled(seconds, reading), key, 0
        self._run_length += 1
        if self._run_length != self.settle or (self.settled and self.key(self.settled[-1].reading) == key):
            return None
        self.settled.append(self._run)
        return self._run
