"""Frames made worse for the evaluations' `--degrade` option: each kind does what it says, and only that."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.degrade import (
    BRIGHT_LIGHT,
    DIM_LIGHT,
    PALM_MM,
    WARM_GAINS,
    Degradation,
    degrade,
    moved,
    px_per_mm,
    worsened,
)
from models.synth.scenes import Scene, render_scene
from models.train_cards import training_spec


@pytest.fixture(scope="module")
def scene() -> Scene:
    return render_scene(20_000_000, training_spec(20_000_000, split="heldout"))


@pytest.fixture(scope="module")
def frame(scene: Scene) -> np.ndarray:
    return scene.image


def sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(list(Degradation)), st.integers(0, 2**31))
def test_each_kind_is_a_pure_function_of_the_frame_and_the_seed(frame: np.ndarray, how: Degradation, seed: int) -> None:
    once, again = degrade(frame, how, seed), degrade(frame, how, seed)
    assert once.shape == frame.shape and once.dtype == np.uint8
    np.testing.assert_array_equal(once, again)


def test_none_leaves_the_frame_as_it_was(frame: np.ndarray) -> None:
    assert degrade(frame, Degradation.none, 1) is frame


def test_jpeg_loses_detail_but_keeps_the_picture(frame: np.ndarray) -> None:
    worse = degrade(frame, Degradation.jpeg, 1)
    assert not np.array_equal(worse, frame)
    assert cv2.PSNR(worse, frame) > 25
    assert abs(float(worse.mean()) - float(frame.mean())) < 2


def test_dim_cuts_the_light_and_adds_noise(frame: np.ndarray) -> None:
    worse = degrade(frame, Degradation.dim, 1)
    assert float(worse.mean()) == pytest.approx(DIM_LIGHT * float(frame.mean()), rel=0.05)
    flat = np.full_like(frame, 128)
    assert degrade(flat, Degradation.dim, 1).std() > 3  # noise where there was none


def test_bright_raises_the_light_and_loses_the_highlights(frame: np.ndarray) -> None:
    worse = degrade(frame, Degradation.bright, 1)
    dark = frame < 255 / BRIGHT_LIGHT - 1
    np.testing.assert_allclose(worse[dark], BRIGHT_LIGHT * frame[dark].astype(float), atol=1)
    assert (worse[~dark] >= 254).all()  # what was light is white now
    assert (worse == 255).mean() > (frame == 255).mean()


def test_warm_tints_each_channel_by_its_gain(frame: np.ndarray) -> None:
    worse = degrade(frame, Degradation.warm, 1).astype(float)
    for channel, gain in enumerate(WARM_GAINS):
        unclipped = frame[..., channel] * gain < 254
        np.testing.assert_allclose(worse[..., channel][unclipped], gain * frame[..., channel][unclipped], atol=1)
    blue, _, red = worse.reshape(-1, 3).mean(axis=0)
    assert red > 1.5 * blue * frame[..., 0].mean() / frame[..., 2].mean()  # redder than it was


def test_grey_keeps_each_pixels_luminance_and_loses_its_colour(frame: np.ndarray) -> None:
    worse = degrade(frame, Degradation.grey, 1).astype(int)
    assert (worse == worse[..., :1]).all()  # the three channels alike
    luminance = frame.astype(float) @ [0.114, 0.587, 0.299]  # BGR, ITU-R BT.601 as OpenCV weighs them
    np.testing.assert_allclose(worse[..., 0], luminance, atol=1)
    assert frame.astype(int).std(axis=-1).mean() > 3  # the render had colour to lose


def test_blur_smears_the_frame_along_a_seeded_direction(frame: np.ndarray) -> None:
    one, other = degrade(frame, Degradation.blur, 1), degrade(frame, Degradation.blur, 2)
    assert sharpness(one) < 0.5 * sharpness(frame)
    assert not np.array_equal(one, other)


def test_soft_blurs_the_same_way_whatever_the_seed(frame: np.ndarray) -> None:
    soft = degrade(frame, Degradation.soft, 1)
    assert sharpness(soft) < 0.5 * sharpness(frame)
    np.testing.assert_array_equal(soft, degrade(frame, Degradation.soft, 2))


@settings(max_examples=25, deadline=None)
@given(st.floats(120, 1160), st.floats(60, 660))
def test_barrel_moves_a_point_of_the_render_where_moved_says(x: float, y: float) -> None:
    """A bright spot drawn at (x, y) turns up, once the frame is bent, where `moved` puts (x, y). (Nearer the
    frame's sides the mirrored band past the render shows a second copy of it.)"""
    spot = np.zeros((720, 1280, 3), np.uint8)
    cv2.circle(spot, (round(x * 16), round(y * 16)), 5 * 16, (255, 255, 255), -1, cv2.LINE_AA, shift=4)
    bent = degrade(spot, Degradation.barrel, 1)[..., 0].astype(np.float64)
    ys, xs = np.mgrid[: bent.shape[0], : bent.shape[1]]
    seen = np.array([(xs * bent).sum(), (ys * bent).sum()]) / bent.sum()
    np.testing.assert_allclose(seen, moved(np.array([[x, y]]), Degradation.barrel, (1280, 720))[0], atol=0.3)


def test_barrel_bows_straight_edges_and_squeezes_the_border_inwards() -> None:
    size = (1280, 720)
    # A straight edge along the top: its ends are pulled in further than its middle, so it bows outwards.
    left, middle, right = moved(np.array([[100.0, 100.0], [640.0, 100.0], [1180.0, 100.0]]), Degradation.barrel, size)
    assert middle[1] < (left[1] + right[1]) / 2 - 10
    assert left[0] > 100 and right[0] < 1180  # towards the middle
    # Past the render's edges the lens sees on: the frame there carries the render's colours on, not black.
    frame = np.full((720, 1280, 3), 200, np.uint8)
    frame[:, 640:] = 100
    bent = degrade(frame, Degradation.barrel, 1).astype(int)
    assert (np.abs(bent[:, :560] - 200) <= 6).all() and (np.abs(bent[:, 720:] - 100) <= 6).all()


def test_turned_moves_a_pixel_where_moved_says_and_back_again() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[20, 10] = 255
    turned = degrade(frame, Degradation.turned, 1)
    x, y = moved(np.array([[10.0, 20.0]]), Degradation.turned, (1280, 720))[0]
    assert turned[round(y), round(x)].all() and turned.sum() == frame.sum()
    np.testing.assert_array_equal(degrade(turned, Degradation.turned, 2), frame)


def test_only_the_lens_and_the_turn_move_things() -> None:
    points = np.array([[10.0, 20.0], [640.0, 360.0]])
    movers = (Degradation.barrel, Degradation.turned)
    assert all(moved(points, how, (1280, 720)) is points for how in Degradation if how not in movers)
    centre = moved(np.array([[639.5, 359.5]]), Degradation.barrel, (1280, 720))
    np.testing.assert_allclose(centre, [[639.5, 359.5]], atol=1e-6)  # the lens's axis stays put


def test_only_frames_made_worse_are_named_in_a_title() -> None:
    assert worsened(Degradation.none) == ""
    assert all(how.value in worsened(how) for how in Degradation if how != Degradation.none)


def test_px_per_mm_is_the_median_longest_side_over_its_length() -> None:
    square = np.array([[0, 0], [30, 0], [30, 30], [0, 30]], float)
    stick = np.array([[0, 0], [0, 50]], float)
    assert px_per_mm([square, stick, 2 * square], 10) == pytest.approx(5)
    assert px_per_mm([], 10) is None


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**31))
def test_hand_reaches_in_without_covering_anything_on_the_table(scene: Scene, seed: int) -> None:
    """Inside the cards' outlines the frame is at most darkened (the hand's shadow); elsewhere a hand's worth
    of pixels takes the skin's colour."""
    cards = [c.corners for c in scene.cards]
    scale = px_per_mm(cards, 88)
    worse = degrade(scene.image, Degradation.hand, seed, cards, scale).astype(int)
    under = np.zeros(scene.image.shape[:2], np.uint8)
    for corners in cards:
        cv2.fillConvexPoly(under, np.round(corners).astype(np.int32), 1)
    change = worse - scene.image.astype(int)
    assert (change[under > 0] <= 12).all()
    painted = (np.abs(change).max(axis=2) > 40) & (under == 0)
    assert painted.sum() > 0.3 * (PALM_MM[0] * scale) ** 2


