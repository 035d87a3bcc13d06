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

from pathlib import Path

import numpy as np

from vision.locator import LocatorNetwork, cell_of, doubled, encode, letterbox, read_peaks, undoubled

INPUT_SIZE = (640, 368)  # width, height; a multiple of 16 for the network's four halvings
STRIDE = 4
GRID = (INPUT_SIZE[0] // STRIDE, INPUT_SIZE[1] // STRIDE)
CHANNELS = ("heat", "end_heat", "dx", "dy", "half_cos", "half_sin", "end_dx", "end_dy")
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "sticks_locate.onnx"
PEAK_THRESHOLD = 0.3
END_THRESHOLD = 0.2
END_SIGMA = 0.8  # cells
# How far an end peak may lie from the end a centre gives, in the reading's length: along the stick (a
# half-vector is mostly read too short or too long) and across it (a neighbour's end beside it is not its own).
END_REACH = 0.45
END_ACROSS = 0.1


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
    strongest end peak near it along the stick (END_REACH, END_ACROSS)."""
    scores, centers, values = read_peaks(output[[0, 2, 3, 4, 5]], STRIDE, threshold)
    end_scores, end_points, _ = read_peaks(output[[1, 6, 7]], STRIDE, END_THRESHOLD)
    halves = undoubled(values[0], values[1]) * STRIDE
    found = []
    for score, centre, half in zip(scores, centers, halves, strict=True):
        length = 2 * float(np.linalg.norm(half))
        if length < 1:
            continue
        ends = np.array([centre - half, centre + half])
        axis = half / np.linalg.norm(half)
        for k in range(2):
            offset = end_points - ends[k] if len(end_points) else np.zeros((0, 2))
            along, across = np.abs(offset @ axis), np.abs(offset @ np.array([-axis[1], axis[0]]))
            dist = np.hypot(along, across)
            near = (along <= max(1.5 * STRIDE, END_REACH * length)) & (across <= max(1.5 * STRIDE, END_ACROSS * length))
            if near.any():
                ends[k] = end_points[near][np.argmax(end_scores[near] - dist[near] / length)]
        if np.linalg.norm(ends[1] - ends[0]) > 0.5 * length:
            found.append((float(score), ends))
    return found


class StickLocator(LocatorNetwork):
    """The locating network, loaded once; `maps` gives its raw output (8, H, W) for a letterboxed frame."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        super().__init__(model_path, CHANNELS, INPUT_SIZE, "models.train_sticks", threads)

    def __call__(self, image: np.ndarray, threshold: float = PEAK_THRESHOLD) -> list[tuple[float, np.ndarray]]:
        """Candidate sticks in a BGR frame: (score, ends 2x2 in the frame's pixels)."""
        canvas, scale = letterbox(image, INPUT_SIZE)
        return [(score, ends / scale) for score, ends in decode(self.maps(canvas), threshold)]
