"""Tiles followed from frame to frame of a filmed table, so that a game is judged on tiles, not on frames.

Each frame's readings are matched to the tiles already followed by where they lie (within MATCH_CELLS of a
tile's width of its centre). A tile counts once it is read in SETTLE_FRAMES frames in a row, and is timed at
the first of them; until then a reading is a hand, a shadow or a misreading passing by. A tile counted keeps the
mean of its outlines, which is steadier than any one frame's, and the pips read most often, so one frame's
misread pip changes nothing; should later frames outvote the first (a shadow over the tile as it settled), the
tile is read again. It leaves the table only when unseen for FORGET_SECONDS: a hand laying the next tile hides
its neighbours for a moment. But where the tracker is told tiles are replaced (`replaceable`: a hand area), a
tile counted, out of sight for SETTLE_FRAMES frames and then read with other pips in twice as many frames in a
row, was taken up and another put in its place (a hand's tile laid and a tile drawn into its place): the first
leaves and the other is laid, timed at the first of those frames. The table
changes only when a tile comes, goes or is read again, so whatever is worked out from it (the pis) holds still
in between.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rules.settling import SETTLE_FRAMES
from vision.dominoes.detection import Domino, Half
from vision.dominoes.tile import TileFrame

MATCH_CELLS = 0.5  # a tile laid beside another is a whole width away; one frame's outline is off far less
FORGET_SECONDS = 3.0
MEAN_OVER = 10  # frames the outline is averaged over: later readings still count if the first were poor


@dataclass
class _Track:
    """One tile followed: its outline in its own corner order, and each reading's pips in that order."""

    id: int
    corners: np.ndarray  # (4, 2): the mean of its outlines
    pips: Counter[tuple[int, int]]
    first_seen: float  # the first frame of its current run of sightings
    last_seen: float
    run: int = 1  # frames in a row it was read in, until it counts
    counted: bool = False
    readings: int = 1
    told: tuple[int, int] | None = None  # the pips the table last had for it
    missed: int = 0  # frames in a row it was not read in, up to the latest
    other: tuple[tuple[int, int], int, float] | None = None  # after a gap, other pips read: them, frames, since

    @property
    def read_as(self) -> tuple[int, int]:
        """The pips read most often; a tie keeps what the table has (else the first read), so that a tile
        wavering between two readings is not read again at every frame."""
        return max(self.pips, key=lambda pips: (self.pips[pips], pips == self.told))

    @property
    def width(self) -> float:
        return float(2 * np.linalg.norm(TileFrame.from_corners(self.corners).v))

    def domino(self) -> Domino:
        top, bottom = self.read_as
        a, b = TileFrame.from_corners(self.corners).halves()
        return Domino(self.corners, (Half(a, top), Half(b, bottom)), self.pips[self.read_as] / sum(self.pips.values()))

    def add(self, seconds: float, reading: Domino) -> None:
        corners, pips = _in_order(reading, self.corners)
        weight = 1 / min(self.readings + 1, MEAN_OVER)
        self.corners = (1 - weight) * self.corners + weight * corners
        self.pips[pips] += 1
        self.readings += 1
        self.run += 1
        self.last_seen = seconds
        self.missed = 0


