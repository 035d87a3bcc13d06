"""Find card-shaped quadrilaterals in a frame.

The locator aims for recall: it proposes every convex, card-sized quad that an edge map or a brightness
split outlines, and leaves the verdict "is this a card, and which" to the classifier. Work happens on a
copy scaled to at most `DETECT_SIDE` pixels; the quads are returned in full-resolution pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import dedupe_quads, order_clockwise, polygon_area, quad_aspect

DETECT_SIDE = 800
MIN_CARD_SIDE = 22  # shortest card side, in full-resolution pixels (a 60 px tall card is about 43 wide)
MAX_ASPECT = 3.2  # long/short side; a steep webcam view squashes a 1.4 card a long way
STRIP_ROWS = 64  # `colour_canny`'s bands


def contour_areas(contours: list[np.ndarray] | tuple[np.ndarray, ...]) -> np.ndarray:
    """Each contour's area, as `cv2.contourArea` gives it, for all at once: a busy cloth gives thousands of
    contours, and a call each cost more than the rest of the quad search. The shoelace sums of integer points
    are exact in float64, so the areas equal OpenCV's."""
    if not contours:
        return np.zeros(0)
    lengths = np.fromiter(map(len, contours), np.intp, len(contours))
    points = np.concatenate(contours).reshape(-1, 2).astype(np.float64)
    starts = np.cumsum(lengths) - lengths
    following = np.arange(1, len(points) + 1)
    following[starts + lengths - 1] = starts  # each contour closes on its first point
    x, y = points[:, 0], points[:, 1]
    cross = x * y[following] - x[following] * y
    return np.abs(np.add.reduceat(cross, starts)) / 2


def _quads_from_contours(contours: list[np.ndarray], min_area: float, max_area: float) -> list[np.ndarray]:
    quads = []
    areas = contour_areas(contours)
    for i in np.flatnonzero((areas >= min_area) & (areas <= max_area)):
        contour = contours[i]
        area = areas[i]
        hull = cv2.convexHull(contour)
        hull_area = cv2.contourArea(hull)
        if hull_area <= 0 or area / hull_area < 0.85:
            continue
        perimeter = cv2.arcLength(hull, True)
        approx = None
        for eps in (0.02, 0.035, 0.05):
            candidate = cv2.approxPolyDP(hull, eps * perimeter, True)
            if len(candidate) == 4:
                approx = candidate
                break
        if approx is None:
            # Rounded corners and glare chip the outline: fall back to the rotated bounding box.
            rect = cv2.minAreaRect(hull)
            approx = cv2.boxPoints(rect)
            if hull_area / max(rect[1][0] * rect[1][1], 1e-6) < 0.88:
                continue
        quad = order_clockwise(approx.reshape(4, 2))
        if polygon_area(quad) < min_area or quad_aspect(quad) > MAX_ASPECT:
            continue
        if not cv2.isContourConvex(quad.astype(np.float32)):
            continue
        quads.append(quad)
    return quads


def colour_canny(image: np.ndarray, low: float, high: float) -> np.ndarray:
    """`cv2.Canny` of a colour image, pixel for pixel: at each pixel the gradient of the channel whose gradient
    is strongest (|dx| + |dy|, the first such channel on a tie), traced as a grey image's would be. OpenCV picks
    the channel pixel by pixel in a plain loop: on the sample pictures its colour Canny took 2.9-3.7 ms, this
    1.9-2.9 (one core). The gradients are picked in bands of STRIP_ROWS rows, each read with a row more either
    side for the Sobel kernel, so that a band's dozen working arrays stay in the core's cache."""
    h, w = image.shape[:2]
    best_dx, best_dy, strongest = (np.empty((h, w), np.int16) for _ in range(3))
    for top in range(0, h, STRIP_ROWS):
        bottom = min(h, top + STRIP_ROWS)
        above, below = max(0, top - 1), min(h, bottom + 1)
        band = slice(top - above, bottom - above)  # the band's own rows in the rows read
        picked = best_dx[top:bottom], best_dy[top:bottom], strongest[top:bottom]
        for k, channel in enumerate(cv2.split(image[above:below])):
            dx = cv2.Sobel(channel, cv2.CV_16S, 1, 0, borderType=cv2.BORDER_REPLICATE)[band]
            dy = cv2.Sobel(channel, cv2.CV_16S, 0, 1, borderType=cv2.BORDER_REPLICATE)[band]
            magnitude = cv2.add(np.abs(dx), np.abs(dy))  # at most 2040: no 16-bit overflow
            if k == 0:
                for into, values in zip(picked, (dx, dy, magnitude), strict=True):
                    into[...] = values
                continue
            stronger = cv2.compare(magnitude, picked[2], cv2.CMP_GT)
            cv2.copyTo(dx, stronger, picked[0])
            cv2.copyTo(dy, stronger, picked[1])
            cv2.max(picked[2], magnitude, dst=picked[2])
    return cv2.Canny(best_dx, best_dy, low, high)


