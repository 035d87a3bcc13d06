"""Everything read from one picture of the table: the `tableref recognize --json` contract."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.profile import CalibrationProfile
from calibration.topdown import TopDownView, read_cards
from vision.cards.recognize import SURE, Card, CardRecognizer
from vision.dominoes import Domino, DominoRecognizer
from vision.geometry import points_in_quads
from vision.sharpen import FocusGauge
from vision.sticks import StickRecognizer
from vision.sticks.detections import Stick
from vision.sticks.recognize import read_stick_by_stick
from vision.sticks.rims import along_rims, under_outlines


@dataclass
class TableReading:
    source: str
    width: int
    height: int
    cards: list[Card] = field(default_factory=list)
    dominoes: list[Any] = field(default_factory=list)
    sticks: list[Any] = field(default_factory=list)
    polysticks: list[Any] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self, profile: CalibrationProfile | None = None) -> dict:
        """The contract's object; with a calibration profile every object also gets `table_mm` and `zone`."""
        found = {
            "cards": [c.to_json() for c in self.cards],
            "dominoes": [d.to_json() for d in self.dominoes],
            "sticks": [s.to_json() for s in self.sticks],
        }
        if profile:
            for objects in found.values():
                place_on_table(objects, profile)
        return {
            "source": self.source,
            "width": self.width,
            "height": self.height,
            **found,
            "polysticks": [p.to_json() for p in self.polysticks],
        }


def place_on_table(objects: list[dict], profile: CalibrationProfile) -> None:
    """Add `table_mm` (and `ends_mm` for sticks) and the `zone` of each object's centre, in place."""
    for obj in objects:
        center = obj["center"] if "center" in obj else np.mean(obj["ends"], axis=0)
        ((mm, zone),) = profile.place(np.array([center], dtype=float))
        obj["table_mm"] = [round(v, 1) for v in mm]
        obj["zone"] = zone.name if zone else None
        if "ends" in obj:
            obj["ends_mm"] = [[round(v, 1) for v in p] for p, _ in profile.place(np.array(obj["ends"], dtype=float))]


KINDS = ("cards", "dominoes", "sticks")


