"""Photographs of sticks on a table, rendered with a pinhole camera, and the truth about each stick.

Sticks are built in table millimetres. One scene holds one set of sticks, so every stick in it has the same
length, 50..80 mm (DIGIT's are about 60), and the same thickness, 3.5..6 mm, and no stick is thinner than
3 px or shorter than 45 px in the picture: the recogniser's working range. Three kinds of scene:

- ``lattice``: five sticks laid as one of the 55 pentastick cards, turned, flipped and placed anywhere, ends
  meeting with a hand's jitter of a millimetre or two and a degree or two;
- ``illegal``: the same with one stick moved off the lattice: its end against another stick's middle, crossing
  another stick, or turned about one end;
- ``pickup``: 3..15 sticks thrown in a heap, crossing each other.

The ``mikado`` material, drawn only when a spec names it, is the pick-up sticks game's: lacquered rods 30-60
times as long as they are thick, sharpened to a point at both ends and ringed with colour. They are the one
kind thinner than 3 px in the picture (down to 1.5 px).

Each stick is shaded as a round or square rod under one light, casts a soft shadow on what lies below it,
and the picture goes through the card scenes' webcam degradations. `split="heldout"` draws stick
materials, colours and table kinds that `split="train"` never uses.
"""

from __future__ import annotations

import colorsys
import math
import random
from dataclasses import dataclass, field

import numpy as np

from models.synth import scenes
from models.synth.scenes import (
    Camera,
    SceneSpec,
    _art_height,
    _overlaps,
    _photograph,
    _table_image,
    card_outline_mm,
    paste_art,
)
from models.synth.tables import HELDOUT_TABLES, TRAIN_TABLES
from rules.sticks import SYMMETRIES, Edge, card_number, shape_for_card, transform
from vision.sticks.artwork import draw_stick_card

LENGTH_MM = (50.0, 80.0)
THICKNESS_MM = (3.5, 6.0)
MIN_LENGTH_PX = 45.0
MIN_THICKNESS_PX = 3.0
MIKADO_SLENDERNESS = (30.0, 60.0)  # length over thickness
MIKADO_MIN_THICKNESS_PX = 1.5

# Material families. Colours are split by hue bands too: the held-out split's plastics sit between the
# training ones on the colour wheel, and its wood, matches and black sticks are of kinds training never sees.
TRAIN_MATERIALS = ("matchstick", "wood", "plastic", "painted", "white", "camouflage")
HELDOUT_MATERIALS = ("safety_match", "dark_wood", "plastic", "painted", "black", "camouflage")
MATERIALS = (*dict.fromkeys(TRAIN_MATERIALS + HELDOUT_MATERIALS), "mikado")
SCENE_KINDS = ("lattice", "illegal", "pickup")


@dataclass(frozen=True)
class StickStyle:
    """How one stick looks: body colour (BGR), an optional match head, rod section, gloss and wood grain."""

    material: str
    color: tuple[float, float, float]
    head: tuple[float, float, float] | None = None
    round: bool = True
    gloss: float = 0.0
    grain: float = 0.0
    taper: float = 0.0  # share of the length each end is sharpened over, to a point
    rings: tuple[tuple[float, float, tuple[float, float, float]], ...] = ()  # (centre along, width, BGR), in lengths


def _hue_color(rng: random.Random, split: str, saturation: tuple[float, float], value: tuple[float, float]):
    band = rng.randrange(9) * 2 + (1 if split == "heldout" else 0)  # 18 bands of 20 degrees, alternating
    hue = (band * 20 + rng.uniform(0, 20)) / 360
    r, g, b = colorsys.hsv_to_rgb(hue, rng.uniform(*saturation), rng.uniform(*value))
    return (b * 255, g * 255, r * 255)


