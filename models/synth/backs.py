"""Card backs for Grid o' Digits' face-down cards: training and held-out evaluation draw disjoint patterns."""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import replace

from models.synth.scenes import SceneSpec
from rules.grid_digits import GRID_CARDS, STREAK
from rules.pi import PI_DECIMALS
from vision.cards.artwork import FACE_CLASSES, STARTER, CardFace
from vision.cards.back_patterns import BackDesign, BackPattern

TRAIN_BACKS: tuple[BackPattern, ...] = (
    "lattice", "stripes", "checks", "rings", "plain", "grid", "harlequin", "scales", "confetti", "blotches",
    "chevrons", "swirls",
)  # fmt: skip
HELDOUT_BACKS: tuple[BackPattern, ...] = ("dots", "waves")
_INKS = ((160, 30, 40), (30, 60, 140), (20, 100, 60), (40, 40, 45), (110, 40, 120), (200, 120, 20), (0, 110, 130))


def random_back(rng: random.Random, heldout: bool = False) -> BackDesign:
    """A deck's back: a pattern of the split's kinds in a dark or bright ink on a light or tinted paper."""
    ink = tuple(min(255, max(0, c + rng.randint(-30, 30))) for c in rng.choice(_INKS))
    paper = (
        tuple(rng.randint(225, 255) for _ in range(3))
        if rng.random() < 0.8
        else tuple(rng.randint(150, 230) for _ in range(3))
    )
    return BackDesign(
        pattern=rng.choice(HELDOUT_BACKS if heldout else TRAIN_BACKS),
        ink=ink,  # type: ignore[arg-type]
        paper=paper,  # type: ignore[arg-type]
        step=rng.uniform(0.05, 0.14),
        margin=rng.uniform(0.0, 0.1),
        emblem=rng.choice(("pi", "oval", "none")),
        seed=rng.randrange(2**31),
    )


def grid_table(rng: random.Random, split: str) -> tuple[SceneSpec, tuple[int, ...]]:
    """A Grid o' Digits table all face down: the first GRID_CARDS decimals' Digit cards shuffled in rows of five,
    the Starter below them, one deck's design with a back of the split's; and the order they lie in (the grid's
    cell k holds decimal order[k])."""
    order = list(range(GRID_CARDS))
    rng.shuffle(order)
    faces = (*(CardFace("back") for _ in order), STARTER)
    spec = SceneSpec(
        split=split,
        layout="grid",
        per_row=STREAK,
        faces=faces,
        one_deck_style=True,
        back=random_back(rng, split == "heldout"),
    )
    return spec, tuple(order)


def turned_up(spec: SceneSpec, order: tuple[int, ...], cells: Collection[int]) -> SceneSpec:
    """The table of `grid_table` with the cards of `cells` face up."""
    assert spec.faces is not None
    faces = [CardFace("digit", (PI_DECIMALS[order[k]],)) if k in cells else CardFace("back") for k in range(len(order))]
    return replace(spec, faces=(*faces, *spec.faces[len(order) :]))


def grid_scene_spec(rng: random.Random, split: str) -> SceneSpec:
    """A Grid o' Digits table part played: a random share of `grid_table`'s cards face up."""
    spec, order = grid_table(rng, split)
    share = rng.random()
    return turned_up(spec, order, {k for k in range(len(order)) if rng.random() < share})


# Scenes with every card face up: a check of backs must pass faces of every design and table, most of all.
ALL_FACES_UP = 0.3


def some_face_down(rng: random.Random, spec: SceneSpec) -> SceneSpec:
    """`spec` with a random share of its cards (its own, or as many as the renderer would draw) laid face down
    in one back of the split's, as a deck beside a race, the appending game's Deck or the bluffing game's line
    lays them; in ALL_FACES_UP of scenes, none."""
    faces = list(spec.faces or (rng.choice(FACE_CLASSES) for _ in range(rng.randint(*spec.n_cards))))
    share = 0.0 if rng.random() < ALL_FACES_UP else rng.uniform(0.1, 0.6)
    faces = [CardFace("back") if rng.random() < share else face for face in faces]
    return replace(spec, faces=tuple(faces), back=random_back(rng, spec.split == "heldout"))
