"""What each recogniser reads where its kind is not: every kind's detections on the other kinds' held-out
frames and on empty held-out tables with the renderers' distractors (coins, pens, paper notes, the Reference
card), read as `tableref recognize` reads a picture (every kind, `TableReader`). Each such detection is false.

Tile frames hold digit cards among their distractors, so cards read there are not counted. With `written_notes`,
the card and tile frames and the empty tables also hold 2-4 paper notes written on by hand (models/synth/notes.py),
as score sheets lie beside a game; the stick frames are as rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from models.evaluate import scene_spec as card_scene_spec
from models.evaluate_dominoes import evaluation_spec
from models.evaluate_sticks import scene_spec as stick_scene_spec
from models.synth.dominoes import render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.synth.sticks import render_stick_scene
from vision.table import TableReader, TableReading

CARD_SEED = 20_000_000  # the first held-out seed of `tableref evaluate cards`, and of the empty tables
DOMINO_SEED = 50_000_000  # of `tableref evaluate dominoes`
STICK_SEED = 1_000  # of `tableref evaluate sticks` (its lattice layouts)
# Frame kind -> the kinds of detection counted on it (all false there).
COUNTED = {
    "cards": ("dominoes", "sticks"),
    "dominoes": ("sticks",),
    "sticks": ("cards", "dominoes"),
    "empty": ("cards", "dominoes", "sticks"),
}


def frame(kind: str, index: int, frames: int, written_notes: bool = False) -> np.ndarray:
    """The index-th held-out frame of a kind (of `frames` read), with notes written on beside what it lays if
    asked (the stick frames never)."""
    if kind == "cards":
        seed = CARD_SEED + index
        return render_scene(seed, replace(card_scene_spec(seed), written_notes=written_notes)).image
    if kind == "dominoes":
        spec = evaluation_spec(index, DOMINO_SEED)[1]
        return render_dominoes(DOMINO_SEED + index, replace(spec, written_notes=written_notes)).image
    if kind == "sticks":
        return render_stick_scene(STICK_SEED + index, stick_scene_spec(index, "heldout", frames)).image
    empty = SceneSpec(split="heldout", n_cards=(0, 0), written_notes=written_notes)
    return render_scene(CARD_SEED + index, empty).image


def false_counts(reading: TableReading, kind: str) -> dict[str, int]:
    """The detections counted on a frame of `kind`; `digit` counts stick groups read as a DIGIT card."""
    counts = {counted: len(getattr(reading, counted)) for counted in COUNTED[kind]}
    if "sticks" in counts:
        counts["digit"] = sum(p.card is not None for p in reading.polysticks)
    return counts


def evaluate_table(
    frames: int,
    reader: TableReader | None = None,
    on_frame: Callable[[], None] | None = None,
    written_notes: bool = False,
) -> dict[str, dict[str, int]]:
    """Frame kind -> its frame count and each counted kind's false detections over `frames` frames of each kind
    (`frame`), on one OpenCV thread (as the other evaluations read)."""
    reader = reader or TableReader()
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    result: dict[str, dict[str, int]] = {}
    try:
        for kind in COUNTED:
            total = {"frames": frames}
            for index in range(frames):
                reading = reader.read(frame(kind, index, frames, written_notes))
                for counted, n in false_counts(reading, kind).items():
                    total[counted] = total.get(counted, 0) + n
                if on_frame:
                    on_frame()
            result[kind] = total
    finally:
        cv2.setNumThreads(threads)
    return result
