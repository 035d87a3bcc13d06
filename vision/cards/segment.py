"""Card outlines from a small segmentation network: the second proposal source beside the edge locator.

The network marks each card's core, the card shrunk by `CORE_SCALE` about its centre, so cards that
touch still come out as separate blobs. Each blob's quadrilateral, grown back by the same factor, is a
proposed outline. Busy tablecloths and low-contrast tables, where outlines break, are what it is for.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import order_clockwise
from vision.locator import letterbox as letterbox_into
from vision.onnx_session import load_session

CORE_SCALE = 0.75
INPUT_SIZE = (480, 272)  # width, height; a multiple of 16 for the network's four halvings
OUTPUT_STRIDE = 2
MASK_MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_mask.onnx"
MIN_BLOB_CELLS = 6


def letterbox(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame scaled into INPUT_SIZE keeping its shape, top-left aligned, and the scale."""
    return letterbox_into(image, INPUT_SIZE)


def to_input(canvas: np.ndarray) -> np.ndarray:
    """uint8 BGR (H, W, 3) letterboxed frames -> float32 (1, 3, H, W) in [-1, 1]."""
    x = canvas.astype(np.float32) / 127.5 - 1.0
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def core_quad(quad: np.ndarray) -> np.ndarray:
    center = quad.mean(axis=0)
    return center + (quad - center) * CORE_SCALE


def grow_core(quad: np.ndarray) -> np.ndarray:
    center = quad.mean(axis=0)
    return center + (quad - center) / CORE_SCALE


def core_blobs(probability: np.ndarray, threshold: float = 0.5) -> list[np.ndarray]:
    """Outline points (map cells) of each card-core blob."""
    mask = (probability > threshold).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c.reshape(-1, 2).astype(np.float32) for c in contours if cv2.contourArea(c) >= MIN_BLOB_CELLS]


def dominant_orientation(gray: np.ndarray) -> float | None:
    """The angle (radians, modulo a quarter turn) of the strongest straight edges in `gray`.

    A card's rim and print run along two perpendicular directions; folding gradient angles four times
    makes both vote for one answer. None when the patch has no clear direction."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.hypot(gx, gy)
    angle = np.arctan2(gy, gx)
    c, s = (magnitude * np.cos(4 * angle)).sum(), (magnitude * np.sin(4 * angle)).sum()
    if np.hypot(c, s) < 0.15 * magnitude.sum():
        return None
    return float(np.arctan2(s, c) / 4)


def oriented_box(points: np.ndarray, angle: float) -> np.ndarray:
    """The rectangle at `angle` that holds `points`, as four clockwise corners."""
    u = np.array([np.cos(angle), np.sin(angle)], np.float32)
    v = np.array([-u[1], u[0]], np.float32)
    a, b = points @ u, points @ v
    corners = [
        u * x + v * y for x, y in ((a.min(), b.min()), (a.max(), b.min()), (a.max(), b.max()), (a.min(), b.max()))
    ]
    return order_clockwise(np.array(corners, np.float32))


class CardMaskNet:
    """The segmentation model, loaded once."""

    def __init__(self, model_path: Path = MASK_MODEL_PATH, threads: int = 1) -> None:
        self.session = load_session(model_path, threads)
        self.input_name = self.session.get_inputs()[0].name
        # Thresholded blobs come out fatter than the cores drawn in training; training measures by how much.
        manifest = model_path.with_suffix(".json")
        self.outline_scale = json.loads(manifest.read_text()).get("outline_scale", 1.0) if manifest.is_file() else 1.0

    def core_map(self, image: np.ndarray) -> CoreMap:
        canvas, scale = letterbox(image)
        logits = self.session.run(None, {self.input_name: to_input(canvas)})[0][0, 0]
        return CoreMap(1 / (1 + np.exp(-logits)), OUTPUT_STRIDE / scale)

    def propose(
        self, image: np.ndarray, core: CoreMap | None = None, known: Callable[[np.ndarray], bool] | None = None
    ) -> list[np.ndarray]:
        """Proposed card outlines in `image` pixels, leaving out those `known` already accounts for.

        A blob's own shape is too round to say which way the card is turned, so the turn comes from the
        image's edges around the blob, and the blob only says where and how big. That search costs most of
        the proposal's time, so a blob whose untilted outline is already known is dropped before it."""
        core = core or self.core_map(image)
        to_image = core.cell
        h, w = image.shape[:2]
        quads = []
        for blob in core_blobs(core.probability):
            points = (blob + 0.5) * to_image - 0.5
            box = order_clockwise(cv2.boxPoints(cv2.minAreaRect(points)))
            rough = self._outline(box, to_image)
            if known is not None and known(rough):
                continue
            window = grow_core(box)
            x0, y0 = np.clip(np.floor(window.min(axis=0)).astype(int), 0, [w - 1, h - 1])
            x1, y1 = np.clip(np.ceil(window.max(axis=0)).astype(int) + 1, 1, [w, h])
            patch = image[y0:y1, x0:x1]
            angle = dominant_orientation(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)) if min(patch.shape[:2]) > 4 else None
            outline = rough if angle is None else self._outline(oriented_box(points, angle), to_image)
            if known is None or not known(outline):
                quads.append(outline)
        return quads

    def _outline(self, box: np.ndarray, cell: float) -> np.ndarray:
        """A card's outline from the box around its core blob's cell centres."""
        outline = grow_core(box + _outward(box, cell / 2))
        center = outline.mean(axis=0)
        return (center + (outline - center) * self.outline_scale).astype(np.float32)


@dataclass(frozen=True)
class CoreMap:
    """The network's answer for one frame: per map cell, the probability of a card's core there."""

    probability: np.ndarray
    cell: float  # image pixels per map cell

    def at(self, points: np.ndarray) -> np.ndarray:
        """The probability at image points (n, 2); 0 outside the map."""
        cells = np.floor((np.asarray(points, np.float32) + 0.5) / self.cell).astype(int)
        h, w = self.probability.shape
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
        values = np.zeros(len(cells), np.float32)
        values[inside] = self.probability[cells[inside, 1], cells[inside, 0]]
        return values


def _outward(quad: np.ndarray, distance: float) -> np.ndarray:
    """Offsets pushing each corner `distance` away from the centre: blob outlines run through the centres of
    the edge cells, half a cell inside the blob's true edge."""
    direction = quad - quad.mean(axis=0)
    return direction / np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-6) * distance
