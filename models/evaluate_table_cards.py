"""Accuracy and speed of the DIGIT card reader (vision/sticks/cards.py) on rendered tables.

Card scenes (models/synth/scenes.py) lay printed DIGIT cards in place of three in five of their cards, among
Decko digit cards, notes, Reference cards, coins and pens, at any angle under a webcam's perspective and light.
A card counts as read when the reader gives its number with corners near its own, the number's side first.
False cards are the cards read that lie on no DIGIT card, or read with the wrong number, on those scenes and
on scenes of Decko cards alone, of dominoes and of sticks.

    python -m models.evaluate_table_cards [--scenes 60] [--seed 5000]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from models.synth.dominoes import DominoSpec, render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.synth.sticks import StickSceneSpec, render_stick_scene
from models.synth.tables import HELDOUT_TABLES, TRAIN_TABLES
from vision.geometry import points_in_quads
from vision.sticks.cards import DigitCard, card_outlines, read_digit_cards

SHARE = 0.6  # of a card scene's cards laid as DIGIT cards
CORNER_ERROR = 0.15  # of the card's height: the most a corner read may lie from the card's own


@dataclass
class CardScore:
    cards: int = 0
    right: int = 0
    wrong: int = 0  # read with another number, or the wrong way round
    false: int = 0  # read where no DIGIT card lies
    frames: int = 0
    milliseconds: list[float] = field(default_factory=list)  # CPU per frame: outlines found and read
    reading_ms: list[float] = field(default_factory=list)  # of which reading the outlines
    missed: Counter = field(default_factory=Counter)  # by table kind

    def to_json(self) -> dict:
        ms, reading = self.milliseconds or [0.0], self.reading_ms or [0.0]
        return {
            "cards": self.cards,
            "read_right": round(self.right / max(self.cards, 1), 4),
            "wrong": self.wrong,
            "false": self.false,
            "frames": self.frames,
            "ms_median": round(float(np.median(ms)), 1),
            "ms_p90": round(float(np.percentile(ms, 90)), 1),
            "reading_ms_median": round(float(np.median(reading)), 1),
            "reading_ms_p90": round(float(np.percentile(reading, 90)), 1),
            "missed_by_table": dict(self.missed.most_common()),
        }


def score_frame(score: CardScore, truth: list[tuple[int, np.ndarray]], found: list[DigitCard], table: str = "") -> None:
    """Count one frame's readings against its DIGIT cards (number, corners as `Scene.stick_cards`)."""
    read = set()
    for card in found:
        centre = card.corners.mean(axis=0, keepdims=True)
        under = [i for i, (_, corners) in enumerate(truth) if points_in_quads(centre, [corners])[0, 0]]
        if not under:
            score.false += 1
            continue
        number, corners = truth[under[0]]
        size = float(np.linalg.norm(corners[3] - corners[0]))
        near = float(np.abs(card.corners - corners).max()) <= CORNER_ERROR * size
        if card.card == number and near and under[0] not in read:
            score.right += 1
            read.add(under[0])
        else:
            score.wrong += 1
    score.cards += len(truth)
    score.frames += 1
    score.missed[table] += len(truth) - len(read)


def timed_read(image: np.ndarray, score: CardScore) -> list[DigitCard]:
    """`read_digit_cards` with the CPU time of the whole and of the reading after the outline search."""
    start = time.process_time()
    quads = card_outlines(image)
    located = time.process_time()
    found = read_digit_cards(image, quads)
    end = time.process_time()
    score.milliseconds.append((end - start) * 1000)
    score.reading_ms.append((end - located) * 1000)
    return found


def evaluate_table_cards(scenes: int = 60, seed: int = 5_000) -> dict[str, dict]:
    """Per split (train and held-out tables, fonts and Decko designs): cards read right, wrong and false on
    `scenes` card scenes of each table kind in turn; false cards on `scenes` frames each of Decko cards
    alone, dominoes and sticks."""
    read_digit_cards(render_scene(seed).image)  # the faces are drawn once, on the first call
    summary: dict[str, dict] = {}
    for split, kinds in (("train", TRAIN_TABLES), ("heldout", HELDOUT_TABLES)):
        score = CardScore()
        for k in range(scenes):
            table = kinds[k % len(kinds)]
            scene = render_scene(seed + k, SceneSpec(split=split, table=table, stick_cards=SHARE, n_cards=(3, 8)))
            score_frame(score, scene.stick_cards, timed_read(scene.image, score), table)
        summary[split] = score.to_json()
    others = {
        "decko_cards": lambda s: render_scene(s, SceneSpec(split="heldout")).image,
        "dominoes": lambda s: render_dominoes(s, DominoSpec(split="heldout")).image,
        "sticks": lambda s: render_stick_scene(s, StickSceneSpec(split="heldout")).image,
    }
    for name, render in others.items():
        score = CardScore()
        for k in range(scenes):
            score_frame(score, [], timed_read(render(seed + k), score))
        figures = score.to_json()
        summary[name] = {"frames": score.frames, "false": score.false} | {
            k: figures[k] for k in ("ms_median", "reading_ms_median")
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=60, help="Frames of each kind.")
    parser.add_argument("--seed", type=int, default=5_000, help="First scene seed.")
    args = parser.parse_args()
    for name, figures in evaluate_table_cards(args.scenes, args.seed).items():
        print(f"{name:>12}: {json.dumps(figures)}")


if __name__ == "__main__":
    main()
