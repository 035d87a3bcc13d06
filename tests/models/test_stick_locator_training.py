"""The stick locator's training frames: those of other shapes than 16:9 keep the sticks' ends where the
letterboxed frame shows them; the mikado block mixes in bare seamed tables; the rows block lays sticks in
straight rows."""

import numpy as np
import pytest

from models.train_sticks import (
    BARE_SEAMED_SHARE,
    MIKADO_SEED,
    NO_STICK_SHARE,
    ROWS_SEED,
    frame_sample,
    longest_row,
    mikado_sample,
    row_cards,
    rows_sample,
)
from rules.sticks import PENTASTICKS, SYMMETRIES, Edge, shape_for_card, transform
from vision.sticks.locate import INPUT_SIZE

SEEDS = range(40, 52)


def test_a_4_3_frame_keeps_its_sticks_inside_its_part_of_the_input() -> None:
    width = round(960 * INPUT_SIZE[1] / 720)  # the rest of the input is the letterbox's black bar
    found = 0
    for seed in SEEDS:
        canvas, ends = frame_sample(seed, size=(960, 720))
        assert canvas[0, :, : width - 1].any() and not canvas[0, :, width + 1 :].any()
        points = ends[0][~np.isnan(ends[0]).any(axis=(1, 2))].reshape(-1, 2)
        assert (points[:, 0] <= width + 1).all()
        found += len(points)
    assert found > 40


def test_the_mikado_block_holds_bare_seamed_tables_among_its_thin_sticks() -> None:
    """A network that learns hair-thin sticks must also see plank seams with no stick on them: about
    BARE_SEAMED_SHARE of the block's frames are bare tables, photographed as the stick scenes are, besides
    the card scenes and mat views every block holds."""
    bare = 0
    for seed in range(MIKADO_SEED, MIKADO_SEED + 60):
        canvas, ends = mikado_sample(seed)
        assert canvas.shape[1:3] == INPUT_SIZE[::-1] and canvas[0].std() > 2
        bare += bool(np.isnan(ends).all())
    expected = 60 * (BARE_SEAMED_SHARE + (1 - BARE_SEAMED_SHARE) * NO_STICK_SHARE)
    assert 0.75 * expected <= bare <= 1.25 * expected


@pytest.mark.parametrize("n", range(1, 6))
def test_a_straight_row_is_as_long_as_its_sticks_whichever_way_it_lies(n: int) -> None:
    row = frozenset(Edge((i, 2), (i + 1, 2)) for i in range(n))
    for symmetry in SYMMETRIES:
        assert longest_row(transform(row, symmetry)) == n
    bent = row | {Edge((n, 2), (n, 3))}  # a stick turned at the row's end adds nothing to it
    assert longest_row(bent) == n


def test_a_cards_longest_row_does_not_depend_on_how_it_is_turned() -> None:
    for card in range(1, len(PENTASTICKS) + 1):
        rows = {longest_row(transform(shape_for_card(card), s)) for s in SYMMETRIES}
        assert len(rows) == 1
    long_rows, rows_of_three = row_cards()
    assert long_rows[0] == 1 and not set(long_rows) & set(rows_of_three)


def _collinear(ends: np.ndarray) -> bool:
    points = ends.reshape(-1, 2)
    centred = points - points.mean(axis=0)
    spread = np.linalg.svd(centred, compute_uv=False)
    return bool(spread[1] < 0.05 * spread[0])


def test_the_rows_block_lays_the_straight_row_in_about_half_its_layouts() -> None:
    laid = straight = 0
    for seed in range(ROWS_SEED, ROWS_SEED + 60):
        _, ends = rows_sample(seed)
        sticks = ends[0][~np.isnan(ends[0]).any(axis=(1, 2))]
        if len(sticks):
            assert len(sticks) == len(PENTASTICKS[0])
            laid += 1
            straight += _collinear(sticks)
    assert laid >= 60 * (1 - NO_STICK_SHARE) * 0.75
    assert 0.35 * laid <= straight <= 0.65 * laid
