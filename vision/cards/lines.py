"""The order cards were laid in: a row from the Starter, wrapping into a grid in reading order.

Each step looks from the current card along that card's own axes (its right for the next card in the row,
its down for the next row), measured in that card's size. Local steps follow the line whatever the camera's
angle: under perspective the far cards are smaller and their axes turn, and so do the steps.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from vision.cards.artwork import FACE_CLASSES, STARTER, CardFace
from vision.cards.classify import CardClassifier
from vision.cards.recognize import Card
from vision.geometry import from_corner

# Wild cards are not part of Tempus decks (rulebooks/NOTES.md): a race is read among these faces alone.
TEMPUS_FACES = frozenset(face for face in FACE_CLASSES if face.kind != "wild")
DIGIT_FACES = frozenset(face for face in FACE_CLASSES if face.kind == "digit")
# The appending game's hands hold Digits and Wilds (rules/appending.py).
APPENDING_FACES = frozenset(face for face in FACE_CLASSES if face.kind in ("digit", "wild"))
# What a Starter ("3.") is misread as, when it is: where the line's start is known (a lane), one of these
# there stands for it.
STARTER_STAND_INS = frozenset({CardFace("digit", (3,)), CardFace("wild", (3, 8))})

# A hole in a line (`holes_filled`): no card within HOLE_CLEAR card widths of it, cards of the line within
# HOLE_NEAR of where its neighbours on both sides should be; its reading counts from HOLE_MIN.
HOLE_CLEAR = 0.5
HOLE_NEAR = 0.35
HOLE_MIN = 0.7
NEIGHBOURS_BELOW = 0.8  # a card of a line read less surely is read again where its neighbours put it
# How far the next card may sit, in the current card's widths along the row and heights across it. Short steps
# count: cards laid touching, each over the one before, sit less than a card apart, and the outline read on a
# card half under its neighbour may run on into it (a step of half its width or less).
ROW_STEP = (0.3, 2.4)
ROW_DRIFT = 0.5
# The next row's first card: below the current row's first card, in card heights.
NEXT_ROW_STEP = (0.3, 2.6)
NEXT_ROW_DRIFT = 0.5


def as_tempus_cards(classifier: CardClassifier, image: np.ndarray, cards: list[Card]) -> list[Card]:
    """`cards`, those read as Wilds read again among TEMPUS_FACES on their outlines: in a Tempus line a "3/8"
    is most likely the Starter "3.", and any Wild a misread digit. One the classifier then doubts is a card
    takes its likeliest Tempus face all the same: it was read as a card, and a Tempus deck holds no Wild."""
    return read_among(classifier, image, cards, TEMPUS_FACES, near_misses=0.0)


def read_among(
    classifier: CardClassifier,
    image: np.ndarray,
    cards: list[Card],
    faces: frozenset[CardFace],
    near_misses: float | None = None,
) -> list[Card]:
    """`cards`, each read as a face a game's deck does not hold read again on its outline among `faces` (a
    reading the classifier doubts kept from `near_misses` up, as `CardClassifier.read` takes it); a card
    read again as no card keeps its first face."""
    others = [i for i, card in enumerate(cards) if card.face not in faces]
    if not others:
        return cards
    out = list(cards)
    readings = classifier.read(image, [cards[i].corners for i in others], near_misses=near_misses, faces=faces)
    for i, reading in zip(others, readings, strict=True):
        if reading is not None:
            out[i] = replace(cards[i], face=reading.face, corners=reading.corners, confidence=reading.confidence)
    return out


class NoStarterError(ValueError):
    """There is no Starter card to read the line from."""


@dataclass(frozen=True)
class CardLine:
    starter: Card
    cards: list[Card]  # after the Starter, in reading order
    rows: list[list[Card]]  # the same cards by row; the first row starts right after the Starter
    stray: list[Card]  # cards that are not part of the line
    frames: list[np.ndarray]  # each card's outline turned to face the way the line runs from the Starter


def card_axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A card outline's right and up vectors (each one card width or height long)."""
    right = (corners[1] + corners[2] - corners[0] - corners[3]) / 2
    up = (corners[0] + corners[1] - corners[2] - corners[3]) / 2
    return right, up


