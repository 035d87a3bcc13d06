"""The faces of a Decko-style digit deck, drawn in many card designs.

One drawing serves the printable kit (`tableref kit digits`) and the training renderer, so what the
recogniser learns is what people print. A design varies the font, paper, ink, numeral treatment, corner
indices and ornaments; every design keeps one rule that makes 6 and 9 readable at any rotation: either the
numeral carries an underline, or a corner index sits top left (with a second one turned half round in the
opposite corner, as playing cards print them: read upright, the top-left index is the card's own digit).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from rules.pi import PI_DECIMALS, WILD_PAIRS, occurrence_marks
from vision.cards.back_patterns import DECKO_BACK, BackDesign, draw_back_panel

CARD_MM = (63.0, 88.0)  # poker size, portrait
FaceKind = Literal["digit", "wild", "starter", "reference", "back"]
RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class CardFace:
    """What a card says. `dots` (1 last occurrence, 2 next-to-last) is printed but not part of the reading."""

    kind: FaceKind
    digits: tuple[int, ...] = ()
    dots: int = 0

    @property
    def label(self) -> str:
        if self.kind == "digit":
            return str(self.digits[0])
        if self.kind == "wild":
            return f"{self.digits[0]}/{self.digits[1]}"
        return "3." if self.kind == "starter" else self.kind

    @property
    def played(self) -> int | tuple[int, int]:
        """A Digit or a Wild as the games' rules take it (rules/decko.py): the digit, or the Wild's two digits."""
        if self.kind == "digit":
            return self.digits[0]
        if self.kind == "wild":
            return (self.digits[0], self.digits[1])
        raise ValueError(f"a {self.kind} card is not played as a digit")

    @property
    def reading(self) -> CardFace:
        """The face without its dot marks: what the recogniser reports."""
        return replace(self, dots=0)


STARTER = CardFace("starter", (3,))  # "3.": where a Tempus line starts
# The classes a recogniser tells apart, in a fixed order shared with the model manifest.
FACE_CLASSES: tuple[CardFace, ...] = (
    *(CardFace("digit", (d,)) for d in range(10)),
    *(CardFace("wild", pair) for pair in WILD_PAIRS),
    STARTER,
)


def decko_deck() -> list[CardFace]:
    """The print-and-play deck: 50 digits in pi order with dot marks, five Wilds, the Starter, the Reference."""
    marks = occurrence_marks()
    digits = [CardFace("digit", (d,), dots=m) for d, m in zip(PI_DECIMALS, marks, strict=True)]
    wilds = [CardFace("wild", pair) for pair in WILD_PAIRS]
    return [*digits, *wilds, STARTER, CardFace("reference")]


# Digits that differ by five share a colour (the Decko convention), indexed by digit % 5.
DECKO_PALETTE: tuple[RGB, ...] = ((200, 40, 45), (235, 125, 20), (40, 140, 60), (35, 85, 175), (125, 55, 150))


# A Wild as "1/6", as "1 6" (two numerals apart) or as "16" (one numeral pair); the kit prints the first two.
WildLayout = Literal["slash", "side", "joined"]
WILD_LAYOUTS: tuple[WildLayout, ...] = ("slash", "side", "joined")


@dataclass(frozen=True, slots=True)
class CardStyle:
    font: str  # path to a TrueType/OpenType file
    paper: RGB = (250, 247, 238)
    palette: tuple[RGB, ...] = DECKO_PALETTE  # ink by digit % 5; one entry for single-colour decks
    numeral: Literal["solid", "outline", "panel"] = "solid"  # panel: light numeral on an ink panel
    numeral_scale: float = 0.58  # numeral height as a share of the card height
    corner_index: Literal["none", "top_left", "both"] = "top_left"
    # Under 6 and 9 (and the index). Without it the index tells them apart: read upright, the top-left index
    # is the card's own digit, whichever way round the big numeral looks (in both corners too).
    underline: bool = True
    ornament: Literal["none", "frame", "circle", "band", "pi"] = "none"
    wild_layout: WildLayout = "slash"
    wild_high_first: bool = False  # "6/1": no rule says which digit comes first
    corner_radius: float = 0.05  # share of the card width
    border: RGB | None = None  # printed edge line, as many commercial decks have
    index_font: str | None = None
    back: BackDesign = DECKO_BACK
    # A small mark in the corners (CORNER_MARKS: a star, a dot, a pip, a letter), where an index would be or
    # under it, as many decks print one; "" for none.
    corner_mark: str = ""

    def ink(self, digit: int) -> RGB:
        return self.palette[digit % len(self.palette)]


def decko_style(font: str | None = None) -> CardStyle:
    """The project's own print-and-play design."""
    return CardStyle(font=font or default_font(), ornament="frame", border=(180, 175, 165))


