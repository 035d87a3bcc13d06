"""Card outlines from a small segmentation network: the second proposal source beside the edge locator.

The network marks each card's core, the card shrunk by `CORE_SCALE` about its centre, so cards that
touch still come out as separate blobs. Each blob's quadrilateral, grown back by the same factor, is a
proposed outline. Busy tablecloths and low-contrast tables, where outlines break, are what it is for.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from vision.geometry import order_clockwise

CORE_SCALE = 0.75
INPUT_SIZE = (480, 272)  # width, height; a multiple of 16 for the network's four halvings
OUTPUT_STRIDE = 2
MASK_MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_mask.onnx"
MIN_BLOB_CELLS = 6


def letterbox(image: np.ndarray) -> tuple[np.ndarray, float]:
    """Scale the frame into INPUT_SIZE keeping its shape, padding the rest; return it and the scale."""
    h, w = image.shape[:2]
    scale = min(INPUT_SIZE[0] / w, INPUT_SIZE[1] / h)
    resized = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    canvas = np.zeros((INPUT_SIZE[1], INPUT_SIZE[0], 3), np.uint8)
    canvas[: resized.shape[0], : resized.shape[1]] = resized
    return canvas, scale


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


def blobs_to_quads(probability: np.ndarray, threshold: float = 0.5) -> list[np.ndarray]:
    """Card-core probability map -> outlines in map cells."""
    mask = (probability > threshold).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for contour in contours:
        if cv2.contourArea(contour) < MIN_BLOB_CELLS:
            continue
        hull = cv2.convexHull(contour)
        approx = cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True)
        corners = approx.reshape(-1, 2) if len(approx) == 4 else cv2.boxPoints(cv2.minAreaRect(hull))
        # Cell centres sit half a cell inside the blob's true edge.
        quad = order_clockwise(corners.astype(np.float32))
        center = quad.mean(axis=0)
        direction = quad - center
        norms = np.linalg.norm(direction, axis=1, keepdims=True)
        quads.append(quad + direction / np.maximum(norms, 1e-6) * 0.5)
    return quads


class CardMaskNet:
    """The segmentation model, loaded once."""

    def __init__(self, model_path: Path = MASK_MODEL_PATH, threads: int = 1) -> None:
        if not model_path.is_file():
            raise FileNotFoundError(f"card mask model not found at {model_path}; run `make train` to build it")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name

    def probability(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        canvas, scale = letterbox(image)
        logits = self.session.run(None, {self.input_name: to_input(canvas)})[0][0, 0]
        return 1 / (1 + np.exp(-logits)), scale

    def propose(self, image: np.ndarray) -> list[np.ndarray]:
        """Proposed card outlines in `image` pixels."""
        probability, scale = self.probability(image)
        to_image = OUTPUT_STRIDE / scale
        return [grow_core((q + 0.5) * to_image - 0.5).astype(np.float32) for q in blobs_to_quads(probability)]
