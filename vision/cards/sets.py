"""Cards set down in sets: each run of cards lying side by side in a row (the block game's sets of five).

Two cards are in one row where either lies one step along the other's width and not off it across: the step
as a Tempus line's (vision/cards/lines.py), taken either way, since a set is no line from a Starter and a card
may lie turned half round. Rows stacked one under another stay apart: they are a card's height off.
"""

from __future__ import annotations

import numpy as np

from vision.cards.classify import CardClassifier
from vision.cards.lines import APPENDING_FACES, ROW_DRIFT, ROW_STEP, card_axes, in_card_frame, read_among
from vision.cards.recognize import Card

SET_SIZE = 5


def read_sets(classifier: CardClassifier, image: np.ndarray, cards: list[Card]) -> list[list[Card]]:
    """The rows the `cards` read on `image` lie in, each in order along its row as the cards face, rows in
    reading order of the picture; a row of ten or fifteen cards is as many sets of five, in its order. The
    block game's deck holds Digits and Wilds only: a card read as anything else is read again among them."""
    cards = _as_block_cards(classifier, image, cards)
    parent = list(range(len(cards)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(cards):
        for j in range(i + 1, len(cards)):
            if _side_by_side(a, cards[j]) or _side_by_side(cards[j], a):
                parent[root(i)] = root(j)
    rows: dict[int, list[Card]] = {}
    for i, card in enumerate(cards):
        rows.setdefault(root(i), []).append(card)
    ordered = sorted((_along(row) for row in rows.values()), key=lambda row: _reading_key(row[0]))
    sets = []
    for row in ordered:
        if len(row) > SET_SIZE and len(row) % SET_SIZE == 0:
            sets += [row[k : k + SET_SIZE] for k in range(0, len(row), SET_SIZE)]
        else:
            sets.append(row)
    return sets


def _as_block_cards(classifier: CardClassifier, image: np.ndarray, cards: list[Card]) -> list[Card]:
    return [card for card in read_among(classifier, image, cards, APPENDING_FACES) if card.face in APPENDING_FACES]


def _side_by_side(a: Card, b: Card) -> bool:
    along, across = in_card_frame(a.corners, b.center)
    return ROW_STEP[0] <= abs(along) <= ROW_STEP[1] and abs(across) <= ROW_DRIFT


def _along(row: list[Card]) -> list[Card]:
    """The row's cards in order along it, the way most of them face (their own left to right)."""
    centres = np.array([card.center for card in row], np.float64)
    if len(row) == 1:
        return row
    _, _, axes = np.linalg.svd(centres - centres.mean(axis=0))
    direction = axes[0]
    if sum(float(card_axes(card.corners)[0] @ direction) for card in row) < 0:
        direction = -direction
    return [row[i] for i in np.argsort(centres @ direction)]


def _reading_key(card: Card) -> tuple[float, float]:
    return (round(float(card.center[1]) / 50), float(card.center[0]))
