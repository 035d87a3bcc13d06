"""The table plane the sticks give when there is no calibration, and the sticks' common length in it.

Sticks of one set are all as long, and a DIGIT layout's sticks run square to each other. A webcam is tilted
toward the table but not rolled, so one angle, the tilt, says how the table plane is foreshortened: the tilt
chosen is the one under which the sticks are most nearly of one length and the touching ones most nearly
square. Snapping then happens in that plane, where a right angle is a right angle. The tilt is searched
either way: a webcam at the table's edge has the far side at the top of the picture, a picture turned top to
bottom (a mirror image the reader votes with) at its foot.

The common length also splits runs: sticks laid end to end with a hair's gap may be read as one stick two
or three times as long, which in the plane is a whole number of sticks.
"""

from __future__ import annotations

import math

import numpy as np

from vision.geometry import tilt_planes, to_plane
from vision.sticks.lattice import group

# Negative: the table's far side at the top of the picture. In order from straight down, so that of tilts that
# fit as well (a lone stick fits every one) the least is taken.
TILTS = np.array(sorted(np.arange(-60.0, 61.0, 3.0), key=abs))
LENGTH_SIGMA = 0.07  # spread of log stick length: placement, end measurement
LENGTH_CAP = 4.0  # a stick of another length (one broken, one of another set) costs no more than this
ANGLE_SIGMA = math.radians(3.0)
ANGLE_CAP = math.radians(12.0)  # sticks further off square than this are off the lattice anyway
# A card's stick that the other four put off the lattice (`turned_stick`): at least this far off their square
# directions, in the plane that fits them (and all five's lengths) this much better than any plane fits all five.
TURNED_OFF = math.radians(15.0)
TURNED_EVIDENCE = 13.0
MOST_PER_RUN = 3
RUN_SIGMA = 0.1  # spread of log length when choosing the unit
RUN_COST = 1.0  # of reading one stick as several that fit as well, the one
RUN_FIT = 0.15  # a run is split only if its length is this close (in log) to a whole number of units
JOINT_REACH = 0.35  # of a piece's length: how near a joint of a run an end peak must lie
# A row of sticks can be read as overlapping readings of one length, each some sticks long, so the lengths
# give no unit; the end peaks along a reading still mark its joints. In a group that lies in one line, read as
# readings of one unit, a reading with an end peak within MARKED_REACH of a piece at every joint of MARKED_RUNS
# equal pieces gives the group its unit: that piece. Not in other groups, whose other sticks give the unit (the
# joints' end peaks may be theirs), and not two pieces on peaks alone: one peak at a stick's middle is as often
# another stick's end against it, a broken layout.
MARKED_RUNS = (3, 4, 5)
MARKED_REACH = 0.25


def _angle_cost(plane_ends: np.ndarray, groups: list[list[int]]) -> np.ndarray:
    """How far the touching sticks are from running square to each other in each plane (planes, n, 2, 2)."""
    cost = np.zeros(len(plane_ends))
    for members in groups:
        if len(members) < 2:
            continue
        vectors = plane_ends[:, members, 1] - plane_ends[:, members, 0]
        off = _off_square(vectors)
        cost += (np.minimum(off, ANGLE_CAP) ** 2).sum(axis=-1) / ANGLE_SIGMA**2
    return cost


def _length_cost(plane_ends: np.ndarray) -> np.ndarray:
    """How far the sticks are from one common length in each plane (planes, n, 2, 2)."""
    logs = np.log(np.linalg.norm(plane_ends[..., 1, :] - plane_ends[..., 0, :], axis=-1))
    return np.minimum(((logs - np.median(logs, axis=-1, keepdims=True)) / LENGTH_SIGMA) ** 2, LENGTH_CAP).sum(axis=-1)


