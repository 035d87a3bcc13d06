"""Fine-tune the card classifier on the outlines the card reader proposes at run time.

    python -m models.finetune_cards [--located-scenes 1200] [--free-scenes 1500] [--streaked-scenes 2000] [--epochs 2]
        [--inked-scenes N] [--blurred-scenes N] [--wild-scenes N] [--out PATH]

models/train_cards.py trains the classifier on true outlines and the edge locator's proposals. At run time it
is also given the card locator's outlines, put on their corners by the corner network, and it sees dominoes
and sticks when the table holds them: it read a dark domino's pips as the Starter "3.". This trains the
exported classifier on, from its ONNX weights (the batch normalisation folded in), over its own training
crops plus three cached blocks: the reader's proposals on training scenes (labelled against the truth as
train_cards labels the edge proposals), the same on scenes with bands across their cards (glare, printed
sashes), and every proposal on frames with no card (dominoes and sticks) as "not a card". With
`--blurred-scenes`, the reader's proposals on frames blurred by motion or defocus too: that run writes the
second opinion (`vision.cards.classify.BLURRED_MODEL_PATH`). Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import functools
import json
import random
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import typer

from models.datasets import render_cached
from models.synth.degrade import motion_kernel
from models.synth.scenes import render_scene
from models.train_card_locator import INKED_CHANGES, STREAKED_SHARE, card_free_image
from models.train_cards import (
    augmentation_settings,
    build_dataset,
    crop_batch,
    export_classifier,
    fit_classifier,
    labelled_proposals,
    make_model,
    not_card_crops,
    training_crops,
    training_spec,
)
from models.training import load_exported_weights
from vision.cards.centres import CardLocator
from vision.cards.classify import MODEL_PATH, N_FACES, NOT_CARD, crop_card
from vision.cards.corners import card_corners
from vision.cards.locate import locate_card_quads
from vision.corners import CornerRefiner
from vision.geometry import dedupe_quads
from vision.sharpen import sharpened

LOCATED_SEED = 40_000_000  # training-split card scenes no other trainer renders
FREE_SEED = 41_000_000
STREAKED_SEED = 43_000_000
LOOSE_SEED = 47_000_000
LOOSE_IOU = 0.55
INKED_SEED = 49_000_000
BLURRED_SEED = 45_000_000
WILD_SEED = 67_000_000
INDEX_SEED = 106_000_000
MOTION_SHARE = 0.7


@functools.cache
def _proposers() -> tuple[CardLocator, CornerRefiner]:
    return CardLocator(), card_corners()


def reader_proposals(image: np.ndarray) -> list[np.ndarray]:
    """Every outline the card reader may classify: the edge locator's, and the card locator's and the edge
    locator's put on their corners by the corner network."""
    locator, corners = _proposers()
    edges = locate_card_quads(image)
    loose = [quad for _, quad in locator.read(image)[0]]
    return dedupe_quads(edges + corners.refine(image, loose + edges))


def located_crops(
    seed: int, card_iou: float = 0.8, blurred: bool = False, **scene_changes: object
) -> tuple[np.ndarray, np.ndarray]:
    """The reader's proposals on a training scene (its spec changed by `scene_changes`, as `streaks=0.6`),
    labelled (a card's face over `card_iou`); half the cards' crops half-turned. With `blurred`, the frame is
    blurred first (`blurred_frame`) and then sharpened as the reader sharpens every frame."""
    rng = random.Random(seed)
    scene = render_scene(seed, replace(training_spec(seed, "train"), **scene_changes))
    image = sharpened(blurred_frame(scene.image, rng)) if blurred else scene.image
    crops, labels = [], []
    for quad, label in labelled_proposals(reader_proposals(image), scene.cards, card_iou):
        if label < N_FACES and rng.random() < 0.5:
            quad, label = np.roll(quad, 2, axis=0), label + N_FACES
        crops.append(crop_card(image, quad))
        labels.append(label)
    return crop_batch(crops, labels)


def streaked_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """located_crops with bands across the cards, as the card locator learns them."""
    return located_crops(seed, streaks=STREAKED_SHARE)


def loose_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """located_crops, with a band across some cards, where outlines that only half fit a card (IoU over
    LOOSE_IOU) are its face too: the corner network leaves such outlines on cards of busy cloths and dark
    paper, and the classifier, taught only on close fits, called them no card."""
    return located_crops(seed, LOOSE_IOU, streaks=STREAKED_SHARE / 2)


def inked_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """located_crops with half the designs on dark paper and most cards crossed by a sash in the numeral's
    colour: a band of that colour hides the numeral where it crosses, and such cards were read as no card."""
    return located_crops(seed, **INKED_CHANGES)


def wild_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """located_crops with Wilds printed in any layout and either order: the deck prints "1/6" and "1 6", and
    Wilds printed "16" or "6/1" were read as one digit, or as another Wild."""
    return located_crops(seed, varied_wilds=True)


def index_only_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """located_crops with every design's 6 and 9 told apart by corner indices alone, no underline: a 6 with an
    index in both corners, turned half round, differs from a 9 only by which index is top left."""
    return located_crops(seed, index_only=True)


