"""A straight row of sticks whose line runs on past both of its ends is a line of the table's own (a plank
seam), not sticks; a row of real sticks ends where its sticks do."""

import itertools
import math

import cv2
import numpy as np
import pytest

from models.synth.sticks import StickSceneSpec, render_stick_scene
from models.synth.tables import render_table
from vision.sticks import StickRecognizer
from vision.sticks.seams import is_seam

STRAIGHT_CARD = 1  # the pentastick of five sticks in a row
SIZE = (720, 1280)
# Tables of one hue. On cloths of several colours (checks, stripes, plaid) a line darkening the pattern
# changes colour with it, and is not taken for a seam: a stick laid along such a line must not be dropped.
ONE_HUE = ("wood", "felt", "white", "dark", "laminate", "birch", "marble", "red_felt", "glossy_black")


def _table(kind: str, seed: int) -> np.ndarray:
    return np.clip(render_table(np.random.default_rng(seed), kind, *SIZE), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def reader() -> StickRecognizer:
    return StickRecognizer()


def test_plank_tables_show_no_sticks(reader: StickRecognizer) -> None:
    """Bare light and dark wood with seams. Measured: 66 sticks on these 12 frames without the check, 1 with
    it."""
    found = sum(len(reader(_table(kind, seed))[0]) for kind in ("birch", "wood") for seed in range(6))
    assert found <= 4


def test_pieces_of_a_line_across_the_table_are_a_seam() -> None:
    """A thin line darkening seeded tables of one hue, as a seam between planks does; rows of one to five
    stretches of it, their ends read a pixel or two off, are judged a seam. Measured: 36 of 36."""
    rng = np.random.default_rng(3)
    judged = seams = 0
    for i, kind in enumerate(ONE_HUE * 4):
        image = _table(kind, i).astype(np.float32)
        angle = rng.uniform(0, math.pi)
        along = np.array([math.cos(angle), math.sin(angle)])
        centre = np.array([640.0, 360.0]) + rng.uniform(-150, 150, 2)
        mask = np.zeros(SIZE, np.float32)
        cv2.line(mask, *(tuple(np.rint(centre + k * 2000 * along).astype(int)) for k in (-1, 1)), 1.0, 2)
        image = (image * (1 - rng.uniform(0.3, 0.5) * mask[..., None])).astype(np.uint8)
        length, count = rng.uniform(50, 110), int(rng.integers(1, 6))
        start = centre - count * length / 2 * along
        ends = np.array([[start + k * length * along, start + (k + 1) * length * along] for k in range(count)])
        ends += rng.uniform(-1.5, 1.5, ends.shape)
        judged += 1
        seams += is_seam(image, ends)
    assert judged == 36
    assert seams >= 0.9 * judged


def test_a_row_running_out_of_the_picture_at_both_ends_is_a_seam() -> None:
    """A thin line across a corner of tables of one hue, read as two to four pieces whose outer ends the
    locator put beyond the picture's edges, as it reads a seam it sees no end of: judged a seam."""
    rng = np.random.default_rng(5)
    seams = 0
    for i, kind in enumerate(ONE_HUE * 2):
        image = _table(kind, 100 + i).astype(np.float32)
        top = np.array([rng.uniform(700, 1100), 0.0])
        side = np.array([1279.0, rng.uniform(250, 600)])
        along = (side - top) / np.linalg.norm(side - top)
        mask = np.zeros(SIZE, np.float32)
        cv2.line(mask, *(tuple(np.rint(p).astype(int)) for p in (top - 50 * along, side + 50 * along)), 1.0, 2)
        image = (image * (1 - rng.uniform(0.3, 0.5) * mask[..., None])).astype(np.uint8)
        start, stop = top - rng.uniform(20, 60) * along, side + rng.uniform(20, 60) * along
        cuts = np.linspace(0, 1, int(rng.integers(3, 6)))
        ends = np.array([[start + a * (stop - start), start + b * (stop - start)] for a, b in itertools.pairwise(cuts)])
        seams += is_seam(image, ends)
    assert seams >= 0.9 * 2 * len(ONE_HUE)


@pytest.mark.parametrize("table", ["birch", "wood", None])
def test_rows_of_real_sticks_are_not_seams(table: str | None) -> None:
    """Five sticks in a row on plank tables and on held-out ones, held-out materials: their true ends are
    never judged a seam."""
    for seed in range(12):
        spec = StickSceneSpec(split="heldout", kind="lattice", card=STRAIGHT_CARD, table=table)
        scene = render_stick_scene(80_000 + seed, spec)
        ends = np.array([s.ends for s in scene.sticks], np.float64)
        assert not is_seam(scene.image, ends)


@pytest.mark.parametrize("seed", range(6))
def test_a_stick_laid_along_a_stripe_is_not_a_seam(seed: int) -> None:
    """A grey stick on a dark stripe of a two-colour striped cloth: the stripe runs on past its ends, but in
    the stripe's colour, not the stick's."""
    rng = np.random.default_rng(seed)
    pitch = int(rng.integers(14, 30))
    dark, light = rng.uniform(40, 110, 3), rng.uniform(140, 230, 3)
    x = np.arange(SIZE[1])
    image = np.where((x % pitch < pitch // 2)[None, :, None], dark, light) * np.ones((*SIZE, 1))
    stripe = pitch // 4 + pitch * int(rng.integers(20, 60))  # the middle of a dark stripe
    top = int(rng.integers(150, 450))
    grey = rng.uniform(120, 200)
    cv2.line(image, (stripe, top), (stripe, top + 90), (grey, grey, grey), 5)
    image = image.astype(np.uint8)
    assert not is_seam(image, np.array([[[stripe, top], [stripe, top + 90]]], np.float64))
