"""Procedural table tops. Training and held-out evaluation draw from disjoint kinds of table."""

import colorsys

import cv2
import numpy as np

TRAIN_TABLES = ("wood", "felt", "white", "dark", "laminate", "striped", "tiles", "plaid")
HELDOUT_TABLES = ("checkered", "marble", "birch", "red_felt", "glossy_black")
# More training kinds, drawn only by the stick locator's training frames (models/train_sticks.py), so the
# card and domino training renders stay as their cached datasets hold them. None of them uses a held-out
# kind's generator.
EXTRA_TRAIN_TABLES = (
    "granite", "cork", "woven", "concrete", "knotty", "print", "gingham", "plain", "scratched", "terrazzo",
)  # fmt: skip
# Fine high-contrast patterns with straight edges, long straight seams and veined stone, drawn only by the
# stick locator's later training frames (its earlier frames' cache holds the kinds above). Each is its own
# generator, none the held-out checkered cloth's or marble's with other parameters: checks on a skewed,
# warped lattice of oblong cells in two scales, a twill houndstooth, a printed grid, pin-stripes crossing
# at random angles, staggered planks or tiles with seams, and veins drawn as branching strokes over clouds.
PATTERN_TRAIN_TABLES = ("harlequin", "houndstooth", "graph", "pinstripe", "planks", "veined")
# Dots on a square lattice, drawn only by the pip readers' dotted block (models/finetune_pips.py): dots at a
# tile's pip spacing make a domino of the cloth itself, and the readers learn such patches are no tile.
DOT_TRAIN_TABLES = ("dots",)
# Kinds that no split draws, rendered only where a scene asks for them by name (an evaluation's `--table`): a
# polka-dot cloth in staggered rows, the dotted kind that training never sees.
PROBE_TABLES = ("polka",)
TABLE_KINDS = (
    *TRAIN_TABLES, *HELDOUT_TABLES, *EXTRA_TRAIN_TABLES, *PATTERN_TRAIN_TABLES, *DOT_TRAIN_TABLES, *PROBE_TABLES,
)  # fmt: skip


