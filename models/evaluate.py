"""Accuracy of the card recogniser on held-out renders (fonts, designs and tables training never used)."""

from __future__ import annotations

import enum
import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

from models.synth.backs import grid_scene_spec, some_face_down
from models.synth.degrade import Degradation, degrade, moved, px_per_mm, worsened
from models.synth.scenes import PORTRAIT_SIZE, Scene, SceneSpec, render_scene, split_fonts
from models.train_cards import tempus_line_spec, training_spec
from rules.pi import BLOCKS, PI_DECIMALS, wild_pair
from vision.cards.artwork import CARD_MM, STARTER, CardFace
from vision.cards.classify import CardClassifier
from vision.cards.grid import face_up
from vision.cards.lines import CardLine, NoStarterError, read_appending_line, read_tempus_line
from vision.cards.recognize import Card, CardRecognizer
from vision.cards.sets import SET_SIZE, read_sets
from vision.geometry import quad_iou

# `--touching`: each scene a Tempus line laid from 4 mm apart to each card over the one before by 8 mm (an eighth
# of its width), as players in a race lay them. The held-out sets' lines lie 4-20 mm apart.
TOUCHING_GAP_MM = (-8.0, 4.0)


@dataclass
class CardScore:
    cards: int = 0
    found: int = 0
    read_right: int = 0  # found, right face
    turned: int = 0  # read right but reported half-turned (0 and 8 often look the same either way)
    detections: int = 0
    false_detections: int = 0
    confusions: dict[str, int] = field(default_factory=dict)
    lines: int = 0  # a game's layouts laid: Tempus or appending lines, the block game's tables of sets
    lines_exact: int = 0  # read as the game's judge reads them (`judge tempus|append|blocks PHOTO`), every card right

    def add(self, other: CardScore) -> None:
        self.cards += other.cards
        self.found += other.found
        self.read_right += other.read_right
        self.turned += other.turned
        self.detections += other.detections
        self.false_detections += other.false_detections
        self.lines += other.lines
        self.lines_exact += other.lines_exact
        for k, v in other.confusions.items():
            self.confusions[k] = self.confusions.get(k, 0) + v

    @property
    def accuracy(self) -> float:
        return self.read_right / self.cards if self.cards else 1.0

    @property
    def false_rate(self) -> float:
        return self.false_detections / self.detections if self.detections else 0.0


def score_scene(scene: Scene, cards: list[Card]) -> CardScore:
    """Match readings to the truth one to one by outline overlap."""
    score = CardScore(cards=len(scene.cards), detections=len(cards))
    unmatched = list(cards)
    for truth in scene.cards:
        best = max(unmatched, key=lambda c: quad_iou(c.corners, truth.corners), default=None)
        if best is None or quad_iou(best.corners, truth.corners) < 0.5:
            score.confusions[f"{truth.face.label}->missed"] = score.confusions.get(f"{truth.face.label}->missed", 0) + 1
            continue
        unmatched.remove(best)
        score.found += 1
        upright = np.linalg.norm(best.corners[0] - truth.corners[0]) < np.linalg.norm(
            best.corners[2] - truth.corners[0]
        )
        if best.face == truth.face:
            score.read_right += 1
            score.turned += not upright
        else:
            key = f"{truth.face.label}->{best.face.label}"
            score.confusions[key] = score.confusions.get(key, 0) + 1
    score.false_detections = len(unmatched)
    return score


def as_made_worse(scene: Scene, worse: Degradation) -> Scene:
    """The scene with its cards where its frame made `worse` shows them (a lens's distortion or a half turn
    moves them)."""
    size = scene.image.shape[1::-1]
    return replace(scene, cards=[replace(c, corners=moved(c.corners, worse, size)) for c in scene.cards])


def line_read_exactly(scene: Scene, line: Callable[[], CardLine]) -> bool:
    """Whether the `line` read (raising NoStarterError where none is) holds the scene's cards,
    Starter first, in the order they were laid."""
    try:
        read = line()
    except NoStarterError:
        return False
    return [read.starter.face, *(card.face for card in read.cards)] == [truth.face for truth in scene.cards]


