"""Where a heap of pick-up sticks is read again, closer.

At the first look's scale a heap's sticks are 7-19 cells of the locator's grid long, and where they cross
densely or lie side by side they share cells. A copy of the locator trained on heaps twice as large
(`sticks_locate_heaps.onnx`, models/train_sticks.py's close-heap block) reads the heap again from a window
round it at twice the first look's scale: on the held-out evaluation sets a sixth fewer detections are no
stick, and 2 % more of all the sticks are found (models/sticks.md).
"""

from __future__ import annotations

import numpy as np

from vision.locator import reading_scale
from vision.sticks.locate import INPUT_SIZE, MODEL_PATH

HEAP_MODEL_PATH = MODEL_PATH.with_name("sticks_locate_heaps.onnx")
# A frame with this many sticks read and no card holds more than a layout and two stray readings: a heap. At 6
# a broken layout read with a stray stick was read again too, and 3 of 110 on a held-out set lost their flag.
HEAP_STICKS = 7
# From this many, a frame with no card and no five sticks touching is read again in the heap look too, kept only
# where that look reads as many sticks or more, at the median no shorter than SHORTER_HEAP times those read: the
# heap network reads a broken layout's sticks, which meet end to end, as fewer and longer ones or cut short, and a
# small heap's as they lie (models/sticks.md, eighty-seventh session).
SMALL_HEAP_STICKS = 3
SHORTER_HEAP = 0.8
# A frame with no card, fewer than HEAP_STICKS sticks read and a layout's worth of them touching (a broken layout,
# or the part of a heap the first look sees) is read in the heap look too, kept only where that look reads a heap,
# this many sticks or more, whole as above (models/sticks.md, ninety-fourth session).
GROUPED_HEAP_STICKS = HEAP_STICKS
# Where that look is not kept, the sticks it reads that lie along those read for less than this share of their
# length, and are no shorter than SHORTER_HEAP times those at the median, are added to them: a broken layout's
# stick crossed near its middle is often read as part of the stick across it, and the heap network, which learnt
# crossings, reads it (models/sticks.md, eighty-eighth session).
NEW_ACROSS = 0.5
# Nor is a stick added whose ends lie within this share of their median length of a stick read's ends: that
# stick again, a few pixels aside (too far to lie along it by NEW_ACROSS's measure).
SAME_ENDS = 0.12
HEAP_MARGIN = 0.3  # of the median stick, round the sticks read
HEAP_ZOOM = 2.0  # the window is read at this many times the first look's scale, or nearer where the heap is larger


def heap_window(ends: np.ndarray, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """x, y, width, height of the window a heap (its sticks' ends, n x 2 x 2, frame px) is read again in, in a
    frame of `size`: the sticks with HEAP_MARGIN round them, widened to the locator's input shape and to
    HEAP_ZOOM times the first look's scale at most, centred on them and inside the frame."""
    ends = np.asarray(ends, np.float64)
    median = float(np.median(np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)))
    points = ends.reshape(-1, 2)
    low, high = points.min(axis=0) - HEAP_MARGIN * median, points.max(axis=0) + HEAP_MARGIN * median
    width, height = size
    aspect = INPUT_SIZE[0] / INPUT_SIZE[1]
    # A portrait frame is read turned (vision.geometry.landscape): its scale is that of its landscape form.
    first_scale = reading_scale(max(size), min(size), INPUT_SIZE)
    w = min(width, max(INPUT_SIZE[0] / (HEAP_ZOOM * first_scale), *(high - low) * [1, aspect]))
    h = min(height, w / aspect)
    centre = (low + high) / 2
    x0 = int(np.clip(round(centre[0] - w / 2), 0, width - round(w)))
    y0 = int(np.clip(round(centre[1] - h / 2), 0, height - round(h)))
    return x0, y0, round(w), round(h)
