"""Crops as the reading networks take them (vision/crops.py)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from vision.crops import to_tensor


@given(st.integers(1, 5), st.integers(1, 20), st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_each_crop_is_standardised_on_its_own_and_channels_first(n: int, h: int, w: int, seed: int) -> None:
    crops = np.random.default_rng(seed).integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    x = to_tensor(crops)
    assert x.shape == (n, 3, h, w) and x.dtype == np.float32 and x.flags["C_CONTIGUOUS"]
    for crop, out in zip(crops.astype(np.float64), x, strict=True):
        expected = (crop - crop.mean()) / (crop.std() + 8.0)
        assert np.allclose(out, expected.transpose(2, 0, 1), atol=1e-4)


def test_a_float_batch_given_is_left_as_it_was() -> None:
    crops = np.random.default_rng(1).uniform(0, 255, (4, 8, 6, 3)).astype(np.float32)
    before = crops.copy()
    to_tensor(crops)
    assert np.array_equal(crops, before)


@given(st.integers(1, 40), st.integers(0, 2**32 - 1), st.booleans())
def test_the_standardisation_is_numpys_to_the_last_bit(n: int, seed: int, flat: bool) -> None:
    """The spread comes from the differences already taken, summed as `np.std` sums them: the classifier's
    crops read exactly as with `np.std` (models/digit_cards.md, sixty-first session)."""
    crops = np.random.default_rng(seed).integers(0, 256, (n, 64, 48, 3), dtype=np.uint8)
    if flat:
        crops[:] = crops[:, :1, :1]
    x = crops.astype(np.float32)
    expected = (x - x.mean(axis=(1, 2, 3), keepdims=True)) / (x.std(axis=(1, 2, 3), keepdims=True) + 8.0)
    assert np.array_equal(to_tensor(crops), expected.transpose(0, 3, 1, 2))
