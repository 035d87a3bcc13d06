"""The card evaluation's portrait frames (`tableref evaluate cards --portrait`)."""

import numpy as np

from models.evaluate import PORTRAIT_SIZE, evaluate_cards
from vision.cards.recognize import Card


class _Looker:
    """A recogniser that records the frames it is given and reads nothing."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []
        self.classifier = None

    def __call__(self, image: np.ndarray) -> list[Card]:
        self.shapes.append(image.shape)
        return []


def test_portrait_scenes_are_rendered_upright_and_the_rest_as_before() -> None:
    upright, level = _Looker(), _Looker()
    seeds = range(20_000_000, 20_000_004)
    for seed in seeds:
        evaluate_cards(1, seed, upright, quiet=True, portrait=True)
        evaluate_cards(1, seed, level, quiet=True)
    width, height = PORTRAIT_SIZE
    assert upright.shapes == [(height, width, 3)] * len(seeds)
    assert level.shapes == [(720, 1280, 3)] * len(seeds)
