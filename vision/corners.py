"""A card's or a tile's own corners from a loose outline.

Outlines from a locator's centre and axes, or from edges on a busy cloth, often miss the card or tile by a
tenth of its size or more: enough for the classifier to cut off the numeral, or the pip reader a pip, or to
take in the table. A small network looks at the outline's neighbourhood, warped to a square, and says where
each of the object's corners lies. Corners keep the outline's order, so a refined outline can stand in for
the loose one anywhere. Cards and tiles each have their network (`vision.cards.corners`,
`vision.dominoes.corners`), of one shape and on one crop.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.crops import to_tensor
from vision.geometry import scaled_outline
from vision.onnx_session import load_session

CROP = 64  # the square the outline's neighbourhood is warped to
EXPAND = 1.6  # the neighbourhood: the outline scaled about its centre, so a corner can move out as well as in
MARGIN = CROP * (1 - 1 / EXPAND) / 2  # where the outline's own corners land in the crop
SINGULAR = 1e-12  # |determinant| of an outline's map to the crop under which it cannot be inverted
ANCHORS = np.array([[MARGIN, MARGIN], [CROP - MARGIN, MARGIN], [CROP - MARGIN, CROP - MARGIN], [MARGIN, CROP - MARGIN]])


def to_crop(quad: np.ndarray) -> np.ndarray:
    """The homography from image to the outline's neighbourhood crop."""
    square = np.array([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], np.float32)
    return cv2.getPerspectiveTransform(scaled_outline(np.asarray(quad, np.float32), EXPAND), square)


def neighbourhood(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The outline's neighbourhood as a CROP x CROP picture, and the homography from image to crop."""
    matrix = to_crop(quad)
    return _warped(image, matrix), matrix


def _warped(image: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    return cv2.warpPerspective(image, matrix, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


class CornerRefiner:
    """A corner network, loaded once and run on batches of outlines."""

    def __init__(self, model_path: Path, threads: int = 1) -> None:
        self.session = load_session(model_path, threads)
        self.input_name = self.session.get_inputs()[0].name

    def refine(self, image: np.ndarray, quads: list[np.ndarray], rounds: int = 2) -> list[np.ndarray]:
        """Each outline moved onto its object's corners; an outline the network folds (not convex) stays, and
        so does one whose map to the crop cannot be inverted: three corners or more in a line (a locator's two
        axes can come out parallel)."""
        current = [np.asarray(q, np.float32) for q in quads]
        for _ in range(rounds):
            matrices = [to_crop(q) for q in current]
            warpable = [i for i, m in enumerate(matrices) if abs(np.linalg.det(m)) > SINGULAR]
            if not warpable:
                break
            crops = np.stack([_warped(image, matrices[i]) for i in warpable])
            offsets = self.session.run(None, {self.input_name: to_tensor(crops)})[0]
            for i, offset in zip(warpable, offsets, strict=True):
                in_crop = (ANCHORS + offset.reshape(4, 2) * CROP).astype(np.float32)
                corners = cv2.perspectiveTransform(in_crop[None], np.linalg.inv(matrices[i]))[0]
                if cv2.isContourConvex(corners):
                    current[i] = corners
        return current
