"""The domino locator's fine-tuning frames: training tables only, views no steeper than asked."""

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.tables import EXTRA_TRAIN_TABLES, HELDOUT_TABLES, PATTERN_TRAIN_TABLES, TRAIN_TABLES
from models.train_dominoes import VARIED_TILT, training_spec, varied_spec


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), patterned=st.booleans())
def test_fine_tuning_frames_keep_the_held_out_tables_out(seed: int, patterned: bool) -> None:
    tables = PATTERN_TRAIN_TABLES if patterned else TRAIN_TABLES + EXTRA_TRAIN_TABLES
    spec = functools.partial(varied_spec, tables=tables)(seed)
    assert spec.table in tables and spec.table not in HELDOUT_TABLES
    assert spec.split == "train" and spec.max_tilt <= VARIED_TILT
    base = training_spec(seed)
    assert (spec.layout, spec.n_tiles, spec.tile_px) == (base.layout, base.n_tiles, base.tile_px)


def test_some_fine_tuning_frames_are_steep_and_every_table_is_drawn() -> None:
    specs = [varied_spec(seed, PATTERN_TRAIN_TABLES) for seed in range(300)]
    steep = sum(s.max_tilt == VARIED_TILT for s in specs)
    assert 0.3 * len(specs) < steep < 0.5 * len(specs)
    assert {s.table for s in specs} == set(PATTERN_TRAIN_TABLES)
