"""Accuracy and speed of the domino recogniser on held-out renders: tile styles (colour bands, pin metals,
two-tone tiles), tables and seeds that training never used, and views steeper than any in training.

Half the scenes are tables of complete Seven Pis (7 double-six pis of 4 tiles, or 5 double-nine pis of 5),
so at least half the tiles touch others in pi shapes; the rest follow the training mix of layouts.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

from models.synth.degrade import Degradation, degrade, moved, px_per_mm, worsened
from models.synth.dominoes import DominoScene, DominoSpec, render_dominoes
from models.train_dominoes import training_spec
from rules.seven_pis import DOUBLE_NINE, DOUBLE_SIX, Setup
from vision.dominoes import Domino, DominoRecognizer
from vision.dominoes.pis import read_pis

STEEP_TILT = (50.0, 62.0)  # degrees from straight down; training views stop at 50
# Tiles seen from afar, as a webcam that takes in a whole table sees them: 18-28 px wide at the frame's centre
# (a 1280x720 frame), none under 14; training renders tiles 30-70 px wide, none under 22.
FAR_TILE_PX = (18.0, 28.0)
FAR_MIN_TILE_PX = 14.0
TILE_LONG_MM = 46.0  # a tile 19-27 mm wide (models/synth/dominoes.py), twice as long: the hand's scale


@dataclass(frozen=True, kw_only=True)
class SceneOptions:
    """How every held-out scene is changed: `far`, its tiles as small as from afar (FAR_TILE_PX); `face_down` more
    tiles lying face down in a heap beside them (a reading on one a false detection), their backs carrying a
    maker's mark at the chance `marked_backs`; laid on a table of kind `table` if given; `ridged`, the chance that
    the set's dividers are ridges of the tiles' own material; `written_notes`, notes written on by hand laid
    beside them (a reading on one a false detection)."""

    far: bool = False
    face_down: int = 0
    marked_backs: float = 0.0
    table: str | None = None
    ridged: float = 0.0
    written_notes: bool = False

    def applied(self, spec: DominoSpec) -> DominoSpec:
        if self.far:
            spec = replace(spec, tile_px=FAR_TILE_PX, min_tile_px=FAR_MIN_TILE_PX)
        spec = replace(
            spec,
            face_down=self.face_down,
            marked_backs=self.marked_backs,
            ridged=self.ridged,
            written_notes=self.written_notes,
        )
        return replace(spec, table=self.table or spec.table)

    def described(self) -> str:
        """The changes for a table's title, each after a comma."""
        text = ", tiles as from afar" if self.far else ""
        text += f", every scene on a {self.table} table" if self.table else ""
        text += f", {self.face_down} tiles face down beside" if self.face_down else ""
        text += f" (backs marked in {self.marked_backs:.0%} of scenes)" if self.face_down and self.marked_backs else ""
        text += f", dividers ridged in {self.ridged:.0%} of scenes" if self.ridged else ""
        return text + (", notes written on by hand beside" if self.written_notes else "")


def evaluation_spec(index: int, seed: int, options: SceneOptions = SceneOptions()) -> tuple[str, DominoSpec]:
    """The kind and spec of held-out scene `index`: 28-tile double-six pis, 25-tile double-nine pis, the
    training mix of layouts, and the same mix seen at steep angles, in turn; changed by `options`."""
    kind = ("pis-28", "mix", "pis-25", "steep")[index % 4]
    if kind == "pis-28":
        spec = DominoSpec(split="heldout", layout="pis", top=6, pis=7)
    elif kind == "pis-25":
        spec = DominoSpec(split="heldout", layout="pis", top=9, pis=5)
    else:
        spec = training_spec(seed + index, split="heldout")
    if kind == "steep":
        spec = replace(spec, min_tilt=STEEP_TILT[0], max_tilt=STEEP_TILT[1])
    return kind, options.applied(spec)


