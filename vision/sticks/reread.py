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

A straight run gives no unit: its readings may be pieces of sticks or runs of several (five sticks in a row,
the I card, read as overlapping readings one and a half or two sticks long). Its one card is five sticks in
a row, and that is read where the locator's end peaks mark the joints of the run cut in five: the run's
readings lie in one line and cover each fifth (COVER), one of them is a fifth long (ROW_ONE_STICK), an end
peak lies within ROW_JOINT_REACH of a fifth of each of the four joints, and each fifth holds a stick's centre
heat.
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
ROW_STICKS = 5  # the one straight run that is a card
ROW_ONE_STICK = 0.2  # log: a reading this near a fifth of the run is read one stick long
ROW_JOINT_REACH = 0.25  # of a fifth of a straight run: how near each joint an end peak must lie
# A row's tilt toward the camera is unknown (its readings give no unit), so its equal fifths may shrink toward
# its far end in the picture: the scale at one end against the other's, tried between 1 / ROW_FORESHORTENING
# and ROW_FORESHORTENING (five 70 mm sticks in a row pointing away from a webcam 60 cm off, 55 degrees from
# straight down, are seen about this much smaller at the far end).
ROW_FORESHORTENING = 1.6
ROW_SCALES = np.geomspace(1 / ROW_FORESHORTENING, ROW_FORESHORTENING, 25)

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
    readings: list[Reading],
    plane: np.ndarray,
    stick_heat: Callable[[np.ndarray, np.ndarray], np.ndarray],
    end_points: np.ndarray | None = None,
) -> list[Reading] | None:
    """One touching group's readings as five sticks on its lattice, or None (see the module's docstring).

    `plane` maps image px to the table plane; `stick_heat` gives the locator's centre heat that marks a stick
    lying from each of its first points to each of its second (image px, n x 2 each; see
    `LocatorReadings.stick_heat`). A straight run is read only given the locator's `end_points` (image px).
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
        # A straight run: nothing across it gives the unit; it is the I card or no card (`_row`).
        return None if end_points is None else _row(scores, ends @ axes.T, axes, plane, stick_heat, end_points)
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


def _row(
    scores: np.ndarray,
    coords: np.ndarray,
    axes: np.ndarray,
    plane: np.ndarray,
    stick_heat: Callable[[np.ndarray, np.ndarray], np.ndarray],
    end_points: np.ndarray,
) -> list[Reading] | None:
    """A straight run's readings (`coords`: n x 2 x 2 along the plane's `axes`) as five sticks in a row, where
    the end peaks and the centre heat say so (see the module's docstring); else None."""
    along = int(np.abs(coords[:, 1] - coords[:, 0]).mean(axis=0).argmax())
    lo, hi = float(coords[..., along].min()), float(coords[..., along].max())
    fifth = (hi - lo) / ROW_STICKS
    if fifth <= 0:
        return None
    line = float(np.median(coords[..., 1 - along]))
    if np.abs(coords[..., 1 - along] - line).max() > OFF_LINE * fifth:
        return None
    # Each fifth covered by the readings together: a row's readings may be pieces (runs split on a wrong unit).
    spans = np.sort((coords[..., along] - lo) / fifth, axis=1)
    fifths = np.arange(ROW_STICKS)
    overlap = np.clip(np.minimum(spans[:, 1, None], fifths + 1) - np.maximum(spans[:, 0, None], fifths), 0, None)
    covered = overlap.sum(axis=0)  # overlapping readings count twice: a loose bound, the end peaks decide
    if (covered < COVER).any():
        return None  # a gap in the run
    if not (np.abs(np.log(np.maximum(spans[:, 1] - spans[:, 0], 1e-9))) <= ROW_ONE_STICK).any():
        return None  # no reading one fifth long: the end peaks alone would give the unit (a cloth's checks mark many)
    steps = np.zeros((2, 2))
    steps[:, along] = lo, hi
    steps[:, 1 - along] = line
    ends = to_plane(np.linalg.inv(plane), steps @ axes)
    if not np.isfinite(ends).all():
        return None
    points = _marked_cut(ends, end_points)
    if points is None:
        return None
    heat = stick_heat(points[:-1], points[1:])
    if (heat < MIN_HEAT).any():
        return None
    # Each stick's score is the centre heat at it: the readings' scores are runs', several sticks' each.
    return [(float(heat[k]), points[k : k + 2].copy()) for k in range(ROW_STICKS)]


def _marked_cut(ends: np.ndarray, end_points: np.ndarray) -> np.ndarray | None:
    """The six points (picture px) cutting a row from ends[0] to ends[1] into five pieces equal on a table seen
    in perspective, of the foreshortenings ROW_SCALES the one whose joints lie nearest the end peaks; None if
    none puts an end peak within ROW_JOINT_REACH of a piece at each joint."""
    if not len(end_points):
        return None
    t = np.arange(ROW_STICKS + 1) / ROW_STICKS
    # Equal steps on a line seen in perspective: a projective map of [0, 1] fixing both ends.
    shares = t[None] / (t[None] + ROW_SCALES[:, None] * (1 - t[None]))
    cuts = ends[0] + shares[..., None] * (ends[1] - ends[0])  # (scales, 6, 2)
    gaps = np.linalg.norm(cuts[:, 1:-1, None] - end_points[None, None], axis=-1).min(axis=-1)
    pieces = np.linalg.norm(np.diff(cuts, axis=1), axis=-1)
    worst = (gaps / np.minimum(pieces[:, :-1], pieces[:, 1:])).max(axis=1)
    best = int(np.argmin(worst))
    return cuts[best] if worst[best] <= ROW_JOINT_REACH else None
