"""Drawing read dominoes onto a frame, kept apart from the reading itself."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dominoes.detection import Domino

TILE_COLOUR = (0, 200, 255)
LABEL_BACKGROUND = (160, 60, 0)


def annotate_dominoes(
    image: np.ndarray, dominoes: list[Domino], labels: list[tuple[str, np.ndarray]] | None = None
) -> np.ndarray:
    """A copy of `image` with each tile's outline, its divider, each half's count on the half, and any
    `labels` (text, where), such as each pi's number at its middle."""
    out = image.copy()
    scale = max(0.5, min(out.shape[:2]) / 900)
    thick = max(1, round(2 * scale))
    for domino in dominoes:
        corners = np.round(domino.corners).astype(np.int32)
        cv2.polylines(out, [corners], True, TILE_COLOUR, thick, cv2.LINE_AA)
        left, right = (domino.corners[0] + domino.corners[3]) / 2, (domino.corners[1] + domino.corners[2]) / 2
        cv2.line(out, tuple(np.round(left).astype(int)), tuple(np.round(right).astype(int)), TILE_COLOUR, thick)
        for half in domino.halves:
            _label(out, str(half.pips), half.center, scale)
    for text, at in labels or ():
        _label(out, text, np.asarray(at), scale * 1.3, LABEL_BACKGROUND)
    return out


def _label(
    image: np.ndarray, text: str, at: np.ndarray, scale: float, background: tuple[int, int, int] = (0, 0, 0)
) -> None:
    font, size, thick = cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, max(1, round(2 * scale))
    (tw, th), _ = cv2.getTextSize(text, font, size, thick)
    x, y = int(at[0] - tw / 2), int(at[1] + th / 2)
    cv2.rectangle(image, (x - 2, y - th - 3), (x + tw + 2, y + 4), background, -1)
    cv2.putText(image, text, (x, y), font, size, (255, 255, 255), thick, cv2.LINE_AA)
