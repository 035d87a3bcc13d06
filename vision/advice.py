"""What the person at the table could fix about a frame: too dark (or grainy, as dim light makes it),
overexposed, streaked by a moving camera, out of focus. Each costs the readers cards, tiles and sticks
(`tableref evaluate ... --degrade`), and each is easier to fix at the table than to read through.

The thresholds were set on 120 held-out renders (40 each of cards, tiles and sticks) and copies of them made
worse (models/synth/degrade.py), for few warnings on frames as rendered, and measured on 120 others (seeds
90500040.., 97500040.., 8100040..). Warned of:
- as rendered, 4 (3 white tables as overexposed, one as out of focus; renders hold white and black tables and
  streak a frame in seven, so not every warning there is false);
- dim (the light cut to 45 % and noise), 119 (as grainy);
- overexposed (the light raised 1.6 times), 34 (33 as overexposed, one as grainy);
- streaked 11 px by a moving camera, 99 (88 as motion-blurred, 11 as out of focus);
- out of focus by 2 px, 97 (96 as out of focus).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.deblur import motion_blur
from vision.sharpen import FocusGauge

# The brightest 1 % of a frame under this grey level: nothing on the table is lit. Frames as rendered go that
# dark only on black tables (3 of 120); dim renders (the light cut to 45 %) mostly stay above it.
DARK_BELOW = 48
# A dim room's frame is grainy more than dark: the camera's gain lifts the noise with the light. Noise (the
# standard deviation Immerkaer's Laplacian gives) over this share of the frame's range (1st to 99th
# percentile): frames as rendered, JPEG and sensor noise included, reach 2.9 % at most on the first 120, dim
# ones 3.4 % at least.
GRAINY_OVER = 0.033
NOISE_KERNEL = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
# The grey level from which a frame is burnt out to white: nothing lying there shows.
BURNT_OUT = 250
# More than this share of the frame burnt out: a white table or sheet clipped, and any light card, tile or stick
# on it with it.
WHITE_OVER = 0.5
# A lamp's reflection burns out a patch of the table and whatever lies in it, a stick as well. Where a DIGIT
# layout is read short of its five sticks, burnt-out table within a stick's length of the ends read, this share of
# a stick's length squared or more (a stick covers about a fifteenth of that), may hide the sticks missing. On the
# four usual held-out sets (1760 layouts, legal and broken) the layouts so read were the three whose missing stick
# the glare whitens (40209, 60036, 80098; 1.3-7 of a stick's length squared burnt out) and 15 broken layouts read
# with 2-4 of their 5 sticks, every one short of sticks too; from 0.3 to 0.5 the same 18.
GLARE_BESIDE = 0.5
# A camera's streak this prominent in the frame's cepstrum (vision/deblur.py; the readers restore frames from 8),
# where the frame is soft as well: its focus measure under STREAKED_SOFTER, or its edges' sharpness along the
# streak (`_sharpness_along`) under SOFT_ALONG. Wood grain and long seams give a trough as deep as a streak's
# (the bench's DIGIT sample on birch stands out 24), but the sticks and cards on them stay sharp. On the first
# 120 frames: as rendered, the two that stood out 12 measured 0.90 and 1.24, and 1.51 and 3.26 along; streaked
# 11 px, 82 stood out 12, 78 of them under 0.9 and 73 under 1.45 along (81 either way).
STREAK_FROM = 12.0
STREAKED_SOFTER = 0.9
SOFT_ALONG = 1.45
SCALES = (0.8, 2.5)  # px: the fine and coarse Gaussians whose gradients `_sharpness_along` compares
# The focus measure (vision/sharpen.py; the tile and stick readers sharpen under 0.55) under this: frames as
# rendered measure 0.49 and up, out of focus by 2 px all but a few under 0.59.
SOFT_BELOW = 0.5
FEATURELESS = 2.0  # grey levels of spread: a frame this even shows nothing to be in or out of focus
# A watch looks for advice on one frame in this many seconds: a look costs about 50 ms at 1280x720 on one core
# (a twentieth of a second's reading), and light and focus change slowly.
ADVISE_EVERY_S = 5.0


@dataclass(frozen=True)
class Advice:
    """One thing to fix: `problem` is a short name (dark, for a dark or grainy frame; overexposed; motion-blurred; out
    of focus; glare, beside a layout read short), `message` says what was seen and what to do."""

    problem: str
    message: str


def frame_advice(image: np.ndarray, focus: FocusGauge | None = None) -> list[Advice]:
    """What to fix about `image` (uint8 BGR or grey), in the order it matters most; empty for a good frame."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    advice = []
    darkest, brightest = (float(v) for v in np.percentile(grey, (1, 99)))
    grain = _noise(grey) / max(brightest - darkest, 1.0)
    if brightest < DARK_BELOW:
        advice.append(
            Advice(
                "dark",
                f"the picture is dark (its brightest parts reach {brightest:.0f} of 255): light the table or "
                "raise the camera's exposure",
            )
        )
    elif grain > GRAINY_OVER:
        advice.append(
            Advice(
                "dark",
                f"the picture is grainy (its noise is {grain:.0%} of its contrast), as a camera makes it in dim "
                "light: light the table more",
            )
        )
    white = float(np.count_nonzero(grey >= BURNT_OUT)) / grey.size
    if white > WHITE_OVER:
        advice.append(
            Advice(
                "overexposed",
                f"{white:.0%} of the picture is pure white: lower the camera's exposure or turn the lamp away",
            )
        )
    if float(grey.std()) < FEATURELESS:
        return advice  # a blank frame (a covered lens, a bare sheet): no detail to be sharp or streaked
    streak, softness = motion_blur(grey), (focus or FocusGauge()).softness(grey)
    streaked = streak is not None and streak.prominence >= STREAK_FROM
    if streaked and (softness < STREAKED_SOFTER or _sharpness_along(grey, streak.degrees) < SOFT_ALONG):
        advice.append(
            Advice(
                "motion-blurred",
                f"the camera moved during the shot (a {streak.length:.0f} px streak): hold it still, or light "
                "the table more so the exposure is shorter",
            )
        )
    elif softness < SOFT_BELOW:
        advice.append(
            Advice("out of focus", "the picture is out of focus: focus the camera on the table, or move it back")
        )
    return advice