def in_card_frame(frame: np.ndarray, point: np.ndarray) -> tuple[float, float]:
    """`point` in the frame of the outline `frame`: (along its right, in widths; along its down, in heights).

    Perspective skews a card's axes in the image, so this solves in that skewed basis rather than
    projecting onto each axis."""
    right, up = card_axes(frame)
    basis = np.column_stack([right, -up]).astype(np.float64)
    if abs(np.linalg.det(basis)) < 1e-6:
        return float("inf"), float("inf")
    a, b = np.linalg.solve(basis, (point - frame.mean(axis=0)).astype(np.float64))
    return float(a), float(b)


def _aligned(corners: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The card's outline turned (by quarter turns of its corner order) to face the way `reference` faces.

    A line is laid facing one way; following the neighbour rather than each card's own reading keeps
    one misread orientation (a 0 or an 8 looks the same half-turned) from sending the walk astray."""
    ref_right, ref_up = card_axes(reference)
    best, best_score = corners, -np.inf
    for k in range(4):
        candidate = from_corner(corners, k)
        right, up = card_axes(candidate)
        score = right @ ref_right / (np.linalg.norm(right) * np.linalg.norm(ref_right) + 1e-9)
        score += up @ ref_up / (np.linalg.norm(up) * np.linalg.norm(ref_up) + 1e-9)
        if score > best_score:
            best, best_score = candidate, score
    return best


def _nearest(frame: np.ndarray, pool: list[Card], along: tuple[float, float], drift: float, axis: int) -> Card | None:
    """The card closest to where the next cell should be: one step ahead, straight on. A step longer than one
    card costs as much as straying sideways; a shorter one costs nothing: a card nearer ahead lies between this
    one and any farther, so it comes next, however its outline puts it."""
    best, best_score = None, float("inf")
    for other in pool:
        local = in_card_frame(frame, other.center)
        forward, sideways = local[axis], local[1 - axis]
        if along[0] <= forward <= along[1] and abs(sideways) <= drift:
            score = sideways**2 + max(forward - 1, 0) ** 2
            if score < best_score:
                best, best_score = other, score
    return best


def read_line(cards: list[Card]) -> CardLine:
    """Order the cards from the Starter: along its row, then row by row below it."""
    starters = [c for c in cards if c.face.kind == "starter"]
    if not starters:
        raise NoStarterError("no Starter card (3.) found; put it face up where the line begins")
    starter = max(starters, key=lambda c: c.confidence)
    pool = [c for c in cards if c is not starter]
    rows: list[list[Card]] = []
    head_frame = frame = starter.corners
    row: list[Card] = []
    frames: dict[int, np.ndarray] = {}
    while True:
        following = _nearest(frame, pool, ROW_STEP, ROW_DRIFT, axis=0)
        if following is not None:
            pool.remove(following)
            row.append(following)
            frame = frames[id(following)] = _aligned(following.corners, frame)
            continue
        if row:
            rows.append(row)
        below = _nearest(head_frame, pool, NEXT_ROW_STEP, NEXT_ROW_DRIFT, axis=1)
        if below is None:
            break
        pool.remove(below)
        head_frame = frame = frames[id(below)] = _aligned(below.corners, head_frame)
        row = [below]
    ordered = [c for r in rows for c in r]
    return CardLine(starter, ordered, rows, pool, [frames[id(c)] for c in ordered])


def short_rows(line: CardLine) -> list[int]:
    """The rows (numbered from 1) before the last that hold fewer cards than the longest, the Starter counted
    in the first: a grid is laid row by row, so a card there was most likely not read. The line reads on
    over such a gap, so the verdict alone would not show it."""
    lengths = [len(row) + (i == 0) for i, row in enumerate(line.rows)]
    longest = max(lengths, default=0)
    return [i + 1 for i, length in enumerate(lengths[:-1]) if length < longest]


def read_tempus_line(classifier: CardClassifier, image: np.ndarray, cards: list[Card]) -> CardLine:
    """The Tempus line the `cards` read on `image` make, as `judge tempus PHOTO` reads it: among a Tempus
    deck's faces (`as_tempus_cards`), ordered from the Starter (`read_line`), each card the way up the line
    lies (`read_as_laid`), unsure ones again where their neighbours put them (`read_from_neighbours`), and the
    holes in it looked at (`holes_filled`). NoStarterError where no Starter is read."""
    line = read_as_laid(classifier, image, read_line(as_tempus_cards(classifier, image, cards)))
    return holes_filled(classifier, image, read_from_neighbours(classifier, image, line))


def read_appending_line(classifier: CardClassifier, image: np.ndarray, cards: list[Card]) -> CardLine:
    """The line of the appending game (rules/appending.py) that the `cards` read on `image` make: as
    `read_tempus_line` reads a Tempus line, but among Digits and Wilds, which its hands hold. Where no Starter
    is read, the stand-in for one (a 3 or a Wild 3/8, as a Starter is misread) that heads the longest line is
    taken for it; NoStarterError where there is none."""
    line = read_as_laid(classifier, image, read_line(_headed(cards)), APPENDING_FACES)
    line = read_from_neighbours(classifier, image, line, APPENDING_FACES)
    return holes_filled(classifier, image, line, APPENDING_FACES)


def _headed(cards: list[Card]) -> list[Card]:
    """`cards` with a Starter: as read, or the stand-in that heads the longest line read as one. A Wild 3/8 is
    a card of the appending game, so it cannot be read away as a Tempus line's are (`as_tempus_cards`); the
    Starter is where the line begins."""
    heads = [i for i, card in enumerate(cards) if card.face in STARTER_STAND_INS]
    if any(card.face.kind == "starter" for card in cards) or not heads:
        return cards

    def headed_by(i: int) -> list[Card]:
        return [replace(card, face=STARTER) if j == i else card for j, card in enumerate(cards)]

    return headed_by(max(heads, key=lambda i: len(read_line(headed_by(i)).cards)))


def line_cards(line: CardLine) -> list[int | tuple[int, int]]:
    """The line's cards in order as the appending game's rules take them: a digit, or a Wild's two digits."""
    return [card.face.played for card in line.cards]


def line_digits(line: CardLine) -> list[int]:
    """The digits of the line's cards in order, up to its first card that is not a digit: a Tempus deck holds
    none, and one laid breaks the line there."""
    digits = []
    for card in line.cards:
        if card.face.kind != "digit":
            break
        digits.append(card.face.digits[0])
    return digits


def read_from_neighbours(
    classifier: CardClassifier, image: np.ndarray, line: CardLine, faces: frozenset[CardFace] = DIGIT_FACES
) -> CardLine:
    """The line with each card after the Starter read less surely than NEIGHBOURS_BELOW read again, as a digit
    (or among `faces`) lying the way the line lies, on the outlines its neighbours in the line put it on (one
    typical step on from the card before it, back from the card after it): the surest reading stands. An
    outline found in the picture can sit a little off the card; its neighbours' steps are square to the line."""
    cards, frames = [line.starter, *line.cards], [line.starter.corners, *line.frames]
    step = _typical_steps(line)[0]
    places: list[tuple[int, np.ndarray]] = []
    for i in range(1, len(cards)):
        if cards[i].confidence >= NEIGHBOURS_BELOW:
            continue
        for j, sign in ((i - 1, 1), (i + 1, -1)):
            if j < len(cards):
                right = card_axes(frames[j])[0]
                place = frames[j] + sign * step * right
                # A neighbour in another row, or across a hole, puts it elsewhere.
                if np.linalg.norm(place.mean(axis=0) - cards[i].center) < HOLE_NEAR * np.linalg.norm(right):
                    places.append((i, place.astype(np.float32)))
    if not places:
        return line
    readings = classifier.read(image, [place for _, place in places], faces=faces, either_way=False)
    better = list(cards)
    for (i, _), reading in zip(places, readings, strict=True):
        if reading is not None and reading.confidence > better[i].confidence:
            better[i] = replace(cards[i], face=reading.face, corners=reading.corners, confidence=reading.confidence)
    if all(b is c for b, c in zip(better, cards, strict=True)):
        return line
    return read_line([*better, *line.stray])


def holes_filled(
    classifier: CardClassifier, image: np.ndarray, line: CardLine, faces: frozenset[CardFace] = DIGIT_FACES
) -> CardLine:
    """The line with the cards read that fill its holes: a place one step from a card of the line, along its
    row or across to the next, that no card covers and that has cards of the line one step away on both
    sides, or along the row and across it (the end of a row shorter than the next). Read as a digit (or among
    `faces`) lying the way the line lies, from HOLE_MIN. The line reads on over a card nothing found, so a hole
    read is a digit the verdict would have skipped."""
    cards, frames = [line.starter, *line.cards], [line.starter.corners, *line.frames]
    steps = _typical_steps(line)
    centres = np.array([card.center for card in [*cards, *line.stray]])
    holes: list[np.ndarray] = []
    for frame in frames:
        right, up = card_axes(frame)
        width = float(np.linalg.norm(right))
        moves = (steps[0] * right, -steps[0] * right, -steps[1] * up, steps[1] * up)  # right, left, down, up
        for move in moves:
            hole = frame + move
            centre = hole.mean(axis=0)
            taken = [*centres, *(h.mean(axis=0) for h in holes)]
            if min(np.linalg.norm(np.array(taken) - centre, axis=1)) < HOLE_CLEAR * width:
                continue
            near = [np.linalg.norm(centres - (centre + m), axis=1).min() < HOLE_NEAR * width for m in moves]
            right_, left, down, up_ = near
            if (right_ and left) or (down and up_) or ((right_ or left) and (down or up_)):
                holes.append(hole.astype(np.float32))
    if not holes:
        return line
    readings = classifier.read(image, holes, faces=faces, either_way=False)
    found = [Card(r.face, r.corners, r.confidence) for r in readings if r is not None and r.confidence >= HOLE_MIN]
    return read_line([*cards, *line.stray, *found]) if found else line


def _typical_steps(line: CardLine) -> tuple[float, float]:
    """The line's median step from a card to the next in its row (in card widths) and from a row's first card
    to the next row's (in card heights); a card and a tenth where the line has none."""
    frames = iter([line.starter.corners, *line.frames])
    along, across, heads = [], [], []
    for row_index, row in enumerate(line.rows):
        row_frames = [next(frames) for _ in range(len(row) + (row_index == 0))]
        along += [in_card_frame(a, b.mean(axis=0))[0] for a, b in itertools.pairwise(row_frames)]
        heads.append(row_frames[0])
    across = [in_card_frame(a, b.mean(axis=0))[1] for a, b in itertools.pairwise(heads)]
    return (float(np.median(along)) if along else 1.1, float(np.median(across)) if across else 1.1)


def read_as_laid(
    classifier: CardClassifier, image: np.ndarray, line: CardLine, faces: frozenset[CardFace] = DIGIT_FACES
) -> CardLine:
    """The line with every card after the Starter read facing the way most of the line faces, as a digit (or
    among `faces`): a card read the other way up from the rest is read again on its outline turned to match. A 6
    read half-turned is a 9, a 0 an 8 or a 4 a 7; the line tells which way up each card lies."""
    cards, frames = [line.starter, *line.cards], [line.starter.corners, *line.frames]
    along = [_same_way(card.corners, frame) for card, frame in zip(cards, frames, strict=True)]
    if 2 * sum(along) < len(along):  # most cards read the other way up: the Starter was
        frames = [from_corner(frame, 2) for frame in frames]
        along = [_same_way(card.corners, frame) for card, frame in zip(cards, frames, strict=True)]
    against = [i for i, a in enumerate(along) if not a and i > 0]
    if not against:
        return line
    readings = classifier.read(image, [frames[i] for i in against], faces=faces, either_way=False)
    read = {id(cards[i]): reading for i, reading in zip(against, readings, strict=True) if reading is not None}

    def again(card: Card) -> Card:
        reading = read.get(id(card))
        if reading is None:
            return card
        return replace(card, face=reading.face, corners=reading.corners, confidence=reading.confidence)

    return read_line([again(card) for card in cards + line.stray])


def _same_way(corners: np.ndarray, frame: np.ndarray) -> bool:
    """Whether an outline starts at the corner of `frame` (the same card turned) that it lies nearest."""
    return int(np.argmin(np.linalg.norm(frame - corners[0], axis=1))) == 0
