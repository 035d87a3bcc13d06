"""From tiles read in a picture to a Seven Pis layout: group touching tiles, lay each group on a grid of
cells, and fit the pi shape to it.

The tiles are first seen on the table plane (`_seen`): the camera tilt under which their outlines are most
nearly 2:1 rectangles takes out most of a webcam's perspective, and there each tile keeps its own centre and
direction but takes the median tile's cell, so that an outline read a fifth short does not carry its halves
off their neighbours'. Two halves touch when one lies one cell from the other in the first tile's axes, and
the grid is walked from tile to tile, each step measured in the axes of the tile it starts from. A group is
then matched to the shape under its 8 turns and mirror images; a tile that lands on no slot keeps its cells
as its slot's name, so `Layout.status()` reports it (NO_SUCH_SLOT: a leg in the wrong place).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from itertools import product

import numpy as np

from rules.seven_pis import DOUBLE_NINE, DOUBLE_SIX, Cell, Layout, PiShape, Placement, Setup
from vision.dominoes.detection import Domino
from vision.dominoes.tile import on_table

TOUCH_TOLERANCE = 0.4  # in cells: read outlines put touching halves 0.1-0.3 off; pis laid apart are split by fit
# Joining groups is tried only when there are more groups than pis and both must fit one pi whole, so it may
# forgive more: a tile whose outline was read a little off still rejoins its pi.
JOIN_TOLERANCE = 0.45
# A tile that fits no pi stays off the shape of the group it touches, unless it touches it more loosely than
# this and the set has room for another pi: then it is a pi begun a little apart.
CLOSE_CONTACT = 0.25
# Telling the sets apart by the pips read: 27 of the double-nine set's 55 tiles have a half over six; a
# double-six tile is read with one on 2 of 2776 held-out tables' tiles (seeds 51000000.., 95000000..), allowed
# here about 28 times as often for photos, so that a misread tile or two among many do not make a double-nine game.
NINE_OVER_SIX = 27 / 55
MISREAD_OVER_SIX = 0.02


@dataclass(frozen=True)
class PiGroup:
    """One group of touching tiles: which dominoes, and each one's placement in the layout."""

    pi: int
    dominoes: tuple[int, ...]  # indices into the list read from the picture
    placements: tuple[Placement, ...]  # in the order of `dominoes`


Axes = tuple[np.ndarray, np.ndarray]  # one cell's vectors on the table plane: along a tile (half to half), across


@dataclass(frozen=True)
class _Seen:
    """The tiles as grouping measures them: each one's half centres and axes."""

    halves: list[np.ndarray]  # (2, 2) on the table plane, in the order of the tile's halves
    axes: list[Axes]


def _seen(dominoes: list[Domino], size: tuple[int, int]) -> _Seen:
    """The tiles on the table plane as the camera's tilt gives it (`rectangle_tilt`: the tilt under which
    the outlines are most nearly 2:1 rectangles), each with its own centre and direction but the median
    tile's cell, its halves a cell apart about its centre. There a cell is one size all over the table, and
    an outline read a third short or long no longer carries its halves off their neighbours'."""
    outlines = np.array([d.corners for d in dominoes], np.float64).reshape(-1, 4, 2)
    if not len(outlines):
        return _Seen([], [])
    _, _, frames, cell = on_table(outlines, size)
    halves, axes = [], []
    for f in frames:
        along, across = cell * f.u / np.linalg.norm(f.u), cell * f.v / np.linalg.norm(f.v)
        axes.append((along, across))
        halves.append(np.array([f.center - along / 2, f.center + along / 2]))
    return _Seen(halves, axes)


def _in_cells(delta: np.ndarray, axes: Axes) -> np.ndarray:
    return np.linalg.solve(np.column_stack(axes), delta)


def _step(delta: np.ndarray, axes: Axes) -> tuple[tuple[int, int], float] | None:
    """`delta` as a whole step to a neighbouring cell in `axes` and how far off it is (in cells), or None."""
    coords = _in_cells(delta, axes)
    rounded = np.round(coords)
    if np.abs(rounded).sum() != 1:
        return None
    return (int(rounded[0]), int(rounded[1])), float(np.abs(coords - rounded).max())


