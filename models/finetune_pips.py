"""The pip readers trained on from their ONNX weights: the blurred copy with motion-blurred crops, and both with
a dotted cloth and ridged dividers.

    python -m models.finetune_pips [--blur-share 0.35] [--blur-lengths 3,5,7,9,11] [--epochs 2] [--dotted-scenes N]
        [--ridged-scenes N] [--noted-scenes N]

The renders blur about one frame in seven as a moving camera would, and those frames held most of the
tiles the recogniser missed on held-out scenes: the reader doubted blurred pips even on their true outline.
This trains a copy of it (vision/dominoes/recognize.py reads with it what the shipped reader doubts) on crops
with a share of each batch blurred by the renders' kernel: truth crops (jittered as the locator's outlines
are) over PATTERN_TRAIN_TABLES and over every training table, seen up to VARIED_TILT as the locator's
fine-tuning frames are; the shipped locator's proposals on such frames; and, so that it forgets nothing, the
blocks the reader was trained on: truth crops of the first training scenes, the locator's proposals on
training scenes and on frames with no domino. None of these tables is a held-out kind. Each block is cached
in data/; torch runs on one thread.

`--dotted-scenes` adds scenes over a cloth of dots on a square lattice (DOT_TRAIN_TABLES): where the dots lie at a
tile's pip spacing, the locator proposes patches of cloth that a reader never shown one reads as 5|5 or 4|4.
`make train` trains both readers on from their own weights with them: the blurred one on every block, the sharp
one on the blocks it was first trained on, a little blurred (`--pattern-scenes 0 --varied-scenes 0
--proposal-scenes 0 --blur-share 0.15`; with no blur it doubted blurred tiles more). The polka-dot cloth in
staggered rows stays a probe kind that no training frame draws.

`--ridged-scenes` adds scenes of sets whose divider is a ridge moulded in the tiles' own material (as on many
black and translucent sets), over every training table: only a thin highlight and a shade show where the
divider is. `make train` gives both readers these with the dots.

`--noted-scenes` adds paper notes written on by hand (models/synth/notes.py), as a score sheet lies beside a game:
a row of pi's digits or a tally is spotted and tile-shaped, and a whole blurred note passed for a blank. Half its
scenes are tile scenes, half card scenes (the reader reads tiles on every frame `tableref recognize` reads). `make
train` then trains both readers on once more from their own weights, with the dots and ridges again and the notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import typer

from models.synth.dominoes import DominoSpec, render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.synth.tables import DOT_TRAIN_TABLES, EXTRA_TRAIN_TABLES, PATTERN_TRAIN_TABLES, TRAIN_TABLES
from models.train_dominoes import (
    FREE_SEED,
    PROPOSAL_SEED,
    _proposal_crops,
    build_dataset,
    build_proposals,
    domino_free_crops,
    proposal_crops,
    samples_of,
    scene_samples,
    train_pip_reader,
    varied_spec,
    write_pip_manifest,
)
from vision.dominoes.pips import BLURRED_MODEL_PATH
from vision.dominoes.pips import MODEL_PATH as PIPS_PATH

PATTERN_SEED = 38_000_000  # seeds no other domino renders use
VARIED_SEED = 39_000_000
VARIED_PROPOSAL_SEED = 40_000_000
DOTTED_SEED = 125_000_000
RIDGED_SEED = 127_000_000  # 126_000_000.. and 128_000_000.. are tuning seeds of evaluation scenes
NOTED_SEED = 131_000_000  # 130_000_000.. are tuning seeds of evaluation scenes
EVERY_TABLE = TRAIN_TABLES + EXTRA_TRAIN_TABLES + PATTERN_TRAIN_TABLES


def pattern_spec(seed: int) -> DominoSpec:
    return varied_spec(seed, tables=PATTERN_TRAIN_TABLES)


def every_table_spec(seed: int) -> DominoSpec:
    return varied_spec(seed, tables=EVERY_TABLE)


def dotted_spec(seed: int) -> DominoSpec:
    return varied_spec(seed, tables=DOT_TRAIN_TABLES)


def ridged_spec(seed: int) -> DominoSpec:
    return replace(every_table_spec(seed), ridged=1.0)


def noted_spec(seed: int) -> DominoSpec:
    return replace(every_table_spec(seed), written_notes=True)


def _truth_crops(seed: int, make_spec) -> tuple[np.ndarray, np.ndarray]:
    sample = scene_samples(seed, make_spec=make_spec)
    return sample["crops"], sample["labels"]


def pattern_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Truth crops and look-alikes of one scene over the patterned training cloths."""
    return _truth_crops(seed, pattern_spec)


