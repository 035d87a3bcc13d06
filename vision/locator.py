"""What the small locator networks share (dominoes' tiles, sticks): the frame letterboxed into the network's
input, and its answer read off a grid of STRIDE-pixel cells as peaks of a centre heatmap.

Each network marks an object's centre on the heatmap and regresses, on the cells near it, the sub-cell
offset to the centre and the object's axes. An axis is known only up to sign (a tile or stick read from
either end is the same object), so it is regressed in doubled-angle form: (r cos 2a, r sin 2a).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_session import load_session

INPUT_SCALE = 64.0
LEVELS = np.arange(256, dtype=np.float32)  # a uint8 frame's grey levels
# A frame spread less than FLAT_SPREAD grey levels about its mean (a dim room) can be read with its gain
# raised to that spread, at most MAX_GAIN times: the networks trained on frames of ordinary contrast and see
# too little in such frames (LocatorNetwork.lift_flat).
FLAT_SPREAD = 30.0
MAX_GAIN = 4.0
KEPT_INPUTS = 4  # input arrays a network keeps for reuse (LocatorNetwork.maps)
# A closer look reads this share of the frame's width and height: at the network's input, a third larger.
CLOSER = 0.75


def letterbox_scale(width: int, height: int, size: tuple[int, int]) -> float:
    """Input pixels per frame pixel when a `width` x `height` frame is letterboxed into `size`."""
    return min(size[0] / width, size[1] / height)


def reading_size(width: int, height: int, size: tuple[int, int]) -> tuple[int, int]:
    """The canvas a landscape frame is read on whole: `size`'s width, and as tall as the frame scaled to that
    width needs (to a multiple of 16 px, for the networks' four halvings), `size`'s height at least. A frame
    squarer than `size`, as a phone's 4:3 photo is, is so read at the scale a 16:9 frame as wide is, not shrunk
    to fit the height. Rendered 1280x960, against their own 1280x720 middles: the middles' tiles read 1361 of
    1456 in the whole frames shrunk, 1420 so (the middles alone 1420), the layouts 200 of 212 and 207 (209), the
    cards 420 of 426 and 421 (422). A frame that comes to `size`'s height or less, to the nearest pixel, at that
    width gets `size` itself, as the networks trained: any 16:9 or wider frame, and nearly every window cut to
    the input's shape and rounded to whole pixels (the stick reader's heap look); `letterbox` then reads it as it
    always did."""
    scaled_height = round(height * size[0] / width)
    return size[0], max(size[1], math.ceil(scaled_height / 16) * 16)


def reading_scale(width: int, height: int, size: tuple[int, int]) -> float:
    """Input pixels per frame pixel when a landscape frame is read whole (`reading_size`)."""
    return letterbox_scale(width, height, reading_size(width, height, size))


def reading_canvas(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """A landscape frame letterboxed as it is read whole (`reading_size`), and the scale."""
    return letterbox(image, reading_size(image.shape[1], image.shape[0], size))


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """The frame scaled into `size` (width, height) keeping its shape, top-left aligned; the rest is black."""
    h, w = image.shape[:2]
    scale = letterbox_scale(w, h, size)
    scaled = (max(1, round(w * scale)), max(1, round(h * scale)))
    # Area averaging by an exact half is a fast path in OpenCV, any other factor is not (15 ms against 1 ms
    # from 1280x720 to 480x270): halve while the frame is twice the target, then average the rest.
    resized = image
    while resized.shape[1] >= 2 * scaled[0] and resized.shape[0] >= 2 * scaled[1]:
        resized = cv2.resize(resized, (resized.shape[1] // 2, resized.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if scaled[0] != size[0]:
        canvas = np.zeros((size[1], size[0], 3), np.uint8)
        canvas[: scaled[1], : scaled[0]] = cv2.resize(resized, scaled, interpolation=cv2.INTER_AREA)
        return canvas, scale
    canvas = np.empty((size[1], size[0], 3), np.uint8)  # as wide as the frame scaled: resized straight into it
    canvas[scaled[1] :] = 0
    cv2.resize(resized, scaled, dst=canvas[: scaled[1]], interpolation=cv2.INTER_AREA)
    return canvas, scale


def scaled_canvas(image: np.ndarray, scale: float, interpolation: int = cv2.INTER_AREA) -> np.ndarray:
    """`image` scaled by `scale` onto the top-left of a black canvas whose sides are multiples of 16, as the
    networks' four halvings need: a fully convolutional locator read on a region at a scale of its own."""
    size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
    shape = (-(-size[1] // 16) * 16, -(-size[0] // 16) * 16, 3)
    if shape[1] != size[0]:
        canvas = np.zeros(shape, np.uint8)
        canvas[: size[1], : size[0]] = cv2.resize(image, size, interpolation=interpolation)
        return canvas
    # As wide as the canvas: resized straight into its top rows (a whole frame's closer look, 0.2 ms less).
    canvas = np.empty(shape, np.uint8)
    canvas[size[1] :] = 0
    cv2.resize(image, size, dst=canvas[: size[1]], interpolation=interpolation)
    return canvas


def to_input(canvases: np.ndarray, out: np.ndarray | None = None, lift_flat: bool = False) -> np.ndarray:
    """uint8 BGR (N, H, W, 3) -> float32 (N, 3, H, W), each frame's mean taken out and a fixed scale; with
    `lift_flat`, a flat frame's gain raised (`flat_gain`). Written into `out` if given.

    Dividing by the frame's own spread would shrink the objects' contrast on a busy tablecloth, so only the
    mean (the exposure) is taken out; training varies the gain instead.
    """
    canvases = np.asarray(canvases)
    if out is None:
        out = np.empty((canvases.shape[0], 3, *canvases.shape[1:3]), np.float32)
    out[...] = canvases.transpose(0, 3, 1, 2)
    np.subtract(out, out.mean(axis=(1, 2, 3), keepdims=True), out=out)
    if not lift_flat:
        return np.divide(out, INPUT_SCALE, out=out)
    scales = np.array([flat_gain(canvas) for canvas in canvases], np.float32) / INPUT_SCALE
    return np.multiply(out, scales[:, None, None, None], out=out)


def quantized_levels(
    canvas: np.ndarray, scale: float, zero_point: int, lift_flat: bool = False, out: np.ndarray | None = None
) -> np.ndarray:
    """uint8 BGR (H, W, 3) -> the uint8 levels (H, W, 3) an 8-bit network that takes its input quantized reads
    (models/quantize.py, `take_quantized_frames`): `to_input`'s values quantized as onnxruntime's QuantizeLinear
    quantizes them, round(x / scale) + zero_point saturated to 0..255. A frame has 256 grey levels, so each is
    worked out once, by the same float32 steps as `to_input`, and looked up. Written into `out` if given."""
    gain = flat_gain(canvas) if lift_flat else 1.0
    mean = np.float32(sum(cv2.sumElems(canvas)) / canvas.size)  # exact
    # `to_input` sums the mean in float32, which may differ from the exact one in its last bits. Where the
    # levels are the frame's own shifted by a whole number (the network's step is to_input's, no gain), they are
    # the same but for a mean near a half level; anywhere else the mean is taken as `to_input` takes it.
    if not (gain == 1.0 and scale * INPUT_SCALE == 1.0 and abs(mean % 1 - 0.5) > 1e-3):
        mean = _float32_mean(canvas)
    if lift_flat:
        values = (LEVELS - mean) * (np.float32(gain) / np.float32(INPUT_SCALE))
    else:
        values = (LEVELS - mean) / np.float32(INPUT_SCALE)
    table = np.clip(np.rint(values / np.float32(scale)) + np.float32(zero_point), 0, 255).astype(np.uint8)
    return cv2.LUT(canvas, table, dst=out)


def _float32_mean(canvas: np.ndarray) -> np.float32:
    """The frame's mean as `to_input` takes it: summed in float32 over the frame laid out as the network's input."""
    x = np.empty((1, 3, *canvas.shape[:2]), np.float32)
    x[...] = canvas[None].transpose(0, 3, 1, 2)
    return x.mean(axis=(1, 2, 3))[0]


def flat_gain(canvas: np.ndarray) -> float:
    """The gain that stretches a frame spread less than FLAT_SPREAD about its mean to that spread (at most
    MAX_GAIN); 1 for any other frame."""
    means, deviations = cv2.meanStdDev(canvas)
    spread = float(np.sqrt(np.mean(deviations**2 + (means - means.mean()) ** 2)))
    return min(max(FLAT_SPREAD / max(spread, 1e-3), 1.0), MAX_GAIN)


def closer_window(
    points: np.ndarray, scores: np.ndarray, size: tuple[int, int], share: float = CLOSER
) -> tuple[int, int, int, int] | None:
    """x, y, width, height of the part of a frame of `size` (`share` of each side) that holds the most score
    of the scored `points` (n x 2, frame px), centred on the points it holds; None for fewer than two points,
    or where no window holds any (points beyond the frame: a locator proposes tiles whose centres lie past
    its edge)."""
    if len(points) < 2:
        return None
    points, scores = np.asarray(points, np.float64).reshape(-1, 2), np.asarray(scores, np.float64)
    w, h = round(size[0] * share), round(size[1] * share)
    highest = np.array([size[0] - w, size[1] - h])
    corners = np.clip(np.rint(points - [w / 2, h / 2]), 0, highest)  # a window centred on each point
    inside = np.all((points[None] >= corners[:, None]) & (points[None] < corners[:, None] + [w, h]), axis=2)
    held = inside @ scores
    if held.max() <= 0:
        return None
    best = inside[int(np.argmax(held))]
    # Centred on what the best window holds, so that a group at its edge is not cut.
    centre = scores[best] @ points[best] / scores[best].sum()
    x0, y0 = np.clip(np.rint(centre - [w / 2, h / 2]), 0, highest).astype(int)
    return int(x0), int(y0), w, h


def zoom_windows(size: tuple[int, int], zoom: int = 2) -> list[tuple[int, int, int, int]]:
    """x0, y0, x1, y1 of the windows a frame of `size` (width, height) is read in when looked at `zoom` times
    closer: each 1 / `zoom` of its width and height, 2 `zoom` - 1 along each side, each overlapping the next by
    half. A thing whose centre lies nearer one window's centre than any other's (`nearest_window`) lies whole
    in that window if it reaches less than a quarter of the window's width and height from its centre."""
    steps = 2 * zoom - 1
    w, h = -(-size[0] // zoom), -(-size[1] // zoom)
    xs = np.linspace(0, size[0] - w, steps).round().astype(int)
    ys = np.linspace(0, size[1] - h, steps).round().astype(int)
    return [(int(x), int(y), int(x) + w, int(y) + h) for y in ys for x in xs]


def nearest_window(points: np.ndarray, windows: list[tuple[int, int, int, int]]) -> np.ndarray:
    """Index of the window whose centre lies nearest each point (n x 2): every point of the frame has one."""
    centres = np.array([((x0 + x1) / 2, (y0 + y1) / 2) for x0, y0, x1, y1 in windows])
    points = np.asarray(points, np.float64).reshape(-1, 2)
    return np.argmin(((points[:, None] - centres[None]) ** 2).sum(axis=2), axis=1)


def cell_of(point: np.ndarray, stride: int) -> np.ndarray:
    """Input pixels -> grid cells (cell (0, 0) covers pixels 0..stride-1)."""
    return (np.asarray(point) - (stride - 1) / 2) / stride


def pixel_of(cell: np.ndarray, stride: int) -> np.ndarray:
    """Grid cells (fractional) -> input pixels; the inverse of `cell_of`."""
    return np.asarray(cell) * stride + (stride - 1) / 2


def doubled(vec: np.ndarray) -> tuple[float, float]:
    """A vector known up to sign, as (r cos 2a, r sin 2a)."""
    x, y = float(vec[0]), float(vec[1])
    r = max(np.hypot(x, y), 1e-6)
    return (x * x - y * y) / r, 2 * x * y / r


def undoubled(c2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """(r cos 2a, r sin 2a) -> one of the two vectors it stands for, (..., 2)."""
    r = np.hypot(c2, s2)
    a = np.arctan2(s2, c2) / 2
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=-1)


def encode(
    objects: list[tuple[np.ndarray, float, tuple[float, ...]]], grid: tuple[int, int], values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training targets on a `grid` (width, height) of cells for objects given as (centre in cells, peak
    width in cells, their `values` regressed values): the heatmap (H, W), the regression (2 + values, H, W)
    (sub-cell offset, then the values) and its weight (H, W), which is 1 on the cells near each centre (the
    nearest object's) and 0 elsewhere."""
    gw, gh = grid
    heat = np.zeros((gh, gw), np.float32)
    reg = np.zeros((2 + values, gh, gw), np.float32)
    weight = np.zeros((gh, gw), np.float32)
    nearest = np.full((gh, gw), np.inf, np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for (cx, cy), sigma, regressed in objects:
        # The peak sits on the centre's own cell at exactly 1; the sub-cell rest is regressed.
        d2 = (xx - round(cx)) ** 2 + (yy - round(cy)) ** 2
        heat = np.maximum(heat, np.exp(-d2 / (2 * sigma * sigma)))
        near = (d2 <= max(1.0, 1.5 * sigma) ** 2) & (d2 < nearest)
        nearest[near] = d2[near]
        weight[near] = 1.0
        reg[0][near] = cx - xx[near]
        reg[1][near] = cy - yy[near]
        for k, value in enumerate(regressed, start=2):
            reg[k][near] = value
    return heat, reg, weight


def peaks(logits: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The heatmap (sigmoid of `logits`, H x W) and the rows and columns of its local maxima >= threshold."""
    heat = 1 / (1 + np.exp(-logits))
    ys, xs = np.nonzero((heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))))
    return heat, ys, xs


class LocatorNetwork:
    """A locator network, loaded once and checked against the maps and input size its caller decodes."""

    lift_flat = False  # read a flat frame at a raised gain (`flat_gain`); the card locator does

    def __init__(
        self, model_path: Path, channels: tuple[str, ...], input_size: tuple[int, int], trainer: str, threads: int = 1
    ) -> None:
        self.session = load_session(model_path, threads)
        manifest = json.loads(model_path.with_suffix(".json").read_text())
        # An 8-bit network may take its frames quantized, as uint8 levels laid out NHWC (models/quantize.py).
        levels = manifest["input"].get("quantized")
        self.levels = (float(levels["scale"]), int(levels["zero_point"])) if levels else None
        shape = manifest["input"]["shape"]
        if manifest["outputs"] != list(channels) or (shape[1:3] if levels else shape[2:]) != [
            input_size[1],
            input_size[0],
        ]:
            raise ValueError(f"{model_path.name} was trained for other maps; run `python -m {trainer}`")
        self.input_name = self.session.get_inputs()[0].name
        # Input arrays kept per canvas shape and written in place: a fresh array each frame cost 3-4 ms more
        # (its pages mapped and zeroed anew) than the conversion itself. A few shapes recur (the frame, a
        # closer look's region); a new shape replaces the one least recently used, so that windows of a new
        # size every frame (the stick reader's brighter look) do not cost the frame's own array. So one
        # network serves one thread at a time.
        self._inputs: dict[tuple[int, ...], np.ndarray] = {}

    def maps(self, canvas: np.ndarray) -> np.ndarray:
        """The network's raw output (channels, H, W) for a letterboxed frame."""
        buffer = self._inputs.pop(canvas.shape, None)
        if buffer is None:
            if len(self._inputs) >= KEPT_INPUTS:
                del self._inputs[next(iter(self._inputs))]
            shape = (1, *canvas.shape) if self.levels else (1, 3, *canvas.shape[:2])
            buffer = np.empty(shape, np.uint8 if self.levels else np.float32)
        self._inputs[canvas.shape] = buffer  # the most recently used last
        if self.levels:
            quantized_levels(canvas, *self.levels, self.lift_flat, buffer[0])
        else:
            to_input(canvas[None], buffer, self.lift_flat)
        return self.session.run(None, {self.input_name: buffer})[0][0]


def read_peaks(output: np.ndarray, stride: int, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A locator's output (channels, H, W) at its heatmap's peaks: the scores (n,), the centres in input
    pixels (n, 2) and the regressed values after the offset (channels - 3, n)."""
    heat, ys, xs = peaks(output[0], threshold)
    reg = output[1:, ys, xs]
    centers = pixel_of(np.stack([xs + reg[0], ys + reg[1]], axis=-1), stride)
    return heat[ys, xs], centers, reg[2:]


def read_axes(
    output: np.ndarray, stride: int, threshold: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A two-axis locator's output (heat, offset, then two doubled axes; 7, H, W) at its peaks: the scores,
    centres, first and second axes (n, 2 each), in input pixels."""
    scores, centers, values = read_peaks(output, stride, threshold)
    return scores, centers, undoubled(values[0], values[1]) * stride, undoubled(values[2], values[3]) * stride
