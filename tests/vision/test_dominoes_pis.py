"""From tiles read in a picture to a Seven Pis layout: random pis drawn at any angle, scale and shear must come
back as the same tiles in the same pis, with the same problems."""

import math
from collections import Counter
from itertools import combinations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.seven_pis import DOUBLE_NINE, DOUBLE_SIX, PI_OF_FOUR, Layout, PiShape, Placement, Setup, Status
from vision.dominoes import Domino, Half
from vision.dominoes.pis import guess_setup, read_pis
from vision.geometry import FOCAL, tilt_plane, to_plane


def _connected_subsets(setup: Setup) -> list[tuple[str, ...]]:
    """Sets of slots whose tiles touch one another in one group (a pi being built from one tile on)."""
    shape = setup.shape
    names = [slot.name for slot in shape.slots]
    out = []
    for size in range(1, len(names) + 1):
        for subset in combinations(range(len(names)), size):
            reached, frontier = {subset[0]}, [subset[0]]
            while frontier:
                s = frontier.pop()
                for _, t, _ in shape.neighbours[s]:
                    if t in subset and t not in reached:
                        reached.add(t)
                        frontier.append(t)
            if len(reached) == size:
                out.append(tuple(names[i] for i in subset))
    return out


SUBSETS = {setup.top: _connected_subsets(setup) for setup in (DOUBLE_SIX, DOUBLE_NINE)}


SIZE = (1280, 720)


def photographed(
    layout: Layout,
    rng: np.random.Generator,
    cell_px: float,
    angle: float,
    shear: float,
    tilt: float = 0.0,
    misread: float = 0.0,
    gap: float = 0.8,
) -> list:
    """The layout's tiles as the recogniser would report them: pis side by side, `gap` cells apart, turned,
    scaled and sheared on the table, seen by a camera tilted `tilt` degrees, each tile a little off and a
    share `misread` of them read a fifth or a quarter too short or too long, in a shuffled order."""
    shape = layout.setup.shape
    width = 1 + max(c for slot in shape.slots for _, c in slot.cells)
    c, s = math.cos(angle), math.sin(angle)
    focal = FOCAL * SIZE[0]  # the table plane's unit is about this many pixels at the picture's centre
    on_table = cell_px / focal * np.array([[c, -s], [s, c]]) @ np.array([[1, shear], [0, 1]])
    to_image = np.linalg.inv(tilt_plane(SIZE, tilt))
    dominoes = []
    for p in layout.placements:
        cells = shape.slots[shape.index[p.slot]].cells
        offset = np.array([p.pi * (width + gap) - 5, -1.5])
        # grid (row, col) -> (x, y) = (col, row), centre of the cell; then the tile's outline about them
        first, second = (offset + np.array([col + 0.5, row + 0.5]) for row, col in cells)
        middle, along = (first + second) / 2, second - first
        across = np.array([-along[1], along[0]]) / 2
        outline = [middle + sa * along + sb * across for sa, sb in ((-1, -1), (-1, 1), (1, 1), (1, -1))]
        points = to_plane(to_image, np.array([*outline, first, second]) @ on_table.T)
        points += rng.normal(0, 0.02 * cell_px, points.shape)
        if rng.random() < misread:  # the outline and its halves read short or long about the tile's centre
            centre, axis = points[:4].mean(axis=0), (points[5] - points[4]) / np.linalg.norm(points[5] - points[4])
            points += (rng.choice([0.75, 0.8, 1.2, 1.25]) - 1) * np.outer((points - centre) @ axis, axis)
        corners, halves = points[:4], points[4:]
        if cv2.contourArea(corners.astype(np.float32), oriented=True) < 0:  # keep it clockwise on screen
            corners = corners[[1, 0, 3, 2]]
        dominoes.append(Domino(corners, (Half(halves[0], p.ends[0]), Half(halves[1], p.ends[1])), 0.9))
    return [dominoes[i] for i in rng.permutation(len(dominoes))]


@st.composite
def layouts(draw) -> Layout:
    setup = draw(st.sampled_from((DOUBLE_SIX, DOUBLE_NINE)))
    placements = []
    for pi in range(draw(st.integers(1, 3))):
        for slot in draw(st.sampled_from(SUBSETS[setup.top])):
            ends = (draw(st.integers(0, setup.top)), draw(st.integers(0, setup.top)))
            placements.append(Placement(pi, slot, ends))
    return Layout(setup, tuple(placements))


def _tiles_by_pi(layout: Layout) -> Counter:
    groups: dict[int, list] = {}
    for p in layout.placements:
        groups.setdefault(p.pi, []).append(p.tile.key)
    return Counter(tuple(sorted(g)) for g in groups.values())


@settings(max_examples=150, deadline=None)
@given(
    layout=layouts(),
    seed=st.integers(0, 2**32 - 1),
    cell_px=st.floats(18, 60),
    angle=st.floats(-math.pi, math.pi),
    shear=st.floats(-0.1, 0.1),
    tilt=st.floats(0, 55),
)
def test_pis_come_back_with_their_tiles_and_problems(
    layout: Layout, seed: int, cell_px: float, angle: float, shear: float, tilt: float
) -> None:
    """Under a webcam's perspective, with one outline in ten read a fifth or a quarter short or long."""
    dominoes = photographed(layout, np.random.default_rng(seed), cell_px, angle, shear, tilt, misread=0.1)
    read, groups = read_pis(dominoes, layout.setup, SIZE)
    assert len(groups) == len({p.pi for p in layout.placements})
    assert _tiles_by_pi(read) == _tiles_by_pi(layout)
    assert read.status().flags == layout.status().flags
    assert len(read.completed_pis()) == len(layout.completed_pis())
    assert sorted(i for g in groups for i in g.dominoes) == list(range(len(dominoes)))