@dataclass
class DominoScore:
    tiles: int = 0
    pi_tiles: int = 0  # tiles that lie in a pi shape, touching others
    found: int = 0
    read_right: int = 0  # found, both halves' counts right, each on its own half
    pi_read_right: int = 0
    detections: int = 0
    false_detections: int = 0
    pis: int = 0  # whole pis in the pis scenes
    pis_right: int = 0  # every tile read right and grouped alone as one pi, each on a slot of the shape
    confusions: dict[str, int] = field(default_factory=dict)

    def add(self, other: DominoScore) -> None:
        names = ("tiles", "pi_tiles", "found", "read_right", "pi_read_right", "detections", "false_detections")
        for name in (*names, "pis", "pis_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, v in other.confusions.items():
            self.confusions[k] = self.confusions.get(k, 0) + v

    @property
    def accuracy(self) -> float:
        return self.read_right / self.tiles if self.tiles else 1.0

    @property
    def pi_accuracy(self) -> float:
        return self.pi_read_right / self.pi_tiles if self.pi_tiles else 1.0

    @property
    def false_rate(self) -> float:
        return self.false_detections / self.detections if self.detections else 0.0

    def to_json(self) -> dict:
        return {
            "tiles": self.tiles,
            "pi_tiles": self.pi_tiles,
            "found": self.found,
            "read_right": self.read_right,
            "pi_read_right": self.pi_read_right,
            "detections": self.detections,
            "false_detections": self.false_detections,
            "pis": self.pis,
            "pis_right": self.pis_right,
            "accuracy": round(self.accuracy, 4),
            "pi_accuracy": round(self.pi_accuracy, 4),
            "false_rate": round(self.false_rate, 4),
        }


def as_made_worse(scene: DominoScene, worse: Degradation) -> DominoScene:
    """The scene with its tiles where its frame made `worse` shows them (a lens's distortion or a half turn
    moves them)."""
    size = scene.image.shape[1::-1]
    bent = [replace(t, corners=moved(t.corners, worse, size), halves=moved(t.halves, worse, size)) for t in scene.tiles]
    return replace(scene, tiles=bent)


def matched(scene: DominoScene, dominoes: list[Domino]) -> dict[int, tuple[int, tuple[int, int]]]:
    """Readings matched to the truth one to one by where their two halves lie: reading index -> (truth
    index, the reading's pips in the truth's order)."""
    pairs: dict[int, tuple[int, tuple[int, int]]] = {}
    free = list(range(len(dominoes)))
    for t, truth in enumerate(scene.tiles):
        for k in free:
            order = truth.match(np.array([h.center for h in dominoes[k].halves]))
            if order is not None:
                free.remove(k)
                pairs[k] = (t, dominoes[k].pips if order else dominoes[k].pips[::-1])
                break
    return pairs


def score_scene(scene: DominoScene, dominoes: list[Domino]) -> DominoScore:
    """Each truth tile found, read right or not, and the readings that match none."""
    score = DominoScore(tiles=len(scene.tiles), detections=len(dominoes))
    found = {t: pips for t, pips in matched(scene, dominoes).values()}
    for t, truth in enumerate(scene.tiles):
        in_pi = truth.group == "pi"
        score.pi_tiles += in_pi
        label = f"{truth.pips[0]}|{truth.pips[1]}"
        if t not in found:
            score.confusions[f"{label}->missed"] = score.confusions.get(f"{label}->missed", 0) + 1
            continue
        score.found += 1
        pips = found[t]
        if pips == truth.pips:
            score.read_right += 1
            score.pi_read_right += in_pi
        else:
            key = f"{label}->{pips[0]}|{pips[1]}"
            score.confusions[key] = score.confusions.get(key, 0) + 1
    score.false_detections = len(dominoes) - score.found
    return score


def score_held_out(scene: DominoScene, spec: DominoSpec, dominoes: list[Domino]) -> DominoScore:
    """`score_scene`, and in a scene of pis how many `read_pis` gives whole."""
    score = score_scene(scene, dominoes)
    if spec.layout == "pis" and spec.top is not None:
        score.pis, score.pis_right = score_pis(scene, dominoes, DOUBLE_NINE if spec.top == 9 else DOUBLE_SIX)
    return score


def score_pis(scene: DominoScene, dominoes: list[Domino], setup: Setup) -> tuple[int, int]:
    """The scene's pis, and how many `read_pis` gives whole: every tile read right, and the pi's readings
    grouped alone as one pi, each on a slot of the shape."""
    _, groups = read_pis(dominoes, setup, scene.image.shape[1::-1])
    pairs = matched(scene, dominoes)
    labels = {t.pi for t in scene.tiles if t.pi is not None}
    right = 0
    for label in labels:
        members = {t for t, truth in enumerate(scene.tiles) if truth.pi == label}
        reads = {k for k, (t, _) in pairs.items() if t in members}
        read_right = len(reads) == len(members) and all(pairs[k][1] == scene.tiles[pairs[k][0]].pips for k in reads)
        right += read_right and any(
            set(g.dominoes) == reads and all(p.slot in setup.shape.index for p in g.placements) for g in groups
        )
    return len(labels), right


@dataclass
class Evaluation:
    total: DominoScore
    kinds: dict[str, DominoScore]
    tables: dict[str, DominoScore]
    wall_ms: float | None  # median over the 28-tile frames
    cpu_ms: float | None
    stage_ms: dict[str, float]

    def to_json(self) -> dict:
        return {
            **self.total.to_json(),
            "by_kind": {k: v.to_json() for k, v in sorted(self.kinds.items())},
            "by_table": {k: round(v.accuracy, 4) for k, v in sorted(self.tables.items())},
            "median_ms_28_tiles": None if self.wall_ms is None else round(self.wall_ms, 1),
            "median_cpu_ms_28_tiles": None if self.cpu_ms is None else round(self.cpu_ms, 1),
            "stage_ms": {k: round(v, 1) for k, v in self.stage_ms.items()},
            "confusions": dict(sorted(self.total.confusions.items(), key=lambda kv: -kv[1])[:12]),
        }


def evaluate_dominoes(
    scenes: int = 40,
    seed: int = 50_000_000,
    recognizer: DominoRecognizer | None = None,
    quiet: bool = False,
    worse: Degradation = Degradation.none,
    options: SceneOptions = SceneOptions(),
) -> Evaluation:
    """Every scene, changed by `options` and made `worse` (models/synth/degrade.py), is read twice and the second
    run timed, on one thread (OpenCV and ONNX Runtime)."""
    cv2.setNumThreads(1)
    recognizer = recognizer or DominoRecognizer(threads=1)
    result = Evaluation(DominoScore(), {}, {}, None, None, {})
    wall, cpu, stages = [], [], []
    indices = range(scenes)
    for i in indices if quiet else track(indices, description="reading held-out scenes", console=Console(stderr=True)):
        kind, spec = evaluation_spec(i, seed, options)
        scene = render_dominoes(seed + i, spec)
        tiles = [t.corners for t in scene.tiles]
        image = degrade(scene.image, worse, seed + i, tiles, px_per_mm(tiles, TILE_LONG_MM))
        scene = as_made_worse(scene, worse)
        recognizer(image)  # warm the caches
        t0, c0 = time.perf_counter(), time.thread_time()
        dominoes, timing = recognizer.timed(image)
        t1, c1 = time.perf_counter(), time.thread_time()
        if len(scene.tiles) == 28:
            wall.append((t1 - t0) * 1000)
            cpu.append((c1 - c0) * 1000)
            stages.append(timing)
        score = score_held_out(scene, spec, dominoes)
        result.total.add(score)
        result.kinds.setdefault(kind, DominoScore()).add(score)
        result.tables.setdefault(scene.table, DominoScore()).add(score)
    if wall:
        result.wall_ms, result.cpu_ms = statistics.median(wall), statistics.median(cpu)
        result.stage_ms = {k: statistics.median(s[k] for s in stages) for k in stages[0]}
    return result


def print_evaluation(
    result: Evaluation,
    scenes: int,
    seed: int,
    worse: Degradation = Degradation.none,
    options: SceneOptions = SceneOptions(),
) -> None:
    seeds = f"seeds {seed}..{seed + scenes - 1}{worsened(worse)}{options.described()}"
    table = Table(title=f"Dominoes, {scenes} held-out scenes ({seeds})")
    for column in ("scenes of", "tiles", "in pis", "found", "both halves right", "in pis right", "false detections"):
        table.add_column(column, justify="right")
    rows = [*sorted(result.kinds.items()), *sorted(result.tables.items()), ("all", result.total)]
    for name, sc in rows:
        table.add_row(
            name,
            str(sc.tiles),
            str(sc.pi_tiles),
            f"{sc.found / max(sc.tiles, 1):.2%}",
            f"{sc.accuracy:.2%}",
            f"{sc.pi_accuracy:.2%}",
            f"{sc.false_detections} ({sc.false_rate:.2%})",
        )
    console = Console()
    console.print(table)
    if result.total.pis:
        whole = result.total
        console.print(
            f"pis read whole (every tile right, grouped alone as one pi on the shape's slots): {whole.pis_right} of "
            f"{whole.pis} ({whole.pis_right / whole.pis:.1%})"
        )
    if result.wall_ms is not None:
        stages = ", ".join(f"{k.removesuffix('_ms')} {v:.1f}" for k, v in result.stage_ms.items())
        console.print(
            f"28-tile frames: median {result.wall_ms:.1f} ms wall, {result.cpu_ms:.1f} ms CPU on one thread ({stages})"
        )
    worst = sorted(result.total.confusions.items(), key=lambda kv: -kv[1])[:12]
    if worst:
        console.print("most frequent errors: " + ", ".join(f"{k} x{v}" for k, v in worst))
