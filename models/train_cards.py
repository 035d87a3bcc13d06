"""Train the digit-card classifier on synthetic renders and export it to ONNX.

    python -m models.train_cards [--scenes 2500] [--mat-views 300] [--epochs 10]

Crops come from rendered training scenes (train fonts, designs and tables only): card outlines from the
truth with a little corner jitter, the same outlines read the wrong way round, the locator's own
proposals (so the model sees the outlines it will be given at run time) and everything else the locator
proposes as "not a card". Needs the `train` extra (torch, onnx); the runtime never imports torch.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import typer

from models.datasets import render_cached
from models.locator_training import block
from models.synth.scenes import SceneSpec, TruthCard, render_scene, split_fonts
from models.training import export_onnx, fit_epochs
from rules.pi import PI_DECIMALS
from vision.cards.artwork import FACE_CLASSES, CardFace
from vision.cards.classify import (
    CROP_SIZE,
    MODEL_PATH,
    N_CLASSES,
    N_FACES,
    NOT_CARD,
    SIDEWAYS,
    class_names,
    crop_card,
)
from vision.cards.locate import locate_card_quads
from vision.crops import to_tensor
from vision.geometry import order_clockwise, portrait_order, quad_iou

FACE_INDEX = {f: i for i, f in enumerate(FACE_CLASSES)}
CHUNK = 1500
STREAK_SHARE = 0.4
STREAK_MIN_TILT = math.radians(25)
INK_STREAK_SHARE = 0.5  # of the streaks, drawn in the crop's own ink colour


def training_spec(seed: int, split: str = "train") -> SceneSpec:
    """The mix of scenes: scattered tables, Tempus rows and grids, close-ups."""
    rng = random.Random(seed * 7919)
    kind = rng.random()
    if kind < 0.4:
        return SceneSpec(split=split)
    if kind < 0.7:
        return tempus_line_spec(rng, split)
    if kind < 0.85:
        return SceneSpec(split=split, n_cards=(2, 8), card_px=(120, 320), max_tilt=45)
    return SceneSpec(split=split, n_cards=(1, 3), card_px=(250, 620), max_tilt=35)


def tempus_line_spec(rng: random.Random, split: str, gap_mm: tuple[float, float] | None = None) -> SceneSpec:
    """A Tempus line: the Starter and 5-20 digits of pi from a random place, in a row or a grid, one deck's
    design; the cards `gap_mm` apart (negative: each laid over the one before), else the renderer's gaps."""
    start = rng.randint(0, 30)
    n = rng.randint(5, 20)
    faces = (
        CardFace("starter", (3,)),
        *(CardFace("digit", (d,)) for d in PI_DECIMALS[start : start + n]),
    )
    layout = "row" if n <= 10 and rng.random() < 0.5 else "grid"
    spec = SceneSpec(split=split, layout=layout, faces=faces, one_deck_style=True)
    return spec if gap_mm is None else replace(spec, gap_mm=gap_mm)


def _jitter(rng: random.Random, quad: np.ndarray, amount: float) -> np.ndarray:
    (ax, ay), (bx, by) = quad[1] - quad[0], quad[3] - quad[0]
    size = np.sqrt(abs(ax * by - ay * bx))
    return (quad + np.array([[rng.gauss(0, amount * size) for _ in range(2)] for _ in range(4)])).astype(np.float32)


