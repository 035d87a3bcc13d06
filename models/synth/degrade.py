"""Frames made worse than the renders, as a poor webcam makes them: the evaluations' `--degrade` option.

A render is already photographed (light, glare, blur, noise, JPEG at quality 45-95; models/synth/scenes.py).
These go past that, one kind at a time, so an evaluation says how much each costs:
- `jpeg`: compressed once more at quality 40, as a webcam's stream or a messaging app does;
- `dim`: the light cut to 45 % and sensor noise of sigma 6 added, as in a dim room at high gain;
- `bright`: overexposed, the light raised 1.6 times and cut off at white, as auto-exposure metering a dark
  cloth, or a lamp straight above, gives: light cards, tiles and tables lose their detail in the white;
- `warm`: a warm colour cast left in, as a webcam balanced for daylight gives under tungsten lamps
  (blue to WARM_GAINS[0], green to WARM_GAINS[1] of the light);
- `blur`: the camera moving 11 px at a random angle during the exposure;
- `soft`: out of focus, a Gaussian blur of sigma 2 px, as a cheap webcam's fixed focus gives close up.
Each is a pure function of the frame and the scene's seed.
"""

from __future__ import annotations

from enum import StrEnum

import cv2
import numpy as np

JPEG_QUALITY = 40
DIM_LIGHT = 0.45
DIM_NOISE = 6.0
BRIGHT_LIGHT = 1.6
WARM_GAINS = (0.6, 0.85, 1.05)  # B, G, R: about 2800 K seen as daylight
BLUR_LENGTH = 11
SOFT_SIGMA = 2.0


class Degradation(StrEnum):
    none = "none"
    jpeg = "jpeg"
    dim = "dim"
    bright = "bright"
    warm = "warm"
    blur = "blur"
    soft = "soft"


def motion_kernel(length: int, degrees: float) -> np.ndarray:
    """The blur of a camera moving `length` pixels (odd) at `degrees` during the exposure."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), degrees, 1)
    return cv2.warpAffine(kernel, rot, (length, length))


def worsened(how: Degradation) -> str:
    """What an evaluation's title adds for frames made worse: nothing for `none`."""
    return "" if how == Degradation.none else f", made worse: {how.value}"


def degrade(image: np.ndarray, how: Degradation, seed: int) -> np.ndarray:
    """`image` (uint8 BGR) made worse in the way `how` names; the noise and the blur's angle follow `seed`."""
    rng = np.random.default_rng(seed)
    if how == Degradation.jpeg:
        encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])[1]
        return cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    if how == Degradation.dim:
        noise = rng.normal(0, DIM_NOISE, image.shape).astype(np.float32)
        return np.clip(image.astype(np.float32) * DIM_LIGHT + noise, 0, 255).astype(np.uint8)
    if how == Degradation.bright:
        return cv2.convertScaleAbs(image, alpha=BRIGHT_LIGHT)  # saturates at 255
    if how == Degradation.warm:
        return np.clip(image.astype(np.float32) * np.float32(WARM_GAINS), 0, 255).astype(np.uint8)
    if how == Degradation.blur:
        return cv2.filter2D(image, -1, motion_kernel(BLUR_LENGTH, float(rng.uniform(0, 180))))
    if how == Degradation.soft:
        return cv2.GaussianBlur(image, (0, 0), SOFT_SIGMA)
    return image
