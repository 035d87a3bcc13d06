"""Read a card from its outline: warp to an upright crop, classify with the ONNX model.

The model answers face and orientation at once: each face upright, each face half-turned, "sideways"
(the outline was taken the wrong way round, which a steep view can cause) and "not a card".
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.cards.artwork import FACE_CLASSES, CardFace
from vision.crops import to_tensor
from vision.geometry import from_corner, portrait_order, quad_aspect, warp_quad
from vision.onnx_session import check_classes, load_session, quantized, softmax

CROP_SIZE = (48, 64)  # width, height: a portrait card
N_FACES = len(FACE_CLASSES)
SIDEWAYS = 2 * N_FACES
NOT_CARD = 2 * N_FACES + 1
N_CLASSES = NOT_CARD + 1
# Below this long/short ratio the view may have swapped the card's sides: try both readings.
AMBIGUOUS_ASPECT = 1.3

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "digit_cards.onnx"
# The classifier trained on from MODEL_PATH with blurred frames added (models/finetune_cards.py) reads again
# the crops the first doubts, and the surer answer stands. Alone it read 32 more of 1092 cards in motion-blurred
# frames but 7 fewer of 4314 in sharp ones; as a second opinion, 37 more blurred and 4 more sharp.
BLURRED_MODEL_PATH = MODEL_PATH.with_name("digit_cards_blurred.onnx")
# A crop whose likeliest class has less probability than this is doubted. At 0.9 as many cards were read, at
# 15 ms more a frame on the close-up sample, against 3 ms.
SECOND_OPINION_BELOW = 0.5


def crop_card(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    return warp_quad(image, quad, CROP_SIZE)


@dataclass(frozen=True, slots=True)
class Reading:
    face: CardFace
    corners: np.ndarray  # the card's own top-left, top-right, bottom-right, bottom-left in image pixels
    confidence: float
    rejected: bool = False  # a near miss: the model's likelier answer was "not a card" or "sideways"


class CardClassifier:
    """The digit-card model, loaded once and run on batches of outlines."""

    def __init__(
        self, model_path: Path | None = None, threads: int = 1, second_opinion: CardClassifier | None = None
    ) -> None:
        """`model_path` defaults to the 8-bit model made from MODEL_PATH (models/quantize.py). The crops it
        doubts are read by `second_opinion` too, if given (`shipped`)."""
        model_path = model_path or quantized(MODEL_PATH)
        self.session = load_session(model_path, threads)
        self.input_name = self.session.get_inputs()[0].name
        self.second_opinion = second_opinion
        check_classes(model_path, class_names())

    @classmethod
    def shipped(cls, threads: int = 1) -> CardClassifier:
        """The reader's classifier: the 8-bit model, with the 8-bit one trained on blurred frames as its
        second opinion."""
        return cls(threads=threads, second_opinion=cls(quantized(BLURRED_MODEL_PATH), threads))

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (n, N_CLASSES) of the crops; a doubted crop takes the second opinion's where
        that one is surer of its answer."""
        p = self._probabilities(crops)
        if self.second_opinion is None:
            return p
        doubted = np.flatnonzero(p.max(axis=1) < SECOND_OPINION_BELOW)
        if len(doubted):
            second = self.second_opinion.probabilities([crops[i] for i in doubted])
            surer = second.max(axis=1) > p[doubted].max(axis=1)
            p[doubted[surer]] = second[surer]
        return p

    def _probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, N_CLASSES), np.float32)
        return softmax(self.session.run(None, {self.input_name: to_tensor(crops)})[0])

    def read(
        self,
        image: np.ndarray,
        quads: list[np.ndarray],
        near_misses: float | None = None,
        faces: Collection[CardFace] | None = None,
        either_way: bool = True,
    ) -> list[Reading | None]:
        """One reading per outline, or None where the outline is not a card. With `near_misses`, an outline
        judged not a card whose likeliest face still has that much confidence comes back `rejected`. With
        `faces`, only those are read, as a game whose deck holds no others would; without `either_way`, the
        card is read only as lying the way its outline's corners say (the first at its top-left), as a card
        in a line laid facing one way does. The probabilities are then taken as given that the card is none
        of the rest."""
        candidates: list[tuple[int, np.ndarray]] = []
        for i, quad in enumerate(quads):
            upright = portrait_order(quad)
            candidates.append((i, upright))
            if either_way and quad_aspect(quad) < AMBIGUOUS_ASPECT:
                candidates.append((i, from_corner(upright, 1)))
        probs = self.probabilities([crop_card(image, q) for _, q in candidates])
        if faces is not None or not either_way:
            allowed = np.array([faces is None or f in faces for f in FACE_CLASSES])
            probs = probs * np.concatenate([allowed, allowed & either_way, [True, True]])  # sideways, not a card stay
            probs /= probs.sum(axis=1, keepdims=True)
        best: list[Reading | None] = [None] * len(quads)
        for (i, quad), p in zip(candidates, probs, strict=True):
            # Which face it is and which way up it lies are separate questions: doubt about the turn (a blurred
            # 0 or 8, a low-contrast index) must not count as doubt about the face.
            upright, turned = p[:N_FACES], p[N_FACES:SIDEWAYS]
            face_index = int(np.argmax(upright + turned))
            confidence = float(upright[face_index] + turned[face_index])
            rejected = confidence < max(p[SIDEWAYS], p[NOT_CARD])
            if rejected and (near_misses is None or confidence < near_misses):
                continue
            corners = from_corner(quad, 2) if turned[face_index] > upright[face_index] else quad
            reading = Reading(FACE_CLASSES[face_index], corners.astype(np.float32), confidence, rejected)
            if best[i] is None or (not rejected, confidence) > (not best[i].rejected, best[i].confidence):
                best[i] = reading
        return best


def class_names() -> list[str]:
    faces = [f.label for f in FACE_CLASSES]
    return [*faces, *(f"{label}@180" for label in faces), "sideways", "not_card"]
