"""The locator networks' shared decoding (vision/locator.py): letterboxing, grid cells, doubled angles, and
where a closer look goes."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.samples import SAMPLES
from vision.cards.centres import INPUT_SIZE, CardLocator
from vision.locator import (
    CLOSER,
    FLAT_SPREAD,
    INPUT_SCALE,
    KEPT_INPUTS,
    MAX_GAIN,
    cell_of,
    closer_window,
    doubled,
    flat_gain,
    letterbox,
    peaks,
    pixel_of,
    quantized_levels,
    reading_canvas,
    reading_scale,
    to_input,
    undoubled,
)

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


@given(st.integers(1, 3), st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_input_written_in_place_is_the_input(n: int, h: int, w: int, seed: int) -> None:
    canvases = np.random.default_rng(seed).integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    fresh = to_input(canvases)
    x = canvases.astype(np.float32)
    x -= x.mean(axis=(1, 2, 3), keepdims=True)
    assert fresh.shape == (n, 3, h, w) and fresh.flags["C_CONTIGUOUS"]
    assert np.allclose(fresh, (x / INPUT_SCALE).transpose(0, 3, 1, 2), atol=1e-5)
    reused = np.full((n, 3, h, w), np.nan, np.float32)
    assert to_input(canvases, reused) is reused
    assert np.array_equal(reused, fresh)


def test_a_network_reading_frames_of_several_shapes_answers_each_as_a_fresh_one() -> None:
    rng = np.random.default_rng(3)
    network = CardLocator()  # exported for any input size, as its closer look needs
    shapes = [(368, 640), (272, 480), (368, 640), (96, 160), (64, 64), (128, 96), (368, 640)]
    for h, w in shapes:
        canvas = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        expected = network.session.run(None, {network.input_name: to_input(canvas[None], lift_flat=True)})[0][0]
        assert np.array_equal(network.maps(canvas), expected)
    assert len(network._inputs) <= KEPT_INPUTS


def test_the_frame_keeps_its_input_array_while_windows_of_new_sizes_come_and_go() -> None:
    """A window of a new size each frame (the stick reader's brighter look) replaces the array least recently
    used, never the frame's own, which is read every frame."""
    network = CardLocator()
    frame = np.zeros((368, 640, 3), np.uint8)
    network.maps(frame)
    kept = network._inputs[frame.shape]
    for k in range(3 * KEPT_INPUTS):
        network.maps(np.zeros((64 + 16 * k, 96, 3), np.uint8))
        network.maps(frame)
    assert network._inputs[frame.shape] is kept and len(network._inputs) == KEPT_INPUTS


@given(st.integers(0, 255), st.integers(0, 80), st.integers(0, 2**32 - 1))
def test_a_flat_frame_is_read_with_its_gain_raised_and_no_other(level: int, reach: int, seed: int) -> None:
    """Frames of every spread: under FLAT_SPREAD the input is stretched to that spread (at most MAX_GAIN
    times); any other frame is read exactly as training reads it."""
    rng = np.random.default_rng(seed)
    canvas = np.clip(level + rng.integers(-reach, reach + 1, (24, 32, 3)), 0, 255).astype(np.uint8)
    plain, lifted = to_input(canvas[None]), to_input(canvas[None], lift_flat=True)
    spread = float(canvas.astype(np.float64).std())
    gain = flat_gain(canvas)
    assert 1.0 <= gain <= MAX_GAIN
    if spread >= FLAT_SPREAD:
        assert gain == 1.0 and np.array_equal(lifted, plain)
    else:
        assert gain == pytest.approx(min(FLAT_SPREAD / max(spread, 1e-3), MAX_GAIN), rel=1e-4)
        assert np.allclose(lifted, plain * gain, atol=1e-5)
        assert float(lifted.std()) * INPUT_SCALE == pytest.approx(
            min(FLAT_SPREAD, spread * MAX_GAIN), rel=1e-3, abs=1e-3
        )


def test_only_the_card_locator_reads_a_flat_frame_at_a_raised_gain() -> None:
    """The tile and stick locators lost as much as they gained from it (vision/cards/centres.py says how)."""
    from vision.dominoes.locate import TileLocator
    from vision.sticks.locate import StickLocator

    rng = np.random.default_rng(5)
    dim = np.clip(40 + rng.normal(0, 6, (368, 640, 3)), 0, 255).astype(np.uint8)  # the tile and stick input
    assert flat_gain(dim) > 1
    for network, lifted in ((CardLocator(), True), (TileLocator(), False), (StickLocator(), False)):
        wanted = network.session.run(None, {network.input_name: to_input(dim[None], lift_flat=lifted)})[0][0]
        assert np.array_equal(network.maps(dim), wanted)


@settings(max_examples=60)
@given(
    st.integers(0, 255),
    st.integers(0, 120),
    st.booleans(),
    st.sampled_from([(1 / 64, 101), (0.0173, 128), (1 / 32, 0)]),
    st.integers(0, 2**32 - 1),
)
def test_quantized_levels_are_the_input_quantized(
    level: int, reach: int, lift_flat: bool, quantization: tuple[float, int], seed: int
) -> None:
    """An 8-bit network that takes its frames quantized (models/quantize.py) reads what it read before:
    `to_input`'s values quantized as onnxruntime's QuantizeLinear does (round(x / scale) + zero point, saturated),
    flat frames and any scale included."""
    scale, zero_point = quantization
    rng = np.random.default_rng(seed)
    canvas = np.clip(level + rng.integers(-reach, reach + 1, (24, 40, 3)), 0, 255).astype(np.uint8)
    x = to_input(canvas[None], lift_flat=lift_flat)[0].transpose(1, 2, 0)
    expected = np.clip(np.rint(x / np.float32(scale)) + zero_point, 0, 255).astype(np.uint8)
    out = np.empty_like(canvas)
    assert quantized_levels(canvas, scale, zero_point, lift_flat, out) is out
    assert np.array_equal(out, expected)


def test_the_8_bit_card_locator_takes_its_frames_quantized() -> None:
    """Its input is the quantized frame as it lies in memory (uint8, NHWC), built by table lookup."""
    from vision.cards.centres import MODEL_PATH
    from vision.onnx_session import quantized

    network = CardLocator(quantized(MODEL_PATH))
    assert network.levels is not None and network.session.get_inputs()[0].type == "tensor(uint8)"
    canvas = np.random.default_rng(4).integers(0, 256, (96, 160, 3), dtype=np.uint8)
    levels = quantized_levels(canvas, *network.levels, lift_flat=True)
    assert np.array_equal(network.maps(canvas), network.session.run(None, {network.input_name: levels[None]})[0][0])
    # It reads the 12-card sample as the float network does, up to 8 bits' rounding: each map correlates at
    # 0.99 or more (0.994-0.999 when written; the frame in RGB order 0.96-0.98, in the float input's layout
    # under 0.3).
    float_network = CardLocator()
    assert float_network.levels is None  # the float one reads floats
    frame, _ = letterbox(cv2.imread(str(SAMPLES / "table-12-cards.jpg")), INPUT_SIZE)
    eight, full = network.maps(frame), float_network.maps(frame)
    assert all(np.corrcoef(a.ravel(), b.ravel())[0, 1] >= 0.99 for a, b in zip(eight, full, strict=True))


sizes = st.tuples(st.integers(320, 1920), st.integers(240, 1080))


def _cluster(rng: np.random.Generator, centre: np.ndarray, radius: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` points within `radius` of `centre`, and a score for each."""
    angles, r = rng.uniform(0, 2 * np.pi, n), radius * np.sqrt(rng.uniform(size=n))
    return centre + r[:, None] * np.column_stack([np.cos(angles), np.sin(angles)]), rng.uniform(0.1, 1.0, n)


def _holds(window: tuple[int, int, int, int], points: np.ndarray) -> bool:
    x0, y0, w, h = window
    return bool(np.all((points >= [x0, y0]) & (points <= [x0 + w, y0 + h])))


@settings(max_examples=200, deadline=None)
@given(size=sizes, seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12), share=st.sampled_from((CLOSER, 0.5)))
def test_the_closer_window_lies_in_the_frame_and_holds_a_group_whole(
    size: tuple[int, int], seed: int, n: int, share: float
) -> None:
    rng = np.random.default_rng(seed)
    w, h = round(size[0] * share), round(size[1] * share)
    radius = min(w, h) / 5  # a group well under the window's size
    points, scores = _cluster(rng, rng.uniform([radius, radius], [size[0] - radius, size[1] - radius]), radius, n)
    window = closer_window(points, scores, size, share)
    assert window is not None
    x0, y0, ww, wh = window
    assert (ww, wh) == (w, h)
    assert 0 <= x0 <= size[0] - w and 0 <= y0 <= size[1] - h
    assert _holds(window, points)


@settings(max_examples=200, deadline=None)
@given(size=sizes, seed=st.integers(0, 2**32 - 1), left_heavier=st.booleans())
def test_of_two_groups_at_opposite_ends_the_closer_window_takes_the_surer(
    size: tuple[int, int], seed: int, left_heavier: bool
) -> None:
    rng = np.random.default_rng(seed)
    radius = 0.02 * min(size)
    left = _cluster(rng, np.array([0.08 * size[0], size[1] / 2]), radius, 3)
    right = _cluster(rng, np.array([0.92 * size[0], size[1] / 2]), radius, 3)
    (heavy, heavy_scores), (light, light_scores) = (left, right) if left_heavier else (right, left)
    heavy_scores = heavy_scores + 1.0  # every point surer than any of the other group's
    window = closer_window(np.concatenate([heavy, light]), np.concatenate([heavy_scores, light_scores]), size)
    assert window is not None
    assert _holds(window, heavy)
    assert not _holds(window, light)


@settings(max_examples=200, deadline=None)
@given(
    points=st.lists(st.tuples(st.floats(-400, 1700), st.floats(-400, 1100)), min_size=2, max_size=8),
    scores=st.lists(st.floats(0.05, 1.0), min_size=8, max_size=8),
)
def test_a_closer_window_lies_in_the_frame_and_holds_a_point_or_there_is_none(points, scores) -> None:
    """Proposals may lie past the frame's edge: the window still lies in the frame and holds one of them, or
    there is no window (none lies in the frame)."""
    points = np.array(points)
    window = closer_window(points, np.array(scores[: len(points)]), (1280, 720))
    in_frame = np.all((points >= 0) & (points < [1280, 720]), axis=1)
    if window is None:
        assert not in_frame.any()
        return
    x0, y0, w, h = window
    assert 0 <= x0 <= 1280 - w and 0 <= y0 <= 720 - h
    assert np.all((points >= [x0, y0]) & (points < [x0 + w, y0 + h]), axis=1).any()


def test_fewer_than_two_points_give_no_closer_window() -> None:
    assert closer_window(np.zeros((0, 2)), np.zeros(0), (1280, 720)) is None
    assert closer_window(np.array([[100.0, 100.0]]), np.array([0.9]), (1280, 720)) is None


@settings(deadline=None, max_examples=200)
@given(st.integers(200, 4032), st.floats(0.3, 1.0), st.sampled_from([(480, 272), (640, 368)]))
def test_a_frame_is_read_whole_at_the_scale_of_its_width(width: int, shape: float, size: tuple[int, int]) -> None:
    """A landscape frame of any shape is scaled to the network's width (to the nearest pixel of its height) on a
    canvas as tall as it needs (a multiple of 16, the input's height at least): a 4:3 photo is not shrunk to fit
    a 16:9 canvas. A frame that comes to the input's height or less gets the letterbox the networks trained on,
    pixel for pixel: every 16:9 or wider frame, and windows cut to the input's shape."""
    height = max(1, round(width * shape))
    frame = np.random.default_rng(width).integers(0, 256, (height, width, 3), dtype=np.uint8)
    canvas, scale = reading_canvas(frame, size)
    assert scale == reading_scale(width, height, size)
    assert abs(scale * width - size[0]) <= 1 and abs(scale * height - height * size[0] / width) <= 0.5 + 1e-9
    assert canvas.shape[1] == size[0] and canvas.shape[0] % 16 == 0
    assert size[1] <= canvas.shape[0] < max(size[1], height * scale) + 16
    if round(height * size[0] / width) <= size[1]:
        boxed, boxed_scale = letterbox(frame, size)
        assert boxed_scale == scale and np.array_equal(boxed, canvas)
