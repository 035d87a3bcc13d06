"""Where no card is read, the straight run of readings that may be a row of five, and the window to read it in.

Five sticks laid end to end (card 1) make one long straight line. At the first look's scale the locator sees the
row's two ends but hardly its joints, which are a hair's gap: it reads the row as one to three long readings,
often faintly, or as nothing at all, as it has learnt to leave a plank's seam. Of 160 card-1 layouts rendered
with the held-out split (tuning seeds 9800000..) 140 were read, and every one of 160 layouts of four other cards
on the same seeds; in 16 of the 20 misses the end peaks marked at most two of the four joints. Twice as close the
joints show, and the row is read as five sticks.

The window is laid along the line of the best reading (its score times its length), or, where that reading is
taken as turned off the row, along the line fitted through what the run holds: it holds the readings and end
peaks along that line, is a share of the frame's sides (ROW_SHARES; turned to lie along a steep row), and is
stretched where the row would not fit with the table beyond its ends in sight. A row read there must be the run
(`Run.holds`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.sticks import Edge, card_number
from vision.sticks.completion import MIN_STICK_PX
from vision.sticks.detections import Stick, median_length
from vision.sticks.reread import ROW_FORESHORTENING

ROW_CARD = card_number(Edge((k, 0), (k + 1, 0)) for k in range(5))  # five sticks in a row: the one card read so

# The window's sizes, as shares of each side of the frame, tried in turn: twice as close as the first look reads,
# then, where that reads no row, a third closer again. On tuning seeds the second read 5 of 360 rows more
# (9800000.. and 9900000..); read alone, it lost 3 that the first reads.
ROW_SHARES = (0.5, 0.375)
ROW_TURN = np.radians(6.0)  # how far a reading may turn from the row's line and still lie along it
# How far off the row's line a reading's ends or an end peak may lie: this share of the best reading's length,
# and ROW_ACROSS_PX more for the ends' own scatter.
ROW_ACROSS = 0.06
ROW_ACROSS_PX = 3.0
# How far beyond the best reading's ends (in its lengths) an end peak on its line may stretch the row: a row of
# five read as a run of two may have its far end marked three sticks on.
ROW_REACH = 2.0
# The least length of a run looked at, as a share of the frame's longer side: five sticks the renderer's shortest
# (45 px at 1280x720) make a row of 225 px. Of 40 held-out empty tables (pens, notes, coins) 11 had a run this long,
# and 8 of them an end peak along it; of the 20 rows missed, 17 and 17.
ROW_LEAST = 0.15
ROW_FILL = 0.85  # the most of the window's width and height the row may span: its ends need the table beyond
MOST_STRETCH = 1.5  # the most the window grows to hold a long row: still a third closer than the first look

Reading = tuple[float, np.ndarray]  # (score, ends 2x2 frame px)


@dataclass(frozen=True)
class Run:
    """A straight run of readings: a point on its line and the line's direction (frame px, unit), how far off
    the line a point may lie, and the run's extent along the line from that point (`low`, `high`)."""

    origin: np.ndarray
    along: np.ndarray
    reach: float
    low: float
    high: float

    def window(self, size: tuple[int, int], share: float) -> tuple[int, int, int, int]:
        """x, y, width, height of the window laid along the run in a frame of `size`: `share` of its sides,
        turned where that holds the run better, stretched (up to MOST_STRETCH) where the run would fill more
        than ROW_FILL of it."""
        centre = self.origin + self.along * (self.low + self.high) / 2
        span = np.abs(self.along) * (self.high - self.low)  # the run's extent across the frame and down it
        long_side, short_side = max(size) * share, min(size) * share
        stretch, (w, h) = min(
            (max(1.0, span[0] / (ROW_FILL * w), span[1] / (ROW_FILL * h)), (w, h))
            for w, h in ((long_side, short_side), (short_side, long_side))
        )
        stretch = min(stretch, MOST_STRETCH)
        w, h = min(round(w * stretch), size[0]), min(round(h * stretch), size[1])
        x0 = int(np.clip(round(centre[0] - w / 2), 0, size[0] - w))
        y0 = int(np.clip(round(centre[1] - h / 2), 0, size[1] - h))
        return x0, y0, w, h

    def on_line(self, stick: Stick) -> bool:
        """Whether a stick (frame px) lies along the run's line: both ends within twice its reach."""
        normal = np.array([-self.along[1], self.along[0]])
        return bool((np.abs((stick.ends - self.origin) @ normal) < 2 * self.reach).all())

    def holds(self, row: list[Stick], others: list[Stick], size: tuple[int, int]) -> bool:
        """Whether a row read closer (frame px) is the run and of a size with the frame's other sticks: it lies
        along the run's line and spans ROW_LEAST of a frame of `size`, as the run does, and its sticks are at the
        median as long as the `others` read off the line, within ROW_FORESHORTENING either way. The window's own
        closer looks see it four times as close, where the marks along one stick, or two in line, passed for the
        joints of five."""
        span = np.ptp((np.array([s.ends for s in row]).reshape(-1, 2) - self.origin) @ self.along)
        if not all(self.on_line(s) for s in row) or span < ROW_LEAST * max(size):
            return False
        off_line = [s for s in others if not self.on_line(s)]
        if not off_line:
            return True  # a row alone on the table: no other stick gives the length
        ratio = median_length(row) / median_length(off_line)
        return 1 / ROW_FORESHORTENING <= ratio <= ROW_FORESHORTENING


