"""Train the tile-corner network on synthetic domino renders and export it to ONNX.

    python -m models.train_tile_corners [--scenes 2000] [--epochs 6] [--threads 2]

The card-corner network's task (models/train_card_corners.py), on domino tiles: each sample is a loose
outline of a tile in a rendered training scene and the tile's true corners in the outline's own order. The
loose outlines are the truth moved, scaled, stretched and turned at random, and the domino locator's own
proposals wherever one clearly belongs to one tile. Half the scenes are the locator's fine-tuning mix (busy
training cloths, two views in five tilted up to VARIED_TILT). The same network shape and crop serve both.
Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import typer

from models.datasets import render_cached
from models.synth.dominoes import render_dominoes
from models.synth.tables import PATTERN_TRAIN_TABLES
from models.train_card_corners import fit_and_export, make_model, outline_samples
from models.train_dominoes import training_spec, varied_spec
from vision.dominoes.corners import MODEL_PATH
from vision.dominoes.locate import decode, letterbox
from vision.geometry import order_clockwise

FIRST_SEED = 44_000_000  # training-split domino scenes no other trainer renders
HELDOUT_SEED = 54_000_000  # held-out scenes no evaluation reads
_locator = None  # one per worker process


def proposals(image: np.ndarray) -> list[np.ndarray]:
    """The domino locator's outlines on this frame (image px)."""
    global _locator
    if _locator is None:
        from vision.dominoes.locate import TileLocator

        _locator = TileLocator(threads=1)
    canvas, scale = letterbox(image)
    return [order_clockwise(frame.scaled(1 / scale).corners()) for _, frame in decode(_locator.maps(canvas))]


def scene_samples(seed: int, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Crops of loose tile outlines (N, CROP, CROP, 3) and the true corners' offsets from the outline's own
    corners in crop units (N, 8)."""
    rng = random.Random(seed)
    if split == "train" and seed % 2:
        spec = varied_spec(seed, tables=PATTERN_TRAIN_TABLES)
    else:
        spec = training_spec(seed, split)
    scene = render_dominoes(seed, spec)
    truths = [np.asarray(t.corners, np.float32) for t in scene.tiles]
    return outline_samples(scene.image, truths, proposals(scene.image), rng)


def heldout_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return scene_samples(seed, "heldout")


def main(
    scenes: int = typer.Option(2000, help="training scenes to render"),
    val_scenes: int = typer.Option(150, help="validation scenes (held-out tile styles, tables, steep views)"),
    epochs: int = typer.Option(6),
    max_lr: float = typer.Option(2e-3),
    seed: int = typer.Option(0),
    threads: int = typer.Option(1, help="torch threads"),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render, train, export."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    train = render_cached("tile-corners-train", scene_samples, FIRST_SEED, scenes)
    val = render_cached("tile-corners-heldout", heldout_samples, HELDOUT_SEED, val_scenes)
    training = {
        "scenes": scenes,
        "first_seed": FIRST_SEED,
        "epochs": epochs,
        "max_lr": max_lr,
        "seed": seed,
        "data": "models/synth/dominoes.py renders, split=train: even seeds the training mix, odd seeds the "
        "locator's fine-tuning mix over PATTERN_TRAIN_TABLES (two in five tilted up to VARIED_TILT); loose "
        "outlines and the locator's proposals; validation split=heldout",
    }
    fit_and_export(make_model(), train, val, out, "tile", training)


if __name__ == "__main__":
    typer.run(main)
