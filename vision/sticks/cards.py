"""The project's printed DIGIT cards (vision/sticks/artwork.py) lying on the table: each one's number and outline.

The card locators (vision/cards/locate.py: edges and brightness, and white paper) propose card-shaped
outlines. Each is warped to a small upright crop, a short side up (both quarter turns where a steep view
leaves that in doubt), and compared with the 55 cards' own faces, drawn by the kit's artwork, at both half
turns. The comparison is a normalised correlation of the faces softened, their rims left out and the light's
smooth slopes taken out. The outlines that look somewhat like a card are snapped to the card's rim and read
again, finer; those still no card have their sides moved to where the face correlates best, and are read once
more. A card is read where its whole face matches one card well and clearly better than
any other, and its number part and its drawn shape each alone match that card best too; Decko digit cards,
notes, tiles and the table match no card so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import cv2
import numpy as np

from vision.cards.locate import locate_card_quads, locate_paper_quads
from vision.cards.refine import outward_normals, refine_quad
from vision.geometry import centres_inside, dedupe_quads, from_corner, polygon_area, portrait_order, quad_aspect
from vision.sticks.artwork import draw_stick_card
from vision.sticks.detections import DetectionError

CARDS = 55
CROP = (40, 56)  # width, height: a card 88 mm tall at about 0.64 px per mm, portrait
SCREEN = (20, 28)  # the crop every outline is first read at: a cloth of checks gives a thousand outlines
NUMBER_ROWS = 0.375  # of the crop's height, above the drawn shape: the number and its underline
BLUR = 1.0  # px of a CROP crop: what a webcam's focus and the outline's error leave of thin lines
INSET = 0.055  # of the crop's height, left out along its rim: no card's own, where a rough outline errs most
SQUARISH = 1.3  # long/short sides below which a card may be seen either way round
SQUASHED = 1.5  # below which an outline wider than tall may be a card lying up the picture (`_turns`)
MAX_ASPECT = 2.6  # long/short sides: a steep view squashes a card, but not beyond this
REMAP_ROWS = 32_000  # cv2.remap takes maps of fewer than 2**15 rows
LIKELY = 0.4  # the whole face's correlation, on the locator's rough outline, that is worth snapping
ALIGN_STEPS = (0.04, 0.02)  # `_aligned`
MIN_SCORE = 0.7  # the whole face's correlation with the card read
MIN_MARGIN = 0.03  # over the next best card's, any turn


@dataclass(frozen=True, slots=True)
class DigitCard:
    """A DIGIT card read on the table: its number 1..55, its own top-left, top-right, bottom-right and
    bottom-left corners in image pixels (top: the number's side), and the correlation of its face with the
    card's (0..1)."""

    card: int
    corners: np.ndarray
    confidence: float

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, np.float32)
        if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
            raise DetectionError(f"a card has four finite corners [[x, y], ...], not {self.corners!r}")
        if not 1 <= self.card <= CARDS:
            raise DetectionError(f"DIGIT cards are numbered 1..{CARDS}, not {self.card!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise DetectionError(f"confidence is in 0..1, not {self.confidence!r}")
        object.__setattr__(self, "corners", corners)

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card,
            "corners": np.round(self.corners.astype(np.float64), 1).tolist(),
            "confidence": round(float(self.confidence), 3),
        }


@cache
def _grid(size: tuple[int, int], fine: int) -> np.ndarray:
    """A crop's sample points (3, pixels) in its pixels, homogeneous: `fine` x `fine` a pixel."""
    w, h = size
    ys, xs = np.mgrid[0 : fine * h, 0 : fine * w].astype(np.float32)
    return np.stack([(xs.ravel() + 0.5) / fine, (ys.ravel() + 0.5) / fine, np.ones(xs.size, np.float32)])