def glare_beside(image: np.ndarray, ends: np.ndarray, reach: float) -> Advice | None:
    """Advice where `image` (uint8 BGR or grey) is burnt out to white over GLARE_BESIDE of `reach` squared or more
    within `reach` px of the points `ends` (n x 2, image px): a lamp's reflection there can hide a stick. The
    caller asks it of a layout read short; None where little is burnt out near it."""
    points = np.asarray(ends, np.float64).reshape(-1, 2)
    if not len(points) or reach <= 0:
        return None
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    near = np.zeros(grey.shape, np.uint8)
    for x, y in np.rint(points).astype(int):
        cv2.circle(near, (int(x), int(y)), max(1, round(reach)), 1, -1)
    ys, xs = np.nonzero((grey >= BURNT_OUT) & (near > 0))
    if len(xs) < GLARE_BESIDE * reach**2:
        return None
    return Advice(
        "glare",
        f"a lamp's glare burns the table out to white beside the sticks (about x {xs.mean():.0f}, y {ys.mean():.0f}):"
        " a stick lying there cannot be seen; move the lamp or tilt the camera so that its reflection falls off "
        "the layout",
    )


class Adviser:
    """Advice over a watch's frames: the first frame looked at, then one each `every_s` seconds of the `clock`
    (the machine's, not the film's: the cost is the machine's)."""

    def __init__(self, every_s: float = ADVISE_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._every_s, self._clock = every_s, clock
        self._looked: float | None = None
        self._focus = FocusGauge()

    def __call__(self, frame: np.ndarray) -> list[Advice] | None:
        """`frame`'s advice where it is time to look (empty for a good frame), else None."""
        now = self._clock()
        if self._looked is not None and now - self._looked < self._every_s:
            return None
        self._looked = now
        return frame_advice(frame, self._focus)


def _sharpness_along(grey: np.ndarray, degrees: float) -> float:
    """How sharp the frame's strongest edges are along a direction: the 99.9th percentile of the gradient along
    it at the fine scale over that at the coarse one (SCALES). A step in focus gives about the scales' ratio
    (3); a streak along the direction turns every step across it into a ramp as long, the same at both scales."""
    direction = np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))], np.float32)
    tops = []
    for sigma in SCALES:
        smooth = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), sigma)
        gradient = (
            cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3) * direction[0]
            + cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3) * direction[1]
        )
        tops.append(float(np.percentile(np.abs(gradient), 99.9)))
    return tops[0] / max(tops[1], 1e-3)


def _noise(grey: np.ndarray) -> float:
    """The frame's noise as a standard deviation in grey levels (Immerkaer's estimate: the mean response to a
    Laplacian difference that cancels smooth shading and most edges)."""
    response = cv2.filter2D(grey.astype(np.float32), -1, NOISE_KERNEL)[1:-1, 1:-1]
    if not response.size:  # a picture two pixels across or less: no pixel has neighbours all round
        return 0.0
    return float(np.sqrt(np.pi / 2) * np.abs(response).mean() / 6)
