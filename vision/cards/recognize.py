"""Digit cards on the table: locate outlines, classify them, keep one reading per card."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.cards.artwork import CARD_MM, STARTER, CardFace
from vision.cards.backs import NOT_FACE_ABOVE, FaceDownCheck, shipped_check
from vision.cards.centres import MODEL_PATH as LOCATOR_PATH
from vision.cards.centres import PEAK_THRESHOLD, PORTRAIT_MODEL_PATH, CardLocator, HeatMap, half_axes, outline
from vision.cards.classify import CardClassifier, Reading
from vision.cards.corners import card_corners
from vision.cards.index import IndexReader, shipped_index_reader
from vision.cards.locate import locate_card_quads
from vision.cards.refine import refine_quad, rim_contrast
from vision.corners import CornerRefiner
from vision.deblur import clear_streak, deblurred
from vision.geometry import (
    centres_inside,
    dedupe_quads,
    point_in_quad,
    points_in_quads,
    polygon_area,
    quad_iou,
    rectangle_tilt,
    rims,
    scaled_outline,
    side_lengths,
    steep_view,
    tilts_kept,
    to_plane,
    warped,
)
from vision.onnx_session import quantized
from vision.sharpen import FocusGauge
from vision.working_size import to_picture, working_copy

MIN_CONFIDENCE = 0.4
STEEP = 40.0  # degrees from straight down: a view this steep is looked at again from above
MIN_CARDS_FOR_TILT = 2
# Cards in Tempus rows and grids lie a few millimetres apart: a guess at the gap, as a share of the card's
# side, that the rim search in refine_quad corrects either way.
NEIGHBOUR_GAP = 0.12
OUTLINED_IOU = 0.75  # a locator outline this close to an edge outline is that outline's card
MAX_GROWTH_STEPS = 25  # a long Tempus row read from one end
NEIGHBOUR_HEAT = 0.1  # least locator heat at a neighbour's centre worth a look
# An outline the classifier doubted (a near miss, or a reading under MIN_CONFIDENCE) is read again on the
# corners the corner network finds. Near misses under REREAD_FROM are left: the play mat's paper and markers
# are near misses of almost no face confidence, and reading them all again cost 30 ms a frame.
REREAD_FROM = 0.05  # face confidence of a near miss worth a second read
SURE = 0.9  # a reading this confident settles its card: outlines inside it are not read
RIM_MIN = 10.0  # least colour step across the outline of a reading the classifier is not SURE of
# A 0 the classifier is not SURE of needs a firmer rim: a marble's contour ring or a round motif of the cloth
# reads as a 0 with a faint step round it, where a 0 card has a card's rim. Over the seven held-out card sets,
# unsure 0s with rims of 10-15 were 14 false detections and 2 cards read right.
RING_RIM_MIN = 15.0
# A card of nearly the table's colour has a weak rim: it stands if the locator marks a card's centre there
# (VOUCHING_HEAT), the classifier reads it fairly surely (VOUCHED_CONFIDENCE), and it is within VOUCHED_SIZE
# times the median size of the cards read with rims either way. Dark cards on a dark cloth are read so. A 0 is
# never vouched for: marble's contour rings read as 0s with locator heat there (on the three held-out sets, 6
# of the 7 readings vouching added that were no card). The heat asked was 0.45 until the seventy-sixth session;
# at 0.33 four held-out sets read 1, 1, 1 and 0 cards more (a light 9 on a white cloth, a dark 9 in a grid on a
# dark one) with one false detection fewer, and the race mat's lanes, touching lines and the other kinds' frames
# read the same or better.
VOUCHING_HEAT = 0.33
VOUCHED_CONFIDENCE = 0.6
VOUCHED_SIZE = 1.33
RING = CardFace("digit", (0,))
# A doubted outline is read again on the corners the corner network gives it and on the rim the rim search
# finds round it; the rim's reading counts only this sure. On low-contrast cards the corner network drifts
# where the rim search holds (a 2/7 read 0.91 on the rim, none on the network's corners). On the three held-out
# sets it read 2, 2 and 1 cards more with no false detection more; taking every rim reading, 2 and 3 more with
# 1 false and 4 misread more.
RIM_READING_SURE = 0.7
# A locator peak outlined at a read neighbour's size (`read_resized`) may fit its card as it is where both the
# corner network and the rim search move it off: a dark card crossed by a sash read 0.64 on it (IoU 0.83), and
# 0.14 and 0.46 on theirs. Such an outline's own reading counts from this sure.
AS_GIVEN_SURE = 0.6
# A card read with less confidence than this, often on an outline a little off the card (from the edges, the
# rim search beside a neighbour, or the corner network's own rounds), is read again on the corners the corner
# network puts it on, and the surer reading stands. On the three held-out
# sets it read 3, 2 and 0 cards more, with 0, 1 and 0 false fewer; from 0.9, 3, 3 and -1 more.
POLISH_BELOW = 0.7
# A 3 however sure may be the Starter read on a loose outline that leaves its dot out (a 3 read 0.94 at IoU 0.71
# with its card, the Starter 0.98 on the corners the corner network gives it): every 3 is read again so, and
# only the Starter read there surer takes its place. The Starter is where a Tempus line starts.
THREE = CardFace("digit", (3,))
# Of two outlines of one card read alike, the outer one is the card (a panel is printed inside it) unless
# its rim is under this share of the inner one's: then it is the card grown onto the table (a light card on a
# dark top: rims 9 against 86). At 0.25 or more, cards with panels on pale tables lost to their panels.
OUTER_RIM_SHARE = 0.15
# Nor does an outer outline read with under this share of the inner one's confidence: it would take the
# inner reading's confidence, and a loose outline onto the table then passed for the card (a 2 read 0.96 on
# its own outline lost it to one at IoU 0.25 read 0.49). On the three held-out sets: 3, 1 and 1 cards more;
# false detections 5 -> 3, 4 -> 3 and 5 -> 6.
OUTER_CONFIDENCE_SHARE = 0.8
# Cards are 60 px tall and up in the pictures the reader is made for. A reading the classifier is not SURE
# of, on an outline under 0.6 of that, is the cloth's print read as a card (four on one held-out scene); a
# true card's outline read short still fits it (a 59 px Starter read at 39 px, IoU 0.57).
SMALLEST_CARD = 36.0  # px, the outline's longer sides' mean
# On the table all cards are one size. A reading the classifier is not SURE of, whose outline on the table
# plane (under the tilt the outlines read give) runs round over SIZE_SPREAD times the median card's or under
# 1/SIZE_SPREAD of it, is the cloth or the mat's print read as a card: an empty race-mat lane read as a 2/7, a
# marker's corner as the Starter. Over the seven card sets and the race mat's 40 views, readings that far off
# were 20 false or misread cards and no card read right (those furthest off, 1.5 and 0.67, on steep views,
# where 1.6 was chosen; at 1.5 they sit on the bound and stand). At 1.5 (sixty-second session), with the cards
# checked once more after `tightened`: of the 1385 unsure cards read right on the seven sets none lay beyond
# 1.36 or under 0.74; false detections 31 -> 23; at 1.45 a card read right was lost (models/digit_cards.md).
# Only among MIN_CARDS_FOR_SIZE or more: the median of two is their mean, and a true card would go with a false one.
SIZE_SPREAD = 1.5
MIN_CARDS_FOR_SIZE = 3
# A card read on an outline running round over OFF_SIZE times the median card's on the table plane, or under
# 1/OFF_SIZE of it, is often read right on a loose outline: grown onto the table, a checked cloth's square or a
# neighbour's gap, or shrunk to a panel printed on the card. Such an outline is scaled to the median card's
# size, put on the card's corners by the corner network and by the rim search, and read again there: a reading
# of the same face takes its place if its rim steps more, or if it is read surer on an outline within
# SIZE_MATCH of the median's size (a check's edge steps more than a card's rim). Over the four tuned sets,
# outlines read right ran round 0.68-1.3 times the median but for 8 of 4028, and the 7 grown past their cards
# 1.31-1.51 times. On seven sets: 11 cards more read right, 12 false detections fewer, none lost, and cards
# read right on outlines overlapping theirs under 0.6 went from 78 to 40 (models/digit_cards.md). Half a Wild
# is card-shaped and holds one of its digits: a digit read on it is read again as the Wild (`_whole_of`); so
# is a Starter read as a 3 on an outline short of its dot.
OFF_SIZE = 1.25
SIZE_MATCH = 1.15
# A frame with at least this many cards read unsure, and no more read sure, is read again restored where its
# cepstrum shows a camera's streak clearly. On the first set streaked 11 px: 950 cards (9 false) -> 993 (16);
# the three tuned sets and a fresh one as rendered read the same. Without the clear streak, the tuned sets lost
# 9 cards (models/digit_cards.md).
RESTORE_DOUBTED = 2
RESIZE_LIMIT = 6  # unread locator peaks a picture, the surest first, outlined again at a read card's size
# Where the shortest card read is this short in the locator's input (px), the whole frame gets a closer look
# at ZOOM times the locator's scale: on tables it never met, the locator gives small cards no peak, and plain
# ones at 1.5 or 2 times the size. On the three held-out sets the whole frame at 1.5 read 15 cards more than
# a look round the heat the first look left unexplained, which missed cards it gave no heat at all; at a cost
# of 20 ms a look against a few (10 in 8 bits). 2 read a few more in 35 ms. The shortest card, not the
# median: a tilted view holds large near cards and small far ones (in portrait frames all the more), and
# the shortest read 17, 15 and 11 cards more of the sets in portrait, 4 more in landscape. A frame with no
# card read gets no look: it read 2 cards more on one set, and cost 30-80 ms on every frame of tiles or sticks.
CLOSER_BELOW = 38.0
ZOOM = 1.5
# A checked or tiled cloth gives an edge outline for every check: 300-800 on some held-out frames, read at
# 0.5-2 s a frame. Past this many, only the outlines the locator sees most heat at are read. At 150, 60 and 30
# the four held-out sets read the same cards; 60 saves a quarter of a busy cloth's frame (models/digit_cards.md).
MOST_EDGE_OUTLINES = 60
UNIT_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card read from a frame. `corners` are the card's own top-left, top-right, bottom-right,
    bottom-left in image pixels, so they also say which way the card faces. Two readings are the same
    card only if they are the same object: equal values can lie twice on a table."""

    face: CardFace
    corners: np.ndarray
    confidence: float
    back: float = 0.0  # how likely it lies face down, as the face-down check (vision/cards/backs.py) sees it

    @property
    def center(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    def to_json(self) -> dict:
        return {
            "kind": self.face.kind,
            "digits": list(self.face.digits),
            "center": [round(float(v), 1) for v in self.center],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 3),
        }


