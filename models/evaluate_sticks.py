"""Accuracy and speed of the stick recogniser on held-out renders (stick styles and tables tuning never used)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from models.synth.degrade import Degradation, degrade, moved, px_per_mm
from models.synth.sticks import StickScene, StickSceneSpec, render_stick_scene
from vision.sticks.detections import Polystick, Stick
from vision.sticks.lattice import end_distance
from vision.sticks.recognize import StickRecognizer

CARDS = 55


def end_tolerance(truth: np.ndarray) -> float:
    """How far (px) a found stick's ends may lie from a true stick's (ends 2x2) to count as it: 8 px or 15 %."""
    return max(8.0, 0.15 * float(np.linalg.norm(truth[1] - truth[0])))


def match_sticks(scene: StickScene, sticks: list[Stick]) -> dict[int, int]:
    """Truth index -> found index, one to one, where both ends lie within `end_tolerance` of the truth."""
    pairs = []
    for t, truth in enumerate(scene.sticks):
        tolerance = end_tolerance(truth.ends)
        for f, stick in enumerate(sticks):
            error = end_distance(stick.ends, truth.ends)
            if error <= tolerance:
                pairs.append((error, t, f))
    matched: dict[int, int] = {}
    used = set()
    for _, t, f in sorted(pairs):
        if t not in matched and f not in used:
            matched[t] = f
            used.add(f)
    return matched


def _layout_group(polysticks: list[Polystick], found: set[int]) -> Polystick | None:
    """The group holding the most of the scene's sticks."""
    best = max(polysticks, key=lambda p: len(found & set(p.sticks)), default=None)
    return best if best is not None and found & set(best.sticks) else None


@dataclass
class StickScore:
    lattice: int = 0
    lattice_right: int = 0
    illegal: int = 0
    illegal_flagged: int = 0
    illegal_carded: int = 0  # broken layouts read as a card: the referee would pass a broken move
    pickup: int = 0
    pickup_count_right: int = 0
    pickup_all_found: int = 0
    truth_sticks: int = 0
    found_sticks: int = 0
    detections: int = 0
    false_detections: int = 0
    milliseconds: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)

    def note(self, key: str) -> None:
        self.errors[key] = self.errors.get(key, 0) + 1

    def summary(self) -> dict:
        def share(a: int, b: int) -> float:
            return round(a / b, 4) if b else 1.0

        return {
            "lattice_scenes": self.lattice,
            "shape_accuracy": share(self.lattice_right, self.lattice),
            "illegal_scenes": self.illegal,
            "illegal_flagged": share(self.illegal_flagged, self.illegal),
            "illegal_read_as_card": share(self.illegal_carded, self.illegal),
            "pickup_scenes": self.pickup,
            "pickup_count_right": share(self.pickup_count_right, self.pickup),
            "pickup_all_ends_right": share(self.pickup_all_found, self.pickup),
            "stick_recall": share(self.found_sticks, self.truth_sticks),
            "false_detections": self.false_detections,
            "false_detection_rate": share(self.false_detections, self.detections),
            "median_ms": round(statistics.median(self.milliseconds), 2) if self.milliseconds else None,
            "errors": dict(sorted(self.errors.items(), key=lambda kv: -kv[1])),
        }


def score_scene(score: StickScore, scene: StickScene, sticks: list[Stick], polysticks: list[Polystick]) -> bool:
    """Add one scene's reading to `score`; whether the scene was read right."""
    matched = match_sticks(scene, sticks)
    score.truth_sticks += len(scene.sticks)
    score.found_sticks += len(matched)
    score.detections += len(sticks)
    score.false_detections += len(sticks) - len(matched)
    group = _layout_group(polysticks, set(matched.values()))
    if scene.kind == "lattice":
        score.lattice += 1
        right = any(p.card == scene.card for p in polysticks)
        score.lattice_right += right
        if not right:
            if len(matched) < 5:
                score.note("lattice: stick missed")
            elif group is not None and len(group.sticks) > 5:
                score.note("lattice: extra stick joined")
            elif group is not None and not group.on_lattice:
                score.note("lattice: read off the lattice")
            else:
                score.note("lattice: wrong shape")
        return right
    if scene.kind.startswith("illegal"):
        score.illegal += 1
        moved = matched.get(len(scene.sticks) - 1)  # the renderer lists the moved stick last
        holder = next((p for p in polysticks if moved in p.sticks), None)
        flagged = holder is not None and not holder.on_lattice and all(p.card is None for p in polysticks)
        score.illegal_flagged += flagged
        score.illegal_carded += any(p.card is not None for p in polysticks)
        if not flagged:
            score.note(f"{scene.kind}: read as legal")
        return flagged
    score.pickup += 1
    count_right = len(sticks) == len(scene.sticks)
    all_found = count_right and len(matched) == len(scene.sticks)
    score.pickup_count_right += count_right
    score.pickup_all_found += all_found
    if not all_found:
        score.note("pickup: too many sticks" if len(sticks) > len(scene.sticks) else "pickup: stick missed or off")
    return all_found


def as_made_worse(scene: StickScene, worse: Degradation) -> StickScene:
    """The scene with its sticks where its frame made `worse` shows them (a lens's distortion or a half turn
    moves them)."""
    size = scene.image.shape[1::-1]
    return replace(scene, sticks=[replace(s, ends=moved(s.ends, worse, size)) for s in scene.sticks])


def scene_spec(index: int, split: str, scenes: int, material: str | None = None) -> StickSceneSpec:
    """The index-th scene of an evaluation of `scenes` lattice layouts: all 55 cards in turn, then the
    illegal and pick-up-sticks scenes (a third as many of each); every stick of `material` if given."""
    extra = max(1, scenes // 3)
    if index < scenes:
        return StickSceneSpec(split=split, kind="lattice", card=index % CARDS + 1, material=material)
    kind = "illegal" if index < scenes + extra else "pickup"
    return StickSceneSpec(split=split, kind=kind, material=material)


def scene_count(scenes: int) -> int:
    """All the scenes an evaluation of `scenes` lattice layouts reads."""
    return scenes + 2 * max(1, scenes // 3)


def evaluate_sticks(
    scenes: int,
    seed: int,
    split: str = "heldout",
    recognizer: StickRecognizer | None = None,
    on_scene: Callable[[], None] | None = None,
    worse: Degradation = Degradation.none,
    material: str | None = None,
) -> dict:
    """Read `scenes` held-out lattice layouts (cards 1..55 in turn), scenes // 3 illegal layouts and as many
    pick-up-sticks heaps, seeds from `seed`, every stick of `material` if given (else drawn per scene), each
    made `worse` first (models/synth/degrade.py); return the shares read right and the median CPU
    milliseconds per frame with OpenCV on one thread. `on_scene` is called after each scene (a progress bar)."""
    recognizer = recognizer or StickRecognizer()
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    score = StickScore()
    try:
        for index in range(scene_count(scenes)):
            scene = render_stick_scene(seed + index, scene_spec(index, split, scenes, material))
            sticks = [s.ends for s in scene.sticks]
            laid = sticks + [corners for _, corners in scene.cards]
            image = degrade(scene.image, worse, seed + index, laid, px_per_mm(sticks, scene.length_mm))
            # CPU time: on a shared machine the wall clock also counts other programs' turns.
            start = time.process_time()
            sticks, polysticks = recognizer(image)
            score.milliseconds.append((time.process_time() - start) * 1000)
            score_scene(score, as_made_worse(scene, worse), sticks, polysticks)
            if on_scene:
                on_scene()
    finally:
        cv2.setNumThreads(threads)
    return score.summary()
