"""Train the corner-index network: whether a card's corner shows an index, and whether it says 6 or 9
(vision/cards/index.py).

    python -m models.train_card_index [--scenes 2500] [--marked-scenes 2500] [--epochs 8] [--out PATH]

Scenes of 6s and 9s, scattered or close up, their designs printed with corner indices alone (no underline,
`SceneSpec.index_only`) in three scenes of five and as the design says otherwise (the underline, indices or not);
and as many again with a fifth of the cards other digits and half the designs printed with a mark in their
corners (`SceneSpec.corner_marks`). Each card's two corners are cropped (its own top-left, and its bottom-right
turned half round) from its true outline grown, shrunk and jittered, twice, and from the card reader's reading of
it, each from a corner region scaled and moved at random; a corner is labelled 6 or 9 where that card's index is
printed there, else none. Validation renders held-out fonts, designs and tables. Needs the `train` extra (torch,
onnx). See models/card_index.md.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import typer

from models.datasets import render_joined
from models.synth.scenes import Scene, SceneSpec, TruthCard, render_scene
from models.train_cards import export_classifier, fit_classifier, small_classifier
from vision.cards.artwork import CardFace
from vision.cards.index import CLASSES, INDEX_SIZE, MODEL_PATH, NINE, REGION, SIX, index_crops
from vision.cards.recognize import CardRecognizer
from vision.geometry import from_corner

TRAIN_SEED = 107_000_000
VAL_SEED = 108_000_000
JITTER = 0.025  # of the card's size, per corner
# The true outline grown or shrunk about its centre by up to this share, as the reader's outlines come out a
# little larger or smaller than the card.
SCALE_JITTER = 0.07
# Each crop's region scaled about its centre by a factor in REGION_SCALE and moved by up to REGION_SHIFT of the
# card's size: other decks print their index larger or smaller than the artwork does, and further in or out.
REGION_SCALE = (0.7, 1.25)
REGION_SHIFT = 0.03
INDEX_ONLY_SHARE = 0.6
MARKED_TRAIN_SEED = 109_000_000
MARKED_VAL_SEED = 110_000_000
MARKED_SHARE = 0.5
OTHER_DIGITS = tuple(CardFace("digit", (d,)) for d in range(10) if d not in (6, 9))
CHUNK = 2500  # scenes a cache of training crops holds


@functools.cache
def _reader() -> CardRecognizer:
    return CardRecognizer(indices=False)


def index_scene_spec(rng: random.Random, split: str) -> SceneSpec:
    """A scene of 6s and 9s: scattered small, nearer, or a close-up of one to three."""
    kind = rng.random()
    n, card_px, max_tilt = (4, 14), (60, 160), 50.0
    if kind > 0.85:
        n, card_px, max_tilt = (1, 3), (250, 620), 35.0
    elif kind > 0.55:
        n, card_px, max_tilt = (2, 8), (120, 320), 45.0
    faces = tuple(rng.choice((SIX, NINE)) for _ in range(rng.randint(*n)))
    return SceneSpec(
        split=split, faces=faces, card_px=card_px, max_tilt=max_tilt, index_only=rng.random() < INDEX_ONLY_SHARE
    )


def marked_scene_spec(rng: random.Random, split: str) -> SceneSpec:
    """A scene of `index_scene_spec`'s with a fifth of its cards other digits, and half its designs printed with
    a mark in their corners (a star, a pip, a letter): corners that show something, but no 6 or 9."""
    spec = index_scene_spec(rng, split)
    faces = tuple(face if rng.random() < 0.8 else rng.choice(OTHER_DIGITS) for face in spec.faces)
    return replace(spec, faces=faces, corner_marks=MARKED_SHARE)


def corner_labels(card: TruthCard) -> tuple[int, int]:
    """The class of the card's own top-left corner and of its bottom-right turned half round."""
    if card.face not in (SIX, NINE):
        return (0, 0)
    digit = CLASSES.index(str(card.face.digits[0]))
    kind = card.style.corner_index if card.style is not None else "none"
    return (digit if kind != "none" else 0, digit if kind == "both" else 0)