def heldout_fonts() -> str:
    """The held-out font files this machine renders with, and a fingerprint of their names and sizes: the
    renders, and so the figures, depend on the fonts installed (scripts/system-packages.sh)."""
    fonts = split_fonts("heldout")
    listing = "\n".join(f"{Path(f).name}:{Path(f).stat().st_size}" for f in fonts)
    return f"{len(fonts)} held-out font files, fingerprint {hashlib.sha256(listing.encode()).hexdigest()[:8]}"


class Laid(enum.Enum):
    """What each held-out scene lays: the training mix of kinds, or every scene one game's layout."""

    MIX = "mix"
    TOUCHING = "touching"  # a Tempus line laid TOUCHING_GAP_MM apart, as in a race
    APPENDING = "appending"  # a line of the appending game (`appending_line_spec`)
    BLOCKS = "blocks"  # the block game's sets of five (`block_sets_spec`)
    GRID = "grid"  # a Grid o' Digits table part played (`grid_scene_spec`), its face-down cards told apart
    FACE_DOWN = "face-down"  # the mix with a share of each scene's cards face down (`some_face_down`)


LAID_TITLES = {
    Laid.MIX: "",
    Laid.TOUCHING: ", laid touching",
    Laid.APPENDING: ", lines of the appending game",
    Laid.BLOCKS: ", sets of the block game",
    Laid.GRID: ", Grid o' Digits tables",
    Laid.FACE_DOWN: ", some cards face down",
}
# Ways every design may be made to print its cards (SceneSpec flags), and how a title names them.
PRINTS = {
    "varied_wilds": "Wilds printed every way",
    "index_only": "6 and 9 told apart by their indices alone",
    "written_notes": "notes written on by hand beside the cards",
}


def evaluate_cards(
    scenes: int,
    seed: int,
    recognizer: CardRecognizer | None = None,
    quiet: bool = False,
    worse: Degradation = Degradation.none,
    portrait: bool = False,
    laid: Laid = Laid.MIX,
    prints: Sequence[str] = (),
) -> CardScore:
    """Read held-out scenes from `seed`, each made `worse` first (models/synth/degrade.py), and `portrait`
    (PORTRAIT_SIZE, as a phone holds its camera) if asked, on one OpenCV thread (as the stick and domino
    evaluations do): its threaded resampling differs in the last bit, and borderline readings with it, so
    figures would depend on the machine's cores. `laid`: what every scene lays (a game's lines or sets are also
    read as its judge reads them: `lines_exact`). `prints`: how every design prints its cards, beyond its own
    draws (PRINTS: Wilds in any layout and order, 6 and 9 told apart by their indices alone)."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        return _evaluate_cards(scenes, seed, recognizer, quiet, worse, portrait, laid, prints)
    finally:
        cv2.setNumThreads(threads)


def appending_line_spec(rng: random.Random, split: str) -> SceneSpec:
    """A line of the appending game: the Starter and the first 5-20 digits of pi, about a third of them laid as
    the Wild that stands for the digit, in a row or a grid, one deck's design."""
    n = rng.randint(5, 20)
    cards = [CardFace("wild", wild_pair(d)) if rng.random() < 0.3 else CardFace("digit", (d,)) for d in PI_DECIMALS[:n]]
    layout = "row" if n <= 10 and rng.random() < 0.5 else "grid"
    return SceneSpec(split=split, layout=layout, faces=(STARTER, *cards), one_deck_style=True)


def block_sets_spec(rng: random.Random, split: str) -> SceneSpec:
    """Sets of the block game: two to four blocks of the Reference card, each five cards in a row of their own in
    any order, about a fifth laid as the Wild that stands for the digit, one deck's design."""
    faces: list[CardFace] = []
    for number in rng.sample(range(len(BLOCKS)), rng.randint(2, 4)):
        digits = rng.sample(BLOCKS[number], len(BLOCKS[number]))
        faces += [CardFace("wild", wild_pair(d)) if rng.random() < 0.2 else CardFace("digit", (d,)) for d in digits]
    return SceneSpec(split=split, layout="grid", per_row=SET_SIZE, faces=tuple(faces), one_deck_style=True)


