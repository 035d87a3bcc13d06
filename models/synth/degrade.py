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
  render is what such a camera, rolled half round, shows: a view no render gives, of the same tables;
- `phone`: a phone camera's own processing, as a photo taken with a phone and sent on shows it: the noise
  smoothed away with fine texture (an edge-keeping filter), shadows lifted and highlights held by local tone
  mapping (CLAHE on the lightness, as an "HDR" look), the result sharpened with halos along every edge (an
  unsharp mask of PHONE_SHARPEN over PHONE_RADIUS px), and the corners darkened by the small lens (VIGNETTE
  of the light left at the corners);
- `hand`: a player's bare arm and open hand reaching in from the frame's edge, with its shadow, as at a table
  in play. It is laid where it covers none of the things the scene holds (`clear`), so every one stays in
  view and the truth stands: what it measures is what fingers, knuckles and nails read as (false
  detections), and what an arm beside a layout does to reading it. Sized by the table's scale (`px_per_mm`).
Each is a pure function of the frame and the scene's seed.
"""

from __future__ import annotations

from collections.abc import Sequence
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
PHONE_SHARPEN = 1.2
PHONE_RADIUS = 1.5
PHONE_CLAHE = 2.0
VIGNETTE = 0.7
PALM_MM = (75.0, 95.0)  # an adult's palm across the knuckles
HAND_CLEARANCE_MM = 6.0  # the hand keeps this far off everything in `clear`
HAND_TRIES = 120
HAND_PLACES = 12
SHIFT = 4  # bits of sub-pixel precision in cv2's drawing
HAND_SOFTNESS = 1.4  # px, the Gaussian blur of the hand's outline
# Skin from pale to deep (BGR); each hand takes a mix of two neighbours.
SKIN_TONES = np.array(
    [[185, 200, 240], [150, 175, 225], [120, 150, 200], [90, 120, 170], [60, 85, 130], [40, 55, 90]], np.float32
)


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
    phone = "phone"
    hand = "hand"


def motion_kernel(length: int, degrees: float) -> np.ndarray:
    """The blur of a camera moving `length` pixels (odd) at `degrees` during the exposure."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), degrees, 1)
    return cv2.warpAffine(kernel, rot, (length, length))


def worsened(how: Degradation) -> str:
    """What an evaluation's title adds for frames made worse: nothing for `none`."""
    return "" if how == Degradation.none else f", made worse: {how.value}"


def degrade(
    image: np.ndarray,
    how: Degradation,
    seed: int,
    clear: Sequence[np.ndarray] = (),
    px_per_mm: float | None = None,
) -> np.ndarray:
    """`image` (uint8 BGR) made worse in the way `how` names; the noise and the blur's angle follow `seed`.
    `hand` keeps off the outlines or sticks in `clear` (image px, each n x 2) and is sized by `px_per_mm` (a
    tenth of the frame's width across the palm if not given)."""
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
    if how == Degradation.phone:
        return _phone_processed(image)
    if how == Degradation.hand:
        scale = px_per_mm or image.shape[1] / 10 / np.mean(PALM_MM)
        return _hand_over(image, rng, _kept_clear(image.shape[:2], clear, HAND_CLEARANCE_MM * scale), scale)
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


def _phone_processed(image: np.ndarray) -> np.ndarray:
    """`image` as a phone's pipeline leaves it (see the module): smoothed, tone-mapped, sharpened, vignetted."""
    smooth = cv2.bilateralFilter(image, 7, 25, 5)
    lab = cv2.cvtColor(smooth, cv2.COLOR_BGR2LAB)
    lab[..., 0] = cv2.createCLAHE(clipLimit=PHONE_CLAHE, tileGridSize=(8, 8)).apply(lab[..., 0])
    mapped = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR).astype(np.float32)
    sharp = mapped + PHONE_SHARPEN * (mapped - cv2.GaussianBlur(mapped, (0, 0), PHONE_RADIUS))
    h, w = image.shape[:2]
    y, x = np.ogrid[:h, :w]
    reach = ((x - (w - 1) / 2) ** 2 + (y - (h - 1) / 2) ** 2) / (((w - 1) / 2) ** 2 + ((h - 1) / 2) ** 2)
    light = 1 - (1 - VIGNETTE) * reach.astype(np.float32)
    return np.clip(sharp * light[..., None], 0, 255).astype(np.uint8)


def px_per_mm(outlines: Sequence[np.ndarray], longest_mm: float) -> float | None:
    """The table's scale in a frame: the median over `outlines` (image px, each n x 2: a card's corners, a
    stick's ends) of its longest side, over that side's real length. None without outlines."""
    sides = [float(np.linalg.norm(np.roll(o, -1, axis=0) - o, axis=1).max()) for o in map(np.asarray, outlines)]
    return float(np.median(sides)) / longest_mm if sides else None


def _kept_clear(shape: tuple[int, int], clear: Sequence[np.ndarray], margin: float) -> np.ndarray:
    """A mask (uint8) of the outlines and sticks in `clear`, grown by `margin` px."""
    mask = np.zeros(shape, np.uint8)
    for points in clear:
        hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 2)).astype(np.int32)
        cv2.fillConvexPoly(mask, hull, 255)
        cv2.polylines(mask, [hull], True, 255, max(1, round(2 * margin)))
    return mask


