"""Train the stick-pair network (vision/sticks/pairs.py) on synthetic heaps and export it to ONNX.

    python -m models.train_stick_pairs [--scenes 1500] [--broken-scenes 800] [--val-scenes 200] [--epochs 20]

Each training scene is a heap of pick-up sticks (models/synth/sticks.py, split=train, a quarter of them every
stick of the thin mikado material) or, in a second block, a broken DIGIT layout, whose sticks meet end to end;
each is read by the stick recogniser as shipped without the pair network. The samples are strips (`strips`)
along what the network will be asked about: the sticks read, every pair of the heap network's end peaks a
stick's span apart (`candidate_pairs`), and the true sticks with their ends nudged.
A strip is a stick where both its ends lie within the evaluation's tolerance of one true stick's
(`end_tolerance`: 8 px or 15 % of the stick). Wrong pairs outnumber right ones ten to one; at
most NEGATIVES_PER_POSITIVE of them are kept a scene. Validation is on held-out heaps (stick styles and tables
training never saw). Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import json
import random
import time
from functools import cache
from pathlib import Path

import numpy as np
import typer

from models.datasets import render_cached, render_joined
from models.evaluate_sticks import end_tolerance
from models.synth.sticks import StickSceneSpec, render_stick_scene
from models.training import export_onnx, fit_epochs
from vision.crops import to_tensor
from vision.geometry import window_part
from vision.sticks.detections import median_length
from vision.sticks.heaps import heap_window
from vision.sticks.lattice import end_distance
from vision.sticks.pairs import MODEL_PATH, STRIP, candidate_pairs, strips

TRAIN_SEED = 78_500_000  # training-split heaps no other trainer renders
BROKEN_SEED = 78_600_000
VAL_SEED = 79_500_000
MIKADO_SHARE = 0.25
NEGATIVES_PER_POSITIVE = 3
NUDGE = 0.03  # of a true stick's length: the spread of the nudges given its ends
CACHE = "stick-pairs-v1"


@cache
def _recognizer():
    from vision.sticks.recognize import StickRecognizer

    return StickRecognizer(pairs=False)


def is_stick(segment: np.ndarray, truth: np.ndarray) -> bool:
    """Whether both ends of `segment` lie within the evaluation's tolerance of one true stick's (truth n x 2 x 2)."""
    return any(end_distance(segment, t) <= end_tolerance(t) for t in truth)


def pair_samples(seed: int, split: str = "train", kind: str = "pickup") -> tuple[np.ndarray, np.ndarray]:
    """Strips (n, STRIP[1], STRIP[0], 3) and labels (n,) from the heap (or scene of `kind`) rendered from `seed`."""
    rng = random.Random(seed)
    material = "mikado" if kind == "pickup" and rng.random() < MIKADO_SHARE else None
    empty = np.zeros((0, STRIP[1], STRIP[0], 3), np.uint8), np.zeros(0, np.float32)
    try:
        scene = render_stick_scene(seed, StickSceneSpec(split=split, kind=kind, material=material))
    except RuntimeError:  # a few seeds' sticks fit no camera in the tries the renderer makes
        return empty
    recognizer = _recognizer()
    sticks, _ = recognizer(scene.image)
    if len(sticks) < 2:
        return empty
    found = np.array([s.ends for s in sticks], np.float64)
    window = heap_window(found, scene.image.shape[1::-1])
    crop = window_part(scene.image, window)
    offset = np.array(window[:2], np.float64)
    readings = recognizer.heap_locator.read(crop)
    found -= offset
    truth = np.array([s.ends for s in scene.sticks], np.float64) - offset
    median = median_length(sticks)
    _, pairs = candidate_pairs(readings.end_points, readings.end_scores, median)
    nprng = np.random.default_rng(seed)
    lengths = np.linalg.norm(truth[:, 1] - truth[:, 0], axis=1)
    nudged = truth + nprng.normal(0, NUDGE, truth.shape) * lengths[:, None, None]
    segments = np.concatenate([found, pairs.reshape(-1, 2, 2), nudged])
    labels = np.array([is_stick(s, truth) for s in segments], np.float32)
    positives, negatives = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    keep = nprng.permutation(negatives)[: NEGATIVES_PER_POSITIVE * max(len(positives), 3)]
    chosen = np.sort(np.concatenate([positives, keep]))
    return strips(crop, segments[chosen]), labels[chosen]


def heldout_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return pair_samples(seed, "heldout")


def broken_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """From a broken DIGIT layout: its sticks meet end to end, where a heap's seldom do, and a broken layout
    read with stray readings is read as a heap."""
    return pair_samples(seed, "train", "illegal")


def make_model():
    import torch.nn as nn

    def block(cin: int, cout: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))

    # Where along the strip a body stops matters (a stick ends at both ends, not before), so the last map is
    # flattened rather than pooled.
    return nn.Sequential(
        block(3, 24),  # 8 x 32
        block(24, 48),  # 4 x 16
        block(48, 64),  # 2 x 8
        nn.Flatten(),
        nn.Linear(64 * (STRIP[1] // 8) * (STRIP[0] // 8), 96),
        nn.ReLU(),
        nn.Linear(96, 1),
    )


def flipped(batch, generator):
    """Strips turned end for end and mirrored across at random: a stick is the same read from either end."""
    import torch

    along = torch.rand(len(batch), generator=generator) < 0.5
    across = torch.rand(len(batch), generator=generator) < 0.5
    batch = torch.where(along[:, None, None, None], batch.flip(3), batch)
    return torch.where(across[:, None, None, None], batch.flip(2), batch)


def scores(model, x: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        return np.concatenate(
            [
                torch.sigmoid(model(torch.from_numpy(to_tensor(x[i : i + 1024])))).numpy().reshape(-1)
                for i in range(0, len(x), 1024)
            ]
        )


def main(
    scenes: int = typer.Option(1500, help="training heaps to render and read"),
    broken_scenes: int = typer.Option(800, help="training broken DIGIT layouts to render and read"),
    val_scenes: int = typer.Option(200, help="held-out heaps to validate on"),
    epochs: int = typer.Option(20),
    max_lr: float = typer.Option(2e-3),
    seed: int = typer.Option(0),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render and read heaps, train, export."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    x_train, y_train = render_joined(
        [
            (f"{CACHE}-train", pair_samples, TRAIN_SEED, scenes),
            (f"{CACHE}-broken", broken_samples, BROKEN_SEED, broken_scenes),
        ]
    )
    x_val, y_val = render_cached(f"{CACHE}-heldout", heldout_samples, VAL_SEED, val_scenes)
    print(f"train strips {len(x_train)} ({int(y_train.sum())} sticks), validation {len(x_val)} ({int(y_val.sum())})")
    model = make_model()
    yt = torch.from_numpy(y_train)
    started = time.time()

    def batch_loss(idx, generator):
        batch = flipped(torch.from_numpy(to_tensor(x_train[idx.numpy()])), generator)
        return F.binary_cross_entropy_with_logits(model(batch).reshape(-1), yt[idx])

    def evaluate() -> tuple[dict, str]:
        held = scores(model, x_val) >= 0.5
        truth = y_val == 1
        figures = {
            "precision": round(float((held & truth).sum() / max(held.sum(), 1)), 4),
            "recall": round(float((held & truth).sum() / max(truth.sum(), 1)), 4),
        }
        return figures, f"held-out precision {figures['precision']:.3f}, recall {figures['recall']:.3f}"

    figures = fit_epochs(model, len(x_train), epochs, max_lr, seed, batch_loss, evaluate, batch=256, title="pairs")
    export_onnx(model, (1, 3, STRIP[1], STRIP[0]), out, "strips", "logits")
    manifest = {
        "model": out.name,
        "input": {
            "name": "strips",
            "shape": ["n", 3, STRIP[1], STRIP[0]],
            "layout": "NCHW BGR",
            "strip": "the picture along a pair of points, each a share STRIP_PAST of their span in from its end "
            "(vision/sticks/pairs.py, `strips`), pixels square",
            "normalisation": "per strip: (x - mean) / (std + 8), over all pixels and channels",
        },
        "output": {"name": "logits", "meaning": "one stick lies from one point to the other (sigmoid)"},
        "training": {
            "scenes": scenes,
            "broken_scenes": broken_scenes,
            "broken_seed": BROKEN_SEED,
            "val_scenes": val_scenes,
            "train_seed": TRAIN_SEED,
            "val_seed": VAL_SEED,
            "mikado_share": MIKADO_SHARE,
            "negatives_per_positive": NEGATIVES_PER_POSITIVE,
            "epochs": epochs,
            "max_lr": max_lr,
            "seed": seed,
            "strips": len(x_train),
            "heldout": figures,
            "seconds": round(time.time() - started),
            "data": "models/synth/sticks.py heaps and broken_scenes broken DIGIT layouts (split=train), read by the "
            "stick recogniser without this network: the sticks it read, pairs of the heap network's end peaks a "
            "stick's span apart, and the true sticks nudged; validation on split=heldout heaps",
        },
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


if __name__ == "__main__":
    typer.run(main)