def _same_card(a: np.ndarray, b: np.ndarray) -> bool:
    """Two outlines of one card: much overlap, or one sitting inside the other (a printed frame)."""
    # Plain floats: this runs for every pair of readings, and numpy's per-call cost dominated it.
    (a0x, a0y), (a1x, a1y), (a2x, a2y), (a3x, a3y) = a.tolist()
    (b0x, b0y), (b1x, b1y), (b2x, b2y), (b3x, b3y) = b.tolist()
    reach = math.hypot(a0x - a2x, a0y - a2y) + math.hypot(b0x - b2x, b0y - b2y)
    apart = math.hypot(
        (a0x + a1x + a2x + a3x) / 4 - (b0x + b1x + b2x + b3x) / 4,
        (a0y + a1y + a2y + a3y) / 4 - (b0y + b1y + b2y + b3y) / 4,
    )
    if apart > reach / 2:
        return False  # too far apart to touch
    return quad_iou(a, b) > 0.3 or point_in_quad(a.mean(axis=0), b) or point_in_quad(b.mean(axis=0), a)


def _near_pairs(a: list[np.ndarray], b: list[np.ndarray]) -> np.ndarray:
    """near[i, j]: outlines a[i] and b[j] may be one card (`_same_card`): their centres lie within half their
    diagonals' sum, and no side's normal parts them (`_parted`), with margins that leave `_same_card` the judge
    at the edge. Pairs further apart, or parted, are not."""
    qa = np.asarray(a, np.float64).reshape(-1, 4, 2)
    qb = np.asarray(b, np.float64).reshape(-1, 4, 2)
    reach = np.linalg.norm(qa[:, 0] - qa[:, 2], axis=1)[:, None] + np.linalg.norm(qb[:, 0] - qb[:, 2], axis=1)
    apart = np.linalg.norm(qa.mean(axis=1)[:, None] - qb.mean(axis=1)[None], axis=2)
    near = apart <= reach / 2 + 1e-3
    i, j = np.nonzero(near)
    near[i, j] = ~_parted(qa[i], qb[j])
    return near