def _hand_shape(shape: tuple[int, int], rng: np.random.Generator, scale: float) -> np.ndarray:
    """A mask (float 0..1, anti-aliased) of a forearm and an open hand reaching in from one of the frame's
    edges towards its middle, the wrist a random way in."""
    h, w = shape
    palm = rng.uniform(*PALM_MM) * scale
    side = rng.integers(4)
    along = rng.uniform(0.1, 0.9)
    entry, inward = {
        0: (np.array([along * w, h + palm]), np.array([0.0, -1.0])),
        1: (np.array([along * w, -palm]), np.array([0.0, 1.0])),
        2: (np.array([-palm, along * h]), np.array([1.0, 0.0])),
        3: (np.array([w + palm, along * h]), np.array([-1.0, 0.0])),
    }[int(side)]
    turn = np.radians(rng.uniform(-40, 40))
    ahead = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) @ inward
    across = np.array([-ahead[1], ahead[0]])
    wrist = entry + ahead * rng.uniform(0.3, 3.0) * palm
    mask = np.zeros(shape, np.uint8)

    def capsule(a: np.ndarray, b: np.ndarray, width: float) -> None:
        cv2.line(mask, *map(tuple, _fixed(np.array([a, b]))), 255, max(1, round(width)), cv2.LINE_AA, SHIFT)

    def tapered(a: np.ndarray, b: np.ndarray, half_at_a: float, half_at_b: float) -> None:
        """A band from a to b, its half-width (in palms) changing along it."""
        sides = [a + across * half_at_a * palm, b + across * half_at_b * palm]
        sides += [b - across * half_at_b * palm, a - across * half_at_a * palm]
        cv2.fillConvexPoly(mask, _fixed(np.array(sides)), 255, cv2.LINE_AA, SHIFT)

    tapered(wrist - ahead * 4 * palm, wrist, 0.45, 0.33)  # the forearm
    knuckles = wrist + ahead * rng.uniform(0.9, 1.1) * palm
    tapered(wrist, knuckles, 0.4, 0.5)  # the palm
    spread = np.radians(rng.uniform(2, 12))
    for k, length in enumerate((0.75, 0.88, 0.82, 0.62)):
        offset = (1.5 - k) * 0.25 * palm
        angle = (1.5 - k) * spread
        direction = np.cos(angle) * ahead + np.sin(angle) * across
        base = knuckles + across * offset - ahead * 0.1 * palm
        capsule(base, base + direction * length * palm * rng.uniform(0.9, 1.1), 0.21 * palm)
    thumb_side = 1 if rng.random() < 0.5 else -1
    thumb_base = wrist + ahead * 0.35 * palm + thumb_side * across * 0.4 * palm
    thumb_angle = np.radians(rng.uniform(25, 60))
    thumb = np.cos(thumb_angle) * ahead + thumb_side * np.sin(thumb_angle) * across
    capsule(thumb_base, thumb_base + thumb * 0.75 * palm, 0.25 * palm)
    return mask.astype(np.float32) / 255


def _fixed(points: np.ndarray) -> np.ndarray:
    """Points (n x 2 px) in the fixed-point form OpenCV draws with at SHIFT bits of sub-pixel precision."""
    return np.round(points * (1 << SHIFT)).astype(np.int32)


def _hand_over(image: np.ndarray, rng: np.random.Generator, clear: np.ndarray, scale: float) -> np.ndarray:
    """The frame with a hand (`_hand_shape`) and its shadow laid where it covers nothing of `clear`: of the
    first HAND_PLACES such places in HAND_TRIES draws, the one that shows most of the hand (a hand reaching in
    among the things on the table, not one at the frame's rim). The frame as it was if there is none."""
    hand, places = None, 0
    for _ in range(HAND_TRIES):
        drawn = _hand_shape(image.shape[:2], rng, scale)
        if drawn.sum() == 0 or (drawn > 0)[clear > 0].any():
            continue
        if hand is None or drawn.sum() > hand.sum():
            hand = drawn
        places += 1
        if places == HAND_PLACES:
            break
    if hand is None:
        return image
    size = float(np.sqrt(hand.sum()))
    shadow = np.roll(hand, (round(rng.uniform(-0.15, 0.15) * size), round(rng.uniform(-0.15, 0.15) * size)), (0, 1))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.05 * size + 1)
    out = image.astype(np.float32) * (1 - rng.uniform(0.3, 0.6) * shadow)[..., None]
    tone = rng.uniform(0, len(SKIN_TONES) - 1)
    skin = np.array([np.interp(tone, np.arange(len(SKIN_TONES)), channel) for channel in SKIN_TONES.T], np.float32)
    # Rounded: lit along the middle of each finger and the arm, darker to the rims.
    depth = cv2.distanceTransform((hand > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    depth = np.clip(depth / (0.08 * size + 1), 0, 1)
    light = rng.uniform(0.7, 1.15) * (0.65 + 0.35 * np.sqrt(depth))
    texture = cv2.GaussianBlur(rng.normal(0, 1, hand.shape).astype(np.float32), (0, 0), 2) * 6
    colour = skin[None, None] * light[..., None] + texture[..., None]
    # As soft as a render's edges (models/synth/scenes.py blurs them by up to 1.6 px): a crisper hand would pass
    # for a sharper frame with the readers' focus gauge (vision/sharpen.py).
    alpha = cv2.GaussianBlur(hand, (0, 0), HAND_SOFTNESS)[..., None]
    out = out * (1 - alpha) + colour * alpha
    out += rng.normal(0, 2.5, out.shape).astype(np.float32) * alpha  # the frame has its own noise already
    return np.clip(out, 0, 255).astype(np.uint8)
