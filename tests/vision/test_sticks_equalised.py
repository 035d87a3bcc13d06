"""The stick reader's look at a flat frame equalised locally: dark sticks on a dark top that the network
does not mark even brightened."""

import pytest

from models.synth.degrade import Degradation, degrade
from models.synth.sticks import StickSceneSpec, render_stick_scene
from vision.locator import flat_gain
from vision.sticks import StickRecognizer
from vision.sticks import recognize as recognize_module

# Black and camouflaged sticks on the held-out glossy black top (seeds 7400000..; the card is i % 55 + 1) that
# the equalised look alone reads with the network shipped in the seventy-fourth session: of 60 such frames of
# black sticks and 58 of camouflaged ones, all flat, all were read with the look and these three not without it.
# The evaluation's frames this test held before (1000, 1275, 1289) are read without it now, or not at all.
DARK_FRAMES = ((3, "camouflage"), (3, "black"), (7, "black"))


def read_right(recognizer: StickRecognizer, scenes: list, images: list) -> int:
    return sum(any(p.card == s.card for p in recognizer(image)[1]) for s, image in zip(scenes, images, strict=True))


@pytest.fixture(scope="module")
def recognizer() -> StickRecognizer:
    return StickRecognizer()


def test_dark_sticks_on_a_dark_top_are_read_equalised(recognizer: StickRecognizer, monkeypatch) -> None:
    scenes = [
        render_stick_scene(
            7_400_000 + i,
            StickSceneSpec(split="heldout", kind="lattice", card=i % 55 + 1, table="glossy_black", material=material),
        )
        for i, material in DARK_FRAMES
    ]
    images = [s.image for s in scenes]
    assert all(flat_gain(image) > 1.0 for image in images)
    assert read_right(recognizer, scenes, images) == len(DARK_FRAMES)
    # The brighter look at a frame with no sure stick (sixtieth session) may read such frames too: the equalised
    # look's own gain is measured without it.
    brighter = recognize_module._worth_a_brighter_look
    monkeypatch.setattr(recognize_module, "_worth_a_brighter_look", lambda polysticks, _: brighter(polysticks, False))
    assert read_right(recognizer, scenes, images) == len(DARK_FRAMES)
    monkeypatch.setattr(recognize_module, "flat_gain", lambda image: 1.0)  # no frame is flat: no such look
    assert read_right(recognizer, scenes, images) <= len(DARK_FRAMES) - 2


def test_dim_frames_read_no_worse(recognizer: StickRecognizer, monkeypatch) -> None:
    """Thirty held-out layouts on three tops, dimmed (`--degrade dim`): every frame is flat, and the look
    takes only the cards it reads (27 against 26 when written)."""
    tables = ("glossy_black", "birch", "marble")
    scenes = [
        render_stick_scene(7_100_000 + i, StickSceneSpec(split="heldout", card=i % 55 + 1, table=tables[i % 3]))
        for i in range(30)
    ]
    images = [degrade(s.image, Degradation.dim, i) for i, s in enumerate(scenes)]
    equalised = read_right(recognizer, scenes, images)
    monkeypatch.setattr(recognize_module, "flat_gain", lambda image: 1.0)
    assert equalised >= read_right(recognizer, scenes, images)
