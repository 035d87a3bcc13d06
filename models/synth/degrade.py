"""Frames made worse than the renders, as a poor webcam makes them: the evaluations' `--degrade` option.

A render is already photographed (light, glare, blur, noise, JPEG at quality 45-95; models/synth/scenes.py).
These go past that, one kind at a time, so an evaluation says how much each costs:
- `jpeg`: compressed once more at quality 40, as a webcam's stream or a messaging app does;
- `dim`: the light cut to 45 % and sensor noise of sigma 6 added, as in a dim room at high gain;
- `bright`: overexposed, the light raised 1.6 times and cut off at white, as auto-exposure metering a dark
  cloth, or a lamp straight above, gives: light cards, tiles and tables lose their detail in the white;
- `warm`: a warm colour cast left in, as a webcam balanced for daylight gives under tungsten lamps
  (blue to WARM_GAINS[0], green to WARM_GAINS[1] of the light);
- `grey`: the colour gone, each pixel its luminance in all three channels, as a monochrome (or night-mode)
  camera gives: sticks and cards told from the table by colour alone lose what sets them apart;
- `blur`: the camera moving 11 px at a random angle during the exposure;
- `soft`: out of focus, a Gaussian blur of sigma 2 px, as a cheap webcam's fixed focus gives close up;
- `barrel`: a wide lens's barrel distortion left in, as a webcam that was never calibrated gives: straight
  edges bow outward and the frame's borders are squeezed towards its middle (BARREL, in OpenCV's lens model
  with the focal length FOCAL_SHARE of the frame's width; the lens test's strong lens). Of the kinds, only
  this one and `turned` move things in the picture: `moved` says where a render's point lies in the frame
  made worse, so an evaluation compares the reading with the truth where the frame shows it;
- `turned`: the frame turned half round, so that the table's far side is at the top, as a webcam at the
  table's edge sees it. The renders' cameras are pitched the other way (far side at the foot); turned, a
  render is what such a camera, rolled half round, shows: a view no render gives, of the same tables.
Each is a pure function of the frame and the scene's seed.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache

import cv2
import numpy as np

from calibration.lens import LensModel
from vision.geometry import HALF_TURN, mirrored, mirrored_points

JPEG_QUALITY = 40
DIM_LIGHT = 0.45
DIM_NOISE = 6.0
BRIGHT_LIGHT = 1.6
WARM_GAINS = (0.6, 0.85, 1.05)  # B, G, R: about 2800 K seen as daylight
BLUR_LENGTH = 11
SOFT_SIGMA = 2.0
BARREL = (-0.2, 0.05, 0.0, 0.0, 0.0)  # k1, k2, p1, p2, k3
FOCAL_SHARE = 0.7  # about 71 degrees across


class Degradation(StrEnum):
    none = "none"
    jpeg = "jpeg"
    dim = "dim"
    bright = "bright"
    warm = "warm"
    grey = "grey"
    blur = "blur"
    soft = "soft"
    barrel = "barrel"
    turned = "turned"


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
    if how == Degradation.grey:
        return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if how == Degradation.blur:
        return cv2.filter2D(image, -1, motion_kernel(BLUR_LENGTH, float(rng.uniform(0, 180))))
    if how == Degradation.soft:
        return cv2.GaussianBlur(image, (0, 0), SOFT_SIGMA)
    if how == Degradation.barrel:
        return _through_barrel_lens(image)
    if how == Degradation.turned:
        return mirrored(image, HALF_TURN)
    return image


def moved(points: np.ndarray, how: Degradation, size: tuple[int, int]) -> np.ndarray:
    """Where points of a render of `size` (width, height) lie in it made worse by `how`: as they were, but
    under a lens's distortion or turned half round with the frame."""
    if how == Degradation.turned:
        return mirrored_points(points, size, HALF_TURN).astype(np.asarray(points).dtype)
    if how != Degradation.barrel:
        return points
    points = np.asarray(points)
    lens, centre, zoom = _barrel(*size)
    bent = lens.distort_points(centre + zoom * (points.reshape(-1, 2) - centre))
    return bent.reshape(points.shape).astype(points.dtype)


@cache
def _barrel(width: int, height: int) -> tuple[LensModel, np.ndarray, float]:
    """The lens, its axis (the frame's centre), and how much the render is spread about the axis: as far as
    the lens sees past it along the shorter of the frame's axes, so that the render's top and bottom edges
    reach the frame's and nothing the render shows is cut off."""
    focal = FOCAL_SHARE * width
    centre = np.array([(width - 1) / 2, (height - 1) / 2])
    matrix = np.array([[focal, 0, centre[0]], [0, focal, centre[1]], [0, 0, 1]])
    lens = LensModel(matrix, np.array(BARREL), (width, height))
    edges = np.array([[0, centre[1]], [centre[0], 0]])  # the middles of the frame's left and top edges
    seen = np.abs(lens.undistort_points(edges) - centre)
    return lens, centre, float(min(seen[0, 0] / centre[0], seen[1, 1] / centre[1]))


@cache
def _barrel_sources(width: int, height: int) -> np.ndarray:
    """For each pixel of the distorted frame, where the render shows what it sees (height x width x 2)."""
    lens, centre, zoom = _barrel(width, height)
    grid = np.stack(np.meshgrid(np.arange(width), np.arange(height)), axis=-1).reshape(-1, 2)
    return (centre + (lens.undistort_points(grid) - centre) / zoom).reshape(height, width, 2).astype(np.float32)


def _through_barrel_lens(image: np.ndarray) -> np.ndarray:
    """The render bent by the lens. Spread to the frame's top and bottom (`_barrel`), it leaves bands at the
    frame's sides that it does not show; there the frame shows the render mirrored about its edge, so the
    table goes on. Left black, the bands changed the readers' view of the whole frame (a stick layout read
    right was read as nothing), which no real camera shows; the mirror's seams still read as a few sticks."""
    h, w = image.shape[:2]
    source = _barrel_sources(w, h)
    return cv2.remap(image, source[..., 0], source[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