def _misfit(delta: np.ndarray, a: Axes, b: Axes) -> tuple[tuple[int, int], float] | None:
    """The step from a half of tile A to a half of tile B `delta` away, if it is one cell, and how far off it
    is: measured in both tiles' axes and averaged, as each tile's outline is read with its own error."""
    there, back = _step(delta, a), _step(-delta, b)
    if there is None or back is None:
        return None
    return there[0], (there[1] + back[1]) / 2


def _touching(delta: np.ndarray, a: Axes, b: Axes) -> tuple[int, int] | None:
    """The step from a half of tile A to a half of tile B `delta` away, if they touch."""
    misfit = _misfit(delta, a, b)
    return misfit[0] if misfit is not None and misfit[1] <= TOUCH_TOLERANCE else None


def _contact(a: _Grid, b: _Grid, seen: _Seen) -> float:
    """How far off touching the nearest halves of A's and B's tiles lie (as `_misfit` measures; inf if none
    lies a cell from another)."""
    misfits = (
        _misfit(hb - ha, seen.axes[ta], seen.axes[tb])
        for ta in a.cells
        for tb in b.cells
        for ha in seen.halves[ta]
        for hb in seen.halves[tb]
    )
    return min((m[1] for m in misfits if m is not None), default=float("inf"))


def _cosine(vector: np.ndarray, target: np.ndarray) -> float:
    return float(np.dot(vector, target)) / (np.linalg.norm(vector) * np.linalg.norm(target))


def _aligned(axes: Axes, reference: Axes) -> Axes:
    """A tile's one-cell vectors (+-along, +-across) put in the order and sense of `reference`."""
    options = [(k, sign * axis) for k, axis in enumerate(axes) for sign in (1, -1)]
    k, first = max(options, key=lambda o: _cosine(o[1], reference[0]))
    _, second = max((o for o in options if o[0] != k), key=lambda o: _cosine(o[1], reference[1]))
    return first, second


def _inner(halves: np.ndarray, axes: Axes) -> tuple[int, int]:
    """The step from a tile's `halves[0]` to its `halves[1]`: the axis it mostly lies along."""
    coords = _in_cells(halves[1] - halves[0], axes)
    k = int(np.abs(coords).argmax())
    return (int(np.sign(coords[0])), 0) if k == 0 else (0, int(np.sign(coords[1])))


@dataclass
class _Grid:
    """A group laid on a grid: tile index -> the cells (x, y) of its two halves, and the table-plane vectors of
    one step along x and along y at that tile."""

    cells: dict[int, tuple[Cell, Cell]]
    axes: dict[int, Axes]


def _place(grid: _Grid, t: int, half: int, cell: Cell, axes: Axes, halves: np.ndarray) -> None:
    """Put tile t on the grid with its half `half` on `cell`."""
    inner = _inner(halves if half == 0 else halves[::-1], axes)
    other = (cell[0] + inner[0], cell[1] + inner[1])
    grid.cells[t] = (cell, other) if half == 0 else (other, cell)
    grid.axes[t] = axes


def _walk(grid: _Grid, start: int, members: set[int], seen: _Seen) -> None:
    """Grow the grid from tile `start` over every tile in `members` that touches it, half against half."""
    halves = seen.halves
    queue = deque([start])
    while queue:
        a = queue.popleft()
        for t in sorted(members - set(grid.cells)):
            for (ea, ha), (et, ht) in product(enumerate(halves[a]), enumerate(halves[t])):
                step = _touching(ht - ha, grid.axes[a], seen.axes[t])
                if step is not None:
                    cell = (grid.cells[a][ea][0] + step[0], grid.cells[a][ea][1] + step[1])
                    _place(grid, t, et, cell, _aligned(seen.axes[t], grid.axes[a]), halves[t])
                    queue.append(t)
                    break


def _groups(seen: _Seen, members: list[int]) -> list[_Grid]:
    """The tiles in `members` in groups of touching tiles, each laid on its own grid."""
    left = set(members)
    grids = []
    for seed in members:
        if seed not in left:
            continue
        grid = _Grid({}, {})
        _place(grid, seed, 0, (0, 0), seen.axes[seed], seen.halves[seed])
        _walk(grid, seed, left, seen)
        left -= set(grid.cells)
        grids.append(grid)
    return grids


