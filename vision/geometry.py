"""Quadrilateral helpers shared by the recognisers and the training renderer, and the table plane a tilted
webcam sees."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import cv2
import numpy as np

FOCAL = 0.8  # of the picture's width: a typical webcam's 60..80 degree field of view
HALF_TURN = (True, True)  # a mirror left to right and top to bottom: the picture turned half round
FAR_SIDE_UP_FIT = 1.5  # how many times better outlines must fit a tilt with the far side at the top
# Degrees from straight down that a view's tilt is searched over, either way: negative where the table's far
# side is at the top of the picture (a webcam at the table's edge), positive where it is at the foot. In order
# from straight down, so that of tilts that fit as well the least is taken.
TILTS = np.array(sorted(np.arange(-70.0, 72.0, 2.0), key=abs))
# Corner orders of an outline starting at each of its corners: indexing with one is np.roll(quad, -k, axis=0)
# at a third of the cost, which counts in helpers called for every outline of every frame.
_STARTING_AT = tuple(np.array([(i + k) % 4 for i in range(4)]) for k in range(4))


def from_corner(quad: np.ndarray, k: int) -> np.ndarray:
    """The outline's four corners in the same turn, starting at corner `k`."""
    return quad[_STARTING_AT[k % 4]]


def order_clockwise(points: np.ndarray) -> np.ndarray:
    """Four points in clockwise image order (y down), starting from the one nearest the top-left."""
    pts = np.asarray(points, dtype=np.float32).reshape(4, 2)
    center = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - center[1], pts[:, 0] - center[0])
    pts = pts[np.argsort(angles)]
    return from_corner(pts, int(np.argmin(pts.sum(axis=1))))


def landscape(image: np.ndarray) -> tuple[np.ndarray, int | None]:
    """The frame as the locator networks take it: a portrait frame turned a quarter clockwise
    (cv2.ROTATE_90_CLOCKWISE), so that it fills their landscape input as a landscape frame does; and the
    portrait frame's height, to turn points back with (None if the frame was not turned)."""
    if image.shape[0] <= image.shape[1]:
        return image, None
    return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), image.shape[0]


def turned_back(points: np.ndarray, height: int) -> np.ndarray:
    """Points (..., 2) of a frame `landscape` turned, in the portrait frame of `height` rows: a turned (x, y)
    was (y, height - 1 - x)."""
    p = np.asarray(points)
    return np.stack([p[..., 1], height - 1 - p[..., 0]], axis=-1).astype(p.dtype)


def mirrored(image: np.ndarray, mirror: tuple[bool, bool]) -> np.ndarray:
    """The picture mirrored left to right and/or top to bottom, as a contiguous array."""
    across, down = mirror
    return np.ascontiguousarray(image[:: -1 if down else 1, :: -1 if across else 1])


def mirrored_points(points: np.ndarray, size: tuple[int, int], mirror: tuple[bool, bool]) -> np.ndarray:
    """Pixel coordinates (..., 2) in a picture of `size` (width, height) and in its mirror image, either way."""
    points = np.array(points, np.float64)
    for axis, flip in enumerate(mirror):
        if flip:
            points[..., axis] = size[axis] - 1 - points[..., axis]
    return points


def mirror_matrix(size: tuple[int, int], mirror: tuple[bool, bool]) -> np.ndarray:
    """The 3x3 map of a picture's pixels to its mirror image's (and back: a mirror is its own inverse)."""
    flip = np.eye(3)
    for axis, flipped in enumerate(mirror):
        if flipped:
            flip[axis, axis], flip[axis, 2] = -1.0, size[axis] - 1
    return flip


def turned(points: np.ndarray, height: int) -> np.ndarray:
    """Points (..., 2) of a portrait frame of `height` rows, in the frame `landscape` turned it to."""
    p = np.asarray(points)
    return np.stack([height - 1 - p[..., 1], p[..., 0]], axis=-1).astype(p.dtype)


def side_lengths(quad: np.ndarray) -> np.ndarray:
    return np.linalg.norm(quad - from_corner(quad, 1), axis=1)


def portrait_order(quad: np.ndarray) -> np.ndarray:
    """Rotate a clockwise quad so its first side (top) is one of the two short sides."""
    sides = side_lengths(quad)
    return quad if sides[0] + sides[2] <= sides[1] + sides[3] else from_corner(quad, 1)


def quad_aspect(quad: np.ndarray) -> float:
    """Long over short mean side length (1.0 for a square)."""
    sides = side_lengths(quad)
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    return max(a, b) / max(min(a, b), 1e-6)


def window_part(image: np.ndarray, window: tuple[int, int, int, int]) -> np.ndarray:
    """The part of a frame in `window` (x, y, width, height), in memory of its own as the networks read it."""
    x0, y0, w, h = window
    return np.ascontiguousarray(image[y0 : y0 + h, x0 : x0 + w])


