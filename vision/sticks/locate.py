"""Where the sticks are: a small fully convolutional network marks each stick's centre and its ends.

The shared locator network (vision/locator.py) sees the frame at about half size and answers on a grid of
STRIDE-pixel cells. Per stick, a centre heatmap, the sub-cell offset to the centre and the stick's
half-vector (centre to one end) in doubled-angle form, a stick read from either end being the same stick:
both ends come out directly. A second heatmap marks stick ends, with their own sub-cell offsets; each end
a centre gives is moved to the end peak near it, which is more exact than a long half-vector.

Marking centres rather than stick pixels keeps apart sticks laid end to end or meeting at a corner (their
centres are a stick's length or half of one apart) and counts crossed pick-up sticks; having seen cards,
the play mat and patterned tables as what is not a stick, the network does not answer to their edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.geometry import landscape, turned, turned_back
from vision.locator import (
    LocatorNetwork,
    cell_of,
    doubled,
    encode,
    read_peaks,
    reading_canvas,
    reading_scale,
    scaled_canvas,
    undoubled,
)
from vision.sticks.lattice import crossing_params, line_turn, segment_distance

INPUT_SIZE = (640, 368)  # width, height; a multiple of 16 for the network's four halvings
STRIDE = 4
GRID = (INPUT_SIZE[0] // STRIDE, INPUT_SIZE[1] // STRIDE)
CHANNELS = ("heat", "end_heat", "dx", "dy", "half_cos", "half_sin", "end_dx", "end_dy")
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "sticks_locate.onnx"
# The same network trained on with motion-blurred windows: a second look where the first reads no card.
BLURRED_MODEL_PATH = MODEL_PATH.with_name("sticks_locate_blurred.onnx")
PEAK_THRESHOLD = 0.3
FAINT_THRESHOLD = 0.1  # fainter peaks are read only where they complete a pattern (vision/sticks/recognize.py)
END_THRESHOLD = 0.2
END_SIGMA = 0.8  # cells
# How far an end peak may lie from the end a centre gives, in the reading's length: along the stick (a
# half-vector is mostly read too short or too long) and across it (a neighbour's end beside it is not its own).
END_REACH = 0.45
END_ACROSS = 0.1
# Sticks crossed near their middles share one centre peak, whose regressed half-vector, an average of
# theirs in doubled angles, comes out short: under CROSS_SHORT of the frame's median stick. There each
# stick is also read from two end peaks (scores CROSS_END and up) facing each other across the centre peak:
# midway within CROSS_CENTRE of their span from it, the span within CROSS_LENGTH of the median stick, and
# turned at least CROSS_TURN from the other stick there. Chosen on training-split validation renders.
CROSS_SHORT = 0.8
CROSS_END = 0.4
CROSS_CENTRE = 0.15
CROSS_LENGTH = (0.8, 1.25)
CROSS_TURN = np.radians(25.0)
# A stick crossed by another away from both middles keeps its own centre peak, and the other stick may get
# none: its centre lies on the first one's. It is read from two end peaks (CROSSED_END and up), one at least
# on no reading's end, whose segment crosses a stick read on its end peaks, turned CROSS_TURN or more from it,
# the span within CROSS_LENGTH of the median stick and its midpoint within CROSSED_REACH of the span from
# the read stick's centre, the crossing point CROSSED_INSIDE or more (of each length) from both sticks' ends.
# Not in a heap, where read sticks cross already: there pairs of different sticks' ends pass for sticks (on
# 110 training-split heaps, 130 such readings were false and 32 true). Chosen on training-split renders.
# Centre heat marks a stick on a segment (`LocatorReadings.stick_heat`) at its middle, where the half-vector read
# there runs along the segment within ALONG_TURN (the re-read's own tolerance, vision/sticks/reread.py): a crossing
# or turned stick's heat there is not one on the segment. A stick partly hidden (a lamp's hot spot, a hand) is read
# as its visible part, centred off the middle: its heat counts at a quarter point, where the length read is within
# PART of the segment's.
ALONG_TURN = np.radians(12.0)
QUARTERS = (0.25, 0.75)
PART = (0.35, 0.8)
CROSSED_REACH = 0.25
CROSSED_END = 0.3  # least end-peak score of such a pair
CROSSED_INSIDE = 0.2


def heat_sigma(length: float) -> float:
    """Centre peak width in cells for a stick `length` input px long: narrow, since crossed sticks' centres
    may lie close."""
    return max(0.6, 0.05 * length / STRIDE)


def encode_targets(sticks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training targets for sticks given by their ends (2x2, input px): the centre and end heatmaps (2, H, W),
    the regression (6, H, W: centre offset, half-vector, end offset) and its weight (6, H, W), 1 on the
    cells near each centre (for the first four maps) or end (for the last two) and 0 elsewhere."""
    centres, ends_ = [], []
    for ends in sticks:
        ends = np.asarray(ends, np.float64)
        half = (ends[1] - ends[0]) / 2
        sigma = heat_sigma(2 * float(np.linalg.norm(half)))
        centres.append((cell_of(ends.mean(axis=0), STRIDE), sigma, doubled(half / STRIDE)))
        ends_ += [(cell_of(end, STRIDE), END_SIGMA, ()) for end in ends]
    heat, reg, weight = encode(centres, GRID, 2)
    end_heat, end_reg, end_weight = encode(ends_, GRID, 0)
    weights = np.stack([weight] * 4 + [end_weight] * 2)
    return np.stack([heat, end_heat]), np.concatenate([reg, end_reg]), weights


