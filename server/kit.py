"""Printable material as PDF pages."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from vision.cards.artwork import CARD_MM, decko_deck, decko_style, draw_card

A4_MM = (210.0, 297.0)
DPI = 300
GRID = (3, 3)  # 63 x 88 mm cards: three by three fill an A4 sheet
MARK_MM = 5.0


def _mm(v: float) -> int:
    return round(v / 25.4 * DPI)


def card_sheets(cards: list[Image.Image]) -> list[Image.Image]:
    """Lay card images out on A4 pages, edge to edge, with cut marks in the margins."""
    page_w, page_h = _mm(A4_MM[0]), _mm(A4_MM[1])
    card_w, card_h = _mm(CARD_MM[0]), _mm(CARD_MM[1])
    left = (page_w - GRID[0] * card_w) // 2
    top = (page_h - GRID[1] * card_h) // 2
    per_page = GRID[0] * GRID[1]
    pages = []
    for start in range(0, len(cards), per_page):
        page = Image.new("RGB", (page_w, page_h), "white")
        draw = ImageDraw.Draw(page)
        for i, card in enumerate(cards[start : start + per_page]):
            r, c = divmod(i, GRID[0])
            page.paste(
                card.resize((card_w, card_h)),
                (left + c * card_w, top + r * card_h),
                card.resize((card_w, card_h)),
            )
        mark, gap = _mm(MARK_MM), _mm(1.5)
        for c in range(GRID[0] + 1):
            x = left + c * card_w
            draw.line((x, top - gap - mark, x, top - gap), fill="black", width=3)
            draw.line(
                (x, top + GRID[1] * card_h + gap, x, top + GRID[1] * card_h + gap + mark),
                fill="black",
                width=3,
            )
        for r in range(GRID[1] + 1):
            y = top + r * card_h
            draw.line((left - gap - mark, y, left - gap, y), fill="black", width=3)
            draw.line(
                (left + GRID[0] * card_w + gap, y, left + GRID[0] * card_w + gap + mark, y),
                fill="black",
                width=3,
            )
        pages.append(page)
    return pages


def write_pdf(pages: list[Image.Image], output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    pages[0].save(output, "PDF", resolution=DPI, save_all=True, append_images=pages[1:])


def write_digit_deck(output: Path) -> int:
    """The Decko-style deck: 50 digits in pi order, five Wilds, the Starter and the Reference card."""
    style = decko_style()
    cards = [draw_card(face, style, height_px=_mm(CARD_MM[1])) for face in decko_deck()]
    pages = card_sheets(cards)
    write_pdf(pages, output)
    return len(pages)


def draw_stick_card(number: int, height_px: int) -> Image.Image:
    """One DIGIT card: its number in large digits (underlined, so that 6 and 9 read apart at any turn) above
    the pentastick drawn as round-ended sticks. RGBA, transparent outside the rounded corners."""
    from rules.sticks import normalize, shape_for_card, size
    from vision.cards.artwork import default_font

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


def write_stick_cards(output: Path) -> int:
    """The 55 DIGIT cards on A4 sheets with cut marks; returns the page count."""
    cards = [draw_stick_card(number, _mm(CARD_MM[1])) for number in range(1, 56)]
    pages = card_sheets(cards)
    write_pdf(pages, output)
    return len(pages)
