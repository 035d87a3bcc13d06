"""The card-core trainer's scenes: the pattern block lies on PATTERN_TRAIN_TABLES, the plain block on the
training split's tables, and every target marks the cards' cores."""

import pytest

import models.synth.scenes as scenes
from models.synth.tables import PATTERN_TRAIN_TABLES, TRAIN_TABLES
from models.train_card_mask import OUT_SIZE, _pattern_sample, scene_sample
from vision.cards.segment import INPUT_SIZE


@pytest.mark.parametrize(("sample", "tables"), [(_pattern_sample, PATTERN_TRAIN_TABLES), (scene_sample, TRAIN_TABLES)])
def test_scenes_lie_on_their_block_s_tables(monkeypatch: pytest.MonkeyPatch, sample, tables) -> None:
    drawn: list[str] = []
    real = scenes.render_table

    def spy(rng, kind: str, h: int, w: int):
        drawn.append(kind)
        return real(rng, kind, h, w)

    monkeypatch.setattr(scenes, "render_table", spy)
    for seed in range(30_002_400, 30_002_404):
        frame, target = sample(seed)
        assert frame.shape == (1, INPUT_SIZE[1], INPUT_SIZE[0], 3)
        assert target.shape == (1, OUT_SIZE[1], OUT_SIZE[0]) and target.any()
    assert drawn and set(drawn) <= set(tables)
