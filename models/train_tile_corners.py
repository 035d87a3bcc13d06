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

import json
import random
import time
from pathlib import Path

import cv2
import numpy as np
import typer

from models.datasets import render_cached
from models.synth.dominoes import render_dominoes
from models.synth.tables import PATTERN_TRAIN_TABLES
from models.train_card_corners import corner_error, in_outline_order, loose_outline, make_model
from models.train_cards import augment
from models.train_dominoes import training_spec, varied_spec
from models.training import export_onnx, fit_epochs
from vision.corners import ANCHORS, CROP, EXPAND, neighbourhood
from vision.crops import to_tensor
from vision.dominoes.corners import MODEL_PATH
from vision.dominoes.locate import decode, letterbox
from vision.geometry import order_clockwise, quad_iou

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
    return [frame.scaled(1 / scale).corners() for _, frame in decode(_locator.maps(canvas))]


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
    pairs = [(loose_outline(rng, t), t) for t in truths for _ in range(3)]
    for outline in proposals(scene.image):
        outline = order_clockwise(outline)
        ious = sorted(((quad_iou(outline, t), i) for i, t in enumerate(truths)), reverse=True)
        # An outline over two touching tiles belongs to neither: no answer to learn from it.
        if ious and ious[0][0] > 0.3 and (len(ious) == 1 or ious[1][0] < 0.5 * ious[0][0]):
            pairs.append((outline, truths[ious[0][1]]))
    crops, offsets = [], []
    for outline, truth in pairs:
        crop, to_crop = neighbourhood(scene.image, outline)
        target = cv2.perspectiveTransform(in_outline_order(outline, truth)[None], to_crop)[0]
        crops.append(crop)
        offsets.append(((target - ANCHORS) / CROP).reshape(8))
    if not crops:
        return np.zeros((0, CROP, CROP, 3), np.uint8), np.zeros((0, 8), np.float32)
    return np.stack(crops), np.array(offsets, np.float32)


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
    import torch.nn.functional as F

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    x_train, y_train = render_cached("tile-corners-train", scene_samples, FIRST_SEED, scenes)
    x_val, y_val = render_cached("tile-corners-heldout", heldout_samples, HELDOUT_SEED, val_scenes)
    print(f"train outlines {len(x_train)}, validation outlines {len(x_val)}")
    yt = torch.from_numpy(y_train)
    model = make_model()
    started = time.time()

    def batch_loss(idx, generator):
        batch = torch.from_numpy(to_tensor(x_train[idx.numpy()]))
        return F.smooth_l1_loss(model(augment(batch, generator)), yt[idx], beta=0.02)

    def evaluate() -> tuple[tuple[float, float], str]:
        before, after = corner_error(model, x_val, y_val)
        return (before, after), f"held-out corner error {after:.2f} px (loose {before:.2f})"

    before, after = fit_epochs(model, len(x_train), epochs, max_lr, seed, batch_loss, evaluate)
    export_onnx(model, (1, 3, CROP, CROP), out, "crops", "offsets")
    manifest = {
        "model": out.name,
        "input": {
            "name": "crops",
            "shape": ["n", 3, CROP, CROP],
            "layout": "NCHW BGR",
            "crop": f"the outline scaled by {EXPAND} about its centre, warped to a {CROP}x{CROP} square",
            "normalisation": "per crop: (x - mean) / (std + 8), over all pixels and channels",
        },
        "output": {
            "name": "offsets",
            "meaning": "per outline corner, in its order: (dx, dy) from where it lands in the crop to the tile's "
            "own corner, in crop widths",
        },
        "training": {
            "scenes": scenes,
            "first_seed": FIRST_SEED,
            "outlines": len(x_train),
            "epochs": epochs,
            "max_lr": max_lr,
            "seed": seed,
            "data": "models/synth/dominoes.py renders, split=train: even seeds the training mix, odd seeds the "
            "locator's fine-tuning mix over PATTERN_TRAIN_TABLES (two in five tilted up to VARIED_TILT); loose "
            "outlines and the locator's proposals; validation split=heldout",
            "heldout_median_corner_error_px": round(after, 2),
            "heldout_median_loose_error_px": round(before, 2),
            "seconds": round(time.time() - started),
        },
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


if __name__ == "__main__":
    typer.run(main)
