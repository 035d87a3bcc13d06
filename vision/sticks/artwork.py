"""The printed DIGIT cards' artwork: one drawing serves the printable kit (`tableref kit sticks`) and the
reader of cards lying on the table (vision/sticks/cards.py), which compares what it sees with these faces."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from rules.sticks import normalize, shape_for_card, size
from vision.cards.artwork import CARD_MM, default_font


def draw_stick_card(number: int, height_px: int) -> Image.Image:
    """One DIGIT card: its number in large digits (underlined, so that 6 and 9 read apart at any turn) above
    the pentastick drawn as round-ended sticks. RGBA, transparent outside the rounded corners."""
    w, h = round(height_px * CARD_MM[0] / CARD_MM[1]), height_px
    card = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(card)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=w // 14, fill="white", outline=(90, 90, 90), width=w // 150)
    ink = (25, 25, 25)
    digits = ImageFont.truetype(default_font(), round(h * 0.28))
    draw.text((w / 2, h * 0.2), str(number), font=digits, fill=ink, anchor="mm")
    x0, _, x1, bottom = draw.textbbox((w / 2, h * 0.2), str(number), font=digits, anchor="mm")
    draw.line((x0, bottom + h * 0.025, x1, bottom + h * 0.025), fill=ink, width=round(h * 0.012))
    shape = normalize(shape_for_card(number))
    cols, rows = size(shape)
    unit = min(w * 0.8 / max(cols, 1), h * 0.5 / max(rows, 1), w * 0.3)
    left, top = (w - cols * unit) / 2, h * 0.4 + (h * 0.52 - rows * unit) / 2
    thick = max(2, round(w * 0.035))
    gap = 0.08 * unit  # each stick drawn apart from the next, so that the five can be counted
    for edge in sorted(shape):
        (ax, ay), (bx, by) = edge.a, edge.b
        dx, dy = (bx - ax) * gap, (by - ay) * gap
        x0, y0 = left + ax * unit + dx, top + ay * unit + dy
        x1, y1 = left + bx * unit - dx, top + by * unit - dy
        draw.line((x0, y0, x1, y1), fill=(150, 60, 30), width=thick)
        for x, y in ((x0, y0), (x1, y1)):
            draw.ellipse((x - thick / 2, y - thick / 2, x + thick / 2, y + thick / 2), fill=(150, 60, 30))
    return card
