"""Photographs of cards on a table, rendered with a pinhole camera, and the truth about each card.

A scene is built in table millimetres, projected by a camera that looks down from above or from the
table's edge, then degraded the way webcams degrade pictures: uneven light, glare, shadows, blur, noise
and JPEG. `split="heldout"` draws fonts, card designs and tables that `split="train"` never uses.
"""

from __future__ import annotations

import functools
import math
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from PIL import Image

from models.synth.degrade import motion_kernel
from models.synth.notes import NOTE_PX, written_note
from models.synth.tables import HELDOUT_TABLES, TRAIN_TABLES, render_table
from vision.cards.artwork import (
    CARD_MM,
    CORNER_MARKS,
    DARK_PAPER_SHARE,
    FACE_CLASSES,
    WILD_LAYOUTS,
    CardFace,
    CardStyle,
    draw_card,
    font_family,
    random_style,
    system_fonts,
)
from vision.cards.back_patterns import BackDesign
from vision.sticks.artwork import draw_stick_card

# The table's texture: TEXTURE_PX pixels across the larger extent of the table a TEXTURE_FRAME_PX-wide frame
# shows, and no finer than MAX_TEXTURE_PX_PER_MM (`table_texture`).
TEXTURE_PX = 1100
TEXTURE_FRAME_PX = 1280
MAX_TEXTURE_PX_PER_MM = 4.0


def split_fonts(split: str) -> tuple[str, ...]:
    """A stable split of the installed font families: about one in four is held out of training."""
    fonts = system_fonts()
    heldout = tuple(f for f in fonts if zlib.crc32(font_family(f).encode()) % 4 == 0)
    train = tuple(f for f in fonts if f not in heldout)
    chosen = heldout if split == "heldout" else train
    return chosen or fonts


