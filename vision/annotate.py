"""Drawing what was read onto the frame, kept apart from the reading itself."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards.recognize import Card

CARD_COLOUR = (40, 200, 40)
ORDER_COLOUR = (0, 140, 255)


def annotate_cards(image: np.ndarray, cards: list[Card], order: list[Card] | None = None) -> np.ndarray:
    """A copy of `image` with each card's outline (its top edge thicker), its reading on it and, when an
    `order` is given, each card's place in it at the card's top-left corner (the Starter is 0)."""
    out = image.copy()
    scale = max(0.5, min(out.shape[:2]) / 900)
    for card in cards:
        pts = np.round(card.corners).astype(np.int32)
        cv2.polylines(out, [pts], True, CARD_COLOUR, max(1, round(2 * scale)), cv2.LINE_AA)
        cv2.line(out, tuple(pts[0]), tuple(pts[1]), CARD_COLOUR, max(2, round(5 * scale)), cv2.LINE_AA)
        label(out, f"{card.face.label} {card.confidence:.2f}", card.center, scale * 0.8, (0, 0, 0))
    for place, card in enumerate(order or []):
        corner = card.corners[0] + (card.center - card.corners[0]) * 0.18
        label(out, str(place), corner, scale * 0.8, ORDER_COLOUR)
    return out


def label(image: np.ndarray, text: str, at: np.ndarray, scale: float, background: tuple[int, int, int]) -> None:
    """`text` in white on a `background` box centred on `at`, drawn into `image`."""
    font, size, thick = cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, max(1, round(1.6 * scale))
    (tw, th), _ = cv2.getTextSize(text, font, size, thick)
    x, y = int(at[0] - tw / 2), int(at[1] + th / 2)
    cv2.rectangle(image, (x - 3, y - th - 4), (x + tw + 3, y + 5), background, -1)
    cv2.putText(image, text, (x, y), font, size, (255, 255, 255), thick, cv2.LINE_AA)
