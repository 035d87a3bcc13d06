"""Photographs of domino tiles on a table, and the truth about each tile and each half.

Tiles are solid blocks (a top face with its artwork, and sides that a tilted webcam sees) laid in table
millimetres and projected by the card renderer's pinhole camera, over the same tables and through the same
webcam degradations. Layouts cover what the recogniser must separate: tiles scattered at any angle, chains
end to end, racks side by side, crossed doubles, and Seven Pis shapes (a back of 2 or 3 tiles end to end,
two legs at right angles under the outer back cells) whose touching ends match, so that a junction looks
like a double. `split="heldout"` draws tile colours, pip colours, pin metals and tables that
`split="train"` never uses.
"""

from __future__ import annotations

import colorsys
import functools
import math
import random
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from models.synth.scenes import Camera, _paste_card, _photograph, _table_image, lay_written_notes, split_fonts
from models.synth.tables import HELDOUT_TABLES, TRAIN_TABLES
from vision.cards.artwork import CARD_MM, FACE_CLASSES, random_style

BGR = tuple[float, float, float]
CARD_TALL_MM = 88.0  # Camera.looking_at sizes its view by a card of this height
LAYOUTS = ("scatter", "touching", "pis", "mixed")


def pip_layout(n: int, turn: int = 0) -> list[tuple[int, int]]:
    """Pip positions of a half on a 3x3 grid (x, y in -1..1), turned by `turn` quarter turns.

    The double-six faces are the dice faces; double-nine sets add 7 (two rows of three and the centre),
    8 (the ring) and 9 (the full grid).
    """
    corners = [(-1, -1), (1, 1), (1, -1), (-1, 1)]
    layouts = {
        0: [],
        1: [(0, 0)],
        2: corners[:2],
        3: [*corners[:2], (0, 0)],
        4: corners,
        5: [*corners, (0, 0)],
        6: [*corners, (-1, 0), (1, 0)],
        7: [*corners, (-1, 0), (1, 0), (0, 0)],
        8: [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)],
        9: [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)],
    }
    points = layouts[n]
    for _ in range(turn % 4):
        points = [(-y, x) for x, y in points]
    return points


@dataclass(frozen=True)
class TileStyle:
    """How one set of tiles looks. Sizes are in millimetres; colours BGR 0..255."""

    body: BGR
    side: BGR
    pips: tuple[BGR, ...]  # by count, 0..9 (index 0 unused)
    pip_radius: float
    pip_step: float  # grid step between neighbouring pips
    recessed: bool  # pips sunk into the face: a dark rim
    divider: str  # groove | line | bar | ridge (moulded in the body's own material: only its light and shade show)
    divider_color: BGR
    divider_length: float  # share of the tile's width
    divider_width: float
    pin: BGR | None  # the centre pin (spinner) if the set has one
    corner_radius: float
    bevel: float
    gloss: float
    width: float
    thickness: float


def _hsv(h: float, s: float, v: float) -> BGR:
    r, g, b = colorsys.hsv_to_rgb((h % 360) / 360, s, v)
    return (b * 255, g * 255, r * 255)


def _hue(rng: random.Random, split: str) -> float:
    """Hues in 30-degree bands, alternating between the splits: held-out colours are never trained on."""
    band = rng.randrange(6) * 60 + (30 if split == "heldout" else 0)
    return band + rng.uniform(0, 30)


def random_tile_style(rng: random.Random, split: str = "train", top: int = 6) -> TileStyle:
    """A set's look: light tiles with dark or coloured pips, or dark tiles with light or coloured pips."""
    heldout = split == "heldout"
    dark = rng.random() < 0.45
    if dark and rng.random() < 0.5:  # black
        body = _hsv(_hue(rng, split), rng.uniform(0, 0.3), rng.uniform(0.04, 0.2))
    elif dark:  # navy, maroon, bottle green: dark but coloured
        body = _hsv(_hue(rng, split), rng.uniform(0.45, 0.9), rng.uniform(0.12, 0.32))
    elif rng.random() < 0.5:  # white and ivory
        body = _hsv(rng.uniform(20, 60), rng.uniform(0, 0.12), rng.uniform(0.75, 1.0))
    else:  # tinted: bone, cream, celadon, blush
        body = _hsv(_hue(rng, split), rng.uniform(0.15, 0.32), rng.uniform(0.75, 0.95))
    coloured = rng.random() < (0.55 if top == 9 else 0.3)
    if coloured:
        value = (0.75, 1.0) if dark else (0.35, 0.75)
        pips = tuple(_hsv(_hue(rng, split), rng.uniform(0.55, 1), rng.uniform(*value)) for _ in range(10))
    else:
        if dark:
            plain = _hsv(rng.uniform(0, 360), rng.uniform(0, 0.15), rng.uniform(0.8, 1.0))
        else:
            plain = _hsv(_hue(rng, split), rng.uniform(0, 0.6), rng.uniform(0.03, 0.3))
        pips = (plain,) * 10
    width = rng.uniform(19, 27)
    pip_step = width / 2 * rng.uniform(0.46, 0.6)
    pip_radius = min(width * rng.uniform(0.055, 0.09), pip_step * 0.4)
    metal = _hsv(rng.uniform(25, 40), rng.uniform(0.35, 0.6), rng.uniform(0.6, 0.9))  # brass
    if heldout:  # silver or copper
        metal = rng.choice((_hsv(0, 0, rng.uniform(0.65, 0.9)), _hsv(18, 0.6, rng.uniform(0.55, 0.8))))
    divider = rng.choice(("groove", "line", "bar"))
    if divider == "groove":
        shade = rng.uniform(0.45, 0.8) if not dark else rng.uniform(1.8, 3.5)
        divider_color = tuple(min(255.0, c * shade + (25 if dark else 0)) for c in body)
    elif divider == "line":
        divider_color = pips[rng.randint(1, 9)]
    else:
        divider_color = metal
    side_shade = rng.uniform(0.65, 0.95)
    side = tuple(c * side_shade for c in body)
    if heldout and not dark and rng.random() < 0.5:  # two-tone: a light face on a black base
        side = _hsv(0, 0, rng.uniform(0.05, 0.15))
    return TileStyle(
        body=body,
        side=side,
        pips=pips,
        pip_radius=pip_radius,
        pip_step=pip_step,
        recessed=rng.random() < 0.5,
        divider=divider,
        divider_color=divider_color,
        divider_length=rng.uniform(0.55, 0.9),
        divider_width=rng.uniform(0.5, 1.3),
        pin=metal if rng.random() < 0.4 else None,
        corner_radius=rng.uniform(1.0, 4.0),
        bevel=rng.uniform(0.6, 2.2),
        gloss=rng.uniform(0, 0.15),
        width=width,
        thickness=rng.uniform(5.5, 10),
    )


