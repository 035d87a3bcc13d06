"""Portrait frames get the card locator trained on them (vision.cards.centres.PORTRAIT_MODEL_PATH)."""

from dataclasses import replace

import numpy as np
import pytest

from models.synth.scenes import PORTRAIT_SIZE, render_scene
from models.train_cards import training_spec
from tests.vision.peaks import peaked_cards
from vision.cards.centres import PORTRAIT_MODEL_PATH, CardLocator
from vision.cards.recognize import CardRecognizer


@pytest.mark.parametrize("size", [(1280, 720), PORTRAIT_SIZE])
def test_each_frame_is_located_by_the_locator_for_its_shape(size: tuple[int, int], monkeypatch) -> None:
    recognizer = CardRecognizer()
    reads: list[str] = []
    for name in ("locator", "portrait_locator"):
        locator = getattr(recognizer, name)

        def counted(image: np.ndarray, name: str = name, read=locator.read):
            reads.append(name)
            return read(image)

        monkeypatch.setattr(locator, "read", counted)
    seed = 96_000_000
    recognizer(render_scene(seed, replace(training_spec(seed, split="heldout"), size=size)).image)
    expected = "portrait_locator" if size[1] > size[0] else "locator"
    assert reads and set(reads) == {expected}


def test_the_portrait_locator_puts_peaks_on_most_cards_of_held_out_portrait_frames() -> None:
    """It once put peaks on more cards than the landscape locator (268 against 259 of 307). Since the landscape
    one learnt touching lines it puts them on 272, yet reads the portrait sets worse as their first look (1040
    and 1090 cards with 11 false detections, against 1033 and 1100 with 6: models/digit_cards.md), so the
    portrait locator stays, held here to what it does."""
    portrait = CardLocator(PORTRAIT_MODEL_PATH)
    peaked = total = 0
    for seed in range(96_000_000, 96_000_040):  # tuned on no such seeds
        scene = render_scene(seed, replace(training_spec(seed, split="heldout"), size=PORTRAIT_SIZE))
        cards = [c.corners for c in scene.cards]
        peaked += peaked_cards(portrait, scene.image, cards)
        total += len(cards)
    # Measured: 268 of 307.
    assert total >= 250 and peaked >= 0.83 * total, (peaked, total)