def random_stick_style(
    rng: random.Random, split: str, table_bgr: np.ndarray, material: str | None = None
) -> StickStyle:
    """A stick style of the split; `table_bgr` is the table's mean colour, for sticks that nearly match it."""
    heldout = split == "heldout"
    material = material or rng.choice(HELDOUT_MATERIALS if heldout else TRAIN_MATERIALS)
    jitter = rng.uniform(0.85, 1.1)
    if material == "matchstick":
        body = (rng.uniform(150, 185) * jitter, rng.uniform(195, 220) * jitter, rng.uniform(220, 245) * jitter)
        head = (rng.uniform(20, 60), rng.uniform(20, 60), rng.uniform(150, 210))
        return StickStyle(material, body, head, round=False, gloss=0.1, grain=0.08)
    if material == "safety_match":
        body = (rng.uniform(110, 150) * jitter, rng.uniform(160, 190) * jitter, rng.uniform(190, 220) * jitter)
        head = rng.choice(((150, 70, 30), (40, 120, 40), (25, 25, 30), (40, 70, 110), (30, 170, 200)))
        return StickStyle(material, body, head, round=False, gloss=0.15, grain=0.08)
    if material == "wood":
        body = (rng.uniform(90, 140) * jitter, rng.uniform(150, 190) * jitter, rng.uniform(190, 230) * jitter)
        return StickStyle(material, body, round=rng.random() < 0.5, gloss=0.05, grain=0.15)
    if material == "dark_wood":
        body = (rng.uniform(30, 60) * jitter, rng.uniform(55, 90) * jitter, rng.uniform(85, 130) * jitter)
        return StickStyle(material, body, round=rng.random() < 0.5, gloss=0.1, grain=0.2)
    if material == "plastic":
        return StickStyle(material, _hue_color(rng, split, (0.5, 1.0), (0.45, 0.95)), round=True, gloss=0.6)
    if material == "painted":
        return StickStyle(material, _hue_color(rng, split, (0.35, 0.9), (0.35, 0.9)), round=False, gloss=0.2)
    if material == "white":
        return StickStyle(material, tuple(rng.uniform(225, 250) for _ in range(3)), round=rng.random() < 0.5, gloss=0.3)
    if material == "black":
        return StickStyle(material, tuple(rng.uniform(15, 40) for _ in range(3)), round=rng.random() < 0.5, gloss=0.5)
    if material == "camouflage":
        # Close to the table's colour: a shift of 30..50 levels in a random direction.
        shift = np.array([rng.gauss(0, 1) for _ in range(3)])
        shift *= rng.uniform(30, 50) / max(np.linalg.norm(shift), 1e-6)
        body = np.clip(table_bgr + shift, 10, 245)
        if np.linalg.norm(body - table_bgr) < 25:  # clipped against black or white: go the other way
            body = np.clip(table_bgr - shift, 10, 245)
        return StickStyle(material, tuple(float(c) for c in body), round=rng.random() < 0.5, gloss=0.2, grain=0.05)
    if material == "mikado":
        return _mikado_style(rng, split, jitter)
    raise ValueError(f"unknown stick material: {material}")


def _mikado_style(rng: random.Random, split: str, jitter: float) -> StickStyle:
    """Lacquered pale wood (one in four wholly coloured, as plastic sets are) with one to four colour rings,
    placed the same from either end as the game's sticks are."""
    coloured = rng.random() < 0.25
    if coloured:
        body = _hue_color(rng, split, (0.45, 0.95), (0.45, 0.95))
    else:
        body = (rng.uniform(140, 185) * jitter, rng.uniform(180, 215) * jitter, rng.uniform(205, 240) * jitter)
    rings = []
    for _ in range(0 if coloured else rng.randint(1, 4)):
        along, width = rng.uniform(0.12, 0.45), rng.uniform(0.015, 0.06)
        colour = _hue_color(rng, split, (0.6, 1.0), (0.3, 0.9))
        rings += [(along, width, colour), (1 - along, width, colour)]
    return StickStyle("mikado", body, round=True, gloss=rng.uniform(0.3, 0.6), grain=0.03,
                      taper=rng.uniform(0.04, 0.09), rings=tuple(rings))  # fmt: skip


@dataclass
class PlacedStick:
    """A stick in table millimetres: its two ends (centreline), the lattice edge it stands for if any."""

    ends: np.ndarray  # 2x2 mm
    edge: Edge | None = None