def _parted(qa: np.ndarray, qb: np.ndarray, margin: float = 1e-3) -> np.ndarray:
    """For pairs of outlines (n, 4, 2 each): whether the corners and centre of one lie more than `margin` px
    beyond those of the other along the normal of one of their sides. Such outlines share no point (each lies
    within its corners' span), and neither centre lies in the other: `_same_card` says no to them. Neighbours
    in a row (`grow`) are all such pairs, and OpenCV's overlap and inside tests cost far more a pair."""
    points_a = np.concatenate([qa, qa.mean(axis=1, keepdims=True)], axis=1)  # (n, 5, 2)
    points_b = np.concatenate([qb, qb.mean(axis=1, keepdims=True)], axis=1)
    sides = np.concatenate([qa[:, [1, 2, 3, 0]] - qa, qb[:, [1, 2, 3, 0]] - qb], axis=1)  # (n, 8, 2)
    normals = np.stack([-sides[..., 1], sides[..., 0]], axis=-1)
    normals /= np.maximum(np.linalg.norm(normals, axis=-1, keepdims=True), 1e-12)
    on_a = np.einsum("nkd,npd->nkp", normals, points_a)  # (n, 8 normals, 5 points)
    on_b = np.einsum("nkd,npd->nkp", normals, points_b)
    gap = np.maximum(on_b.min(axis=2) - on_a.max(axis=2), on_a.min(axis=2) - on_b.max(axis=2))
    return (gap > margin).any(axis=1)


def select_cards(readings: list[Reading], image: np.ndarray | None = None) -> list[Card]:
    """Keep the most confident reading of each card; prefer the outer outline when a printed frame or panel
    inside the card was read the same way. With the `image`, an outer outline whose rim is far weaker than
    the inner one's (OUTER_RIM_SHARE), or that is read far less surely (OUTER_CONFIDENCE_SHARE), is the card's
    outline grown onto the table, and the inner one stays."""
    readings = [r for r in sorted(readings, key=lambda r: -r.confidence) if r.confidence >= MIN_CONFIDENCE]
    if not readings:
        return []
    # Only readings near enough to touch are compared (`_near_pairs`); `outline[k]`: whose corners kept[k] holds.
    near = _near_pairs([r.corners for r in readings], [r.corners for r in readings])
    kept: list[Reading] = []
    outline: list[int] = []
    for n, reading in enumerate(readings):
        clash = next(
            (i for i, k in enumerate(kept) if near[outline[i], n] and _same_card(k.corners, reading.corners)), None
        )
        if clash is None:
            kept.append(reading)
            outline.append(n)
        elif kept[clash].face == reading.face:
            holder = kept[clash]
            outer, inner = sorted((reading, holder), key=lambda r: -polygon_area(r.corners))
            if outer is reading and reading.confidence < OUTER_CONFIDENCE_SHARE * holder.confidence:
                continue  # a loose outline round a card read far more surely: the card grown onto the table
            if point_in_quad(inner.corners.mean(axis=0), outer.corners):
                card = outer if _rim_holds(image, outer, inner) else inner
                kept[clash] = Reading(card.face, card.corners, holder.confidence)
                if card is reading:
                    outline[clash] = n
    return [Card(r.face, r.corners, r.confidence) for r in kept]


