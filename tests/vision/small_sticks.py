"""Held-out layouts of small light sticks on veined stone, which the stick locator marks faintly: the scenes
that the tests of the closer and the brighter looks read."""

from models.synth.sticks import StickScene, StickSceneSpec, render_stick_scene

SMALL_STICKS = (55.0, 75.0)  # px at the picture's centre, of 1280x720; the evaluation's run 60-150


def marble_layout(i: int) -> StickScene:
    """The i-th such layout: card i % 55 + 1, seed 7300000 + i."""
    spec = StickSceneSpec(split="heldout", kind="lattice", card=i % 55 + 1, stick_px=SMALL_STICKS, table="marble")
    return render_stick_scene(7_300_000 + i, spec)