@dataclass
class TruthStick:
    ends: np.ndarray  # 2x2 image px, the ends of the stick's centreline
    edge: Edge | None  # the lattice edge in the layout's own frame (lattice scenes only)


@dataclass
class StickScene:
    image: np.ndarray  # BGR uint8
    sticks: list[TruthStick]
    kind: str  # lattice, pickup, or illegal:<how> (end_to_middle, crossing, turned); the moved stick is last
    card: int | None  # the pentastick laid, for lattice scenes
    on_lattice: bool
    homography: np.ndarray  # table mm -> image px; invert it to play calibration
    length_mm: float
    thickness_mm: float
    table: str
    materials: tuple[str, ...]  # per stick
    cards: list[tuple[int, np.ndarray]] = field(default_factory=list)  # DIGIT cards laid: number, image corners


@dataclass(frozen=True)
class StickSceneSpec:
    split: str = "train"
    kind: str = "lattice"  # lattice | illegal | pickup
    size: tuple[int, int] = (1280, 720)
    card: int | None = None  # the pentastick to lay (lattice, illegal); else a random one
    n_sticks: tuple[int, int] = (3, 15)  # pickup
    stick_px: tuple[float, float] = (60, 150)  # a stick's length at the image centre
    max_tilt: float = 50.0
    table: str | None = None  # a table kind from models.synth.tables; else a random one of the split's
    material: str | None = None  # one material for every stick; else drawn per scene or per stick
    # Lay these lattice edges as they are (lattice kind), not a card's shape turned and flipped: a table
    # before and after a move, rendered with one seed, differs only by the sticks moved.
    edges: tuple[Edge, ...] | None = None
    turn: float | None = None  # the layout's angle on the table (radians); else a random one
    # With `edges`: the lattice point laid at the layout's spot on the table; else its bounding box's middle. A
    # filmed game keeps one origin, so the sticks not moved stay where they lay.
    origin: tuple[float, float] | None = None
    broken: str | None = None  # how an illegal layout is broken (one of BROKEN_WAYS); else a random way
    # Printed DIGIT cards (vision/sticks/artwork.py) laid on the table clear of the sticks, from a stream of
    # their own: the scene is otherwise the same with or without them.
    cards: tuple[int, ...] = ()
    # Another photograph of the same table: the sensor's grain is drawn anew (0: the scene's own), all else alike.
    exposure: int = 0


def lattice_sticks(
    rng: random.Random,
    card: int,
    unit_mm: float,
    length_mm: float,
    center: np.ndarray,
    edges: tuple[Edge, ...] | None = None,
    turn: float | None = None,
    origin: tuple[float, float] | None = None,
) -> list[PlacedStick]:
    """The card's five sticks turned, flipped and laid around `center`, with a hand's placement jitter.

    `edges`, if given, are laid as they are instead, and `turn` fixes the layout's angle; `origin`, the
    lattice point laid at `center` (else the middle of the layout's bounding box).
    """
    symmetry = rng.choice(SYMMETRIES)  # drawn either way, so that one seed gives one camera and table
    shape = frozenset(edges) if edges is not None else transform(shape_for_card(card), symmetry)
    points = np.array([p for e in shape for p in (e.a, e.b)], float)
    mid = np.array(origin, float) if origin is not None else (points.min(axis=0) + points.max(axis=0)) / 2
    angle = rng.uniform(-math.pi, math.pi)
    angle = angle if turn is None else turn
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    sticks = []
    for edge in sorted(shape):
        a, b = (np.array([edge.a, edge.b], float) - mid) * unit_mm @ rot.T + center
        jitter_angle = max(-0.07, min(0.07, rng.gauss(0, 0.025)))
        c, s = math.cos(jitter_angle), math.sin(jitter_angle)
        half = (b - a) / np.linalg.norm(b - a) * length_mm / 2 @ np.array([[c, s], [-s, c]])
        shift = np.array([max(-3.0, min(3.0, rng.gauss(0, 1.0))) for _ in range(2)])
        centre = (a + b) / 2 + shift
        sticks.append(PlacedStick(np.array([centre - half, centre + half]), edge))
    return sticks


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    t = np.clip(np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-9), 0, 1)
    return float(np.linalg.norm(p - (a + t * (b - a))))


