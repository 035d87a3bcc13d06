"""Whether a stick read from its end peaks alone shows a body in the picture, as the stick it crosses does.

Two sticks crossed off their middles may leave the network one centre peak, and the locator then reads the
second stick from a pair of end peaks across the first (vision/sticks/locate.py). Such a pair may also be
two other sticks' ends, or a patterned cloth's corners. A stick's body stands apart in colour from the table
beside it all along its length; a line between unrelated end peaks mostly does not. The step is measured
against the crossed stick's own, which shares the light, the table and mostly the material.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from vision.sticks.lattice import crossing

# Least colour step along the candidate's body, as a share of the crossed stick's. Of the locator's candidates
# on training-split renders (seeds 5200000.. and 5600000..: 330 lattice layouts, 110 broken, 110 heaps), the
# 16 true ones had 0.30 or more, 10 of the 17 false ones 0.22 or less: the floor sits in that gap.
BODY_SHARE = 0.25
# Least body step of a stick a completion lays where the network barely marked one (a faint reading, or an edge
# the re-read on the lattice fills in), as a share of the median step of the sticks read surely. The moved stick
# of a broken layout, missed, leaves bare table where a legal layout would have it, and faint heat there
# completes the card. Held-out layouts rendered with and without a stick (tests/vision/test_sticks_bodies.py):
# its place passed 49 of 49 times where it lies, 17 of 49 where bare (10 at 0.15); but pick-up sticks 1.5-3 px
# thick, completed rightly, measured down to 0.06 (8 of 34 under 0.15): the floor stops only bare table.
COMPLETION_SHARE = 0.08
SIDE = 0.12  # of the stick's length: how far beside its axis the table is sampled
SPAN = (0.15, 0.85)  # the stretch of the stick sampled, clear of heads and of neighbours' ends
SAMPLES = 15
CLEAR = 0.12  # of the length: samples this near the point where the other stick crosses are left out
_NEAR = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)])


def colours(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Mean colours (n, channels) of the 3x3 pixels round each point, clamped to the picture."""
    h, w = image.shape[:2]
    near = np.rint(points).astype(int)[:, None, :] + _NEAR[None]
    pixels = image[np.clip(near[..., 1], 0, h - 1), np.clip(near[..., 0], 0, w - 1)]
    return pixels.reshape(len(points), len(_NEAR), -1).astype(np.float32).mean(axis=1)


def body_step(image: np.ndarray, ends: np.ndarray, other: np.ndarray | None = None) -> float:
    """The median colour step between a stick's axis (`ends`, 2x2 px) and the table beside it, on the side
    nearer in colour, away from where the stick `other` (if any) crosses it."""
    ends = np.asarray(ends, np.float64)
    along = ends[1] - ends[0]
    length = float(np.linalg.norm(along))
    if length < 1:
        return 0.0
    ts = np.linspace(*SPAN, SAMPLES)
    hit = None if other is None else crossing(ends[0], ends[1], *np.asarray(other, np.float64))
    if hit is not None:
        ts = ts[np.abs(ts - hit[0]) > CLEAR]
    points = ends[0] + ts[:, None] * along
    return float(np.median(ridge(image, points, SIDE * np.array([-along[1], along[0]]))))


def ridge(image: np.ndarray, points: np.ndarray, beside: np.ndarray) -> np.ndarray:
    """At each point (n, 2), the colour step to the table `beside` it (a vector across the stick), on the side
    nearer in colour: high along a stick's body, low on bare table and on a mere edge between two colours."""
    axis = colours(image, points)
    return np.minimum(*(np.linalg.norm(axis - colours(image, points + side), axis=1) for side in (beside, -beside)))


def with_bodies(
    image: np.ndarray, crossed: list[tuple[float, np.ndarray, np.ndarray]]
) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The candidates (score, ends, the crossed stick's ends) whose body steps BODY_SHARE or more of the
    crossed stick's."""
    return [
        (score, ends, other)
        for score, ends, other in crossed
        if body_step(image, ends, other) >= BODY_SHARE * body_step(image, other, ends)
    ]


def body_gauge(image: np.ndarray, read: list[np.ndarray]) -> Callable[[np.ndarray], bool]:
    """Whether a stick laid to complete a layout (ends 2x2 px) shows a body in the picture: a step of
    COMPLETION_SHARE or more of the median of the `read` sticks' steps (measured once, when first asked)."""

    @cache
    def floor() -> float:
        return COMPLETION_SHARE * float(np.median([body_step(image, e) for e in read])) if read else 0.0

    def shows_body(ends: np.ndarray) -> bool:
        return body_step(image, ends) >= floor()

    return shows_body
