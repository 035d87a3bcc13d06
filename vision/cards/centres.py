"""Card outlines from the shared locator network (vision/locator.py): each card's centre and half-axes.

The network marks a card's centre on a heatmap and regresses there its two half-axes, along the face's
height and across it, in doubled-angle form (a card turned half round has the same outline). Centre plus
and minus the axes is a loose outline that the corner network puts on the card's corners. Beside the edge
outlines it is the second proposal source: it has the receptive field of the domino and stick locators, which
learned to see objects through patterned tablecloths, and it keeps touching cards apart by their centres.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import landscape, turned, turned_back
from vision.locator import (
    LocatorNetwork,
    cell_of,
    doubled,
    encode,
    read_axes,
    reading_canvas,
    reading_scale,
    scaled_canvas,
)
from vision.locator import letterbox as letterbox_into

INPUT_SIZE = (480, 272)  # width, height; a multiple of 16 for the network's four halvings
STRIDE = 4
GRID = (INPUT_SIZE[0] // STRIDE, INPUT_SIZE[1] // STRIDE)
CHANNELS = ("heat", "dx", "dy", "u_cos", "u_sin", "v_cos", "v_sin")
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_locate.onnx"
# The locator trained on from MODEL_PATH with portrait frames among its scenes (models/train_card_locator.py):
# a phone held upright sees a tilted table's far cards small and foreshortened along the turned frame's width,
# as no landscape render shows them. It reads portrait frames better and landscape ones worse
# (models/digit_cards.md), so each reads the frames it is better at.
PORTRAIT_MODEL_PATH = MODEL_PATH.with_name("card_locate_portrait.onnx")
PEAK_THRESHOLD = 0.3
FAINT_THRESHOLD = 0.2  # peaks up to PEAK_THRESHOLD are read only away from cards read (vision/cards/recognize.py)


def letterbox(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame scaled into INPUT_SIZE keeping its shape, top-left aligned, and the scale."""
    return letterbox_into(image, INPUT_SIZE)


def half_axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A card's centre and half-axes from its corners in the face's order (top-left, top-right,
    bottom-right, bottom-left): `u` from the centre to the bottom edge's middle, `v` to the right edge's."""
    c = np.asarray(corners, np.float64)
    u = ((c[2] + c[3]) - (c[0] + c[1])) / 4
    v = ((c[1] + c[2]) - (c[0] + c[3])) / 4
    return c.mean(axis=0), u, v


def outline(center: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The parallelogram centre +- u +- v (4, 2), clockwise in image coordinates when v is u turned a
    quarter to the right; for n of each (n, 2), the n outlines (n, 4, 2)."""
    return np.stack([center - u - v, center - u + v, center + u + v, center + u - v], axis=-2).astype(np.float32)


def encode_targets(cards: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training targets for cards given by their corners in input pixels: heatmap (H, W), regression
    (6, H, W) and its weight (H, W). The peak's width is a fifth of the card's width, so that neighbours in a
    grid stay apart."""
    objects = []
    for corners in cards:
        center, u, v = half_axes(corners)
        sigma = max(0.5, 0.2 * 2 * float(np.linalg.norm(v)) / STRIDE)
        objects.append((cell_of(center, STRIDE), sigma, (*doubled(u / STRIDE), *doubled(v / STRIDE))))
    return encode(objects, GRID, 4)


def decode(output: np.ndarray, threshold: float = PEAK_THRESHOLD) -> list[tuple[float, np.ndarray]]:
    """Network output (7, H, W) -> (score, loose outline in input pixels) at each heatmap peak."""
    scores, centers, us, vs = read_axes(output, STRIDE, threshold)
    # The doubled angles lose each axis's sign; turn v to u's right so the outline runs one way round.
    right = np.stack([us[:, 1], -us[:, 0]], axis=-1)
    vs = np.where((np.sum(vs * right, axis=1) < 0)[:, None], -vs, vs)
    # Every peak's outline at once: a faint threshold leaves dozens of peaks a look.
    return list(zip(scores.tolist(), outline(centers, us, vs), strict=True))


@dataclass(frozen=True)
class HeatMap:
    """Per map cell, the most centre heat within a cell of it: whether a card is centred near there."""

    heat: np.ndarray
    cell: float  # image pixels per map cell
    portrait_height: int | None = None  # the frame's, if it was turned to landscape for the network

    def _in_cells(self, points: np.ndarray) -> np.ndarray:
        """Image points (n, 2) in map cells, turned as the frame was for the network."""
        points = np.asarray(points, np.float32)
        if self.portrait_height is not None:
            points = turned(points, self.portrait_height)
        return points / self.cell

    def at(self, points: np.ndarray) -> np.ndarray:
        """The heat at image points (n, 2); 0 outside the map."""
        cells = np.floor(self._in_cells(points)).astype(int)
        h, w = self.heat.shape
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < w) & (cells[:, 1] >= 0) & (cells[:, 1] < h)
        values = np.zeros(len(cells), np.float32)
        values[inside] = self.heat[cells[inside, 1], cells[inside, 0]]
        return values


class CardLocator(LocatorNetwork):
    """The card locating network, loaded once."""

    # Dim renders (light cut to 45 %, sensor noise) read 15, 19 and 3 cards more on the three held-out sets
    # (6 fewer false), the plain sets as many (2 fewer of 3227). The tile and stick locators read as trained:
    # raised, the tile reader found phantom tiles on dark tables of sticks and more false ones in blurred
    # frames, and the stick reader read 7 layouts more of one dim set and 5 fewer of another.
    lift_flat = True

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        super().__init__(model_path, CHANNELS, INPUT_SIZE, "models.train_card_locator", threads)

    @staticmethod
    def input_scale(image: np.ndarray) -> float:
        """Input pixels per frame pixel in `read`, which turns a portrait frame to landscape first."""
        short, long = sorted(image.shape[:2])
        return reading_scale(long, short, INPUT_SIZE)

    def read_closer(
        self, image: np.ndarray, region: tuple[int, int, int, int], scale: float
    ) -> list[tuple[float, np.ndarray]]:
        """The proposed loose outlines, with their scores, in the `region` (x0, y0, x1, y1) of the image read at
        `scale` input pixels per frame pixel, in the image's pixels."""
        x0, y0, x1, y1 = region
        # Linear, not area, resampling: the area resize is slow by factors other than halves.
        output = self.maps(scaled_canvas(image[y0:y1, x0:x1], scale, cv2.INTER_LINEAR))
        return [(score, quad / scale + (x0, y0)) for score, quad in decode(output, FAINT_THRESHOLD)]

    def read(self, image: np.ndarray) -> tuple[list[tuple[float, np.ndarray]], HeatMap]:
        """The proposed loose outlines in the image's pixels with their scores (down to FAINT_THRESHOLD), and the
        heat map."""
        image, portrait_height = landscape(image)
        canvas, scale = reading_canvas(image, INPUT_SIZE)
        output = self.maps(canvas)
        # A guess at a card's centre (a neighbour in a row) is off by a few pixels: take the most near it.
        near = cv2.dilate(1 / (1 + np.exp(-output[0])), np.ones((3, 3), np.uint8))
        outlines = [(score, quad / scale) for score, quad in decode(output, FAINT_THRESHOLD)]
        if portrait_height is not None:
            outlines = [(score, turned_back(quad, portrait_height)) for score, quad in outlines]
        return outlines, HeatMap(near, STRIDE / scale, portrait_height)
