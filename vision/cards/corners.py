"""The card-corner network (`vision.corners`): a card's own corners from a loose outline."""

from __future__ import annotations

from pathlib import Path

from vision.corners import CornerRefiner

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_corners.onnx"


def card_corners(threads: int = 1) -> CornerRefiner:
    """The corner network trained on cards (models/train_card_corners.py)."""
    return CornerRefiner(MODEL_PATH, threads)
