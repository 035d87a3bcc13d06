"""Where a stick off the lattice ends, found again in the picture.

On the lattice a stick's ends are where its neighbours' meet it. Off it (a pick-up heap, a lone stick) they are
only what the locator regressed, and in a heap that is often a stick read short or long: a crossing stick's
body or another's end lies where its end should. A frame's sticks are one set, all as long on the table, so a
stick read far longer or shorter than the frame's median (OFF_LENGTH) is read again along its own axis. Its body
stands apart in colour from the table on both sides (`ridge` in vision/sticks/bodies.py); where it ends
that step falls away. Each end is moved to where the step falls most, the two chosen together with a
penalty for a length far from the median's (LENGTH_WEIGHT), and kept only where that scores better than the
ends as read.
"""

from __future__ import annotations

import numpy as np

from vision.sticks.bodies import SIDE, ridge

SEARCH = 0.45  # of the stick's length, or the median's if longer: how far each end is looked for either way
WINDOW = 0.12  # of the length: the stretch either side of a candidate end whose steps are compared
OFF_LENGTH = 1.25  # a stick this many times longer or shorter than the frame's median is read again
LENGTH_WEIGHT = 3.0  # the score's penalty per unit of |log(length / median)|, against steps in body units
MIN_LENGTH_PX = 10.0  # shorter readings are not refined, nor refined shorter


def _falls(t: np.ndarray, profile: np.ndarray, at: np.ndarray, window: float) -> np.ndarray:
    """For each candidate `at` (positions along `t`, ascending), the profile's mean over `window` before it less
    its mean over `window` after it: how far the step falls there going up `t`."""
    sums = np.concatenate([[0.0], np.cumsum(profile)])
    i0, i1, i2 = (np.searchsorted(t, at + offset) for offset in (-window, 0.0, window))
    inside, outside = i1 - i0, i2 - i1
    falls = (sums[i1] - sums[i0]) / np.maximum(inside, 1) - (sums[i2] - sums[i1]) / np.maximum(outside, 1)
    return np.where((inside >= 2) & (outside >= 2), falls, -np.inf)


def refined_ends(image: np.ndarray, ends: np.ndarray, median_length: float) -> np.ndarray:
    """`ends` (2x2 px) moved along the stick's axis to where its body ends, if it is read OFF_LENGTH times
    longer or shorter than `median_length` and the picture bears a better pair out; else as they are."""
    a, b = np.asarray(ends, np.float64)
    along = b - a
    length = float(np.linalg.norm(along))
    if length < MIN_LENGTH_PX or median_length <= 0 or abs(np.log(length / median_length)) < np.log(OFF_LENGTH):
        return np.asarray(ends)
    search = SEARCH * max(1.0, median_length / length)  # a stick read short may reach the median's length
    reach = search + WINDOW + 1 / length
    t = np.arange(-reach, 1 + reach, 1 / length)  # a sample a pixel
    beside = SIDE * np.array([-along[1], along[0]])
    profile = ridge(image, a + t[:, None] * along, beside)
    body = profile[(t > 0.2) & (t < 0.8)]
    level = max(float(np.median(body)), 1.0) if body.size else 1.0
    shifts = np.arange(-search, search + 1e-9, 1 / length)  # outward from each end, in read lengths
    far = _falls(t, profile, 1 + shifts, WINDOW)
    near = _falls(-t[::-1], profile[::-1], shifts, WINDOW)  # the near end, looked at going down t
    lengths = (1 + shifts[:, None] + shifts[None, :]) * length  # px, [near shift, far shift]
    penalty = LENGTH_WEIGHT * np.abs(np.log(np.maximum(lengths, MIN_LENGTH_PX) / median_length))
    score = np.where(lengths >= MIN_LENGTH_PX, (near[:, None] + far[None, :]) / level - penalty, -np.inf)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    as_read = int(np.argmin(np.abs(shifts)))
    if not np.isfinite(score[i, j]) or score[i, j] <= score[as_read, as_read]:
        return np.asarray(ends)
    return np.array([a - shifts[i] * along, b + shifts[j] * along], np.float32)
