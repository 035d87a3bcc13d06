"""Loading an ONNX model for inference: one place for the threading policy, the missing-model message and
the 8-bit models' link to the float ones they were made from (models/quantize.py)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort

# An x86 CPU without VNNI multiplies the 8-bit networks' uint8 inputs by their int8 weights in pairs summed into
# int16, which the weights overflow (models/digit_cards.md, sixty-fifth session). This makes onnxruntime run its
# exact uint8 x uint8 kernels there; a CPU with VNNI, or not x86, and a float model are run as without it.
EXACT_8_BIT = "session.x64quantprecision"


def load_session(model_path: Path, threads: int = 1) -> ort.InferenceSession:
    """A CPU session with `threads` intra-op threads (the live loop runs one recogniser per core) that computes
    an 8-bit model on every CPU as a VNNI CPU does, up to the float rounding of its last step."""
    if not model_path.is_file():
        raise FileNotFoundError(f"model not found at {model_path}; run `make train` to build it")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry(EXACT_8_BIT, "1")
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def check_classes(model_path: Path, classes: Sequence[str]) -> None:
    """Refuse a classifier whose manifest names other classes than the code reads: a model left from before a
    change to them would otherwise read every crop as the wrong class."""
    if json.loads(model_path.with_suffix(".json").read_text())["classes"] != list(classes):
        raise ValueError(f"{model_path.name} was trained for other classes; run `make train`")


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def quantized_path(model_path: Path) -> Path:
    """Where the 8-bit model made from the float one at `model_path` lies: beside it, `NAME.int8.onnx`."""
    return model_path.with_name(f"{model_path.stem}.int8.onnx")


def quantized(model_path: Path) -> Path:
    """The 8-bit model made from the float one at `model_path`, checked to be made from that very file: a
    model trained again and not quantized again would otherwise go on reading with the old weights."""
    path = quantized_path(model_path)
    manifest = path.with_suffix(".json")
    if not path.is_file() or not manifest.is_file():
        raise FileNotFoundError(f"8-bit model not found at {path}; run `python -m models.quantize`")
    if json.loads(manifest.read_text())["quantized"]["from_sha256"] != file_digest(model_path):
        raise ValueError(f"{path.name} was made from another {model_path.name}; run `python -m models.quantize`")
    return path


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities from a network's logits (n, classes), row by row."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
