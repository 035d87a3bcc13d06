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
from vision.locator import LocatorNetwork, cell_of, doubled, encode, letterbox, read_peaks, undoubled

INPUT_SIZE = (640, 368)  # width, height; a multiple of 16 for the network's four halvings
STRIDE = 4
GRID = (INPUT_SIZE[0] // STRIDE, INPUT_SIZE[1] // STRIDE)
CHANNELS = ("heat", "end_heat", "dx", "dy", "half_cos", "half_sin", "end_dx", "end_dy")
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "sticks_locate.onnx"
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


def decode(output: np.ndarray, threshold: float = PEAK_THRESHOLD) -> list[tuple[float, np.ndarray]]:
    """Network output (8, H, W) -> (score, ends 2x2 in input px) at each centre peak, each end moved to the
    strongest end peak near it along the stick (END_REACH, END_ACROSS), and sticks crossed at one peak read
    from their end peaks (CROSS_*)."""
    return _readings(output, end_peaks(output), threshold, crossings=True)


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
) -> list[tuple[float, np.ndarray]]:
    """(score, ends) at the centre peaks scoring from `threshold` to under `below`, each end moved to one of
    the end peaks `ends`; with `crossings`, sticks crossed at one peak read from their end peaks too."""
    scores, centers, values = read_peaks(output[[0, 2, 3, 4, 5]], STRIDE, threshold)
    keep = scores < below
    scores, centers, values = scores[keep], centers[keep], values[:, keep]
    end_scores, end_points = ends
    halves = undoubled(values[0], values[1]) * STRIDE
    readings = []  # (score, ends, peak index, both ends on end peaks)
    for peak, (score, centre, half) in enumerate(zip(scores, centers, halves, strict=True)):
        length = 2 * float(np.linalg.norm(half))
        if length < 1:
            continue
        ends = np.array([centre - half, centre + half])
        axis = half / np.linalg.norm(half)
        snapped = 0
        for k in range(2):
            offset = end_points - ends[k] if len(end_points) else np.zeros((0, 2))
            along, across = np.abs(offset @ axis), np.abs(offset @ np.array([-axis[1], axis[0]]))
            dist = np.hypot(along, across)
            near = (along <= max(1.5 * STRIDE, END_REACH * length)) & (across <= max(1.5 * STRIDE, END_ACROSS * length))
            if near.any():
                ends[k] = end_points[near][np.argmax(end_scores[near] - dist[near] / length)]
                snapped += 1
        if np.linalg.norm(ends[1] - ends[0]) > 0.5 * length:
            readings.append((float(score), ends, peak, snapped == 2))
    whole = [np.linalg.norm(e[1] - e[0]) for _, e, _, on_peaks in readings if on_peaks]
    if crossings and whole:
        typical = float(np.median(whole))
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
    return [(score, ends) for score, ends, _, _ in readings]


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
        if all(_turn(ends, other) >= CROSS_TURN for other in read + [k for _, k in kept]):
            kept.append((score, ends))
    return kept


def _same_ends(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two readings (ends 2x2, input px) have the same ends, in either order, to a cell and a half."""
    reach = 1.5 * STRIDE
    return bool(np.linalg.norm(a - b, axis=1).max() <= reach or np.linalg.norm(a - b[::-1], axis=1).max() <= reach)


def _turn(a: np.ndarray, b: np.ndarray) -> float:
    """The angle between two segments' lines (ends 2x2 each), 0 to pi/2."""
    u, v = a[1] - a[0], b[1] - b[0]
    return float(np.arccos(min(1.0, abs(float(u @ v)) / (np.linalg.norm(u) * np.linalg.norm(v)))))


@dataclass(frozen=True)
class LocatorReadings:
    """Candidate sticks, (score, ends 2x2) each: at centre peaks over PEAK_THRESHOLD (`sure`) and at fainter
    ones down to FAINT_THRESHOLD (`faint`); every end peak (n x 2); and the centre heatmap (GRID cells) with
    the frame's scale to input px and, for a turned portrait frame, its height."""

    sure: list[tuple[float, np.ndarray]]
    faint: list[tuple[float, np.ndarray]]
    end_points: np.ndarray
    heat: np.ndarray
    scale: float = 1.0
    portrait_height: int | None = None

    def heat_at(self, points: np.ndarray) -> np.ndarray:
        """The centre heat at frame points (n, 2): the hottest of the 3x3 cells around each; 0 off the map."""
        points = np.asarray(points, np.float64)
        if self.portrait_height is not None:
            points = turned(points, self.portrait_height)
        cells = np.nan_to_num(cell_of(points * self.scale, STRIDE), nan=-99.0)
        rows, cols = np.rint(cells[:, 1]).astype(int), np.rint(cells[:, 0]).astype(int)
        padded = np.pad(self.heat, 1)
        h, w = self.heat.shape
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
        r, c = np.clip(rows, 0, h - 1) + 1, np.clip(cols, 0, w - 1) + 1
        near = np.max([padded[r + dr, c + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1)], axis=0)
        return np.where(inside, near, 0.0)


class StickLocator(LocatorNetwork):
    """The locating network, loaded once; `maps` gives its raw output (8, H, W) for a letterboxed frame."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        super().__init__(model_path, CHANNELS, INPUT_SIZE, "models.train_sticks", threads)

    def read(self, image: np.ndarray) -> LocatorReadings:
        """What one run of the network says of a BGR frame, in the frame's pixels."""
        image, portrait_height = landscape(image)
        canvas, scale = letterbox(image, INPUT_SIZE)
        maps = self.maps(canvas)
        ends = end_peaks(maps)

        def in_frame(points: np.ndarray) -> np.ndarray:
            points = points / scale
            return points if portrait_height is None else turned_back(points, portrait_height)

        return LocatorReadings(
            [(s, in_frame(e)) for s, e in _readings(maps, ends, PEAK_THRESHOLD, crossings=True)],
            [(s, in_frame(e)) for s, e in _readings(maps, ends, FAINT_THRESHOLD, below=PEAK_THRESHOLD)],
            in_frame(ends[1]),
            1 / (1 + np.exp(-maps[0])),
            scale,
            portrait_height,
        )
