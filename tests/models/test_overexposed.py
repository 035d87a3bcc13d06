"""Overexposed training windows, as the locators' training adds them: the light raised and cut off at white."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models.training import EXPOSURE_GAINS, overexposed


def ramps(n: int) -> np.ndarray:
    return np.broadcast_to(np.arange(256, dtype=np.uint8)[None, None, :, None], (n, 4, 256, 3)).copy()


@settings(max_examples=20, deadline=None)
@given(st.floats(0.1, 0.9), st.integers(0, 2**32 - 1))
def test_a_share_of_the_images_is_overexposed_and_the_rest_left_alone(share: float, seed: int) -> None:
    images = ramps(600)
    out = overexposed(images, np.random.default_rng(seed), share)
    changed = (out != images).reshape(len(images), -1).any(axis=1)
    assert abs(changed.mean() - share) < 0.1
    np.testing.assert_array_equal(images, ramps(600))  # the input is not touched
    for image in out[changed]:
        ramp = image[0, :, 0].astype(float)
        gain = ramp[100] / 100
        assert EXPOSURE_GAINS[0] - 0.01 <= gain <= EXPOSURE_GAINS[1] + 0.01
        assert np.all(np.diff(ramp) >= 0)  # the order of light and dark is kept
        assert ramp[int(255 / gain) + 3 :].min() == 255  # the light end is white