def crops(grey: np.ndarray, quads: list[np.ndarray], size: tuple[int, int] = CROP, fine: int = 2) -> np.ndarray:
    """Each outline (4x2, clockwise from the card's top-left) warped upright to `size` (N, H, W) float32, all
    in one remap: a warp a quad cost ten times as much on a cloth that gives a hundred outlines. Sampled
    `fine` x `fine` times a pixel and averaged, so thin lines of a card seen large do not alias away."""
    w, h = size
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    to_image = np.array([cv2.getPerspectiveTransform(rect, np.asarray(q, np.float32)) for q in quads], np.float32)
    p = to_image @ _grid(size, fine)  # (N, 3, pixels)
    maps = (p[:, :2] / p[:, 2:]).transpose(0, 2, 1).reshape(-1, fine * w, 2)  # the crops one under the other
    rows = REMAP_ROWS // (fine * h) * (fine * h)
    sampled = np.concatenate(
        [
            cv2.remap(grey, part[..., 0], part[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            for part in (maps[start : start + rows] for start in range(0, len(maps), rows))
        ]
    )
    if fine > 1:
        sampled = cv2.resize(sampled, (w, h * len(quads)), interpolation=cv2.INTER_AREA)
    return sampled.astype(np.float32).reshape(len(quads), h, w)


def _inset(h: int) -> int:
    return round(INSET * h)


@cache
def _lighting(size: tuple[int, int]) -> np.ndarray:
    """An orthonormal basis (K, pixels) of smooth light over the inner part of a crop of `size`: a linear and a
    quadratic slope in each direction, and the constant."""
    w, h = size
    inset = _inset(h)
    ys, xs = np.mgrid[inset : h - inset, inset : w - inset].astype(np.float64)
    x, y = xs.ravel() / w - 0.5, ys.ravel() / h - 0.5
    basis, _ = np.linalg.qr(np.stack([np.ones_like(x), x, y, x * y, x * x, y * y], axis=1))
    return basis.T.astype(np.float32)


def _features(cropped: np.ndarray, parts: int = 3) -> list[np.ndarray]:
    """Crops (N, H, W) as the reader compares them: softened, the rim left out (every card has one, and a rough
    outline errs there most), the light's smooth slopes taken out; then each region, the whole face, the
    number part and the shape part, zero-mean and unit-norm (arrays N x pixels; the first `parts` of the three)."""
    n, h, w = cropped.shape
    blur = BLUR * h / CROP[1]
    soft = cv2.GaussianBlur(cropped.reshape(n * h, w), (0, 0), blur).reshape(n, h, w)  # rows bleed only into rims
    inset = _inset(h)
    inner = soft[:, inset:-inset, inset:-inset].reshape(n, -1)
    light = _lighting((w, h))
    inner = (inner - (inner @ light.T) @ light).reshape(n, h - 2 * inset, w - 2 * inset)
    split = round(NUMBER_ROWS * h) - inset
    return [_unit(r.reshape(n, -1)) for r in (inner, inner[:, :split], inner[:, split:])[:parts]]


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=1, keepdims=True)
    return rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-6)


@cache
def _art() -> tuple[np.ndarray, ...]:
    """The 55 faces in grey, drawn as fine as a crop's samples are at most (8 x 8 a CROP pixel)."""
    return tuple(np.asarray(draw_stick_card(n, CROP[1] * 8).convert("L"), np.float32) for n in range(1, CARDS + 1))


@cache
def _faces(size: tuple[int, int]) -> list[np.ndarray]:
    """The 55 faces (card k at row k - 1) in crops of `size`, as `_features` gives them."""
    return _features(np.array([cv2.resize(art, size, interpolation=cv2.INTER_AREA) for art in _art()]))


def _turns(quad: np.ndarray) -> list[np.ndarray]:
    """The ways a card may lie in a clockwise outline, each from the corner that makes its first side the card's
    top or bottom. A short side, as a rule; but a webcam looking across the table squashes what lies up the
    picture, and a card lying so can look square or even wider than tall: a near square, and an outline a
    little wider than tall with its long sides across the picture, are read both ways round."""
    upright = portrait_order(quad)
    aspect = quad_aspect(quad)
    top = np.abs(upright[1] - upright[0])
    lying = top[1] > top[0]  # the short sides run up the picture: the long ones across it
    if aspect < SQUARISH or (lying and aspect < SQUASHED):
        return [upright, from_corner(upright, 1)]
    return [upright]


def scores(
    grey: np.ndarray, quads: list[np.ndarray], parts: int = 3, size: tuple[int, int] = CROP, fine: int = 2
) -> list[np.ndarray]:
    """Each outline's correlation with each face (`_faces`), as it lies (card k at column k - 1) and turned half
    round (column k - 1 + CARDS), over the whole face, the number part and the shape part: three arrays
    (N, 2 * CARDS); the first `parts` of them. `size`, `fine`: as `crops`. The crop is turned, not the face, so
    that a card lying either way has its number in the number part."""
    cropped = crops(grey, quads, size, fine)
    seen = _features(cropped, parts), _features(np.ascontiguousarray(cropped[:, ::-1, ::-1]), parts)
    faces = _faces(size)
    return [np.concatenate([way[k] @ faces[k].T for way in seen], axis=1) for k in range(parts)]


