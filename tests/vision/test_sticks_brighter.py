"""The stick reader's second look at a brighter exposure: when it is taken, and what it reads on held-out
renders of dark glossy tops and light stone, where the network marks sticks weakly."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.evaluate_sticks import StickScore, scene_spec, score_scene
from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.sticks import Edge
from vision.sticks import Polystick, StickRecognizer
from vision.sticks import recognize as recognize_module
from vision.sticks.recognize import _worth_a_brighter_look


def group(size: int, card: int | None) -> Polystick:
    """A row of `size` sticks end to end, labelled with `card` (the reader's decision is not remade here)."""
    return Polystick(tuple(range(size)), tuple(Edge((i, 0), (i + 1, 0)) for i in range(size)), True, True, card)


@given(st.lists(st.tuples(st.integers(1, 9), st.booleans()), max_size=5), st.booleans())
def test_a_brighter_look_only_where_a_layout_is_short(groups: list[tuple[int, bool]], marked: bool) -> None:
    polysticks = [group(5, 7) if is_card else group(size, None) for size, is_card in groups]
    short = any(size < 5 and not is_card for size, is_card in groups)
    broken = any(size >= 5 and not is_card for size, is_card in groups)
    nothing_read_but_marked = not groups and marked
    assert _worth_a_brighter_look(polysticks, marked) == ((short and not broken) or nothing_read_but_marked)


def read_right(seeds: range, tables: tuple[str, ...], kind: str = "lattice") -> StickScore:
    total = StickScore()
    reader = StickRecognizer()
    for i, seed in enumerate(seeds):
        card = seed % 55 + 1 if kind == "lattice" else None
        spec = StickSceneSpec(split="heldout", kind=kind, card=card, table=tables[i % len(tables)])
        scene = render_stick_scene(seed, spec)
        score_scene(total, scene, *reader(scene.image))
    return total


HARD_TABLES = ("glossy_black", "marble")
# A stretch of `tableref evaluate sticks`'s lattice frames (seed 1000): the look's gains there are all on the
# marble (11 layouts of the 330, 5 of them in this stretch, with the locator of the twenty-first session).
EVALUATION_FRAMES = range(1200, 1290)


def test_brighter_look_reads_more_layouts_on_stone(monkeypatch: pytest.MonkeyPatch) -> None:
    scenes = [render_stick_scene(seed, scene_spec(seed - 1000, "heldout", 330)) for seed in EVALUATION_FRAMES]
    marble = [scene for scene in scenes if scene.table == "marble"]
    reader = StickRecognizer()
    # The closer look reads some of the same layouts after it: the brighter look's own gain is measured alone.
    monkeypatch.setattr(
        StickRecognizer, "_closer", lambda self, image, readings, sticks, polysticks, *_: (sticks, polysticks)
    )

    def layouts_read() -> int:
        return sum(any(p.card == scene.card for p in reader(scene.image)[1]) for scene in marble)

    both = layouts_read()
    monkeypatch.setattr(recognize_module, "_worth_a_brighter_look", lambda *_: False)
    assert both >= layouts_read() + 3, len(marble)


def test_brighter_look_leaves_broken_layouts_broken(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = range(83_100_000, 83_100_020)
    both = read_right(seeds, HARD_TABLES, "illegal")
    monkeypatch.setattr(recognize_module, "_worth_a_brighter_look", lambda *_: False)
    first = read_right(seeds, HARD_TABLES, "illegal")
    assert both.illegal_flagged >= first.illegal_flagged, (both.summary(), first.summary())


def test_a_layout_marked_only_faintly_is_read_brighter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Light sticks on the held-out light stone (`tableref evaluate sticks --seed 20000`, its 322nd layout): the
    network marks one faint peak and no sure stick; brightened, it reads all five as their card."""
    scene = render_stick_scene(20_321, scene_spec(321, "heldout", 330))
    reader = StickRecognizer()
    assert [p.card for p in reader(scene.image)[1]] == [scene.card]
    # As before: a frame with no stick read is not looked at again, faint peaks or not.
    monkeypatch.setattr(recognize_module, "_worth_a_brighter_look", lambda p, _: _worth_a_brighter_look(p, False))
    assert not any(p.card for p in reader(scene.image)[1])
