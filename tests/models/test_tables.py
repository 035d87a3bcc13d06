"""Procedural table tops: the training kinds render, are seeded, never reach the held-out split, and keep their
pattern's size in pixels whatever the frame's shape."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.scenes import TEXTURE_FRAME_PX, TEXTURE_PX, Camera, table_texture
from models.synth.tables import (
    DOT_TRAIN_TABLES,
    EXTRA_TRAIN_TABLES,
    HELDOUT_TABLES,
    PATTERN_TRAIN_TABLES,
    PROBE_TABLES,
    TABLE_KINDS,
    TRAIN_TABLES,
    render_table,
)
from vision.cards.artwork import CARD_MM


def test_training_held_out_and_probe_kinds_are_disjoint() -> None:
    training = TRAIN_TABLES + EXTRA_TRAIN_TABLES + PATTERN_TRAIN_TABLES + DOT_TRAIN_TABLES
    assert not set(training) & set(HELDOUT_TABLES)
    assert not set(PROBE_TABLES) & set(training + HELDOUT_TABLES)
    assert len(set(TABLE_KINDS)) == len(TABLE_KINDS)


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_every_kind_renders_a_seeded_textured_top(kind: str) -> None:
    a = render_table(np.random.default_rng(3), kind, 120, 200)
    assert a.shape == (120, 200, 3) and a.dtype == np.float32
    assert a.min() >= 0 and a.max() <= 255
    assert a.std() > 1.0  # a texture, not a flat fill
    assert np.array_equal(a, render_table(np.random.default_rng(3), kind, 120, 200))


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        render_table(np.random.default_rng(0), "lino", 10, 10)


@settings(max_examples=40, deadline=None)
@given(
    size=st.sampled_from([(1280, 720), (960, 720), (640, 480), (1920, 1080), (720, 1280), (1600, 1200)]),
    card_px=st.floats(60, 300),
    fov=st.floats(50, 75),
)
def test_a_pattern_is_as_many_pixels_across_whatever_the_frame_shape(
    size: tuple[int, int], card_px: float, fov: float
) -> None:
    """Seen from straight above at one scale, a texture pixel covers as many frame pixels in any frame: a
    checked cloth's checks do not shrink in a 4:3 frame."""
    camera = Camera.looking_at(size, card_px, tilt_deg=0.0, yaw_deg=0.0, fov_deg=fov)
    frame_px_per_mm = card_px / CARD_MM[1]
    _, _, texture_px_per_mm = table_texture(camera, size)
    reference = Camera.looking_at((1280, 720), card_px, tilt_deg=0.0, yaw_deg=0.0, fov_deg=fov)
    _, _, reference_px_per_mm = table_texture(reference, (1280, 720))
    assert texture_px_per_mm == pytest.approx(reference_px_per_mm, rel=1e-6)
    assert frame_px_per_mm / texture_px_per_mm == pytest.approx(TEXTURE_FRAME_PX / TEXTURE_PX, rel=1e-6)
