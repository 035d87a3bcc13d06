"""The table reading: which recognisers run, what a calibration hands them, and how their readings give way."""

from functools import cache

import cv2
import numpy as np
import pytest

from calibration.homography import TableHomography
from calibration.topdown import TopDownView
from models.evaluate import scene_spec as card_scene_spec
from models.evaluate_dominoes import evaluation_spec
from models.evaluate_sticks import StickScore, score_scene
from models.evaluate_sticks import scene_spec as stick_scene_spec
from models.synth.dominoes import render_dominoes
from models.synth.scenes import render_scene
from models.synth.sticks import render_stick_scene
from rules.sticks import Edge
from vision.cards.artwork import CardFace
from vision.cards.recognize import SURE, Card
from vision.dominoes.detection import Domino, Half
from vision.sticks import StickRecognizer
from vision.sticks.detections import Polystick, Stick
from vision.sticks.rims import outside_outlines
from vision.table import TableReader, TableReading, _may_be_sticks


class RecordingSticks:
    """Stands in for the stick recogniser and keeps what it was given."""

    def __init__(self) -> None:
        self.homographies: list[np.ndarray | None] = []

    def timed(self, image: np.ndarray, homography: np.ndarray | None = None, ignore=()) -> tuple:
        self.homographies.append(homography)
        return [], [], {"bars_ms": 0.0}

    def first_look(self, image: np.ndarray, homography: np.ndarray | None = None) -> tuple:
        return [], []


def test_only_the_kinds_asked_for_are_loaded_and_read() -> None:
    reader = TableReader(("sticks",))
    assert reader.cards is None and reader.dominoes is None
    reader.sticks = RecordingSticks()
    reading = reader.read(np.zeros((120, 160, 3), np.uint8))
    assert reading.cards == [] and reading.dominoes == []
    assert set(reading.timings) == {"sticks_bars_ms"}


def test_unknown_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="marbles"):
        TableReader(("cards", "marbles"))


@pytest.mark.parametrize(("height", "width"), [(3, 9000), (9000, 3), (1, 20000), (2, 2)])
def test_a_picture_a_few_pixels_across_is_an_empty_table(height: int, width: int) -> None:
    """A strip the card locator would shrink to no pixel at all across (a sliver cut from a photo)."""
    noise = np.random.default_rng(height * width).integers(0, 256, (height, width, 3), dtype=np.uint8)
    reading = TableReader().read(noise)
    assert (reading.cards, reading.dominoes, reading.sticks) == ([], [], [])


def test_with_a_calibration_sticks_snap_in_table_millimetres() -> None:
    reader = TableReader(("sticks",))
    reader.sticks = RecordingSticks()
    matrix = np.array([[0.5, 0.02, -10], [0.01, 0.6, -20], [0.0, 0.0001, 1.0]])
    table = TableHomography(matrix, (160, 120), (0, 1, 2, 3), 0.1)
    frame = np.zeros((120, 160, 3), np.uint8)
    reader.read(frame)
    reader.read(frame, topdown=TopDownView(table))
    without, with_calibration = reader.sticks.homographies
    assert without is None
    assert np.array_equal(with_calibration, matrix)


class FixedCards:
    def __init__(self, cards: list) -> None:
        self.cards = cards

    def timed(self, image: np.ndarray) -> tuple:
        return list(self.cards), {}


class FixedDominoes:
    """Reads its tiles, except those whose centre lies in an ignored outline."""

    def __init__(self, tiles: list) -> None:
        self.tiles = tiles

    def timed(self, image: np.ndarray, ignore=()) -> tuple:
        return [t for t in self.tiles if not any(_inside(t.center, q) for q in ignore)], {}


def _inside(point: np.ndarray, quad: np.ndarray) -> bool:
    return cv2.pointPolygonTest(np.asarray(quad, np.float32), tuple(map(float, point)), False) >= 0


def _square(x: float, y: float, half: float) -> np.ndarray:
    return np.array(
        [[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]], np.float32
    )


def _tile(x: float, y: float) -> Domino:
    corners = np.array([[x - 10, y - 20], [x + 10, y - 20], [x + 10, y + 20], [x - 10, y + 20]], np.float32)
    return Domino(corners, (Half((x, y - 10), 3), Half((x, y + 10), 5)), 0.95)