def test_hand_grows_with_the_tables_scale_and_stays_out_when_there_is_no_room(frame: np.ndarray) -> None:
    def painted(scale: float, seed: int) -> int:
        return int(
            (np.abs(degrade(frame, Degradation.hand, seed, (), scale).astype(int) - frame).max(axis=2) > 40).sum()
        )

    small, large = (np.median([painted(scale, seed) for seed in range(5)]) for scale in (0.8, 1.6))
    assert 2 < large / small < 6  # about four times the area, less what runs off the frame
    whole = np.array([[0, 0], [1279, 0], [1279, 719], [0, 719]], float)
    np.testing.assert_array_equal(degrade(frame, Degradation.hand, 1, [whole], 1.0), frame)


def test_phone_sharpens_edges_lifts_local_contrast_and_darkens_the_corners(frame: np.ndarray) -> None:
    worse = degrade(frame, Degradation.phone, 1)
    assert sharpness(worse) > 1.5 * sharpness(frame)  # the halos of the sharpening
    h, w = frame.shape[:2]
    corner = (slice(0, h // 8), slice(0, w // 8))
    middle = (slice(3 * h // 8, 5 * h // 8), slice(3 * w // 8, 5 * w // 8))
    kept = [float(worse[part].mean()) / float(frame[part].mean()) for part in (corner, middle)]
    assert kept[0] < 0.95 * kept[1]
    grey = [cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)[middle].astype(float) for image in (frame, worse)]
    local = [np.abs(g - cv2.blur(g, (31, 31))).mean() for g in grey]  # detail over a few dozen pixels
    assert local[1] > 1.2 * local[0]
