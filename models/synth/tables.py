"""Procedural table tops. Training and held-out evaluation draw from disjoint kinds of table."""

import cv2
import numpy as np

TRAIN_TABLES = ("wood", "felt", "white", "dark", "laminate", "striped", "tiles", "plaid")
HELDOUT_TABLES = ("checkered", "marble", "birch", "red_felt", "glossy_black")


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


def render_table(rng: np.random.Generator, kind: str, h: int, w: int) -> np.ndarray:
    """A BGR float32 table top of the given kind."""
    if kind == "wood":
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
    else:
        raise ValueError(f"unknown table kind: {kind}")
    return np.clip(img, 0, 255).astype(np.float32)