@pytest.mark.parametrize("confidence", [0.55, SURE])
def test_a_tile_read_inside_an_unsure_card_wins_and_a_sure_card_hides_it(confidence: float) -> None:
    reader = TableReader(("sticks",))
    reader.sticks = RecordingSticks()
    card = Card(CardFace("starter", (3,)), _square(100, 100, 40), confidence)
    elsewhere = Card(CardFace("digit", (1,)), _square(300, 100, 40), 0.6)
    reader.cards, reader.dominoes = FixedCards([card, elsewhere]), FixedDominoes([_tile(100, 100)])
    reading = reader.read(np.zeros((240, 400, 3), np.uint8))
    if confidence >= SURE:
        assert reading.cards == [card, elsewhere] and reading.dominoes == []
    else:  # the tile is read and the card over it goes; the unsure card with no tile in it stays
        assert reading.cards == [elsewhere] and len(reading.dominoes) == 1


@cache
def whole_table() -> TableReader:
    return TableReader()


def test_a_stick_layout_read_with_every_kind_is_not_hidden_by_a_tile_or_card_of_its_sticks() -> None:
    """Sticks round a lattice cell or two read as a blank tile, and a layout's strokes as an unsure card; the
    stick reader was told to ignore what lay under them, and 48 of 330 held-out layouts were lost when every
    kind was read (2 with the sticks alone). One held-out layout of each card: every kind read loses at most one
    that the stick reader alone reads (none when written: 53 of 55 either way, the two lost a camouflaged row
    on black glass and a layout half in a glare)."""
    sticks_alone = StickRecognizer()
    right = hidden = 0
    for index in range(0, 330, 6):
        scene = render_stick_scene(1000 + index, stick_scene_spec(index, "heldout", 330))
        reading = whole_table().read(scene.image)
        read = score_scene(StickScore(), scene, reading.sticks, reading.polysticks)
        right += read
        hidden += not read and score_scene(StickScore(), scene, *sticks_alone(scene.image))
    assert hidden <= 1
    assert right >= 52


def test_tile_rims_are_not_read_as_sticks() -> None:
    """A tile's side face and the gap between two tiles lie just outside the outlines read, which the stick
    reader ignored only under their centres: 18-19 sticks were read on these 12 held-out tile frames (the
    last bit of OpenCV's resampling differs with its threads), 2-3 since readings along an outline's rim are
    dropped (`along_rims`)."""
    sticks = sum(
        len(whole_table().read(render_dominoes(50000000 + index, evaluation_spec(index, 50000000)[1]).image).sticks)
        for index in range(24, 36)
    )
    assert sticks <= 5


def test_cards_and_tiles_are_not_taken_for_sticks(monkeypatch) -> None:
    """Tile edges and a card's printed frame can be read as a card of sticks: a tile with pips and a card read
    surely stand all the same (held-out frames where they were taken back by a rule without those tests: two
    5|0 tiles on checks, 50000020, and a close-up 7 in a frame, 20000053)."""
    reader = whole_table()
    looked, taken = [], []
    check = TableReader._objects_made_of_sticks

    def counted(self: TableReader, image: np.ndarray, homography: np.ndarray | None, reading: TableReading) -> None:
        before = len(reading.cards) + len(reading.dominoes)
        looked.append(any(_may_be_sticks(o) for o in reading.cards + reading.dominoes))
        check(self, image, homography, reading)
        taken.append(before - len(reading.cards) - len(reading.dominoes))

    monkeypatch.setattr(TableReader, "_objects_made_of_sticks", counted)
    for index in range(16, 24):
        reader.read(render_dominoes(50000000 + index, evaluation_spec(index, 50000000)[1]).image)
    for seed in range(20000050, 20000058):
        reader.read(render_scene(seed, card_scene_spec(seed)).image)
    assert sum(looked) >= 8  # frames whose objects were doubted and read again for sticks
    assert sum(taken) == 0


