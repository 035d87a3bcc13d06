import numpy as np

from server.kit import A4_MM, DPI, card_sheets, write_pdf
from vision.cards.artwork import FACE_CLASSES, CardFace, decko_deck, decko_style, draw_card


def test_the_deck_holds_the_fifty_wilds_starter_and_reference() -> None:
    deck = decko_deck()
    assert len(deck) == 57
    assert [c.digits[0] for c in deck[:50]] == [int(c) for c in "14159265358979323846264338327950288419716939937510"]
    assert sum(c.dots == 1 for c in deck) == 10  # one last occurrence per digit
    assert {c.reading for c in deck if c.kind != "reference"} == set(FACE_CLASSES)


def test_sheets_are_a4_with_nine_cards_each(tmp_path) -> None:
    cards = [draw_card(CardFace("digit", (d % 10,)), decko_style(), 120) for d in range(11)]
    pages = card_sheets(cards)
    assert len(pages) == 2
    expected = (round(A4_MM[0] / 25.4 * DPI), round(A4_MM[1] / 25.4 * DPI))
    assert all(p.size == expected for p in pages)
    out = tmp_path / "deck.pdf"
    write_pdf(pages, out)
    assert out.read_bytes().startswith(b"%PDF")
    # Cut marks sit in the margin outside the card grid: the page corner stays white, the mark is black.
    page = np.asarray(pages[0].convert("L"))
    top = (expected[1] - 3 * round(88 / 25.4 * DPI)) // 2
    assert page[:10, :10].min() == 255
    assert page[: top - 5].min() == 0


def test_card_faces_differ_where_it_matters() -> None:
    style = decko_style()
    six, nine = (draw_card(CardFace("digit", (d,)), style, 200) for d in (6, 9))
    turned_nine = nine.rotate(180)
    # A 6 and a half-turned 9 must not look alike: the underline tells them apart.
    diff = np.abs(np.asarray(six.convert("L"), float) - np.asarray(turned_nine.convert("L"), float))
    assert diff.mean() > 3
