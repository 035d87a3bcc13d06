"""Where the tiles are: a small fully convolutional network marks each tile's centre, its divider bar.

The network sees the frame at about half size and answers on a grid of STRIDE-pixel cells: a centre
heatmap, the sub-cell offset to the centre, and the tile's two half-axes `u` and `v` in doubled-angle form
(a tile read from either end is the same tile, so the axes are only known up to sign). Marking dividers
rather than outlines is what keeps touching tiles apart: a junction between two tiles end to end looks
much like a divider, but only a divider has a half on each side that belongs to the same tile, which the
network sees in the bevels, the outline's corners and the bar itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.dominoes.tile import TileFrame
from vision.onnx_session import load_session

INPUT_SIZE = (640, 368)  # width, height; a multiple of 16 for the network's four halvings
STRIDE = 4
GRID = (INPUT_SIZE[0] // STRIDE, INPUT_SIZE[1] // STRIDE)
CHANNELS = ("heat", "dx", "dy", "u_cos", "u_sin", "v_cos", "v_sin")
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "dominoes_locate.onnx"
PEAK_THRESHOLD = 0.2
INPUT_SCALE = 64.0


def letterbox(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame scaled into INPUT_SIZE keeping its shape, top-left aligned; the rest is black."""
    h, w = image.shape[:2]
    scale = min(INPUT_SIZE[0] / w, INPUT_SIZE[1] / h)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    resized = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    canvas = np.zeros((INPUT_SIZE[1], INPUT_SIZE[0], 3), np.uint8)
    canvas[: size[1], : size[0]] = resized
    return canvas, scale


def to_input(canvases: np.ndarray) -> np.ndarray:
    """uint8 BGR (N, H, W, 3) -> float32 (N, 3, H, W), each frame's mean taken out and a fixed scale.

    Dividing by the frame's own spread would shrink the tiles' contrast on a busy tablecloth, so only the
    mean (the exposure) is taken out; training varies the gain instead.
    """
    x = np.asarray(canvases, dtype=np.float32)
    x -= x.mean(axis=(1, 2, 3), keepdims=True)
    return np.ascontiguousarray((x / INPUT_SCALE).transpose(0, 3, 1, 2))


def _cell_of(point: np.ndarray) -> np.ndarray:
    """Input pixels -> grid cells (cell (0, 0) covers pixels 0..STRIDE-1)."""
    return (np.asarray(point) - (STRIDE - 1) / 2) / STRIDE


def _doubled(vec: np.ndarray) -> tuple[float, float]:
    """A vector known up to sign, as (r cos 2a, r sin 2a)."""
    x, y = float(vec[0]), float(vec[1])
    r = max(np.hypot(x, y), 1e-6)
    return (x * x - y * y) / r, 2 * x * y / r


def _undoubled(c2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    r = np.hypot(c2, s2)
    a = np.arctan2(s2, c2) / 2
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=-1)


def heat_sigma(frame: TileFrame) -> float:
    """Peak width in cells: a fifth of the tile's width, so side-by-side tiles' peaks stay apart."""
    return max(0.5, 0.2 * 2 * float(np.linalg.norm(frame.v)) / STRIDE)


def encode_targets(frames: list[TileFrame]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training targets for tiles given in input pixels: heatmap (H, W), regression (6, H, W) and its
    weight (H, W), which is 1 on the cells near each centre (the nearest tile's) and 0 elsewhere."""
    gw, gh = GRID
    heat = np.zeros((gh, gw), np.float32)
    reg = np.zeros((6, gh, gw), np.float32)
    weight = np.zeros((gh, gw), np.float32)
    nearest = np.full((gh, gw), np.inf, np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for frame in frames:
        cx, cy = _cell_of(frame.center)
        sigma = heat_sigma(frame)
        # The peak sits on the centre's own cell at exactly 1; the sub-cell rest is regressed.
        d2 = (xx - round(cx)) ** 2 + (yy - round(cy)) ** 2
        heat = np.maximum(heat, np.exp(-d2 / (2 * sigma * sigma)))
        near = (d2 <= max(1.0, 1.5 * sigma) ** 2) & (d2 < nearest)
        nearest[near] = d2[near]
        weight[near] = 1.0
        reg[0][near] = cx - xx[near]
        reg[1][near] = cy - yy[near]
        for k, value in enumerate((*_doubled(frame.u / STRIDE), *_doubled(frame.v / STRIDE)), start=2):
            reg[k][near] = value
    return heat, reg, weight


def decode(output: np.ndarray, threshold: float = PEAK_THRESHOLD) -> list[tuple[float, TileFrame]]:
    """Network output (7, H, W) -> (score, tile frame in input pixels) at each heatmap peak."""
    heat = 1 / (1 + np.exp(-output[0]))
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(peaks)
    if not len(ys):
        return []
    reg = output[1:, ys, xs]
    centers = np.stack([xs + reg[0], ys + reg[1]], axis=-1) * STRIDE + (STRIDE - 1) / 2
    us = _undoubled(reg[2], reg[3]) * STRIDE
    vs = _undoubled(reg[4], reg[5]) * STRIDE
    return [(float(heat[y, x]), TileFrame(c, u, v)) for y, x, c, u, v in zip(ys, xs, centers, us, vs, strict=True)]


class TileLocator:
    """The locating network, loaded once."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        self.session = load_session(model_path, threads)
        manifest = json.loads(model_path.with_suffix(".json").read_text())
        if manifest["outputs"] != list(CHANNELS) or manifest["input"]["shape"][2:] != [INPUT_SIZE[1], INPUT_SIZE[0]]:
            raise ValueError(f"{model_path.name} was trained for other maps; run `python -m models.train_dominoes`")
        self.input_name = self.session.get_inputs()[0].name

    def maps(self, canvas: np.ndarray) -> np.ndarray:
        """The network's raw output (7, H, W) for a letterboxed frame."""
        return self.session.run(None, {self.input_name: to_input(canvas[None])})[0][0]

    def propose(self, canvas: np.ndarray, scale: float) -> list[tuple[float, TileFrame]]:
        """Candidate tiles in the original image's pixels, from its letterboxed `canvas`."""
        return [(score, frame.scaled(1 / scale)) for score, frame in decode(self.maps(canvas))]


def heat_at(output: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The centre heatmap's value at points given in input pixels (0 outside the grid)."""
    cells = np.round(_cell_of(np.asarray(points, np.float64).reshape(-1, 2))).astype(int)
    inside = (cells >= 0).all(axis=1) & (cells[:, 0] < GRID[0]) & (cells[:, 1] < GRID[1])
    values = np.zeros(len(cells))
    x, y = cells[inside].T
    values[inside] = 1 / (1 + np.exp(-output[0, y, x]))
    return values
