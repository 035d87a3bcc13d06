"""The stick locator's training frames: those of other shapes than 16:9 keep the sticks' ends where the
letterboxed frame shows them; the mikado block mixes in bare seamed tables; the hand block adds a hand and
takes no stick away; the small block's frames come to the network near their own pixels' scale."""

import random

import numpy as np

from models.train_sticks import (
    BARE_SEAMED_SHARE,
    HAND_SEED,
    MIKADO_SEED,
    NO_STICK_SHARE,
    PATTERN_TRAIN_TABLES,
    SMALL_SEED,
    SMALL_SHAPES,
    TABLES,
    frame_sample,
    hand_sample,
    mikado_sample,
    small_sample,
)
from vision.locator import letterbox_scale
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


def test_the_hand_block_is_the_same_frame_with_a_hand_beside_its_sticks() -> None:
    """The targets are the frame's own sticks, all of them: the hand lies clear of every stick, so a
    network taught on the block learns the hand is no stick rather than that a covered stick is none."""
    changed = 0
    for seed in range(HAND_SEED, HAND_SEED + 12):
        canvas, ends = hand_sample(seed)
        plain, plain_ends = frame_sample(seed, TABLES + PATTERN_TRAIN_TABLES)
        np.testing.assert_array_equal(ends, plain_ends)
        moved = np.abs(canvas.astype(int) - plain.astype(int)).max(axis=-1)[0] > 40
        changed += moved.mean() > 0.01  # a hand covers a few percent of the frame or more
        for stick in ends[0][~np.isnan(ends[0]).any(axis=(1, 2))]:
            middle = np.round(stick.mean(axis=0)).astype(int)
            assert not moved[middle[1], middle[0]]  # the stick is seen as it was
    assert changed >= 10


def stick_lengths(ends: np.ndarray) -> list[float]:
    sticks = ends[0][~np.isnan(ends[0]).any(axis=(1, 2))]
    return list(np.linalg.norm(sticks[:, 1] - sticks[:, 0], axis=1))


def test_the_small_block_comes_to_the_network_near_its_own_scale_with_sticks_as_long() -> None:
    """A webcam's 640x480 frame is read at its own pixels' scale, softer and grainier than the halved frames of
    every other block: the small block's frames are shown so, and their sticks are as long in the input."""
    small, usual = [], []
    for seed in range(SMALL_SEED, SMALL_SEED + 16):
        canvas, ends = small_sample(seed)
        size = random.Random(seed).choice(SMALL_SHAPES)
        scale = letterbox_scale(*size, INPUT_SIZE)
        assert 0.74 <= scale <= 1.0
        shown = np.flatnonzero(canvas[0].any(axis=(1, 2)))
        assert shown.max() + 1 == round(size[1] * scale)  # the frame at that scale, then the black bar
        small += stick_lengths(ends)
        usual += stick_lengths(frame_sample(seed, TABLES + PATTERN_TRAIN_TABLES)[1])
    assert len(small) > 20
    assert 0.67 <= np.median(small) / np.median(usual) <= 1.5