def verdict(whole: np.ndarray, number_part: np.ndarray, shape_part: np.ndarray) -> tuple[int, bool, float] | None:
    """One outline's scores (`scores`' rows) read: the card's number, whether it lies half a turn round (its
    number at the outline's bottom), and its correlation; None where no card matches clearly, by its number and
    by its drawn shape alike."""
    best = int(np.argmax(whole))
    number = best % CARDS
    others = np.delete(whole, [number, number + CARDS])
    if whole[best] < MIN_SCORE or whole[best] - others.max() < MIN_MARGIN:
        return None
    # Both halves must agree: alone, a number read well beside a shape read badly (or the reverse) is how the
    # few cards misread were misread (21 read 23 as its number half reads; half of card 12 read as card 1).
    if int(np.argmax(number_part)) != best or int(np.argmax(shape_part)) != best:
        return None
    return number + 1, best >= CARDS, float(whole[best])


def card_outlines(image: np.ndarray) -> list[np.ndarray]:
    """The outlines the reader reads by default: the card locator's, edges and brightness, and white paper's."""
    return locate_card_quads(image) + locate_paper_quads(image)


def _aligned(grey: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """Each outline with its sides moved, one at a time, in or out along their normals by each of ALIGN_STEPS
    (shares of the outline's size) where that raises its best correlation with a face: where the rim gives no
    clear step for `refine_quad` (a card on a cloth of its own light colour), the face itself places it."""
    current = [np.asarray(q, np.float32) for q in quads]
    for step in ALIGN_STEPS:
        tried = []
        for quad in current:
            normals = outward_normals(quad)
            size = float(np.sqrt(polygon_area(quad)))
            tried.append(quad)
            for side in range(4):
                for way in (-1, 1):
                    moved = quad.copy()
                    moved[[side, (side + 1) % 4]] += way * step * size * normals[side]
                    tried.append(moved)
        best = scores(grey, tried, parts=1, fine=1)[0].max(axis=1).reshape(len(current), 9)
        current = [tried[9 * i + int(np.argmax(row))] for i, row in enumerate(best)]
    return current


def _read(grey: np.ndarray, quads: list[np.ndarray]) -> tuple[list[DigitCard], list[np.ndarray]]:
    """The cards read in the outlines, and the outlines no card is read in."""
    cards, doubted = [], []
    for quad, *rows in zip(quads, *scores(grey, quads), strict=True):
        read = verdict(*rows)
        if read is None:
            doubted.append(quad)
            continue
        number, turned, score = read
        cards.append(DigitCard(number, from_corner(quad, 2) if turned else quad, min(score, 1.0)))
    return cards, doubted


def read_digit_cards(image: np.ndarray, quads: list[np.ndarray] | None = None) -> list[DigitCard]:
    """The DIGIT cards lying in a BGR frame; `quads`: candidate outlines (4x2 clockwise, image pixels), else
    `card_outlines`. The locators miss a rounded corner by a few pixels, which the thin sticks drawn feel: the
    outlines that look somewhat like a card are snapped to the rim and read again, and those still no card
    placed by the faces (`_aligned`) and read once more. One card per place: where outlines read overlap, the
    best correlated stands."""
    quads = card_outlines(image) if quads is None else quads
    quads = [turn for q in quads if quad_aspect(q) <= MAX_ASPECT for turn in _turns(np.asarray(q, np.float32))]
    if not quads:
        return []
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    rough = scores(grey, quads, parts=1, size=SCREEN, fine=1)[0].max(axis=1)
    likely = dedupe_quads([q for q, best in zip(quads, rough, strict=True) if best >= LIKELY])  # both locators
    if not likely:
        return []
    # Snapping can also go wrong, to a vein of marble or a check's edge: the rough outline is read too.
    snapped = dedupe_quads(likely + [refine_quad(image, q) for q in likely])
    cards, doubted = _read(grey, snapped)
    if doubted:  # the few outlines no card is read in are placed by the faces themselves and read again
        cards += _read(grey, _aligned(grey, doubted))[0]
    cards.sort(key=lambda c: -c.confidence)
    inside = centres_inside([c.corners for c in cards]) if cards else np.zeros((0, 0), bool)
    kept: list[int] = []
    for i in range(len(cards)):
        if not any(inside[i, j] or inside[j, i] for j in kept):
            kept.append(i)
    return [cards[i] for i in kept]
