"""Decko Digits cards as the games' rules take them: a digit 0-9, or a Wild's two digits five apart."""

from __future__ import annotations

from rules.pi import wild_pair

DIGITS = frozenset("0123456789")
# A Digit card, or a Wild as its two digits (low, high), e.g. (1, 6).
DeckoCard = int | tuple[int, int]


class DeckoCardError(ValueError):
    """A card no Decko deck holds, or text that names none."""


def checked(card: DeckoCard) -> DeckoCard:
    """`card`, if a Decko deck holds it: a digit 0-9, or a Wild pair (d, d + 5) for d in 0-4 (either order)."""
    if isinstance(card, int) and not isinstance(card, bool) and 0 <= card <= 9:
        return card
    pair = isinstance(card, tuple) and len(card) == 2 and all(isinstance(d, int) and 0 <= d <= 9 for d in card)
    if pair and wild_pair(card[0]) == tuple(sorted(card)):
        return (min(card), max(card))
    shown = "/".join(map(str, card)) if isinstance(card, tuple) else repr(card)
    raise DeckoCardError(f"not a Decko card: {shown} (a digit 0-9, or a Wild of two digits five apart)")


def parse_card(text: str) -> DeckoCard:
    """'7' is the digit, '1/6' (or '6/1') the Wild."""
    low, slash, high = text.strip().partition("/")
    if low not in DIGITS or (slash and high not in DIGITS):
        raise DeckoCardError(f"not a card: {text!r}; type a digit (7) or a Wild (1/6)")
    return checked((int(low), int(high)) if high else int(low))


def parse_cards(text: str) -> list[DeckoCard]:
    """Cards typed apart by spaces or commas: '1 4 1/6'."""
    return [parse_card(part) for part in text.replace(",", " ").split()]


def card_text(card: DeckoCard) -> str:
    return str(card) if isinstance(card, int) else f"{card[0]}/{card[1]}"


def card_fits(card: DeckoCard, digit: int) -> bool:
    """Whether `card` stands for `digit`: the digit's own card, or the Wild of its pair."""
    return card == digit if isinstance(card, int) else digit in card