class TableReader:
    """The recognisers for the kinds of object asked for, loaded once. Each one's `timed(image)` gives what
    it found and its stage timings. A game reads only its own kinds: each recogniser costs time on every
    frame, and one that looks for what is not there can only invent it."""

    def __init__(self, kinds: tuple[str, ...] = KINDS) -> None:
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown kind {sorted(unknown)[0]!r}; choose from {', '.join(KINDS)}")
        self.focus = FocusGauge()  # shared, so a frame is measured and sharpened once for all three readers
        self.cards = CardRecognizer(focus=self.focus) if "cards" in kinds else None
        self.dominoes = DominoRecognizer(focus=self.focus) if "dominoes" in kinds else None
        self.sticks = StickRecognizer(focus=self.focus) if "sticks" in kinds else None

    def read(self, image: np.ndarray, source: str = "", topdown: TopDownView | None = None) -> TableReading:
        """With a `topdown` view of the calibrated mat, cards are also read from above (more are found)."""
        with self.focus.one_frame():
            return self._read(image, source, topdown)

    def _read(self, image: np.ndarray, source: str, topdown: TopDownView | None) -> TableReading:
        h, w = image.shape[:2]
        reading = TableReading(source, w, h)
        if self.cards:
            reading.cards, cards_ms = self.cards.timed(image)
            if topdown is not None:
                start = time.perf_counter()
                reading.cards = read_cards(self.cards, image, topdown, raw=reading.cards)
                cards_ms["topdown_ms"] = (time.perf_counter() - start) * 1000
            reading.timings.update({f"cards_{stage}": ms for stage, ms in cards_ms.items()})
        if self.dominoes:
            # A card read surely hides what lies under it. An unsure one gives way to a tile read whose
            # centre lies inside it: a dark tile's pips can pass for the Starter's dot, and the card would hide it.
            sure = [card.corners for card in reading.cards if card.confidence >= SURE]
            reading.dominoes, dominoes_ms = self.dominoes.timed(image, ignore=sure)
            tiles = np.array([domino.center for domino in reading.dominoes]).reshape(-1, 2)
            reading.cards = [
                card
                for card in reading.cards
                if card.confidence >= SURE or not points_in_quads(tiles, [card.corners]).any()
            ]
            reading.timings.update(dominoes_ms)
        if self.sticks:
            # Card and tile edges, print and a domino's middle line make straight bars: sticks are not read there.
            ignore = _outlines(reading)
            # With a calibration the lattice is snapped in table millimetres; a lens model would bend the
            # plain 3x3 map the stick reader takes, so then it finds its own plane from the sticks.
            table = topdown.table if topdown is not None else None
            homography = table.matrix if table is not None and table.lens is None else None
            reading.sticks, reading.polysticks, sticks_ms = self.sticks.timed(image, homography, ignore=ignore)
            if ignore:
                start = time.perf_counter()
                self._objects_made_of_sticks(image, homography, reading)
                sticks_ms["objects_ms"] = (time.perf_counter() - start) * 1000
            reading.timings.update({f"sticks_{stage}": ms for stage, ms in sticks_ms.items()})
        return reading

    def _objects_made_of_sticks(self, image: np.ndarray, homography: np.ndarray | None, reading: TableReading) -> None:
        """Take back, in place, the cards and tiles that are a stick layout's own. Sticks round a lattice cell
        or two read as a blank tile, and sticks in a digit's strokes as an unsure card; the sticks under them
        were then not read, and the layout was lost (48 of 330 held-out layouts with every kind read, against 2
        with the sticks alone). Where such an object is read (`_may_be_sticks`):
        - the frame's sticks are read again with nothing ignored, by the first look alone (where tile edges are
          read as sticks, the looks a frame read in doubt take cost seconds), and such an object that hides a
          stick of a card read stick by stick that the first reading lacks is taken back;
        - where that look reads no such card but does read a stick under such an object, the full stick reader
          reads the frame with only the other objects ignored, and each card it reads takes back the doubtful
          objects that hide its sticks: sticks the first look reads faintly, on a glossy black top or on marble
          (11 of 990 held-out layouts were lost so). The gate keeps the cost off tile and card frames, where
          such objects are common and no stick is read under them (179 of 186 held-out frames).
        The sticks are then read again in full without the objects taken back."""
        assert self.sticks is not None
        read = reading.cards + reading.dominoes
        outlines = [o.corners for o in read]
        doubtful = np.array([_may_be_sticks(o) for o in read], bool)
        if not doubtful.any():
            return
        known = {p.card for p in reading.polysticks}
        sticks, polysticks = self.sticks.first_look(image, homography)
        found = [p for p in polysticks if p.card not in known and read_stick_by_stick(p, sticks)]
        made = doubtful & _hiding([sticks[i] for p in found for i in p.sticks], outlines)
        full = None
        if not made.any() and _holding(sticks, outlines)[doubtful].any():
            kept = [o for o, d in zip(outlines, doubtful, strict=True) if not d]
            full = self.sticks.timed(image, homography, ignore=kept)
            sticks, polysticks, _ = full
            found = [p for p in polysticks if p.card is not None and p.card not in known]
            made = doubtful & _hiding([sticks[i] for p in found for i in p.sticks], outlines)
        if not made.any():
            return
        n_cards = len(reading.cards)
        reading.cards = [c for c, m in zip(reading.cards, made[:n_cards], strict=True) if not m]
        reading.dominoes = [d for d, m in zip(reading.dominoes, made[n_cards:], strict=True) if not m]
        if full is None or (doubtful & ~made).any():
            # Unless the full reading ignored exactly the objects kept, read without them.
            full = self.sticks.timed(image, homography, ignore=_outlines(reading))
        reading.sticks, reading.polysticks, _ = full


def _holding(sticks: list[Stick], outlines: list[np.ndarray]) -> np.ndarray:
    """holding[j]: outline j (grown as the stick reader grows what it ignores) holds a stick's centre."""
    centres = np.array([stick.center for stick in sticks]).reshape(-1, 2)
    return under_outlines(centres, outlines).any(axis=0)


def _hiding(sticks: list[Stick], outlines: list[np.ndarray]) -> np.ndarray:
    """hiding[j]: the stick reader, told to ignore outline j, would not read one of the sticks: it holds the
    stick's centre, or the stick lies along its rim (`along_rims`)."""
    ends = np.array([stick.ends for stick in sticks], np.float64).reshape(-1, 2, 2)
    return _holding(sticks, outlines) | np.array([along_rims(ends, [o]).any() for o in outlines], bool)


def _outlines(reading: TableReading) -> list[np.ndarray]:
    """The outlines of the cards and tiles read, which the stick reader ignores."""
    return [card.corners for card in reading.cards] + [domino.corners for domino in reading.dominoes]


def _may_be_sticks(thing: Card | Domino) -> bool:
    """Whether a card or tile read may be sticks: a card read unsure, or a tile of one pip at most (a lattice
    cell holds none; a stick's end may pass for one)."""
    if isinstance(thing, Card):
        return thing.confidence < SURE
    return sum(half.pips for half in thing.halves) <= 1
