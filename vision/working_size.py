"""Pictures far larger than the recognisers were made for are read at a working size.

The networks and thresholds were made on webcam frames (1280x720 and up to 1920x1080). A phone's 12-megapixel
photo read as it is costs two to three times as long, up to seconds where its soft pixels set off the
readers' second looks for blurred frames (a tile scene at 4032x2268: 5.7 s). Each recogniser reads a
copy shrunk by a whole factor to no longer than WORKING_SIDE and gives its readings in the picture's own
pixels. Each pixel of the copy is the mean of a block of `factor` x `factor` picture pixels, so its centre
is the block's centre (`to_picture`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

# px, the long side: a 1440p frame is read as it is, a 4032x3024 photo at 2016x1512. Cards, tiles and sticks
# enlarged three times read as well so as at 1280x720 (models/dominoes.md, sixty-sixth session).
WORKING_SIDE = 2560


def working_copy(image: np.ndarray) -> tuple[np.ndarray, int]:
    """The image shrunk by the least whole factor that brings its long side to WORKING_SIDE or less (area
    resampling), and that factor (1: the image itself). A whole factor, because OpenCV's area resampling is
    fast only for those (4032 -> 2016 px: 6 ms; -> 2560: 99 ms); the last rows and columns that do not fill a
    whole block are left out."""
    h, w = image.shape[:2]
    factor = max(h, w) // (WORKING_SIDE + 1) + 1
    if factor == 1:
        return image, 1
    h, w = max(1, h // factor), max(1, w // factor)  # a sliver thinner than a block stays a pixel thick
    blocks = image[: h * factor, : w * factor]
    return cv2.resize(blocks, (w, h), interpolation=cv2.INTER_AREA), factor


def to_picture(points: np.ndarray, factor: int) -> np.ndarray:
    """Points (..., 2) in pixels of the copy shrunk by `factor`, in the picture's pixels."""
    return points if factor == 1 else points * factor + (factor - 1) / 2


def to_working(points: np.ndarray, factor: int) -> np.ndarray:
    """Points (..., 2) in the picture's pixels, in pixels of the copy shrunk by `factor`."""
    return points if factor == 1 else (points - (factor - 1) / 2) / factor


def outlines_to_working(outlines: Sequence[np.ndarray], factor: int) -> Sequence[np.ndarray]:
    """Outlines (each k x 2, the picture's pixels) in pixels of the copy shrunk by `factor`."""
    return outlines if factor == 1 else [to_working(np.asarray(quad, np.float32), factor) for quad in outlines]


def working_homography(homography: np.ndarray | None, factor: int) -> np.ndarray | None:
    """A map from the picture's pixels (to table millimetres) as a map from pixels of the copy shrunk by
    `factor`."""
    if homography is None or factor == 1:
        return homography
    offset = (factor - 1) / 2
    return homography @ np.array([[factor, 0.0, offset], [0.0, factor, offset], [0.0, 0.0, 1.0]])
