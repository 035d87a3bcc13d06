"""Playing the Seven Pis: an advisor that searches one turn's placements, and a game simulator.

The advisor tries every play of the turn (one tile up to the whole hand, each placement legal after
the previous ones) and values each resulting table by the tiles placed plus the tiles its open slots
still promise: a slot counts more the more of the remaining tiles (hand and unseen, never the pile's
order) show the pips its ends need, an unstarted pi counts all its slots, and the promise is weighed by
the chance that the next hand holds no tile that fits anywhere.

Search and simulation run on :class:`_Table`, a mutable copy of the table built for speed (pis in start
order, each empty slot reduced to the pips its two ends must show). It is a second implementation of
the placement rule; the tests replay simulated games through :func:`rules.seven_pis.check_game`, so
the two cannot drift apart unnoticed.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import Any

from rules.dominoes import Domino
from rules.seven_pis import DOUBLE_SIX, Cell, Layout, PiShape, Placement, Scoring, Setup, TableState

_Move = tuple[int, int, int, int]
"""(pi in start order, slot number, pips on the slot's first cell, pips on its second cell)."""
_Need = tuple[int | None, int | None] | None
"""What an empty slot's two ends must show (None: anything); None for a filled slot."""

_CLASH = -1
"""Two touching tiles demand different pips of one end: no tile can ever fill that slot."""


class _Table:
    """A table for search and simulation: pis in start order, placements with undo."""

    __slots__ = ("hand", "max_pis", "needs", "neighbours", "setup", "size", "starts", "unseen")

    def __init__(self, setup: Setup, hand: list[tuple[int, int]], unseen: set[tuple[int, int]]) -> None:
        self.setup = setup
        self.size = len(setup.shape.slots)
        self.max_pis = setup.pis
        self.neighbours = setup.shape.neighbours
        self.starts = _starts(setup.shape)
        self.needs: list[list[_Need]] = []
        self.hand = hand
        self.unseen = unseen

    def moves(self, a: int, b: int, new_pi: bool) -> list[_Move]:
        """Every legal placement of the tile a|b; in a new pi (if ``new_pi``) one per symmetry class."""
        found = []
        for p, row in enumerate(self.needs):
            for s, need in enumerate(row):
                if need is None:
                    continue
                first, second = need
                if (first is None or first == a) and (second is None or second == b):
                    found.append((p, s, a, b))
                if a != b and (first is None or first == b) and (second is None or second == a):
                    found.append((p, s, b, a))
        if new_pi and len(self.needs) < self.max_pis:
            p = len(self.needs)
            if a == b:
                found.extend((p, s, a, a) for s in self.starts[1])
            else:
                found.extend((p, s, b, a) if turned else (p, s, a, b) for s, turned in self.starts[0])
        return found

    def first_move(self, pis: range | None = None) -> _Move | None:
        """The first legal placement in hand order, looking only at ``pis`` if given."""
        for a, b in self.hand:
            for p in pis if pis is not None else range(len(self.needs)):
                for s, need in enumerate(self.needs[p]):
                    if need is None:
                        continue
                    first, second = need
                    if (first is None or first == a) and (second is None or second == b):
                        return (p, s, a, b)
                    if (first is None or first == b) and (second is None or second == a):
                        return (p, s, b, a)
        return None

    def can_move(self) -> bool:
        if not self.hand:
            return False
        return len(self.needs) < self.max_pis or self.first_move() is not None

    def place(self, move: _Move) -> tuple[int, list[_Need], bool]:
        """Put a tile on the table (not from the hand); the returned token undoes it."""
        p, s, a, b = move
        new = p == len(self.needs)
        if new:
            self.needs.append([(None, None)] * self.size)
        row = self.needs[p]
        saved = row[:]
        row[s] = None
        ends = (a, b)
        for end, other, other_end in self.neighbours[s]:
            need = row[other]
            if need is None:
                continue
            pips = ends[end]
            was = need[other_end]
            now = pips if was is None or was == pips else _CLASH
            row[other] = (now, need[1]) if other_end == 0 else (need[0], now)
        return (p, saved, new)

    def play(self, move: _Move) -> tuple[tuple[int, list[_Need], bool], int, tuple[int, int]]:
        """Lay a tile from the hand; the returned token undoes it."""
        a, b = move[2], move[3]
        key = (a, b) if a <= b else (b, a)
        at = self.hand.index(key)
        del self.hand[at]
        return (self.place(move), at, key)

    def undo(self, token: tuple[tuple[int, list[_Need], bool], int, tuple[int, int]]) -> None:
        (p, saved, new), at, key = token
        if new:
            self.needs.pop()
        else:
            self.needs[p] = saved
        self.hand.insert(at, key)

    def is_complete(self, p: int) -> bool:
        return all(need is None for need in self.needs[p])


@functools.cache
def _starts(shape: PiShape) -> tuple[tuple[tuple[int, bool], ...], tuple[int, ...]]:
    """Ways to start an empty pi, one per class that the shape's symmetries make alike: (slot, tile
    turned round) for a tile with two different ends, and slots for a double."""
    found = [(tuple(range(len(shape.slots))), (False,) * len(shape.slots))]
    cells = {cell: (s, end) for s, slot in enumerate(shape.slots) for end, cell in enumerate(slot.cells)}
    links = {frozenset(link) for link in shape.links}
    for turn in _GRID_TURNS[1:]:
        moved = {cell: turn(*cell) for cell in cells}
        shift = (
            min(r for r, _ in cells) - min(r for r, _ in moved.values()),
            min(c for _, c in cells) - min(c for _, c in moved.values()),
        )
        image = {cell: (r + shift[0], c + shift[1]) for cell, (r, c) in moved.items()}
        if set(image.values()) != set(cells) or {frozenset(map(image.get, link)) for link in links} != links:
            continue
        ends = [(cells[image[slot.cells[0]]], cells[image[slot.cells[1]]]) for slot in shape.slots]
        if all(first[0] == second[0] for first, second in ends):
            found.append((tuple(first[0] for first, _ in ends), tuple(first[1] == 1 for first, _ in ends)))
    pairs = {
        min((slots[s], turned != flips[s]) for slots, flips in found)
        for s, turned in product(range(len(shape.slots)), (False, True))
    }
    doubles = {min(slots[s] for slots, _ in found) for s in range(len(shape.slots))}
    return tuple(sorted(pairs)), tuple(sorted(doubles))


_GRID_TURNS: tuple[Callable[[int, int], Cell], ...] = (
    lambda r, c: (r, c),
    lambda r, c: (r, -c),
    lambda r, c: (-r, c),
    lambda r, c: (-r, -c),
    lambda r, c: (c, r),
    lambda r, c: (c, -r),
    lambda r, c: (-c, r),
    lambda r, c: (-c, -r),
)
"""The eight ways to turn or mirror a grid; the first leaves it alone."""


Strategy = Callable[[_Table], list[_Move]]
"""Plays one turn on the table (at least one tile) and returns the placements it made, in order."""


def _play_while(table: _Table, choose: Callable[[_Table, list[_Move]], _Move | None]) -> list[_Move]:
    """Lay the moves `choose(table, played so far)` picks until it has none or the hand is empty."""
    played: list[_Move] = []
    while table.hand:
        move = choose(table, played)
        if move is None:
            break
        table.play(move)
        played.append(move)
    return played


def _start_pi(table: _Table) -> _Move:
    a, b = table.hand[0]
    return (len(table.needs), 0, a, b)


def _many(table: _Table) -> list[_Move]:
    """Start a new pi with every tile while pis are left to start, then lay whatever fits."""

    def choose(table: _Table, _played: list[_Move]) -> _Move | None:
        return _start_pi(table) if len(table.needs) < table.max_pis else table.first_move()

    return _play_while(table, choose)


def _one_at_a_time(table: _Table) -> list[_Move]:
    """Build the earliest unfinished pi; start another only when all are complete, or when forced."""

    def choose(table: _Table, played: list[_Move]) -> _Move | None:
        for p in range(len(table.needs)):
            if not table.is_complete(p):
                move = table.first_move(range(p, p + 1))
                if move is not None:
                    return move
        if len(table.needs) < table.max_pis:
            all_complete = all(table.is_complete(p) for p in range(len(table.needs)))
            if all_complete or not played:
                return _start_pi(table)
        return None

    return _play_while(table, choose)


def _advisor(table: _Table) -> list[_Move]:
    moves, _ = _search(table)
    for move in moves:
        table.play(move)
    return moves


def _search(table: _Table) -> tuple[list[_Move], float]:
    """Try every play of this turn (1 to all hand tiles, in any order) and keep the best-valued table.

    Plays that differ only in order, in which of the interchangeable unstarted pis a tile starts, or by
    a symmetry of the empty shape are valued once: orders by a set of seen placements, new pis by
    starting them in hand order, symmetries by :attr:`_Table.starts`. The first best play found wins
    ties, so the choice is deterministic.
    """
    best: tuple[float, list[_Move]] = (-math.inf, [])
    seen: set[frozenset[_Move]] = set()
    path: list[_Move] = []
    outlook = _Outlook(table)
    rank = {tile: number for number, tile in enumerate(dict.fromkeys(table.hand))}

    def explore(last_start: int) -> None:
        nonlocal best
        for tile in list(dict.fromkeys(table.hand)):
            for move in table.moves(*tile, new_pi=rank[tile] > last_start):
                path.append(move)
                key = frozenset(path)
                if key not in seen:
                    seen.add(key)
                    starts = move[0] == len(table.needs)
                    token = table.play(move)
                    value = _value(table, outlook)
                    if value > best[0]:
                        best = (value, path[:])
                    if table.hand:
                        explore(rank[tile] if starts else last_start)
                    table.undo(token)
                path.pop()

    explore(-1)
    return best[1], best[0]


_SUPPLY_HALF = 0.5
"""An open slot that k remaining tiles fit counts k / (k + this) of a tile still to come (tuned by
simulation: 0.5 to 2 vary the mean score by about 0.3)."""


class _Outlook:
    """What the search knows of the unseen tiles; it does not change within a turn."""

    __slots__ = ("holding", "unseen")

    def __init__(self, table: _Table) -> None:
        self.unseen = tuple(table.unseen)
        self.holding = [0] * 10
        for a, b in self.unseen:
            self.holding[a] += 1
            if a != b:
                self.holding[b] += 1


def _value(table: _Table, outlook: _Outlook) -> float:
    """How many tiles this table is likely to end with: those placed, plus what the open slots and
    unstarted pis promise, weighed by the chance of not being stuck with the next hand."""
    hand = table.hand
    left = len(hand) + len(outlook.unseen)
    if not left:
        return float(len(table.setup.tiles))
    holding = outlook.holding[:]
    for a, b in hand:
        holding[a] += 1
        if a != b:
            holding[b] += 1
    unstarted = table.max_pis - len(table.needs)
    anything = unstarted > 0
    singles: set[int] = set()
    pairs: set[tuple[int, int]] = set()
    # Any tile can start a pi, so an unstarted pi promises all its slots; counting them for less makes
    # the advisor start pis early, which simulation shows to be worse and slower to search.
    promise = float(unstarted * table.size)
    for row in table.needs:
        for need in row:
            if need is None:
                continue
            first, second = need
            if first is None:
                if second is None:
                    anything = True
                    supply = left
                elif second == _CLASH:
                    continue
                else:
                    singles.add(second)
                    supply = holding[second]
            elif first == _CLASH:
                continue
            elif second is None:
                singles.add(first)
                supply = holding[first]
            elif second == _CLASH:
                continue
            else:
                key = (first, second) if first <= second else (second, first)
                pairs.add(key)
                supply = 1 if key in table.unseen or key in hand else 0
            promise += supply / (supply + _SUPPLY_HALF)
    placed = len(table.setup.tiles) - left
    if anything:
        return placed + promise

    def fits(tile: tuple[int, int]) -> bool:
        return tile[0] in singles or tile[1] in singles or tile in pairs

    if any(fits(tile) for tile in hand):
        return placed + promise
    unseen = len(outlook.unseen)
    draws = min(unseen, table.setup.hand - len(hand))
    misfits = sum(1 for tile in outlook.unseen if not fits(tile))
    stuck = math.comb(misfits, draws) / math.comb(unseen, draws) if unseen else 1.0
    return placed + (1.0 - stuck) * promise


STRATEGIES: dict[str, Strategy] = {"many": _many, "one-at-a-time": _one_at_a_time, "advisor": _advisor}
"""The simulator's strategies by name: the sheet's two ("start all or most pis", "complete them one at a
time") and the advisor's search."""


@dataclass(frozen=True, slots=True)
class Advice:
    """The advisor's play for one turn, in the order to lay the tiles, and how it valued the result."""

    placements: tuple[Placement, ...]
    value: float

    def to_json(self) -> dict[str, Any]:
        return {"placements": [p.to_json() for p in self.placements], "value": self.value}


def advise(state: TableState) -> Advice:
    """The advisor's play for this turn; none if the game is over.

    ``value`` estimates how many tiles the game will end with placed (higher is better; the whole set
    when the play goes out). Tiles on the table that break the rules are read as the first in their slot.
    """
    setup = state.setup
    grid = state.layout.occupancy()
    labels = sorted(grid) + [pi for pi in range(setup.pis) if pi not in grid]
    hand = [tile.key for tile in state.playable()]
    table = _Table(setup, hand, {tile.key for tile in state.unseen()})
    for p, pi in enumerate(sorted(grid)):
        for name, (a, b) in grid[pi].items():
            table.place((p, setup.shape.index[name], a, b))
    if not table.can_move():
        return Advice((), _value(table, _Outlook(table)))
    moves, value = _search(table)
    return Advice(tuple(_placement(setup, move, labels) for move in moves), value)


def _placement(setup: Setup, move: _Move, labels: list[int]) -> Placement:
    p, s, a, b = move
    return Placement(labels[p], setup.shape.slots[s].name, (a, b))


def _play(strategy: Strategy, rng: random.Random, setup: Setup, record: list[TableState] | None) -> _Table:
    """One game from a shuffle by ``rng``; with ``record``, the table at every turn boundary is appended."""
    pile = [tile.key for tile in setup.tiles]
    rng.shuffle(pile)
    table = _Table(setup, [], set(pile))
    placements: list[Placement] = []
    labels = list(range(setup.pis))
    while True:
        while len(table.hand) < setup.hand and pile:
            tile = pile.pop()
            table.hand.append(tile)
            table.unseen.discard(tile)
        if record is not None:
            record.append(TableState(Layout(setup, tuple(placements)), tuple(Domino(*t) for t in table.hand)))
        if not table.can_move():
            return table
        moves = strategy(table)
        if not moves:
            raise RuntimeError("a strategy must lay at least one tile when it can")
        if record is not None:
            placements.extend(_placement(setup, move, labels) for move in moves)


def _score(table: _Table) -> int:
    left = [*table.hand, *table.unseen]
    return len(left) if table.setup.scoring is Scoring.TILES else sum(a + b for a, b in left)


def play_game(strategy: str, seed: int, setup: Setup = DOUBLE_SIX) -> tuple[TableState, ...]:
    """One simulated game, as the table at every turn boundary (the last one is the end)."""
    record: list[TableState] = []
    _play(_strategy(strategy), random.Random(seed), setup, record)
    return tuple(record)


def _strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


@dataclass(frozen=True, slots=True)
class Summary:
    """Simulated games of one strategy; ``histogram[s]`` counts the games that scored ``s``."""

    strategy: str
    setup: Setup
    games: int
    seed: int
    mean_score: float
    went_out: float
    mean_completed_pis: float
    histogram: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "setup": self.setup.to_json(),
            "games": self.games,
            "seed": self.seed,
            "mean_score": self.mean_score,
            "went_out": self.went_out,
            "mean_completed_pis": self.mean_completed_pis,
            "histogram": list(self.histogram),
        }


def simulate(
    strategy: str,
    games: int,
    seed: int,
    setup: Setup = DOUBLE_SIX,
    progress: Callable[[int, int], None] | None = None,
) -> Summary:
    """Play ``games`` games with one ``random.Random(seed)`` shuffling them all: the same arguments give
    the same summary. ``progress(done, games)`` is called after each game."""
    play = _strategy(strategy)
    if games < 1:
        raise ValueError("simulate at least one game")
    rng = random.Random(seed)
    scores: list[int] = []
    outs = completed = 0
    for done in range(1, games + 1):
        table = _play(play, rng, setup, None)
        scores.append(_score(table))
        outs += not table.hand and not table.unseen
        completed += sum(table.is_complete(p) for p in range(len(table.needs)))
        if progress is not None:
            progress(done, games)
    histogram = [0] * (max(scores) + 1)
    for score in scores:
        histogram[score] += 1
    return Summary(
        strategy,
        setup,
        games,
        seed,
        mean_score=sum(scores) / games,
        went_out=outs / games,
        mean_completed_pis=completed / games,
        histogram=tuple(histogram),
    )