def blurred_frame(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """The frame as a moving or unfocused camera takes it: in MOTION_SHARE of frames a straight motion blur of
    5-17 px at any angle, otherwise a defocus blur of sigma 1-2.5 px. Beyond the renders' own blur, which
    is slight: under 11 px of motion a fifth of the held-out cards went unread."""
    if rng.random() < MOTION_SHARE:
        return cv2.filter2D(image, -1, motion_kernel(rng.randrange(5, 19, 2), rng.uniform(0, 180)))
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(1.0, 2.5))


def blurred_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """located_crops on blurred frames."""
    return located_crops(seed, blurred=True)


def card_free_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every proposal on a frame of dominoes or sticks, as not a card, either way up."""
    image = card_free_image(seed)
    return not_card_crops(image, reader_proposals(image), random.Random(seed))


def thinned(
    block: tuple[np.ndarray, np.ndarray], negatives: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The block with at most `negatives` of its "not a card" crops, drawn at random: busy cloths give
    hundreds of outlines a frame, and so many would teach the classifier that little is a card."""
    x, y = block
    rejects = np.flatnonzero(y == NOT_CARD)
    dropped = rng.choice(rejects, max(0, len(rejects) - negatives), replace=False)
    keep = np.setdiff1d(np.arange(len(y)), dropped)
    return x[keep], y[keep]


def main(
    located_scenes: int = typer.Option(1200, help="training scenes whose reader proposals are labelled"),
    free_scenes: int = typer.Option(1500, help="frames of dominoes and sticks, every proposal not a card"),
    streaked_scenes: int = typer.Option(2000, help="more training scenes like the first, bands across cards"),
    loose_scenes: int = typer.Option(0, help="more training scenes whose loosely fitting outlines are cards too"),
    inked_scenes: int = typer.Option(0, help="more training scenes, half on dark paper, sashes in the ink's colour"),
    blurred_scenes: int = typer.Option(0, help="more training scenes, blurred by motion or defocus"),
    wild_scenes: int = typer.Option(0, help='more training scenes, Wilds printed every way ("16", "6/1")'),
    index_scenes: int = typer.Option(0, help="more training scenes, 6 and 9 told apart by corner indices alone"),
    scenes: int = typer.Option(2500, help="train_cards' training scenes to keep training on"),
    mat_views: int = typer.Option(300, help="train_cards' mat views to keep training on"),
    negatives: int = typer.Option(30_000, help="most 'not a card' crops kept of each new block"),
    epochs: int = typer.Option(2),
    max_lr: float = typer.Option(1e-3),
    seed: int = typer.Option(0),
    threads: int = typer.Option(1, help="torch threads"),
    start: Path = typer.Option(MODEL_PATH, help="the exported classifier to train on from"),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render the proposal blocks, train on, export."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    # Each block thinned as it is read: busy cloths give hundreds of not-a-card crops a frame.
    plan = [
        ("cards-located", located_crops, LOCATED_SEED, located_scenes),
        ("cards-free", card_free_crops, FREE_SEED, free_scenes),
        ("cards-located-streaked", streaked_crops, STREAKED_SEED, streaked_scenes),
        ("cards-located-loose", loose_crops, LOOSE_SEED, loose_scenes),
        ("cards-located-inked", inked_crops, INKED_SEED, inked_scenes),
        ("cards-located-blurred", blurred_crops, BLURRED_SEED, blurred_scenes),
        ("cards-located-wild", wild_crops, WILD_SEED, wild_scenes),
        ("cards-located-index", index_only_crops, INDEX_SEED, index_scenes),
    ]
    located = (thinned(render_cached(*block), negatives, rng) for block in plan if block[3])
    blocks = [training_crops(scenes, mat_views), *located]
    train = np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])
    del blocks
    val = build_dataset(10_000_000, 300, "cards-heldout")
    print(f"train crops {len(train[0])}, validation crops {len(val[0])}")
    started = time.time()
    model = load_exported_weights(make_model(batch_norm=False), start)
    acc = fit_classifier(model, train, val, epochs, max_lr, seed)
    export_classifier(
        model,
        out,
        {
            "fine_tuned_from": json.loads(start.with_suffix(".json").read_text())["training"],
            "scenes": scenes,
            "mat_views": mat_views,
            "located_scenes": located_scenes,
            "free_scenes": free_scenes,
            "streaked_scenes": streaked_scenes,
            "loose_scenes": loose_scenes,
            "loose_iou": LOOSE_IOU,
            "inked_scenes": inked_scenes,
            "blurred_scenes": blurred_scenes,
            "wild_scenes": wild_scenes,
            "index_scenes": index_scenes,
            "motion_share": MOTION_SHARE,
            "negatives_per_block": negatives,
            "crops": len(train[0]),
            "epochs": epochs,
            "max_lr": max_lr,
            "seed": seed,
            **augmentation_settings(),
            "data": "train_cards' crops; the reader's proposals on split=train scenes, labelled, and on "
            "streaked_scenes more with bands across cards, inked_scenes with sashes in the ink's colour and "
            "blurred_scenes blurred (then sharpened as the reader does), wild_scenes with Wilds printed every way, "
            "index_scenes with 6 and 9 told apart by corner indices alone; every proposal on domino and stick "
            "frames as not a card",
            "heldout_crop_accuracy": round(acc, 4),
            "seconds": round(time.time() - started),
        },
    )


if __name__ == "__main__":
    typer.run(main)