class ScriptedSticks:
    """Stands in for the stick recogniser: five sticks in a row across the frame (card 1) at sure peaks of their
    own; a reading that ignores outlines loses the sticks whose centre lies in one, and with them the card."""

    def __init__(self, first_look_sure: bool = True) -> None:
        self.sticks = [Stick(np.array([[40.0 + 60 * i, 100], [95.0 + 60 * i, 100]]), 0.9 - 0.01 * i) for i in range(5)]
        # A first look that reads the row faintly, all five at one weak peak, does not read it stick by stick.
        self.first = self.sticks if first_look_sure else [Stick(s.ends, 0.2) for s in self.sticks]
        self.calls: list[tuple[str, np.ndarray | None, list[np.ndarray]]] = []

    def timed(self, image: np.ndarray, homography: np.ndarray | None = None, ignore=()) -> tuple:
        self.calls.append(("timed", homography, [np.asarray(q) for q in ignore]))
        # Hidden as the reader hides its readings: under an outline to ignore, or along its rim.
        outside = {
            id(ends) for _, ends in outside_outlines([(s.confidence, s.ends) for s in self.sticks], list(ignore))
        }
        kept = [s for s in self.sticks if id(s.ends) in outside]
        return kept, self._grouped(kept), {}

    def first_look(self, image: np.ndarray, homography: np.ndarray | None = None) -> tuple:
        self.calls.append(("first_look", homography, []))
        return list(self.first), self._grouped(self.first)

    @staticmethod
    def _grouped(sticks: list[Stick]) -> list[Polystick]:
        edges = tuple(Edge.parse(f"{i},0h") for i in range(len(sticks)))
        return (
            [Polystick(tuple(range(len(sticks))), edges, True, True, 1 if len(sticks) == 5 else None)] if sticks else []
        )


def test_only_doubtful_objects_over_a_layout_read_stick_by_stick_are_taken_back() -> None:
    """An unsure card and a blank tile over the layout's sticks go; a sure card, a tile with pips over a stick
    and a blank tile away from the sticks stay. The sticks are read last without the objects kept."""
    reader = TableReader(("sticks",))
    reader.sticks = ScriptedSticks()
    unsure = Card(CardFace("digit", (7,)), _square(67, 100, 20), 0.6)
    sure = Card(CardFace("digit", (8,)), _square(127, 100, 20), 0.97)
    blank = Domino(_square(187, 100, 20), (Half((187, 90), 0), Half((187, 110), 0)), 0.9)
    with_pips = Domino(_square(247, 100, 20), (Half((247, 90), 3), Half((247, 110), 5)), 0.95)
    blank_away = Domino(_square(300, 200, 20), (Half((300, 190), 0), Half((300, 210), 1)), 0.9)
    reader.cards, reader.dominoes = FixedCards([unsure, sure]), FixedDominoes([blank, with_pips, blank_away])
    reading = reader.read(np.zeros((240, 400, 3), np.uint8))
    assert reading.cards == [sure] and reading.dominoes == [with_pips, blank_away]
    assert [kind for kind, _, _ in reader.sticks.calls] == ["timed", "first_look", "timed"]
    last_ignored = reader.sticks.calls[-1][2]
    assert [q.tolist() for q in last_ignored] == [o.corners.tolist() for o in (sure, with_pips, blank_away)]
    assert len(reading.sticks) == 3  # the two under the sure card and the tile with pips stay hidden


def _scripted_table(first_look_sure: bool, tiles: list[Domino]) -> TableReader:
    reader = TableReader(("sticks",))
    reader.sticks = ScriptedSticks(first_look_sure)
    reader.cards, reader.dominoes = (
        FixedCards([Card(CardFace("digit", (7,)), _square(67, 100, 20), 0.6)]),
        FixedDominoes(tiles),
    )
    return reader


def test_a_layout_the_first_look_reads_faintly_is_read_in_full_with_only_sure_objects_ignored() -> None:
    """The first look reads the row under the unsure card and the blank tile, but not stick by stick: the full
    reader then reads it with only the tile with pips ignored, and its card takes both back. The tile with pips
    lies off the row, so that reading is the one without the objects kept and is not read again."""
    with_pips = Domino(_square(300, 200, 20), (Half((300, 190), 3), Half((300, 210), 5)), 0.95)
    blank = Domino(_square(187, 100, 20), (Half((187, 90), 0), Half((187, 110), 0)), 0.9)
    reader = _scripted_table(False, [blank, with_pips])
    reading = reader.read(np.zeros((240, 400, 3), np.uint8))
    assert reading.cards == [] and reading.dominoes == [with_pips]
    assert [kind for kind, _, _ in reader.sticks.calls] == ["timed", "first_look", "timed"]
    assert [q.tolist() for q in reader.sticks.calls[-1][2]] == [with_pips.corners.tolist()]
    assert len(reading.sticks) == 5 and reading.polysticks[0].card == 1