def _crosses(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _apart(ends: np.ndarray, others: list[PlacedStick], clearance: float) -> bool:
    """No other stick crosses this one or comes within `clearance` of it."""
    for o in others:
        if _crosses(ends[0], ends[1], o.ends[0], o.ends[1]):
            return False
        gaps = [_segment_distance(p, *o.ends) for p in ends] + [_segment_distance(p, *ends) for p in o.ends]
        if min(gaps) < clearance:
            return False
    return True


BROKEN_WAYS = ("end_to_middle", "crossing", "turned")


def illegal_sticks(
    rng: random.Random, sticks: list[PlacedStick], length_mm: float, thickness_mm: float, way: str | None = None
) -> tuple[list[PlacedStick], str] | None:
    """Move one stick of a lattice layout off the lattice: end to a middle, crossing, or turned on one end
    (`way`, else a random one of BROKEN_WAYS).

    Returns the new sticks (no lattice edges) and the way it was broken, or None if nothing fitted.
    """
    way = way or rng.choice(BROKEN_WAYS)
    for _try in range(40):
        moved = rng.randrange(len(sticks))
        rest = [s for i, s in enumerate(sticks) if i != moved]
        if way == "turned":
            # Turned about an end it shares with another stick, which stays put: the stick leaves the
            # lattice directions but still touches the layout.
            shared = [
                k
                for k, end in enumerate(sticks[moved].ends)
                if any(min(np.linalg.norm(o.ends - end, axis=1)) < 0.2 * length_mm for o in rest)
            ]
            if not shared:
                continue
            k = rng.choice(shared)
            pivot, tip = sticks[moved].ends[k], sticks[moved].ends[1 - k]
            turn = rng.choice((-1, 1)) * rng.uniform(0.35, 0.7)
            c, s = math.cos(turn), math.sin(turn)
            ends = np.array([pivot, pivot + (tip - pivot) @ np.array([[c, s], [-s, c]])])
            others = [o for o in rest if min(np.linalg.norm(o.ends - pivot, axis=1)) > 0.2 * length_mm]
            clearance = thickness_mm
        else:
            target = rng.choice(rest)
            a, b = target.ends
            axis = (b - a) / np.linalg.norm(b - a)
            normal = np.array([-axis[1], axis[0]]) * rng.choice((-1, 1))
            mid = (a + b) / 2 + axis * rng.uniform(-0.12, 0.12) * length_mm
            if way == "end_to_middle":
                tilt = rng.gauss(0, 0.03)
                direction = normal * math.cos(tilt) + axis * math.sin(tilt)
                start = mid + normal * (thickness_mm / 2 + rng.uniform(0, 1.5))
                ends = np.array([start, start + direction * length_mm])
            else:
                turn = rng.choice((math.pi / 2, rng.uniform(0.5, math.pi - 0.5)))
                direction = axis * math.cos(turn) + normal * math.sin(turn)
                centre = mid + direction * rng.uniform(-0.2, 0.2) * length_mm
                ends = np.array([centre - direction * length_mm / 2, centre + direction * length_mm / 2])
            others = [o for o in rest if o is not target]
            clearance = thickness_mm * 1.5
        if _apart(ends, others, clearance):
            return [PlacedStick(s.ends) for s in rest] + [PlacedStick(ends)], way
    return None


def pickup_sticks(rng: random.Random, n: int, length_mm: float, center: np.ndarray) -> list[PlacedStick]:
    """`n` sticks dropped in a heap around `center`: random angles, many crossings."""
    spread = length_mm * rng.uniform(0.35, 1.0)
    sticks = []
    for _ in range(n):
        c = center + np.array([rng.gauss(0, spread), rng.gauss(0, spread)])
        angle = rng.uniform(0, math.pi)
        half = np.array([math.cos(angle), math.sin(angle)]) * length_mm / 2
        sticks.append(PlacedStick(np.array([c - half, c + half])))
    return sticks


def _fits(
    camera: Camera,
    sticks: list[PlacedStick],
    thickness_mm: float,
    size: tuple[int, int],
    min_thickness_px: float = MIN_THICKNESS_PX,
) -> bool:
    """Every stick wholly in the picture, in front of the camera, and within the recogniser's size range."""
    w, h = size
    margin = 6
    for s in sticks:
        ends = camera.project(s.ends)
        if not np.all(np.isfinite(ends)):
            return False
        if ends[:, 0].min() < margin or ends[:, 1].min() < margin:
            return False
        if ends[:, 0].max() > w - margin or ends[:, 1].max() > h - margin:
            return False
        if np.linalg.norm(ends[1] - ends[0]) < MIN_LENGTH_PX:
            return False
        axis = (s.ends[1] - s.ends[0]) / np.linalg.norm(s.ends[1] - s.ends[0])
        normal = np.array([-axis[1], axis[0]]) * thickness_mm / 2
        for p in s.ends:
            side = camera.project(np.array([p - normal, p + normal]))
            if np.linalg.norm(side[1] - side[0]) < min_thickness_px:
                return False
    # A camera looking from behind the table projects points with negative depth: reject flipped views.
    h_ = camera.homography
    pts = np.array([np.r_[p, 1.0] for s in sticks for p in s.ends]).reshape(-1, 3)  # none: a bare table
    return bool(np.all(pts @ h_[2] > 0))


def _light(rng: random.Random) -> np.ndarray:
    """Direction toward the light in table axes (x, y, up)."""
    azimuth, elevation = rng.uniform(-math.pi, math.pi), math.radians(rng.uniform(35, 80))
    return np.array(
        [math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation)]
    )


