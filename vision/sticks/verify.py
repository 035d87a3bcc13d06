"""Whether a measured bar is made of sticks or of the table's own pattern.

Tile joints, planks, stripes and veins make bars too. What tells them apart is a handful of measurements:
a stick is a few times longer than wide, stands out of the table's grain, keeps its width and line, and
does not go on in its own colour past its ends. A logistic regression weighs them; models/train_sticks.py
fits it on training renders and writes models/stick_verifier.json, loaded here on first use.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from vision.sticks.profile import Profile

VERIFIER_PATH = Path(__file__).resolve().parents[2] / "models" / "stick_verifier.json"
FEATURES = (
    "log_aspect",
    "log_width",
    "log_contrast_over_grain",
    "log_contrast",
    "coverage",
    "continuation",
    "wobble",
    "width_spread",
    "log_contrast_over_frame",
    "log_bars_in_frame",
)


@dataclass(frozen=True)
class Frame:
    """What the other bars of the frame say: on a patterned table there are many, and a stick stands out."""

    contrast: float  # the median contrast of the frame's bars
    bars: int

    @classmethod
    def of(cls, profiles: list[Profile]) -> Frame:
        return cls(float(np.median([p.contrast for p in profiles])) if profiles else 1.0, len(profiles))


def features(profile: Profile, frame: Frame) -> np.ndarray:
    """The measurements the verifier weighs, in the order of FEATURES."""
    width = max(profile.width, 1.0)
    return np.array(
        [
            math.log(max(profile.length, 1.0) / width),
            math.log(width),
            math.log(max(profile.contrast, 1.0) / max(profile.grain, 1.0)),
            math.log(max(profile.contrast, 1.0)),
            profile.coverage,
            profile.continuation,
            min(profile.wobble / width, 2.0),
            min(profile.width_spread, 2.0),
            math.log(max(profile.contrast, 1.0) / max(frame.contrast, 1.0)),
            math.log(1 + frame.bars),
        ]
    )


@dataclass(frozen=True)
class Verifier:
    """A logistic regression on standardised FEATURES; bars at `threshold` or above are sticks."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float

    def probability(self, profile: Profile, frame: Frame) -> float:
        z = float(((features(profile, frame) - self.mean) / self.scale) @ self.weights + self.bias)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_json(self) -> dict:
        return {
            "features": list(FEATURES),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "bias": self.bias,
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: dict) -> Verifier:
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"the verifier was fitted on features {data['features']}, not {list(FEATURES)}")
        return cls(
            np.array(data["mean"], float),
            np.array(data["scale"], float),
            np.array(data["weights"], float),
            float(data["bias"]),
            float(data["threshold"]),
        )


@cache
def load_verifier(path: Path = VERIFIER_PATH) -> Verifier:
    return Verifier.from_json(json.loads(path.read_text()))
