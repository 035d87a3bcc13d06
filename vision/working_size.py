"""Pictures far larger than the recognisers were made for are read at a working size.

The networks and thresholds were made on webcam frames (1280x720 and up to 1920x1080). A phone's 12-megapixel
photo read as it is costs two to three times as long, up to seconds where its soft pixels set off the
readers' second looks for blurred frames (a tile scene at 4032x2268: 5.7 s). Each recogniser reads a
copy shrunk by a whole factor to no longer than WORKING_SIDE and gives its readings in the picture's own
pixels.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

# px, the long side: a 1440p frame is read as it is, a 4032x3024 photo at 2016x1512. Cards, tiles and sticks
# enlarged three times read as well so as at 1280x720 (models/dominoes.md, sixty-sixth session).
WORKING_SIDE = 2560


def working_copy(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The image shrunk by the least whole factor that brings its long side to WORKING_SIDE or less (area
    resampling), and the scale applied (1.0: the image itself). A whole factor, because OpenCV's area
    resampling is fast only for those (4032 -> 2016 px: 6 ms; -> 2560: 99 ms); the last rows and columns that
    do not fill a whole block are left out."""
    h, w = image.shape[:2]
    factor = math.ceil(max(h, w) / WORKING_SIDE)
    if factor <= 1:
        return image, 1.0
    h, w = max(1, h // factor), max(1, w // factor)  # a sliver thinner than a block stays a pixel thick
    blocks = image[: h * factor, : w * factor]
    return cv2.resize(blocks, (w, h), interpolation=cv2.INTER_AREA), 1 / factor


def working_homography(homography: np.ndarray | None, scale: float) -> np.ndarray | None:
    """A map from the picture's pixels (to table millimetres) as a map from the working copy's pixels."""
    if homography is None or scale == 1.0:
        return homography
    return homography @ np.diag([1 / scale, 1 / scale, 1.0])