def _detection_size(image: np.ndarray) -> tuple[np.ndarray, float]:
    """`image` shrunk to DETECT_SIDE on its longer side (never grown), and the scale it was shrunk by."""
    h, w = image.shape[:2]
    scale = min(1.0, DETECT_SIDE / max(h, w))
    if scale == 1:
        return image, scale
    # Linear, not area, resampling: eight times cheaper, and the blur after it takes out what it aliases. A
    # side of a pixel or two stays a pixel, however far the other is shrunk.
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR), scale


def locate_card_quads(image: np.ndarray) -> list[np.ndarray]:
    """Candidate card outlines (4x2 float32, clockwise from top-left) in `image` pixel coordinates."""
    small, scale = _detection_size(image)
    min_side = MIN_CARD_SIDE * scale
    min_area = min_side * min_side * 1.2
    max_area = 0.95 * small.shape[0] * small.shape[1]

    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    gray = cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY)
    contours: list[np.ndarray] = []

    # Edges of any colour: the card's rim against the table, whatever the two colours are.
    # The median from the histogram: sorting a frame's pixels cost more than the rest of this stage's set-up.
    counts = cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel()
    median = float(np.searchsorted(np.cumsum(counts), gray.size / 2))
    edges = colour_canny(blurred, max(10, 0.4 * median), max(30, 1.0 * median))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    found, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    contours.extend(found)

    # Light cards on a darker table, and the reverse; the local threshold copes with uneven light.
    block = max(31, (int(min(small.shape[:2]) / 6) // 2) * 2 + 1)
    for binary in (
        cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1],
        cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -8),
    ):
        opened = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        found, _ = cv2.findContours(opened, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        contours.extend(found)

    quads = _quads_from_contours(contours, min_area, max_area)
    return dedupe_quads([q / scale for q in quads])


def locate_paper_quads(image: np.ndarray) -> list[np.ndarray]:
    """Outlines of white paper (4x2 float32, clockwise from top-left, `image` pixels): regions brighter and
    greyer than the table around them. Where a cloth's pattern or its glare is as bright as the card in grey,
    the edges and thresholds of `locate_card_quads` lose a white card's outline; its lack of colour keeps it."""
    small, scale = _detection_size(image)
    channels = cv2.split(small)
    least, most = cv2.min(cv2.min(*channels[:2]), channels[2]), cv2.max(cv2.max(*channels[:2]), channels[2])
    white = cv2.GaussianBlur(cv2.subtract(least, cv2.subtract(most, least)), (3, 3), 0)  # dark where coloured
    block = max(31, (int(min(small.shape[:2]) / 5) // 2) * 2 + 1)
    binary = cv2.adaptiveThreshold(white, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -15)
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))  # the ink printed on it
    found, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_side = MIN_CARD_SIDE * scale
    quads = _quads_from_contours(list(found), min_side * min_side * 1.2, 0.95 * small.shape[0] * small.shape[1])
    return dedupe_quads([q / scale for q in quads])
