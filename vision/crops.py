"""Crops as the reading networks take them (the card classifier, the corner network, the pip readers)."""

from __future__ import annotations

import numpy as np


def to_tensor(crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """uint8 BGR crops (N, H, W, 3) -> float32 (N, 3, H, W), each crop standardised on its own.

    Per-crop standardisation takes out the exposure and colour of the light, which the models then need not
    learn. In place where it can be: a search's hundreds of crops made each fresh array cost more to map
    than to fill.
    """
    x = np.array(crops, dtype=np.float32)  # a copy always: it is changed in place below
    x -= x.mean(axis=(1, 2, 3), keepdims=True)
    # The standard deviation from the differences already taken, summed as `np.std` sums them (so to the last
    # bit its value), without its second mean and second subtraction.
    std = np.sqrt(np.square(x).sum(axis=(1, 2, 3), keepdims=True) / np.float32(x[0].size if len(x) else 1))
    x /= std + 8.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
