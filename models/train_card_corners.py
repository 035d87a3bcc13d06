"""Train the card-corner network on synthetic renders and export it to ONNX.

    python -m models.train_card_corners [--scenes 1500] [--streaked-scenes 800] [--touching-scenes 0]
        [--inked-scenes 0] [--epochs 12] [--start ONNX]

Each sample is a loose outline of a card in a rendered training scene (train fonts, designs and tables only;
in a second block, bands across the cards as the card locator learns them; in a third, Tempus lines laid
touching, as the card locator learns them too; in a fourth, dark cards crossed by bands in their ink, the
locator's `inked_spec`) and the card's true corners in the outline's own order. The
loose outlines are the truth moved, scaled, stretched and turned at random, and the outlines the run-time
proposers give (edge outlines, the card locator's outlines before and after their rim search) wherever one
clearly belongs to one card. Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import typer

from models.datasets import render_cached, render_joined
from models.synth.scenes import SceneSpec, render_scene
from models.train_card_locator import (
    STREAKED_SHARE,
    TOUCHING_SEED,
    TRAINING_TOUCHING_GAP_MM,
    inked_spec,
    touching_spec,
)
from models.train_cards import augment, training_spec
from models.training import export_onnx, fit_epochs, load_exported_weights
from vision.cards.corners import MODEL_PATH
from vision.cards.locate import locate_card_quads
from vision.cards.refine import refine_quad
from vision.corners import ANCHORS, CROP, EXPAND, neighbourhood
from vision.crops import to_tensor
from vision.geometry import order_clockwise, quad_iou

_locator = None  # one per worker process
STREAKED_SEED = 42_000_000  # training-split scenes no other trainer renders
# The locator's inked kind of scene, not its seeds: the locator's outlines on its own training scenes fit too well.
INKED_SEED = 65_000_000


def loose_outline(rng: random.Random, corners: np.ndarray) -> np.ndarray:
    """The card's outline as a proposer might miss it: shifted, scaled on each axis, turned, corners nudged."""
    center = corners.mean(axis=0)
    size = math.sqrt(cv2.contourArea(corners.astype(np.float32)))
    reach = rng.choice((0.04, 0.1, 0.2))  # most proposals are near; some are far off
    angle = rng.gauss(0, 10 * reach / 0.1) * math.pi / 180
    turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    stretch = np.array([math.exp(rng.gauss(0, reach * 1.5)), math.exp(rng.gauss(0, reach * 1.5))])
    moved = ((corners - center) * stretch) @ turn.T + center
    moved = moved + np.array([rng.gauss(0, reach * size), rng.gauss(0, reach * size)])
    moved = moved + np.array([[rng.gauss(0, reach * 0.3 * size) for _ in range(2)] for _ in range(4)])
    return order_clockwise(moved.astype(np.float32))


def in_outline_order(outline: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card's corners turned so the i-th is the one the outline's i-th corner stands for."""
    shifts = [np.roll(corners, -k, axis=0) for k in range(4)]
    return min(shifts, key=lambda c: float(np.linalg.norm(c - outline, axis=1).sum()))


def proposals(image: np.ndarray) -> list[np.ndarray]:
    """The outlines the run-time proposers give for this frame."""
    global _locator
    if _locator is None:
        from vision.cards.centres import CardLocator

        _locator = CardLocator()
    loose = [q for _, q in _locator.read(image)[0]]
    return [order_clockwise(q) for q in locate_card_quads(image)] + loose + [refine_quad(image, q) for q in loose]


def scene_samples(seed: int, split: str = "train", streaks: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Crops of loose outlines (N, CROP, CROP, 3) and the true corners' offsets from the outline's own corners
    in crop units (N, 8); `streaks` of the scene's cards crossed by a band."""
    return _samples(seed, replace(training_spec(seed, split), streaks=streaks))


def touching_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """scene_samples of a training-split Tempus line laid touching (the locator's `touching_spec`): a card half
    under the next has its neighbour's edge across it, and the corner network had seen none."""
    return _samples(seed, touching_spec(seed))


def inked_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """scene_samples of the locator's `inked_spec` scenes: dark cards crossed by a band in their ink, whose
    outlines the corner network pulled in onto the numeral or a printed frame."""
    return _samples(seed, inked_spec(seed))


def _samples(seed: int, spec: SceneSpec) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    scene = render_scene(seed, spec)
    truths = [c.corners.astype(np.float32) for c in scene.cards]
    return outline_samples(scene.image, truths, proposals(scene.image), rng)


def outline_samples(
    image: np.ndarray, truths: list[np.ndarray], outlines: list[np.ndarray], rng: random.Random
) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, CROP, CROP, 3) of three loose outlines of each object whose corners are in `truths`, and of
    each of the proposers' `outlines` that clearly belongs to one object; with the object's corners' offsets
    from the outline's own corners in crop units (N, 8)."""
    pairs = [(loose_outline(rng, t), t) for t in truths for _ in range(3)]
    for outline in outlines:
        ious = sorted(((quad_iou(outline, t), i) for i, t in enumerate(truths)), reverse=True)
        # An outline over two touching objects belongs to neither: no answer to learn from it.
        if ious and ious[0][0] > 0.3 and (len(ious) == 1 or ious[1][0] < 0.5 * ious[0][0]):
            pairs.append((outline, truths[ious[0][1]]))
    crops, offsets = [], []
    for outline, truth in pairs:
        crop, to_crop = neighbourhood(image, outline)
        target = cv2.perspectiveTransform(in_outline_order(outline, truth)[None], to_crop)[0]
        crops.append(crop)
        offsets.append(((target - ANCHORS) / CROP).reshape(8))
    if not crops:
        return np.zeros((0, CROP, CROP, 3), np.uint8), np.zeros((0, 8), np.float32)
    return np.stack(crops), np.array(offsets, np.float32)


