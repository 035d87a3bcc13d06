"""Loading an ONNX model for inference: one place for the threading policy and the missing-model message."""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort


def load_session(model_path: Path, threads: int = 1) -> ort.InferenceSession:
    """A CPU session with `threads` intra-op threads; the live loop runs one recogniser per core."""
    if not model_path.is_file():
        raise FileNotFoundError(f"model not found at {model_path}; run `make train` to build it")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
