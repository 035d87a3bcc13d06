"""Sticks that touch, grouped, and each group snapped to the square lattice.

The lattice is taken from the sticks themselves, so perspective does not matter: ends that meet form a
junction, each stick belongs to one of the group's two directions, and a walk from junction to junction
along the sticks counts whole steps: one stick, one lattice edge. Nothing is rounded from image positions,
so a far-away, foreshortened stick counts as much as a near one. Given an image -> table homography, the
same is done in table millimetres, where the two directions are known to be square.

What the walk cannot see is checked on the geometry: every stick along one of the two directions and about
as long as the others, no end against another stick's middle, no crossing, and every junction within a
quarter stick of where a lattice, fitted to all of them in perspective, puts it.
"""

from __future__ import annotations

import math
from collections import deque

import cv2
import numpy as np

from rules.sticks import Edge, card_number, is_connected

TOUCH = 0.25  # of a stick's length: ends this close meet, an end this close to a stick touches it
DIRECTION_TOLERANCE = np.radians(12.0)  # off a direction clustered in the picture
SQUARE_TOLERANCE = np.radians(8.0)  # off one of two square directions: an L may be 16 degrees off square
MIN_SPREAD = np.radians(45.0)  # the least angle a right angle on the table makes in the picture
LENGTH_RANGE = (0.72, 1.38)  # a stick's length over its direction's median
CROSS_MARGIN = 0.12  # sticks that meet at a corner may overlap this much (of their length) at their ends
SAMPLES = 12  # points along a reading that measure how much of it lies along others
RESIDUAL = 0.27  # of a stick length: how far a junction may sit from the fitted lattice