FONT_DIRS = ("/usr/share/fonts", "/usr/share/texmf/fonts/opentype/public/tex-gyre", "/usr/local/share/fonts")
# Symbol, math and script faces have no plain numerals.
_NOT_NUMERAL_FONTS = ("D050000L", "StandardSymbols", "Math", "Z003", "chorus", "Dingbat")


@lru_cache(maxsize=1)
def system_fonts() -> tuple[str, ...]:
    """Fonts on this machine that draw plain numerals, in a stable order."""
    found: set[str] = set()
    for root in FONT_DIRS:
        base = Path(root)
        if base.is_dir():
            for pattern in ("*.ttf", "*.otf"):
                found.update(str(p) for p in base.rglob(pattern))
    return tuple(sorted(f for f in found if not any(bad in Path(f).name for bad in _NOT_NUMERAL_FONTS)))


def font_family(path: str) -> str:
    """'NimbusSansNarrow-Bold.otf' -> 'nimbussansnarrow': the unit the train/held-out split works on."""
    stem = Path(path).stem.lower()
    for sep in ("-", "_"):
        stem = stem.split(sep)[0]
    for suffix in ("condensed", "bold", "italic", "oblique", "mono", "regular"):
        if stem.endswith(suffix) and len(stem) > len(suffix) + 3:
            stem = stem[: -len(suffix)]
    return stem


def default_font() -> str:
    fonts = system_fonts()
    for wanted in ("DejaVuSans-Bold", "LiberationSans-Bold", "NimbusSans-Bold"):
        for f in fonts:
            if Path(f).stem == wanted:
                return f
    if fonts:
        return fonts[0]
    raise RuntimeError("no TrueType fonts found; install fonts-dejavu-core")


@lru_cache(maxsize=512)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def _fit_text(text: str, font_path: str, box_w: float, box_h: float) -> tuple[ImageFont.FreeTypeFont, tuple]:
    """The largest font size whose ink box of `text` fits the box."""
    probe = _font(font_path, 200)
    x0, y0, x1, y1 = probe.getbbox(text)
    scale = min(box_w / max(x1 - x0, 1), box_h / max(y1 - y0, 1))
    font = _font(font_path, max(6, int(200 * scale)))
    return font, font.getbbox(text)


def _draw_centered(
    draw: ImageDraw.ImageDraw,
    text: str,
    font_path: str,
    center: tuple[float, float],
    box: tuple[float, float],
    fill: RGB,
    outline: int = 0,
    outline_fill: RGB | None = None,
) -> tuple[float, float, float, float]:
    """Draw text with its ink box centred; return that ink box."""
    font, (x0, y0, x1, y1) = _fit_text(text, font_path, *box)
    ox = center[0] - (x0 + x1) / 2
    oy = center[1] - (y0 + y1) / 2
    if outline:
        draw.text((ox, oy), text, font=font, fill=outline_fill, stroke_width=outline, stroke_fill=fill)
    else:
        draw.text((ox, oy), text, font=font, fill=fill)
    return (ox + x0, oy + y0, ox + x1, oy + y1)


def _marks_6_9(face: CardFace) -> bool:
    return any(d in (6, 9) for d in face.digits) and face.kind in ("digit", "wild")


