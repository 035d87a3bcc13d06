"""An unsharp mask for frames of ordinary contrast: a webcam's soft focus blurs a card's rim and numeral, a
tile's pips and a stick's ends, and the networks, trained on renders mostly in focus, lose them in such frames.

The card reader sharpens every such frame (`sharpened`). The tile and stick readers read frames in focus worse
sharpened, so they sharpen only a soft one (`FocusGauge`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import cv2
import numpy as np

from vision.locator import flat_gain

SHARP_SIGMA = 2.0  # frame pixels
SHARP_AMOUNT = 1.0
# Held-out renders in focus measure 0.51 and up, and over 0.55 but for 6 of 40 tile frames and 1 of 60 stick ones;
# out of focus by a Gaussian blur of sigma 2 px, every tile frame measures 0.51 or less and 53 of 60 stick
# frames under 0.55 (the rest low in contrast, where the finest differences are the frame's own noise).
SOFT_BELOW = 0.55
EDGE_SHARE = 0.001  # the share of pixels taken as the frame's sharpest edges
LEVEL_STEPS = 4  # `softness` reads differences to a quarter grey level: a low-contrast frame's are small


def sharpened(frame: np.ndarray) -> np.ndarray:
    """`frame` (uint8 BGR) plus SHARP_AMOUNT times its difference from its Gaussian blur; a flat frame (a dim
    room's, `flat_gain`) as it is: its noise would be sharpened more than its cards."""
    if flat_gain(frame) > 1.0:
        return frame
    blurred = cv2.GaussianBlur(frame, (0, 0), SHARP_SIGMA)
    return cv2.addWeighted(frame, 1 + SHARP_AMOUNT, blurred, -SHARP_AMOUNT, 0)


class FocusGauge:
    """Tells a soft frame from one in focus (`softness`) and sharpens it: always (`sharpened`, the card
    reader) or only a soft one (`sharpened_if_soft`, the tile and stick readers). It keeps its working arrays
    per frame size: fresh ones cost more in page faults than the filtering. So one gauge serves one thread
    at a time."""

    def __init__(self) -> None:
        self._arrays: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        self._holding = False  # inside `one_frame`
        self._frame: np.ndarray | None = None  # the frame the answers held are for
        self._answers: dict[str, np.ndarray] = {}

    def softness(self, frame: np.ndarray) -> float:
        """How much of its edges' detail a frame keeps at the finest scale: at its sharpest edges, the grey
        frame's difference from its Gaussian blur of sigma 1 px, over that blur's difference from one of
        sigma 2. Defocus takes the finest scale first, so the ratio falls as a frame goes soft, whatever
        the frame shows. The kernels are cut at 3 sigma, not OpenCV's 4 for float images: 3.9 ms, not 4.5; the
        measure moved by 0.011 at most, and across SOFT_BELOW never (400 held-out card, tile and stick
        frames, sharp and soft)."""
        size = frame.shape[:2]
        if size not in self._arrays:
            self._arrays = {size: tuple(np.empty(size, np.float32) for _ in range(3))}
        grey, fine, coarse = self._arrays[size]
        np.copyto(grey, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame)
        cv2.GaussianBlur(grey, (7, 7), 1.0, dst=fine)
        cv2.GaussianBlur(fine, (11, 11), np.sqrt(3.0), dst=coarse)  # sigma 2 in all
        cv2.absdiff(fine, coarse, dst=coarse)
        cv2.absdiff(grey, fine, dst=fine)
        return _top_level(fine) / max(_top_level(coarse), 1e-3)

    def sharpened(self, frame: np.ndarray) -> np.ndarray:
        """`frame` sharpened (the module's `sharpened`)."""
        return self._once(frame, "sharpened", lambda: sharpened(frame))

    def sharpened_if_soft(self, frame: np.ndarray) -> np.ndarray:
        """`frame` sharpened if it is soft (`softness` under SOFT_BELOW), else as it is."""
        return self._once(
            frame, "if soft", lambda: self.sharpened(frame) if self.softness(frame) < SOFT_BELOW else frame
        )

    def _once(self, frame: np.ndarray, question: str, answer: Callable[[], np.ndarray]) -> np.ndarray:
        if not self._holding:
            return answer()
        if frame is not self._frame:
            self._frame, self._answers = frame, {}
        if question not in self._answers:
            self._answers[question] = answer()
        return self._answers[question]

    @contextmanager
    def one_frame(self) -> Iterator[None]:
        """Within it, a frame asked about again gets the first answer: the table reader's three readers share
        a gauge, so each frame is measured and sharpened once. Outside it every call works anew (a benchmark
        reading one picture over and over pays every time, as a live frame does)."""
        self._holding = True
        try:
            yield
        finally:
            self._holding, self._frame, self._answers = False, None, {}


def _top_level(difference: np.ndarray) -> float:
    """The level (grey levels, float image) that EDGE_SHARE of the pixels reach, to a quarter level and
    interpolated within it. Levels are counted in quarters, as uint8; levels of 64 and over (a hard edge in
    focus) count as 64. Only the top of the histogram decides, so only the pixels at or over a floor are
    counted (5.3 ms for the whole measure at 1280x720 against 6.1 with a histogram of every pixel)."""
    quarters = cv2.convertScaleAbs(difference, alpha=LEVEL_STEPS)
    top_share = EDGE_SHARE * quarters.size
    floor = _level_reached(quarters[::4, ::4], 4 * EDGE_SHARE)
    top = quarters[quarters >= floor]
    if top.size <= top_share:  # the sample misled: count every pixel
        top = quarters.ravel()
    counts = np.bincount(top, minlength=256)
    below = (quarters.size - top.size) + np.cumsum(counts)  # pixels at or under each level
    target = quarters.size - top_share
    level = int(np.searchsorted(below, target))
    before = below[level - 1] if level > 0 else 0
    return (level + (target - before) / max(counts[level], 1)) / LEVEL_STEPS


def _level_reached(levels: np.ndarray, share: float) -> int:
    """The highest level that `share` of `levels` (uint8) reach."""
    counts = cv2.calcHist([levels], [0], None, [256], [0, 256]).ravel()
    at_or_over = np.cumsum(counts[::-1])[::-1]
    return int(np.flatnonzero(at_or_over >= share * levels.size)[-1])
