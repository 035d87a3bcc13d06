"""Snap a rough card outline to the card's rim, and tell whether an outline has a rim at all.

Each side searches outward and inward along its normal for the strongest colour step, then a robust line
through those steps replaces the side; adjacent lines meet at the new corners. The search is weighted
toward the rough side, so a printed frame or panel a little way inside does not pull the outline in.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.geometry import from_corner, polygon_area, side_lengths

SAMPLES_PER_SIDE = 14
SEARCH = 0.14  # how far to look either side, as a share of the outline's short side


def _sides(quad: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each side's two ends and its unit normal pointing out of the outline."""
    return list(zip(quad, from_corner(quad, 1), outward_normals(quad), strict=True))


def outward_normals(quad: np.ndarray) -> np.ndarray:
    """Each side's unit normal (4, 2) pointing out of the outline."""
    along = from_corner(quad, 1) - quad
    normals = np.stack([along[:, 1], -along[:, 0]], axis=1) / np.maximum(np.linalg.norm(along, axis=1), 1e-6)[:, None]
    outward = np.einsum("ij,ij->i", normals, quad + along / 2 - quad.mean(axis=0)) >= 0
    return np.where(outward[:, None], normals, -normals).astype(np.float32)


def _across(image: np.ndarray, base: np.ndarray, offsets: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """The colours (K, D, 3) at `offsets` (D) along `normal` from each of the points `base` (K, 2)."""
    points = base[:, None, :] + offsets[None, :, None] * normal
    return cv2.remap(image, points[..., 0], points[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(
        np.float32
    )


def refine_quad(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """`quad` with each side moved to the nearby rim; the input unchanged when the rim is not clear."""
    quad = np.asarray(quad, np.float32)
    sides = side_lengths(quad)
    reach = max(3.0, SEARCH * float(sides.min()))
    offsets = np.linspace(-reach, reach, int(2 * reach) + 1, dtype=np.float32)
    lines = []
    t = np.linspace(0.12, 0.88, SAMPLES_PER_SIDE, dtype=np.float32)[:, None]
    for a, b, normal in _sides(quad):
        base = a + (b - a) * t  # (K, 2)
        profile = _across(image, base, offsets, normal)  # (K, D, 3)
        step = np.abs(np.diff(profile, axis=1)).max(axis=2)  # (K, D-1) strongest channel change
        weight = np.exp(-0.5 * (((offsets[:-1] + offsets[1:]) / 2) / (0.6 * reach)) ** 2)
        best = np.argmax(step * weight, axis=1)
        strong = step[np.arange(len(best)), best] > 12
        if strong.sum() < SAMPLES_PER_SIDE // 2:
            return quad
        found = base[strong] + ((offsets[best[strong]] + offsets[best[strong] + 1]) / 2)[:, None] * normal
        vx, vy, x0, y0 = cv2.fitLine(found.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    corners = []
    for i in range(4):
        (p, u), (q, v) = lines[(i - 1) % 4], lines[i]
        m = np.array([u, -v]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        s, _ = np.linalg.solve(m, q - p)
        corners.append(p + s * u)
    refined = np.array(corners, np.float32)
    ratio = polygon_area(refined) / max(polygon_area(quad), 1e-6)
    if not (0.7 < ratio < 1.45) or not cv2.isContourConvex(refined):
        return quad
    return refined


def rim_contrast(image: np.ndarray, quad: np.ndarray, samples: int = 12, reach: float = 0.1) -> float:
    """How much the colour steps across the outline, from just inside to just outside: the mean over the four
    sides of the median step. A card lying on a table has a rim; a patch of patterned cloth that the
    classifier takes for a card has none."""
    quad = np.asarray(quad, np.float32)
    r = max(2.0, reach * float(side_lengths(quad).min()))
    offsets = np.array([-r, -0.6 * r, 0.6 * r, r], np.float32)
    # All four sides sampled in one remap: a call per side cost twice the time (it runs for every reading).
    along = from_corner(quad, 1) - quad
    normals = outward_normals(quad)
    t = _along(samples)
    base = quad[:, None] + along[:, None] * t[None, :, None]  # (4 sides, samples, 2)
    points = (base[:, :, None] + offsets[None, None, :, None] * normals[:, None, None]).reshape(4 * samples, 4, 2)
    profile = cv2.remap(image, points[..., 0], points[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    profile = profile.astype(np.float32).reshape(4, samples, 4, -1)
    steps = np.abs(profile[:, :, :2].mean(axis=2) - profile[:, :, 2:].mean(axis=2)).max(axis=2)
    # Each side's median step, as np.median gives it (the middle one, or the mean of the middle two) at a
    # fraction of its cost.
    ranked = np.sort(steps, axis=1)
    middle = (ranked[:, (samples - 1) // 2] + ranked[:, samples // 2]) / 2
    return float(middle.mean())


@functools.cache
def _along(samples: int) -> np.ndarray:
    """Where along each side `rim_contrast` samples it."""
    return np.linspace(0.15, 0.85, samples, dtype=np.float32)
