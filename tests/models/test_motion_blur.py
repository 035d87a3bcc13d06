"""The moving camera's blur, as the renders draw it and as the domino networks' training adds it."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models.synth.degrade import motion_kernel
from models.training import motion_blurred

LENGTHS = st.sampled_from((3, 5, 7, 9, 11))


@given(LENGTHS, st.floats(0, 180))
def test_the_kernel_keeps_the_light_and_runs_through_its_centre(length: int, degrees: float) -> None:
    kernel = motion_kernel(length, degrees)
    assert kernel.shape == (length, length)
    assert abs(kernel.sum() - 1) < 0.15  # turned by a bilinear warp in fixed point: up to an eighth off
    np.testing.assert_allclose(kernel, kernel[::-1, ::-1], atol=0.02)  # a line through the centre


@given(LENGTHS)
def test_the_kernel_lies_along_its_angle(length: int) -> None:
    middle = length // 2
    level, upright = motion_kernel(length, 0.0), motion_kernel(length, 90.0)
    assert abs(level[middle].sum() - 1) < 1e-5 and abs(upright[:, middle].sum() - 1) < 1e-5


def dots(n: int) -> np.ndarray:
    images = np.zeros((n, 32, 32, 3), np.uint8)
    images[:, 16, 16] = 255
    return images


@settings(max_examples=20, deadline=None)
@given(st.floats(0.1, 0.9), st.integers(0, 2**32 - 1))
def test_a_share_of_the_images_is_blurred_and_the_rest_left_alone(share: float, seed: int) -> None:
    images = dots(600)
    out = motion_blurred(images, np.random.default_rng(seed), share, (5, 7))
    changed = (out != images).reshape(len(images), -1).any(axis=1)
    assert abs(changed.mean() - share) < 0.1
    assert (images[:, 16, 16] == 255).all()  # the input is not touched
    # A blurred dot is a line as long as the kernel: no pixel of it is further than 3 from the dot.
    lit = np.argwhere(out[changed, :, :, 0] > 0)[:, 1:]
    assert len(lit) and np.abs(lit - 16).max() <= 3
