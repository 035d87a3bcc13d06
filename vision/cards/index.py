"""6 and 9 told apart by a corner index.

A 6 turned half round is a 9, so a design without the underline tells them apart only by its small corner
index: one top left, or one in each of two opposite corners, the second turned half round as playing cards
print them. Either way an index read upright in its own corner is the card's digit, however the card lies. The
card classifier sees an index about 5 px tall in its 48x64 crop, too small to read. A small network
(models/train_card_index.py) reads two opposite corners of a card read as 6 or 9 from the frame itself, and
where the classifier was unsure, what the corners say surely settles the digit (models/card_index.md).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.cards.artwork import CardFace
from vision.crops import to_tensor
from vision.geometry import from_corner, warp_quad
from vision.onnx_session import check_classes, load_session, softmax

if TYPE_CHECKING:
    from vision.cards.recognize import Card

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "card_index.onnx"
CLASSES = ("none", "6", "9")
INDEX_SIZE = (32, 32)  # width, height of a corner's crop
# The corner region read, as shares of the card's width and height from its top-left corner (left, top, right,
# bottom): room for the artwork's index (centred at 14 % and 10 %, 8.5 % of the card tall), for one half as tall
# again or further in, and a margin outside the card, as an outline a little inside it would cut an index off.
REGION = (-0.04, -0.03, 0.36, 0.27)
# The corners' summed say (`told_by_index`) that settles the card's digit.
SURE_INDEX = 0.7
# The index overrules only a classifier this unsure: a design with the underline is read surely, and its corners
# may hold a mark the network never saw.
OVERRULE_BELOW = 0.95
SIX, NINE = CardFace("digit", (6,)), CardFace("digit", (9,))


@functools.cache
def shipped_index_reader() -> IndexReader:
    """The shipped index network, loaded once for the process."""
    return IndexReader()


def index_quad(corners: np.ndarray, region: tuple[float, float, float, float] = REGION) -> np.ndarray:
    """The image quad of the corner `region` (as REGION) at the card's own top-left (`corners`: its TL, TR, BR,
    BL)."""
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    to_image = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    left, top, right, bottom = region
    points = np.float32([[left, top], [right, top], [right, bottom], [left, bottom]]).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, to_image).reshape(4, 2)


def index_crops(
    image: np.ndarray, corners: np.ndarray, region: tuple[float, float, float, float] = REGION
) -> list[np.ndarray]:
    """The card's top-left and bottom-right corner regions, each cropped upright as its own index would read."""
    return [warp_quad(image, index_quad(from_corner(corners, k), region), INDEX_SIZE) for k in (0, 2)]


class IndexReader:
    """The index network, loaded once."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        self.session = load_session(model_path, threads)
        self.input_name = self.session.get_inputs()[0].name
        check_classes(model_path, CLASSES)

    def probabilities(self, image: np.ndarray, corners: list[np.ndarray]) -> np.ndarray:
        """(n, 2, len(CLASSES)): for each card, its top-left and bottom-right corners' class probabilities."""
        if not corners:
            return np.zeros((0, 2, len(CLASSES)), np.float32)
        crops = [crop for quad in corners for crop in index_crops(image, quad)]
        logits = self.session.run(None, {self.input_name: to_tensor(crops)})[0]
        return softmax(logits).reshape(len(corners), 2, len(CLASSES))

    def settled(self, image: np.ndarray, cards: list[Card]) -> list[Card]:
        """The cards, each 6 or 9 whose corner index says surely which it is read as the index says, where
        the classifier was unsure (OVERRULE_BELOW); its corners turned half round when that overrules the
        classifier."""
        sixes_and_nines = [
            i for i, card in enumerate(cards) if card.face in (SIX, NINE) and card.confidence < OVERRULE_BELOW
        ]
        probs = self.probabilities(image, [cards[i].corners for i in sixes_and_nines])
        settled = list(cards)
        for i, p in zip(sixes_and_nines, probs, strict=True):
            face = told_by_index(p)
            if face is not None and face != cards[i].face:
                settled[i] = replace(cards[i], face=face, corners=from_corner(cards[i].corners, 2))
        return settled


def told_by_index(p: np.ndarray) -> CardFace | None:
    """The digit a card's two corners (2, len(CLASSES)) say surely, or None. Each corner's say is how much
    likelier it reads 6 than 9, and the two are summed: a blank corner says little either way, and two faint
    indices that agree add up."""
    say = float((p[:, 1] - p[:, 2]).sum())
    if say >= SURE_INDEX:
        return SIX
    if say <= -SURE_INDEX:
        return NINE
    return None