def test_a_doubtful_object_the_full_read_does_not_find_sticks_under_stays_and_is_ignored() -> None:
    """A blank tile away from the row is doubtful too, but the card the full reader reads has no stick under it:
    the unsure card over the row goes, the tile stays, and the sticks are read again with it ignored."""
    blank_away = Domino(_square(300, 200, 20), (Half((300, 190), 0), Half((300, 210), 1)), 0.9)
    reader = _scripted_table(False, [blank_away])
    reading = reader.read(np.zeros((240, 400, 3), np.uint8))
    assert reading.cards == [] and reading.dominoes == [blank_away]
    assert [kind for kind, _, _ in reader.sticks.calls] == ["timed", "first_look", "timed", "timed"]
    assert [q.tolist() for q in reader.sticks.calls[-1][2]] == [blank_away.corners.tolist()]


def test_the_full_read_is_spent_only_where_the_first_look_reads_a_stick_under_a_doubtful_object() -> None:
    """An unsure card with no stick of the first look under it, as most blank tiles and unsure cards on tile and
    card frames, costs no full read."""
    reader = _scripted_table(False, [])
    reader.sticks.first = reader.sticks.first[3:]  # the two sticks right of the card, none under it
    reading = reader.read(np.zeros((240, 400, 3), np.uint8))
    assert len(reading.cards) == 1
    assert [kind for kind, _, _ in reader.sticks.calls] == ["timed", "first_look"]


def test_an_unsure_card_whose_rim_runs_along_a_stick_of_a_layout_is_taken_back() -> None:
    """The stick reader also drops a reading along an ignored outline's rim: an unsure card beside the row, its
    edge along the second stick but holding no stick's centre, hides that stick, and is taken back."""
    reader = TableReader(("sticks",))
    reader.sticks = ScriptedSticks()
    beside = Card(CardFace("digit", (7,)), _square(127, 70, 20), 0.6)
    reader.cards, reader.dominoes = FixedCards([beside]), FixedDominoes([])
    reading = reader.read(np.zeros((240, 400, 3), np.uint8))
    assert reading.cards == []
    assert len(reading.sticks) == 5 and reading.polysticks[0].card == 1


# Held-out lattice layouts (`tableref evaluate sticks` seeds of the sets 1000.., 20000.. and 40000..) that the
# stick reader alone reads, over which every kind read finds a blank tile (sticks on the glossy black top) or an
# unsure card (on marble) whose sticks the first look reads too faintly to take it back, or (40069) an unsure
# card whose rim runs along a stick.
FAINTLY_HIDDEN = (1199, 1275, 20071, 20165, 20257, 40069, 40096, 40220, 40236, 40257)


def test_layouts_under_a_doubtful_object_that_the_first_look_reads_faintly_are_not_hidden(monkeypatch) -> None:
    """All ten were lost with every kind read while only the first look could take the object back, and only
    from over the centres of its sticks."""
    taken = []
    check = TableReader._objects_made_of_sticks

    def counted(self: TableReader, image: np.ndarray, homography: np.ndarray | None, reading: TableReading) -> None:
        before = len(reading.cards) + len(reading.dominoes)
        check(self, image, homography, reading)
        taken.append(before > len(reading.cards) + len(reading.dominoes))

    monkeypatch.setattr(TableReader, "_objects_made_of_sticks", counted)
    right = 0
    for seed in FAINTLY_HIDDEN:
        base = 1000 if seed < 20000 else seed // 20000 * 20000
        scene = render_stick_scene(seed, stick_scene_spec(seed - base, "heldout", 330))
        reading = whole_table().read(scene.image)
        right += score_scene(StickScore(), scene, reading.sticks, reading.polysticks)
    assert right >= 9
    # The readers trained on a dotted cloth (hundred-and-eighth session) read no tile over two of them, and those
    # that learnt notes written on (hundred-and-fourteenth) over four: 5 of the other 6 are taken back.
    assert sum(taken) >= 5