def _smooth_noise(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """Noise in [0, 1] with features about `scale` pixels wide."""
    sh, sw = max(2, int(h / scale)), max(2, int(w / scale))
    small = rng.random((sh, sw)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, 0, 1)


def _tint(gray: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return (low[None, None, :] * (1 - gray[..., None]) + high[None, None, :] * gray[..., None]).astype(np.float32)


def _wood(rng: np.random.Generator, h: int, w: int, light: bool) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = _smooth_noise(rng, h, w, rng.uniform(80, 200)) * rng.uniform(20, 60)
    freq = rng.uniform(0.03, 0.09)
    angle = rng.uniform(0, np.pi)
    u = x * np.cos(angle) + y * np.sin(angle)
    grain = 0.5 + 0.5 * np.sin((u + warp) * freq + _smooth_noise(rng, h, w, 6) * 2)
    grain = 0.7 * grain + 0.3 * _smooth_noise(rng, h, w, 3)
    if light:
        low, high = np.array([150, 185, 215]), np.array([190, 220, 240])
    else:
        base = rng.uniform(0.5, 1.0)
        low, high = np.array([20, 45, 90]) * base, np.array([60, 105, 165]) * base
    # Planks: a dark seam every so often.
    img = _tint(grain, low.astype(np.float32), high.astype(np.float32))
    pitch = int(rng.uniform(150, 400))
    seams = (np.abs((x * np.sin(angle) - y * np.cos(angle)) % pitch) < 2).astype(np.float32)
    return img * (1 - 0.4 * seams[..., None])


def _felt(rng: np.random.Generator, h: int, w: int, color: np.ndarray) -> np.ndarray:
    n = 0.6 * _smooth_noise(rng, h, w, 2) + 0.4 * _smooth_noise(rng, h, w, 30)
    return _tint(n, color * 0.75, np.minimum(color * 1.15, 255))


def _random_bgr(rng: np.random.Generator, value: tuple[float, float] = (0.15, 0.95)) -> np.ndarray:
    """A colour of any hue; a third of them in the wood and match tones sticks often have."""
    if rng.random() < 0.35:
        hue, sat = rng.uniform(0.04, 0.12), rng.uniform(0.25, 0.6)
    else:
        hue, sat = rng.random(), rng.uniform(0.0, 0.9)
    r, g, b = colorsys.hsv_to_rgb(hue, sat, rng.uniform(*value))
    return np.array([b, g, r], np.float32) * 255


def _granite(rng: np.random.Generator, h: int, w: int, chip: float) -> np.ndarray:
    """Speckles of three or four colours, `chip` px wide, over a base of the first."""
    palette = [_random_bgr(rng)] + [_random_bgr(rng) for _ in range(rng.integers(2, 4))]
    img = _felt(rng, h, w, palette[0])
    for color in palette[1:]:
        spots = _smooth_noise(rng, h, w, chip) > rng.uniform(0.7, 0.85)
        img[spots] = color * rng.uniform(0.85, 1.1)
    return img


def _weave(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Woven fabric: warp and weft threads a few px apart, over and under in a twill or plain weave."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    pitch = rng.uniform(3, 10)
    col, row = (x // pitch).astype(np.int32), (y // pitch).astype(np.int32)
    over = ((col + row * int(rng.integers(1, 3))) % int(rng.integers(2, 4))) == 0
    across = np.where(over, np.sin(np.pi * (x % pitch) / pitch), np.sin(np.pi * (y % pitch) / pitch))
    warp, weft = _random_bgr(rng), _random_bgr(rng) if rng.random() < 0.5 else None
    img = _tint(0.55 + 0.45 * across, warp * 0.6, warp)
    if weft is not None:
        img = np.where(over[..., None], _tint(0.55 + 0.45 * across, weft * 0.6, weft), img)
    return img * (0.85 + 0.15 * _smooth_noise(rng, h, w, 40)[..., None])


def _concrete(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    grey = rng.uniform(90, 200)
    tone = np.array([grey, grey, grey], np.float32) + rng.uniform(-12, 12, 3).astype(np.float32)
    n = 0.45 * _smooth_noise(rng, h, w, rng.uniform(60, 200)) + 0.35 * _smooth_noise(rng, h, w, 8)
    n += 0.2 * _smooth_noise(rng, h, w, 1.5)
    img = _tint(n, tone * 0.75, tone * 1.15)
    pits = _smooth_noise(rng, h, w, 2.5) > 0.93  # air holes
    img[pits] *= 0.55
    return img


def _knotty(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Dark or reddish wood with knots: dark rings around a few points."""
    img = _wood(rng, h, w, light=False) * rng.uniform(0.5, 1.3, 3).astype(np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(rng.integers(2, 7)):
        cx, cy, size = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(10, 50)
        r = np.hypot((x - cx) / size, (y - cy) / (size * rng.uniform(0.4, 0.9)))
        rings = 0.5 + 0.5 * np.sin(r * 9)
        img *= (1 - 0.7 * np.exp(-(r**2) / 2) * (0.4 + 0.6 * rings))[..., None]
    return img


def _print(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A busy printed tablecloth: dots, discs, squares, petals and short thick strokes in a few colours."""
    img = _felt(rng, h, w, _random_bgr(rng, (0.5, 1.0)))
    palette = [_random_bgr(rng) for _ in range(rng.integers(2, 5))]
    size = rng.uniform(8, 50)
    for _ in range(int(h * w / size**2 * rng.uniform(0.3, 1.0))):
        color = tuple(float(c) for c in palette[rng.integers(len(palette))])
        cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        s = max(2, int(size * rng.uniform(0.3, 1.0)))
        shape = rng.integers(4)
        if shape == 0:
            cv2.circle(img, (cx, cy), s, color, -1, cv2.LINE_AA)
        elif shape == 1:
            box = cv2.boxPoints(((cx, cy), (2 * s, 2 * s * rng.uniform(0.3, 1)), rng.uniform(0, 180)))
            cv2.fillConvexPoly(img, box.astype(np.int32), color, cv2.LINE_AA)
        elif shape == 2:
            cv2.ellipse(img, (cx, cy), (s, max(1, s // 3)), rng.uniform(0, 180), 0, 360, color, -1, cv2.LINE_AA)
        else:
            angle = rng.uniform(0, np.pi)
            end = (int(cx + 2 * s * np.cos(angle)), int(cy + 2 * s * np.sin(angle)))
            cv2.line(img, (cx, cy), end, color, max(1, s // 3), cv2.LINE_AA)
    return img


def _gingham(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Two crossing sets of translucent bands: three tones, fine or wide, with a thread texture."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    pitch = rng.uniform(5, 40)
    bands = ((x // pitch) % 2 + (y // pitch) % 2) / 2
    img = _tint(bands, np.array([235, 235, 235], np.float32) * rng.uniform(0.8, 1.0), _random_bgr(rng, (0.3, 0.8)))
    return img * (0.88 + 0.12 * _smooth_noise(rng, h, w, 1.5)[..., None])


def _scratched(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A worn top: thin light or dark scratches and hairline curves over a plain colour."""
    img = _felt(rng, h, w, _random_bgr(rng))
    for _ in range(int(rng.integers(40, 250))):
        points = [np.array([rng.uniform(0, w), rng.uniform(0, h)])]
        heading = rng.uniform(0, 2 * np.pi)
        for _ in range(int(rng.integers(2, 12))):
            heading += rng.normal(0, 0.3)
            points.append(points[-1] + rng.uniform(5, 40) * np.array([np.cos(heading), np.sin(heading)]))
        shade = rng.choice((rng.uniform(0.3, 0.7), rng.uniform(1.4, 2.5)))
        color = tuple(float(c) for c in np.clip(img[int(rng.uniform(0, h)), int(rng.uniform(0, w))] * shade, 0, 255))
        cv2.polylines(img, [np.array(points, np.int32)], False, color, int(rng.integers(1, 3)), cv2.LINE_AA)
    return img


def _terrazzo(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Angular chips of several colours, 3..25 px, set in a plain ground."""
    img = _felt(rng, h, w, _random_bgr(rng, (0.4, 0.95)))
    palette = [_random_bgr(rng) for _ in range(rng.integers(2, 6))]
    size = rng.uniform(3, 25)
    for _ in range(int(h * w / size**2 * rng.uniform(0.1, 0.35))):
        centre = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 7))))
        radii = size * rng.uniform(0.3, 0.8, len(angles))
        chip = centre + np.column_stack([np.cos(angles), np.sin(angles)]) * radii[:, None]
        color = tuple(float(c) for c in palette[rng.integers(len(palette))])
        cv2.fillPoly(img, [chip.astype(np.int32)], color, cv2.LINE_AA)
    return img


def _fbm(rng: np.random.Generator, h: int, w: int, scale: float, octaves: int = 4) -> np.ndarray:
    """Cloudy noise in [0, 1]: octaves of smooth noise, each half the size and weight of the last."""
    total = sum(0.5**k * _smooth_noise(rng, h, w, max(1.5, scale / 2**k)) for k in range(octaves))
    return total / sum(0.5**k for k in range(octaves))


def _two_tones(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two colours far apart in lightness: a pattern's ink and its ground, either way round."""
    dark, light = _random_bgr(rng, (0.05, 0.45)), _random_bgr(rng, (0.7, 1.0))
    return (dark, light) if rng.random() < 0.5 else (light, dark)


def _harlequin(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Checks on a skewed lattice of oblong cells, turned at any angle and wavering a little, a larger check
    a few cells wide swapping the colours in half the cloths."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    size = rng.uniform(12, 60)
    ratio = rng.uniform(1.3, 2.5)  # oblong: never square cells
    turn, skew = rng.uniform(0, np.pi), rng.uniform(np.radians(15), np.radians(40))
    across = turn + np.pi / 2 - skew
    cells = np.array([[np.cos(turn), np.cos(across) * ratio], [np.sin(turn), np.sin(across) * ratio]]) * size
    basis = np.linalg.inv(cells)  # pixels -> cell units
    wobble = (_smooth_noise(rng, h, w, rng.uniform(60, 200)) - 0.5) * rng.uniform(0, 0.6)
    u, v = basis[0, 0] * x + basis[0, 1] * y + wobble, basis[1, 0] * x + basis[1, 1] * y - wobble
    check = (np.floor(u) + np.floor(v)) % 2
    if rng.random() < 0.5:
        big = int(rng.integers(2, 5))
        check = np.abs(check - (np.floor(u / big) + np.floor(v / big)) % 2)
    ink, ground = _two_tones(rng)
    img = _tint(check.astype(np.float32), ground, ink)
    return img * (0.9 + 0.1 * _smooth_noise(rng, h, w, 2)[..., None])


def _turned(rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates along and across a random direction: a cloth laid at any angle."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    turn = rng.uniform(0, np.pi)
    return x * np.cos(turn) + y * np.sin(turn), y * np.cos(turn) - x * np.sin(turn)


def _dots(rng: np.random.Generator, h: int, w: int, staggered: bool) -> np.ndarray:
    """Round dots a fifth to two thirds of their spacing across, on a square lattice or in staggered rows (each
    row shifted half a step), at any angle, in one colour on a ground far lighter or darker."""
    u, v = _turned(rng, h, w)
    pitch = rng.uniform(8, 50)
    if staggered:
        u = u + (np.floor(v / pitch) % 2) * pitch / 2
    du, dv = (u % pitch) - pitch / 2, (v % pitch) - pitch / 2
    radius = pitch * rng.uniform(0.1, 0.33)
    dot = np.clip(radius + 0.5 - np.hypot(du, dv), 0, 1).astype(np.float32)
    ink, ground = _two_tones(rng)
    return _tint(dot, ground, ink) * (0.92 + 0.08 * _smooth_noise(rng, h, w, 3)[..., None])


def _lines(coord: np.ndarray, pitch: float, width: float) -> np.ndarray:
    """Anti-aliased straight lines `width` px wide every `pitch` px across `coord`, as coverage in [0, 1]."""
    distance = np.abs((coord + pitch / 2) % pitch - pitch / 2)
    return np.clip(width / 2 + 0.5 - distance, 0, 1)


def _houndstooth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A 2/2 twill of dark and light threads in bands of a few each way: houndstooth's jagged checks."""
    u, v = _turned(rng, h, w)
    pitch = rng.uniform(2, 6)
    col, row = (u // pitch).astype(np.int64), (v // pitch).astype(np.int64)
    band = int(rng.integers(2, 7))
    over = (col + row) % 4 < 2  # the warp thread on top at two crossings in four
    dark = np.where(over, (col // band) % 2 == 0, (row // band) % 2 == 0).astype(np.float32)
    ink, ground = _two_tones(rng)
    thread = 0.85 + 0.15 * np.sin(np.pi * np.where(over, u % pitch, v % pitch) / pitch)
    return _tint(dark, ground, ink) * thread[..., None]


def _graph(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A printed grid: fine lines, heavier ones every few cells, over a plain ground, at any angle."""
    u, v = _turned(rng, h, w)
    pitch, every = rng.uniform(8, 45), int(rng.integers(3, 9))
    fine, heavy = rng.uniform(0.8, 2.0), rng.uniform(2.0, 4.5)
    cover = np.maximum(_lines(u, pitch, fine), _lines(v, pitch, fine)) * rng.uniform(0.5, 1.0)
    cover = np.maximum(cover, np.maximum(_lines(u, pitch * every, heavy), _lines(v, pitch * every, heavy)))
    ink, ground = _two_tones(rng)
    img = _felt(rng, h, w, ground)
    return img * (1 - cover[..., None]) + ink * cover[..., None]


def _pinstripe(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Two or three sets of thin stripes, each at its own random angle and colour, over a plain ground."""
    img = _felt(rng, h, w, _random_bgr(rng))
    for _ in range(int(rng.integers(2, 4))):
        u, _ = _turned(rng, h, w)
        cover = _lines(u, rng.uniform(6, 40), rng.uniform(1.0, 4.0)) * rng.uniform(0.6, 1.0)
        img = img * (1 - cover[..., None]) + _random_bgr(rng) * cover[..., None]
    return img


def _planks(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Staggered planks or tiles, each its own shade with streaks along it, parted by straight seams."""
    u, v = _turned(rng, h, w)
    width = rng.uniform(20, 120)
    length = width * rng.uniform(1.5, 8)
    row = (v // width).astype(np.int64)
    stagger = rng.uniform(0, length, 64)[row % 64]
    col = ((u + stagger) // length).astype(np.int64)
    shade = rng.uniform(0.75, 1.2, (64, 64))[row % 64, col % 64]
    phase = rng.uniform(0, 2 * np.pi, (64, 64))[row % 64, col % 64]
    streaks = 0.92 + 0.08 * np.sin(v * rng.uniform(0.2, 0.8) + phase)
    img = _felt(rng, h, w, _random_bgr(rng)) * (shade * streaks)[..., None]
    seam = rng.uniform(1, 4)
    cover = np.maximum(_lines(v, width, seam), _lines(u + stagger, length, seam))
    tone = rng.choice((rng.uniform(0.25, 0.7), rng.uniform(1.3, 1.8)))  # dark gaps or light grout
    return img * (1 + (tone - 1) * cover[..., None])


def _vein(rng: np.random.Generator, start: np.ndarray, heading: float, steps: int, bend: float) -> list[np.ndarray]:
    """A wandering stroke and, now and then, a branch off it: point lists."""
    points, strokes = [start], []
    for _ in range(steps):
        heading += rng.normal(0, bend)
        points.append(points[-1] + rng.uniform(8, 30) * np.array([np.cos(heading), np.sin(heading)]))
        if steps > 6 and rng.random() < 0.08:
            fork = heading + rng.choice((-1, 1)) * rng.uniform(0.4, 1.2)
            strokes += _vein(rng, points[-1], fork, steps // 3, bend)
    return [np.array(points, np.int32), *strokes]


def _veined(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Stone: clouds of two close tones and veins drawn as branching strokes, a sharp core in a soft halo,
    fading in and out."""
    stone = _random_bgr(rng)
    img = _tint(_fbm(rng, h, w, rng.uniform(60, 250)), stone * rng.uniform(0.7, 0.9), np.minimum(stone * 1.15, 255))
    core = np.zeros((h, w), np.float32)
    bend = rng.uniform(0.08, 0.35)  # nearly straight cracks to wandering veins
    for _ in range(int(rng.integers(6, 50))):
        start = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        for stroke in _vein(rng, start, rng.uniform(0, 2 * np.pi), int(rng.integers(10, 60)), bend):
            cv2.polylines(core, [stroke], False, rng.uniform(0.5, 1.0), int(rng.integers(1, 4)), cv2.LINE_AA)
    halo = cv2.GaussianBlur(core, (0, 0), rng.uniform(2, 8))
    alpha = np.maximum(core, 2 * halo).clip(0, 1) * (0.3 + 0.7 * _smooth_noise(rng, h, w, rng.uniform(80, 300)))
    vein = _random_bgr(rng, (0.05, 0.35)) if stone.mean() > 110 else _random_bgr(rng, (0.75, 1.0))
    return img * (1 - alpha[..., None]) + vein * alpha[..., None]


# Kinds whose generator needs nothing but the size.
_DRAWN_BY = {
    "woven": _weave,
    "concrete": _concrete,
    "knotty": _knotty,
    "print": _print,
    "gingham": _gingham,
    "scratched": _scratched,
    "terrazzo": _terrazzo,
    "harlequin": _harlequin,
    "houndstooth": _houndstooth,
    "graph": _graph,
    "pinstripe": _pinstripe,
    "planks": _planks,
    "veined": _veined,
    "dots": lambda rng, h, w: _dots(rng, h, w, staggered=False),
    "polka": lambda rng, h, w: _dots(rng, h, w, staggered=True),
}


def render_table(rng: np.random.Generator, kind: str, h: int, w: int) -> np.ndarray:
    """A BGR float32 table top of the given kind."""
    if kind in _DRAWN_BY:
        img = _DRAWN_BY[kind](rng, h, w)
    elif kind == "wood":
        img = _wood(rng, h, w, light=False)
    elif kind == "birch":
        img = _wood(rng, h, w, light=True)
    elif kind == "felt":
        color = np.array(rng.choice([[40, 110, 30], [120, 60, 20], [70, 70, 70], [90, 40, 70]]), np.float32)
        img = _felt(rng, h, w, color * rng.uniform(0.8, 1.2))
    elif kind == "red_felt":
        img = _felt(rng, h, w, np.array([35, 30, 150], np.float32) * rng.uniform(0.8, 1.2))
    elif kind == "white":
        img = _felt(rng, h, w, np.array([232, 235, 236], np.float32) * rng.uniform(0.9, 1.05))
    elif kind == "laminate":
        c = np.array(rng.choice([[200, 215, 225], [170, 190, 200], [120, 150, 170]]), np.float32)
        img = _felt(rng, h, w, c) * (0.9 + 0.1 * _smooth_noise(rng, h, w, 60)[..., None])
    elif kind == "dark":
        img = _felt(rng, h, w, np.array([38, 36, 34], np.float32) * rng.uniform(0.6, 1.5))
    elif kind == "glossy_black":
        img = _felt(rng, h, w, np.array([18, 18, 20], np.float32))
        img += 60 * _smooth_noise(rng, h, w, 300)[..., None] ** 3
    elif kind == "checkered":
        y, x = np.mgrid[0:h, 0:w]
        pitch = int(rng.uniform(25, 70))
        check = ((x // pitch + y // pitch) % 2).astype(np.float32)
        c1 = np.array(rng.choice([[40, 40, 190], [160, 80, 30], [40, 130, 40]]), np.float32)
        img = _tint(check, c1, np.array([235, 235, 235], np.float32))
        img *= 0.9 + 0.1 * _smooth_noise(rng, h, w, 3)[..., None]
    elif kind == "marble":
        n = _smooth_noise(rng, h, w, 120)
        veins = np.abs(np.sin(n * rng.uniform(15, 30) + _smooth_noise(rng, h, w, 20) * 3)) ** 0.2
        img = _tint(veins, np.array([150, 150, 160], np.float32), np.array([240, 240, 242], np.float32))
    elif kind == "striped":
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = rng.uniform(0, np.pi)
        u = x * np.cos(angle) + y * np.sin(angle)
        stripes = (np.sin(u * 2 * np.pi / rng.uniform(15, 80)) > 0).astype(np.float32)
        c1 = rng.uniform(30, 220, 3).astype(np.float32)
        img = _tint(stripes, c1, rng.uniform(30, 240, 3).astype(np.float32))
        img *= 0.9 + 0.1 * _smooth_noise(rng, h, w, 4)[..., None]
    elif kind == "tiles":
        y, x = np.mgrid[0:h, 0:w]
        pitch = int(rng.uniform(60, 200))
        grout = ((x % pitch < 4) | (y % pitch < 4)).astype(np.float32)
        base = rng.uniform(120, 240, 3).astype(np.float32)
        img = _felt(rng, h, w, base) * (1 - 0.5 * grout[..., None])
    elif kind == "plaid":
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        pitch = rng.uniform(30, 90)
        bands = ((np.sin(x * 2 * np.pi / pitch) > 0.3).astype(np.float32) + (np.sin(y * 2 * np.pi / pitch) > 0.3)) / 2
        img = _tint(bands, rng.uniform(20, 120, 3).astype(np.float32), rng.uniform(120, 240, 3).astype(np.float32))
    elif kind == "granite":
        img = _granite(rng, h, w, rng.uniform(1.2, 4))
    elif kind == "cork":
        cork = np.array([70, 120, 170], np.float32) * rng.uniform(0.6, 1.15)
        img = _felt(rng, h, w, cork) * (0.75 + 0.25 * _smooth_noise(rng, h, w, 3)[..., None])
        img[_smooth_noise(rng, h, w, 2) > 0.85] *= 0.5  # dark granules
    elif kind == "plain":  # any colour, a third near the sticks' wood and match tones
        img = _felt(rng, h, w, _random_bgr(rng)) * (0.95 + 0.05 * _smooth_noise(rng, h, w, 200)[..., None])
    else:
        raise ValueError(f"unknown table kind: {kind}")
    return np.clip(img, 0, 255).astype(np.float32)
