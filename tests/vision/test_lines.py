"""Reading order under random camera views: the line read back equals the line laid."""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.scenes import Camera, card_outline_mm
from vision.cards.artwork import CardFace
from vision.cards.lines import NoStarterError, read_line, short_rows
from vision.cards.recognize import Card
from vision.geometry import polygon_area

STARTER = CardFace("starter", (3,))


def lay_grid(n: int, per_row: int, gap: float, angle: float, jitter: float, rng: random.Random) -> list:
    """Cards in table millimetres: the Starter first, then n digit cards, rows of `per_row` cells."""
    along = np.array([math.cos(angle), math.sin(angle)])
    down = np.array([-math.sin(angle), math.cos(angle)])
    cells = []
    for i in range(n + 1):
        r, c = divmod(i, per_row)
        center = along * c * (63 + gap) + down * r * (88 + gap) + [rng.gauss(0, jitter), rng.gauss(0, jitter)]
        cells.append(card_outline_mm(center, angle + rng.gauss(0, 0.03)))
    return cells


def seen(outlines: list[np.ndarray], tilt: float, yaw: float) -> list[Card] | None:
    """The cards laid on `outlines` (table mm) as a camera tilted and turned so sees them: the Starter first,
    then digits; None where one lies behind the camera or degenerate, where the case means nothing."""
    camera = Camera.looking_at((1280, 720), card_px=100, tilt_deg=tilt, yaw_deg=yaw, fov_deg=60)
    center = np.mean([o.mean(axis=0) for o in outlines], axis=0)
    cards = [
        Card(STARTER if i == 0 else CardFace("digit", (i % 10,)), camera.project(o - center).astype(np.float32), 0.9)
        for i, o in enumerate(outlines)
    ]
    return None if any(polygon_area(c.corners) < 50 for c in cards) else cards


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 24),
    per_row=st.integers(2, 12),
    gap=st.floats(1, 25),
    angle=st.floats(-math.pi, math.pi),
    tilt=st.floats(0, 50),
    yaw=st.floats(-180, 180),
    seed=st.integers(0, 10_000),
)
def test_line_order_survives_any_view(n, per_row, gap, angle, tilt, yaw, seed) -> None:
    rng = random.Random(seed)
    cards = seen(lay_grid(n, per_row, gap, angle, jitter=1.5, rng=rng), tilt, yaw)
    if cards is None:
        return
    shuffled = cards[:]
    rng.shuffle(shuffled)
    line = read_line(shuffled)
    assert [cards.index(c) for c in line.cards] == list(range(1, n + 1))
    assert line.stray == []
    assert [len(r) for r in line.rows] == [len(r) for r in _expected_rows(n, per_row)]


def loosened(outline: np.ndarray, side: int, share: float) -> np.ndarray:
    """A card outline (table mm, TL TR BR BL) with one side (0 top, 1 right, 2 bottom, 3 left) moved out by
    `share` of the card across it, or in where negative: the outline a reader puts on a card half under the
    next, running on into it or stopping short at the edge that covers it."""
    corners = outline.copy()
    a, b = side, (side + 1) % 4
    centre = outline.mean(axis=0)
    midpoint = (outline[a] + outline[b]) / 2
    corners[[a, b]] += share * 2 * (midpoint - centre)
    return corners


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 20),
    per_row=st.integers(2, 10),
    gap=st.floats(-10, 4),
    angle=st.floats(-math.pi, math.pi),
    tilt=st.floats(0, 45),
    yaw=st.floats(-180, 180),
    seed=st.integers(0, 10_000),
)
def test_cards_laid_touching_on_loose_outlines_keep_their_order(n, per_row, gap, angle, tilt, yaw, seed) -> None:
    """In a race cards are laid touching, each a little over the one before; the outline read on a card half
    under its neighbour can reach into that card or stop short of its own edge, so the step to the next card
    looks far shorter or longer than the line's."""
    rng = random.Random(seed)
    outlines = [
        loosened(o, rng.randrange(4), rng.uniform(-0.25, 0.35))
        for o in lay_grid(n, per_row, gap, angle, jitter=1.0, rng=rng)
    ]
    cards = seen(outlines, tilt, yaw)
    if cards is None:
        return
    line = read_line(cards[::-1])
    assert [cards.index(c) for c in line.cards] == list(range(1, n + 1))
    assert [len(r) for r in line.rows] == [len(r) for r in _expected_rows(n, per_row)]


