"""Cards looked for where a lane says they lie: the free stretches of each lane, read card by card.

On a calibrated mat a lane one card tall holds its line in one row along its centre, each card upright
across it. A card the recogniser's proposers miss (a light card on the light mat, an outlined numeral) is
often read surely on its true outline. So every card-sized window along a lane's centre line that no card
read covers is given to the classifier, and the surest readings that do not overlap are kept. A card read
unsurely in a lane is read again on the outline the lane gives it where it lies (`lane_aligned`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from calibration.homography import TableHomography
from calibration.lanes import Lane
from calibration.topdown import TopDownView, read_cards
from vision.cards.artwork import CARD_MM, CardFace
from vision.cards.classify import CardClassifier
from vision.cards.lines import TEMPUS_FACES, as_tempus_cards
from vision.cards.recognize import Card, CardRecognizer

STEP_MM = 3.0  # between windows along a lane
# A window this close (along the lane, in card widths) to a card read or kept overlaps it: not looked at.
APART = 0.9
# A lane this much wider than a card is tall may hold its cards anywhere across it: not swept.
MAX_LANE_SLACK = 1.3
SWEPT_MIN = 0.8  # a window's reading is a card from this confidence
ALIGN_BELOW = 0.9  # a card in a lane read less surely than this is read again on the lane's outline,
ALIGN_SHIFTS_MM = (-9.0, -6.0, -3.0, 0.0, 3.0, 6.0, 9.0)  # at its centre and shifted along the lane
ALIGN_MIN = 0.5  # ... where the surest of those readings is surer than the card's and than this
# Windows read at least NUDGE_FROM but under SWEPT_MIN (at most NUDGED_MOST a lane, surest first) are read
# again turned and shifted a little: cards are laid by hand.
NUDGE_FROM = 0.3
NUDGED_MOST = 3
NUDGE_TURNS = (-0.16, -0.08, 0.08, 0.16)  # radians
NUDGE_ACROSS_MM = (-5.0, 5.0)


def _one_card_tall(lane: Lane) -> bool:
    """A lane too wide (MAX_LANE_SLACK) may hold its cards anywhere across it, or in several rows."""
    return lane.width <= MAX_LANE_SLACK * CARD_MM[1]


def _centres_mm(table: TableHomography, cards: Sequence[Card]) -> np.ndarray:
    """The cards' centres on the table (n, 2 mm): their outlines mapped, as perspective moves a pixel centre."""
    return np.array([table.pixel_to_mm(card.corners).mean(axis=0) for card in cards]).reshape(-1, 2)


def _in_lane(lane: Lane, centres: np.ndarray) -> np.ndarray:
    """Which of the `centres` (table mm) lie within the lane's width, on its line or past its ends."""
    return np.abs((centres - lane.start) @ lane.across) <= lane.width / 2