def warp_quad(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Warp the quad (top-left, top-right, bottom-right, bottom-left) to an upright `size` (w, h) crop."""
    w, h = size
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(quad, dtype=np.float32), target)
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def polygon_area(quad: np.ndarray) -> float:
    return float(abs(cv2.contourArea(np.asarray(quad, dtype=np.float32))))


def point_in_quad(point: np.ndarray, quad: np.ndarray) -> bool:
    return cv2.pointPolygonTest(np.asarray(quad, dtype=np.float32), (float(point[0]), float(point[1])), False) >= 0


def points_in_quads(points: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """inside[i, j]: point i lies within convex quad j (either winding), for all pairs at once."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    p = np.asarray(points, np.float64).reshape(-1, 2)
    edges = np.roll(q, -1, axis=1) - q  # (j, 4, 2)
    to_point = p[:, None, None, :] - q[None]  # (i, j, 4, 2)
    cross = edges[None, :, :, 0] * to_point[..., 1] - edges[None, :, :, 1] * to_point[..., 0]
    return (cross >= 0).all(axis=2) | (cross <= 0).all(axis=2)


def centres_inside(quads: list[np.ndarray]) -> np.ndarray:
    """inside[i, j]: the centre of convex quad i lies within convex quad j, i != j."""
    inside = points_in_quads(np.asarray(quads, np.float64).reshape(-1, 4, 2).mean(axis=1), quads)
    np.fill_diagonal(inside, False)
    return inside


def scaled_outline(outline: np.ndarray, factor: float) -> np.ndarray:
    """An outline (N x 2) scaled by `factor` about its centre, as float32."""
    centre = outline.mean(axis=0)
    return ((outline - centre) * factor + centre).astype(np.float32)


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    union = polygon_area(a) + polygon_area(b) - inter
    return float(inter / union) if union > 0 else 0.0


def dedupe_quads(quads: list[np.ndarray], tolerance: float = 0.06) -> list[np.ndarray]:
    """Drop near-identical outlines (the same card found by several cues), keeping the larger."""
    if not quads:
        return []
    stacked = np.array(sorted((np.asarray(q, np.float32) for q in quads), key=polygon_area, reverse=True))
    sizes = np.sqrt([polygon_area(q) for q in stacked])
    # apart[i, j]: the largest corner distance between outlines i and j, per axis.
    apart = np.abs(stacked[:, None] - stacked[None]).max(axis=(2, 3))
    kept: list[int] = []
    for i in range(len(stacked)):
        if all(apart[i, kept] > tolerance * sizes[i]):
            kept.append(i)
    return [stacked[i] for i in kept]


def tilt_plane(size: tuple[int, int], tilt_deg: float) -> np.ndarray:
    """Image px -> table plane (any scale) for a camera tilted by `tilt_deg` (negative: the table's far side
    at the top of the picture), not rolled."""
    return tilt_planes(size, np.array([tilt_deg]))[0]


def tilt_planes(size: tuple[int, int], tilts_deg: np.ndarray) -> np.ndarray:
    """`tilt_plane` for each tilt at once (n, 3, 3)."""
    w, h = size
    f = FOCAL * w
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    t = np.radians(np.asarray(tilts_deg, np.float64))
    # The pitched camera's first two axes and the origin's ray, as the columns of the plane -> image map.
    to_image = np.zeros((len(t), 3, 3))
    to_image[:, 0, 0] = 1.0
    to_image[:, 1, 1], to_image[:, 2, 1] = np.cos(t), np.sin(t)
    to_image[:, 2, 2] = 1.0
    return np.linalg.inv(k @ to_image)


def to_plane(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (..., 2) mapped by a 3x3 matrix, or by each of a stack of them (m, 3, 3) to (m, ..., 2); NaN
    where they fall behind the horizon."""
    flat = points.reshape(-1, 2)
    mapped = np.column_stack([flat, np.ones(len(flat))]) @ np.swapaxes(matrix, -1, -2)
    w = mapped[..., 2:3]
    out = np.where(w > 1e-9, mapped[..., :2] / np.where(w > 1e-9, w, 1.0), np.nan)
    return out.reshape(matrix.shape[:-2] + points.shape)


def above_view(
    plane: np.ndarray, shapes: np.ndarray, size: tuple[int, int], reach: float, around: np.ndarray | None = None
) -> np.ndarray | None:
    """Image px -> px of a view from above of the same size: the table plane (`plane` maps image px to it)
    round the shapes read (n, k, 2 image px: outlines or sticks), or round the outlines `around` if given, out
    to `reach` plane units beyond them, within the table in view, the shapes read at the size they had in the
    picture or smaller so that all fit. None if part of the picture lies beyond the horizon."""
    w, h = size
    shapes = np.asarray(shapes, np.float64)
    on_table = to_plane(plane, shapes)
    region = on_table if around is None else to_plane(plane, np.asarray(around, np.float64))
    seen = to_plane(plane, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
    if not all(np.isfinite(points).all() for points in (seen, on_table, region)):
        return None
    low = np.maximum(region.reshape(-1, 2).min(axis=0) - reach, seen.min(axis=0))
    high = np.minimum(region.reshape(-1, 2).max(axis=0) + reach, seen.max(axis=0))
    scale = float(np.median(rims(shapes) / rims(on_table)))
    scale *= min(1.0, w / ((high[0] - low[0]) * scale), h / ((high[1] - low[1]) * scale))
    middle = (low + high) / 2 * scale
    return np.array([[scale, 0, w / 2 - middle[0]], [0, scale, h / 2 - middle[1]], [0, 0, 1]]) @ plane


def rims(shapes: np.ndarray) -> np.ndarray:
    """The length round each shape (..., k, 2), back to its first point."""
    return np.linalg.norm(np.roll(shapes, -1, axis=-2) - shapes, axis=-1).sum(axis=-1)


def rectangle_tilt(outlines: np.ndarray, size: tuple[int, int], aspect: float) -> tuple[float, np.ndarray]:
    """The camera tilt (degrees from straight down; negative where the table's far side is at the top of the
    picture) under which outlines of rectangles of one `aspect` (long side over short; n, 4, 2 image px) are
    most nearly such rectangles on the table plane, and its image -> plane matrix (not to be written to: within
    `tilts_kept` it is kept for the next question)."""
    outlines = np.asarray(outlines, np.float64)
    kept = getattr(_tilts, "kept", None)
    if kept is None:
        return _rectangle_tilt(outlines, size, aspect)
    question = (outlines.shape, outlines.tobytes(), tuple(size), aspect)
    if question not in kept:
        kept[question] = _rectangle_tilt(outlines, size, aspect)
        kept[question][1].flags.writeable = False
    return kept[question]


_tilts = threading.local()  # `kept`: the answers `rectangle_tilt` keeps, by question, within `tilts_kept`


@contextmanager
def tilts_kept() -> Iterator[None]:
    """Within it, `rectangle_tilt` answers a question asked before (the same outlines, frame size and aspect)
    as it did then: the card reader asks for one frame's cards' tilt four times (0.2 ms each). Outside it every
    call works anew, so that a benchmark reading one picture over and over pays as a live frame does."""
    before = getattr(_tilts, "kept", None)
    _tilts.kept = {} if before is None else before
    try:
        yield
    finally:
        _tilts.kept = before


def _rectangle_tilt(outlines: np.ndarray, size: tuple[int, int], aspect: float) -> tuple[float, np.ndarray]:
    planes = tilt_planes(size, TILTS)
    mapped = to_plane(planes, outlines)  # (tilts, n, 4, 2)
    sides = np.linalg.norm(np.roll(mapped, -1, axis=-2) - mapped, axis=-1)
    ratio = (sides[..., 0] + sides[..., 2]) / (sides[..., 1] + sides[..., 3])
    a, b = mapped[..., 1, :] - mapped[..., 0, :], mapped[..., 3, :] - mapped[..., 0, :]
    cosine = np.abs((a * b).sum(-1)) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = (np.log(np.maximum(ratio, 1 / ratio) / aspect) ** 2 + cosine**2).sum(axis=-1)
    cost[~np.isfinite(cost)] = np.inf
    # The far side at the top is taken where it fits clearly better: a few outlines read off their objects fit
    # some tilt on that side a little better even in a view from straight above.
    cost[TILTS < 0] *= FAR_SIDE_UP_FIT
    best = int(np.argmin(cost))  # straight down where no tilt keeps the outlines in view
    return float(TILTS[best]), planes[best]


def steep_view(
    outlines: np.ndarray,
    size: tuple[int, int],
    aspect: float,
    steep: float,
    margin: float,
    around: np.ndarray | None = None,
) -> np.ndarray | None:
    """Image px -> px of a view from above round rectangles read (n, 4, 2 image px, long side over short
    `aspect`), or round the outlines `around`, `margin` of their long sides beyond them (`above_view`), where
    the tilt they give (`rectangle_tilt`) is `steep` degrees or more; else None."""
    tilt, plane = rectangle_tilt(outlines, size, aspect)
    if abs(tilt) < steep:
        return None
    long_side = float(np.median(rims(to_plane(plane, np.asarray(outlines, np.float64))))) * aspect / (2 * (1 + aspect))
    return above_view(plane, outlines, size, margin * long_side, around)


def warped(image: np.ndarray, view: np.ndarray) -> np.ndarray:
    """The picture as the view (3x3, image px -> view px, same size) shows it."""
    return cv2.warpPerspective(image, view, image.shape[1::-1], flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
