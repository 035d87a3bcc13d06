"""Drawing what was read onto the frame, kept apart from the reading itself."""

from __future__ import annotations

from itertools import pairwise

import cv2
import numpy as np

from vision.cards.recognize import Card

CARD_COLOUR = (40, 200, 40)
ORDER_COLOUR = (255, 160, 0)


def annotate_cards(image: np.ndarray, cards: list[Card], order: list[Card] | None = None) -> np.ndarray:
    """A copy of `image` with each card's outline, its top edge thicker, and its reading."""
    out = image.copy()
    scale = max(0.5, min(out.shape[:2]) / 900)
    for card in cards:
        pts = np.round(card.corners).astype(np.int32)
        cv2.polylines(out, [pts], True, CARD_COLOUR, max(1, round(2 * scale)), cv2.LINE_AA)
        cv2.line(out, tuple(pts[0]), tuple(pts[1]), CARD_COLOUR, max(2, round(5 * scale)), cv2.LINE_AA)
        label = f"{card.face.label} {card.confidence:.2f}"
        _label(out, label, card.center, scale)
    if order:
        centers = [tuple(np.round(c.center).astype(int)) for c in order]
        for i, (a, b) in enumerate(pairwise(centers)):
            cv2.arrowedLine(out, a, b, ORDER_COLOUR, max(1, round(2 * scale)), cv2.LINE_AA, tipLength=0.15)
            _label(out, str(i + 1), (np.array(a) + np.array(b)) / 2, scale * 0.8)
    return out


def _label(image: np.ndarray, text: str, at: np.ndarray, scale: float) -> None:
    font, size, thick = cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, max(1, round(2 * scale))
    (tw, th), _ = cv2.getTextSize(text, font, size, thick)
    x, y = int(at[0] - tw / 2), int(at[1] + th / 2)
    cv2.rectangle(image, (x - 3, y - th - 4), (x + tw + 3, y + 5), (0, 0, 0), -1)
    cv2.putText(image, text, (x, y), font, size, (255, 255, 255), thick, cv2.LINE_AA)
