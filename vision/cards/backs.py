"""Cards lying face down: the check that tells a card read from its back (Grid o' Digits lays its grid face down,
and the card classifier, which never learnt backs, reads a patterned back as an 8 or a 0).

A small network (models/train_card_backs.py) looks at each card's crop as the classifier takes it and says
whether it shows a face or a back.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from vision.cards.classify import crop_card
from vision.crops import to_tensor
from vision.onnx_session import check_classes, load_session, softmax

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_backs.onnx"
CLASSES = ("face", "back")
# A card read anywhere whose back probability is over this lies face down. Backs are few on most tables (a deck
# beside a race), so a face must never be taken for one: on 200 training-split scenes of the mix the network was
# not trained on (seeds 73600000..) no face read went over 0.5 (10 of 73 backs stayed under 0.85, 15 under 0.9),
# but faces of designs it never saw go higher: on the seven held-out sets a faint Wild on dark paper reached 0.88,
# the one face of 7404 read that 0.85 drops (models/card_backs.md).
BACK_ABOVE = 0.85


@functools.cache
def shipped_check() -> FaceDownCheck:
    """The shipped face-down network, loaded once for the process (a referee's watch and the evaluation alike)."""
    return FaceDownCheck()


class FaceDownCheck:
    """The face-down network, loaded once."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        self.session = load_session(model_path, threads)
        self.input_name = self.session.get_inputs()[0].name
        check_classes(model_path, CLASSES)

    def back_probability(self, image: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """For each card outline, the probability that it lies face down."""
        if not quads:
            return np.zeros(0, np.float32)
        crops = [crop_card(image, quad) for quad in quads]
        return softmax(self.session.run(None, {self.input_name: to_tensor(crops)})[0])[:, 1]
