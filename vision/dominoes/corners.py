"""The tile-corner network (`vision.corners`): a domino tile's own corners from a loose outline."""

from __future__ import annotations

from pathlib import Path

from vision.corners import CornerRefiner

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "tile_corners.onnx"


def tile_corners(threads: int = 1) -> CornerRefiner:
    """The corner network trained on domino tiles (models/train_tile_corners.py)."""
    return CornerRefiner(MODEL_PATH, threads)