def end_distance(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two sticks' ends (2x2 each) are: the farther pair, the ends matched in whichever order fits."""
    straight = max(np.linalg.norm(a[0] - b[0]), np.linalg.norm(a[1] - b[1]))
    crossed = max(np.linalg.norm(a[0] - b[1]), np.linalg.norm(a[1] - b[0]))
    return float(min(straight, crossed))


def line_turn(a: np.ndarray, b: np.ndarray) -> float:
    """The angle between two segments' lines (ends 2x2 each, of some length), 0 to pi/2."""
    u, v = a[1] - a[0], b[1] - b[0]
    return float(np.arccos(min(1.0, abs(float(u @ v)) / (np.linalg.norm(u) * np.linalg.norm(v)))))


def segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Distance from p to segment ab, and where along it (0 at a, 1 at b) the nearest point is."""
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-9), 0, 1))
    return float(np.linalg.norm(p - (a + t * ab))), t


def crossing(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> tuple[float, float] | None:
    """Where segments ab and cd cross, as fractions along each, or None."""
    t, u = (float(v[0, 0]) for v in crossing_params(np.array([[a, b]], np.float64), np.array([[c, d]], np.float64)))
    return (t, u) if 0 < t < 1 and 0 < u < 1 else None


def crossing_params(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the lines of segments `first` (n x 2 x 2) and `second` (m x 2 x 2) meet, as fractions along
    each (n x m each, 0 at a segment's first end, 1 at its second); NaN for parallel pairs."""
    r = (first[:, 1] - first[:, 0])[:, None]
    s = (second[:, 1] - second[:, 0])[None]
    q = second[None, :, 0] - first[:, None, 0]
    denom = r[..., 0] * s[..., 1] - r[..., 1] * s[..., 0]
    safe = np.where(np.abs(denom) < 1e-9, np.nan, denom)
    along_first = (q[..., 0] * s[..., 1] - q[..., 1] * s[..., 0]) / safe
    return along_first, (q[..., 0] * r[..., 1] - q[..., 1] * r[..., 0]) / safe


def nearest_on_segments(points: np.ndarray, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For points (..., 2) against segments (m x 2 x 2): where along each segment the nearest point lies (0 at
    its first end, 1 at its second) and the distance to it, each (..., m)."""
    a, ab = segments[:, 0], segments[:, 1] - segments[:, 0]
    points = points[..., None, :]
    t = np.clip(((points - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-9), 0, 1)
    return t, np.linalg.norm(points - (a + t[..., None] * ab), axis=-1)


def lies_along(segments: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Which of SAMPLES points spread along each of `segments` (n x 2 x 2) lie along each of `others`
    (m x 2 x 2), within 3 px or 6 % of its length: (n, SAMPLES, m)."""
    segments = np.asarray(segments, np.float64).reshape(-1, 2, 2)
    others = np.asarray(others, np.float64).reshape(-1, 2, 2)
    samples = np.linspace(segments[:, 0], segments[:, 1], SAMPLES, axis=1)  # (n, S, 2)
    reach = np.maximum(3.0, 0.06 * np.linalg.norm(others[:, 1] - others[:, 0], axis=1))
    return nearest_on_segments(samples, others)[1] <= reach


def covered_shares(segments: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The share of each segment that lies along segments already kept."""
    return lies_along(segments, kept).any(axis=-1).mean(axis=-1)


def touch_matrix(ends: np.ndarray) -> np.ndarray:
    """Which sticks (rows of `ends`, n x 2 x 2) touch (n x n, symmetric, False on the diagonal): ends within
    TOUCH of the pair's mean length of an end or a body, or crossing."""
    n = len(ends)
    lengths = np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)
    gaps = nearest_on_segments(ends, ends)[1].min(axis=1)  # (n, n): stick i's nearer end to stick j
    near = np.minimum(gaps, gaps.T) <= TOUCH * 0.5 * (lengths[:, None] + lengths[None, :])
    ti, uj = crossing_params(ends, ends)
    crossed = (ti > 0) & (ti < 1) & (uj > 0) & (uj < 1)  # proper crossings; NaN (parallel) compares false
    touches = near | crossed
    touches[np.arange(n), np.arange(n)] = False
    return touches


def group(ends: np.ndarray) -> list[list[int]]:
    """Indices of sticks that touch, directly or through others; each group sorted, groups by first index."""
    touches = touch_matrix(ends)
    n = len(ends)
    seen = [False] * n
    groups = []
    for start in range(n):
        if seen[start]:
            continue
        seen[start] = True
        members, todo = [start], [start]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(touches[i]).tolist():
                if not seen[j]:
                    seen[j] = True
                    members.append(j)
                    todo.append(j)
        groups.append(sorted(members))
    return groups


def _families(directions: np.ndarray, square: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each stick's direction family (0 or 1) and the two family directions (unit vectors, 2 x 2).

    Angles are doubled so that a stick and its reverse agree. In table millimetres (`square`) the two
    directions are a right angle apart; in the picture perspective may skew them, so they are clustered.
    """
    angles = np.arctan2(directions[:, 1], directions[:, 0])
    if square:
        phase = np.angle(np.exp(4j * angles).sum()) / 4
        axes = np.array([phase, phase + np.pi / 2])
    else:
        doubled = np.exp(2j * angles)
        spread = np.abs(np.angle(doubled * np.conj(doubled[:, None])))
        i, j = np.unravel_index(int(np.argmax(spread)), spread.shape)
        centres = np.array([doubled[i], doubled[j]])
        if spread[i, j] < 2 * DIRECTION_TOLERANCE:
            centres = np.array([doubled.sum(), doubled.sum() * np.exp(1j * np.pi)])
        for _ in range(6):
            label = np.abs(np.angle(doubled[:, None] * np.conj(centres[None]))).argmin(axis=1)
            for k in range(2):
                if (label == k).any():
                    centres[k] = doubled[label == k].sum()
        axes = np.angle(centres) / 2
    diff = np.abs(np.angle(np.exp(2j * (angles[:, None] - axes[None]))))
    label = diff.argmin(axis=1)
    return label, np.column_stack([np.cos(axes), np.sin(axes)])


def _frame(axes: np.ndarray, used: np.ndarray) -> np.ndarray:
    """The lattice's x and y directions (rows), turned as the picture's: x nearest the picture's x."""
    if not used[1]:
        axes = np.array([axes[0], [-axes[0][1], axes[0][0]]])
    if not used[0]:
        axes = np.array([[axes[1][1], -axes[1][0]], axes[1]])
    x = axes[int(np.argmax(np.abs(axes[:, 0])))].copy()
    y = axes[int(np.argmin(np.abs(axes[:, 0])))].copy()
    if x[0] < 0:
        x = -x
    if x[0] * y[1] - x[1] * y[0] < 0:
        y = -y
    return np.array([x, y])


def _junctions(ends: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A junction label per end (n x 2): ends closer than a quarter stick meet."""
    points = ends.reshape(-1, 2)
    scale = np.repeat(lengths, 2)
    meet = np.linalg.norm(points[:, None] - points[None], axis=-1) <= TOUCH * 0.5 * (scale[:, None] + scale[None])
    label = np.arange(len(points))
    for i, j in zip(*np.nonzero(np.triu(meet, 1)), strict=True):  # row by row, as the labels merge in order
        label[label == label[j]] = label[i]
    return label.reshape(-1, 2)


def snap(ends: np.ndarray, square: bool = False) -> tuple[tuple[Edge, ...], bool, bool, int | None]:
    """Lattice edges (one per stick, in order), connected, on_lattice and card for one touching group.

    `ends` is n x 2 x 2 in picture pixels, or, with `square`, in a plane where the table's right angles
    are right angles (calibration's table millimetres, or the tilt plane the sticks gave).
    """
    vectors = ends[:, 1] - ends[:, 0]
    lengths = np.linalg.norm(vectors, axis=1)
    return _snapped(ends, vectors, lengths, *_families(vectors / lengths[:, None], square), square)


def snapped_card(ends: np.ndarray, square: bool = False) -> int | None:
    """`snap`'s card alone, for a search that asks it of many sets of sticks: a set whose sticks are not square
    and even (`_square_and_even`) is no card, and is told so before its junctions are walked (half the sets the
    faint completion snapped on an empty marble table)."""
    vectors = ends[:, 1] - ends[:, 0]
    lengths = np.linalg.norm(vectors, axis=1)
    label, axes = _families(vectors / lengths[:, None], square)
    if not _square_and_even(lengths, label, axes, ends, square):
        return None
    return _snapped(ends, vectors, lengths, label, axes, square)[3]


def _snapped(
    ends: np.ndarray, vectors: np.ndarray, lengths: np.ndarray, label: np.ndarray, axes: np.ndarray, square: bool
) -> tuple[tuple[Edge, ...], bool, bool, int | None]:
    """`snap`, given the sticks' vectors, lengths and direction families (`_families`)."""
    frame = _frame(axes, np.array([(label == 0).any(), (label == 1).any()]))
    # Which lattice axis each family runs along, and each stick's whole step along it.
    family_axis = [int(np.argmax(np.abs(frame @ axes[k]))) for k in range(2)]
    steps = np.zeros((len(ends), 2), int)
    for i, v in enumerate(vectors):
        axis = family_axis[label[i]]
        steps[i, axis] = 1 if np.dot(v, frame[axis]) > 0 else -1
    junction = _junctions(ends, lengths)
    coords, agreed, parts = _walk_steps(junction, steps)
    if len(parts) > 1:
        _place_parts(parts, coords, ends, junction, frame, lengths)
    # Each stick's edge runs from its first end's junction one step its way.
    edges = _normalized([_edge(coords[p], steps[i]) for i, (p, _) in enumerate(junction)])
    on_lattice = (
        agreed
        and len(parts) == 1  # parts touching only through a middle or a crossing are off the lattice
        and all(p != q for p, q in junction)
        and len(set(edges)) == len(edges)
        and _square_and_even(lengths, label, axes, ends, square)
        and not _ends_off_junctions(ends, lengths, junction)
        and _residual_ok(ends, lengths, junction, coords)
    )
    connected = is_connected(edges)
    card = card_number(edges) if on_lattice and connected else None
    return tuple(edges), connected, on_lattice, card


def _walk_steps(junction: np.ndarray, steps: np.ndarray) -> tuple[dict[int, np.ndarray], bool, list[list[int]]]:
    """Lattice points of the junctions, a stick's step from one to the next; whether every walk agreed; and
    the parts the junctions fall into (more than one when sticks touch only through middles)."""
    # Each junction's sticks, as (other junction, step from here to there).
    links: dict[int, list[tuple[int, np.ndarray]]] = {}
    for (p, q), step in zip(junction.tolist(), steps, strict=True):
        links.setdefault(p, []).append((q, step))
        links.setdefault(q, []).append((p, -step))
    coords: dict[int, np.ndarray] = {}
    agreed = True
    parts: list[list[int]] = []
    for start in sorted(links):
        if start in coords:
            continue
        coords[start] = np.zeros(2, int)
        part, todo = [start], deque([start])
        while todo:
            node = todo.popleft()
            for there, step in links[node]:
                want = coords[node] + step
                if there not in coords:
                    coords[there] = want
                    part.append(there)
                    todo.append(there)
                elif not np.array_equal(coords[there], want):
                    agreed = False
        parts.append(part)
    return coords, agreed, parts


def _place_parts(
    parts: list[list[int]],
    coords: dict[int, np.ndarray],
    ends: np.ndarray,
    junction: np.ndarray,
    frame: np.ndarray,
    lengths: np.ndarray,
) -> None:
    """Shift each further part by the whole steps its position says, relative to the first part."""
    unit = float(np.median(lengths))
    points = ends.reshape(-1, 2)
    position = {int(j): points[k] for k, j in enumerate(junction.reshape(-1))}
    origin = parts[0][0]
    for part in parts[1:]:
        guesses = [(frame @ (position[node] - position[origin])) / unit - coords[node] for node in part]
        shift = np.round(np.mean(guesses, axis=0)).astype(int)
        for node in part:
            coords[node] = coords[node] + shift


def _edge(start: np.ndarray, step: np.ndarray) -> Edge:
    x, y = int(start[0]), int(start[1])
    return Edge((x, y), (x + int(step[0]), y + int(step[1])))


def _normalized(edges: list[Edge]) -> list[Edge]:
    xs = [p[0] for e in edges for p in (e.a, e.b)]
    ys = [p[1] for e in edges for p in (e.a, e.b)]
    return [e.translated(-min(xs), -min(ys)) for e in edges]


def _square_and_even(lengths: np.ndarray, label: np.ndarray, axes: np.ndarray, ends: np.ndarray, square: bool) -> bool:
    """Every stick along its direction, the two directions about square, and the sticks about as long as
    each other (in the picture, as the others of their direction)."""
    if (label == 0).any() and (label == 1).any() and abs(float(axes[0] @ axes[1])) > math.cos(MIN_SPREAD):
        return False  # no webcam's view closes a right angle this far
    vectors = ends[:, 1] - ends[:, 0]
    angles = np.arctan2(vectors[:, 1], vectors[:, 0])
    axis_angles = np.arctan2(axes[label, 1], axes[label, 0])
    off = np.abs(np.angle(np.exp(2j * (angles - axis_angles)))) / 2
    if (off > (SQUARE_TOLERANCE if square else DIRECTION_TOLERANCE)).any():
        return False
    for members in [lengths] if square else [lengths[label == k] for k in range(2)]:
        ratio = members / np.median(members) if len(members) else members
        if ((ratio < LENGTH_RANGE[0]) | (ratio > LENGTH_RANGE[1])).any():
            return False
    return True


def could_share_a_card(ends: np.ndarray) -> np.ndarray:
    """Which two sticks (n x 2 x 2, in a plane where the table's right angles are square) `snap` with `square`
    could take into one card (n x n): parallel or square within twice SQUARE_TOLERANCE, neither longer than the
    other beyond LENGTH_RANGE's spread (as `_square_and_even` asks of every two sticks of a card), and not
    crossing each other (as `_ends_off_junctions` asks). A search over sets of sticks prunes with it: a pair
    that fails fails every set holding it."""
    vectors = ends[:, 1] - ends[:, 0]
    lengths = np.linalg.norm(vectors, axis=1)
    angles = np.arctan2(vectors[:, 1], vectors[:, 0])
    turn = np.abs(np.angle(np.exp(4j * (angles[:, None] - angles[None])))) / 4  # off parallel or square
    longer = np.maximum(lengths[:, None], lengths[None]) / np.maximum(np.minimum(lengths[:, None], lengths[None]), 1e-9)
    slack = 1e-9  # rounding: a pair on the bound passes
    crossed = _crossed(ends)
    return (
        (turn <= 2 * SQUARE_TOLERANCE + slack)
        & (longer <= LENGTH_RANGE[1] / LENGTH_RANGE[0] + slack)
        & ~(crossed | crossed.T)
    )


def _crossed(ends: np.ndarray) -> np.ndarray:
    """Which sticks (n x 2 x 2) cross which (n x n): each runs over the other by more than CROSS_MARGIN of
    itself, past the overlap sticks meeting at a corner may have."""
    along_first, along_second = crossing_params(ends, ends)
    inside = np.minimum(np.minimum(along_first, 1 - along_first), np.minimum(along_second, 1 - along_second))
    return inside > CROSS_MARGIN  # NaN (parallel) compares false


def _ends_off_junctions(ends: np.ndarray, lengths: np.ndarray, junction: np.ndarray) -> bool:
    """Whether two sticks cross, or a stick's end touches another's middle."""
    if _crossed(ends).any():
        return True
    t, dist = nearest_on_segments(ends, ends)  # stick i's end e against stick j: (i, e, j)
    # An end on a junction the other stick also ends at is a corner, not a touch of its middle.
    shared = (junction[:, :, None, None] == junction[None, None]).any(axis=-1)
    others = ~np.eye(len(ends), dtype=bool)[:, None, :]
    touching = (dist <= TOUCH * lengths) & (t > TOUCH) & (t < 1 - TOUCH) & ~shared & others
    return bool(touching.any())


def _residual_ok(ends: np.ndarray, lengths: np.ndarray, junction: np.ndarray, coords: dict[int, np.ndarray]) -> bool:
    """Every junction within RESIDUAL stick lengths of a lattice fitted to them all, in perspective."""
    nodes = sorted(coords)
    lattice = np.array([coords[node] for node in nodes], np.float64)
    steps = lattice - lattice[0]
    crossed = steps[:, 0, None] * steps[None, :, 1] - steps[:, 1, None] * steps[None, :, 0]
    if len(nodes) < 3 or not crossed.any():
        return True  # a straight run: nothing to fit beyond the walk
    # Each junction where the ends meeting there lie, on average.
    rows = np.searchsorted(nodes, junction.reshape(-1))
    image = np.zeros((len(nodes), 2))
    np.add.at(image, rows, ends.reshape(-1, 2))
    image /= np.bincount(rows, minlength=len(nodes))[:, None]
    ones = np.column_stack([lattice, np.ones(len(nodes))])
    affine, *_ = np.linalg.lstsq(ones, image, rcond=None)
    error = np.linalg.norm(ones @ affine - image, axis=1)
    bound = RESIDUAL * float(np.min(lengths))
    if error.max() <= bound:
        return True  # the perspective fit is taken only where it fits better: no need for it
    if len(nodes) >= 5:
        # Perspective, where the junctions pin it down; where they do not (most on one line) it fits worse.
        matrix, _ = cv2.findHomography(lattice, image, 0)
        if matrix is not None:
            fitted = cv2.perspectiveTransform(lattice.reshape(-1, 1, 2), matrix).reshape(-1, 2)
            projective = np.linalg.norm(fitted - image, axis=1)
            error = projective if projective.max() < error.max() else error
    return bool(error.max() <= bound)