def _rounded_box_sdf(u: np.ndarray, v: np.ndarray, half_len: float, half_w: float, radius: float) -> np.ndarray:
    qu, qv = np.abs(u) - (half_len - radius), np.abs(v) - (half_w - radius)
    outside = np.hypot(np.maximum(qu, 0), np.maximum(qv, 0))
    return outside + np.minimum(np.maximum(qu, qv), 0) - radius


def _draw_stick(
    image: np.ndarray,
    camera: Camera,
    stick: PlacedStick,
    style: StickStyle,
    thickness_mm: float,
    light: np.ndarray,
    shadow_strength: float,
    rng: random.Random,
) -> None:
    """Shadow first (it darkens the table and the sticks below), then the shaded rod, anti-aliased."""
    a, b = stick.ends
    length = float(np.linalg.norm(b - a))
    axis = (b - a) / length
    normal = np.array([-axis[1], axis[0]])
    centre = (a + b) / 2
    half_len, half_w = length / 2, thickness_mm / 2
    # Shadow of a rod of height `thickness`: the footprint moved away from the light, widened by the height.
    reach = thickness_mm * 0.8 / max(light[2], 0.2)
    offset_mm = -light[:2] / max(np.linalg.norm(light[:2]), 1e-6) * reach * np.linalg.norm(light[:2])
    pad = half_w + np.linalg.norm(offset_mm) + 3
    outline = np.array([centre + su * (half_len + pad) * axis + sv * pad * normal for su in (-1, 1) for sv in (-1, 1)])
    box_px = camera.project(outline)
    h, w = image.shape[:2]
    x0, y0 = np.maximum(np.floor(box_px.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(box_px.max(axis=0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float64)
    mm = camera.unproject(np.column_stack([xs.ravel() + 0.0, ys.ravel() + 0.0])).reshape((*ys.shape, 2))
    rel = mm - centre
    u, v = rel @ axis, rel @ normal
    px_per_mm = np.linalg.norm(camera.project(np.array([centre, centre + normal]))[1] - camera.project(centre[None])[0])

    # The match head: a blob a little wider than the body at the `b` end.
    radius = half_w * rng.uniform(0.25, 0.9)
    sdf = _rounded_box_sdf(u, v, half_len, half_w, radius)
    width: float | np.ndarray = half_w  # the half width, at each point along the stick where it tapers
    if style.taper:  # a distance across, not to the slanted side: the point is long beside its width
        width = half_w * np.clip((half_len - np.abs(u)) / (style.taper * length), 0, 1)
        sdf = np.maximum(np.abs(u) - half_len, np.abs(v) - width)
    head_len = thickness_mm * rng.uniform(1.1, 1.5)
    head = None
    if style.head is not None:
        hu = (u - (half_len - head_len / 2)) / (head_len / 2)
        hv = v / (half_w * 1.2)
        head_sdf = (np.hypot(hu, hv) - 1) * min(head_len / 2, half_w * 1.2)
        head = head_sdf < 0
        sdf = np.minimum(sdf, head_sdf)

    su, sv = u - offset_mm @ axis, v - offset_mm @ normal
    shadow_sdf = _rounded_box_sdf(su, sv, half_len + reach * 0.3, half_w + reach * 0.3, half_w)
    penumbra = max(1.0, reach * px_per_mm * 0.5)
    shadow = np.clip(0.5 - shadow_sdf * px_per_mm / penumbra, 0, 1) * shadow_strength
    roi = image[y0:y1, x0:x1]
    roi *= (1 - shadow)[..., None]

    # Surface normal across the rod: a cylinder, or a flat top with bevelled edges.
    across = np.clip(v / np.maximum(width, 1e-6), -1, 1)
    tilt = across if style.round else np.where(np.abs(across) > 0.75, np.sign(across) * 0.7, 0.0)
    up = np.sqrt(1 - tilt**2)
    light_across, light_up = float(light[:2] @ normal), float(light[2])
    diffuse = np.clip(tilt * light_across + up * light_up, 0, 1)
    ambient = rng.uniform(0.35, 0.55)
    half_vector = np.array([light_across, light_up + 1.0])
    half_vector /= np.linalg.norm(half_vector)
    specular = style.gloss * np.clip(tilt * half_vector[0] + up * half_vector[1], 0, 1) ** 40 * 255
    color = np.array(style.color, np.float32)[None, None, :] * np.ones((*u.shape, 1), np.float32)
    for along, ring_width, ring_color in style.rings:
        color[np.abs(u / length + 0.5 - along) < ring_width / 2] = ring_color
    if style.grain:
        phase, freq = rng.uniform(0, 6.3), rng.uniform(1.5, 3.0)
        grain = np.sin(v * freq + 0.6 * np.sin(u * 0.15 + phase)) * style.grain
        color *= (1 + grain)[..., None]
    if not style.taper:
        color[np.abs(u) > half_len - radius] *= 0.85  # the cut end face
    if head is not None:
        color[head] = np.array(style.head, np.float32) * (0.85 + 0.3 * rng.random())
        specular = np.where(head, specular + style.gloss * 40 * up, specular)
    shaded = color * (ambient + (1 - ambient) * diffuse)[..., None] + specular[..., None]
    alpha = np.clip(0.5 - sdf * px_per_mm, 0, 1)[..., None]
    roi[:] = roi * (1 - alpha) + shaded * alpha


def render_stick_scene(seed: int, spec: StickSceneSpec = StickSceneSpec()) -> StickScene:
    """One photograph and its truth, a pure function of `seed` and `spec`."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    if spec.kind not in SCENE_KINDS:
        raise ValueError(f"unknown stick scene kind: {spec.kind}")
    length_mm = rng.uniform(*LENGTH_MM)
    thickness_mm = rng.uniform(*THICKNESS_MM)
    min_thickness_px = MIN_THICKNESS_PX
    if spec.material == "mikado":  # drawn after, so every other scene of a seed stays as it was
        thickness_mm = length_mm / rng.uniform(*MIKADO_SLENDERNESS)
        min_thickness_px = MIKADO_MIN_THICKNESS_PX
    unit_mm = length_mm + rng.uniform(0.0, 2.0)  # sticks laid end to end leave a hair's gap
    card = spec.card or rng.randint(1, 55)
    w, h = spec.size
    broken = None
    for attempt in range(40):
        stick_px = rng.uniform(*spec.stick_px) * 0.93 ** max(0, attempt - 5)
        tilt = rng.uniform(0, spec.max_tilt) if rng.random() < 0.8 else 0.0
        fov = rng.uniform(50, 75)
        camera = Camera.looking_at(spec.size, stick_px * 88.0 / length_mm, tilt, rng.uniform(-180, 180), fov)
        center = camera.unproject(np.array([[rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h]]))[0]
        if spec.kind == "pickup":
            sticks = pickup_sticks(rng, rng.randint(*spec.n_sticks), length_mm, center)
        else:
            sticks = lattice_sticks(rng, card, unit_mm, length_mm, center, spec.edges, spec.turn, spec.origin)
            if spec.kind == "illegal":
                result = illegal_sticks(rng, sticks, length_mm, thickness_mm, spec.broken)
                if result is None:
                    continue
                sticks, broken = result
        if _fits(camera, sticks, thickness_mm, spec.size, min_thickness_px):
            break
    else:
        raise RuntimeError(f"could not lay the sticks of scene {seed}")

    heldout = spec.split == "heldout"
    table = spec.table or rng.choice(HELDOUT_TABLES if heldout else TRAIN_TABLES)
    image = _table_image(nrng, rng, camera, SceneSpec(split=spec.split, size=spec.size, table=table), heldout)
    table_bgr = image.reshape(-1, 3).mean(axis=0)
    cards = _lay_cards(random.Random(seed * 13 + 7), image, camera, sticks, thickness_mm, spec)
    one_style = spec.material is not None or rng.random() < (0.7 if spec.kind != "pickup" else 0.3)
    style = random_stick_style(rng, spec.split, table_bgr, spec.material)
    light = _light(rng)
    shadow_strength = rng.uniform(0.15, 0.55)
    materials = []
    for stick in sticks:
        stick_style = style if one_style else random_stick_style(rng, spec.split, table_bgr)
        materials.append(stick_style.material)
        if rng.random() < 0.5:
            stick.ends = stick.ends[::-1].copy()  # match heads point either way
        _draw_stick(image, camera, stick, stick_style, thickness_mm, light, shadow_strength, rng)
    grain = nrng if spec.exposure == 0 else np.random.default_rng((seed, spec.exposure))
    image = _photograph(rng, grain, image)
    truth = [TruthStick(camera.project(s.ends).astype(np.float32), s.edge) for s in sticks]
    on_lattice = spec.kind == "lattice"
    if spec.edges is not None:
        card = card_number(spec.edges) if len(set(spec.edges)) == len(spec.edges) else None
    return StickScene(
        image=image,
        sticks=truth,
        kind=spec.kind if broken is None else f"illegal:{broken}",
        card=card if on_lattice else None,
        on_lattice=on_lattice,
        homography=camera.homography,
        length_mm=length_mm,
        thickness_mm=thickness_mm,
        table=table,
        materials=tuple(materials),
        cards=cards,
    )


def _lay_cards(
    rng: random.Random,
    image: np.ndarray,
    camera: Camera,
    sticks: list[PlacedStick],
    thickness_mm: float,
    spec: StickSceneSpec,
) -> list[tuple[int, np.ndarray]]:
    """Paste `spec.cards` where they fit in the picture clear of the sticks and of each other; the cards laid,
    with their image corners (the card's own top-left first)."""
    taken = []
    for stick in sticks:
        a, b = stick.ends
        normal = np.array([-(b - a)[1], (b - a)[0]]) / np.linalg.norm(b - a) * thickness_mm
        taken.append(np.array([a - normal, b - normal, b + normal, a + normal]))
    laid = []
    w, h = spec.size
    for number in spec.cards:
        for _try in range(60):
            center = camera.unproject(np.array([[rng.uniform(0, w), rng.uniform(0, h)]]))[0]
            quad = card_outline_mm(center, rng.uniform(-math.pi, math.pi))
            quad_px = camera.project(quad)
            if scenes._fits(quad_px, spec.size, min_px=60) and not _overlaps(quad, taken, gap_mm=8.0):
                paste_art(image, np.asarray(draw_stick_card(number, _art_height(quad_px)), np.float32), quad_px)
                taken.append(quad)
                laid.append((number, quad_px.astype(np.float32)))
                break
    return laid
