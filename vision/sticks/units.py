"""How many sticks each bar holds: seams where they show, and the sticks' common length where they do not.

Sticks of one set are all as long, so once the picture is rectified every stick has one length, the unit,
and a bar holds a whole number of units. The rectification comes from calibration when there is one.
Otherwise it comes from the sticks: a webcam is tilted toward the table but not rolled, so one angle, the
tilt, says how the table plane is foreshortened. The tilt and unit chosen are those under which the touching
sticks run square to each other, every bar is a whole number of equal sticks, and the seams seen along the
bars fall where the sticks would meet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.sticks.lattice import group
from vision.sticks.profile import Profile, seam_candidates

FOCAL = 0.8  # of the picture's width: a typical webcam's 60..80 degree field of view
TILTS = np.arange(0.0, 61.0, 3.0)
MOST_PER_BAR = 6
LENGTH_SIGMA = 0.07  # spread of log stick length: placement, end measurement
ANGLE_SIGMA = math.radians(3.0)
ANGLE_CAP = math.radians(12.0)  # sticks further off square than this are off the lattice anyway
LENGTH_CAP = 4.0
STICK_COST = 0.3  # of fewer, longer sticks and more, shorter ones that fit as well, the fewer
MIN_PIECE_ASPECT = 4.5  # length over measured width (blur and shadow widen it) of the stubbiest stick seen
STUBBY_COST = 3.0
SEAM_SEEN = 0.3  # seam evidence above this counts for a cut, below it against
MISSING_SEAM = 1.0
SLOT = 0.25  # of a stick length: how far a seam may sit from the equal split


@dataclass(frozen=True)
class Counting:
    """The plane the lengths were compared in (image px -> plane), and how many sticks each bar holds."""

    plane: np.ndarray
    counts: list[int]


def tilt_plane(size: tuple[int, int], tilt_deg: float) -> np.ndarray:
    """Image px -> table plane (any scale) for a camera tilted by `tilt_deg`, not rolled."""
    w, h = size
    f = FOCAL * w
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    t = math.radians(tilt_deg)
    pitch = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    to_image = k @ np.column_stack([pitch[:, 0], pitch[:, 1], [0.0, 0.0, 1.0]])
    return np.linalg.inv(to_image)


def to_plane(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (..., 2) mapped by a 3x3 matrix; NaN where they fall behind the horizon."""
    flat = points.reshape(-1, 2)
    mapped = np.column_stack([flat, np.ones(len(flat))]) @ matrix.T
    w = mapped[:, 2:3]
    out = np.where(w > 1e-9, mapped[:, :2] / np.where(w > 1e-9, w, 1.0), np.nan)
    return out.reshape(points.shape)


def _support(profile: Profile, min_length: float) -> np.ndarray:
    """Seam evidence for 1..MOST_PER_BAR equal sticks along the bar (minus the stick count's cost)."""
    length = profile.length
    seams = [c for c in seam_candidates(profile) if 0.5 * min_length <= c[0] <= length - 0.5 * min_length]
    support = np.full(MOST_PER_BAR, -np.inf)
    for k in range(1, MOST_PER_BAR + 1):
        if length < k * min_length * 0.9:
            break
        slot = SLOT * length / k
        score, explained = 0.0, set()
        for j in range(1, k):
            target = length * j / k
            near = [(u, s) for u, s in seams if abs(u - target) <= slot]
            if near:
                u, s = max(near, key=lambda c: c[1])
                explained.add(u)
                score += 2 * (s - SEAM_SEEN)
            else:
                score -= MISSING_SEAM
        score -= sum(2 * (s - 0.45) for u, s in seams if u not in explained and s > 0.55 and k < MOST_PER_BAR)
        # Sticks are several times longer than thick, foreshortened or not: stubbier pieces are seams of noise.
        stubby = max(0.0, MIN_PIECE_ASPECT - length / (k * max(profile.width, 1.0)))
        support[k - 1] = score - STICK_COST * k - STUBBY_COST * stubby * (k - 1)
    return support


def _angle_cost(plane_ends: np.ndarray, groups: list[list[int]]) -> float:
    """How far the touching sticks are from running square to each other in the plane."""
    cost = 0.0
    for members in groups:
        if len(members) < 2:
            continue
        vectors = plane_ends[members, 1] - plane_ends[members, 0]
        angles = np.arctan2(vectors[:, 1], vectors[:, 0])
        weights = np.linalg.norm(vectors, axis=1)
        phase = np.angle((weights * np.exp(4j * angles)).sum()) / 4
        off = np.abs(np.angle(np.exp(4j * (angles - phase)))) / 4
        cost += float((np.minimum(off, ANGLE_CAP) ** 2).sum()) / ANGLE_SIGMA**2
    return cost


def _best_counts(lengths: np.ndarray, support: np.ndarray) -> tuple[float, np.ndarray]:
    """The per-bar counts, with one unit length for all, that best explain the plane lengths, and their cost."""
    ks = np.arange(1, MOST_PER_BAR + 1)
    units = (lengths[:, None] / ks[None, :]).reshape(-1)
    units = units[np.isfinite(units) & (units > 0)]
    if not len(units):
        return math.inf, np.ones(len(lengths), int)
    fit = np.log(lengths[None, :, None] / (ks[None, None, :] * units[:, None, None])) / LENGTH_SIGMA
    cost = np.minimum(fit**2, LENGTH_CAP) - support[None, :, :]
    best_k = cost.argmin(axis=2)
    total = cost.min(axis=2).sum(axis=1)
    i = int(np.argmin(total))
    return float(total[i]), best_k[i] + 1


def count_sticks(
    profiles: list[Profile], size: tuple[int, int], min_length: float, homography: np.ndarray | None = None
) -> Counting:
    """Choose the plane (calibration's, or the best tilt's) and how many sticks each bar holds."""
    ends = np.array([[p.a, p.b] for p in profiles], np.float64).reshape(-1, 2, 2)
    support = np.array([_support(p, min_length) for p in profiles]).reshape(-1, MOST_PER_BAR)
    planes = [np.asarray(homography, np.float64)] if homography is not None else [tilt_plane(size, t) for t in TILTS]
    groups = group(ends)
    best = (math.inf, planes[0], np.ones(len(profiles), int))
    for plane in planes:
        plane_ends = to_plane(plane, ends)
        if not np.all(np.isfinite(plane_ends)):
            continue
        lengths = np.linalg.norm(plane_ends[:, 1] - plane_ends[:, 0], axis=1)
        cost, counts = _best_counts(lengths, support)
        cost += _angle_cost(plane_ends, groups)
        if cost < best[0]:
            best = (cost, plane, counts)
    return Counting(best[1], [int(k) for k in best[2]])


def cuts(profile: Profile, count: int, plane: np.ndarray) -> list[float]:
    """Where a bar of `count` sticks splits (px from `a`): at the seam seen near each equal split of the
    plane, else at the split itself."""
    if count <= 1:
        return []
    ends = to_plane(plane, np.array([profile.a, profile.b], np.float64))
    inverse = np.linalg.inv(plane)
    seams = seam_candidates(profile)
    slot = SLOT * profile.length / count
    positions = []
    for j in range(1, count):
        target_plane = ends[0] + (ends[1] - ends[0]) * j / count
        target = float(np.linalg.norm(to_plane(inverse, target_plane[None])[0] - profile.a))
        near = [(u, s) for u, s in seams if abs(u - target) <= slot and s >= SEAM_SEEN]
        positions.append(max(near, key=lambda c: c[1] - 0.5 * abs(c[0] - target) / slot)[0] if near else target)
    return sorted(positions)
