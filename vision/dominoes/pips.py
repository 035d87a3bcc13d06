"""Read a proposed tile from its upright crop: the pips of each half, and whether it is a tile at all.

One small network answers three questions at once from the full-resolution crop: the pip count of the
top half, of the bottom half, and whether the crop holds exactly one tile with its divider at the middle.
The last is the structural check behind the locator: a proposal straddling the junction of two tiles end to
end, or two tiles side by side, shows two half-tiles and a seam, not a divider between its own two ends.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.crops import to_tensor
from vision.dominoes.detection import MAX_PIPS
from vision.onnx_session import load_session, quantized, softmax

N_COUNTS = MAX_PIPS + 1
MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "dominoes_pips.onnx"
# The same network trained on with crops blurred as by a moving camera (models/finetune_pips.py): it reads
# blurred pips better, and lets a few more look-alikes through, so it only reads again what MODEL_PATH doubts.
BLURRED_MODEL_PATH = MODEL_PATH.with_name("dominoes_pips_blurred.onnx")


def output_names() -> list[str]:
    """The network's outputs in order, recorded in the model's manifest."""
    return [*(f"first:{n}" for n in range(N_COUNTS)), *(f"second:{n}" for n in range(N_COUNTS)), "tile"]


class PipReader:
    """The pip-count network, loaded once and run on a batch of crops."""

    def __init__(self, model_path: Path | None = None, threads: int = 1) -> None:
        """`model_path` defaults to the 8-bit model made from MODEL_PATH (models/quantize.py)."""
        model_path = model_path or quantized(MODEL_PATH)
        self.session = load_session(model_path, threads)
        manifest = json.loads(model_path.with_suffix(".json").read_text())
        if manifest["outputs"] != output_names():
            raise ValueError(f"{model_path.name} was trained for other outputs; run `python -m models.train_dominoes`")
        self.input_name = self.session.get_inputs()[0].name

    def read(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per crop: count probabilities of the first (top) half (N, 10), of the second (N, 10), and the
        probability that the crop is one tile (N,)."""
        if not crops:
            return np.zeros((0, N_COUNTS), np.float32), np.zeros((0, N_COUNTS), np.float32), np.zeros(0, np.float32)
        logits = self.session.run(None, {self.input_name: to_tensor(crops)})[0]
        first, second = softmax(logits[:, :N_COUNTS]), softmax(logits[:, N_COUNTS : 2 * N_COUNTS])
        return first, second, 1 / (1 + np.exp(-logits[:, -1]))