@dataclass
class TruthCard:
    face: CardFace
    corners: np.ndarray  # image pixels: the card's own top-left, top-right, bottom-right, bottom-left
    style: CardStyle | None = None  # the design it is printed in


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    cards: list[TruthCard]
    distractors: list[np.ndarray] = field(default_factory=list)  # image quads of things that are not cards
    # Printed DIGIT cards laid in place of some of the cards (`SceneSpec.stick_cards`): number, image corners
    # (the card's own top-left, top-right, bottom-right, bottom-left). Not in `cards`.
    stick_cards: list[tuple[int, np.ndarray]] = field(default_factory=list)
    face_down: list[np.ndarray] = field(default_factory=list)  # image corners of the cards laid face down
    written_notes: list[np.ndarray] = field(default_factory=list)  # image corners of the notes written on


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table plane Z=0 (millimetres), as a plane-to-image homography."""

    homography: np.ndarray

    @staticmethod
    def looking_at(size: tuple[int, int], card_px: float, tilt_deg: float, yaw_deg: float, fov_deg: float) -> Camera:
        w, h = size
        f = (w / 2) / math.tan(math.radians(fov_deg) / 2)
        k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
        distance = f * CARD_MM[1] / card_px  # a card at the image centre appears card_px tall
        t, y = math.radians(tilt_deg), math.radians(yaw_deg)
        # Table axes are x right, y toward the viewer, z into the table (right-handed, like the image), so
        # an untilted camera looks along +z; then pitch by the tilt and yaw about z.
        pitch = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        yaw = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
        rot = pitch @ yaw
        center = -distance * rot[2]  # camera sits back along its own viewing axis from the origin
        t_vec = -rot @ center
        hom = k @ np.column_stack([rot[:, 0], rot[:, 1], t_vec])
        return Camera(hom / hom[2, 2])

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def unproject(self, points_px: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)


def card_outline_mm(center: np.ndarray, angle: float, scale: float = 1.0) -> np.ndarray:
    """Corners of a card lying at `center` turned by `angle` radians: its own TL, TR, BR, BL."""
    w, h = CARD_MM[0] * scale, CARD_MM[1] * scale
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    c, s = math.cos(angle), math.sin(angle)
    return local @ np.array([[c, s], [-s, c]]) + center


PORTRAIT_SIZE = (720, 1280)  # width, height of a frame from a phone held upright


@dataclass(frozen=True)
class SceneSpec:
    split: str = "train"
    size: tuple[int, int] = (1280, 720)
    n_cards: tuple[int, int] = (4, 16)
    card_px: tuple[float, float] = (60, 160)  # card height at the image centre
    min_card_px: float = 58  # no card in the picture is shorter than this
    layout: str = "scatter"  # scatter | row | grid
    per_row: int | None = None  # a grid's cards a row; else drawn per scene
    gap_mm: tuple[float, float] = (4, 20)  # between neighbours in rows and grids
    min_tilt: float = 0.0  # above zero, every view is tilted at least this far
    max_tilt: float = 50.0
    faces: tuple[CardFace, ...] | None = None  # lay exactly these (in reading order for row/grid)
    one_deck_style: bool = False  # every card in one design, as a real deck
    deck_style: CardStyle | None = None  # that design, if given; else a random one
    table: str | None = None  # a table kind from models.synth.tables; else a random one of the split's
    distractors: bool = True
    streaks: float = 0.0  # share of cards crossed by a band: glare on a glossy face, or a printed sash
    inked_streaks: bool = False  # bands in the numeral's own colour: they hide the numeral where they cross
    dark_paper: float = DARK_PAPER_SHARE  # share of card designs on dark paper
    # Only the first `laid` cards lie on the table, the scene otherwise the same: a row as a player lays it.
    laid: int | None = None
    # Share of the cards laid as printed DIGIT cards (vision/sticks/artwork.py) of random numbers, drawn from a
    # stream of their own: the rest of the scene is the same with or without them.
    stick_cards: float = 0.0
    # Wilds printed in any layout ("1/6", "1 6", "16") and either order ("6/1"), drawn from a stream of their own,
    # `deck_style`'s too; otherwise as the design says (the print-and-play deck: low digit first, "1/6" or "1 6").
    varied_wilds: bool = False
    # Every design's 6 and 9 told apart by corner indices alone (top left, or both corners), no underline, drawn
    # from a stream of their own; otherwise as the design says (two indices always come with the underline).
    index_only: bool = False
    # Share of the card designs printed with a mark in their corners (`CardStyle.corner_mark`), drawn from a
    # stream of their own.
    corner_marks: float = 0.0
    # The back of the cards laid face down (CardFace("back")); else each design's own (the print-and-play back).
    back: BackDesign | None = None
    # 2-4 paper notes written on by hand (models/synth/notes.py) laid beside the cards, drawn from a stream of
    # their own.
    written_notes: bool = False


def _sample_faces(rng: random.Random, n: int) -> list[CardFace]:
    return [rng.choice(FACE_CLASSES) for _ in range(n)]


def render_scene(seed: int, spec: SceneSpec = SceneSpec()) -> Scene:
    """One photograph and its truth, a pure function of `seed` and `spec`."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    w, h = spec.size
    fonts = split_fonts(spec.split)
    heldout = spec.split == "heldout"
    for attempt in range(30):
        # Long rows may not fit at the size drawn: each retry steps the camera back a little.
        card_px = max(rng.uniform(*spec.card_px) * 0.9**attempt, spec.min_card_px * 1.1)
        camera = Camera.looking_at(
            spec.size,
            card_px=card_px,
            tilt_deg=rng.uniform(spec.min_tilt, spec.max_tilt) if rng.random() < 0.8 or spec.min_tilt else 0.0,
            yaw_deg=rng.uniform(-180, 180),
            fov_deg=rng.uniform(50, 75),
        )
        placed = _place_cards(rng, camera, spec)
        if placed is not None:
            break
    else:
        raise RuntimeError(f"could not lay the cards of scene {seed}")

    image = _table_image(nrng, rng, camera, spec, heldout)
    shadow = np.zeros((h, w), np.float32)
    prints = _prints(seed, spec)
    deck_style = spec.deck_style or (
        random_style(rng, fonts, heldout, spec.dark_paper) if spec.one_deck_style else None
    )
    if deck_style is not None:
        deck_style = _printed(deck_style, prints)
    outlines_px = [camera.project(mm) for _, mm in placed]
    distractor_quads = _draw_distractors(rng, nrng, image, camera, placed, spec) if spec.distractors else []
    notes = _lay_written_notes(random.Random(seed * 13 + 7), image, camera, placed, spec) if spec.written_notes else []
    laid = len(placed) if spec.laid is None else spec.laid
    for k, quad in enumerate(outlines_px):
        offset = np.array([rng.uniform(1, 5), rng.uniform(1, 6)])
        if k < laid:
            cv2.fillConvexPoly(shadow, np.round(quad + offset).astype(np.int32), 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 3)
    image *= (1 - rng.uniform(0.15, 0.45) * shadow)[..., None]

    cards, stick_cards, face_down = [], [], []
    streaks = random.Random(seed * 7 + 3)  # a stream of its own: the scene is the same with or without them
    sticks = random.Random(seed * 11 + 5)
    for k, ((face, _), quad) in enumerate(zip(placed, outlines_px, strict=True)):
        # Every card's draws are made, laid or not, so that the cards laid look the same in every frame.
        style = deck_style or _printed(random_style(rng, fonts, heldout, spec.dark_paper), prints)
        streak = random.Random(streaks.random()) if streaks.random() < spec.streaks else None
        number = sticks.randint(1, 55) if sticks.random() < spec.stick_cards else None
        if k < laid and number is not None:
            paste_art(image, np.asarray(draw_stick_card(number, _art_height(quad)), np.float32), quad)
            stick_cards.append((number, quad.astype(np.float32)))
        elif k < laid:
            if face.kind == "back":
                _paste_card(image, face, replace(style, back=spec.back or style.back), quad)
                face_down.append(quad.astype(np.float32))
            else:
                _paste_card(image, face, style, quad, streak, spec.inked_streaks)
                cards.append(TruthCard(face.reading, quad.astype(np.float32), style))
    image = _photograph(rng, nrng, image)
    return Scene(image, cards, distractor_quads, stick_cards, face_down, notes)


