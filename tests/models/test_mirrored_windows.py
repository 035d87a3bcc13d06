"""Mirrored training windows: a window's targets, mirrored, are the targets of its objects mirrored, for every
locator's maps."""

from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models.locator_training import mirror_signs, mirrored_window
from vision.cards import centres
from vision.dominoes import locate as tiles
from vision.dominoes.locate import TileFrame
from vision.sticks import locate as sticks


class Odds:
    """Stands for the window's random draws: mirrored left-right (`lr`) and top-bottom (`tb`) as told."""

    def __init__(self, lr: bool, tb: bool) -> None:
        self.draws = [0.0 if lr else 1.0, 0.0 if tb else 1.0]

    def random(self) -> float:
        return self.draws.pop(0)


def _stick_targets(points: np.ndarray) -> tuple[np.ndarray, ...]:
    return sticks.encode_targets(list(points.reshape(-1, 2, 2)))


def _card_targets(points: np.ndarray) -> tuple[np.ndarray, ...]:
    return centres.encode_targets(list(points.reshape(-1, 4, 2)))


def _tile_targets(points: np.ndarray) -> tuple[np.ndarray, ...]:
    quads = points.reshape(-1, 4, 2)
    return tiles.encode_targets([TileFrame(*centres.half_axes(q)) for q in quads])


# (encoder, points per object, input size, regressed maps' names)
LOCATORS: dict[str, tuple[Callable, int, tuple[int, int], tuple[str, ...]]] = {
    "sticks": (_stick_targets, 2, sticks.INPUT_SIZE, sticks.CHANNELS[2:]),
    "cards": (_card_targets, 4, centres.INPUT_SIZE, centres.CHANNELS[1:]),
    "dominoes": (_tile_targets, 4, tiles.INPUT_SIZE, tiles.CHANNELS[1:]),
}


def _objects(seed: int, per_object: int, size: tuple[int, int]) -> np.ndarray:
    """A few objects: a centre, a length and a turn each, their points about that centre."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 7))
    turns = np.linspace(0, 2 * np.pi, per_object, endpoint=False) + np.pi / per_object
    objects = []
    for _ in range(count):
        centre = rng.uniform((40, 40), (size[0] - 40, size[1] - 40))
        angle, length = rng.uniform(0, np.pi), rng.uniform(12, 35)
        stretch = np.array([1.0, rng.uniform(0.5, 1.0)])
        local = np.stack([np.cos(turns), np.sin(turns)], axis=1) * stretch * length
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        objects.append(centre + local @ turn.T)
    return np.array(objects)


@settings(max_examples=60, deadline=None)
@given(
    locator=st.sampled_from(sorted(LOCATORS)),
    seed=st.integers(0, 10**6),
    lr=st.booleans(),
    tb=st.booleans(),
)
def test_mirrored_targets_are_the_mirrored_objects_targets(locator: str, seed: int, lr: bool, tb: bool) -> None:
    encode, per_object, (width, height), regressed = LOCATORS[locator]
    objects = _objects(seed, per_object, (width, height))
    heat, reg, weight = encode(objects)
    image = np.random.default_rng(seed).integers(0, 255, (height, width, 3), dtype=np.uint8)

    got_image, got_heat, got_reg, got_weight = mirrored_window(
        (image, heat, reg, weight), mirror_signs(regressed), Odds(lr, tb)
    )

    mirrored = objects.copy()
    if lr:
        mirrored[..., 0] = width - 1 - mirrored[..., 0]
        image = image[:, ::-1]
    if tb:
        mirrored[..., 1] = height - 1 - mirrored[..., 1]
        image = image[::-1]
    want_heat, want_reg, want_weight = encode(mirrored)
    assert np.array_equal(got_image, image)
    np.testing.assert_allclose(got_heat, want_heat, atol=1e-5)
    np.testing.assert_array_equal(got_weight, want_weight)
    np.testing.assert_allclose(got_reg * want_weight, want_reg * want_weight, atol=1e-4)


def test_offsets_and_sines_turn_over_and_the_rest_stand() -> None:
    signs = mirror_signs(sticks.CHANNELS[2:])  # dx, dy, half_cos, half_sin, end_dx, end_dy
    assert signs.tolist() == [[-1, 1, 1, -1, -1, 1], [1, -1, 1, -1, 1, -1]]
