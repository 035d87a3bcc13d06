"""Frames made worse for the evaluations' `--degrade` option: each kind does what it says, and only that."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.degrade import BRIGHT_LIGHT, DIM_LIGHT, WARM_GAINS, Degradation, degrade, worsened
from models.synth.scenes import render_scene
from models.train_cards import training_spec


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return render_scene(20_000_000, training_spec(20_000_000, split="heldout")).image


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


def test_blur_smears_the_frame_along_a_seeded_direction(frame: np.ndarray) -> None:
    one, other = degrade(frame, Degradation.blur, 1), degrade(frame, Degradation.blur, 2)
    assert sharpness(one) < 0.5 * sharpness(frame)
    assert not np.array_equal(one, other)


def test_soft_blurs_the_same_way_whatever_the_seed(frame: np.ndarray) -> None:
    soft = degrade(frame, Degradation.soft, 1)
    assert sharpness(soft) < 0.5 * sharpness(frame)
    np.testing.assert_array_equal(soft, degrade(frame, Degradation.soft, 2))


def test_only_frames_made_worse_are_named_in_a_title() -> None:
    assert worsened(Degradation.none) == ""
    assert all(how.value in worsened(how) for how in Degradation if how != Degradation.none)