Print = Callable[[CardStyle], CardStyle]


def _prints(seed: int, spec: SceneSpec) -> list[Print]:
    """The ways `spec` asks every design to print its cards, in order, each drawing from a random stream of its
    own so that the rest of the scene is the same with or without it."""
    prints: list[Print] = []
    if spec.varied_wilds:
        prints.append(functools.partial(_wild_print, rng=random.Random(seed * 13 + 7)))
    if spec.index_only:
        prints.append(functools.partial(_index_print, rng=random.Random(seed * 17 + 11)))
    if spec.corner_marks:
        prints.append(functools.partial(_mark_print, rng=random.Random(seed * 19 + 13), share=spec.corner_marks))
    return prints


def _printed(style: CardStyle, prints: list[Print]) -> CardStyle:
    for reprint in prints:
        style = reprint(style)
    return style


def _index_print(style: CardStyle, rng: random.Random) -> CardStyle:
    """The design with no underline, its 6 and 9 told apart by an index top left or in both corners."""
    return replace(style, corner_index=rng.choice(("top_left", "both")), underline=False)


def _mark_print(style: CardStyle, rng: random.Random, share: float) -> CardStyle:
    """The design with a corner mark drawn from `rng`, `share` of the time."""
    marked, mark = rng.random() < share, rng.choice(CORNER_MARKS)
    return replace(style, corner_mark=mark) if marked else style


def _wild_print(style: CardStyle, rng: random.Random) -> CardStyle:
    """The design with its Wilds printed in a layout and an order drawn from `rng`."""
    return replace(style, wild_layout=rng.choice(WILD_LAYOUTS), wild_high_first=rng.random() < 0.5)


def _fits(quad_px: np.ndarray, size: tuple[int, int], min_px: float, margin: float = 4) -> bool:
    w, h = size
    if not (quad_px[:, 0].min() > margin and quad_px[:, 1].min() > margin):
        return False
    if not (quad_px[:, 0].max() < w - margin and quad_px[:, 1].max() < h - margin):
        return False
    tall = (np.linalg.norm(quad_px[3] - quad_px[0]) + np.linalg.norm(quad_px[2] - quad_px[1])) / 2
    wide = (np.linalg.norm(quad_px[1] - quad_px[0]) + np.linalg.norm(quad_px[2] - quad_px[3])) / 2
    return max(tall, wide) >= min_px


def _overlaps(quad_mm: np.ndarray, others: list[np.ndarray], gap_mm: float = 3.0) -> bool:
    grown = quad_mm + (quad_mm - quad_mm.mean(axis=0)) * (gap_mm / 40)
    return any(cv2.intersectConvexConvex(grown.astype(np.float32), o.astype(np.float32))[0] > 0 for o in others)