def _in_frame(table: TableHomography, outlines: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Table-mm outlines as frame-pixel quads the classifier reads."""
    return [table.mm_to_pixel(outline).astype(np.float32) for outline in outlines]


def upright_outlines(lane: Lane, centres: np.ndarray) -> np.ndarray:
    """Outlines (n, 4, 2 table mm) of cards at `centres` (n, 2 table mm) lying upright across `lane`,
    their corners in order round them."""
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [CARD_MM[0] / 2, CARD_MM[1] / 2]  # along, across
    return centres[:, None] + corners[None, :, :1] * lane.along + corners[None, :, 1:] * lane.across


def lane_windows(lane: Lane, taken: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The positions along `lane` (mm from its start) of the card-sized windows on its centre line that keep
    APART from every card at the positions `taken`, and their outlines (n, 4, 2 table mm): each card upright
    across the lane, corners in order round it."""
    width = CARD_MM[0]
    along = np.arange(width / 2, lane.length - width / 2 + 1e-9, STEP_MM)
    if len(taken):
        along = along[np.min(np.abs(along[:, None] - np.asarray(taken)[None]), axis=1) >= APART * width]
    return along, upright_outlines(lane, lane.start + along[:, None] * lane.along)


def swept_cards(
    classifier: CardClassifier,
    frame: np.ndarray,
    table: TableHomography,
    lanes: Sequence[Lane],
    cards: Sequence[Card],
    faces: Collection[CardFace] | None = None,
) -> list[Card]:
    """The cards read in the free stretches of the `lanes` (one card tall) of a calibrated mat, apart from the
    `cards` already read, among `faces` if given: per lane, the surest window reading of SWEPT_MIN or more
    first, then the next that keeps APART from it, and so on."""
    centres = _centres_mm(table, cards)
    found: list[Card] = []
    for lane in filter(_one_card_tall, lanes):
        inside = _in_lane(lane, centres)
        along, outlines = lane_windows(lane, (centres[inside] - lane.start) @ lane.along)
        if not len(along):
            continue
        readings = classifier.read(frame, _in_frame(table, outlines), faces=faces)
        kept: list[float] = []
        nudged = 0
        for k in sorted(range(len(along)), key=lambda k: -(readings[k].confidence if readings[k] else 0.0)):
            reading = readings[k]
            if reading is None or reading.confidence < NUDGE_FROM:
                break
            if any(abs(along[k] - t) < APART * CARD_MM[0] for t in kept):
                continue
            if reading.confidence < SWEPT_MIN:
                # A card laid askew or off the centre line reads unsurely in its upright window: try it turned
                # and shifted a little.
                if nudged == NUDGED_MOST:
                    continue
                nudged += 1
                nudges = _in_frame(table, _nudged(lane, outlines[k]))
                reading = max(
                    (r for r in classifier.read(frame, nudges, faces=faces) if r is not None),
                    key=lambda r: r.confidence,
                    default=reading,
                )
                if reading.confidence < SWEPT_MIN:
                    continue
            kept.append(float(along[k]))
            found.append(Card(reading.face, reading.corners, reading.confidence))
    return found


def _nudged(lane: Lane, outline: np.ndarray) -> list[np.ndarray]:
    """The window `outline` (table mm) turned by NUDGE_TURNS about its centre, and shifted across the lane by
    NUDGE_ACROSS_MM."""
    centre = outline.mean(axis=0)
    out = [outline + lane.across * shift for shift in NUDGE_ACROSS_MM]
    for turn in NUDGE_TURNS:
        c, s = np.cos(turn), np.sin(turn)
        out.append((outline - centre) @ np.array([[c, s], [-s, c]]) + centre)
    return out


def lane_aligned(
    classifier: CardClassifier,
    frame: np.ndarray,
    table: TableHomography,
    lanes: Sequence[Lane],
    cards: Sequence[Card],
    faces: Collection[CardFace] | None = None,
) -> list[Card]:
    """`cards`, each one in a lane (one card tall) read less surely than ALIGN_BELOW read again on the outlines
    the lane gives a card at its centre and ALIGN_SHIFTS_MM along the lane from it (upright across it), among
    `faces` if given: the surest reading stands, if it reaches ALIGN_MIN. An outline found in the picture can
    sit a little off the card, or along the lane over the mat's print; the lane's is square to it."""
    out = list(cards)
    centres = _centres_mm(table, cards)
    sure = np.array([card.confidence >= ALIGN_BELOW for card in cards], bool)
    for lane in filter(_one_card_tall, lanes):
        unsure = np.flatnonzero(_in_lane(lane, centres) & ~sure)
        if not len(unsure):
            continue
        shifts = np.array(ALIGN_SHIFTS_MM)
        places = centres[unsure][:, None] + shifts[None, :, None] * lane.along  # (unsure, shifts, 2)
        quads = _in_frame(table, upright_outlines(lane, places.reshape(-1, 2)))
        readings = classifier.read(frame, quads, faces=faces)
        for n, i in enumerate(unsure):
            for reading in readings[n * len(shifts) : (n + 1) * len(shifts)]:
                if reading is not None and reading.confidence > max(out[i].confidence, ALIGN_MIN):
                    out[i] = Card(reading.face, reading.corners, reading.confidence)
    return out


def read_lane_cards(
    recognizer: CardRecognizer,
    frame: np.ndarray,
    view: TopDownView,
    lanes: Sequence[Lane],
    raw: list[Card] | None = None,
) -> list[Card]:
    """The cards of a calibrated frame as a lane race reads them: on the raw frame (`raw`, if already read)
    and the top-down `view` (`read_cards`), the unsure ones in the `lanes` again on the lanes' outlines
    (`lane_aligned`), then in the lanes' free stretches (`swept_cards`), all among the faces of a Tempus deck
    (`as_tempus_cards`)."""
    classifier = recognizer.classifier
    cards = as_tempus_cards(classifier, frame, read_cards(recognizer, frame, view, raw))
    cards = lane_aligned(classifier, frame, view.table, lanes, cards, TEMPUS_FACES)
    return cards + swept_cards(classifier, frame, view.table, lanes, cards, TEMPUS_FACES)
