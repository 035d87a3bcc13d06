"""The Seven Pis: a domino solitaire in which every tile must end up in a pi-shaped group.

The sheet's picture is lost, so the shape is data (:class:`PiShape`) and the project's reading
(``/work/shared/rulebooks/NOTES.md``) is only the default. Readings taken where the sheet is silent:

- A pi is a back of tiles laid end to end (2 tiles, or 3 for double-nine) and two legs at right angles,
  each hanging from one of the two outer back cells; a leg's upper half touches the back cell above it.
  Tiles connect where a half touches a half, and every connection must match (equal pips).
- A tile may go into an empty slot of a started pi when every connection it makes with tiles already
  there matches; touching no tile yet is allowed ("the next tile can go either side"). A new pi may be
  started with any tile in any slot, in either orientation.
- Pis are labelled ``0..pis-1``. The labels of unstarted pis are interchangeable, so a new pi always takes
  the lowest free label; this keeps the list of legal placements free of copies that differ only there.
- The game is over at the start of a turn (hand refilled) when no tile in the hand has a legal
  placement, the player having gone out included (empty hand, empty pile).
- Score: tiles not placed, in hand or in the draw pile (aim: zero); :attr:`Scoring.PIPS` counts their
  pips instead, as a playable online version does.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import pairwise
from operator import or_
from typing import Any

from rules.dominoes import MAX_PIPS, Domino, double_set

Cell = tuple[int, int]
"""(row, column) on the pi's own grid; row 0 is the back, rows grow downwards."""

_SET_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


class ShapeError(ValueError):
    """A pi shape or game setup that cannot be laid out with dominoes."""


class IllegalPlacementError(ValueError):
    """A placement that breaks the rules for the layout it is put on."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one tile goes: the cells under its first and its second end."""

    name: str
    cells: tuple[Cell, Cell]


@dataclass(frozen=True, slots=True)
class PiShape:
    """A pi as data: the tile slots on a grid and the touching cell pairs that must match.

    Configuration format (``from_json``/``to_json``), slots in listing order::

        {"name": "pi of 4",
         "slots": {"back-1": [[0, 0], [0, 1]], "back-2": [[0, 2], [0, 3]], ...},
         "links": [[[0, 1], [0, 2]], ...]}
    """

    name: str
    slots: tuple[Slot, ...]
    links: tuple[tuple[Cell, Cell], ...]
    index: dict[str, int] = field(init=False, repr=False, compare=False)
    """Slot name -> position in :attr:`slots`."""
    neighbours: tuple[tuple[tuple[int, int, int], ...], ...] = field(init=False, repr=False, compare=False)
    """Per slot, the connections it makes: (its end, other slot, other slot's end), which must match."""
    joins: tuple[tuple[int, int, int, int], ...] = field(init=False, repr=False, compare=False)
    """Each link once, as (slot, end, other slot, other end)."""

    def __post_init__(self) -> None:
        if not self.slots:
            raise ShapeError("a pi needs at least one slot")
        owner: dict[Cell, tuple[int, int]] = {}
        for number, slot in enumerate(self.slots):
            if not slot.name or any(other.name == slot.name for other in self.slots[:number]):
                raise ShapeError(f"slot names must be unique and non-empty: {slot.name!r}")
            if not _touching(*slot.cells):
                raise ShapeError(f"slot {slot.name!r}: a domino covers two touching cells, not {slot.cells}")
            for end, cell in enumerate(slot.cells):
                if cell in owner:
                    raise ShapeError(f"slot {slot.name!r}: cell {cell} is already covered")
                owner[cell] = (number, end)
        joins = []
        for a, b in self.links:
            if a not in owner or b not in owner:
                raise ShapeError(f"link {a}-{b}: both cells must be covered by a slot")
            if owner[a][0] == owner[b][0] or not _touching(a, b):
                raise ShapeError(f"link {a}-{b}: links join touching cells of two different slots")
            joins.append(owner[a] + owner[b])
        if len({frozenset(link) for link in self.links}) != len(self.links):
            raise ShapeError("each link is listed once")
        neighbours: list[list[tuple[int, int, int]]] = [[] for _ in self.slots]
        for s, e, t, f in joins:
            neighbours[s].append((e, t, f))
            neighbours[t].append((f, s, e))
        object.__setattr__(self, "index", {slot.name: number for number, slot in enumerate(self.slots)})
        object.__setattr__(self, "neighbours", tuple(tuple(n) for n in neighbours))
        object.__setattr__(self, "joins", tuple(joins))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PiShape:
        try:
            slots = tuple(Slot(str(name), _cells(cells)) for name, cells in data["slots"].items())
            links = tuple(_cells(link) for link in data["links"])
            return cls(str(data["name"]), slots, links)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            if isinstance(error, ShapeError):
                raise
            raise ShapeError(f"not a pi shape description: {error}") from error

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "slots": {slot.name: [list(cell) for cell in slot.cells] for slot in self.slots},
            "links": [[list(a), list(b)] for a, b in self.links],
        }

    def __repr__(self) -> str:
        return f"PiShape.from_json({self.to_json()!r})"