def _place_cards(rng: random.Random, camera: Camera, spec: SceneSpec) -> list[tuple[CardFace, np.ndarray]] | None:
    """Cards laid in table millimetres, or None when this camera cannot see them all."""
    n = len(spec.faces) if spec.faces is not None else rng.randint(*spec.n_cards)
    faces = list(spec.faces) if spec.faces is not None else _sample_faces(rng, n)
    if n == 0:
        return []
    w, h = spec.size
    if spec.layout == "scatter":
        placed: list[tuple[CardFace, np.ndarray]] = []
        for face in faces:
            for _try in range(60):
                center = camera.unproject(np.array([[rng.uniform(0, w), rng.uniform(0, h)]]))[0]
                quad = card_outline_mm(center, rng.uniform(-math.pi, math.pi))
                if _fits(camera.project(quad), spec.size, spec.min_card_px) and not _overlaps(
                    quad, [q for _, q in placed]
                ):
                    placed.append((face, quad))
                    break
        enough = len(placed) == n if spec.faces is not None else len(placed) >= max(1, int(0.7 * n))
        return placed if enough else None

    # Rows and grids: the cards face the reading direction, with small human jitter.
    per_row = n if spec.layout == "row" else (spec.per_row or rng.randint(3, max(3, min(10, n))))
    gap = rng.uniform(*spec.gap_mm)
    angle = rng.uniform(-math.pi, math.pi) if rng.random() < 0.7 else rng.uniform(-0.3, 0.3)
    along = np.array([math.cos(angle), math.sin(angle)])
    down = np.array([-math.sin(angle), math.cos(angle)])
    rows = math.ceil(n / per_row)
    span = along * (per_row - 1) * (CARD_MM[0] + gap) + down * (rows - 1) * (CARD_MM[1] + gap)
    origin = camera.unproject(np.array([[w / 2, h / 2]]))[0] - span / 2
    placed = []
    for i, face in enumerate(faces):
        r, c = divmod(i, per_row)
        center = origin + along * c * (CARD_MM[0] + gap) + down * r * (CARD_MM[1] + gap)
        center = center + np.array([rng.gauss(0, 1.5), rng.gauss(0, 1.5)])
        quad = card_outline_mm(center, angle + rng.gauss(0, 0.04))
        if not _fits(camera.project(quad), spec.size, spec.min_card_px):
            return None
        placed.append((face, quad))
    return placed


def table_texture(camera: Camera, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, float]:
    """The table seen in a frame of `size` as the texture drawn for it: the least corner and the extent (mm)
    of what is in view, and the texture's pixels per mm.

    The table kinds draw their patterns in texture pixels, so the texture's resolution sets a pattern's size
    in the frame. It grows with the frame's longer side: a checked cloth seen at the same scale then shows
    checks as many pixels wide in a 960x720 frame as in a 1280x720 one (with a fixed resolution they came out
    three quarters the size, which made 4:3 frames read worse than the cloth alone would)."""
    w, h = size
    corners_mm = camera.unproject(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float))
    lo, hi = corners_mm.min(axis=0), corners_mm.max(axis=0)
    extent = hi - lo
    return lo, extent, min(TEXTURE_PX * max(w, h) / TEXTURE_FRAME_PX / max(extent), MAX_TEXTURE_PX_PER_MM)


