"""Train the face-down check: whether a card the reader read is a card's face, its back (Grid o' Digits lays its
cards face down, a deck lies face down beside most games, and the card classifier, which never saw a back, reads a
patterned one as an 8 or a 0) or a paper note written on by hand (a score sheet, tallies, a long number: the
classifier read one in six so written as a card, a long number as a Wild).

    python -m models.train_card_backs [--scenes 900] [--mixed-scenes 1500] [--noted-scenes 1500] [--epochs 6]
        [--out PATH]

Two kinds of training scene (models/synth/backs.py), with backs of the training patterns on training tables:
Grid o' Digits tables (the grid's 25 cards, a random share of them face up, in one deck's design, on dark paper
and crossed by bands more often than other renders), and scenes of the card classifier's mix (scattered cards,
Tempus lines, close-ups) with a random share of their cards face down, whose faces are of every design; the
same again with 2-4 notes written on by hand beside the cards (models/synth/notes.py). Their crops are the card
reader's own readings, labelled by the card, back or note they lie on, and every card's, back's and note's true
outline with a little jitter; each crop either way up. Validation renders held-out back patterns, fonts,
designs and tables. Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import functools
import random
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import typer

from models.datasets import render_joined
from models.synth.backs import grid_scene_spec, some_face_down
from models.synth.scenes import Scene, SceneSpec, render_scene
from models.train_cards import crop_batch, export_classifier, fit_classifier, small_classifier, training_spec
from vision.cards.backs import CLASSES, MODEL_PATH
from vision.cards.classify import crop_card
from vision.cards.recognize import CardRecognizer
from vision.geometry import points_in_quads

TRAIN_SEED = 71_000_000
VAL_SEED = 72_000_000
MIXED_TRAIN_SEED = 73_000_000
MIXED_VAL_SEED = 74_000_000
NOTED_TRAIN_SEED = 75_000_000
NOTED_VAL_SEED = 76_000_000
JITTER = 0.03  # of the card's size, per corner
# A dark card crossed by a light band looks much like a back's panel and pattern: the first network, trained on
# the scenes' own shares (12 % dark, no bands), took half the dark held-out cards with the band ornament for backs;
# the second, trained on scenes of the mix at their own shares as well, still took four such cards of the seven
# held-out sets for backs.
DARK_PAPER = 0.35
STREAKS = 0.3


@functools.cache
def _reader() -> CardRecognizer:
    return CardRecognizer(backs=False)


def grid_crops(seed: int, split: str) -> tuple[np.ndarray, np.ndarray]:
    """The crops of one Grid o' Digits table (see the module), labelled 0 (a card's face) or 1 (its back)."""
    rng = random.Random(seed)
    return labelled_crops(rng, render_scene(seed, _harder(grid_scene_spec(rng, split))))


def labelled_crops(rng: random.Random, scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """The reader's readings of `scene` that lie on one card or note, and every card's, back's and note's true
    outline jittered, cropped either way up and labelled by CLASSES: 0 a card's face, 1 its back, 2 a note."""
    truth = (
        [(card.corners, 0) for card in scene.cards]
        + [(quad, 1) for quad in scene.face_down]
        + [(quad, 2) for quad in scene.written_notes]
    )
    quads = [quad for quad, _ in truth]
    outlines = []
    for card in _reader()(scene.image):
        inside = np.flatnonzero(points_in_quads(card.center[None], quads)[0]) if quads else []
        if len(inside) == 1:
            outlines.append((card.corners, truth[int(inside[0])][1]))
    for quad, label in truth:
        size = np.linalg.norm(quad[2] - quad[0])
        outlines.append((quad + np.array([[rng.gauss(0, JITTER * size) for _ in range(2)] for _ in range(4)]), label))
    crops = [crop_card(scene.image, np.roll(q, 2 * rng.randint(0, 1), axis=0).astype(np.float32)) for q, _ in outlines]
    return crop_batch(crops, [label for _, label in outlines])


