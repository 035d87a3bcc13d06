"""Notes written on by hand beside the cards or the tiles (models/synth/notes.py): each carries writing, they lie
clear of what the scene lays, and the scene's cards or tiles are the same with or without them."""

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from models.synth.dominoes import DominoSpec, render_dominoes
from models.synth.notes import NOTE_PX, written_note
from models.synth.scenes import render_scene, split_fonts
from models.train_cards import training_spec


@pytest.mark.parametrize("split", ["train", "heldout"])
def test_every_note_carries_writing_and_is_the_same_from_the_same_seed(split: str) -> None:
    fonts = split_fonts(split)
    for seed in range(60):
        rng = random.Random(seed)
        note = written_note(rng, fonts, split == "heldout")
        assert note.shape == (NOTE_PX[1], NOTE_PX[0], 4)
        grey = cv2.cvtColor(note[..., :3], cv2.COLOR_RGB2GRAY).astype(int)
        paper = np.median(grey)
        assert np.count_nonzero(grey < paper - 40) >= 20, f"seed {seed}: no writing on the note"
        assert np.array_equal(note, written_note(random.Random(seed), fonts, split == "heldout"))


def test_notes_lie_clear_of_the_cards_and_leave_them_as_they_were() -> None:
    laid = 0
    for seed in range(20_000, 20_012):
        spec = training_spec(seed, "heldout")
        plain, noted = render_scene(seed, spec), render_scene(seed, replace(spec, written_notes=True))
        assert not plain.written_notes
        assert [c.face for c in noted.cards] == [c.face for c in plain.cards]
        assert all(np.array_equal(a.corners, b.corners) for a, b in zip(noted.cards, plain.cards, strict=True))
        _assert_clear(noted.written_notes, [card.corners for card in noted.cards], f"scene {seed}")
        laid += len(noted.written_notes)
    assert laid >= 12, "too few notes laid for the test to mean anything"


def test_notes_lie_clear_of_the_tiles_and_leave_them_as_they_were() -> None:
    laid = 0
    for seed in range(20_000, 20_012):
        spec = DominoSpec(split="heldout", face_down=6)
        plain, noted = render_dominoes(seed, spec), render_dominoes(seed, replace(spec, written_notes=True))
        assert not plain.written_notes
        assert [t.pips for t in noted.tiles] == [t.pips for t in plain.tiles]
        assert all(np.array_equal(a.corners, b.corners) for a, b in zip(noted.tiles, plain.tiles, strict=True))
        laid_out = [t.corners for t in noted.tiles] + noted.face_down + noted.distractors
        _assert_clear(noted.written_notes, laid_out, f"tile scene {seed}")
        laid += len(noted.written_notes)
    assert laid >= 12, "too few notes laid for the test to mean anything"


def _assert_clear(notes: list[np.ndarray], outlines: list[np.ndarray], where: str) -> None:
    for note in notes:
        for outline in outlines:
            overlap, _ = cv2.intersectConvexConvex(note, outline.astype(np.float32))
            assert overlap < 1.0, f"{where}: a note over what the scene lays"