@dataclass(frozen=True)
class BackMark:
    """A maker's mark on the middle of a tile's back, as many sets print, stamp or inlay one."""

    shape: str  # one of BACK_MARKS
    size: float  # across, as a share of the tile's width
    color: BGR
    offset: float = 0.0  # along the tile from its middle, as a share of the tile's width
    turn: float = 0.0  # degrees


BACK_MARKS = ("disc", "ring", "star", "diamond", "square", "letter", "dimple")


def random_back_mark(rng: random.Random, back: BGR) -> BackMark:
    """A mark in a colour that stands out from the `back` (dark on light, light on dark, a metal foil) or one
    a shade off it (embossed), of any size from a pin's to half the tile's width."""
    shade = rng.choice(("contrast", "foil", "embossed"))
    if shade == "contrast":
        color = (30.0, 30.0, 35.0) if sum(back) / 3 > 110 else (235.0, 235.0, 230.0)
        color = tuple(c + rng.uniform(-20, 20) for c in color)
    elif shade == "foil":
        color = rng.choice(((60.0, 170.0, 215.0), (190.0, 190.0, 195.0), (40.0, 100.0, 180.0)))
    else:
        factor = rng.choice((rng.uniform(0.6, 0.85), rng.uniform(1.15, 1.4)))
        color = tuple(c * factor for c in back)
    return BackMark(
        shape=rng.choice(BACK_MARKS),
        size=rng.uniform(0.06, 0.5),
        color=color,  # type: ignore[arg-type]
        offset=rng.choice((0.0, rng.uniform(-0.3, 0.3))),
        turn=rng.uniform(0, 360),
    )


def _draw_back_mark(art: np.ndarray, mark: BackMark) -> None:
    h, w = art.shape[:2]
    s = 16  # cv2 drawing with 4 bits of sub-pixel precision
    centre = np.array([w / 2, h / 2 + mark.offset * w])
    r = max(0.8, mark.size * w / 2)
    fixed = (round(centre[0] * s), round(centre[1] * s))
    if mark.shape in ("disc", "dimple"):
        cv2.circle(art, fixed, round(r * s), mark.color, -1, cv2.LINE_AA, shift=4)
        if mark.shape == "dimple":  # a sunk pin-hole: its far rim catches the light
            rim = tuple(min(255.0, c * 1.5 + 40) for c in mark.color)
            cv2.ellipse(art, fixed, (round(r * s), round(r * s)), mark.turn, 200, 340, rim, max(1, round(r / 3)),
                        cv2.LINE_AA, shift=4)  # fmt: skip
    elif mark.shape == "ring":
        cv2.circle(art, fixed, round(r * s), mark.color, max(1, round(r / 4)), cv2.LINE_AA, shift=4)
    elif mark.shape == "letter":
        scale = r / 11
        stroke = max(1, round(scale * 2))
        (tw, th), _ = cv2.getTextSize("D", cv2.FONT_HERSHEY_SIMPLEX, scale, stroke)
        origin = (round(centre[0] - tw / 2), round(centre[1] + th / 2))
        cv2.putText(art, "D", origin, cv2.FONT_HERSHEY_SIMPLEX, scale, mark.color, stroke, cv2.LINE_AA)
    else:
        points = {"star": 5, "diamond": 4, "square": 4}[mark.shape]
        turn = math.radians(mark.turn + (45 if mark.shape == "square" else 0))
        if mark.shape == "star":
            angles = turn + np.arange(2 * points) * math.pi / points
            radii = np.where(np.arange(2 * points) % 2, 0.45 * r, r)
        else:
            angles, radii = turn + np.arange(points) * 2 * math.pi / points, np.full(points, r)
        polygon = centre + np.column_stack([np.cos(angles), np.sin(angles)]) * radii[:, None]
        cv2.fillPoly(art, [np.round(polygon * s).astype(np.int32)], mark.color, cv2.LINE_AA, shift=4)


