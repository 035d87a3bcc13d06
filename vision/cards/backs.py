"""Cards lying face down: the check that tells a card read from its back (Grid o' Digits lays its grid face down,
and the card classifier, which never learnt backs, reads a patterned back as an 8 or a 0), and from a paper note
written on by hand (a score sheet beside a race, tallies, a long number read as a Wild).

A small network (models/train_card_backs.py) looks at each card's crop as the classifier takes it and says
whether it shows a face, a back or a note.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from vision.cards.classify import crop_card
from vision.crops import to_tensor
from vision.onnx_session import check_classes, load_session, softmax

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_backs.onnx"
CLASSES = ("face", "back", "note")
# A card read anywhere whose back and note probabilities sum over this is no face: it lies face down, or is a note
# written on. Backs and notes are few on most tables (a deck beside a race, a score sheet), so a face must never be
# taken for one. Set for backs alone (models/card_backs.md): faces of designs the network never saw went as high as
# 0.88 on the seven held-out sets. With notes learnt too, those sets read as many cards right at it (7400).
NOT_FACE_ABOVE = 0.85


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

    def probabilities(self, image: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """For each card outline, the probability of each of CLASSES (n x 3): a face, a back, a note."""
        if not quads:
            return np.zeros((0, len(CLASSES)), np.float32)
        crops = [crop_card(image, quad) for quad in quads]
        return softmax(self.session.run(None, {self.input_name: to_tensor(crops)})[0])