def _in_order(reading: Domino, corners: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """The reading's outline and pips in the corner order of `corners`: the same tile read from its other end
    has its corners half a turn round and its pips the other way."""
    turned = np.roll(reading.corners, 2, axis=0)
    if np.linalg.norm(turned - corners) < np.linalg.norm(reading.corners - corners):
        return turned.astype(np.float64), reading.pips[::-1]
    return reading.corners.astype(np.float64), reading.pips


def _ids(tracks: list[_Track]) -> tuple[int, ...]:
    return tuple(t.id for t in tracks)


@dataclass(frozen=True)
class TableChange:
    """The table when a tile came, went or was read again: every tile counted, those laid (timed at the first
    frame each was read in), those that left (timed at the last frame each was seen in) and those whose pips
    the later frames outvoted (timed at the frame that tipped the vote), by the tracker's tile ids."""

    seconds: float
    tiles: dict[int, Domino]
    laid: tuple[int, ...]
    left: tuple[int, ...]
    reread: tuple[int, ...] = ()


@dataclass
class TileTracker:
    """Readings added frame by frame (`add`); `tiles` are the tiles counted so far."""

    settle: int = SETTLE_FRAMES
    forget: float = FORGET_SECONDS
    # Where a tile read with other pips after being out of sight is another tile put in its place (a hand area,
    # refilled): elsewhere it is the same tile misread (a hand over its pips), and the vote keeps it.
    replaceable: Callable[[Domino], bool] = lambda domino: False
    _tracks: list[_Track] = field(default_factory=list)
    _next_id: int = 0
    _latest: float | None = None  # the latest frame's seconds

    @property
    def tiles(self) -> dict[int, Domino]:
        return {t.id: t.domino() for t in self._tracks if t.counted}

    @property
    def hidden(self) -> tuple[int, ...]:
        """The tiles counted that the latest frame did not read: under a hand, or taken away and not yet
        forgotten. None hidden, the table as counted is all in sight."""
        return _ids([t for t in self._tracks if t.counted and t.last_seen != self._latest])

    def add(self, seconds: float, readings: list[Domino]) -> TableChange | None:
        """The frame at `seconds` read `readings`; the change it makes to the table, if any."""
        self._latest = seconds
        matched = self._match(readings)
        replaced: dict[int, _Track] = {}  # old track's id(): the tile put in its place
        for k, track in matched.items():
            if not self._another_tile(track, readings[k], seconds):
                track.add(seconds, readings[k])
            elif track.other is not None and track.other[1] >= 2 * self.settle:
                replaced[id(track)] = self._new_track(readings[k], *track.other[1:])
        seen = {id(t) for t in matched.values()} | {id(t) for t in replaced.values()}
        self._tracks += replaced.values()
        for k in sorted(set(range(len(readings))) - set(matched)):
            reading = readings[k]
            track = self._new_track(reading, 1, seconds)
            self._tracks.append(track)
            seen.add(id(track))
        laid, left, kept = [], [], []
        for track in self._tracks:
            if not track.counted and id(track) not in seen:
                continue  # a run broken before it counted: never a tile
            if id(track) not in seen:
                track.other = None  # other pips count only in frames in a row
                track.missed += 1
            if track.counted and (seconds - track.last_seen > self.forget or id(track) in replaced):
                left.append(track)
                continue
            if not track.counted and track.run >= self.settle:
                track.counted = True
                laid.append(track)
            kept.append(track)
        self._tracks = kept
        reread = [t for t in kept if t.counted and t.told is not None and t.read_as != t.told]
        if not laid and not left and not reread:
            return None
        for track in kept:
            if track.counted:
                track.told = track.read_as
        # A frame that lays a tile may also tip a vote: the change is timed by the tile laid.
        when = min([t.first_seen for t in laid] or [t.last_seen for t in left] or [seconds])
        return TableChange(when, self.tiles, _ids(laid), _ids(left), _ids(reread))

    def _new_track(self, reading: Domino, run: int, since: float) -> _Track:
        """A track for a tile read alike in `run` frames in a row since `since`, the last of them `reading`."""
        corners = reading.corners.astype(np.float64)
        track = _Track(self._next_id, corners, Counter({reading.pips: run}), since, self._latest, run, readings=run)
        self._next_id += 1
        return track

    def _another_tile(self, track: _Track, reading: Domino, seconds: float) -> bool:
        """Whether `reading`, matched to `track`, may be another tile put where it lay: the tile counted, out of
        sight in the SETTLE_FRAMES frames before (taken up), now read with other pips. Such readings are kept
        apart (in `track.other`, while they agree) and the tile counts as out of sight meanwhile."""
        _, pips = _in_order(reading, track.corners)
        if (
            not track.counted
            or pips == track.read_as
            or (track.other is None and track.missed < self.settle)
            or not self.replaceable(reading)
        ):
            track.other = None
            return False
        if track.other is not None and track.other[0] == pips:
            track.other = (pips, track.other[1] + 1, track.other[2])
        else:
            track.other = (pips, 1, seconds)
        return True

    def _match(self, readings: list[Domino]) -> dict[int, _Track]:
        """Readings to tracks one to one, nearest pairs first, each within MATCH_CELLS of the track's width."""
        reach = [(track, track.corners.mean(axis=0), MATCH_CELLS * track.width) for track in self._tracks]
        pairs = []
        for k, reading in enumerate(readings):
            for track, center, most in reach:
                distance = float(np.linalg.norm(reading.center - center))
                if distance <= most:
                    pairs.append((distance, k, track))
        matched: dict[int, _Track] = {}
        for _, k, track in sorted(pairs, key=lambda p: p[0]):
            if k not in matched and all(t is not track for t in matched.values()):
                matched[k] = track
        return matched