def _touching(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _cells(pair: Sequence[Sequence[int]]) -> tuple[Cell, Cell]:
    (row, column), (other_row, other_column) = pair
    return ((int(row), int(column)), (int(other_row), int(other_column)))


# The project's reading of the lost picture: legs hang from the outer back cells.
#   [a a][b b]          [a a][b b][c c]
#   [l]      [r]        [l]            [r]
#   [l]      [r]        [l]            [r]
PI_OF_FOUR = PiShape.from_json(
    {
        "name": "pi of 4",
        "slots": {
            "back-1": [[0, 0], [0, 1]],
            "back-2": [[0, 2], [0, 3]],
            "leg-left": [[1, 0], [2, 0]],
            "leg-right": [[1, 3], [2, 3]],
        },
        "links": [[[0, 1], [0, 2]], [[0, 0], [1, 0]], [[0, 3], [1, 3]]],
    }
)
PI_OF_FIVE = PiShape.from_json(
    {
        "name": "pi of 5",
        "slots": {
            "back-1": [[0, 0], [0, 1]],
            "back-2": [[0, 2], [0, 3]],
            "back-3": [[0, 4], [0, 5]],
            "leg-left": [[1, 0], [2, 0]],
            "leg-right": [[1, 5], [2, 5]],
        },
        "links": [[[0, 1], [0, 2]], [[0, 3], [0, 4]], [[0, 0], [1, 0]], [[0, 5], [1, 5]]],
    }
)


class Scoring(enum.Enum):
    TILES = "tiles"
    """The sheet: one point per tile not placed."""
    PIPS = "pips"
    """The online version: the pips on the tiles not placed."""


HAND_SIZE = 3  # the sheet's hand, refilled after each turn


@dataclass(frozen=True, slots=True, repr=False)
class Setup:
    """The rules' options: which set, how many pis of which shape, hand size and scoring."""

    top: int
    pis: int
    shape: PiShape
    hand: int = HAND_SIZE
    scoring: Scoring = Scoring.TILES
    tiles: tuple[Domino, ...] = field(init=False, compare=False)
    tileset: frozenset[Domino] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if type(self.top) is not int or not 0 <= self.top <= MAX_PIPS:
            raise ShapeError(f"sets run from double-0 to double-{MAX_PIPS}, not double-{self.top!r}")
        if self.pis < 1 or self.hand < 1:
            raise ShapeError("a game needs at least one pi and a hand of at least one tile")
        object.__setattr__(self, "tiles", double_set(self.top))
        object.__setattr__(self, "tileset", frozenset(self.tiles))

    @classmethod
    def double_six(cls, scoring: Scoring = Scoring.TILES) -> Setup:
        return cls(6, 7, PI_OF_FOUR, scoring=scoring)

    @classmethod
    def double_nine(cls, scoring: Scoring = Scoring.TILES) -> Setup:
        return cls(9, 11, PI_OF_FIVE, scoring=scoring)

    @property
    def name(self) -> str:
        return f"double-{_SET_NAMES[self.top]}"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Setup:
        try:
            return cls(
                int(data["top"]),
                int(data["pis"]),
                PiShape.from_json(data["shape"]),
                int(data.get("hand", 3)),
                Scoring(data.get("scoring", Scoring.TILES.value)),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            if isinstance(error, ShapeError):
                raise
            raise ShapeError(f"not a Seven Pis setup: {error}") from error

    def to_json(self) -> dict[str, Any]:
        return {
            "top": self.top,
            "pis": self.pis,
            "hand": self.hand,
            "scoring": self.scoring.value,
            "shape": self.shape.to_json(),
        }

    def __repr__(self) -> str:
        option = "" if self.scoring is Scoring.TILES else f"Scoring.{self.scoring.name}"
        for preset in (Setup.double_six, Setup.double_nine):
            if preset(self.scoring) == self:
                return f"Setup.{preset.__name__}({option})"
        return f"Setup.from_json({self.to_json()!r})"


DOUBLE_SIX = Setup.double_six()
DOUBLE_NINE = Setup.double_nine()


@dataclass(frozen=True, slots=True, order=True)
class Placement:
    """A tile in a slot of a pi: ``ends[0]`` lies on the slot's first cell (a leg's upper half)."""

    pi: int
    slot: str
    ends: tuple[int, int]

    def __post_init__(self) -> None:
        Domino(*self.ends)  # validates the pips

    @property
    def tile(self) -> Domino:
        return Domino(*self.ends)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Placement:
        first, second = data["ends"]
        return cls(int(data["pi"]), str(data["slot"]), (int(first), int(second)))

    def to_json(self) -> dict[str, Any]:
        return {"pi": self.pi, "slot": self.slot, "ends": list(self.ends)}

    def __str__(self) -> str:
        return f"pi {self.pi} {self.slot} {self.tile}"


class Status(enum.Flag):
    """Everything that can be wrong with a table, or with a turn between two tables."""

    VALID = 0
    NO_SUCH_PI = enum.auto()
    """A pi label outside 0..pis-1: more pis than the set makes."""
    NO_SUCH_SLOT = enum.auto()
    """A tile where the shape has no slot, e.g. a leg in the wrong place."""
    SLOT_TAKEN = enum.auto()
    """Two tiles in one slot."""
    MISMATCH = enum.auto()
    """Ends that touch but do not match."""
    DUPLICATE_TILE = enum.auto()
    """A tile seen twice (on the table or in the hand)."""
    NOT_IN_SET = enum.auto()
    """A tile the set does not have."""
    HAND_TOO_BIG = enum.auto()
    MOVED = enum.auto()
    """A placed tile moved, turned round or left the table."""
    NOTHING_PLAYED = enum.auto()
    TOO_MANY_PLAYED = enum.auto()
    NOT_FROM_HAND = enum.auto()
    """A new tile on the table that was not in the hand."""
    BAD_DRAW = enum.auto()
    """The hand was not refilled to its size from the draw pile, or a kept tile left it."""
    AFTER_GAME_OVER = enum.auto()
    """A turn after the hand could no longer be laid."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong, with the placements (or hand tiles) it concerns."""

    kind: Status
    detail: str
    placements: tuple[Placement, ...] = ()
    tiles: tuple[Domino, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": (self.kind.name or "").lower(),
            "detail": self.detail,
            "placements": [p.to_json() for p in self.placements],
            "tiles": [t.to_json() for t in self.tiles],
        }


@dataclass(frozen=True, slots=True)
class StatusReport:
    """Every problem found at once; ``flags`` is their union."""

    problems: tuple[Problem, ...] = ()

    @property
    def flags(self) -> Status:
        return reduce(or_, (p.kind for p in self.problems), Status.VALID)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "flags": [(flag.name or "").lower() for flag in self.flags],
            "problems": [p.to_json() for p in self.problems],
        }


@dataclass(frozen=True, slots=True)
class Layout:
    """The tiles on the table, kept sorted so that equal tables compare equal; may break the rules."""

    setup: Setup
    placements: tuple[Placement, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "placements", tuple(sorted(self.placements)))

    def tiles(self) -> tuple[Domino, ...]:
        return tuple(p.tile for p in self.placements)

    def occupancy(self) -> dict[int, dict[str, tuple[int, int]]]:
        """Pi label -> slot name -> ends, for placements in real pis and slots (the first of any clash)."""
        grid: dict[int, dict[str, tuple[int, int]]] = {}
        for p in self.placements:
            if 0 <= p.pi < self.setup.pis and p.slot in self.setup.shape.index:
                grid.setdefault(p.pi, {}).setdefault(p.slot, p.ends)
        return grid

    def completed_pis(self) -> tuple[int, ...]:
        size = len(self.setup.shape.slots)
        return tuple(pi for pi, slots in sorted(self.occupancy().items()) if len(slots) == size)

    def legal_placements(self, hand: Iterable[Domino]) -> LegalPlacements:
        return LegalPlacements(self, hand)

    def place(self, placement: Placement) -> Layout:
        """The layout with ``placement`` added; raises :class:`IllegalPlacementError` if it breaks a rule."""
        fault = LegalPlacements(self, (placement.tile,)).fault(placement)
        if fault is not None:
            raise IllegalPlacementError(f"{placement}: {fault}")
        return Layout(self.setup, (*self.placements, placement))

    def status(self, previous: Layout | None = None) -> StatusReport:
        """Every problem with this table; with ``previous``, also every placed tile that moved since."""
        setup, shape = self.setup, self.setup.shape
        problems: list[Problem] = []
        occupants: dict[tuple[int, str], list[Placement]] = {}
        for p in self.placements:
            if p.tile not in setup.tileset:
                problems.append(Problem(Status.NOT_IN_SET, f"{p.tile} is not in a {setup.name} set", (p,)))
            if not 0 <= p.pi < setup.pis:
                detail = f"{p}: a {setup.name} game makes {setup.pis} pis, labelled 0..{setup.pis - 1}"
                problems.append(Problem(Status.NO_SUCH_PI, detail, (p,)))
            elif p.slot not in shape.index:
                slots = ", ".join(shape.index)
                detail = f"{p}: a {shape.name} has no slot {p.slot!r} (slots: {slots})"
                problems.append(Problem(Status.NO_SUCH_SLOT, detail, (p,)))
            else:
                occupants.setdefault((p.pi, p.slot), []).append(p)
        same_tile: dict[Domino, list[Placement]] = {}
        for p in self.placements:
            same_tile.setdefault(p.tile, []).append(p)
        for tile, ps in same_tile.items():
            if len(ps) > 1:
                where = ", ".join(f"pi {p.pi} {p.slot}" for p in ps)
                detail = f"{tile} lies {len(ps)} times: {where}"
                problems.append(Problem(Status.DUPLICATE_TILE, detail, tuple(ps)))
        for (pi, slot), ps in occupants.items():
            if len(ps) > 1:
                tiles = ", ".join(str(p.tile) for p in ps)
                problems.append(Problem(Status.SLOT_TAKEN, f"pi {pi} {slot} holds {tiles}", tuple(ps)))
        for pi in sorted({pi for pi, _ in occupants}):
            for s, e, t, f in shape.joins:
                for p in occupants.get((pi, shape.slots[s].name), ()):
                    for q in occupants.get((pi, shape.slots[t].name), ()):
                        if p.ends[e] != q.ends[f]:
                            detail = f"pi {pi}: {p.slot} shows {p.ends[e]} against {q.ends[f]} of {q.slot}"
                            problems.append(Problem(Status.MISMATCH, detail, (p, q)))
        if previous is not None:
            problems.extend(_moves(previous, self))
        return StatusReport(tuple(problems))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Layout:
        return cls(Setup.from_json(data["setup"]), tuple(Placement.from_json(p) for p in data["placements"]))

    def to_json(self) -> dict[str, Any]:
        return {"setup": self.setup.to_json(), "placements": [p.to_json() for p in self.placements]}


def _moves(previous: Layout, current: Layout) -> Iterator[Problem]:
    now: dict[Domino, list[Placement]] = {}
    for p in current.placements:
        now.setdefault(p.tile, []).append(p)
    still = set(current.placements)
    for old in previous.placements:
        if old in still:
            continue
        for new in now.get(old.tile, ()):
            if (new.pi, new.slot) == (old.pi, old.slot):
                detail = f"{old.tile} at pi {old.pi} {old.slot} was turned round"
            else:
                detail = f"{old.tile} moved from pi {old.pi} {old.slot} to {new}"
            yield Problem(Status.MOVED, detail, (old, new))
        if old.tile not in now:
            yield Problem(Status.MOVED, f"{old.tile} left pi {old.pi} {old.slot}", (old,))


class LegalPlacements:
    """The legal placements of hand tiles on a layout, generated on iteration; ``in`` tests one directly."""

    def __init__(self, layout: Layout, hand: Iterable[Domino]) -> None:
        self.layout = layout
        self.hand = tuple(dict.fromkeys(hand))
        self._grid = layout.occupancy()
        self._on_table = set(layout.tiles())
        free = (pi for pi in range(layout.setup.pis) if pi not in self._grid)
        self._next_pi = next(free, None)

    def fault(self, placement: Placement) -> str | None:
        """Why ``placement`` breaks the rules on this layout (the hand aside), or None if it does not."""
        setup, shape = self.layout.setup, self.layout.setup.shape
        tile = placement.tile
        if tile not in setup.tileset:
            return f"{tile} is not in a {setup.name} set"
        if tile in self._on_table:
            return f"{tile} is already on the table"
        if not 0 <= placement.pi < setup.pis:
            return f"a {setup.name} game makes {setup.pis} pis, labelled 0..{setup.pis - 1}"
        if placement.pi not in self._grid and placement.pi != self._next_pi:
            return f"pi {placement.pi} is not started; a new pi takes the lowest free label, {self._next_pi}"
        number = shape.index.get(placement.slot)
        if number is None:
            return f"a {shape.name} has no slot {placement.slot!r}"
        filled = self._grid.get(placement.pi, {})
        if placement.slot in filled:
            return f"{placement.slot} already holds {Domino(*filled[placement.slot])}"
        for end, other, other_end in shape.neighbours[number]:
            name = shape.slots[other].name
            there = filled.get(name)
            if there is not None and there[other_end] != placement.ends[end]:
                return f"its {placement.ends[end]} would touch the {there[other_end]} of {name}"
        return None

    def __contains__(self, placement: object) -> bool:
        return isinstance(placement, Placement) and placement.tile in self.hand and self.fault(placement) is None

    def __iter__(self) -> Iterator[Placement]:
        pis = sorted(self._grid) + ([] if self._next_pi is None else [self._next_pi])
        for pi in pis:
            for slot in self.layout.setup.shape.slots:
                for tile in self.hand:
                    for ends in dict.fromkeys((tile.ends, tile.turned().ends)):
                        placement = Placement(pi, slot.name, ends)
                        if self.fault(placement) is None:
                            yield placement

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __repr__(self) -> str:
        return f"<LegalPlacements at {id(self):#x} ({', '.join(map(str, self))})>"


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where the game stands: the score counts every tile not placed, in hand or in the pile."""

    over: bool
    score: int
    scoring: Scoring
    placed: int
    left: int
    completed: tuple[int, ...]

    @property
    def went_out(self) -> bool:
        return self.left == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "over": self.over,
            "went_out": self.went_out,
            "score": self.score,
            "scoring": self.scoring.value,
            "placed": self.placed,
            "left": self.left,
            "completed_pis": list(self.completed),
        }


@dataclass(frozen=True, slots=True)
class TableState:
    """The table and the player's hand at a turn boundary (after the hand was refilled)."""

    layout: Layout
    hand: tuple[Domino, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "hand", tuple(self.hand))

    @property
    def setup(self) -> Setup:
        return self.layout.setup

    def unseen(self) -> tuple[Domino, ...]:
        """The set's tiles neither on the table nor in the hand: the draw pile, as the player knows it."""
        seen = {*self.layout.tiles(), *self.hand}
        return tuple(t for t in self.setup.tiles if t not in seen)

    def playable(self) -> tuple[Domino, ...]:
        """The hand's tiles that may be laid: once each, in the set and not on the table already. A tile seen
        twice is a misreading or a cheat, which `status` reports; either way the same tile cannot go down again."""
        on_table = set(self.layout.tiles())
        return tuple(t for t in dict.fromkeys(self.hand) if t in self.setup.tileset and t not in on_table)

    def legal_placements(self) -> LegalPlacements:
        return LegalPlacements(self.layout, self.playable())

    def is_over(self) -> bool:
        return not self.legal_placements()

    def outcome(self) -> Outcome:
        placed = set(self.layout.tiles())
        left = [t for t in self.setup.tiles if t not in placed]
        score = len(left) if self.setup.scoring is Scoring.TILES else sum(t.pips for t in left)
        return Outcome(
            over=self.is_over(),
            score=score,
            scoring=self.setup.scoring,
            placed=len(self.setup.tiles) - len(left),
            left=len(left),
            completed=self.layout.completed_pis(),
        )

    def status(self, previous: TableState | None = None) -> StatusReport:
        """The layout's problems plus the hand's: tiles not in the set, seen twice, or too many."""
        report = self.layout.status(None if previous is None else previous.layout)
        problems = list(report.problems)
        on_table = set(self.layout.tiles())
        for tile, count in Counter(self.hand).items():
            if tile not in self.setup.tileset:
                detail = f"{tile} in hand is not in a {self.setup.name} set"
                problems.append(Problem(Status.NOT_IN_SET, detail, tiles=(tile,)))
            if count > 1 or tile in on_table:
                detail = f"{tile} in hand is also seen elsewhere"
                problems.append(Problem(Status.DUPLICATE_TILE, detail, tiles=(tile,)))
        if len(self.hand) > self.setup.hand:
            detail = f"{len(self.hand)} tiles in hand; the hand holds {self.setup.hand}"
            problems.append(Problem(Status.HAND_TOO_BIG, detail, tiles=self.hand))
        return StatusReport(tuple(problems))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableState:
        return cls(Layout.from_json(data["layout"]), tuple(Domino(*t) for t in data["hand"]))

    def to_json(self) -> dict[str, Any]:
        return {"layout": self.layout.to_json(), "hand": [t.to_json() for t in self.hand]}


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """One turn judged: the tiles it laid and every rule it broke."""

    played: tuple[Placement, ...]
    report: StatusReport

    @property
    def ok(self) -> bool:
        return self.report.ok

    def to_json(self) -> dict[str, Any]:
        return {"played": [p.to_json() for p in self.played], **self.report.to_json()}


def check_turn(before: TableState, after: TableState) -> TurnVerdict:
    """Judge the turn that led from ``before`` to ``after`` (both at turn boundaries)."""
    setup = before.setup
    problems = list(after.status(previous=before).problems)
    was_on_table = set(before.layout.tiles())
    played = tuple(p for p in after.layout.placements if p.tile not in was_on_table)
    if before.is_over():
        detail = "no tile in hand could be laid: the game was over"
        problems.append(Problem(Status.AFTER_GAME_OVER, detail, played))
    elif not played:
        problems.append(Problem(Status.NOTHING_PLAYED, "a turn lays at least one tile"))
    if len(played) > setup.hand:
        detail = f"{len(played)} tiles laid in one turn; a hand holds {setup.hand}"
        problems.append(Problem(Status.TOO_MANY_PLAYED, detail, played))
    problems.extend(
        Problem(Status.NOT_FROM_HAND, f"{p.tile} was laid but was not in the hand", (p,))
        for p in played
        if p.tile not in before.hand
    )
    played_tiles = {p.tile for p in played}
    kept = [t for t in before.hand if t not in played_tiles]
    lost = tuple(t for t in kept if t not in after.hand)
    if lost:
        detail = f"kept tiles left the hand: {', '.join(map(str, lost))}"
        problems.append(Problem(Status.BAD_DRAW, detail, tiles=lost))
    due = min(setup.hand, len(kept) + len(before.unseen()))
    if len(after.hand) != due:
        detail = f"the hand holds {len(after.hand)} tiles after the draw; it should hold {due}"
        problems.append(Problem(Status.BAD_DRAW, detail, tiles=after.hand))
    return TurnVerdict(played, StatusReport(tuple(problems)))


@dataclass(frozen=True, slots=True)
class GameVerdict:
    """A whole game judged: the first table, each turn, and where it ended."""

    start: StatusReport
    turns: tuple[TurnVerdict, ...]
    outcome: Outcome

    @property
    def flags(self) -> Status:
        return reduce(or_, (turn.report.flags for turn in self.turns), self.start.flags)

    @property
    def ok(self) -> bool:
        return self.start.ok and all(turn.ok for turn in self.turns)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "flags": [(flag.name or "").lower() for flag in self.flags],
            "start": self.start.to_json(),
            "turns": [turn.to_json() for turn in self.turns],
            "outcome": self.outcome.to_json(),
        }


def check_game(states: Sequence[TableState]) -> GameVerdict:
    """Judge a sequence of tables at turn boundaries, the first before any turn of the sequence."""
    if not states:
        raise ValueError("a game needs at least one table state")
    turns = tuple(check_turn(a, b) for a, b in pairwise(states))
    return GameVerdict(states[0].status(), turns, states[-1].outcome())