def _joined(a: _Grid, b: _Grid, seen: _Seen) -> _Grid | None:
    """B laid on A's grid, measured from A's half nearest to B, if B's halves land on whole free cells: a
    pi still being built may have a gap (a leg laid before the back tile it hangs from)."""
    halves = seen.halves
    ta, ea, tb, eb = min(
        ((ta, ea, tb, eb) for ta in a.cells for tb in b.cells for ea in (0, 1) for eb in (0, 1)),
        key=lambda k: float(np.linalg.norm(halves[k[2]][k[3]] - halves[k[0]][k[1]])),
    )
    coords = _in_cells(halves[tb][eb] - halves[ta][ea], a.axes[ta])
    rounded = np.round(coords)
    if np.abs(coords - rounded).max() > JOIN_TOLERANCE or np.abs(rounded).sum() > 3:
        return None
    grid = _Grid(dict(a.cells), dict(a.axes))
    cell = (a.cells[ta][ea][0] + int(rounded[0]), a.cells[ta][ea][1] + int(rounded[1]))
    _place(grid, tb, eb, cell, _aligned(seen.axes[tb], a.axes[ta]), halves[tb])
    _walk(grid, tb, set(b.cells), seen)
    taken = [c for pair in grid.cells.values() for c in pair]
    return grid if len(grid.cells) == len(a.cells) + len(b.cells) and len(set(taken)) == len(taken) else None


_TURNS = [
    lambda x, y: (x, y),
    lambda x, y: (-y, x),
    lambda x, y: (-x, -y),
    lambda x, y: (y, -x),
    lambda x, y: (-x, y),
    lambda x, y: (y, x),
    lambda x, y: (x, -y),
    lambda x, y: (-y, -x),
]


def fit_shape(
    cells: dict[int, tuple[Cell, Cell]], shape: PiShape, pips: dict[int, tuple[int, int]] | None = None
) -> dict[int, tuple[str | None, tuple[Cell, Cell]]]:
    """Each tile's slot under the turn and shift of the grid that puts most tiles on slots (of equal fits,
    the one whose touching ends match most often, given `pips`): tile index -> (slot name or None, its
    halves' cells as (row, column) of the shape's grid)."""
    slot_of = {}
    for slot in shape.slots:
        slot_of[slot.cells] = slot.name
        slot_of[slot.cells[::-1]] = slot.name
    shape_cells = [c for slot in shape.slots for c in slot.cells]
    best: tuple[tuple[int, int], dict] = ((-1, 0), {})
    for turn in _TURNS:
        moved = {i: tuple(turn(*c)[::-1] for c in pair) for i, pair in cells.items()}  # (x, y) -> (row, col)
        anchors = {(sr - r, sc - c) for pair in moved.values() for r, c in pair for sr, sc in shape_cells}
        for dr, dc in sorted(anchors):
            placed = {i: tuple((r + dr, c + dc) for r, c in pair) for i, pair in moved.items()}
            score = (sum(pair in slot_of for pair in placed.values()), -_mismatches(placed, shape, pips))
            if score > best[0]:
                best = (score, placed)
    return {i: (slot_of.get(pair), pair) for i, pair in best[1].items()}


def _mismatches(placed: dict[int, tuple[Cell, Cell]], shape: PiShape, pips: dict | None) -> int:
    if pips is None:
        return 0
    shown = {cell: pips[i][k] for i, pair in placed.items() for k, cell in enumerate(pair)}
    return sum(a in shown and b in shown and shown[a] != shown[b] for a, b in shape.links)


def _placement(pi: int, tile: Domino, slot: str | None, cells: tuple[Cell, Cell], shape: PiShape) -> Placement:
    ends = tile.pips
    if slot is None:  # off the shape: the slot's name says where it lies, and status() reports it
        (r0, c0), (r1, c1) = cells
        return Placement(pi, f"cells ({r0}, {c0})-({r1}, {c1})", ends)
    first = shape.slots[shape.index[slot]].cells[0]
    return Placement(pi, slot, ends if cells[0] == first else ends[::-1])