def _complete_pi(setup: Setup, pi: int = 0) -> list[Placement]:
    """A complete pi whose touching ends all match."""
    shape = setup.shape
    ends = {}
    for slot in shape.slots:
        ends[slot.name] = [1 + len(ends), 2 + len(ends)]
    for s, e, t, f in shape.joins:
        ends[shape.slots[t].name][f] = ends[shape.slots[s].name][e]
    return [Placement(pi, name, (a, b)) for name, (a, b) in ends.items()]


def test_a_leg_in_the_wrong_place_is_reported() -> None:
    """The left leg hangs under the back's inner cell: drawn from a shape that puts it there."""
    wrong = PI_OF_FOUR.to_json()
    wrong["slots"]["leg-left"] = [[1, 1], [2, 1]]
    wrong["links"] = [link for link in wrong["links"] if link != [[0, 0], [1, 0]]] + [[[0, 1], [1, 1]]]
    drawn = Setup(6, 7, PiShape.from_json(wrong))
    layout = Layout(drawn, tuple(_complete_pi(drawn)))
    read, groups = read_pis(photographed(layout, np.random.default_rng(0), 40, 0.3, 0.1), DOUBLE_SIX, SIZE)
    assert len(groups) == 1
    assert read.status().flags == Status.NO_SUCH_SLOT
    assert sum(p.slot in DOUBLE_SIX.shape.index for p in read.placements) == 3


@settings(max_examples=60, deadline=None)
@given(gap=st.floats(0.3, 0.38), angle=st.floats(-math.pi, math.pi), tilt=st.floats(0, 45), seed=st.integers(0, 99))
def test_a_pi_begun_a_little_apart_is_a_pi_of_its_own(gap: float, angle: float, tilt: float, seed: int) -> None:
    """A tile laid a third of a cell from a finished pi touches it as loosely as read outlines allow, but fits
    none of its slots: it begins the next pi, and is no leg out of place."""
    layout = Layout(DOUBLE_SIX, (*_complete_pi(DOUBLE_SIX), Placement(1, "back-1", (3, 4))))
    dominoes = photographed(layout, np.random.default_rng(seed), 40, angle, 0.0, tilt, gap=gap)
    read, groups = read_pis(dominoes, DOUBLE_SIX, SIZE)
    assert len(groups) == 2 and _tiles_by_pi(read) == _tiles_by_pi(layout)
    assert read.status().flags == layout.status().flags


def test_the_set_is_guessed_from_pips_and_shape() -> None:
    six = Layout(DOUBLE_SIX, tuple(_complete_pi(DOUBLE_SIX)))
    nine = Layout(DOUBLE_NINE, tuple(_complete_pi(DOUBLE_NINE)))
    rng = np.random.default_rng(1)
    assert guess_setup(photographed(six, rng, 40, 1.0, 0.1), SIZE) is DOUBLE_SIX
    assert guess_setup(photographed(nine, rng, 40, 1.0, 0.1), SIZE) is DOUBLE_NINE
    low = Layout(DOUBLE_SIX, (Placement(0, "back-1", (1, 2)),))
    high = Layout(DOUBLE_NINE, (Placement(0, "back-1", (8, 2)),))
    assert guess_setup(photographed(low, rng, 40, 0.0, 0.0), SIZE) is DOUBLE_SIX
    assert guess_setup(photographed(high, rng, 40, 0.0, 0.0), SIZE) is DOUBLE_NINE


@settings(max_examples=40, deadline=None)
@given(pis=st.integers(3, 7), seed=st.integers(0, 2**32 - 1))
def test_a_few_halves_misread_over_six_do_not_make_a_double_nine_game(pis: int, seed: int) -> None:
    """Double-six pis whose tiles are one in eight read with a half of 7-9 (the reader's rare misreading) are
    still double-six; double-nine pis drawn from their own set are double-nine."""
    rng = np.random.default_rng(seed)
    six_tiles = [(a, b) for a in range(7) for b in range(a, 7)]
    drawn = [six_tiles[k] for k in rng.permutation(len(six_tiles))[: 4 * pis]]
    misread = set(rng.choice(len(drawn), size=max(1, len(drawn) // 8), replace=False))
    tiles = [(int(rng.integers(7, 10)), t[1]) if k in misread else t for k, t in enumerate(drawn)]
    slots = [slot.name for slot in DOUBLE_SIX.shape.slots]
    six = Layout(DOUBLE_SIX, tuple(Placement(k // 4, slots[k % 4], t) for k, t in enumerate(tiles)))
    assert guess_setup(photographed(six, rng, 30, 0.4, 0.0), SIZE) is DOUBLE_SIX

    nine_tiles = [(a, b) for a in range(10) for b in range(a, 10)]
    drawn = [nine_tiles[k] for k in rng.permutation(len(nine_tiles))[: 5 * min(pis, 5)]]
    slots = [slot.name for slot in DOUBLE_NINE.shape.slots]
    nine = Layout(DOUBLE_NINE, tuple(Placement(k // 5, slots[k % 5], t) for k, t in enumerate(drawn)))
    assert guess_setup(photographed(nine, rng, 30, 0.4, 0.0), SIZE) is DOUBLE_NINE