def heldout_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return scene_samples(seed, "heldout")


def streaked_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """scene_samples with bands across the cards, as the card locator learns them."""
    return scene_samples(seed, streaks=STREAKED_SHARE)


def make_model(batch_norm: bool = True):
    """The corner network; without `batch_norm` it has the shape of its ONNX export (the normalisation folded
    into the convolutions), to train on from there."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> nn.Sequential:
        if not batch_norm:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)
        )

    # Where things are matters here, so the last map is flattened rather than pooled.
    return nn.Sequential(
        block(3, 16),  # 32
        block(16, 32),  # 16
        block(32, 64),  # 8
        block(64, 64),  # 4
        nn.Flatten(),
        nn.Linear(64 * 16, 128),
        nn.ReLU(),
        nn.Linear(128, 8),
    )


def corner_error(model, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Median corner error in crop pixels before (the loose outline) and after the network."""
    import torch

    with torch.no_grad():
        pred = np.concatenate(
            [model(torch.from_numpy(to_tensor(x[i : i + 512]))).numpy() for i in range(0, len(x), 512)]
        )
    before = np.linalg.norm(y.reshape(-1, 4, 2), axis=2) * CROP
    after = np.linalg.norm((y - pred).reshape(-1, 4, 2), axis=2) * CROP
    return float(np.median(before)), float(np.median(after))


def main(
    scenes: int = typer.Option(1500, help="training scenes to render"),
    val_scenes: int = typer.Option(200, help="validation scenes (held-out fonts, designs, tables)"),
    streaked_scenes: int = typer.Option(800, help="more training scenes with bands across cards"),
    touching_scenes: int = typer.Option(0, help="more: training-split Tempus lines laid touching"),
    inked_scenes: int = typer.Option(0, help="more: training scenes of dark cards crossed by bands in their ink"),
    epochs: int = typer.Option(12),
    max_lr: float = typer.Option(2e-3),
    seed: int = typer.Option(0),
    start: Path | None = typer.Option(None, help="train on from this exported network instead of from scratch"),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render, train, export."""
    import torch

    torch.manual_seed(seed)
    # v2: the proposals are the card locator's (v1 held the card-core segmenter's).
    x_train, y_train = render_joined(
        [
            ("card-corners-train-v2", scene_samples, 1, scenes),
            ("card-corners-streaked", streaked_samples, STREAKED_SEED, streaked_scenes),
            ("card-corners-touching", touching_samples, TOUCHING_SEED, touching_scenes),
            ("card-corners-inked", inked_samples, INKED_SEED, inked_scenes),
        ]
    )
    x_val, y_val = render_cached("card-corners-heldout-v2", heldout_samples, 10_000_000, val_scenes)
    model = make_model() if start is None else load_exported_weights(make_model(batch_norm=False), start)
    previous = None if start is None else json.loads(start.with_suffix(".json").read_text())["training"]
    training = {
        **({"trained_on_from": previous} if previous else {}),
        "scenes": scenes,
        "streaked_scenes": streaked_scenes,
        "streaked_share": STREAKED_SHARE,
        **(
            {"touching_scenes": touching_scenes, "touching_gap_mm": TRAINING_TOUCHING_GAP_MM} if touching_scenes else {}
        ),
        **({"inked_scenes": inked_scenes, "inked_seed": INKED_SEED} if inked_scenes else {}),
        "epochs": epochs,
        "max_lr": max_lr,
        "seed": seed,
        "data": "models/synth renders, split=train, and streaked_scenes more with bands across streaked_share "
        "of their cards; validation split=heldout (fonts, designs, tables)",
    }
    fit_and_export(model, (x_train, y_train), (x_val, y_val), out, "card", training)


Samples = tuple[np.ndarray, np.ndarray]  # crops (N, CROP, CROP, 3), offsets (N, 8)


def fit_and_export(model, train: Samples, val: Samples, out: Path, thing: str, training: dict) -> None:
    """Train a corner network on `train` (crops, offsets) for `training`'s epochs at its max_lr and seed, then
    export it to `out` with a manifest: `training` with the outlines counted and the held-out corner error on
    `val`. `thing` names what the corners are of ("card", "tile")."""
    import torch
    import torch.nn.functional as F

    (x_train, y_train), (x_val, y_val) = train, val
    print(f"train outlines {len(x_train)}, validation outlines {len(x_val)}")
    yt = torch.from_numpy(y_train)
    started = time.time()

    def batch_loss(idx, generator):
        batch = torch.from_numpy(to_tensor(x_train[idx.numpy()]))
        return F.smooth_l1_loss(model(augment(batch, generator)), yt[idx], beta=0.02)

    def evaluate() -> tuple[tuple[float, float], str]:
        before, after = corner_error(model, x_val, y_val)
        return (before, after), f"held-out corner error {after:.2f} px (loose {before:.2f})"

    epochs, max_lr, seed = training["epochs"], training["max_lr"], training["seed"]
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
            "meaning": f"per outline corner, in its order: (dx, dy) from where it lands in the crop to the {thing}'s "
            "own corner, in crop widths",
        },
        "training": {
            **training,
            "outlines": len(x_train),
            "heldout_median_corner_error_px": round(after, 2),
            "heldout_median_loose_error_px": round(before, 2),
            "seconds": round(time.time() - started),
        },
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


if __name__ == "__main__":
    typer.run(main)