def _table_image(
    nrng: np.random.Generator, rng: random.Random, camera: Camera, spec: SceneSpec, heldout: bool
) -> np.ndarray:
    """The table top seen through the camera, as float32 BGR."""
    w, h = spec.size
    lo, extent, px_per_mm = table_texture(camera, spec.size)
    tw, th = max(8, int(extent[0] * px_per_mm)), max(8, int(extent[1] * px_per_mm))
    kind = spec.table or rng.choice(HELDOUT_TABLES if heldout else TRAIN_TABLES)
    texture = render_table(nrng, kind, th, tw)
    to_texture = np.array([[px_per_mm, 0, -lo[0] * px_per_mm], [0, px_per_mm, -lo[1] * px_per_mm], [0, 0, 1]])
    to_image = camera.homography @ np.linalg.inv(to_texture)
    return cv2.warpPerspective(texture, to_image, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _paste_card(
    image: np.ndarray,
    face: CardFace,
    style: CardStyle,
    quad: np.ndarray,
    streak: random.Random | None = None,
    inked: bool = False,
) -> None:
    """Warp the card's artwork onto its image quad, blending through the rounded-corner alpha; with a
    `streak` generator, a band crosses the face first (`inked`: in the numeral's colour)."""
    art = np.asarray(draw_card(face, style, height_px=_art_height(quad)), dtype=np.float32)
    if streak is not None:
        _draw_streak(streak, art, style.ink(face.digits[0]) if inked and face.digits else None)
    paste_art(image, art, quad)


def _art_height(quad: np.ndarray) -> int:
    """The artwork's height for a card seen as `quad`: half as fine again as the picture shows it."""
    tall = max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    return int(np.clip(tall * 1.5, 96, 700))


def paste_art(image: np.ndarray, art: np.ndarray, quad: np.ndarray) -> None:
    """Warp RGBA float artwork onto its image quad (float32 BGR `image`), blending through its alpha."""
    ah, aw = art.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
    src = np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(art, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    alpha = warped[..., 3:4] / 255.0
    rgb = warped[..., 2::-1]  # RGBA -> BGR
    roi = image[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + rgb * alpha


def _draw_streak(rng: random.Random, art: np.ndarray, ink: tuple[int, int, int] | None = None) -> None:
    """A straight band at any angle through the middle of the card's RGBA artwork: white glare, or a sash of
    any colour, from see-through to solid; with an `ink` (RGB), a sash of that colour, lightened up to half
    way to white and nearly solid, as a band printed under a light numeral on dark paper looks."""
    h, w = art.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    x0, y0 = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    across = np.abs((xs - x0) * math.sin(angle) - (ys - y0) * math.cos(angle))
    band = np.clip(rng.uniform(0.06, 0.3) * w / 2 - across + 0.5, 0, 1)  # one pixel of soft edge
    if ink is not None:
        lighten = rng.uniform(0.0, 0.5)
        colour, alpha = tuple(c + (255 - c) * lighten for c in ink), rng.uniform(0.75, 1.0)
    elif rng.random() < 0.4:
        colour, alpha = (255.0, 255.0, 255.0), rng.uniform(0.45, 0.9)
    else:
        colour, alpha = tuple(rng.uniform(0, 255) for _ in range(3)), rng.uniform(0.6, 1.0)
    mix = (alpha * band)[..., None]
    art[..., :3] = art[..., :3] * (1 - mix) + np.array(colour, np.float32) * mix


def _draw_distractors(
    rng: random.Random,
    nrng: np.random.Generator,
    image: np.ndarray,
    camera: Camera,
    placed: list[tuple[CardFace, np.ndarray]],
    spec: SceneSpec,
) -> list[np.ndarray]:
    """Things people leave on tables: coins, pens, a blank note, the Reference card."""
    quads = []
    h, w = image.shape[:2]
    taken = [q for _, q in placed]
    for _ in range(rng.randint(0, 4)):
        kind = rng.choice(("coin", "pen", "note", "reference"))
        center = camera.unproject(np.array([[rng.uniform(0, w), rng.uniform(0, h)]]))[0]
        if kind == "coin":
            r = rng.uniform(9, 14)
            ring = np.array([[math.cos(a), math.sin(a)] for a in np.linspace(0, 2 * math.pi, 24)]) * r + center
            if _overlaps(ring, taken):
                continue
            color = rng.choice(((60, 140, 190), (170, 170, 175), (50, 100, 160)))
            cv2.fillPoly(image, [np.round(camera.project(ring)).astype(np.int32)], color)
            taken.append(ring)
        elif kind == "pen":
            angle = rng.uniform(0, math.pi)
            d = np.array([math.cos(angle), math.sin(angle)]) * 70
            n = np.array([-d[1], d[0]]) / 70 * 4
            quad = np.array([center - d - n, center + d - n, center + d + n, center - d + n])
            if _overlaps(quad, taken):
                continue
            color = rng.choice(((30, 30, 30), (160, 60, 20), (20, 20, 160)))
            cv2.fillConvexPoly(image, np.round(camera.project(quad)).astype(np.int32), color)
            taken.append(quad)
        else:
            scale = rng.uniform(0.8, 1.3) if kind == "note" else 1.0
            quad = card_outline_mm(center, rng.uniform(-math.pi, math.pi), scale)
            quad_px = camera.project(quad)
            if _overlaps(quad, taken) or not _fits(quad_px, spec.size, spec.min_card_px):
                continue
            if kind == "reference":
                style = random_style(rng, split_fonts(spec.split), spec.split == "heldout")
                _paste_card(image, CardFace("reference"), style, quad_px)
            else:
                _paste_note(rng, image, quad_px)
            taken.append(quad)
            quads.append(quad_px.astype(np.float32))
    return quads


def _paste_note(rng: random.Random, image: np.ndarray, quad: np.ndarray) -> None:
    """A blank or lined scrap of paper: card-shaped, but not a card."""
    note = Image.new("RGBA", NOTE_PX, (*(rng.randint(225, 255) for _ in range(3)), 255))
    arr = np.asarray(note).copy()
    if rng.random() < 0.6:
        for y in range(20, NOTE_PX[1], rng.randint(10, 18)):
            arr[y : y + 1, 8:-8, :3] = (150, 170, 210)
    _paste_sheet(image, arr, quad)


def _lay_written_notes(
    rng: random.Random, image: np.ndarray, camera: Camera, placed: list[tuple[CardFace, np.ndarray]], spec: SceneSpec
) -> list[np.ndarray]:
    """`lay_written_notes` clear of the cards; their image corners."""
    taken = [quad for _, quad in placed]

    def clear(quad: np.ndarray, quad_px: np.ndarray) -> bool:
        return not _overlaps(quad, taken) and _fits(quad_px, spec.size, spec.min_card_px)

    def lay(art: np.ndarray, quad: np.ndarray, quad_px: np.ndarray) -> None:
        _paste_sheet(image, art, quad_px)
        taken.append(quad)

    def to_table(point: np.ndarray) -> np.ndarray:
        return camera.unproject(point)[0]

    return lay_written_notes(rng, image.shape[1::-1], to_table, camera.project, clear, lay, spec.split)


def lay_written_notes(
    rng: random.Random,
    size: tuple[int, int],
    to_table: Callable[[np.ndarray], np.ndarray],
    to_image: Callable[[np.ndarray], np.ndarray],
    clear: Callable[[np.ndarray, np.ndarray], bool],
    lay: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
    split: str,
) -> list[np.ndarray]:
    """2-4 card-sized notes written on by hand (`written_note`) on a frame of `size`, ten tries a note, each at a
    point of the frame taken to the table (`to_table`, one point to mm) and its outline back (`to_image`). Where
    `clear(quad_mm, quad_px)`, `lay(art RGBA, quad_mm, quad_px)` lays it. The notes' image corners."""
    w, h = size
    fonts = split_fonts(split)
    quads: list[np.ndarray] = []
    wanted = rng.randint(2, 4)
    for _ in range(10 * wanted):
        if len(quads) == wanted:
            break
        center = to_table(np.array([[rng.uniform(0, w), rng.uniform(0, h)]]))
        quad = card_outline_mm(center, rng.uniform(-math.pi, math.pi), rng.uniform(0.8, 1.3))
        quad_px = to_image(quad)
        if not clear(quad, quad_px):
            continue
        lay(written_note(rng, fonts, split == "heldout"), quad, quad_px)
        quads.append(quad_px.astype(np.float32))
    return quads


def _paste_sheet(image: np.ndarray, arr: np.ndarray, quad: np.ndarray) -> None:
    """A note's art (NOTE_PX, RGBA) warped onto the image quad `quad`."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    width, height = NOTE_PX
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(arr.astype(np.float32), matrix, (x1 - x0, y1 - y0))
    alpha = warped[..., 3:4] / 255.0
    roi = image[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + warped[..., 2::-1] * alpha


def _photograph(rng: random.Random, nrng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Light, glare, optics and compression."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)
    light = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    light *= 1 - rng.uniform(0, 0.35) * (((xx - cx) / w) ** 2 + ((yy - cy) / h) ** 2)
    light *= rng.uniform(0.55, 1.25)
    cast = np.array([rng.uniform(0.85, 1.1), rng.uniform(0.92, 1.05), rng.uniform(0.85, 1.15)], np.float32)
    image = image * light[..., None] * cast
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        sigma = rng.uniform(15, 90)
        glare = np.exp(-(((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)))
        image = image + rng.uniform(60, 200) * glare[..., None]
    if rng.random() < 0.25:  # the shadow of a hand or an arm crossing the table
        pts = np.array([[rng.uniform(0, w), rng.uniform(0, h)] for _ in range(5)], np.float32)
        mask = np.zeros((h, w), np.float32)
        cv2.fillConvexPoly(mask, cv2.convexHull(pts).astype(np.int32), 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(8, 30))
        image = image * (1 - rng.uniform(0.2, 0.5) * mask)[..., None]
    sigma = rng.choice((0, 0.5, 0.8, 1.2, 1.6))
    if sigma:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    if rng.random() < 0.15:
        k = rng.choice((5, 7, 9))
        image = cv2.filter2D(image, -1, motion_kernel(k, rng.uniform(0, 180)))
    image = image + nrng.normal(0, rng.uniform(1, 7), image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    quality = rng.randint(45, 95)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out
