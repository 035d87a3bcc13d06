"""An unsharp mask for frames of ordinary contrast: a webcam's soft focus blurs a card's rim and numeral,
and the card networks, trained on renders mostly in focus, lose cards in such frames."""

from __future__ import annotations

import cv2
import numpy as np

from vision.locator import flat_gain

SHARP_SIGMA = 2.0  # frame pixels
SHARP_AMOUNT = 1.0


def sharpened(frame: np.ndarray) -> np.ndarray:
    """`frame` (uint8 BGR) plus SHARP_AMOUNT times its difference from its Gaussian blur; a flat frame (a dim
    room's, `flat_gain`) as it is: its noise would be sharpened more than its cards."""
    if flat_gain(frame) > 1.0:
        return frame
    blurred = cv2.GaussianBlur(frame, (0, 0), SHARP_SIGMA)
    return cv2.addWeighted(frame, 1 + SHARP_AMOUNT, blurred, -SHARP_AMOUNT, 0)
