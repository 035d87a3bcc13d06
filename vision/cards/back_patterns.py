"""Card backs: the patterns a deck's back may carry, for Grid o' Digits' face-down cards. The print-and-play
deck's back is a lattice round a pi; the rest give the face-down network (models/train_card_backs.py) the
variety of real decks' backs (plain, geometric, scattered, curled), two of them kept out of training to measure
it on."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from PIL import ImageDraw

RGB = tuple[int, int, int]
BackPattern = Literal[
    "lattice", "stripes", "checks", "rings", "plain", "grid", "harlequin", "scales", "confetti", "blotches",
    "chevrons", "swirls", "dots", "waves",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class BackDesign:
    """A card's back: a pattern in `ink` on `paper` (None: the deck's first ink, its paper) inside a margin, round
    an emblem. The default is the print-and-play deck's."""

    pattern: BackPattern = "lattice"
    ink: RGB | None = None
    paper: RGB | None = None
    step: float = 0.09  # the pattern's period, a share of the card's width
    margin: float = 0.07  # a share of the card's width
    emblem: Literal["pi", "oval", "none"] = "pi"
    seed: int = 0  # the scattered patterns' layout


DECKO_BACK = BackDesign()


@dataclass(frozen=True, slots=True)
class Panel:
    """Where a pattern is drawn and how: the panel's box, the period and line width in pixels, the colours."""

    x0: float
    y0: float
    x1: float
    y1: float
    step: float
    width: int
    ink: RGB
    paper: RGB

    def ticks(self, span: float) -> list[float]:
        return [k * self.step for k in range(int(span / self.step) + 1)]


def _diagonals(draw: ImageDraw.ImageDraw, p: Panel, both: bool) -> None:
    ticks = p.ticks(p.x1 - p.x0 + p.y1 - p.y0)
    for c in (p.x0 - p.y1 + d for d in ticks):  # lines x - y = c, clipped to the panel
        top, bottom = max(p.y0, p.x0 - c), min(p.y1, p.x1 - c)
        draw.line((top + c, top, bottom + c, bottom), fill=p.paper, width=p.width)
    for c in (p.x0 + p.y0 + d for d in ticks) if both else ():  # lines x + y = c
        top, bottom = max(p.y0, c - p.x1), min(p.y1, c - p.x0)
        draw.line((c - top, top, c - bottom, bottom), fill=p.paper, width=p.width)


def _cells(p: Panel) -> list[tuple[int, int, float, float]]:
    """The panel's square cells of one period: column, row, left, top."""
    xs = [t for t in p.ticks(p.x1 - p.x0) if p.x0 + t < p.x1]
    ys = [t for t in p.ticks(p.y1 - p.y0) if p.y0 + t < p.y1]
    return [(i, j, p.x0 + x, p.y0 + y) for i, x in enumerate(xs) for j, y in enumerate(ys)]


