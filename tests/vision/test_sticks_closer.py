"""The stick reader's closer look at a frame with no card read: which cards it takes, and what it reads on
rendered layouts of small sticks on busy held-out tables (where its window goes: tests/vision/test_locator.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.sticks.recognize as recognize
from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.sticks import Edge
from tests.vision.small_sticks import SMALL_STICKS, marble_layout
from vision.sticks import Polystick, Stick
from vision.sticks.lattice import covered_shares
from vision.sticks.recognize import StickRecognizer, _could_be_a_layout, _keeps, read_stick_by_stick

BUSY_TABLES = ("checkered", "marble")  # held-out tables, where the locator marks small sticks faintly


class WithoutCloserLook(StickRecognizer):
    """The reader with every other look it takes, but not the closer one."""

    def _closer(self, image, readings, sticks, polysticks, homography, ignore, locator):
        return sticks, polysticks


@pytest.fixture(scope="module")
def readers() -> tuple[StickRecognizer, StickRecognizer]:
    reader = StickRecognizer()
    return reader, WithoutCloserLook(reader.locator)


def _scenes(kind: str, n: int) -> list:
    scenes = []
    for i in range(n):
        spec = StickSceneSpec(
            split="heldout",
            kind=kind,
            card=i % 55 + 1 if kind == "lattice" else None,
            stick_px=SMALL_STICKS,
            table=BUSY_TABLES[i % 2],
        )
        try:
            scenes.append(render_stick_scene(7_200_000 + i, spec))
        except RuntimeError:  # a broken layout that would not fit the frame
            continue
    return scenes


@pytest.mark.slow
def test_small_layouts_on_busy_tables_are_read_closer(readers: tuple[StickRecognizer, StickRecognizer]) -> None:
    """80 held-out layouts of small sticks on checks and veined stone: 70 read right with the closer look,
    64 without, none lost (when written)."""
    with_look, without = readers
    scenes = _scenes("lattice", 80)
    closer = [any(p.card == s.card for p in with_look(s.image)[1]) for s in scenes]
    first = [any(p.card == s.card for p in without(s.image)[1]) for s in scenes]
    assert sum(closer) >= sum(first) + 3
    assert sum(closer) >= 0.8 * len(scenes)
    assert sum(f and not c for c, f in zip(closer, first, strict=True)) <= 1


@pytest.mark.slow
def test_layouts_read_with_no_sure_stick_are_read_closer(
    readers: tuple[StickRecognizer, StickRecognizer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small layouts on veined stone that the first look reads with no sure stick, only faint ones: 7 of 9 read
    right with the closer look, none without (when written). The brighter look at a frame with no sure stick
    (sixtieth session) reads 3 of the 6 selected since on its own, 4 with the closer look as before; the closer
    look's own gain is measured without it. The network of the seventy-fourth session reads more of these
    sticks surely: 2 frames of the first 100 are left to select, 10 of 250 (6 read closer, none without)."""
    brighter = recognize._worth_a_brighter_look
    monkeypatch.setattr(recognize, "_worth_a_brighter_look", lambda polysticks, _: brighter(polysticks, False))
    with_look, without = readers
    scenes = []
    for i in range(0, 500, 2):
        scene = marble_layout(i)
        readings = with_look.locator.read(scene.image)
        if not readings.sure and _could_be_a_layout(readings.faint, scene.image.shape[1::-1]):
            scenes.append(scene)
    assert len(scenes) >= 6
    closer = sum(any(p.card == s.card for p in with_look(s.image)[1]) for s in scenes)
    first = sum(any(p.card == s.card for p in without(s.image)[1]) for s in scenes)
    assert closer >= first + 0.5 * len(scenes)


@pytest.mark.slow
def test_the_closer_look_seldom_makes_a_broken_layout_a_card(readers: tuple[StickRecognizer, StickRecognizer]) -> None:
    """Broken layouts of small sticks on the same tables: a card read there is a wrong verdict (4 of 40 with
    the closer look, 4 without, when written)."""
    with_look, without = readers
    scenes = _scenes("illegal", 40)
    assert len(scenes) >= 30
    closer = sum(any(p.card is not None for p in with_look(s.image)[1]) for s in scenes)
    first = sum(any(p.card is not None for p in without(s.image)[1]) for s in scenes)
    assert closer <= first + 1