def mixed_crops(seed: int, split: str, noted: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The crops of one scene of the card classifier's mix (scattered cards, Tempus lines, close-ups) with a random
    share of its cards face down, as a deck beside a race, the appending game's Deck or the bluffing game's line
    lays them: faces of every design the reader meets, not only the grid's. With `noted`, notes written on by
    hand lie beside them (a score sheet beside a race)."""
    rng = random.Random(seed)
    spec = _harder(some_face_down(rng, training_spec(seed, split)))
    return labelled_crops(rng, render_scene(seed, replace(spec, written_notes=noted)))


def _harder(spec: SceneSpec) -> SceneSpec:
    """A training scene with more dark cards crossed by bands, the faces most like a back (see DARK_PAPER)."""
    return replace(spec, dark_paper=DARK_PAPER, streaks=STREAKS) if spec.split == "train" else spec


def train_grid_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return grid_crops(seed, "train")


def heldout_grid_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return grid_crops(seed, "heldout")


def train_mixed_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return mixed_crops(seed, "train")


def heldout_mixed_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return mixed_crops(seed, "heldout")


def train_noted_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return mixed_crops(seed, "train", noted=True)


def heldout_noted_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return mixed_crops(seed, "heldout", noted=True)


def main(
    scenes: int = typer.Option(900, help="training Grid o' Digits tables to render"),
    val_scenes: int = typer.Option(150, help="validation tables (held-out backs, fonts and tables)"),
    mixed_scenes: int = typer.Option(1500, help="training scenes of the card classifier's mix, some cards face down"),
    mixed_val_scenes: int = typer.Option(150, help="validation scenes of the mix"),
    noted_scenes: int = typer.Option(1500, help="training scenes of the mix with notes written on beside the cards"),
    noted_val_scenes: int = typer.Option(150, help="validation scenes of the mix with notes written on"),
    epochs: int = typer.Option(6),
    max_lr: float = typer.Option(2e-3),
    seed: int = typer.Option(0),
    threads: int = typer.Option(2, help="torch threads"),
    out: Path = typer.Option(MODEL_PATH, help="where to write the ONNX model"),
) -> None:
    """Render the tables, train, export with a manifest."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    train = render_joined(
        [
            ("card-backs-train", train_grid_crops, TRAIN_SEED, scenes),
            ("card-backs-mixed-train", train_mixed_crops, MIXED_TRAIN_SEED, mixed_scenes),
            ("card-backs-noted-train", train_noted_crops, NOTED_TRAIN_SEED, noted_scenes),
        ]
    )
    val = render_joined(
        [
            ("card-backs-heldout", heldout_grid_crops, VAL_SEED, val_scenes),
            ("card-backs-mixed-heldout", heldout_mixed_crops, MIXED_VAL_SEED, mixed_val_scenes),
            ("card-backs-noted-heldout", heldout_noted_crops, NOTED_VAL_SEED, noted_val_scenes),
        ]
    )
    counts = np.bincount(train[1], minlength=len(CLASSES))
    shares = ", ".join(f"{n} {name}s" for name, n in zip(CLASSES, counts, strict=True))
    print(f"train crops {len(train[0])} ({shares}), validation crops {len(val[0])}")
    started = time.time()
    model = small_classifier((16, 24, 32, 48), len(CLASSES))
    acc = fit_classifier(model, train, val, epochs, max_lr, seed)
    export_classifier(
        model,
        out,
        {
            "scenes": scenes,
            "val_scenes": val_scenes,
            "mixed_scenes": mixed_scenes,
            "mixed_val_scenes": mixed_val_scenes,
            "noted_scenes": noted_scenes,
            "noted_val_scenes": noted_val_scenes,
            "epochs": epochs,
            "max_lr": max_lr,
            "seed": seed,
            "crops": len(train[0]),
            "jitter": JITTER,
            "dark_paper": DARK_PAPER,
            "streaks": STREAKS,
            "data": "Grid o' Digits tables (models/synth/backs.py) and scenes of the card classifier's mix with a "
            "random share of cards face down, and as many again with notes written on by hand beside the cards "
            "(models/synth/notes.py), of split=train: the card reader's readings labelled by the face, back or "
            "note they lie on, and every true outline jittered, either way up; validation on split=heldout tables "
            "and scenes (held-out back patterns, fonts, hands, tables)",
            "heldout_crop_accuracy": round(acc, 4),
            "seconds": round(time.time() - started),
        },
        list(CLASSES),
    )


if __name__ == "__main__":
    typer.run(main)