def draw_card(face: CardFace, style: CardStyle, height_px: int = 264) -> Image.Image:
    """The card face as an RGBA image (transparent outside the rounded corners)."""
    w, h = round(height_px * CARD_MM[0] / CARD_MM[1]), height_px
    s = 4 if height_px < 400 else 2  # supersample for smooth edges; print sizes need less
    W, H = w * s, h * s
    img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = style.corner_radius * W
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=radius, fill=(*style.paper, 255))
    if style.border:
        inset = 0.035 * W
        draw.rounded_rectangle(
            (inset, inset, W - inset, H - inset),
            radius=max(radius - inset, 0),
            outline=style.border,
            width=max(2, int(0.012 * W)),
        )
    if face.kind in ("reference", "back"):
        (_draw_reference if face.kind == "reference" else _draw_back)(draw, style, W, H)
        return img.resize((w, h), Image.LANCZOS)

    ink = style.ink(face.digits[0])
    cx, cy = W / 2, H * 0.5
    _draw_ornament(draw, style, ink, W, H)

    text = {"digit": face.label, "starter": "3.", "wild": None}[face.kind]
    num_h = style.numeral_scale * H
    num_w = 0.72 * W
    fill, outline, outline_fill = ink, 0, None
    if style.numeral == "panel":
        pad = 0.09 * W
        draw.rounded_rectangle((pad, H * 0.17, W - pad, H * 0.83), radius=0.06 * W, fill=ink)
        fill = style.paper
        num_h *= 0.85
        num_w *= 0.85
    elif style.numeral == "outline":
        outline, outline_fill = max(3, int(0.018 * H)), style.paper

    if face.kind == "wild":
        a, b = _wild_digits(face, style)
        if style.wild_layout != "side":
            text = f"{a}/{b}" if style.wild_layout == "slash" else f"{a}{b}"
            ink_box = _draw_centered(
                draw, text, style.font, (cx, cy), (num_w, num_h * 0.7), fill, outline, outline_fill
            )
        else:
            left, right = (
                _draw_centered(
                    draw, str(d), style.font, (W * x, cy), (num_w * 0.42, num_h * 0.75), fill, outline, outline_fill
                )
                for d, x in ((a, 0.31), (b, 0.69))
            )
            ink_box = (left[0], min(left[1], right[1]), right[2], max(left[3], right[3]))
    else:
        ink_box = _draw_centered(draw, text, style.font, (cx, cy), (num_w, num_h), fill, outline, outline_fill)

    line_w = max(3, int(0.035 * H))
    if style.underline and _marks_6_9(face):
        y = ink_box[3] + 0.035 * H
        draw.rectangle((ink_box[0], y, ink_box[2], y + line_w), fill=fill if style.numeral != "outline" else ink)
    if face.dots:
        y = ink_box[3] + 0.1 * H
        r = 0.022 * H
        for i in range(face.dots):
            x = cx + (i - (face.dots - 1) / 2) * 3.2 * r
            draw.ellipse((x - r, y - r, x + r, y + r), fill=fill if style.numeral != "outline" else ink)
    if style.corner_index != "none":
        _draw_indices(draw, face, style, ink, W, H)
    if style.corner_mark:
        _draw_corner_marks(draw, style, ink, W, H)
    return img.resize((w, h), Image.LANCZOS)


def _wild_digits(face: CardFace, style: CardStyle) -> tuple[int, ...]:
    return face.digits[::-1] if style.wild_high_first else face.digits


def _draw_ornament(draw: ImageDraw.ImageDraw, style: CardStyle, ink: RGB, W: int, H: int) -> None:
    light = tuple(int(c + (255 - c) * 0.72) for c in ink)
    if style.ornament == "frame":
        inset = 0.08 * W
        draw.rounded_rectangle(
            (inset, inset, W - inset, H - inset), radius=0.05 * W, outline=ink, width=max(2, int(0.014 * W))
        )
    elif style.ornament == "circle":
        r = 0.42 * W
        draw.ellipse((W / 2 - r, H / 2 - r, W / 2 + r, H / 2 + r), fill=light)
    elif style.ornament == "band":
        draw.polygon([(0, H * 0.62), (W, H * 0.30), (W, H * 0.42), (0, H * 0.74)], fill=light)
    elif style.ornament == "pi":
        for x, y in ((0.82, 0.08), (0.18, 0.92)):
            _draw_centered(draw, "π", style.font, (W * x, H * y), (W * 0.12, H * 0.07), ink)


