"""Fit the stick verifier: which measured bars are sticks, and which the table's own pattern.

Renders training scenes (train stick styles and tables only), measures every bar the recogniser finds, labels
each by whether it lies on the true sticks, and fits a logistic regression on the verifier's features. The
threshold keeps nearly every true bar: a missed stick breaks a layout, a stray bar far from it does not.
Writes models/stick_verifier.json (weights and a manifest of how they were made).

    python -m models.train_sticks [--scenes 600] [--seed 0]
"""

from __future__ import annotations

import argparse
import datetime
import json

import cv2
import numpy as np

from models.synth.sticks import SCENE_KINDS, StickScene, StickSceneSpec, render_stick_scene
from vision.sticks.lattice import segment_distance
from vision.sticks.profile import Profile
from vision.sticks.recognize import measured_bars
from vision.sticks.verify import FEATURES, VERIFIER_PATH, Frame, Verifier, features

RECALL = 0.98  # share of true bars the threshold keeps
ON_STICKS, OFF_STICKS = 0.85, 0.4  # shares of a bar's length on true sticks
VALIDATION_SEED = 50_000_000


def on_sticks(profile: Profile, scene: StickScene) -> float:
    """The share of the bar's length that lies along the scene's true sticks."""
    samples = np.linspace(profile.a, profile.b, 12)
    near = []
    for p in samples:
        best = np.inf
        for stick in scene.sticks:
            length_px = float(np.linalg.norm(stick.ends[1] - stick.ends[0]))
            reach = max(4.0, 0.7 * length_px * scene.thickness_mm / scene.length_mm)
            best = min(best, segment_distance(p, *stick.ends.astype(np.float64))[0] / reach)
        near.append(best <= 1.0)
    return float(np.mean(near))


def collect(scenes: int, seed: int, split: str) -> tuple[np.ndarray, np.ndarray]:
    """Features of every measured bar in `scenes` renders (kinds in turn), and the share of each on sticks."""
    rows, shares = [], []
    for i in range(scenes):
        spec = StickSceneSpec(split=split, kind=SCENE_KINDS[i % len(SCENE_KINDS)])
        scene = render_stick_scene(seed + i, spec)
        profiles = measured_bars(scene.image)
        frame = Frame.of(profiles)
        for profile in profiles:
            rows.append(features(profile, frame))
            shares.append(on_sticks(profile, scene))
    return np.array(rows).reshape(-1, len(FEATURES)), np.array(shares)


def labelled(x: np.ndarray, share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bars along sticks (positive) and bars mostly off them (negative); a bar half on a stick teaches neither."""
    sure = (share >= ON_STICKS) | (share <= OFF_STICKS)
    return x[sure], share[sure] >= ON_STICKS


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2) -> Verifier:
    """Logistic regression by Newton's method on standardised features, then the RECALL threshold."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = np.column_stack([(x - mean) / scale, np.ones(len(x))])
    w = np.zeros(z.shape[1])
    penalty = l2 * len(x) * np.eye(z.shape[1])
    penalty[-1, -1] = 0.0
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -30, 30)))
        gradient = z.T @ (p - y) + penalty @ w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    scores = 1 / (1 + np.exp(-np.clip(z @ w, -30, 30)))
    threshold = float(np.quantile(scores[y], 1 - RECALL)) if y.any() else 0.5
    return Verifier(mean, scale, w[:-1], float(w[-1]), threshold)


def rates(verifier: Verifier, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    z = (x - verifier.mean) / verifier.scale @ verifier.weights + verifier.bias
    keep = 1 / (1 + np.exp(-np.clip(z, -30, 30))) >= verifier.threshold
    return {
        "bars": len(y),
        "stick_bars": int(y.sum()),
        "kept_stick_bars": round(float(keep[y].mean()), 4) if y.any() else 1.0,
        "kept_other_bars": round(float(keep[~y].mean()), 4) if (~y).any() else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    x, y = labelled(*collect(args.scenes, args.seed, "train"))
    verifier = fit(x, y)
    vx, vy = labelled(*collect(max(60, args.scenes // 5), VALIDATION_SEED, "heldout"))
    manifest = {
        "model": "stick bar verifier: logistic regression on vision.sticks.verify.FEATURES",
        "made": datetime.date.today().isoformat(),
        "script": "python -m models.train_sticks " + f"--scenes {args.scenes} --seed {args.seed}",
        "training": {"split": "train", "scenes": args.scenes, "seed": args.seed, **rates(verifier, x, y)},
        "validation": {"split": "heldout", "seed": VALIDATION_SEED, **rates(verifier, vx, vy)},
        "recall_target": RECALL,
    }
    VERIFIER_PATH.write_text(json.dumps({**verifier.to_json(), "manifest": manifest}, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
