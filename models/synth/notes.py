"""Paper notes written on by hand, as they lie beside a game: a score sheet, tally marks, a doodle, digits of pi
copied out, a long number. Card-shaped but no card: before the face-down check learnt them (vision/cards/backs.py),
the card reader read about one note in six written on so as a card, a long number most often as a Wild.

The held-out split writes with OpenCV's Hershey stroke fonts (its script faces among them) and doodles in boxes,
rings and arrows; the training split writes with TrueType faces of the training font families and doodles in
free squiggles. What is written (scores, tallies, pi, numbers) is drawn alike in both. A number is three digits
or more, and nothing is written a single large digit: a note so written is a card made by hand.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

NOTE_PX = (126, 176)  # width, height of a note's art, as the blank notes' (a card scaled 0.8-1.3 on the table)
KINDS = ("scores", "tally", "doodle", "pi", "number")
INKS = ((35, 35, 40), (30, 50, 150), (150, 30, 30), (105, 105, 110))  # RGB: black, blue and red pen, pencil
NAMES = ("Ann", "Bob", "Zoe", "Max", "Eva", "Tom", "Lea", "Sam", "Ines", "Paul", "me", "you", "round", "total")
PI_DIGITS = "3.14159265358979323846264338327950288419716939937510"
HERSHEY = (
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX,
)
MOST_SLANT = 0.25  # the writing's shear, either way


def written_note(rng: random.Random, fonts: tuple[str, ...], heldout: bool) -> np.ndarray:
    """A note's art (NOTE_PX, RGBA uint8): paper, lined or not, and one kind of writing (KINDS) in one ink,
    slanted as a hand slants it. `fonts`: the split's TrueType faces (the training split writes with them)."""
    width, height = NOTE_PX
    paper = np.array([rng.randint(225, 255) for _ in range(3)], np.float32)
    art = np.empty((height, width, 3), np.float32)
    art[:] = paper
    if rng.random() < 0.4:
        for y in range(20, height, rng.randint(10, 18)):
            art[y : y + 1, 8:-8] = (150, 170, 210)
    ink = np.zeros((height, width), np.uint8)
    pen = rng.choice((1, 1, 2))
    kind = rng.choice(KINDS)
    write = _hershey_text if heldout else _truetype_text(fonts)
    if kind == "scores":
        y = rng.randint(16, 28)
        while y < height - 8:
            text = f"{rng.choice(NAMES)} {rng.randint(0, 60)}" if rng.random() < 0.7 else str(rng.randint(1, 999))
            write(rng, ink, text, (rng.randint(4, 18), y), rng.randint(11, 18), pen)
            y += rng.randint(18, 28)
    elif kind == "pi":
        y, start = rng.randint(18, 36), 0
        while y < height - 8 and start < len(PI_DIGITS):
            count = rng.randint(5, 9)
            write(rng, ink, PI_DIGITS[start : start + count], (rng.randint(4, 14), y), rng.randint(12, 20), pen)
            start += count
            y += rng.randint(20, 30)
    elif kind == "number":
        text = str(rng.randint(100, 99999))
        write(rng, ink, text, (rng.randint(4, 16), rng.randint(95, 125)), rng.randint(30, 48), pen + 1)
    elif kind == "tally":
        _tallies(rng, ink, pen)
    else:
        (_shapes if heldout else _squiggles)(rng, ink, pen)
    slant = rng.uniform(-MOST_SLANT, MOST_SLANT)
    shear = np.float32([[1, slant, -slant * height / 2], [0, 1, 0]])
    ink = cv2.warpAffine(ink, shear, (width, height))
    share = (ink.astype(np.float32) / 255 * rng.uniform(0.7, 1.0))[..., None]
    art = art * (1 - share) + np.array(rng.choice(INKS), np.float32) * share
    return np.dstack([np.clip(art, 0, 255).astype(np.uint8), np.full((height, width), 255, np.uint8)])