def _draw_indices(draw: ImageDraw.ImageDraw, face: CardFace, style: CardStyle, ink: RGB, W: int, H: int) -> None:
    label = face.label if face.kind != "wild" else "".join(map(str, _wild_digits(face, style)))
    font_path = style.index_font or style.font
    box = (W * 0.17 * (1.6 if len(label) > 1 else 1), H * 0.085)
    corner = (W * 0.14 * (1.3 if len(label) > 1 else 1), H * 0.1)
    ink_box = _draw_centered(draw, label, font_path, corner, box, ink)
    if style.underline and _marks_6_9(face):
        y = ink_box[3] + 0.012 * H
        draw.rectangle((ink_box[0], y, ink_box[2], y + max(2, int(0.008 * H))), fill=ink)
    if style.corner_index == "both":
        # The same index turned half a turn in the opposite corner, drawn on a scratch layer.
        layer = Image.new("L", (W, H), 0)
        mask_draw = ImageDraw.Draw(layer)
        ink_box2 = _draw_centered(mask_draw, label, font_path, corner, box, 255)
        if style.underline and _marks_6_9(face):
            y = ink_box2[3] + 0.012 * H
            mask_draw.rectangle((ink_box2[0], y, ink_box2[2], y + max(2, int(0.008 * H))), fill=255)
        rotated = layer.rotate(180)
        draw.bitmap((0, 0), rotated, fill=ink)


SHAPE_MARKS = ("star", "dot", "ring", "diamond", "square", "triangle", "cross")
LETTER_MARKS = ("A", "K", "Q", "J", "π")
CORNER_MARKS = SHAPE_MARKS + LETTER_MARKS


def _draw_corner_marks(draw: ImageDraw.ImageDraw, style: CardStyle, ink: RGB, W: int, H: int) -> None:
    """The design's corner mark top left (under the index, if there is one) and turned half round bottom right;
    a shape, not a letter, also mirrored in the other two corners."""
    layer = Image.new("L", (W, H), 0)
    mark = ImageDraw.Draw(layer)
    cx, cy = W * 0.14, H * (0.1 if style.corner_index == "none" else 0.2)
    r = H * 0.035
    kind = style.corner_mark
    if kind == "star":
        tips = [(r if i % 2 == 0 else 0.4 * r, -math.pi / 2 + i * math.pi / 5) for i in range(10)]
        mark.polygon([(cx + k * math.cos(a), cy + k * math.sin(a)) for k, a in tips], fill=255)
    elif kind in ("dot", "ring"):
        mark.ellipse(
            (cx - 0.7 * r, cy - 0.7 * r, cx + 0.7 * r, cy + 0.7 * r),
            fill=255 if kind == "dot" else None,
            outline=255,
            width=max(2, int(0.3 * r)),
        )
    elif kind == "diamond":
        mark.polygon([(cx, cy - r), (cx + 0.7 * r, cy), (cx, cy + r), (cx - 0.7 * r, cy)], fill=255)
    elif kind == "square":
        mark.rectangle((cx - 0.6 * r, cy - 0.6 * r, cx + 0.6 * r, cy + 0.6 * r), fill=255)
    elif kind == "triangle":
        mark.polygon([(cx, cy - 0.8 * r), (cx + 0.8 * r, cy + 0.6 * r), (cx - 0.8 * r, cy + 0.6 * r)], fill=255)
    elif kind == "cross":
        mark.rectangle((cx - r, cy - 0.2 * r, cx + r, cy + 0.2 * r), fill=255)
        mark.rectangle((cx - 0.2 * r, cy - r, cx + 0.2 * r, cy + r), fill=255)
    else:
        _draw_centered(mark, kind, style.index_font or style.font, (cx, cy), (2 * r, 2 * r), 255)
    layers = [layer, layer.rotate(180)]
    if kind in SHAPE_MARKS:
        layers += [layer.transpose(Image.FLIP_LEFT_RIGHT), layer.transpose(Image.FLIP_TOP_BOTTOM)]
    for each in layers:
        draw.bitmap((0, 0), each, fill=ink)


def _draw_reference(draw: ImageDraw.ImageDraw, style: CardStyle, W: int, H: int) -> None:
    """Ten rows of five decimals, the last and next-to-last occurrences dotted."""
    _draw_centered(draw, "3.", style.font, (W * 0.5, H * 0.08), (W * 0.2, H * 0.06), (40, 40, 40))
    marks = occurrence_marks()
    for row in range(10):
        for col in range(5):
            i = row * 5 + col
            d = PI_DECIMALS[i]
            center = (W * (0.18 + 0.16 * col), H * (0.17 + 0.08 * row))
            box = _draw_centered(draw, str(d), style.font, center, (W * 0.1, H * 0.05), style.ink(d))
            for k in range(marks[i]):
                x = center[0] + (k - (marks[i] - 1) / 2) * W * 0.025
                r = W * 0.007
                draw.ellipse((x - r, box[3] + 2 * r, x + r, box[3] + 4 * r), fill=(40, 40, 40))


