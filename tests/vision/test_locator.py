"""The locator networks' shared decoding (vision/locator.py): letterboxing, grid cells, doubled angles."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from vision.locator import cell_of, doubled, letterbox, peaks, pixel_of, undoubled

coords = st.floats(-500, 500, allow_nan=False)


@given(coords, coords)
def test_doubled_angles_give_the_vector_back_up_to_sign(x: float, y: float) -> None:
    vec = np.array([x, y])
    back = undoubled(*map(np.asarray, doubled(vec)))
    assert min(np.linalg.norm(back - vec), np.linalg.norm(back + vec)) <= 1e-6 * max(1.0, np.linalg.norm(vec))
    assert np.allclose(doubled(vec), doubled(-vec))


@given(coords, coords, st.sampled_from([2, 4, 8]))
def test_cells_and_pixels_are_inverse(x: float, y: float, stride: int) -> None:
    point = np.array([x, y])
    assert np.allclose(pixel_of(cell_of(point, stride), stride), point)
    assert np.allclose(cell_of(np.array([(stride - 1) / 2] * 2), stride), 0)


@given(st.integers(20, 2000), st.integers(20, 2000))
def test_letterbox_keeps_the_shape_top_left(w: int, h: int) -> None:
    image = np.full((h, w, 3), 200, np.uint8)
    canvas, scale = letterbox(image, (640, 368))
    assert canvas.shape == (368, 640, 3)
    assert round(w * scale) <= 640 and round(h * scale) <= 368
    assert round(w * scale) == 640 or round(h * scale) == 368
    assert canvas[0, 0, 0] == 200 and (canvas[-1, -1, 0] == 0 or (round(w * scale), round(h * scale)) == (640, 368))


def test_peaks_are_local_maxima_above_the_threshold() -> None:
    logits = np.full((20, 30), -5.0, np.float32)
    logits[3, 4], logits[3, 5] = 3.0, 2.0  # one peak with a weaker neighbour
    logits[15, 25] = -0.5  # below a 0.5 threshold
    heat, ys, xs = peaks(logits, 0.5)
    assert list(zip(ys, xs, strict=True)) == [(3, 4)]
    assert heat.shape == logits.shape and heat.min() > 0 and heat.max() < 1