def scene_crops(seed: int, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Labelled crops from one scene."""
    rng = random.Random(seed)
    scene = render_scene(seed, training_spec(seed, split))
    image = scene.image
    crops, labels = [], []

    def add(quad: np.ndarray, label: int) -> None:
        crops.append(crop_card(image, quad))
        labels.append(label)

    for card in scene.cards:
        face = FACE_INDEX[card.face]
        add(_jitter(rng, card.corners, 0.02), face)
        add(_jitter(rng, np.roll(card.corners, 2, axis=0), 0.02), face + N_FACES)
        if rng.random() < 0.5:
            add(_jitter(rng, np.roll(card.corners, rng.choice((1, 3)), axis=0), 0.02), SIDEWAYS)
    for quad in scene.distractors:
        add(np.roll(quad, rng.randint(0, 3), axis=0), NOT_CARD)
    for quad, label in labelled_proposals(locate_card_quads(image), scene.cards):
        add(quad, label)
    truths = [c.corners for c in scene.cards]
    h, w = image.shape[:2]
    for _ in range(4):  # plain table, or a box around several cards
        cx, cy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(40, 400)
        quad = np.array(
            [
                [cx - s * 0.36, cy - s / 2],
                [cx + s * 0.36, cy - s / 2],
                [cx + s * 0.36, cy + s / 2],
                [cx - s * 0.36, cy + s / 2],
            ],
            np.float32,
        )
        quad = order_clockwise(_jitter(rng, quad, 0.08))
        if all(quad_iou(quad, t) < 0.25 for t in truths):
            add(quad, NOT_CARD)
    return crop_batch(crops, labels)


def labelled_proposals(
    quads: list[np.ndarray], cards: list[TruthCard], card_iou: float = 0.8
) -> list[tuple[np.ndarray, int]]:
    """Proposed outlines with their labels: one that matches a card (IoU over `card_iou`) is that card's face,
    its corners put in the card's own order as the classifier will need to; one far from every card (under
    0.25) is not a card; the rest are left out."""
    labelled = []
    for quad in quads:
        ious = [quad_iou(quad, card.corners) for card in cards]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] > card_iou:
            truth = cards[best]
            start = int(np.argmin([np.linalg.norm(truth.corners[0] - p) for p in quad]))
            labelled.append((np.roll(quad, -start, axis=0), FACE_INDEX[truth.face]))
        elif not ious or max(ious) < 0.25:
            labelled.append((portrait_order(quad), NOT_CARD))
    return labelled


def mat_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Everything proposed on a view of the play mat is not a card: its markers, zones and edges.

    People play on the mat, so its ArUco markers must never read as digits."""
    from calibration.evaluate import mat_views
    from calibration.homography import detect_markers

    rng = random.Random(seed)
    view = next(mat_views(1, seed=seed))
    quads = locate_card_quads(view.frame)
    for corners in detect_markers(view.frame).corners:
        marker = order_clockwise(np.asarray(corners, np.float32).reshape(4, 2))
        center = marker.mean(axis=0)
        for grow in (1.0, rng.uniform(1.1, 1.8)):
            quads.append(order_clockwise(center + (marker - center) * grow))
    return not_card_crops(view.frame, quads, rng)


def crop_batch(crops: list[np.ndarray], labels: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels as arrays, (0, H, W, 3) and (0,) when there are none."""
    if not crops:
        return np.zeros((0, CROP_SIZE[1], CROP_SIZE[0], 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(labels, np.int64)


def not_card_crops(image: np.ndarray, quads: list[np.ndarray], rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """Every outline as "not a card", each crop either way up."""
    crops = [crop_card(image, np.roll(portrait_order(q), 2 * rng.randint(0, 1), axis=0)) for q in quads]
    return crop_batch(crops, [NOT_CARD] * len(crops))


def heldout_scene_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return scene_crops(seed, "heldout")


DATASETS = {"cards-train": scene_crops, "mat-negatives": mat_crops, "cards-heldout": heldout_scene_crops}


def build_dataset(first_seed: int, scenes: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    return render_cached(name, DATASETS[name], first_seed, scenes)


def make_model(batch_norm: bool = True):
    """The classifier; without `batch_norm` it has the shape of its ONNX export, where the normalisation is
    folded into the convolutions (models/finetune_cards.py trains on from there)."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> nn.Sequential:
        if not batch_norm:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU())
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

    return nn.Sequential(
        block(3, 16),
        nn.MaxPool2d(2),  # 32x24
        block(16, 32),
        nn.MaxPool2d(2),  # 16x12
        block(32, 48),
        block(48, 48),
        nn.MaxPool2d(2),  # 8x6
        block(48, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(96, N_CLASSES),
    )


def small_classifier(widths: tuple[int, int, int, int], classes: int):
    """Four 3x3 convolution blocks of `widths` channels, a 2x2 pooling after each of the first three, global
    average pooling and one linear layer: the shape of the small checks that read a card's crop (the face-down
    check, the corner-index network)."""
    import torch.nn as nn

    layers: list = []
    for k, (cin, cout) in enumerate(zip((3, *widths[:-1]), widths, strict=True)):
        layers.append(block(cin, cout))
        if k < len(widths) - 1:
            layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(widths[-1], classes))