def _checks(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for i, j, x, y in _cells(p):
        if (i + j) % 2:
            draw.rectangle((x, y, min(x + p.step, p.x1), min(y + p.step, p.y1)), fill=p.paper)


def _dots(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    r = 0.3 * p.step
    for _, _, x, y in _cells(p):
        cx, cy = x + p.step / 2, y + p.step / 2
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=p.paper)


def _grid(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for x in (p.x0 + t for t in p.ticks(p.x1 - p.x0)):
        draw.line((x, p.y0, x, p.y1), fill=p.paper, width=p.width)
    for y in (p.y0 + t for t in p.ticks(p.y1 - p.y0)):
        draw.line((p.x0, y, p.x1, y), fill=p.paper, width=p.width)


def _harlequin(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for i, j, x, y in _cells(p):
        if (i + j) % 2 == 0:
            cx, cy, h = x + p.step / 2, y + p.step / 2, p.step / 2
            draw.polygon([(cx, cy - 1.6 * h), (cx + h, cy), (cx, cy + 1.6 * h), (cx - h, cy)], fill=p.paper)


def _scales(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    r = 0.6 * p.step
    for _, j, x, y in _cells(p):
        cx = x + (p.step / 2 if j % 2 else 0)
        draw.arc((cx - r, y - r, cx + r, y + r), 0, 180, fill=p.paper, width=p.width)


def _confetti(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for _ in range(int((p.x1 - p.x0) * (p.y1 - p.y0) / p.step**2)):
        cx, cy, r = rng.uniform(p.x0, p.x1), rng.uniform(p.y0, p.y1), rng.uniform(0.15, 0.45) * p.step
        shape = draw.ellipse if rng.random() < 0.5 else draw.rectangle
        shape((cx - r, cy - r, min(cx + r, p.x1), min(cy + r, p.y1)), fill=p.paper)


def _blotches(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    mixed = tuple((a + b) // 2 for a, b in zip(p.ink, p.paper, strict=True))
    for _ in range(int((p.x1 - p.x0) * (p.y1 - p.y0) / (3 * p.step) ** 2)):
        cx, cy = rng.uniform(p.x0, p.x1), rng.uniform(p.y0, p.y1)
        rx, ry = rng.uniform(0.5, 1.5) * p.step, rng.uniform(0.5, 1.5) * p.step
        box = (max(cx - rx, p.x0), max(cy - ry, p.y0), min(cx + rx, p.x1), min(cy + ry, p.y1))
        draw.ellipse(box, fill=mixed if rng.random() < 0.5 else p.paper)


def _chevrons(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for y in (p.y0 + t for t in p.ticks(p.y1 - p.y0)):
        xs = [p.x0 + t for t in p.ticks(p.x1 - p.x0)]
        zigzag = [(x, y + (p.step / 2 if k % 2 else 0)) for k, x in enumerate(xs)]
        draw.line(zigzag, fill=p.paper, width=p.width, joint="curve")


def _swirls(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    """Curls of arcs scattered over the panel, as ornate backs have."""
    for _ in range(int((p.x1 - p.x0) * (p.y1 - p.y0) / (1.5 * p.step) ** 2)):
        cx, cy = rng.uniform(p.x0, p.x1), rng.uniform(p.y0, p.y1)
        start = rng.uniform(0, 360)
        for k in range(1, 4):
            r = 0.35 * k * p.step
            box = (max(cx - r, p.x0), max(cy - r, p.y0), min(cx + r, p.x1), min(cy + r, p.y1))
            if box[0] < box[2] and box[1] < box[3]:
                draw.arc(box, start, start + 240, fill=p.paper, width=max(1, p.width // 2))


def _rings(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for k, inset in enumerate(t for t in p.ticks(p.x1 - p.x0) if t < (p.x1 - p.x0) / 2):
        if k % 2:
            box = (p.x0 + inset, p.y0 + inset, p.x1 - inset, p.y1 - inset)
            draw.rounded_rectangle(box, radius=p.step, outline=p.paper, width=p.width)


def _waves(draw: ImageDraw.ImageDraw, p: Panel, rng: random.Random) -> None:
    for y in (p.y0 + t for t in p.ticks(p.y1 - p.y0) if t < p.y1 - p.y0):
        wave = [(x, y + 0.3 * p.step * math.sin(math.pi * (x - p.x0) / p.step)) for x in range(int(p.x0), int(p.x1), 4)]
        draw.line(wave, fill=p.paper, width=p.width)


PATTERNS: dict[str, Callable[[ImageDraw.ImageDraw, Panel, random.Random], None]] = {
    "lattice": lambda draw, p, rng: _diagonals(draw, p, both=True),
    "stripes": lambda draw, p, rng: _diagonals(draw, p, both=False),
    "checks": _checks,
    "rings": _rings,
    "plain": lambda draw, p, rng: None,
    "grid": _grid,
    "harlequin": _harlequin,
    "scales": _scales,
    "confetti": _confetti,
    "blotches": _blotches,
    "chevrons": _chevrons,
    "swirls": _swirls,
    "dots": _dots,
    "waves": _waves,
}


def draw_back_panel(draw: ImageDraw.ImageDraw, back: BackDesign, ink: RGB, paper: RGB, W: int, H: int) -> Panel:
    """The back's panel and pattern on a card W x H pixels, drawn and returned (the emblem is the caller's)."""
    m = back.margin * W
    panel = Panel(m, m, W - m, H - m, back.step * W, max(2, int(0.2 * back.step * W)), ink, paper)
    draw.rounded_rectangle((panel.x0, panel.y0, panel.x1, panel.y1), radius=0.04 * W, fill=ink)
    PATTERNS[back.pattern](draw, panel, random.Random(back.seed))
    return panel