def straight_run(readings: list[Reading], end_points: np.ndarray, size: tuple[int, int]) -> Run | None:
    """The run along the best reading's line (see the module's docstring) in a frame of `size`, given the
    locator's readings and end peaks (n x 2, frame px); None without a reading MIN_STICK_PX long, or where the
    run is shorter than ROW_LEAST of the frame or no end peak lies along it. Where the reading's own line gives
    no run, the reading is taken as turned up to ROW_TURN off the row (`_run_along`)."""
    if not readings:
        return None
    _, (a, b) = max(readings, key=lambda r: r[0] * np.linalg.norm(r[1][1] - r[1][0]))
    if np.linalg.norm(b - a) < MIN_STICK_PX:
        return None
    _, _, normal, reach = _line(a, b)
    ends = np.array([e for _, e in readings], np.float64).reshape(-1, 2, 2)
    steps = ends[:, 1] - ends[:, 0]
    sines = np.abs(steps @ normal) / np.maximum(np.linalg.norm(steps, axis=1), 1e-9)
    in_line = (sines < np.sin(ROW_TURN)) & (np.abs((ends - a) @ normal) < reach).all(axis=1)
    held = np.concatenate([ends[in_line].reshape(-1, 2), [a, b]])
    peaks = np.asarray(end_points, np.float64).reshape(-1, 2)
    run = _run_along(a, b, held, peaks, size, turned=False)
    return run if run is not None else _run_along(a, b, held, peaks, size, turned=True)


def _run_along(
    a: np.ndarray, b: np.ndarray, held: np.ndarray, peaks: np.ndarray, size: tuple[int, int], turned: bool
) -> Run | None:
    """The run of the reading a-b, the points `held` along it (its own ends and those of the readings in line
    with it) and the end peaks on its line, or None (see `straight_run`). If `turned`, the reading's direction is
    taken as known only to within ROW_TURN: a peak beyond its ends may lie off its line by as much, and the run's
    line is fitted through all it holds (a short faint reading a few degrees off a row on the held-out marble,
    40275, missed the row's far end by a stick's width). The first look is the reading's line alone: fitted on
    every run, the line moved rows read before out of their windows (tuning seeds 9800000..)."""
    length, along, normal, reach = _line(a, b)
    t = (peaks - a) @ along
    slack = np.maximum(0.0, np.maximum(-t, t - length)) * np.sin(ROW_TURN) if turned else 0.0
    marked = (np.abs((peaks - a) @ normal) < reach + slack) & (t > -ROW_REACH * length) & (t < (1 + ROW_REACH) * length)
    if not marked.any():
        return None
    points = np.concatenate([held, peaks[marked]])
    origin = a
    if turned:
        origin = points.mean(axis=0)
        along = np.linalg.svd(points - origin)[2][0]
        along = along if along @ (b - a) >= 0 else -along
    reached = (points - origin) @ along
    low, high = float(reached.min()), float(reached.max())
    if high - low < ROW_LEAST * max(size):
        return None
    return Run(np.asarray(origin, np.float64), along, reach, low, high)


def _line(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, float]:
    """A reading a-b's length, direction and normal (unit), and how far off its line a point may lie and still be
    on it (ROW_ACROSS of its length and ROW_ACROSS_PX)."""
    length = float(np.linalg.norm(b - a))
    along = (b - a) / length
    return length, along, np.array([-along[1], along[0]]), ROW_ACROSS * length + ROW_ACROSS_PX
