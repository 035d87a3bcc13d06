"""Straight bars in a frame: the candidates that may be sticks, or runs of sticks laid end to end.

A stick is a bar a few pixels wide of any colour against any table. The work image is the frame halved;
per colour channel, a top-hat and a black-hat with a square wider than any stick keep what is thinner than
the square, bright or dark, whatever its hue. Pixels of that response are grouped by their local direction
(the structure tensor's), so crossing sticks fall apart into straight pieces; collinear pieces are joined
again across the gaps a crossing stick or a seam leaves. Lines that run out of the picture are the table's
own (tile joints, planks, stripes) and are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WORK_SCALE = 0.5
SQUARE = 11  # work pixels; wider than the widest stick (9 work px)
DIRECTION_BINS = 8
MIN_PIECE_PIXELS = 8
MIN_COHERENCE = 0.5
PIECE_SPREAD = np.radians(10.0)  # pixels further than this off their piece's direction do not place it
MOST_PIECES = 300  # the strongest pieces kept on a busy table, to bound the work
MOST_BARS = 40  # the strongest bars measured: fifteen thrown sticks, crossing, make about thirty
MIN_BAR_LENGTH = 18.0  # work px; the shortest stick is 45 full-resolution px long
JOIN_ANGLE = np.radians(7.0)
LINE_ANGLE = np.radians(2.0)  # bars this parallel and
LINE_OFFSET = 2.5  # this close (work px) to one line are on one line
EDGE = 2.0  # work px from the picture's edge


@dataclass(frozen=True)
class Bar:
    """A straight run of response in work pixels: ends `a`, `b`, mean width and mean response."""

    a: np.ndarray
    b: np.ndarray
    width: float
    strength: float

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.b - self.a))


def work_image(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    return cv2.resize(image, (round(w * WORK_SCALE), round(h * WORK_SCALE)), interpolation=cv2.INTER_AREA)


def bar_response(small: np.ndarray) -> np.ndarray:
    """Per pixel, how far it stands out of a thin structure in any channel (uint8)."""
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (SQUARE, SQUARE))
    tophat = cv2.morphologyEx(small, cv2.MORPH_TOPHAT, square)
    blackhat = cv2.morphologyEx(small, cv2.MORPH_BLACKHAT, square)
    b, g, r = cv2.split(cv2.max(tophat, blackhat))
    return cv2.max(cv2.max(b, g), r)


def threshold(response: np.ndarray) -> float:
    """The response a stick must reach: above the table's own grain and the camera's noise."""
    return max(16.0, 2.0 * float(np.median(response)))


def _orientation(response: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Direction along the local ridge at the given pixels, in [0, pi), and how clearly there is one (0..1),
    from the smoothed structure tensor. Where sticks meet or cross, no direction is clear."""
    gx = cv2.Sobel(response, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(response, cv2.CV_32F, 0, 1, ksize=3)
    jxx = cv2.boxFilter(gx * gx, -1, (7, 7))[ys, xs]
    jyy = cv2.boxFilter(gy * gy, -1, (7, 7))[ys, xs]
    jxy = cv2.boxFilter(gx * gy, -1, (7, 7))[ys, xs]
    across = 0.5 * np.arctan2(2 * jxy, jxx - jyy)
    coherence = np.sqrt((jxx - jyy) ** 2 + 4 * jxy**2) / np.maximum(jxx + jyy, 1e-6)
    return np.mod(across + np.pi / 2, np.pi), coherence


def _pieces(response: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Straight pieces: connected pixels of like direction.

    Each pixel goes to its direction bin and the nearer neighbouring one, so a piece whose direction sits
    on a bin's edge is still whole in one of them. A piece's line is then fitted to its pixels that run its
    own way only, so the ends of sticks meeting it at a corner do not turn it. Rows: cx, cy, dx, dy, half
    length, half width, mean response, pixel count.
    """
    ys, xs = np.nonzero(mask)
    theta, coherence = _orientation(response, ys, xs)
    clear = coherence >= MIN_COHERENCE
    ys, xs, theta = ys[clear], xs[clear], theta[clear]
    if not len(ys):
        return np.zeros((0, 8))
    t = theta / (np.pi / DIRECTION_BINS)
    own = np.floor(t).astype(np.int32) % DIRECTION_BINS
    near = np.where(t - np.floor(t) < 0.5, own - 1, own + 1) % DIRECTION_BINS
    weight = response[ys, xs].astype(np.float64)
    rows = []
    for b in range(DIRECTION_BINS):
        sel = (own == b) | (near == b)
        if sel.sum() < MIN_PIECE_PIXELS:
            continue
        m = np.zeros(mask.shape, np.uint8)
        m[ys[sel], xs[sel]] = 1
        n, labels = cv2.connectedComponents(m, connectivity=8)
        lab = labels[ys[sel], xs[sel]]
        doubled = 2 * theta[sel]
        mean_dir = np.arctan2(np.bincount(lab, np.sin(doubled), n), np.bincount(lab, np.cos(doubled), n))
        own_way = np.abs(np.angle(np.exp(1j * (doubled - mean_dir[lab])))) <= 2 * PIECE_SPREAD
        rows.append(_moments(lab[own_way], xs[sel][own_way], ys[sel][own_way], weight[sel][own_way], n))
    return np.concatenate(rows) if rows else np.zeros((0, 8))


def _moments(lab: np.ndarray, xs: np.ndarray, ys: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """Per label with enough pixels: centre, principal direction, half length and width, mean weight, count."""
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    cnt = np.bincount(lab, minlength=n).astype(np.float64)
    ok = cnt >= MIN_PIECE_PIXELS
    ok[0] = False
    c = cnt[ok]
    mx, my = np.bincount(lab, x, n)[ok] / c, np.bincount(lab, y, n)[ok] / c
    cxx = np.bincount(lab, x * x, n)[ok] / c - mx * mx
    cyy = np.bincount(lab, y * y, n)[ok] / c - my * my
    cxy = np.bincount(lab, x * y, n)[ok] / c - mx * my
    mean = np.bincount(lab, weight, n)[ok] / c
    tr, det = cxx + cyy, cxx * cyy - cxy * cxy
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    big, small = tr / 2 + disc, np.maximum(tr / 2 - disc, 0)
    angle = 0.5 * np.arctan2(2 * cxy, cxx - cyy)
    return np.column_stack([mx, my, np.cos(angle), np.sin(angle), np.sqrt(3 * big), np.sqrt(3 * small), mean, c])


def _sample(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Nearest-pixel values at float points, clipped to the image."""
    h, w = image.shape[:2]
    x = np.clip(np.round(points[..., 0]).astype(np.int32), 0, w - 1)
    y = np.clip(np.round(points[..., 1]).astype(np.int32), 0, h - 1)
    return image[y, x]


def _components(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    """Connected components of the graph on 0..n-1 with the given edges."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        parent[find(i)] = find(j)
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(find(i), []).append(i)
    return list(members.values())


def _collinear(c: np.ndarray, d: np.ndarray, angle: float, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i < j) of segments (centres c, unit directions d) within `angle` and `offset[i, j]` of one
    line, and the signed distance from each centre to the other along the first's direction."""
    cos = np.abs(d @ d.T)
    rel = c[None, :, :] - c[:, None, :]  # rel[i, j] = c_j - c_i
    along = np.einsum("ijk,ik->ij", rel, d)
    normal = np.column_stack([-d[:, 1], d[:, 0]])
    off = np.abs(np.einsum("ijk,ik->ij", rel, normal))
    close = (cos >= np.cos(angle)) & (np.maximum(off, off.T) <= offset)
    return np.triu(close, 1), along


def _join_pieces(pieces: np.ndarray, response: np.ndarray, low: float) -> list[Bar]:
    """Collinear pieces become one bar when the gap between them is short or still covered by response."""
    c, d, half, hw, mean, count = pieces[:, :2], pieces[:, 2:4], pieces[:, 4], pieces[:, 5], pieces[:, 6], pieces[:, 7]
    widths = hw[:, None] + hw[None, :]
    close, along = _collinear(c, d, JOIN_ANGLE, np.maximum(1.5, 0.7 * widths))
    gap = np.abs(along) - half[:, None] - half[None, :]
    pairs = []
    for i, j in zip(*np.nonzero(close & (gap < np.maximum(4.0, 3.0 * widths))), strict=True):
        if gap[i, j] > 3.0:
            # The gap must be covered: a crossing stick, a dim stretch, a seam; not bare table.
            sign = np.sign(along[i, j])
            start, end = c[i] + d[i] * sign * half[i], c[j] - d[i] * sign * half[j]
            ts = np.linspace(0, 1, max(2, int(gap[i, j])))
            if np.mean(_sample(response, start + (end - start) * ts[:, None]) >= low) < 0.8:
                continue
        pairs.append((int(i), int(j)))
    bars = []
    for idx in _components(len(pieces), pairs):
        ends = np.concatenate([c[idx] - d[idx] * half[idx, None], c[idx] + d[idx] * half[idx, None]])
        wts = np.concatenate([count[idx], count[idx]])
        centre = (ends * wts[:, None]).sum(axis=0) / wts.sum()
        direction = np.linalg.eigh(((ends - centre) * wts[:, None]).T @ (ends - centre))[1][:, 1]
        proj = (ends - centre) @ direction
        total = count[idx].sum()
        bars.append(
            Bar(
                a=centre + direction * proj.min(),
                b=centre + direction * proj.max(),
                width=float(2 * (hw[idx] * count[idx]).sum() / total),
                strength=float((mean[idx] * count[idx]).sum() / total),
            )
        )
    return bars


def _table_lines(bars: list[Bar], shape: tuple[int, ...]) -> set[int]:
    """Bars on a straight line that runs out of the picture: tile joints, stripes, planks, a stick cut by the
    edge. Collinear bars count as one line however far apart, since a line of the table breaks up under
    glare, shadow and the sticks lying across it."""
    if not bars:
        return set()
    a, b = np.array([bar.a for bar in bars]), np.array([bar.b for bar in bars])
    d = (b - a) / np.maximum(np.linalg.norm(b - a, axis=1), 1e-9)[:, None]
    reach = np.maximum(LINE_OFFSET, 0.5 * np.array([bar.width for bar in bars]))
    close, _ = _collinear((a + b) / 2, d, LINE_ANGLE, np.minimum(reach[:, None], reach[None, :]))
    h, w = shape[:2]
    lines = set()
    for idx in _components(len(bars), list(zip(*np.nonzero(close), strict=True))):
        ends = np.concatenate([a[idx], b[idx]])
        if (ends.min(axis=0) <= EDGE).any() or ends[:, 0].max() >= w - 1 - EDGE or ends[:, 1].max() >= h - 1 - EDGE:
            lines.update(idx)
    return lines


def find_bars(response: np.ndarray, low: float) -> list[Bar]:
    """Bars at least MIN_BAR_LENGTH long in the response, in work pixels, without lines of the table."""
    pieces = _pieces(response, response >= low)
    pieces = pieces[(pieces[:, 4] >= 3) & (pieces[:, 4] >= 1.5 * pieces[:, 5])]
    if len(pieces) > MOST_PIECES:
        pieces = pieces[np.argsort(-pieces[:, 6] * pieces[:, 7])[:MOST_PIECES]]
    bars = _join_pieces(pieces, response, low)
    lines = _table_lines(bars, response.shape)
    bars = [bar for i, bar in enumerate(bars) if i not in lines and bar.length >= MIN_BAR_LENGTH]
    return sorted(bars, key=lambda bar: -bar.strength * bar.length)[:MOST_BARS]
