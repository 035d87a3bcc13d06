"""The edge outlines' building blocks (vision/cards/locate.py) give what OpenCV's own calls give, pixel for
pixel: they stand in for them for speed alone."""

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.cards.locate import colour_canny, contour_areas


def _colour_scene(seed: int, h: int, w: int) -> np.ndarray:
    """Flat patches of random colours with noise, blurred as the edge stage blurs: rims of every hue and
    brightness, and ties between channels where patches are grey."""
    rng = np.random.default_rng(seed)
    image = np.full((h, w, 3), rng.integers(0, 256, 3), np.uint8)
    for _ in range(rng.integers(1, 12)):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        colour = rng.integers(0, 256, 3) if rng.random() < 0.7 else np.repeat(rng.integers(0, 256), 3)
        image[y0 : y0 + rng.integers(2, h), x0 : x0 + rng.integers(2, w)] = colour
    noisy = image.astype(np.int16) + rng.integers(-12, 13, image.shape)
    return cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (5, 5), 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 90), st.integers(3, 120), st.integers(10, 120))
def test_colour_canny_is_opencvs_colour_canny(seed: int, h: int, w: int, low: int) -> None:
    image = _colour_scene(seed, h, w)
    assert np.array_equal(colour_canny(image, low, 2.5 * low), cv2.Canny(image, low, 2.5 * low))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_contour_areas_are_opencvs(seed: int) -> None:
    image = _colour_scene(seed, 80, 100)
    binary = cv2.threshold(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    # A lone point and a segment, which findContours gives for specks and one-pixel lines.
    contours = [*contours, np.array([[[3, 4]]], np.int32), np.array([[[0, 0]], [[5, 2]]], np.int32)]
    assert np.array_equal(contour_areas(contours), [cv2.contourArea(c) for c in contours])
    assert contour_areas([]).shape == (0,)