def _hershey_text(rng: random.Random, ink: np.ndarray, text: str, at: tuple[int, int], size: int, pen: int) -> None:
    """`text` in a Hershey stroke font, its baseline's left end `at`, capitals about `size` px tall."""
    face = rng.choice(HERSHEY)
    scale = cv2.getFontScaleFromHeight(face, size, pen)
    (wide, _), _ = cv2.getTextSize(text, face, scale, pen)
    scale *= min(1.0, _room(ink, at) / max(wide, 1))
    cv2.putText(ink, text, at, face, scale, 255, pen, cv2.LINE_AA)


def _truetype_text(fonts: tuple[str, ...]):
    def write(rng: random.Random, ink: np.ndarray, text: str, at: tuple[int, int], size: int, pen: int) -> None:
        """`text` in one of `fonts`, capitals about `size` px tall."""
        path = rng.choice(fonts)
        points = size * 1.35
        points *= min(1.0, _room(ink, at) / max(ImageFont.truetype(path, round(points)).getlength(text), 1))
        layer = Image.fromarray(ink)
        font = ImageFont.truetype(path, max(6, round(points)))
        ImageDraw.Draw(layer).text(at, text, fill=255, font=font, anchor="ls", stroke_width=pen - 1, stroke_fill=255)
        ink[:] = np.asarray(layer)

    return write


def _room(ink: np.ndarray, at: tuple[int, int]) -> float:
    """The width left on the note right of `at`, a margin kept."""
    return ink.shape[1] - at[0] - 4


def _tallies(rng: random.Random, ink: np.ndarray, pen: int) -> None:
    """Groups of tally marks: up to four strokes and a fifth across them."""
    for _ in range(rng.randint(1, 5)):
        x0, y0, tall = rng.randint(8, 70), rng.randint(10, 130), rng.randint(18, 34)
        strokes = rng.randint(1, 5)
        for k in range(min(strokes, 4)):
            x = x0 + k * rng.randint(5, 8)
            cv2.line(ink, (x, y0), (x + rng.randint(-2, 2), y0 + tall), 255, pen, cv2.LINE_AA)
        if strokes == 5:
            cv2.line(ink, (x0 - 4, y0 + tall - 5), (x0 + 30, y0 + 5), 255, pen, cv2.LINE_AA)


def _squiggles(rng: random.Random, ink: np.ndarray, pen: int) -> None:
    """Free lines that wander and turn, as a hand doodles waiting for its turn."""
    height, width = ink.shape
    for _ in range(rng.randint(1, 4)):
        points = [(rng.uniform(10, width - 10), rng.uniform(10, height - 10))]
        heading = rng.uniform(0, 2 * math.pi)
        for _ in range(rng.randint(20, 80)):
            heading += rng.gauss(0, 0.5)
            x, y = points[-1]
            step = rng.uniform(3, 5)
            points.append(
                (
                    min(max(x + step * math.cos(heading), 5), width - 5),
                    min(max(y + step * math.sin(heading), 5), height - 5),
                )
            )
        cv2.polylines(ink, [np.round(points).astype(np.int32)], False, 255, pen, cv2.LINE_AA)


def _shapes(rng: random.Random, ink: np.ndarray, pen: int) -> None:
    """Boxes, rings and arrows drawn by hand."""
    height, width = ink.shape
    for _ in range(rng.randint(2, 6)):
        x, y = rng.randint(10, width - 30), rng.randint(10, height - 30)
        size = rng.randint(10, 40)
        shape = rng.choice(("box", "ring", "arrow"))
        if shape == "box":
            cv2.rectangle(
                ink, (x, y), (min(x + size, width - 4), min(y + size // 2 + 6, height - 4)), 255, pen, cv2.LINE_AA
            )
        elif shape == "ring":
            cv2.ellipse(ink, (x, y), (size // 2, size // 3 + 2), rng.uniform(0, 180), 0, 360, 255, pen, cv2.LINE_AA)
        else:
            end = (min(x + size, width - 4), min(y + rng.randint(-10, 10) % (height - y - 4), height - 4))
            cv2.arrowedLine(ink, (x, y), end, 255, pen, cv2.LINE_AA, tipLength=0.3)
