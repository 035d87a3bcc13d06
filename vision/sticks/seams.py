"""Whether a straight row of sticks read is a line of the table's own: a plank seam, a tile joint.

A seam is a thin straight line like a stick's body, and the locator reads stretches of it as sticks laid end
to end. A stick ends, and so does a row of sticks: beyond the row's two outer ends lies bare table. A seam's
line runs on past both, in the row's own colour. How the line stands out from the table beside it is
measured as the crossed-stick check measures a body (vision/sticks/bodies.py), along the row and beyond
each end; a row whose line runs on at both ends with LINE_SHARE or more of its own contrast, and within
SAME_CHROMA of its colour, is a seam.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.sticks.bodies import SIDE, colours

# Least contrast beyond both ends, as a share of the row's own, that makes a row a seam. On the held-out sets
# (seeds 1000.. and 20000..) the straight groups of true sticks gave 0.28 at most, the phantoms dropped 0.7
# and more (the birch's seams), and no false group read 0.6 or more was kept.
LINE_SHARE = 0.6
BEYOND = (0.15, 0.6)  # of a stick's length past a row's end: the stretch looked at, clear of a head's shadow
SAMPLES = 12
STRAIGHT = 0.08  # of a stick's length: the most an end may lie off the row's line
MIN_CONTRAST = 0.08  # least share by which a row stands out from the table beside it to be judged
DRIFT = 3  # px: how far across its line a row and its run-on are looked for, as sticks' ends are read loosely
# Most difference in chromaticity (summed over channels) between a row and its line beyond for a seam: a
# stick laid along a stripe or a plaid's line runs on in another colour. On the training-split validation
# renders (seeds 5200000.. and 5600000..) three true sticks did so at 0.11-0.26; the phantoms dropped there
# and on the held-out sets differed by 0.10 or less (0.04 or less on the held-out birch).
SAME_CHROMA = 0.1
BLACK = 10.0  # grey levels added to the brightness a contrast is a share of, so black cloth does not blow it up


@dataclass(frozen=True)
class LineLook:
    """How a stretch of line stands out: the median share by which it is darker (or lighter) than the table
    beside it, and its median colour's chromaticity (each channel's share of the sum)."""

    contrast: float
    chroma: np.ndarray


def _look(
    image: np.ndarray, points: np.ndarray, along: np.ndarray, length: float, dark: bool, search: int
) -> LineLook | None:
    """How the line through the points (running `along`) stands out from the table SIDE * `length` beside it
    on both sides, each point taken at the best of the offsets up to `search` px across the line; None if
    under half of the points lie inside the picture. The contrast is a share, not a step: a seam darkens
    light and dark grain alike."""
    h, w = image.shape[:2]
    margin = SIDE * length + search + 2
    inside = (points[:, 0] >= margin) & (points[:, 0] < w - margin) & (points[:, 1] >= margin)
    inside &= points[:, 1] < h - margin
    if inside.sum() < len(points) / 2:
        return None
    across = np.array([-along[1], along[0]])
    best = np.full(int(inside.sum()), -np.inf)
    best_colour = np.zeros((int(inside.sum()), image.shape[2]))
    for offset in range(-search, search + 1):
        on_line = points[inside] + offset * across
        colour = colours(image, on_line)
        axis = colour.mean(axis=1)
        sides = np.stack([colours(image, on_line + k * SIDE * length * across).mean(axis=1) for k in (1, -1)])
        if dark:
            shares = (sides.min(axis=0) - axis) / (sides.max(axis=0) + BLACK)
        else:
            shares = (axis - sides.max(axis=0)) / (axis + BLACK)
        better = shares > best
        best[better], best_colour[better] = shares[better], colour[better]
    colour = np.median(best_colour, axis=0)
    return LineLook(float(np.median(best)), colour / (colour.sum() + BLACK))


def row_line(ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The outer ends of sticks (n, 2, 2) lying in one straight row, the row's direction and the sticks'
    median length; None if they do not lie in one row."""
    ends = np.asarray(ends, np.float64)
    points = ends.reshape(-1, 2)
    length = float(np.median(np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)))
    centre = points.mean(axis=0)
    _, _, axes = np.linalg.svd(points - centre)
    along = axes[0]
    off = np.abs((points - centre) @ axes[1])
    if length < 1 or off.max() > STRAIGHT * length:
        return None
    t = (points - centre) @ along
    return np.array([centre + t.min() * along, centre + t.max() * along]), along, length


def is_seam(image: np.ndarray, ends: np.ndarray) -> bool:
    """Whether the sticks (n, 2, 2 image px) form one straight row whose line runs on past both of its ends
    (see the module's docstring), or past the one inside the picture."""
    return (share := runs_on_share(image, ends)) is not None and share >= LINE_SHARE


def runs_on_share(image: np.ndarray, ends: np.ndarray) -> float | None:
    """How far the line of a straight row of sticks runs on past its ends: the lesser contrast beyond its ends
    as a share of the row's own, beyond the one end inside the picture if the other reaches the picture's
    edge; 0 if the line beyond is not of the row's colour (a stick laid along a stripe); 1 if both ends lie
    beyond the picture's edges. None where that cannot be told: the sticks are not in one row, the row stands
    out too little (under MIN_CONTRAST) or reaches near the picture's edge at both ends."""
    row = row_line(ends)
    if row is None:
        return None
    (first, last), along, length = row
    on_row = first + np.linspace(0.1, 0.9, SAMPLES)[:, None] * (last - first)
    looks = [_look(image, on_row, along, length, dark, DRIFT) for dark in (True, False)]
    if looks[0] is None or looks[1] is None:
        return None
    dark = looks[0].contrast >= looks[1].contrast
    body = looks[0] if dark else looks[1]
    if body.contrast < MIN_CONTRAST:
        return None
    beyond = np.linspace(*BEYOND, SAMPLES)[:, None] * length
    runs = [
        _look(image, end + sign * beyond * along, along, length, dark, DRIFT) for end, sign in ((last, 1), (first, -1))
    ]
    judged = [r for r in runs if r is not None]
    if not judged:
        # A row running out of the picture at both ends shows no end of its own: nothing tells it from a seam
        # (a rendered or refereed layout lies whole in the frame).
        h, w = image.shape[:2]
        outside = [not (0 <= end[0] < w and 0 <= end[1] < h) for end in (first, last)]
        return 1.0 if all(outside) else None
    if max(float(np.abs(r.chroma - body.chroma).sum()) for r in judged) > SAME_CHROMA:
        return 0.0
    return min(r.contrast for r in judged) / body.contrast