def test_two_faint_readings_that_touch_are_worth_a_closer_look() -> None:
    """Where no stick is read surely, two faint readings apart that touch could be a layout: its sticks in line
    read as one long reading (card 32 on held-out marble, evaluation frame 40196). Two apart that do not touch (a
    vein and the frame's edge on the stick-free close-up sample), one reading, two along one stick, or readings
    running off the frame, are not; three apart are, touching or not."""
    size = (1280, 720)

    def faint(*segments: tuple[float, float, float, float]) -> list[tuple[float, np.ndarray]]:
        return [(0.2, np.array([[x0, y0], [x1, y1]], np.float64)) for x0, y0, x1, y1 in segments]

    assert _could_be_a_layout(faint((499, 448, 580, 410), (458, 403, 499, 448)), size)  # end to end
    assert _could_be_a_layout(faint((499, 448, 580, 410), (458, 403, 505, 455)), size)  # ends 9 px apart
    assert _could_be_a_layout(faint((540, 429, 560, 370), (499, 448, 580, 410)), size)  # an end on the other's middle
    assert not _could_be_a_layout(faint((499, 448, 580, 410), (420, 320, 445, 365)), size)  # 95 px apart
    assert not _could_be_a_layout(faint((1261, 617, 1276, 510), (1065, 88, 1109, 157)), size)
    assert not _could_be_a_layout(faint((500, 450, 580, 410)), size)
    assert not _could_be_a_layout(faint((500, 450, 580, 410), (502, 449, 578, 411)), size)  # one stick twice
    assert not _could_be_a_layout(faint((499, 448, 580, 410), (499, 448, 420, 900)), size)  # off the frame
    assert _could_be_a_layout(faint((100, 100, 160, 100), (400, 400, 460, 400), (700, 200, 700, 260)), size)


def _card_read(scores: list[float], card: int | None = 7) -> bool:
    sticks = [Stick(np.array([[0.0, 10.0 * i], [50.0, 10.0 * i]]), score) for i, score in enumerate(scores)]
    edges = tuple(Edge((i, 0), (i + 1, 0)) for i in range(len(scores)))
    return read_stick_by_stick(Polystick(tuple(range(len(scores))), edges, True, True, card), sticks)


def test_a_card_seen_closer_counts_only_read_stick_by_stick_and_mostly_sure() -> None:
    assert _card_read([0.9, 0.8, 0.7, 0.6, 0.5])
    assert _card_read([0.9, 0.8, 0.7, 0.2, 0.1])  # three sure of five
    assert not _card_read([0.9, 0.8, 0.25, 0.2, 0.1])  # two sure: faint sticks make the card
    assert _card_read([0.9, 0.8, 0.7, 0.6, 0.6])  # one reading cut in two
    assert not _card_read([0.9, 0.9, 0.9, 0.6, 0.6])  # two runs cut into five pieces
    assert not _card_read([0.9, 0.8, 0.7, 0.6, 0.5], card=None)


@pytest.mark.slow
def test_a_look_from_twice_as_close_makes_no_crossed_layout_a_card(
    readers: tuple[StickRecognizer, StickRecognizer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Broken layouts with a stick across another's middle: read from twice as close, the crossing stick may be
    read as two half sticks that make a card, unless that look must keep the sure readings (`_keeps`). Of the
    crossed layouts among these 60 broken ones, 1 is read as a card with the half window and 1 without it;
    with the half window but not the rule, 2 (on the 110 broken layouts of the held-out set from seed 1000:
    2, 2 and 5), when written."""
    reader, _ = readers
    scenes = []
    for i in range(60):
        try:
            scene = render_stick_scene(7_600_000 + i, StickSceneSpec(split="heldout", kind="illegal"))
        except RuntimeError:  # a broken layout that would not fit the frame
            continue
        if scene.kind == "illegal:crossing":
            scenes.append(scene)
    assert len(scenes) >= 15
    half = sum(any(p.card is not None for p in reader(s.image)[1]) for s in scenes)
    monkeypatch.setattr(recognize, "CLOSER_SHARES", recognize.CLOSER_SHARES[:1])
    three_quarters = sum(any(p.card is not None for p in reader(s.image)[1]) for s in scenes)
    assert half <= three_quarters


segments = st.lists(st.floats(0, 400), min_size=4, max_size=4).map(lambda xs: np.array(xs).reshape(2, 2))
long_segments = segments.filter(lambda e: np.linalg.norm(e[1] - e[0]) > 30)
WINDOW = (0, 0, 400, 400)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(long_segments, min_size=1, max_size=6))
def test_a_closer_look_keeps_the_sure_readings_it_reads_again_whole_or_cut(sure: list[np.ndarray]) -> None:
    whole = [Stick(e, 0.9) for e in sure]
    halves = [Stick(np.array([e[0], e.mean(axis=0)]), 0.9) for e in sure] + [
        Stick(np.array([e.mean(axis=0), e[1]]), 0.9) for e in sure
    ]
    assert _keeps(whole, sure, WINDOW)
    assert _keeps(halves, sure, WINDOW)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(long_segments, min_size=2, max_size=6), st.data())
def test_a_closer_look_that_loses_a_sure_reading_in_its_window_does_not_keep_them(
    sure: list[np.ndarray], data: st.DataObject
) -> None:
    lost = data.draw(st.integers(0, len(sure) - 1))
    others = [e for i, e in enumerate(sure) if i != lost]
    # A lost reading goes unnoticed only where it lies mostly along the others.
    shares = covered_shares(np.array([sure[lost]]), np.array(others))
    kept = [Stick(e, 0.9) for e in others]
    assert _keeps(kept, sure, WINDOW) == (shares[0] >= recognize.COVERED)
    far = [np.asarray(e) + 1000.0 for e in sure]  # centres outside the window: nothing there to keep
    assert _keeps([], far, WINDOW)