def labelled_corners(rng: random.Random, scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """Both corners of every card of `scene`, cropped from its true outline jittered (SCALE_JITTER, JITTER) twice
    and from the reader's reading of it (turned to the card's own top-left first), each from a region varied at
    random (`_varied_region`), with their labels (`corner_labels`)."""
    outlines: list[tuple[np.ndarray, TruthCard]] = []
    for card in scene.cards:
        size = np.linalg.norm(card.corners[2] - card.corners[0])
        centre = card.corners.mean(axis=0)
        for _ in range(2):
            scaled = centre + (card.corners - centre) * rng.uniform(1 - SCALE_JITTER, 1 + SCALE_JITTER)
            outlines.append((scaled + np.array([rng.gauss(0, JITTER * size) for _ in range(8)]).reshape(4, 2), card))
    for read in _reader()(scene.image):
        truth = _lying_on(read.corners, scene.cards)
        if truth is not None:
            outlines.append((_turned_as(read.corners, truth.corners), truth))
    crops, labels = [], []
    for quad, card in outlines:
        crops += index_crops(scene.image, quad.astype(np.float32), _varied_region(rng))
        labels += corner_labels(card)
    if not crops:
        return np.zeros((0, INDEX_SIZE[1], INDEX_SIZE[0], 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(labels, np.int64)


def _varied_region(rng: random.Random) -> tuple[float, float, float, float]:
    """REGION scaled and moved at random (REGION_SCALE, REGION_SHIFT)."""
    left, top, right, bottom = REGION
    scale = rng.uniform(*REGION_SCALE)
    cx = (left + right) / 2 + rng.uniform(-REGION_SHIFT, REGION_SHIFT)
    cy = (top + bottom) / 2 + rng.uniform(-REGION_SHIFT, REGION_SHIFT)
    half_w, half_h = scale * (right - left) / 2, scale * (bottom - top) / 2
    return (cx - half_w, cy - half_h, cx + half_w, cy + half_h)


def _lying_on(quad: np.ndarray, cards: list[TruthCard]) -> TruthCard | None:
    """The true card whose outline is within a tenth of its size of `quad`'s (in some turn), if any."""
    for card in cards:
        size = np.linalg.norm(card.corners[2] - card.corners[0])
        if np.linalg.norm(_turned_as(quad, card.corners) - card.corners, axis=1).max() < 0.1 * size:
            return card
    return None


def _turned_as(quad: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """`quad` started at the corner nearest `corners`' first, keeping its turn."""
    return min((from_corner(quad, k) for k in range(4)), key=lambda q: float(np.linalg.norm(q - corners)))


def scene_corners(
    spec_of: Callable[[random.Random, str], SceneSpec], split: str, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The labelled corners of the scene `spec_of` draws for `seed` in `split`."""
    rng = random.Random(seed)
    return labelled_corners(rng, render_scene(seed, spec_of(rng, split)))


# The rendering workers: a scene of each kind and split (picklable, for the render pool).
train_corners = functools.partial(scene_corners, index_scene_spec, "train")
heldout_corners = functools.partial(scene_corners, index_scene_spec, "heldout")
train_marked_corners = functools.partial(scene_corners, marked_scene_spec, "train")
heldout_marked_corners = functools.partial(scene_corners, marked_scene_spec, "heldout")


def main(
    scenes: int = typer.Option(2500, help="training scenes of 6s and 9s to render"),
    val_scenes: int = typer.Option(200, help="validation scenes (held-out fonts, designs and tables)"),
    marked_scenes: int = typer.Option(2500, help="training scenes with marks in their cards' corners"),
    marked_val_scenes: int = typer.Option(200, help="validation scenes with marks in their cards' corners"),
    epochs: int = typer.Option(8),
    max_lr: float = typer.Option(2e-3),
    seed: int = typer.Option(0),
    threads: int = typer.Option(2, help="torch threads"),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render the scenes, train, export with a manifest."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    # In chunks, so that a larger run reuses what a smaller one rendered.
    chunks = range(0, scenes, CHUNK)
    train = render_joined(
        [
            *(("card-index-v3-train", train_corners, TRAIN_SEED + k, min(CHUNK, scenes - k)) for k in chunks),
            ("card-index-v3-marked-train", train_marked_corners, MARKED_TRAIN_SEED, marked_scenes),
        ]
    )
    val = render_joined(
        [
            ("card-index-v3-heldout", heldout_corners, VAL_SEED, val_scenes),
            ("card-index-v3-marked-heldout", heldout_marked_corners, MARKED_VAL_SEED, marked_val_scenes),
        ]
    )
    print(f"train crops {len(train[0])} ({np.bincount(train[1], minlength=len(CLASSES))}), validation {len(val[0])}")
    started = time.time()
    model = small_classifier((16, 32, 48, 64), len(CLASSES))
    acc = fit_classifier(model, train, val, epochs, max_lr, seed, streak_share=0.0)
    export_classifier(
        model,
        out,
        {
            "scenes": scenes,
            "val_scenes": val_scenes,
            "marked_scenes": marked_scenes,
            "marked_val_scenes": marked_val_scenes,
            "marked_share": MARKED_SHARE,
            "epochs": epochs,
            "max_lr": max_lr,
            "seed": seed,
            "crops": len(train[0]),
            "jitter": JITTER,
            "scale_jitter": SCALE_JITTER,
            "region_scale": REGION_SCALE,
            "region_shift": REGION_SHIFT,
            "index_only_share": INDEX_ONLY_SHARE,
            "data": "scenes of 6s and 9s of split=train (models/train_card_index.py), their designs printed with "
            "corner indices alone in three of five, and scenes with a fifth of the cards other digits and half the "
            "designs with a corner mark: both corners of each card, from its true outline jittered twice and from "
            "the card reader's reading, labelled by the index of a 6 or 9 printed there; validation on "
            "split=heldout scenes of both kinds (held-out fonts, designs, tables)",
            "region": f"REGION {REGION} of the card (left, top, right, bottom, as shares of its width and height "
            "from its own top-left corner), warped to 32x32; the bottom-right corner is read turned half round",
            "heldout_crop_accuracy": round(acc, 4),
            "seconds": round(time.time() - started),
        },
        list(CLASSES),
        crop_size=INDEX_SIZE,
    )


if __name__ == "__main__":
    typer.run(main)