def _whole_of(whole: CardFace, part: CardFace) -> bool:
    """Whether a card read `part` on an outline off the table's card size may be the card `whole` read at that
    size: the same face, or a card printed with more than the digit `part`: a Wild one of whose digits it is (the
    part read on half of it), or the Starter, a 3 with a dot (read on an outline that leaves the dot out)."""
    return whole == part or (
        whole.kind in ("wild", "starter") and part.kind == "digit" and part.digits[0] in whole.digits
    )


def _rim_holds(image: np.ndarray | None, outer: Reading, inner: Reading) -> bool:
    if image is None:
        return True
    return rim_contrast(image, outer.corners) >= OUTER_RIM_SHARE * rim_contrast(image, inner.corners)


def neighbour_quads(card: Card) -> list[np.ndarray]:
    """Where the card's neighbours would lie in a row or grid of equal cards: its outline moved one card and
    a gap along each of its own axes, through the card's own perspective so far neighbours come out smaller.
    In the order right, left, below, above: each place's opposite is its index with the lowest bit flipped."""
    to_image = cv2.getPerspectiveTransform(UNIT_SQUARE, card.corners.astype(np.float32))
    step = 1 + NEIGHBOUR_GAP
    shifted = [UNIT_SQUARE + offset for offset in ((step, 0), (-step, 0), (0, step), (0, -step))]
    return [cv2.perspectiveTransform(q[None], to_image)[0] for q in shifted]


def hottest(quads: list[np.ndarray], heat: HeatMap, most: int) -> list[np.ndarray]:
    """At most `most` of the outlines, those with the most locator heat at their centres, in their order."""
    if len(quads) <= most:
        return quads
    centre_heat = heat.at(np.array([q.mean(axis=0) for q in quads]))
    kept = np.sort(np.argsort(-centre_heat, kind="stable")[:most])
    return [quads[i] for i in kept]


def _outlined(quads: list[np.ndarray], outlines: list[np.ndarray]) -> list[bool]:
    """For each of the `quads`: whether one of the `outlines` is that outline's card (OUTLINED_IOU)."""
    if not outlines:
        return [False] * len(quads)
    centres = np.asarray(outlines).mean(axis=1)
    found = []
    for quad in quads:
        near = np.linalg.norm(centres - quad.mean(axis=0), axis=1) < np.linalg.norm(quad[0] - quad[2]) / 4
        found.append(any(quad_iou(quad, outlines[i]) > OUTLINED_IOU for i in np.flatnonzero(near)))
    return found


def _free(quads: list[np.ndarray], cards: list[Card], size: tuple[int, int]) -> list[bool]:
    """For each outline: within a tenth of the frame beyond its edges, and no card of `cards` (`_same_card`)."""
    if not quads:
        return []
    w, h = size
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    inside = ((q[..., 0] > -0.1 * w) & (q[..., 0] < 1.1 * w) & (q[..., 1] > -0.1 * h) & (q[..., 1] < 1.1 * h)).all(1)
    if not cards:
        return inside.tolist()
    # Only pairs close enough to touch get the full test.
    near = _near_pairs(quads, [card.corners for card in cards])
    return [
        bool(ok) and not any(_same_card(quads[i], cards[j].corners) for j in np.flatnonzero(near[i]))
        for i, ok in enumerate(inside)
    ]


def _rescaled(direction: np.ndarray, length: np.ndarray) -> np.ndarray:
    """`direction` with the length of the vector `length`."""
    return direction * (np.linalg.norm(length) / np.linalg.norm(direction))


def _length(quad: np.ndarray) -> float:
    """An outline's length: the mean of its longer pair of opposite sides."""
    sides = side_lengths(quad)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def _rimmed(image: np.ndarray, card: Card) -> bool:
    least = RING_RIM_MIN if card.face == RING else RIM_MIN
    return card.confidence >= SURE or rim_contrast(image, card.corners) >= least


def standing(image: np.ndarray, found: list[Card], known: list[Card], heat: HeatMap | None) -> list[bool]:
    """Which of the cards `found` stand: those with a rim (`_rimmed`), and with the locator's `heat`, those
    it vouches for (VOUCHING_HEAT) that are about the size of the rimmed ones and the cards `known`."""
    rimmed = [_rimmed(image, card) for card in found]
    if heat is None or all(rimmed):
        return rimmed
    lengths = [_length(c.corners) for c, r in zip(found, rimmed, strict=True) if r] + [
        _length(c.corners) for c in known
    ]
    if not lengths:
        return rimmed
    typical = float(np.median(lengths))
    centre_heat = heat.at(np.array([c.center for c in found]))
    return [
        r
        or (
            c.confidence >= VOUCHED_CONFIDENCE
            and c.face != RING
            and h >= VOUCHING_HEAT
            and 1 / VOUCHED_SIZE <= _length(c.corners) / typical <= VOUCHED_SIZE
        )
        for c, r, h in zip(found, rimmed, centre_heat, strict=True)
    ]