def _fitted_groups(
    dominoes: list[Domino], setup: Setup, size: tuple[int, int]
) -> list[dict[int, tuple[str | None, tuple[Cell, Cell]]]]:
    """Each group fitted to the shape. Pis laid close may read as one group: tiles off the shape that touch
    each other (two or more) are split off as a pi of their own, and a lone one goes to whichever group it
    fits whole, or stays off its own group's shape. Groups beyond the set's pis are then joined to a
    neighbour where both fit one pi together."""
    shape = setup.shape
    pips = {i: d.pips for i, d in enumerate(dominoes)}
    seen = _seen(dominoes, size)
    pending = _groups(seen, list(range(len(dominoes))))
    done: list[_Grid] = []
    lone: list[tuple[int, _Grid, _Grid]] = []  # (its group's index in `done`, the tile alone, where it lay there)
    while pending:
        grid = pending.pop()
        off = [i for i, (slot, _) in fit_shape(grid.cells, shape, pips).items() if slot is None]
        parts = _groups(seen, off)
        pending.extend(p for p in parts if len(p.cells) >= 2)
        lone.extend(
            (len(done), p, _Grid({i: grid.cells[i] for i in p.cells}, grid.axes)) for p in parts if len(p.cells) == 1
        )
        done.append(_Grid({i: c for i, c in grid.cells.items() if i not in off}, grid.axes))
    for home, tile, was in lone:
        target = next((k for k in range(len(done)) if _fits_whole(done[k], tile, seen, shape, pips)), None)
        if target is not None:
            done[target] = _joined(done[target], tile, seen)
        elif _contact(tile, done[home], seen) > CLOSE_CONTACT and sum(bool(g.cells) for g in done) < setup.pis:
            done.append(tile)  # laid a little apart from its group: a pi begun beside it, not a leg out of place
        else:  # it fits no group and lies close against its own: a tile out of place there
            done[home] = _Grid({**done[home].cells, **was.cells}, {**done[home].axes, **was.axes})
    done = [g for g in done if g.cells]
    while len(done) > setup.pis:
        join = next(
            ((a, b) for b in sorted(range(len(done)), key=lambda k: len(done[k].cells)) for a in range(len(done))
             if a != b and _fits_whole(done[a], done[b], seen, shape, pips)),
            None,
        )  # fmt: skip
        if join is None:
            break
        a, b = join
        done = [g for k, g in enumerate(done) if k not in join] + [_joined(done[a], done[b], seen)]
    return [fit_shape(g.cells, shape, pips) for g in done]


def _fits_whole(a: _Grid, b: _Grid, seen: _Seen, shape: PiShape, pips: dict) -> bool:
    """Whether B laid on A's grid puts every tile of both on a slot of one pi."""
    if not a.cells:
        return False
    grid = _joined(a, b, seen)
    return grid is not None and all(slot for slot, _ in fit_shape(grid.cells, shape, pips).values())


def read_pis(dominoes: list[Domino], setup: Setup, size: tuple[int, int]) -> tuple[Layout, list[PiGroup]]:
    """The layout the tiles read in a picture of `size` (width, height) make, pis labelled top to bottom then
    left to right as they lie in the picture."""
    groups = _fitted_groups(dominoes, setup, size)
    centers = [np.mean([dominoes[i].center for i in g], axis=0) for g in groups]
    order = sorted(range(len(groups)), key=lambda k: (centers[k][1], centers[k][0]))
    result = []
    for pi, k in enumerate(order):
        indices = tuple(sorted(groups[k]))
        placements = tuple(_placement(pi, dominoes[i], *groups[k][i], setup.shape) for i in indices)
        result.append(PiGroup(pi, indices, placements))
    return Layout(setup, tuple(p for g in result for p in g.placements)), result


def guess_setup(dominoes: list[Domino], size: tuple[int, int]) -> Setup:
    """Double-nine if the tiles with a half over six are too many to be double-six tiles misread, or if its pi
    shape puts more tiles on slots (in as few pis) than double-six's does; else double-six."""
    over_six = sum(max(d.pips) > 6 for d in dominoes)
    # How much likelier that count is from a double-nine set's tiles than from double-six tiles misread.
    evidence = over_six * math.log(NINE_OVER_SIX / MISREAD_OVER_SIX) + (len(dominoes) - over_six) * math.log(
        (1 - NINE_OVER_SIX) / (1 - MISREAD_OVER_SIX)
    )
    if evidence > 0:  # about one tile in six or more
        return DOUBLE_NINE

    def fit(setup: Setup) -> tuple[int, int]:
        groups = read_pis(dominoes, setup, size)[1]
        return sum(p.slot in setup.shape.index for g in groups for p in g.placements), -len(groups)

    return DOUBLE_NINE if fit(DOUBLE_NINE) > fit(DOUBLE_SIX) else DOUBLE_SIX