def _draw_back(draw: ImageDraw.ImageDraw, style: CardStyle, W: int, H: int) -> None:
    """A card face down, as Grid o' Digits lays them (`style.back`): its pattern round an emblem."""
    back = style.back
    ink, paper = back.ink or style.palette[0], back.paper or style.paper
    panel = draw_back_panel(draw, back, ink, paper, W, H)
    if back.emblem != "none":
        rx, ry = 0.28 * W, 0.16 * H
        draw.ellipse((W / 2 - rx, H / 2 - ry, W / 2 + rx, H / 2 + ry), fill=paper, outline=ink, width=panel.width)
        if back.emblem == "pi":
            _draw_centered(draw, "π", style.font, (W / 2, H / 2), (rx, ry), ink)


# --- random designs for training and evaluation ------------------------------------------------------------

PAPERS: tuple[RGB, ...] = (
    (252, 252, 250),
    (250, 246, 232),
    (244, 238, 220),
    (236, 240, 246),
    (255, 250, 240),
)
HELDOUT_PALETTE: tuple[RGB, ...] = ((0, 120, 130), (190, 60, 120), (110, 90, 20), (70, 70, 70), (20, 110, 200))
TINTED_PAPERS: tuple[RGB, ...] = (
    (255, 230, 140),
    (180, 220, 250),
    (250, 200, 210),
    (200, 235, 200),
    (60, 60, 70),
)


DARK_PAPER_SHARE = 0.12


def random_style(
    rng: random.Random, fonts: list[str] | tuple[str, ...], heldout: bool = False, dark_share: float = DARK_PAPER_SHARE
) -> CardStyle:
    """A random card design, on dark paper `dark_share` of the time. `heldout` draws from design choices that
    training never sees."""
    font = rng.choice(fonts)
    dark_paper = rng.random() < dark_share
    if dark_paper:
        paper = rng.choice(((30, 30, 36), (20, 40, 80), (90, 20, 30), (15, 60, 40)))
    elif rng.random() < 0.25:
        paper = rng.choice(TINTED_PAPERS[:4])
    else:
        paper = rng.choice(PAPERS)
    paper = tuple(min(255, max(0, c + rng.randint(-8, 8))) for c in paper)
    if dark_paper:
        palette = (rng.choice(((250, 250, 250), (255, 220, 120), (200, 230, 255))),)
    elif rng.random() < 0.35:
        palette = (rng.choice(((15, 15, 20), (30, 30, 110), (120, 20, 20), (20, 70, 30))),)
    else:
        palette = tuple(_jitter_rgb(rng, c, 40) for c in (HELDOUT_PALETTE if heldout else DECKO_PALETTE))
        if rng.random() < 0.5:
            palette = tuple(rng.sample(palette, len(palette)))
    numeral = rng.choices(("solid", "outline", "panel"), weights=(6, 2, 2))[0]
    if dark_paper and numeral == "panel":
        numeral = "solid"
    corner_index = rng.choices(("none", "top_left", "both"), weights=(3, 3, 3))[0]
    underline = corner_index == "both" or corner_index == "none" or rng.random() < 0.5
    ornaments = ("band", "pi") if heldout else ("none", "frame", "circle")
    return CardStyle(
        font=font,
        paper=paper,
        palette=palette,
        numeral=numeral,
        numeral_scale=rng.uniform(0.42, 0.68),
        corner_index=corner_index,
        underline=underline,
        ornament=rng.choice(ornaments),
        wild_layout=rng.choice(WILD_LAYOUTS[:2]),
        corner_radius=rng.uniform(0.0, 0.09),
        border=_jitter_rgb(rng, (120, 120, 120), 60) if rng.random() < 0.3 else None,
        index_font=rng.choice(fonts) if rng.random() < 0.3 else None,
    )


def _jitter_rgb(rng: random.Random, c: RGB, amount: int) -> RGB:
    return tuple(min(255, max(0, v + rng.randint(-amount, amount))) for v in c)