class TableSizes:
    """How far round outlines run on the table plane against the median card's, under the tilt the `cards`'
    outlines give (rectangles of a card's aspect there)."""

    def __init__(self, cards: list[Card], size: tuple[int, int]) -> None:
        outlines = np.array([c.corners for c in cards], np.float64)
        _, self.plane = rectangle_tilt(outlines, size, CARD_MM[1] / CARD_MM[0])
        self.median = float(np.median(self._rims(outlines)))

    def _rims(self, outlines: np.ndarray) -> np.ndarray:
        return rims(to_plane(self.plane, outlines))

    def ratios(self, outlines: list[np.ndarray]) -> np.ndarray:
        """Each outline's length round over the median card's."""
        return self._rims(np.array(outlines, np.float64).reshape(-1, 4, 2)) / self.median


def sized_alike(cards: list[Card], size: tuple[int, int]) -> list[bool]:
    """Which cards stand by their size on the table plane: those read SURE, and those whose outline there runs
    round within SIZE_SPREAD of the median card's (all of them, among fewer than MIN_CARDS_FOR_SIZE)."""
    if len(cards) < MIN_CARDS_FOR_SIZE:
        return [True] * len(cards)
    ratios = TableSizes(cards, size).ratios([c.corners for c in cards])
    alike = np.abs(np.log(ratios)) <= np.log(SIZE_SPREAD)
    return [card.confidence >= SURE or bool(a) for card, a in zip(cards, alike, strict=True)]


def alike_only(cards: list[Card], size: tuple[int, int]) -> list[Card]:
    """The cards that stand by their size on the table plane (`sized_alike`)."""
    return [card for card, alike in zip(cards, sized_alike(cards, size), strict=True) if alike]