def scene_spec(seed: int, laid: Laid = Laid.MIX) -> SceneSpec:
    """The held-out scene of `seed`, laying what `laid` says."""
    rng = random.Random(seed)
    if laid is Laid.APPENDING:
        return appending_line_spec(rng, "heldout")
    if laid is Laid.BLOCKS:
        return block_sets_spec(rng, "heldout")
    if laid is Laid.GRID:
        return grid_scene_spec(rng, "heldout")
    if laid is Laid.TOUCHING:
        return tempus_line_spec(rng, "heldout", TOUCHING_GAP_MM)
    if laid is Laid.FACE_DOWN:
        return some_face_down(rng, training_spec(seed, split="heldout"))
    return training_spec(seed, split="heldout")


def read_exactly(laid: Laid, scene: Scene, classifier: CardClassifier, image: np.ndarray, cards: list[Card]) -> bool:
    """Whether the scene's line (or sets) is read card for card as its game's judge reads it: a Tempus line
    (`judge tempus`), an appending line (`judge append`), the block game's sets, each as the cards it holds
    (`judge blocks`), or the cards of a Grid o' Digits table face up."""
    if laid is Laid.GRID:
        return sorted(card.face.label for card in cards) == sorted(card.face.label for card in scene.cards)
    if laid is Laid.BLOCKS:
        truth = [card.face for card in scene.cards]
        sets = sorted(sorted(f.label for f in truth[k : k + SET_SIZE]) for k in range(0, len(truth), SET_SIZE))
        read = sorted(sorted(card.face.label for card in row) for row in read_sets(classifier, image, cards))
        return read == sets
    read_line = read_appending_line if laid is Laid.APPENDING else read_tempus_line
    return line_read_exactly(scene, functools.partial(read_line, classifier, image, cards))


def _evaluate_cards(
    scenes: int,
    seed: int,
    recognizer: CardRecognizer | None,
    quiet: bool,
    worse: Degradation,
    portrait: bool,
    laid: Laid,
    prints: Sequence[str],
) -> CardScore:
    recognizer = recognizer or CardRecognizer()
    total = CardScore()
    kinds: dict[str, CardScore] = {}
    seeds = range(seed, seed + scenes)
    for s in seeds if quiet else track(seeds, description="reading held-out scenes"):
        spec = scene_spec(s, laid)
        if portrait:
            spec = replace(spec, size=PORTRAIT_SIZE)
        spec = replace(spec, **dict.fromkeys(prints, True))
        kind = spec.layout if spec.layout != "scatter" else ("close-up" if spec.card_px[0] >= 120 else "scatter")
        scene = render_scene(s, spec)
        on_table = [c.corners for c in scene.cards] + [corners for _, corners in scene.stick_cards]
        image = degrade(scene.image, worse, s, on_table, px_per_mm(on_table, CARD_MM[1]))
        scene = as_made_worse(scene, worse)
        cards = recognizer(image)
        if laid is Laid.GRID:  # as `judge grid` reads a table, most of it face down
            cards = face_up(cards)
        result = score_scene(scene, cards)
        if spec.faces is not None and laid is not Laid.FACE_DOWN:  # a game's line or sets, read as its judge reads them
            result.lines = 1
            result.lines_exact = read_exactly(laid, scene, recognizer.classifier, image, cards)
        total.add(result)
        kinds.setdefault(kind, CardScore()).add(result)
    if not quiet:
        printed = "".join(f", {PRINTS[p]}" for p in prints)
        seeds = f"seeds {seed}..{seed + scenes - 1}{worsened(worse)}{', portrait' if portrait else ''}"
        seeds += LAID_TITLES[laid] + printed
        table = Table(title=f"Digit cards, {scenes} held-out scenes ({seeds})")
        for column in ("scenes", "cards", "found", "read right", "turned", "false detections", "lines exact"):
            table.add_column(column, justify="right")
        for name, sc in [*sorted(kinds.items()), ("all", total)]:
            table.add_row(
                name,
                str(sc.cards),
                f"{sc.found / max(sc.cards, 1):.2%}",
                f"{sc.accuracy:.2%}",
                str(sc.turned),
                f"{sc.false_detections} ({sc.false_rate:.2%})",
                f"{sc.lines_exact} of {sc.lines}" if sc.lines else "",
            )
        console = Console()
        console.print(table)
        console.print(f"fonts: {heldout_fonts()} (figures compare between machines with the same fonts)")
        worst = sorted(total.confusions.items(), key=lambda kv: -kv[1])[:12]
        if worst:
            console.print("most frequent errors: " + ", ".join(f"{k} x{v}" for k, v in worst))
    return total
