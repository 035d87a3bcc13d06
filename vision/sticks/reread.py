"""A touching group that is no card, read again on its own lattice from the locator's centre heat.

The locator's readings are what its peaks say, one by one. On a busy table they can be wrong in ways the
lattice sees at once: two sticks end to end read as one stick and a half, or a stick marked too faintly for
a peak. A DIGIT layout's sticks lie on the edges of a square lattice, so once the group's lattice is known
(its two directions and unit in the table plane, and where its points lie), each edge can be asked directly
whether a stick lies there: by the network's centre heat at the edge's middle where the stick it reads there
runs along the edge, or at a quarter of the edge where it reads half a stick there, the visible part of one
partly hidden (`LocatorReadings.stick_heat`).

The group is read again only where it holds MIN_READINGS readings running both ways, and every reading in
it lies along the lattice's lines and covers one of its edges at least: a stick turned off the lattice,
laid across another's middle or shifted half a stick along its line leaves the group as it was, broken.
The edges the readings cover are kept; edges touching them are added, the hottest first, while the pattern
has fewer than five sticks and the heat there is at least MIN_HEAT. The group is replaced only if that
gives five connected edges: a DIGIT card.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rules.sticks import Edge, is_connected
from vision.geometry import to_plane
from vision.sticks.plane import square_fit

MIN_HEAT = 0.1  # the locator's faint threshold: centre heat under this is no stick
MIN_READINGS = 3  # fewer readings give too little of a lattice to go on
OFF_LINE = 0.2  # of the unit: how far a reading's ends may lie from one of the lattice's lines
OFF_SQUARE = np.radians(12.0)  # how far a reading may turn from the lattice's directions
COVER = 0.6  # of the unit: how much of an edge a reading must overlap to cover it

Reading = tuple[float, np.ndarray]  # (score, ends 2x2 image px)


def _origin(coords: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The offset (2,) of the lattice's points: the weighted circular mean of the coordinates (n, 2) mod 1."""
    turns = (weights[:, None] * np.exp(2j * np.pi * coords)).sum(axis=0)
    return np.angle(turns) / (2 * np.pi)


def _covered_edges(ends: np.ndarray) -> list[Edge] | None:
    """The lattice edges a reading (2x2 in lattice units, points at whole numbers) covers, or None if it
    does not lie along one of the lattice's lines."""
    step = ends[1] - ends[0]
    along = int(abs(step[1]) > abs(step[0]))  # 0: along x, 1: along y
    across = 1 - along
    line = round(float(ends[:, across].mean()))
    if np.abs(ends[:, across] - line).max() > OFF_LINE:
        return None
    lo, hi = sorted(ends[:, along])
    edges = []
    for start in range(int(np.floor(lo)), int(np.ceil(hi))):
        if min(hi, start + 1) - max(lo, start) >= COVER:
            a = [0, 0]
            a[along], a[across] = start, line
            b = list(a)
            b[along] += 1
            edges.append(Edge(tuple(a), tuple(b)))
    return edges or None


def _neighbours(edges: set[Edge]) -> set[Edge]:
    """The lattice edges sharing a point with one of `edges`, not among them."""
    around = set()
    for edge in edges:
        for x, y in (edge.a, edge.b):
            around |= {
                Edge((x, y), (x + 1, y)),
                Edge((x - 1, y), (x, y)),
                Edge((x, y), (x, y + 1)),
                Edge((x, y - 1), (x, y)),
            }
    return around - edges


def reread_group(
    readings: list[Reading], plane: np.ndarray, stick_heat: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> list[Reading] | None:
    """One touching group's readings as five sticks on its lattice, or None (see the module's docstring).

    `plane` maps image px to the table plane; `stick_heat` gives the locator's centre heat that marks a stick
    lying from each of its first points to each of its second (image px, n x 2 each; see
    `LocatorReadings.stick_heat`).
    """
    if len(readings) < MIN_READINGS:
        return None
    image_ends = np.array([e for _, e in readings], np.float64)
    scores = np.array([s for s, _ in readings])
    ends = to_plane(plane, image_ends)
    if not np.isfinite(ends).all():
        return None
    vectors = ends[:, 1] - ends[:, 0]
    lengths = np.linalg.norm(vectors, axis=1)
    phase, off = square_fit(vectors, scores * lengths)
    axes = np.array([[np.cos(phase), np.sin(phase)], [-np.sin(phase), np.cos(phase)]])
    if (off > OFF_SQUARE).any():
        return None
    if len(set(np.abs(vectors @ axes.T).argmax(axis=1).tolist())) < 2:
        return None  # a straight run: its unit may be a piece of a stick, and nothing checks it across
    unit = float(np.median(lengths))  # runs are split by now; a long overlapping reading is one of few
    coords = ends @ axes.T / unit
    origin = _origin(coords.reshape(-1, 2), np.repeat(scores, 2))
    lattice = coords - origin
    kept: dict[Edge, float] = {}
    for score, stick in zip(scores, lattice, strict=True):
        covered = _covered_edges(stick)
        if covered is None:
            return None
        for edge in covered:
            kept[edge] = max(kept.get(edge, 0.0), float(score))
    if len(kept) > 5:
        return None

    def image_points(points: np.ndarray) -> np.ndarray:
        return to_plane(np.linalg.inv(plane), ((points + origin) * unit) @ axes)

    while len(kept) < 5:
        around = sorted(_neighbours(set(kept)))
        starts = image_points(np.array([e.a for e in around], np.float64))
        stops = image_points(np.array([e.b for e in around], np.float64))
        heat = stick_heat(starts, stops)
        best = int(np.argmax(heat))
        if not np.isfinite([starts[best], stops[best]]).all() or heat[best] < MIN_HEAT:
            return None
        kept[around[best]] = float(heat[best])
    if not is_connected(kept):
        return None
    return [(score, image_points(np.array([edge.a, edge.b], np.float64))) for edge, score in kept.items()]