class CardRecognizer:
    """Frames in, cards out. Holds the models; build one and reuse it.

    Two proposal sources feed one classifier: edges and brightness (generic, any camera) and the locator
    network, which marks each card's centre and axes (busy or low-contrast tables, touching cards; portrait
    frames have a locator of their own, `locator_for`). The corner
    network puts the locator's loose outlines, and any outline the classifier doubts, on the card's own
    corners. The classifier is the judge; a card it reads that surely lies face down or is a note written on
    (the face-down check, vision/cards/backs.py, tells: a deck beside a race, the appending game's Deck, a score
    sheet) is no card read, and each card read keeps how likely it is a back, for a game whose cards lie face
    down to be stricter.
    """

    def __init__(
        self,
        classifier: CardClassifier | None = None,
        locator: CardLocator | None = None,
        corners: CornerRefiner | None = None,
        focus: FocusGauge | None = None,
        closer_locator: CardLocator | None = None,
        portrait_locator: CardLocator | None = None,
        backs: bool = True,
        indices: bool = True,
    ) -> None:
        """`backs=False` reads a card's back as the classifier reads it, and gives no card its likelihood of
        being one (the face-down check's training wants those readings); `indices=False` leaves a 6 or 9 as the
        classifier reads it (the index network's training wants those readings)."""
        self.classifier = classifier or CardClassifier.shipped()
        # One 8-bit network serves both looks at landscape frames (models/digit_cards.md).
        eight_bit = CardLocator(quantized(LOCATOR_PATH)) if locator is None or closer_locator is None else None
        self.locator = locator or eight_bit
        self.closer_locator = closer_locator or eight_bit
        self.portrait_locator = portrait_locator or CardLocator(PORTRAIT_MODEL_PATH)
        self.corners = corners or card_corners()
        self.focus = focus or FocusGauge()
        self.face_down_check: FaceDownCheck | None = shipped_check() if backs else None
        self.index_reader: IndexReader | None = shipped_index_reader() if indices else None

    def __call__(self, image: np.ndarray) -> list[Card]:
        return self.timed(image)[0]

    def timed(self, image: np.ndarray) -> tuple[list[Card], dict[str, float]]:
        """The cards and each stage's milliseconds (`read`). A frame read in doubt (RESTORE_DOUBTED) whose
        cepstrum shows a moving camera's streak clearly (vision/deblur.py) is read again with the streak taken
        out: those cards come first, then the first reading's that are none of them. Cards surely lying face
        down are left out. A picture larger than the working size is read at it (vision/working_size.py)."""
        image, factor = working_copy(image)
        cards, timing = self.read(image)
        t0 = time.perf_counter()
        doubted = sum(c.confidence < SURE for c in cards)
        if doubted >= max(RESTORE_DOUBTED, len(cards) - doubted) and (blur := clear_streak(image)):
            # Read unsharpened: the restored frame is as sharp as the filter can make it.
            restored, _ = self.read(deblurred(image, blur), sharpen=False)
            cards = restored + [c for c in cards if not any(_same_card(c.corners, r.corners) for r in restored)]
            cards = alike_only(cards, image.shape[1::-1])
        timing["deblurred_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        if self.face_down_check is not None:
            seen = self.face_down_check.probabilities(image, [card.corners for card in cards])
            cards = [
                replace(card, back=float(back))
                for card, (face, back, _) in zip(cards, seen, strict=True)
                if 1 - face <= NOT_FACE_ABOVE
            ]
        timing["backs_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        if self.index_reader is not None:
            cards = self.index_reader.settled(image, cards)
        timing["indices_ms"] = (time.perf_counter() - t0) * 1000
        return [replace(c, corners=to_picture(c.corners, factor)) for c in cards] if factor > 1 else cards, timing

    def read(self, image: np.ndarray, sharpen: bool = True) -> tuple[list[Card], dict[str, float]]:
        """The cards and each stage's milliseconds. The frame is read sharpened (`vision.sharpen`) unless told
        otherwise; a steep view is looked at again from above (see `from_above`), the cards read unsure again
        (`polished`), and a reading of another size than the others read again at theirs (`sized_alike`)."""
        # The cards' tilt on the table is asked for four times a frame (`tilts_kept`).
        with tilts_kept():
            t0 = time.perf_counter()
            if sharpen:
                image = self.focus.sharpened(image)
            sharpen_ms = (time.perf_counter() - t0) * 1000
            cards, timing = self._look(image)
            timing = {"sharpen_ms": sharpen_ms, **timing}
            t0 = time.perf_counter()
            cards = cards + self.from_above(image, cards)
            t1 = time.perf_counter()
            cards = self.polished(image, cards)
            cards = [card for card in cards if card.confidence >= SURE or _length(card.corners) >= SMALLEST_CARD]
            alike = sized_alike(cards, image.shape[1::-1])
            odd = [(card.confidence, card.corners) for card, a in zip(cards, alike, strict=True) if not a]
            cards = [card for card, a in zip(cards, alike, strict=True) if a]
            cards = self.tightened(image, cards + self.read_resized(image, odd, cards))
            # Read again at the others' size, a card can still be off it (on the seven usual sets, one false detection).
            cards = alike_only(cards, image.shape[1::-1])
            timing |= {"above_ms": (t1 - t0) * 1000, "polish_ms": (time.perf_counter() - t1) * 1000}
            return cards, timing

    def from_above(self, image: np.ndarray, cards: list[Card]) -> list[Card]:
        """The cards a second look finds, apart from `cards`, where the cards read tell a camera tilted STEEP
        or more: a webcam at the table's edge squashes far cards past the views the networks learnt. The
        cards' outlines give the tilt (rectangles of the cards' own aspect on the table plane); the picture is
        warped to a view from above round them, cards there at their size in the picture, and read again."""
        if len(cards) < MIN_CARDS_FOR_TILT:
            return []
        outlines = np.array([c.corners for c in cards], np.float64)
        view = steep_view(outlines, image.shape[1::-1], CARD_MM[1] / CARD_MM[0], STEEP, 1.0)  # a card's height round
        if view is None:
            return []
        below = np.linalg.inv(view)
        seen, _ = self._look(warped(image, view))
        back = [replace(c, corners=to_plane(below, c.corners.astype(np.float64)).astype(np.float32)) for c in seen]
        return [b for b in back if not any(_same_card(b.corners, c.corners) for c in cards)]

    def polished(self, image: np.ndarray, cards: list[Card]) -> list[Card]:
        """`cards`, each read with less than POLISH_BELOW confidence (and every 3, for the Starter: THREE) read
        again on refined corners: where the classifier is surer there, and the new outline is no other card's,
        that reading stands."""
        unsure = [i for i, card in enumerate(cards) if card.confidence < POLISH_BELOW or card.face == THREE]
        if not unsure:
            return cards
        refined = self.corners.refine(image, [cards[i].corners for i in unsure])
        polished = list(cards)
        for i, reading in zip(unsure, self.classifier.read(image, refined), strict=True):
            if reading is None or reading.confidence <= cards[i].confidence:
                continue
            if cards[i].confidence >= POLISH_BELOW and reading.face != STARTER:
                continue
            if any(_same_card(reading.corners, c.corners) for j, c in enumerate(polished) if j != i):
                continue
            polished[i] = Card(reading.face, reading.corners, reading.confidence)
        return polished

    def tightened(self, image: np.ndarray, cards: list[Card]) -> list[Card]:
        """`cards`, each on an outline OFF_SIZE times the median card's or further off it either way, read again
        at the median's size on the corners the corner network and the rim search find there: a reading of the
        same face (or of a Wild or the Starter it is part of, `_whole_of`) whose rim steps more, or read surer within
        SIZE_MATCH of the median's size, stands in its place, unless its outline is another card's as read so
        far. A Wild's other half, read as its other digit, goes with it."""
        if len(cards) < MIN_CARDS_FOR_SIZE:
            return cards
        sizes = TableSizes(cards, image.shape[1::-1])
        ratios = sizes.ratios([c.corners for c in cards])
        off_size = np.flatnonzero(np.abs(np.log(ratios)) > np.log(OFF_SIZE))
        if not len(off_size):
            return cards
        loose = [scaled_outline(cards[i].corners, 1 / ratios[i]) for i in off_size]
        # One batch: the corner network's outlines, then the rim search's.
        outlines = self.corners.refine(image, loose) + [refine_quad(image, q) for q in loose]
        readings = self.classifier.read(image, outlines)
        tight: list[Card | None] = list(cards)
        for k, i in enumerate(off_size):
            card = tight[i]
            if card is None:
                continue  # the other half of a Wild read whole
            same, halves = [], []
            for r in readings[k :: len(off_size)]:
                if r is None or not _whole_of(r.face, card.face):
                    continue
                # Where both halves of a Wild were read as its digits, the other half is no other card.
                other_half = [
                    j
                    for j in off_size
                    if j != i
                    and (c := tight[j]) is not None
                    and c.face != r.face
                    and _whole_of(r.face, c.face)
                    and _same_card(r.corners, c.corners)
                ]
                others = [c for j, c in enumerate(tight) if c is not None and j != i and j not in other_half]
                if not any(_same_card(r.corners, c.corners) for c in others):
                    same.append(r)
                    halves.append(other_half)
            if not same:
                continue
            rim = rim_contrast(image, card.corners)
            steps = [rim_contrast(image, r.corners) for r in same]
            fits = np.abs(np.log(sizes.ratios([r.corners for r in same]))) < np.log(SIZE_MATCH)
            better = [
                (step, n)
                for n, (r, step, fit) in enumerate(zip(same, steps, fits, strict=True))
                if step > rim or (fit and r.confidence > card.confidence)
            ]
            if better:
                n = max(better, key=lambda sn: sn[0])[1]
                tight[i] = Card(same[n].face, same[n].corners, same[n].confidence)
                for j in halves[n]:
                    tight[j] = None
        return [card for card in tight if card is not None]

    def _look(self, image: np.ndarray) -> tuple[list[Card], dict[str, float]]:
        """One look at a frame: the cards and each stage's milliseconds."""
        t0 = time.perf_counter()
        edge_quads = locate_card_quads(image)
        t1 = time.perf_counter()
        scored, heat = self.locator_for(image).read(image)
        edge_quads = hottest(edge_quads, heat, MOST_EDGE_OUTLINES)
        # An outline the edges already give needs no second reading.
        loose = [
            sq for sq, known in zip(scored, _outlined([q for _, q in scored], edge_quads), strict=True) if not known
        ]
        located = self.corners.refine(image, [q for s, q in loose if s >= PEAK_THRESHOLD])
        t2 = time.perf_counter()
        quads = dedupe_quads(edge_quads + located)
        cards = self.read_outlines(image, quads, [], heat)
        # The locator's faint peaks are read as doubted outlines are: on refined corners, away from known cards.
        cards = cards + self.reread(image, [q for s, q in loose if s < PEAK_THRESHOLD], cards, heat)
        cards = cards + self.read_resized(image, scored, cards, heat)
        t3 = time.perf_counter()
        cards = cards + self.closer(image, cards)
        t4 = time.perf_counter()
        cards = self.grow(image, cards, heat)
        t5 = time.perf_counter()
        return cards, {
            "edges_ms": (t1 - t0) * 1000,
            "locate_ms": (t2 - t1) * 1000,
            "classify_ms": (t3 - t2) * 1000,
            "closer_ms": (t4 - t3) * 1000,
            "neighbours_ms": (t5 - t4) * 1000,
        }

    def locator_for(self, image: np.ndarray) -> CardLocator:
        """The locator that reads frames of the image's shape best: portrait frames have their own."""
        return self.portrait_locator if image.shape[0] > image.shape[1] else self.locator

    def read_outlines(
        self, image: np.ndarray, quads: list[np.ndarray], cards: list[Card], heat: HeatMap | None = None
    ) -> list[Card]:
        """The cards among the outlines, apart from `cards` already read: one reading per card that stands
        (`standing`, with the locator's `heat` if given), and the outlines the classifier doubted read again
        on refined corners."""
        readings = [r for r in self.read_nested(image, quads) if r is not None]
        selected = select_cards([r for r in readings if not r.rejected], image)
        found = [c for c, ok in zip(selected, standing(image, selected, cards, heat), strict=True) if ok]
        doubtful = [r.corners for r in readings if r.rejected or r.confidence < MIN_CONFIDENCE]
        found = found + self.reread(image, doubtful, cards + found, heat)
        h, w = image.shape[:2]
        return [c for c, free in zip(found, _free([c.corners for c in found], cards, (w, h)), strict=True) if free]

    def read_nested(self, image: np.ndarray, quads: list[np.ndarray]) -> list[Reading | None]:
        """Readings of the outlines, reading an outline inside another (a card's printed frame inside its rim)
        only if the one around it was not read for sure: a sure rim reading would win over it anyway."""
        if len(quads) < 2:
            return self.classifier.read(image, quads, near_misses=REREAD_FROM)
        inside = centres_inside(quads)
        areas = np.array([polygon_area(q) for q in quads])
        holders = inside & (areas[:, None] < areas[None, :])  # holders[i, j]: quad j holds quad i
        nested = holders.any(axis=1)
        outer = [q for q, n in zip(quads, nested, strict=True) if not n]
        readings = self.classifier.read(image, outer, near_misses=REREAD_FROM)
        sure = np.zeros(len(quads), bool)
        sure[np.flatnonzero(~nested)] = [r is not None and not r.rejected and r.confidence >= SURE for r in readings]
        left = [q for q, h in zip(quads, holders, strict=True) if h.any() and not (h & sure).any()]
        return readings + self.classifier.read(image, left, near_misses=REREAD_FROM)

    def reread(
        self,
        image: np.ndarray,
        doubtful: list[np.ndarray],
        cards: list[Card],
        heat: HeatMap | None = None,
        as_given: bool = False,
    ) -> list[Card]:
        """Cards among the doubted outlines, each read again on the corners the corner network moves it to and
        on the rim the rim search finds (`refine_quad`), that stand (`standing`) and are no card of `cards`.
        With `as_given`, each outline is read as it is too, its reading counting from AS_GIVEN_SURE."""
        h, w = image.shape[:2]
        left = [q for q, free in zip(doubtful, _free(doubtful, cards, (w, h)), strict=True) if free]
        # One batch: the corner network's outlines, then the rim search's (and the outlines as given).
        given = left if as_given else []
        outlines = self.corners.refine(image, left) + [refine_quad(image, q) for q in left] + given
        both = self.classifier.read(image, outlines)
        least = [RIM_READING_SURE] * len(left) + [AS_GIVEN_SURE] * len(given)
        surely = [r for r, sure in zip(both[len(left) :], least, strict=True) if r is not None and r.confidence >= sure]
        readings = both[: len(left)] + surely
        found = select_cards([r for r in readings if r is not None], image)
        free = _free([c.corners for c in found], cards, (w, h))
        found = [c for c, f in zip(found, free, strict=True) if f]
        return [c for c, ok in zip(found, standing(image, found, cards, heat), strict=True) if ok]

    def read_resized(
        self, image: np.ndarray, scored: list[tuple[float, np.ndarray]], cards: list[Card], heat: HeatMap | None = None
    ) -> list[Card]:
        """Cards at locator peaks whose outlines came out the wrong size. On a busy cloth the locator finds a
        card's centre but may guess its axes far too long or short, and the corner network cannot recover
        from that. The cards on one table are about one size, so each peak left unread is outlined again
        with the axes of the nearest card read, in the locator's directions, and read as it is and refined."""
        if not cards:
            return []
        h, w = image.shape[:2]
        centres = np.array([c.center for c in cards])
        outlines = []
        peaks = [q for _, q in sorted(scored, key=lambda sq: -sq[0])]
        for quad, free in zip(peaks, _free(peaks, cards, (w, h)), strict=True):
            if len(outlines) == RESIZE_LIMIT:
                break
            center, u, v = half_axes(quad)
            if min(np.linalg.norm(u), np.linalg.norm(v)) < 1 or not free:
                continue
            _, card_u, card_v = half_axes(cards[int(np.argmin(np.linalg.norm(centres - center, axis=1)))].corners)
            outlines.append(outline(center, _rescaled(u, card_u), _rescaled(v, card_v)))
        return self.reread(image, outlines, cards, heat, as_given=True)

    def closer(self, image: np.ndarray, cards: list[Card]) -> list[Card]:
        """The cards a closer look finds, apart from `cards`, where a card read is small: the locator read again
        over the whole frame at ZOOM times its scale, in 8 bits (as many cards in half the time)."""
        h, w = image.shape[:2]
        scale = self.locator.input_scale(image)
        if not cards or min(np.linalg.norm(c.corners[3] - c.corners[0]) for c in cards) * scale >= CLOSER_BELOW:
            return []
        scored = self.closer_locator.read_closer(image, (0, 0, w, h), ZOOM * scale)
        peaks = [q for s, q in scored if s >= PEAK_THRESHOLD]
        loose = [q for q, free in zip(peaks, _free(peaks, cards, (w, h)), strict=True) if free]
        return self.read_outlines(image, dedupe_quads(self.corners.refine(image, loose)), cards)

    def grow(self, image: np.ndarray, cards: list[Card], heat: HeatMap) -> list[Card]:
        """Look beside every card for a neighbour the proposals missed: in rows and grids cards touch, or
        nearly, and their outlines run together. Each card found this way is looked beside in turn, so one
        card read in a row leads along the row. Only where the locator sees a card's centre is looked at."""
        h, w = image.shape[:2]
        frontier = cards
        for _ in range(MAX_GROWTH_STEPS):
            quads = [q for card in frontier for q in neighbour_quads(card)]
            if not quads:
                break
            # A card on the far side of a place beside a card (not above or below: reading the ends of columns
            # as well cost a third more time on a two-row Tempus line and read no more) makes it a row's next.
            opposite = [quads[i ^ 1] for i in range(len(quads))]
            beside = np.arange(len(quads)) % 4 < 2
            lined = beside & points_in_quads(np.array([c.center for c in cards]), opposite).any(axis=0)
            seen = heat.at(np.array([q.mean(axis=0) for q in quads]))
            quads = [q for q, p, line in zip(quads, seen, lined, strict=True) if line or p > NEIGHBOUR_HEAT]
            quads = [q for q, free in zip(quads, _free(quads, cards, (w, h)), strict=True) if free]
            frontier = self.read_outlines(image, dedupe_quads([refine_quad(image, q) for q in quads]), cards, heat)
            cards = cards + frontier
        return cards