def draw_tile(
    style: TileStyle,
    pips: tuple[int, int],
    px_per_mm: float,
    rng: random.Random,
    back: BGR | None = None,
    mark: BackMark | None = None,
) -> np.ndarray:
    """The top face as float32 BGRA, portrait: the half showing `pips[0]` on top; or, given the colour of its
    `back`, the tile lying face down (no divider, no pips; a maker's `mark` on it if given)."""
    w, h = round(style.width * px_per_mm), round(2 * style.width * px_per_mm)
    art = np.empty((h, w, 3), np.float32)
    art[:] = style.body if back is None else back
    art *= 1 + 0.04 * (np.asarray(_grain(rng, h, w)) - 0.5)[..., None]
    if back is not None and mark is not None:
        _draw_back_mark(art, mark)
    mask = np.zeros((h, w), np.uint8)
    r = max(1, round(style.corner_radius * px_per_mm))
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)

    # Bevel: the rim rounds off toward the light on one side and away from it on the other.
    dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    gx, gy = cv2.Sobel(dist, cv2.CV_32F, 1, 0), cv2.Sobel(dist, cv2.CV_32F, 0, 1)
    norm = np.sqrt(gx * gx + gy * gy) + 1e-6
    light = rng.uniform(0, 2 * math.pi)
    facing = -(gx * math.cos(light) + gy * math.sin(light)) / norm
    rim = np.clip(1 - dist / max(1.0, style.bevel * px_per_mm), 0, 1)
    art *= (1 + rim * (0.35 * facing - 0.12))[..., None]
    if style.gloss:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = (xx * math.cos(light) + yy * math.sin(light)) / max(w, h)
        art += (style.gloss * 255 * np.clip(ramp - ramp.mean() + 0.5, 0, 1))[..., None]
    if back is not None:
        return np.dstack([np.clip(art, 0, 255), mask.astype(np.float32)])

    s = px_per_mm * 16  # cv2 drawing with 4 bits of sub-pixel precision
    mid = style.width / 2
    half_bar = style.divider_length * style.width / 2
    bar_w = max(1, round(style.divider_width * px_per_mm))
    p0, p1 = (
        (round((mid - half_bar) * s), round(style.width * s)),
        (round((mid + half_bar) * s), round(style.width * s)),
    )
    cv2.line(art, p0, p1, style.divider_color, bar_w, cv2.LINE_AA, shift=4)
    if style.divider == "ridge":  # the flank toward the light (as the bevel's) catches it, the other is in shade
        side = round(bar_w * 16 / 2) * (-1 if math.sin(light) < 0 else 1)
        flank = max(1, bar_w // 2)
        lit = tuple(min(255.0, c * 1.25 + 10) for c in style.body)
        shade = tuple(c * 0.7 for c in style.body)
        for offset, colour in ((side, lit), (-side, shade)):
            cv2.line(art, (p0[0], p0[1] + offset), (p1[0], p1[1] + offset), colour, flank, cv2.LINE_AA, shift=4)
    if style.divider == "bar":  # a raised metal bar catches a highlight along one edge
        bright = tuple(min(255.0, c * 1.35 + 30) for c in style.divider_color)
        lift = round(bar_w * 16 / 4)
        cv2.line(art, (p0[0], p0[1] - lift), (p1[0], p1[1] - lift), bright, max(1, bar_w // 3), cv2.LINE_AA, shift=4)

    radius = style.pip_radius * px_per_mm
    for k, n in enumerate(pips):
        color = style.pips[n]
        for gx_, gy_ in pip_layout(n, rng.randrange(4)):
            x = mid + gx_ * style.pip_step + rng.gauss(0, 0.08)
            y = mid + k * style.width + gy_ * style.pip_step + rng.gauss(0, 0.08)
            center = (round(x * s), round(y * s))
            if style.recessed:
                rim_color = tuple(c * 0.55 for c in style.body)
                cv2.circle(art, center, round(radius * 16 * 1.12), rim_color, -1, cv2.LINE_AA, shift=4)
            cv2.circle(art, center, round(radius * 16), color, -1, cv2.LINE_AA, shift=4)
    if style.pin is not None:
        pin_r = style.width * 0.07 * s
        cv2.circle(art, (round(mid * s), round(style.width * s)), round(pin_r), style.pin, -1, cv2.LINE_AA, shift=4)
        glint = tuple(min(255.0, c * 1.4 + 40) for c in style.pin)
        off = round(pin_r * 0.3)
        center = (round(mid * s) - off, round(style.width * s) - off)
        cv2.circle(art, center, round(pin_r * 0.4), glint, -1, cv2.LINE_AA, shift=4)
    return np.dstack([np.clip(art, 0, 255), mask.astype(np.float32)])


def _grain(rng: random.Random, h: int, w: int) -> np.ndarray:
    small = np.random.default_rng(rng.getrandbits(32)).random((max(2, h // 6), max(2, w // 6)), np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


@dataclass(frozen=True)
class Pose:
    """A tile lying on the table: its centre and the unit vector from its first half to its second (mm)."""

    center: np.ndarray
    axis: np.ndarray
    pips: tuple[int, int]
    pi: int | None = None  # in a pis layout, the pi it belongs to

    def outline(self, width: float, gap: float = 0.0) -> np.ndarray:
        """Top-face corners in millimetres: the tile's own TL, TR, BR, BL, the first half at the top."""
        u = self.axis
        x = np.array([u[1], -u[0]])
        a, b = (width - gap) / 2, width - gap / 2
        return np.array([self.center - a * x - b * u, self.center + a * x - b * u, self.center + a * x + b * u,
                         self.center - a * x + b * u])  # fmt: skip

    def halves(self, width: float) -> np.ndarray:
        return np.array([self.center - self.axis * width / 2, self.center + self.axis * width / 2])


@dataclass
class TruthTile:
    pips: tuple[int, int]
    corners: np.ndarray  # image px of the top face: own TL, TR, BR, BL, the first half at the top
    halves: np.ndarray  # image px of each half's centre, in the order of `pips`
    group: str  # single | pi | chain | rack | crossed: what the tile lies in
    pi: int | None = None  # in a pis layout, the pi it belongs to

    def match(self, halves: np.ndarray) -> bool | None:
        """Whether two half centres read from the picture are this tile's: True in the truth's order, False
        turned round, None if either is more than 0.4 of the half spacing from where it should be."""
        spacing = float(np.linalg.norm(self.halves[1] - self.halves[0]))
        for order in (True, False):
            ends = halves if order else halves[::-1]
            if np.linalg.norm(ends - self.halves, axis=1).max() < 0.4 * spacing:
                return order
        return None


@dataclass
class DominoScene:
    image: np.ndarray  # BGR uint8
    tiles: list[TruthTile]
    table: str  # the kind of table top, from models.synth.tables
    distractors: list[np.ndarray] = field(default_factory=list)  # image outlines of things that are not tiles
    face_down: list[np.ndarray] = field(default_factory=list)  # image outlines of the tiles lying face down
    written_notes: list[np.ndarray] = field(default_factory=list)  # image corners of the notes written on


@dataclass(frozen=True)
class DominoSpec:
    split: str = "train"
    size: tuple[int, int] = (1280, 720)
    layout: str = "mixed"  # scatter | touching | pis | mixed
    n_tiles: tuple[int, int] = (4, 28)
    tile_px: tuple[float, float] = (30, 70)  # a tile's width at the image centre
    min_tile_px: float = 22  # no tile in the picture is narrower than this
    max_tilt: float = 50.0
    min_tilt: float = 0.0  # above 0, every view is tilted at least this much (no straight-down views)
    top: int | None = None  # double-six or double-nine; else either
    pis: int | None = None  # for the pis layout: this many pi shapes, all complete
    one_set: bool = True  # every tile from one set, as on a real table
    table: str | None = None  # a table kind from models.synth.tables; else one of the split's
    distractors: bool = True
    # For the pis layout: these tiles exactly, as (pi, ((row, col), (row, col)), (pips on the first cell,
    # pips on the second)) on the pi's own grid (row 0 the back), e.g. a Seven Pis game's placements.
    placed: tuple[tuple[int, tuple[tuple[int, int], tuple[int, int]], tuple[int, int]], ...] | None = None
    # Only the first `laid` tiles (pi by pi in a pis layout) lie on the table, the scene otherwise the same: a
    # game filmed as its tiles are laid.
    laid: int | None = None
    # Only these tiles (by their place in the layout: in `placed`, their place there) lie on the table, the
    # scene otherwise the same: tiles taken up again as well, e.g. from a hand laid apart. Overrides `laid`.
    shown: tuple[int, ...] | None = None
    # Tiles lying face down in a loose heap clear of the rest, as Seven Pis's draw pile lies: not tiles to read. Drawn
    # far to near among the others from a random stream of their own (a scene without them renders as before).
    face_down: int = 0
    # The chance that those tiles' backs carry a maker's mark (BackMark), drawn from a stream of its own.
    marked_backs: float = 0.0
    # The chance that the set's divider is a ridge moulded in the tiles' own material, seen only by a thin highlight
    # along one flank and a shade along the other, as on many black and translucent sets; a stream of its own.
    ridged: float = 0.0
    # 2-4 paper notes written on by hand (models/synth/notes.py), as a Seven Pis score sheet lies beside the game,
    # laid clear of the tiles, the pile and the distractors from a stream of their own.
    written_notes: bool = False


class _Lens:
    """The camera's full projection, so that points above the table (a tile's top face) project too."""

    def __init__(self, camera: Camera, size: tuple[int, int], fov_deg: float) -> None:
        f = (size[0] / 2) / math.tan(math.radians(fov_deg) / 2)
        self.k = np.array([[f, 0, size[0] / 2], [0, f, size[1] / 2], [0, 0, 1]])
        m = np.linalg.inv(self.k) @ camera.homography
        m /= np.linalg.norm(m[:, 0])
        self.r = np.column_stack([m[:, 0], m[:, 1], np.cross(m[:, 0], m[:, 1])])
        self.t = m[:, 2]

    def project(self, points_mm: np.ndarray, height: float = 0.0) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        xyz = np.column_stack([pts, np.full(len(pts), -height)])  # table z points down into the table
        cam = xyz @ self.r.T + self.t
        img = cam @ self.k.T
        return img[:, :2] / img[:, 2:3]

    def depth(self, point_mm: np.ndarray) -> float:
        return float((np.append(point_mm, 0.0) @ self.r.T + self.t)[2])


def _pis(rng: random.Random, top: int, count: int, complete: bool) -> list[Pose]:
    """`count` pi shapes in rows, in cell units (a cell is a tile's width): backs of 2 tiles (3 for
    double-nine), legs under the outer back cells, every touching end matching."""
    back = 3 if top == 9 else 2
    per_row = rng.randint(1, min(count, 4)) if count > 1 else 1
    gap = rng.uniform(0.3, 1.6)
    poses = []
    for i in range(count):
        r, c = divmod(i, per_row)
        ox, oy = c * (2 * back + gap), r * (3 + gap)
        values = [rng.randint(0, top) for _ in range(2 * back)]
        for j in range(1, back):  # ends along the back match
            values[2 * j] = values[2 * j - 1]
        tiles = [((2 * j, 0), (2 * j + 1, 0), values[2 * j], values[2 * j + 1]) for j in range(back)]
        for col in (0, 2 * back - 1):  # a leg's upper half matches the back cell above it
            tiles.append(((col, 1), (col, 2), values[col], rng.randint(0, top)))
        if not complete:
            keep = rng.randint(1, len(tiles))
            tiles = rng.sample(tiles, keep)
        for a, b, pa, pb in tiles:
            poses.append(replace(_cell_pose(rng, (ox + a[0], oy + a[1]), (ox + b[0], oy + b[1]), pa, pb), pi=i))
    return poses


def _placed_pis(rng: random.Random, placed: tuple, top: int) -> list[Pose]:
    """Given tiles on the pis' own grids, the pis laid in rows as `_pis` lays them."""
    labels = sorted({pi for pi, _, _ in placed})
    width = 6 if top == 9 else 4
    per_row = rng.randint(1, min(len(labels), 4)) if len(labels) > 1 else 1
    gap = rng.uniform(0.3, 1.6)
    poses = []
    for pi, ((r0, c0), (r1, c1)), (pa, pb) in placed:
        r, c = divmod(labels.index(pi), per_row)
        ox, oy = c * (width + gap), r * (3 + gap)
        poses.append(replace(_cell_pose(rng, (ox + c0, oy + r0), (ox + c1, oy + r1), pa, pb), pi=pi))
    return poses


def _cell_pose(rng: random.Random, a: tuple[float, float], b: tuple[float, float], pa: int, pb: int) -> Pose:
    """A tile over two neighbouring cells, either way round, with a hand's jitter."""
    ca, cb = np.array(a, float) + 0.5, np.array(b, float) + 0.5
    if rng.random() < 0.5:
        ca, cb, pa, pb = cb, ca, pb, pa
    axis = (cb - ca) / np.linalg.norm(cb - ca)
    turn = rng.gauss(0, 0.015)
    c, s = math.cos(turn), math.sin(turn)
    axis = np.array([c * axis[0] - s * axis[1], s * axis[0] + c * axis[1]])
    center = (ca + cb) / 2 + np.array([rng.gauss(0, 0.01), rng.gauss(0, 0.01)])
    return Pose(center, axis, (pa, pb))


def _chain(rng: random.Random, top: int, n: int) -> list[Pose]:
    """Tiles end to end, matching where they meet."""
    values = [rng.randint(0, top)]
    poses = []
    for i in range(n):
        nxt = rng.randint(0, top)
        poses.append(_cell_pose(rng, (2 * i, 0), (2 * i + 1, 0), values[-1], nxt))
        values.append(nxt)
    return poses


def _rack(rng: random.Random, top: int, n: int) -> list[Pose]:
    """Tiles side by side, long sides touching, as a player lines up a hand."""
    return [_cell_pose(rng, (i, 0), (i, 1), rng.randint(0, top), rng.randint(0, top)) for i in range(n)]


def _crossed(rng: random.Random, top: int) -> list[Pose]:
    """A double laid across a line of play, with a tile meeting each of its long sides."""
    d = rng.randint(0, top)
    poses = [_cell_pose(rng, (0, 0), (0, 1), d, d)]
    poses.append(_cell_pose(rng, (-2, 0.5), (-1, 0.5), rng.randint(0, top), d))
    if rng.random() < 0.7:
        poses.append(_cell_pose(rng, (1, 0.5), (2, 0.5), d, rng.randint(0, top)))
    return poses


def _groups(rng: random.Random, spec: DominoSpec, top: int, n: int) -> list[tuple[str, list[Pose]]]:
    """Named tile groups in cell units, each in its own frame; a "single" is a tile lying alone."""
    layout = spec.layout
    if layout == "pis" and spec.placed is not None:
        return [("pi", _placed_pis(rng, spec.placed, top))]
    if layout == "pis":
        count = spec.pis or rng.randint(1, (28 if top == 6 else 25) // (4 if top == 6 else 5))
        return [("pi", _pis(rng, top, count, complete=spec.pis is not None or rng.random() < 0.5))]
    groups: list[tuple[str, list[Pose]]] = []
    if layout == "mixed" and rng.random() < 0.7:
        groups.append(("pi", _pis(rng, top, rng.randint(1, 3), complete=rng.random() < 0.5)))
    while sum(len(g) for _, g in groups) < n:
        kind = "single" if layout == "scatter" else rng.choice(("chain", "rack", "crossed", "single"))
        if kind == "chain":
            groups.append((kind, _chain(rng, top, rng.randint(2, 5))))
        elif kind == "rack":
            groups.append((kind, _rack(rng, top, rng.randint(2, 7))))
        elif kind == "crossed":
            groups.append((kind, _crossed(rng, top)))
        else:
            groups.append((kind, [_cell_pose(rng, (0, 0), (0, 1), rng.randint(0, top), rng.randint(0, top))]))
    return groups


def _to_table(group: list[Pose], width: float, center: np.ndarray, angle: float) -> list[Pose]:
    mid = np.mean([p.center for p in group], axis=0)
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s], [s, c]])
    return [replace(p, center=center + rot @ (p.center - mid) * width, axis=rot @ p.axis) for p in group]


def _fits(quad: np.ndarray, size: tuple[int, int], min_px: float, margin: float = 4) -> bool:
    w, h = size
    inside = quad[:, 0].min() > margin and quad[:, 1].min() > margin
    inside = inside and quad[:, 0].max() < w - margin and quad[:, 1].max() < h - margin
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return bool(inside and min(sides[0], sides[2], sides[1] / 2, sides[3] / 2) >= min_px)


def _overlap(a: np.ndarray, others: list[np.ndarray]) -> bool:
    return any(cv2.intersectConvexConvex(a.astype(np.float32), o.astype(np.float32))[0] > 0 for o in others)


def _grown(quad: np.ndarray, mm: float) -> np.ndarray:
    center = quad.mean(axis=0)
    out = quad - center
    return center + out * (1 + mm / np.linalg.norm(out, axis=1, keepdims=True))


def _lay(
    rng: random.Random, spec: DominoSpec, lens: _Lens, style_width: float, top: int
) -> list[tuple[str, list[Pose]]]:
    """Groups placed on the table so that every tile is in the picture and no two groups overlap."""
    n = rng.randint(*spec.n_tiles)
    w, h = spec.size
    placed: list[tuple[str, list[Pose]]] = []
    footprints: list[np.ndarray] = []
    for g, (kind, group) in enumerate(_groups(rng, spec, top, n)):
        for _try in range(40 if g else 80):
            point = np.array([[w / 2, h / 2]]) if g == 0 and len(group) > 6 else None
            if point is None or _try:
                point = np.array([[rng.uniform(0, w), rng.uniform(0, h)]])
            center = _unproject(lens, point)
            angle = rng.uniform(-math.pi, math.pi)
            poses = _to_table(group, style_width, center, angle)
            quads = [p.outline(style_width) for p in poses]
            if _overlap_any(quads, footprints) or not all(
                _fits(lens.project(q, 0), spec.size, spec.min_tile_px) for q in quads
            ):
                continue
            placed.append((kind, poses))
            footprints.extend(_grown(q, 3.0) for q in quads)
            break
    return placed


def _overlap_any(quads: list[np.ndarray], others: list[np.ndarray]) -> bool:
    return bool(others) and any(_overlap(q, others) for q in quads)


def _unproject(lens: _Lens, point_px: np.ndarray) -> np.ndarray:
    h = lens.k @ np.column_stack([lens.r[:, 0], lens.r[:, 1], lens.t])
    pts = cv2.perspectiveTransform(point_px.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(h))
    return pts.reshape(2)


def render_dominoes(seed: int, spec: DominoSpec = DominoSpec()) -> DominoScene:
    """One photograph and its truth, a pure function of `seed` and `spec`."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    top = spec.top or rng.choice((6, 9))
    style = random_tile_style(rng, spec.split, top)
    ridged = random.Random(f"ridge {seed}").random() < spec.ridged
    for attempt in range(30):
        # A large layout may not fit at the size drawn: each retry steps the camera back a little.
        tile_px = max(rng.uniform(*spec.tile_px) * 0.9**attempt, spec.min_tile_px * 1.1)
        fov = rng.uniform(50, 75)
        camera = Camera.looking_at(
            spec.size,
            card_px=tile_px * CARD_TALL_MM / style.width,
            tilt_deg=rng.uniform(spec.min_tilt, spec.max_tilt) if rng.random() < 0.8 or spec.min_tilt else 0.0,
            yaw_deg=rng.uniform(-180, 180),
            fov_deg=fov,
        )
        lens = _Lens(camera, spec.size, fov)
        groups = _lay(rng, spec, lens, style.width, top)
        wanted = spec.pis * (4 if top == 6 else 5) if spec.pis else spec.n_tiles[0]
        if groups and sum(len(g) for _, g in groups) >= min(wanted, 28):
            break
    else:
        raise RuntimeError(f"could not lay the tiles of scene {seed}")

    table = spec.table or rng.choice(HELDOUT_TABLES if spec.split == "heldout" else TRAIN_TABLES)
    image = _table_image(nrng, rng, camera, replace(spec, table=table), spec.split == "heldout")
    if spec.split == "train" and rng.random() < 0.4:
        _busy_cloth(rng, nrng, image, lens)
    tiles = [(p, kind) for kind, g in groups for p in g]
    styles = [style if spec.one_set else random_tile_style(rng, spec.split, top) for _ in tiles]
    if ridged:
        styles = [replace(st, divider="ridge", divider_color=st.body) for st in styles]
    outlines = [p.outline(s.width) for (p, _), s in zip(tiles, styles, strict=True)]
    distractors = _draw_distractors(rng, image, lens, outlines, spec)
    laid = len(tiles) if spec.laid is None else spec.laid
    shown = set(range(laid) if spec.shown is None else spec.shown)
    pile_rng = random.Random(f"pile {seed}")
    pile, back = _pile(pile_rng, lens, outlines, spec, style)
    notes_rng = random.Random(f"notes {seed}")
    taken = outlines + [p.outline(style.width) for p in pile]
    notes = _lay_written_notes(notes_rng, image, lens, taken, distractors, spec) if spec.written_notes else []
    _cast_shadows(rng, image, lens, [tiles[i] for i in sorted(shown)], [styles[i] for i in sorted(shown)])
    mark_rng = random.Random(f"back mark {seed}")
    mark = random_back_mark(mark_rng, back) if pile and mark_rng.random() < spec.marked_backs else None
    _cast_shadows(pile_rng, image, lens, [(p, "pile") for p in pile], [style] * len(pile))
    # A tile not shown is drawn aside all the same, so that the tiles shown look the same in every frame.
    aside = np.zeros_like(image) if len(shown) < len(tiles) else image
    truth = []
    blocks = [(tiles[i][0], i) for i in range(len(tiles))] + [(p, None) for p in pile]
    for pose, i in sorted(blocks, key=lambda b: -lens.depth(b[0].center)):  # far to near: nearer hide farther
        if i is None:
            _draw_block(pile_rng, image, lens, pose, style, back, mark)
            continue
        kind, st = tiles[i][1], styles[i]
        _draw_block(rng, image if i in shown else aside, lens, pose, st)
        if i not in shown:
            continue
        corners = lens.project(pose.outline(st.width), st.thickness).astype(np.float32)
        halves = lens.project(pose.halves(st.width), st.thickness).astype(np.float32)
        truth.append((i, TruthTile(pose.pips, corners, halves, kind, pose.pi)))
    face_down = [lens.project(p.outline(style.width), style.thickness).astype(np.float32) for p in pile]
    image = _photograph(rng, nrng, image)
    tiles_seen = [t for _, t in sorted(truth, key=lambda x: x[0])]
    return DominoScene(image, tiles_seen, table, distractors, face_down, notes)


def _pile(
    rng: random.Random, lens: _Lens, tiles: list[np.ndarray], spec: DominoSpec, style: TileStyle
) -> tuple[list[Pose], BGR]:
    """`spec.face_down` tiles of the set face down in a loose heap clear of `tiles` (table mm), where the most of
    them fit, and the colour of their backs: the body's or, in some sets, one of their own."""
    if not spec.face_down:
        return [], style.body
    taken = [_grown(t, 6.0) for t in tiles]
    w, h = spec.size
    back = style.body if rng.random() < 0.7 else _hsv(rng.uniform(0, 360), rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.9))
    spread = 0.5 * math.sqrt(max(spec.face_down, 9)) * style.width  # a heap of ten about three tiles wide
    poses: list[Pose] = []
    for _try in range(12):
        centre = _unproject(lens, np.array([[rng.uniform(0, w), rng.uniform(0, h)]]))[0]
        heap: list[Pose] = []
        for _ in range(spec.face_down):
            for _place in range(30):
                angle = rng.uniform(-math.pi, math.pi)
                pose = Pose(centre + np.array([rng.gauss(0, spread), rng.gauss(0, spread)]),
                            np.array([math.cos(angle), math.sin(angle)]), (0, 0))  # fmt: skip
                quad = pose.outline(style.width)
                clear = not _overlap_any([quad], taken + [_grown(p.outline(style.width), 1.0) for p in heap])
                if clear and _fits(lens.project(quad, 0), spec.size, spec.min_tile_px):
                    heap.append(pose)
                    break
        poses = max(poses, heap, key=len)
        if len(poses) == spec.face_down:
            break
    return poses, back


def _cast_shadows(
    rng: random.Random, image: np.ndarray, lens: _Lens, tiles: list[tuple[Pose, str]], styles: list[TileStyle]
) -> None:
    h, w = image.shape[:2]
    shadow = np.zeros((h, w), np.float32)
    lean = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6)])
    for (pose, _), st in zip(tiles, styles, strict=True):
        base = pose.outline(st.width)
        far = base + lean * st.thickness
        hull = cv2.convexHull(np.vstack([lens.project(base), lens.project(far)]).astype(np.float32))
        cv2.fillConvexPoly(shadow, np.round(hull).astype(np.int32), 1.0, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), rng.uniform(1.5, 4))
    image *= (1 - rng.uniform(0.25, 0.55) * shadow)[..., None]