def table_plane(ends: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Image px -> table plane: the tilt under which the sticks (n x 2 x 2 ends) are most nearly of one length
    and the touching ones square (see the module's docstring)."""
    groups = group(ends)
    planes = tilt_planes(size, TILTS)
    mapped = to_plane(planes, ends)
    seen = np.isfinite(mapped).all(axis=(1, 2, 3))
    if not seen.any():
        return planes[0]
    cost = np.full(len(planes), np.inf)
    cost[seen] = _length_cost(mapped[seen]) + _angle_cost(mapped[seen], groups)
    return planes[int(np.argmin(cost))]


def turned_stick(ends: np.ndarray, size: tuple[int, int]) -> int | None:
    """Of a layout's sticks (n x 2 x 2 image px) read as a card without calibration, the one turned off the
    lattice, if any. A stick turned about its end on a broken layout can be read square in a plane tilted
    far from the true one, which the tilt search takes where the turned stick's angle costs more than the
    others' lengths and angles cost there. The other sticks then tell: in the plane that fits them best
    (their angles, and every stick's length), it runs TURNED_OFF or more off their square directions, and
    that plane fits them TURNED_EVIDENCE better than any plane fits all of them."""
    planes = tilt_planes(size, TILTS)
    mapped = to_plane(planes, ends)
    mapped = mapped[np.isfinite(mapped).all(axis=(1, 2, 3))]
    if not len(mapped):
        return None
    lengths = _length_cost(mapped)
    every = list(range(len(ends)))
    all_square = float((lengths + _angle_cost(mapped, [every])).min())
    for k in every:
        others = every[:k] + every[k + 1 :]
        cost = lengths + _angle_cost(mapped, [others])
        best = int(np.argmin(cost))
        if all_square - cost[best] < TURNED_EVIDENCE:
            continue
        vectors = mapped[best, :, 1] - mapped[best, :, 0]
        phase, _ = square_fit(vectors[others], np.linalg.norm(vectors[others], axis=-1))
        if _off_phase(math.atan2(vectors[k, 1], vectors[k, 0]), phase) >= TURNED_OFF:
            return k
    return None


def unit_length(lengths: np.ndarray) -> float:
    """The sticks' common length: the unit that best explains every length as one stick or a run of a few,
    one stick being preferred."""
    ks = np.arange(1, MOST_PER_RUN + 1)
    units = (lengths[:, None] / ks[None, :]).reshape(-1)
    fit = (np.log(lengths[None, :, None] / (ks[None, None, :] * units[:, None, None])) / RUN_SIGMA) ** 2
    cost = np.minimum(fit + RUN_COST * (ks - 1), LENGTH_CAP).min(axis=2).sum(axis=1)
    return float(units[np.argmin(cost)])


def _off_square(vectors: np.ndarray) -> np.ndarray:
    """Each vector's angle off the two square directions that fit them all best (radians)."""
    return square_fit(vectors, np.linalg.norm(vectors, axis=-1))[1]


def square_fit(vectors: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The angle (radians) of the two square directions the vectors (..., n, 2) run along best, longer or
    heavier ones counting more, and each vector's angle off them (..., n)."""
    angles = np.arctan2(vectors[..., 1], vectors[..., 0])
    phase = np.angle((weights * np.exp(4j * angles)).sum(axis=-1, keepdims=True)) / 4
    return phase[..., 0], _off_phase(angles, phase)


def _off_phase(angles: np.ndarray, phase: np.ndarray | float) -> np.ndarray:
    """Each angle's distance (radians) from the nearer of the two square directions at `phase`."""
    return np.abs(np.angle(np.exp(4j * (angles - phase)))) / 4


def split_runs(
    ends: np.ndarray, plane: np.ndarray, end_points: np.ndarray | None = None, shortest: float = 0.0
) -> list[tuple[int, np.ndarray]]:
    """Each stick (n x 2 x 2 image px) with its index, a run of k sticks end to end replaced by k equal
    pieces (equal on the table plane `plane` maps the picture to). The unit is each touching group's own;
    a stick touching none is left whole, as it may be no stick at all, and so are the sticks of a group
    that does not lie along two square directions (a heap of pick-up sticks, read in part, holds no run).
    A group of two readings is cut only where they lie in line: any two sticks, crossed or touching in a heap,
    run square in some plane, and a layout's runs read as two square readings are rare.
    Given the locator's `end_points` (image px), a run is cut only where an end peak marks every joint:
    where sticks meet end to end the network marks their ends, along one whole stick it marks none. In a group
    lying in one line whose readings are all one unit long (a row read as overlapping runs), end peaks marking
    every joint of one reading give the unit (MARKED_RUNS). A run is not cut into pieces shorter than `shortest`
    image px, which would be too short to read as sticks."""
    plane_ends = to_plane(plane, ends)
    lengths = np.linalg.norm(plane_ends[:, 1] - plane_ends[:, 0], axis=1)
    if not np.all(np.isfinite(lengths)):
        return list(enumerate(ends))
    inverse = np.linalg.inv(plane)
    units = np.full(len(ends), np.nan)
    most = np.full(len(ends), MOST_PER_RUN)
    crooked = np.zeros(len(ends), bool)
    for members in group(ends):
        off = (_off_square(plane_ends[members, 1] - plane_ends[members, 0]) > ANGLE_CAP).sum()
        row = len(members) >= 2 and all(_in_line(plane_ends[[members[0], m]]) for m in members[1:])
        if (len(members) >= 3 or row) and off <= 1:
            units[members] = unit_length(lengths[members])
            crooked[members] = off == 1
            if row and end_points is not None and (lengths[members] < 1.5 * units[members]).all():
                # Every reading one unit long: the joints' end peaks may tell a shorter unit.
                marked = [(m, _marked_pieces(plane_ends[m], inverse, end_points)) for m in members]
                pieces_of = [lengths[m] / k for m, k in marked if k > 1]
                if pieces_of:
                    units[members] = float(np.median(pieces_of))
                    most[members] = max(MARKED_RUNS)
    pieces = []
    for i, (stick, length, unit) in enumerate(zip(plane_ends, lengths, units, strict=True)):
        k = round(float(length / unit)) if np.isfinite(unit) else 1
        if k < 2 or k > most[i] or abs(math.log(length / (k * unit))) > RUN_FIT:
            pieces.append((i, ends[i]))
            continue
        points = _cut(stick, k, inverse)
        if np.linalg.norm(np.diff(points, axis=0), axis=1).min() < shortest or (
            crooked[i]
            and end_points is not None
            and not _joints_marked(points[1:-1], end_points, np.linalg.norm(ends[i, 1] - ends[i, 0]) / k)
        ):
            pieces.append((i, ends[i]))
            continue
        pieces += [(i, np.array([points[j], points[j + 1]])) for j in range(k)]
    return pieces


def _cut(stick: np.ndarray, k: int, inverse: np.ndarray) -> np.ndarray:
    """The ends and joints of `k` equal pieces of a stick (2 x 2, plane coordinates), in the picture (`inverse`
    maps the plane back to it): k + 1 points."""
    return to_plane(inverse, stick[0] + (stick[1] - stick[0]) * np.linspace(0, 1, k + 1)[:, None])


def _in_line(pair: np.ndarray) -> bool:
    """Whether two sticks (2 x 2 x 2) run within ANGLE_CAP of one direction."""
    first, second = pair[:, 1] - pair[:, 0]
    cosine = abs(first @ second) / max(float(np.linalg.norm(first) * np.linalg.norm(second)), 1e-9)
    return cosine >= math.cos(ANGLE_CAP)


def _joints_marked(joints: np.ndarray, end_points: np.ndarray, piece: float, reach: float = JOINT_REACH) -> bool:
    """Whether an end peak lies within `reach` of a piece's length of every joint (image px)."""
    if not len(end_points):
        return False
    gaps = np.linalg.norm(joints[:, None] - end_points[None], axis=2).min(axis=1)
    return bool((gaps <= reach * piece).all())


def _marked_pieces(stick: np.ndarray, inverse: np.ndarray, end_points: np.ndarray) -> int:
    """The most of MARKED_RUNS equal pieces (on the plane; `stick` in plane coordinates, `inverse` back to the
    picture) whose every joint an end peak marks (MARKED_REACH); 1 if none."""
    for k in sorted(MARKED_RUNS, reverse=True):
        points = _cut(stick, k, inverse)
        if _joints_marked(points[1:-1], end_points, np.linalg.norm(points[-1] - points[0]) / k, MARKED_REACH):
            return k
    return 1
