"""Procedural table tops: the training kinds render, are seeded, and never reach the held-out split."""

import numpy as np
import pytest

from models.synth.tables import EXTRA_TRAIN_TABLES, HELDOUT_TABLES, PATTERN_TRAIN_TABLES, TRAIN_TABLES, render_table


def test_training_and_held_out_kinds_are_disjoint() -> None:
    training = TRAIN_TABLES + EXTRA_TRAIN_TABLES + PATTERN_TRAIN_TABLES
    assert not set(training) & set(HELDOUT_TABLES)
    assert len(set(training)) == len(training)


@pytest.mark.parametrize("kind", TRAIN_TABLES + EXTRA_TRAIN_TABLES + PATTERN_TRAIN_TABLES + HELDOUT_TABLES)
def test_every_kind_renders_a_seeded_textured_top(kind: str) -> None:
    a = render_table(np.random.default_rng(3), kind, 120, 200)
    assert a.shape == (120, 200, 3) and a.dtype == np.float32
    assert a.min() >= 0 and a.max() <= 255
    assert a.std() > 1.0  # a texture, not a flat fill
    assert np.array_equal(a, render_table(np.random.default_rng(3), kind, 120, 200))


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        render_table(np.random.default_rng(0), "lino", 10, 10)