def augment(x, generator, streak_share: float = 0.0):
    """Cheap variety on top of the renders: contrast, noise and, in `streak_share` of the crops, a streak.
    Polarity is never inverted, since that would invent dark cards the deck may not have.

    A streak is a straight band of one colour across the crop at any angle: a glare line on a glossy card,
    the shadow of a pen, a printed stripe. Decks and rooms have many such, and no face should hinge on the
    numeral being whole. Half the streaks take the numeral's own colour, as a printed sash or a pen stroke
    would."""
    import torch

    n, _, h, w = x.shape

    def uniform(*shape: int):
        return torch.rand(n, *shape, generator=generator)

    ink = _ink_colour(x)
    gain = 1 + 0.25 * (uniform(1, 1, 1) - 0.5)
    noise = 0.08 * torch.randn(x.shape, generator=generator)
    x = x * gain + noise
    if not streak_share:
        return x
    ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
    # Never near level in the card's frame: a level streak under a numeral would pass for the underline
    # that tells a 6 from a 9.
    angle = STREAK_MIN_TILT + uniform(1, 1) * (torch.pi - 2 * STREAK_MIN_TILT)
    # Through a point in the crop's middle three fifths, where the numeral is.
    x0, y0 = (0.2 + 0.6 * uniform(1, 1)) * w, (0.2 + 0.6 * uniform(1, 1)) * h
    across = (xs - x0) * torch.sin(angle) - (ys - y0) * torch.cos(angle)
    width = 1 + uniform(1, 1) * 0.2 * w
    on = (uniform(1, 1) < streak_share).float()
    alpha = ((across.abs() < width / 2).float() * on * (0.4 + 0.6 * uniform(1, 1)))[:, None]
    colour = 4 * uniform(3, 1, 1) - 2  # crops are standardised, so this spans dark to light
    # A band in the numeral's own colour joins its strokes and is the hardest to read through.
    colour = torch.where(uniform(1, 1, 1) < INK_STREAK_SHARE, ink * gain, colour)
    return x * (1 - alpha) + colour * alpha


def _ink_colour(x):
    """Per crop (N, 3, H, W), the mean colour of its tenth of pixels furthest in brightness from the median:
    on a card, the numeral's ink."""
    import torch

    brightness = x.mean(1).flatten(1)
    spread = (brightness - brightness.median(1, keepdim=True).values).abs()
    ink = (spread >= torch.quantile(spread, 0.9, dim=1, keepdim=True)).float()
    return ((x.flatten(2) * ink[:, None]).sum(2) / ink.sum(1, keepdim=True))[..., None, None]