def _expected_rows(n: int, per_row: int) -> list[list[int]]:
    cells = list(range(1, n + 1))
    first = cells[: per_row - 1]
    rest = cells[per_row - 1 :]
    rows = [first] if first else []
    rows += [rest[i : i + per_row] for i in range(0, len(rest), per_row)]
    return rows


def test_a_card_far_from_the_line_is_stray() -> None:
    rng = random.Random(1)
    outlines = lay_grid(5, 10, 5, 0.0, 0.0, rng)
    cards = [
        Card(STARTER if i == 0 else CardFace("digit", (1,)), o.astype(np.float32) * 2, 0.9)
        for i, o in enumerate(outlines)
    ]
    far = Card(CardFace("digit", (9,)), (card_outline_mm(np.array([0.0, 600.0]), 0.4) * 2).astype(np.float32), 0.9)
    line = read_line([*cards, far])
    assert len(line.cards) == 5
    assert line.stray == [far]


def test_without_a_starter_the_reader_says_so() -> None:
    card = Card(CardFace("digit", (1,)), card_outline_mm(np.zeros(2), 0).astype(np.float32), 0.9)
    with pytest.raises(NoStarterError):
        read_line([card])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 20), per_row=st.integers(2, 8), tilt=st.floats(0, 45), seed=st.integers(0, 1000))
def test_misread_orientations_do_not_derail_the_line(n, per_row, tilt, seed) -> None:
    """Any card but the Starter may come back turned by quarter turns (a 0 reads the same upside down)."""
    rng = random.Random(seed)
    outlines = lay_grid(n, per_row, 8, rng.uniform(-math.pi, math.pi), 1.0, rng)
    camera = Camera.looking_at((1280, 720), card_px=100, tilt_deg=tilt, yaw_deg=rng.uniform(-180, 180), fov_deg=60)
    center = np.mean([o.mean(axis=0) for o in outlines], axis=0)
    cards, laid = [], []
    for i, outline in enumerate(outlines):
        corners = laid_corners = camera.project(outline - center).astype(np.float32)
        if i:
            corners = np.roll(corners, rng.randint(0, 3), axis=0)
        cards.append(Card(STARTER if i == 0 else CardFace("digit", (0,)), corners, 0.9))
        laid.append(laid_corners)
    line = read_line(cards[::-1])
    assert [cards.index(c) for c in line.cards] == list(range(1, n + 1))
    # Each card's frame is its outline as laid, whichever way its reading turned it.
    for frame, corners in zip(line.frames, laid[1:], strict=True):
        assert np.allclose(frame, corners)


@settings(max_examples=80, deadline=None)
@given(rows=st.integers(2, 4), per_row=st.integers(3, 8), seed=st.integers(0, 1000))
def test_a_card_missing_inside_a_grid_shows_as_a_short_row(rows, per_row, seed) -> None:
    """A full grid (its last row as long as the rest) with one card taken out of any row but the last."""
    rng = random.Random(seed)
    outlines = lay_grid(rows * per_row - 1, per_row, 8, rng.uniform(-math.pi, math.pi), 1.0, rng)
    cards = [
        Card(STARTER if i == 0 else CardFace("digit", (1,)), o.astype(np.float32), 0.9) for i, o in enumerate(outlines)
    ]
    assert short_rows(read_line(cards)) == []
    row = rng.randrange(rows - 1)
    missing = row * per_row + rng.randrange(1 if row == 0 else 0, per_row)  # never the Starter
    line = read_line([c for i, c in enumerate(cards) if i != missing])
    if line.stray:  # a row's first card missing ends the walk there: the stray cards tell it instead
        return
    assert short_rows(line) == [row + 1]