def _draw_block(
    rng: random.Random,
    image: np.ndarray,
    lens: _Lens,
    pose: Pose,
    style: TileStyle,
    back: BGR | None = None,
    mark: BackMark | None = None,
) -> None:
    """The tile's visible sides, then its top face (its `back` and `mark`, if it lies face down)."""
    base = lens.project(pose.outline(style.width, gap=0.3), 0)
    top = lens.project(pose.outline(style.width, gap=0.3), style.thickness)
    for k in range(4):  # each side face, shaded by which way it faces
        face = np.array([base[k], base[(k + 1) % 4], top[(k + 1) % 4], top[k]])
        shade = 0.7 + 0.25 * math.cos(k * math.pi / 2 + rng.uniform(-0.3, 0.3))
        color = tuple(c * shade for c in style.side)
        cv2.fillConvexPoly(image, np.round(face * 16).astype(np.int32), color, cv2.LINE_AA, shift=4)
    narrow = np.linalg.norm(top[1] - top[0])
    art = draw_tile(style, pose.pips, float(np.clip(narrow * 2, 24, 160)) / style.width, rng, back, mark)
    _paste(image, art, top)


def _paste(image: np.ndarray, art: np.ndarray, quad: np.ndarray) -> None:
    ah, aw = art.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(art, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    alpha = warped[..., 3:4] / 255.0
    roi = image[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + warped[..., :3] * alpha


def _lay_written_notes(
    rng: random.Random,
    image: np.ndarray,
    lens: _Lens,
    taken_mm: list[np.ndarray],
    taken_px: list[np.ndarray],
    spec: DominoSpec,
) -> list[np.ndarray]:
    """`lay_written_notes` wholly in the frame and clear of `taken_mm` (table mm) and `taken_px` (image
    outlines); their image corners."""
    taken_mm = [_grown(t, 6.0) for t in taken_mm]
    taken_px = list(taken_px)

    def clear(quad: np.ndarray, quad_px: np.ndarray) -> bool:
        inside = _fits(quad_px, spec.size, spec.min_tile_px)
        return not _overlap(quad, taken_mm) and not _overlap(quad_px, taken_px) and inside

    def lay(art: np.ndarray, quad: np.ndarray, quad_px: np.ndarray) -> None:
        _paste(image, art[..., [2, 1, 0, 3]], quad_px)  # the note's art is RGBA; the image BGR
        taken_mm.append(quad)
        taken_px.append(quad_px)

    to_table = functools.partial(_unproject, lens)
    return lay_written_notes(rng, image.shape[1::-1], to_table, lens.project, clear, lay, spec.split)


def _busy_cloth(rng: random.Random, nrng: np.random.Generator, image: np.ndarray, lens: _Lens) -> None:
    """A patterned tablecloth over the training table: irregular patches or scattered shapes in a few
    colours, some as large as a tile. Training sees busy cloths in general, not the held-out kinds."""
    h, w = image.shape[:2]
    corners = np.array([_unproject(lens, np.array([[x, y]], float)) for x, y in ((0, 0), (w, 0), (w, h), (0, h))])
    lo, extent = corners.min(axis=0), np.ptp(corners, axis=0)
    ppm = min(500 / max(extent), 2.0)
    tw, th = max(8, int(extent[0] * ppm)), max(8, int(extent[1] * ppm))
    palette = nrng.uniform(20, 240, (rng.randint(2, 5), 3))
    if rng.random() < 0.5:  # patches: the cells round random seeds
        cell = rng.uniform(12, 70) * ppm
        subdiv = cv2.Subdiv2D((0, 0, tw, th))
        for sx, sy in nrng.uniform(0, 1, (max(4, int(tw * th / cell**2)), 2)) * [tw - 1, th - 1]:
            subdiv.insert((float(sx), float(sy)))
        cloth = np.empty((th, tw, 3), np.float32)
        for facet in subdiv.getVoronoiFacetList([])[0]:
            color = tuple(float(c) for c in palette[rng.randrange(len(palette))])
            cv2.fillConvexPoly(cloth, np.round(facet).astype(np.int32), color, cv2.LINE_AA)
    else:  # shapes strewn over a plain ground
        cloth = np.empty((th, tw, 3), np.float32)
        cloth[:] = palette[0]
        for _ in range(int(tw * th / (rng.uniform(15, 50) * ppm) ** 2)):
            center = (rng.uniform(0, tw), rng.uniform(0, th))
            axes = (rng.uniform(2, 35) * ppm, rng.uniform(2, 35) * ppm)
            color = tuple(float(c) for c in palette[rng.randrange(1, len(palette))])
            if rng.random() < 0.5:
                box = cv2.boxPoints((center, axes, rng.uniform(0, 180)))
                cv2.fillConvexPoly(cloth, np.round(box).astype(np.int32), color, cv2.LINE_AA)
            else:
                axes_i = (max(1, round(axes[0] / 2)), max(1, round(axes[1] / 2)))
                center_i = (round(center[0]), round(center[1]))
                cv2.ellipse(cloth, center_i, axes_i, rng.uniform(0, 180), 0, 360, color, -1, cv2.LINE_AA)
    cloth *= (0.9 + 0.2 * nrng.random((th, tw, 1))).astype(np.float32)
    to_cloth = np.array([[ppm, 0, -lo[0] * ppm], [0, ppm, -lo[1] * ppm], [0, 0, 1]])
    to_image = lens.k @ np.column_stack([lens.r[:, 0], lens.r[:, 1], lens.t]) @ np.linalg.inv(to_cloth)
    warped = cv2.warpPerspective(cloth, to_image, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    image[:] = warped * (0.5 + image.mean(axis=2, keepdims=True) / 255)  # keep the table's light and grain


def _draw_distractors(
    rng: random.Random, image: np.ndarray, lens: _Lens, tiles: list[np.ndarray], spec: DominoSpec
) -> list[np.ndarray]:
    """Coins, pens, dice (a pip face with no partner), scraps of paper and digit cards near the tiles."""
    if not spec.distractors:
        return []
    h, w = image.shape[:2]
    taken = [_grown(t, 2.0) for t in tiles]
    outlines = []
    for _ in range(rng.randint(0, 4)):
        kind = rng.choice(("coin", "pen", "die", "note", "card"))
        center = _unproject(lens, np.array([[rng.uniform(0, w), rng.uniform(0, h)]]))
        angle = rng.uniform(0, math.pi)
        u, v = np.array([math.cos(angle), math.sin(angle)]), np.array([-math.sin(angle), math.cos(angle)])
        if kind == "coin":
            r = rng.uniform(9, 14)
            shape = np.array([center + r * (math.cos(a) * u + math.sin(a) * v) for a in np.linspace(0, 6.28, 24)])
        else:
            a, b = {"pen": (70, 4.5), "die": (8, 8), "note": (35, 45), "card": (CARD_MM[0] / 2, CARD_MM[1] / 2)}[kind]
            shape = np.array([center - a * u - b * v, center + a * u - b * v, center + a * u + b * v,
                              center - a * u + b * v])  # fmt: skip
        if _overlap(shape, taken):
            continue
        taken.append(shape)
        px = lens.project(shape, 16 if kind == "die" else 0)
        if kind == "die":
            style = random_tile_style(rng, spec.split, 6)
            base = lens.project(shape, 0)
            hull = cv2.convexHull(np.vstack([base, px]).astype(np.float32))
            cv2.fillConvexPoly(image, np.round(hull).astype(np.int32), tuple(c * 0.75 for c in style.side))
            art = draw_tile(style, (rng.randint(1, 6), 0), 8.0, rng)
            _paste(image, art[: art.shape[0] // 2 - 4], px)
        elif kind == "card":
            style = random_style(rng, split_fonts(spec.split), spec.split == "heldout")
            _paste_card(image, rng.choice(FACE_CLASSES), style, px)
        else:
            color = {
                "coin": rng.choice(((60, 140, 190), (170, 170, 175), (50, 100, 160))),
                "pen": rng.choice(((30, 30, 30), (160, 60, 20), (20, 20, 160))),
                "note": tuple(rng.uniform(215, 255) for _ in range(3)),
            }[kind]
            cv2.fillPoly(image, [np.round(px * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)
        outlines.append(px.astype(np.float32))
    return outlines