def training_crops(scenes: int, mat_views: int) -> tuple[np.ndarray, np.ndarray]:
    """The cached crops of the training scenes (in chunks, so that a larger run reuses what a smaller one
    rendered) and of the mat views."""
    parts = [
        build_dataset(first, min(CHUNK, scenes - first + 1), "cards-train") for first in range(1, scenes + 1, CHUNK)
    ]
    parts.append(build_dataset(5_000_000, mat_views, "mat-negatives"))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def fit_classifier(
    model,
    train: tuple[np.ndarray, np.ndarray],
    val: tuple[np.ndarray, np.ndarray],
    epochs: int,
    max_lr: float,
    seed: int,
    streak_share: float = STREAK_SHARE,
) -> float:
    """Train `model` on the (crops, labels) of `train` with augmentation (`streak_share`: see `augment`);
    returns its accuracy on `val`."""
    import torch
    import torch.nn.functional as F

    (x_train, y_train), (x_val, y_val) = train, val

    def batch_of(x: np.ndarray, idx) -> torch.Tensor:
        # Crops stay uint8 until used: as float32 a larger set would not fit in memory.
        return torch.from_numpy(to_tensor(x[np.asarray(idx)]))

    yt = torch.from_numpy(y_train)
    yv = torch.from_numpy(y_val)

    def batch_loss(idx, generator):
        logits = model(augment(batch_of(x_train, idx), generator, streak_share))
        return F.cross_entropy(logits, yt[idx], label_smoothing=0.05)

    def evaluate() -> tuple[float, str]:
        pred = torch.cat(
            [model(batch_of(x_val, range(i, min(i + 512, len(x_val))))).argmax(1) for i in range(0, len(x_val), 512)]
        )
        acc = (pred == yv).float().mean().item()
        return acc, f"held-out crop accuracy {acc:.4f}"

    return fit_epochs(model, len(x_train), epochs, max_lr, seed, batch_loss, evaluate)


def export_classifier(
    model, out: Path, training: dict, classes: list[str] | None = None, crop_size: tuple[int, int] = CROP_SIZE
) -> None:
    """The model as ONNX at `out`, with its manifest (`training` says how it was made; `classes`, the card
    classifier's unless given) beside it. Any network that reads crops as the classifier takes them (`to_tensor`),
    of `crop_size` (width, height), is exported so."""
    export_onnx(model, (1, 3, crop_size[1], crop_size[0]), out, "crops", "logits")
    manifest = {
        "model": out.name,
        "input": {
            "name": "crops",
            "shape": ["n", 3, crop_size[1], crop_size[0]],
            "layout": "NCHW BGR",
            "normalisation": "per crop: (x - mean) / (std + 8), over all pixels and channels",
        },
        "classes": class_names() if classes is None else classes,
        "training": training,
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


def main(
    scenes: int = typer.Option(2500, help="training scenes to render"),
    mat_views: int = typer.Option(300, help="views of the play mat, whose every proposal is not a card"),
    val_scenes: int = typer.Option(300, help="validation scenes (held-out fonts, designs, tables)"),
    epochs: int = typer.Option(10),
    seed: int = typer.Option(0),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render, train, export."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(max(1, multiprocessing.cpu_count()))
    train = training_crops(scenes, mat_views)
    val = build_dataset(10_000_000, val_scenes, "cards-heldout")
    print(f"train crops {len(train[0])}, validation crops {len(val[0])}")
    started = time.time()
    model = make_model()
    acc = fit_classifier(model, train, val, epochs, 3e-3, seed)
    export_classifier(
        model,
        out,
        {
            "scenes": scenes,
            "mat_views": mat_views,
            "crops": len(train[0]),
            "epochs": epochs,
            "seed": seed,
            **augmentation_settings(),
            "fonts": len(split_fonts("train")),
            "heldout_fonts": len(split_fonts("heldout")),
            "data": "models/synth renders, split=train; validation split=heldout (fonts, designs, tables)",
            "heldout_crop_accuracy": round(acc, 4),
            "seconds": round(time.time() - started),
        },
    )


def augmentation_settings() -> dict[str, float]:
    """The streak augmentation's settings, for a manifest."""
    return {
        "streak_share": STREAK_SHARE,
        "streak_min_tilt_degrees": round(math.degrees(STREAK_MIN_TILT)),
        "ink_streak_share": INK_STREAK_SHARE,
    }


if __name__ == "__main__":
    typer.run(main)
