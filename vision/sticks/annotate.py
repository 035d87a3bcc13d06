"""Drawing read sticks onto a frame, kept apart from the reading itself."""

from __future__ import annotations

import cv2
import numpy as np

from vision.annotate import label
from vision.sticks.detections import Polystick, Stick

STICK_COLOUR = (255, 160, 40)
OFF_LATTICE_COLOUR = (60, 60, 230)
CARD_BACKGROUND = (120, 40, 0)


def annotate_sticks(image: np.ndarray, sticks: list[Stick], polysticks: list[Polystick]) -> np.ndarray:
    """A copy of `image` with each stick's middle line and ends, red where its group is off the lattice, and
    each group's DIGIT card number (or "?" for a group of five that is none) at its middle."""
    out = image.copy()
    scale = max(0.5, min(out.shape[:2]) / 900)
    off = {i for group in polysticks if not group.on_lattice for i in group.sticks}
    for i, stick in enumerate(sticks):
        a, b = (tuple(int(v) for v in np.round(end)) for end in stick.ends)
        colour = OFF_LATTICE_COLOUR if i in off else STICK_COLOUR
        cv2.line(out, a, b, colour, max(2, round(3 * scale)), cv2.LINE_AA)
        for end in (a, b):
            cv2.circle(out, end, max(3, round(5 * scale)), colour, -1, cv2.LINE_AA)
    for group in polysticks:
        if group.card is None and len(group.sticks) != 5:
            continue
        middle = np.mean([sticks[i].ends.mean(axis=0) for i in group.sticks], axis=0)
        label(out, f"card {group.card}" if group.card else "?", middle, scale * 1.2, CARD_BACKGROUND)
    return out