def every_table_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Truth crops and look-alikes of one scene over any training table."""
    return _truth_crops(seed, every_table_spec)


def training_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Truth crops and look-alikes of one of the first training scenes (models/train_dominoes.py)."""
    return _truth_crops(seed, None)


def every_table_proposals(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The shipped locator's proposals on one scene over any training table, labelled by the truth."""
    scene = render_dominoes(seed, every_table_spec(seed))
    return _proposal_crops(scene.image, scene.tiles)


def _truth_and_proposals(seed: int, make_spec: Callable[[int], DominoSpec]) -> tuple[np.ndarray, np.ndarray]:
    """Truth crops of one scene and the shipped locator's proposals on it, from one render."""
    scene = render_dominoes(seed, make_spec(seed))
    sample = samples_of(scene, seed)
    proposed, proposed_labels = _proposal_crops(scene.image, scene.tiles)
    return np.concatenate([sample["crops"], proposed]), np.concatenate([sample["labels"], proposed_labels])


def dotted_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Truth crops and proposals of one scene over a dotted cloth: patches of cloth whose dots lie at a tile's
    pip spacing, which a reader that never saw such a cloth reads as 5|5 or 4|4."""
    return _truth_and_proposals(seed, dotted_spec)


def ridged_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Truth crops and proposals of one scene of a set whose divider is a ridge of the tiles' own material,
    over any training table: only a thin highlight and a shade mark the divider, and a reader that never saw
    one doubted the tile (17 of 22 ridged tiles missed on tuning scenes had a proposal from the locator)."""
    return _truth_and_proposals(seed, ridged_spec)


def noted_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Paper notes written on by hand beside a game (models/synth/notes.py): a row of pi's digits or a tally is
    tile-shaped and spotted, and a reader that never saw one read it as 9|9 or 6|6. Odd seeds: truth crops and
    proposals of a tile scene over any training table with such notes beside it; even seeds: the proposals on a
    card scene with them, none a tile."""
    if seed % 2:
        return _truth_and_proposals(seed, noted_spec)
    return _proposal_crops(render_scene(seed, SceneSpec(split="train", written_notes=True)).image, [])


class Block(NamedTuple):
    seed: int  # the first scene's
    crops_of: Callable[[int], tuple[np.ndarray, np.ndarray]]
    cache: str  # the name its crops are cached under in data/
    what: str  # for the manifest, of `n` scenes


BLOCKS = {
    "pattern": Block(
        PATTERN_SEED, pattern_crops, "pips-patterns", "truth crops of {n} scenes over PATTERN_TRAIN_TABLES"
    ),
    "varied": Block(
        VARIED_SEED,
        every_table_crops,
        "pips-varied",
        "truth crops of {n} scenes over every training table, two in five tilted up to 62 degrees",
    ),
    "proposals": Block(
        VARIED_PROPOSAL_SEED,
        every_table_proposals,
        "pips-proposed",
        "the shipped locator's proposals on {n} scenes over every training table",
    ),
    "old": Block(1, training_crops, "pips-old", "truth crops of the first {n} training scenes"),
    "old proposals": Block(
        PROPOSAL_SEED, proposal_crops, "dominoes-proposals", "the locator's proposals on {n} training scenes"
    ),
    "free": Block(
        FREE_SEED, domino_free_crops, "dominoes-free", "the locator's proposals on {n} frames with no domino"
    ),
    "dotted": Block(
        DOTTED_SEED,
        dotted_crops,
        "pips-dotted",
        "truth crops and the locator's proposals on {n} scenes over DOT_TRAIN_TABLES",
    ),
    "ridged": Block(
        RIDGED_SEED,
        ridged_crops,
        "pips-ridged",
        "truth crops and the locator's proposals on {n} scenes over every training table, every divider a ridge",
    ),
    "noted": Block(
        NOTED_SEED,
        noted_crops,
        "pips-noted",
        "truth crops and the locator's proposals on {n} scenes with notes written on by hand beside the tiles "
        "(odd seeds), the proposals on card scenes with such notes (even seeds)",
    ),
}


def finetune(
    pattern_scenes: int = typer.Option(1200, help="scenes over PATTERN_TRAIN_TABLES: truth crops"),
    varied_scenes: int = typer.Option(800, help="scenes over every training table: truth crops"),
    proposal_scenes: int = typer.Option(1500, help="scenes over every training table: the locator's proposals"),
    old_scenes: int = typer.Option(1000, help="first training scenes: truth crops, so nothing is forgotten"),
    old_proposal_scenes: int = typer.Option(1200, help="training scenes: the locator's proposals"),
    free_scenes: int = typer.Option(1000, help="frames with no domino: the locator's proposals, all no tile"),
    dotted_scenes: int = typer.Option(0, help="scenes over a dotted cloth: truth crops and the locator's proposals"),
    ridged_scenes: int = typer.Option(0, help="scenes of ridged dividers: truth crops and the locator's proposals"),
    noted_scenes: int = typer.Option(
        0, help="scenes with notes written on by hand (half of them card scenes): truth crops and proposals"
    ),
    epochs: int = typer.Option(2),
    lr: float = typer.Option(5e-4, help="peak learning rate"),
    blur_share: float = typer.Option(0.35, help="share of each batch's crops blurred as by a moving camera"),
    blur_lengths: str = typer.Option("3,5,7,9,11", help="the blur's lengths in crop pixels"),
    seed: int = typer.Option(4),
    start: Path = typer.Option(PIPS_PATH, help="the exported reader to train on from"),
    out: Path = typer.Option(BLURRED_MODEL_PATH, help="the ONNX model to write; its manifest goes beside it"),
) -> None:
    """Collect (or load) the crops, train the reader on from `start`, export it with its manifest."""
    import torch

    torch.set_num_threads(1)  # the machine is shared: one core for training
    scenes = {
        "pattern": pattern_scenes, "varied": varied_scenes, "proposals": proposal_scenes, "old": old_scenes,
        "old proposals": old_proposal_scenes, "free": free_scenes, "dotted": dotted_scenes, "ridged": ridged_scenes,
        "noted": noted_scenes,
    }  # fmt: skip
    used = {name: n for name, n in scenes.items() if n}
    blocks = {
        name: build_proposals(BLOCKS[name].seed, n, BLOCKS[name].crops_of, BLOCKS[name].cache)
        for name, n in used.items()
    }
    for name, block in blocks.items():
        print(f"{name}: {len(block['crops'])} crops, {int(block['labels'][:, 2].sum())} of them tiles")
    data = {k: np.concatenate([b[k] for b in blocks.values()]) for k in ("crops", "labels")}
    val = build_dataset(20_000_000, 150, "dominoes-val-heldout", split="heldout")
    lengths = tuple(int(k) for k in blur_lengths.split(","))
    report = train_pip_reader(data, val, epochs, seed, out, start, lr, blur_share, lengths)
    described = "; ".join(f"{BLOCKS[name].what.format(n=n)} (seeds {BLOCKS[name].seed}..)" for name, n in used.items())
    write_pip_manifest(
        out,
        {"trained_on_from": f"{start.name} (its ONNX weights; how it was trained: models/dominoes.md)",
         "seed": seed, "max_lr": lr,
         "data": f"models/synth/dominoes.py renders, split=train: {described}",
         "blocks": {name: len(block["crops"]) for name, block in blocks.items()},
         **report},
    )  # fmt: skip
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


if __name__ == "__main__":
    typer.run(finetune)
