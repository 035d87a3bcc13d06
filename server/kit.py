"""Printable material as PDF pages."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from vision.cards.artwork import CARD_MM, CardFace, decko_deck, decko_style, draw_card
from vision.sticks.artwork import draw_stick_card

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
    pages[0].save(output, "PDF", resolution=DPI, save_all=True, append_images=pages[1:])


def write_digit_deck(output: Path) -> int:
    """The Decko-style deck: 50 digits in pi order, five Wilds, the Starter and the Reference card; then a page of
    backs, to print on the back of each sheet (the cards sit where a sheet turned over puts them) for games
    played face down, as Grid o' Digits is."""
    style = decko_style()
    cards = [draw_card(face, style, height_px=_mm(CARD_MM[1])) for face in decko_deck()]
    back = draw_card(CardFace("back"), style, height_px=_mm(CARD_MM[1]))
    pages = card_sheets(cards) + card_sheets([back] * (GRID[0] * GRID[1]))
    write_pdf(pages, output)
    return len(pages)


def write_stick_cards(output: Path) -> int:
    """The 55 DIGIT cards on A4 sheets with cut marks; returns the page count."""
    cards = [draw_stick_card(number, _mm(CARD_MM[1])) for number in range(1, 56)]
    pages = card_sheets(cards)
    write_pdf(pages, output)
    return len(pages)
