"""Where the tiles are: a small fully convolutional network marks each tile's centre, its divider bar.

The network sees the frame at about half size and answers on a grid of STRIDE-pixel cells: a centre
heatmap, the sub-cell offset to the centre, and the tile's two half-axes `u` and `v` in doubled-angle form
(a tile read from either end is the same tile, so the axes are only known up to sign). Marking dividers
rather than outlines is what keeps touching tiles apart: a junction between two tiles end to end looks
much like a divider, but only a divider has a half on each side that belongs to the same tile, which the
network sees in the bevels, the outline's corners and the bar itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.dominoes.tile import TileFrame
from vision.locator import LocatorNetwork, cell_of, doubled, encode, read_axes, reading_canvas
from vision.locator import letterbox as letterbox_into

INPUT_SIZE = (640, 368)  # width, height; a multiple of 16 for the network's four halvings
STRIDE = 4
GRID = (INPUT_SIZE[0] // STRIDE, INPUT_SIZE[1] // STRIDE)
CHANNELS = ("heat", "dx", "dy", "u_cos", "u_sin", "v_cos", "v_sin")
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "dominoes_locate.onnx"
# The same network trained on with windows blurred as by a moving camera (models/finetune_dominoes.py): it
# finds more tiles in blurred frames and fewer on veined stone, so it looks only at frames read mostly in doubt.
BLURRED_MODEL_PATH = MODEL_PATH.with_name("dominoes_locate_blurred.onnx")
PEAK_THRESHOLD = 0.12
# Input px^2 of |u x v|, a quarter of a frame's area (a tile 20 px long in the input has 50). The locator's axes can
# come out flat (a frame with no width), and such a frame cannot be cropped: it is no tile.
MIN_FRAME_AREA = 1.0


def letterbox(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame scaled into INPUT_SIZE keeping its shape, top-left aligned; the rest is black."""
    return letterbox_into(image, INPUT_SIZE)


def whole_frame(image: np.ndarray) -> tuple[np.ndarray, float]:
    """A landscape frame on the canvas it is read whole on (`vision.locator.reading_size`), and the scale."""
    return reading_canvas(image, INPUT_SIZE)


def _cell_of(point: np.ndarray) -> np.ndarray:
    return cell_of(point, STRIDE)


def heat_sigma(frame: TileFrame) -> float:
    """Peak width in cells: a fifth of the tile's width, so side-by-side tiles' peaks stay apart."""
    return max(0.5, 0.2 * 2 * float(np.linalg.norm(frame.v)) / STRIDE)


def encode_targets(frames: list[TileFrame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training targets for tiles given in input pixels: heatmap (H, W), regression (6, H, W) and its
    weight (H, W), which is 1 on the cells near each centre (the nearest tile's) and 0 elsewhere."""
    objects = [(_cell_of(f.center), heat_sigma(f), (*doubled(f.u / STRIDE), *doubled(f.v / STRIDE))) for f in frames]
    return encode(objects, GRID, 4)  # the two doubled axes; encode adds the sub-cell offset


def decode(output: np.ndarray, threshold: float = PEAK_THRESHOLD) -> list[tuple[float, TileFrame]]:
    """Network output (7, H, W) -> (score, tile frame in input pixels) at each heatmap peak, but for frames
    with no area (MIN_FRAME_AREA)."""
    scores, centers, us, vs = read_axes(output, STRIDE, threshold)
    area = np.abs(us[:, 0] * vs[:, 1] - us[:, 1] * vs[:, 0])  # a quarter of the frame's
    return [
        (float(s), TileFrame(c, u, v))
        for s, c, u, v, a in zip(scores, centers, us, vs, area, strict=True)
        if a >= MIN_FRAME_AREA
    ]


class TileLocator(LocatorNetwork):
    """The locating network, loaded once; `maps` gives its raw output (7, H, W) for a letterboxed frame."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        super().__init__(model_path, CHANNELS, INPUT_SIZE, "models.train_dominoes", threads)

    def propose(self, canvas: np.ndarray, scale: float) -> list[tuple[float, TileFrame]]:
        """Candidate tiles in the original image's pixels, from its letterboxed `canvas`."""
        return [(score, frame.scaled(1 / scale)) for score, frame in decode(self.maps(canvas))]


def heat_at(output: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The centre heatmap's value at points given in input pixels (0 outside the grid)."""
    cells = np.round(_cell_of(np.asarray(points, np.float64).reshape(-1, 2))).astype(int)
    inside = (cells >= 0).all(axis=1) & (cells[:, 0] < output.shape[2]) & (cells[:, 1] < output.shape[1])
    values = np.zeros(len(cells))
    x, y = cells[inside].T
    values[inside] = 1 / (1 + np.exp(-output[0, y, x]))
    return values