def decode(
    output: np.ndarray, threshold: float = PEAK_THRESHOLD, ends: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[list[tuple[float, np.ndarray]], list[tuple[float, np.ndarray, np.ndarray]]]:
    """Network output (8, H, W) -> (score, ends 2x2 in input px) at each centre peak, each end moved to the
    strongest end peak near it along the stick (END_REACH, END_ACROSS), and sticks crossed at one peak read
    from their end peaks (CROSS_*); and the sticks that may cross those off their middles, read from end
    peaks alone (CROSSED_*), each as (score, ends, the ends of the stick it crosses), for the reader to check
    on the picture. `ends`: the output's end peaks, if already found."""
    ends = end_peaks(output) if ends is None else ends
    readings = _readings(output, ends, threshold, crossings=True)
    return [(score, e) for score, e, _, _ in readings], _crossed(readings, ends[1], ends[0])


def end_peaks(output: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The end heatmap's peaks in a network output (8, H, W): their scores (n,) and points (n, 2, input px)."""
    scores, points, _ = read_peaks(output[[1, 6, 7]], STRIDE, END_THRESHOLD)
    return scores, points


def _readings(
    output: np.ndarray,
    ends: tuple[np.ndarray, np.ndarray],
    threshold: float,
    below: float = np.inf,
    crossings: bool = False,
) -> list[tuple[float, np.ndarray, int, bool]]:
    """(score, ends, peak index, both ends on end peaks) at the centre peaks scoring from `threshold` to under
    `below`, each end moved to one of the end peaks `ends`; with `crossings`, sticks crossed at one peak read
    from their end peaks too."""
    scores, centers, values = read_peaks(output[[0, 2, 3, 4, 5]], STRIDE, threshold)
    keep = scores < below
    scores, centers, values = scores[keep], centers[keep], values[:, keep]
    end_scores, end_points = ends
    halves = undoubled(values[0], values[1]) * STRIDE
    snapped_ends, on_peaks, lengths = _snapped_to_end_peaks(centers, halves, end_scores, end_points)
    kept = (lengths >= 1) & (np.linalg.norm(snapped_ends[:, 1] - snapped_ends[:, 0], axis=1) > 0.5 * lengths)
    readings = [  # (score, ends, peak index, both ends on end peaks)
        (float(scores[peak]), snapped_ends[peak], peak, bool(on_peaks[peak])) for peak in np.flatnonzero(kept)
    ]
    typical = _typical(readings)
    if crossings and typical:
        for peak, (score, centre, half) in enumerate(zip(scores, centers, halves, strict=True)):
            if 2 * np.linalg.norm(half) >= CROSS_SHORT * typical:
                continue
            # A crossing: the readings there whose ends are end peaks stand; the others are averages.
            here = [r for r in readings if np.linalg.norm(r[1].mean(axis=0) - centre) <= CROSS_CENTRE * typical]
            pairs = _facing_pairs(centre, typical, end_points, end_scores, [r[1] for r in here if r[3]])
            # A pair that is a stick read at its own peak (passing near a short one's) is not read twice.
            pairs = [(s, e) for s, e in pairs if not any(_same_ends(e, r[1]) for r in readings)]
            if pairs:
                readings = [r for r in readings if r[2] != peak or r[3]]
                readings += [(min(float(score), s), e, peak, True) for s, e in pairs]
    return readings


def _snapped_to_end_peaks(
    centers: np.ndarray, halves: np.ndarray, end_scores: np.ndarray, end_points: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each centre peak's stick (centres and half-vectors, n x 2) with each end moved to the end peak near it
    (END_REACH along the stick, END_ACROSS across) that scores best less its distance in stick lengths: the
    ends (n x 2 x 2), whether both ends moved (n,) and the lengths the half-vectors give (n,)."""
    half_lengths = np.linalg.norm(halves, axis=1)
    lengths = 2 * half_lengths
    ends = np.stack([centers - halves, centers + halves], axis=1)
    if not len(end_points) or not len(centers):
        return ends, np.zeros(len(centers), bool), lengths
    axis = halves / np.maximum(half_lengths, 1e-9)[:, None]
    normal = np.stack([-axis[:, 1], axis[:, 0]], axis=1)
    offset = end_points[None, None] - ends[:, :, None]  # (stick, end, end peak, xy)
    along = np.abs((offset * axis[:, None, None]).sum(-1))
    across = np.abs((offset * normal[:, None, None]).sum(-1))
    safe = np.maximum(lengths, 1e-9)[:, None, None]
    near = (along <= np.maximum(1.5 * STRIDE, END_REACH * safe)) & (
        across <= np.maximum(1.5 * STRIDE, END_ACROSS * safe)
    )
    rank = np.where(near, end_scores - np.hypot(along, across) / safe, -np.inf)
    moved = near.any(axis=-1)
    ends = np.where(moved[..., None], end_points[rank.argmax(axis=-1)], ends)
    return ends, moved.all(axis=1), lengths


def _typical(readings: list[tuple[float, np.ndarray, int, bool]]) -> float:
    """The median length of the readings whose ends are both end peaks; 0 if none is."""
    whole = [np.linalg.norm(e[1] - e[0]) for _, e, _, on_peaks in readings if on_peaks]
    return float(np.median(whole)) if whole else 0.0


def _crossed(
    readings: list[tuple[float, np.ndarray, int, bool]], end_points: np.ndarray, end_scores: np.ndarray
) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """Sticks that may have been missed where they cross a stick read on its end peaks (CROSSED_*), as
    (score, ends, the crossed stick's ends), the score the weaker of its ends' and the crossed stick's: read
    from pairs of end peaks of which one at least ends no reading (the other may be a corner it shares with a
    stick read); none where two readings cross already."""
    typical = _typical(readings)
    if not typical:
        return []
    strong = end_scores >= CROSSED_END
    points, scores = end_points[strong], end_scores[strong]
    sticks = np.array([e for _, e, _, _ in readings])
    free = np.linalg.norm(points[:, None] - sticks.reshape(-1, 2)[None], axis=2).min(axis=1) > 1.5 * STRIDE
    if not free.any() or (np.triu(_crossing_share(sticks, sticks), 1) >= CROSSED_INSIDE).any():
        return []
    found: list[tuple[float, np.ndarray, np.ndarray]] = []
    reach = (0.5 + CROSSED_REACH) * CROSS_LENGTH[1] * typical
    for score, ends, _, on_peaks in readings:
        if not on_peaks:
            continue
        centre = ends.mean(axis=0)
        near = np.flatnonzero(np.linalg.norm(points - centre, axis=1) <= reach)
        if len(near) < 2:
            continue
        first, second = (near[k] for k in np.triu_indices(len(near), 1))
        pairs = np.stack([points[first], points[second]], axis=1)
        along = pairs[:, 1] - pairs[:, 0]
        span = np.linalg.norm(along, axis=1)
        axis = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0])
        fits = (
            (free[first] | free[second])
            & (span >= CROSS_LENGTH[0] * typical)
            & (span <= CROSS_LENGTH[1] * typical)
            & (np.linalg.norm(pairs.mean(axis=1) - centre, axis=1) <= CROSSED_REACH * span)
            & (np.abs(along @ axis) <= np.cos(CROSS_TURN) * span)
            & (_crossing_share(ends[None], pairs)[0] >= CROSSED_INSIDE)
        )
        fitting = [k for k in np.flatnonzero(fits) if not _on_a_body(pairs[k], sticks, typical)]
        if fitting:
            pair_scores = np.minimum(scores[first], scores[second])
            best = max(fitting, key=lambda k: pair_scores[k])
            found.append((min(float(score), float(pair_scores[best])), pairs[best], ends))
            free[[first[best], second[best]]] = False  # each free end peak ends one stick
    return found


def _crossing_share(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """For segments `first` (n x 2 x 2) and `second` (m x 2 x 2): the share of its length between each pair's
    crossing and the nearest end of either segment (n x m); negative where they do not cross."""
    t, u = crossing_params(first, second)
    return np.nan_to_num(np.minimum(np.minimum(t, 1 - t), np.minimum(u, 1 - u)), nan=-1.0)


def _on_a_body(points: np.ndarray, sticks: np.ndarray, typical: float) -> bool:
    """Whether a point lies on a stick's body, a tenth of a stick or less from its axis and clear of its ends:
    an end peak there is a stick's end against another's middle, or a pattern's, not a crossing stick's."""
    reach = max(1.5 * STRIDE, 0.1 * typical)
    for point in points:
        for a, b in sticks:
            distance, t = segment_distance(point, a, b)
            if distance <= reach and CROSSED_INSIDE < t < 1 - CROSSED_INSIDE:
                return True
    return False


def _facing_pairs(
    centre: np.ndarray, typical: float, end_points: np.ndarray, end_scores: np.ndarray, read: list[np.ndarray]
) -> list[tuple[float, np.ndarray]]:
    """Sticks read at a centre peak from pairs of end peaks facing each other across it (CROSS_*), each with
    its weaker end's score, turned from the sticks `read` there and from each other: two sticks at most
    share a centre. On a lattice no pair fits but a stick's own: the other ends near its centre are its
    neighbours', a whole stick or more apart."""
    near = (np.linalg.norm(end_points - centre, axis=1) <= (0.5 + CROSS_CENTRE) * CROSS_LENGTH[1] * typical) & (
        end_scores >= CROSS_END
    )
    points, scores = end_points[near], end_scores[near]
    pairs = []
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            span = float(np.linalg.norm(points[j] - points[i]))
            if (
                CROSS_LENGTH[0] * typical <= span <= CROSS_LENGTH[1] * typical
                and np.linalg.norm((points[i] + points[j]) / 2 - centre) <= CROSS_CENTRE * span
            ):
                pairs.append((float(min(scores[i], scores[j])), np.array([points[i], points[j]])))
    kept: list[tuple[float, np.ndarray]] = []
    for score, ends in sorted(pairs, key=lambda p: -p[0]):
        if len(read) + len(kept) >= 2:
            break
        if all(line_turn(ends, other) >= CROSS_TURN for other in read + [k for _, k in kept]):
            kept.append((score, ends))
    return kept


def _same_ends(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two readings (ends 2x2, input px) have the same ends, in either order, to a cell and a half."""
    reach = 1.5 * STRIDE
    return bool(np.linalg.norm(a - b, axis=1).max() <= reach or np.linalg.norm(a - b[::-1], axis=1).max() <= reach)


@dataclass(frozen=True)
class LocatorReadings:
    """Candidate sticks, (score, ends 2x2) each: at centre peaks over PEAK_THRESHOLD (`sure`) and at fainter
    ones down to FAINT_THRESHOLD (`faint`); sticks that may cross sure ones, read from end peaks alone, each
    with the ends of the stick it crosses (`crossed`, see `decode`); every end peak (n x 2) and its score (n,);
    and the centre heatmap and half-vector maps (GRID cells; the half-vectors in doubled angles, in cells) with
    the frame's scale to input px and, for a turned portrait frame, its height; for a part of a frame read on
    its own (`StickLocator.read_part`), the frame px of the maps' top-left corner (`origin`)."""

    sure: list[tuple[float, np.ndarray]]
    faint: list[tuple[float, np.ndarray]]
    crossed: list[tuple[float, np.ndarray, np.ndarray]]
    end_points: np.ndarray
    end_scores: np.ndarray
    heat: np.ndarray
    halves: np.ndarray
    scale: float = 1.0
    portrait_height: int | None = None
    origin: tuple[float, float] = (0.0, 0.0)

    def stick_heat(self, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        """The centre heat that marks a stick lying from each of `starts` to each of `stops` (frame px, n x 2):
        at the middle or a quarter point, where the stick read there lies along it (ALONG_TURN, PART)."""
        starts, stops = np.asarray(starts, np.float64), np.asarray(stops, np.float64)
        fractions = np.array((0.5, *QUARTERS))
        points = starts[:, None] + fractions[None, :, None] * (stops - starts)[:, None]
        heat, halves = self._hottest(points.reshape(-1, 2))
        heat, halves = heat.reshape(len(starts), -1), halves.reshape(len(starts), -1, 2)
        segments = (stops - starts)[:, None]
        length, read = np.linalg.norm(segments, axis=-1), 2 * np.linalg.norm(halves, axis=-1)
        along = np.abs((halves * segments).sum(axis=-1)) > np.cos(ALONG_TURN) * length * read / 2
        part = (read >= PART[0] * length) & (read <= PART[1] * length)
        counts = along & ((fractions == 0.5) | part)
        return np.where(counts, heat, 0.0).max(axis=1)

    def _hottest(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """At frame points (n, 2): the centre heat of the hottest of the 3x3 cells around each (0 off the map),
        and the half-vector read at that cell, in frame px (n, 2)."""
        points = points - self.origin
        if self.portrait_height is not None:
            points = turned(points, self.portrait_height)
        cells = np.nan_to_num(cell_of(points * self.scale, STRIDE), nan=-99.0)
        rows, cols = np.rint(cells[:, 1]).astype(int), np.rint(cells[:, 0]).astype(int)
        h, w = self.heat.shape
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
        shifts = np.array([(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)])
        around_rows = np.clip(np.clip(rows, 0, h - 1)[:, None] + shifts[:, 0], 0, h - 1)
        around_cols = np.clip(np.clip(cols, 0, w - 1)[:, None] + shifts[:, 1], 0, w - 1)
        hottest = self.heat[around_rows, around_cols].argmax(axis=1)
        every = np.arange(len(points))
        row, col = around_rows[every, hottest], around_cols[every, hottest]
        halves = undoubled(self.halves[0, row, col], self.halves[1, row, col]) * STRIDE / self.scale
        if self.portrait_height is not None:
            halves = np.stack([halves[:, 1], -halves[:, 0]], axis=1)  # turned back as `turned_back` turns points
        return np.where(inside, self.heat[row, col], 0.0), halves


class StickLocator(LocatorNetwork):
    """The locating network, loaded once; `maps` gives its raw output (8, H, W) for a letterboxed frame."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        super().__init__(model_path, CHANNELS, INPUT_SIZE, "models.train_sticks", threads)

    def read(self, image: np.ndarray) -> LocatorReadings:
        """What one run of the network says of a BGR frame, in the frame's pixels."""
        image, portrait_height = landscape(image)
        canvas, scale = reading_canvas(image, INPUT_SIZE)
        return self._decoded(self.maps(canvas), scale, portrait_height)

    def read_part(self, part: np.ndarray, origin: tuple[int, int], frame_size: tuple[int, int]) -> LocatorReadings:
        """What one run of the network says of `part`, cut from a landscape frame of `frame_size` (width,
        height) at `origin` (its top-left corner, frame px), read at the scale `read` reads the whole frame at:
        in the frame's pixels. The network's cost goes with its input's area. Where `origin` is a multiple of
        `part_step(frame_size)`, the part's cells are the frame's."""
        scale = reading_scale(*frame_size, INPUT_SIZE)
        if frame_size[1] > frame_size[0]:
            raise ValueError("a part is read only of a landscape frame (read turns a portrait one)")
        return self._decoded(self.maps(scaled_canvas(part, scale)), scale, None, origin)

    def _decoded(
        self,
        maps: np.ndarray,
        scale: float,
        portrait_height: int | None,
        origin: tuple[float, float] = (0.0, 0.0),
    ) -> LocatorReadings:
        """The readings of the network's output `maps` for a frame (or a part at `origin`) read at `scale`."""
        ends = end_peaks(maps)
        shift = np.asarray(origin, np.float64)

        def in_frame(points: np.ndarray) -> np.ndarray:
            points = points / scale
            return (points if portrait_height is None else turned_back(points, portrait_height)) + shift

        sure, crossed = decode(maps, PEAK_THRESHOLD, ends)
        faint = _readings(maps, ends, FAINT_THRESHOLD, below=PEAK_THRESHOLD)
        return LocatorReadings(
            [(s, in_frame(e)) for s, e in sure],
            [(s, in_frame(e)) for s, e, _, _ in faint],
            [(s, in_frame(e), in_frame(other)) for s, e, other in crossed],
            in_frame(ends[1]),
            ends[0],
            1 / (1 + np.exp(-maps[0])),
            maps[4:6],
            scale,
            portrait_height,
            (float(shift[0]), float(shift[1])),
        )


def part_step(frame_size: tuple[int, int]) -> float:
    """Frame px between the network's coarsest cells (16 input px) in a frame of `frame_size` read whole."""
    return 16 / reading_scale(*frame_size, INPUT_SIZE)
