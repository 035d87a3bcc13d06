"""`tableref judge seven-pis VIDEO|CAMERA`: a Seven Pis game scored from a film of the table as it is laid.

Tiles are followed from frame to frame (vision/dominoes/tracking.py): a tile counts once it holds still for a
few frames, and is timed at the first of them. Each time a tile comes or goes, or later frames read its pips
otherwise, the table is judged again: its pis, their problems and the score. A pi keeps its number while any
of its tiles stay, so the pis are not renumbered as a new one is started above the others. A placed tile that
leaves the table, or is moved away, is reported as moved. The watch ends with the film, on Ctrl-C, or when the
camera stops (server/watching.py); the tables judged until then stand.

Without a calibration the hand is not seen, so the turn rules that need it (a tile a turn at least, three at
most) are not judged. With one (`--calibration`, a profile with a hand area), the tiles whose centres lie in the
hand area are the player's hand: never laid, moved or placed in a pi. Each turn is then judged as
`rules.seven_pis.check_turn` judges two tables at turn boundaries, and where a turn ends is read from the hand
(rules/seven_pis_turns.py): at the first steady moment (every tile counted in sight, nothing changed for 1.5 s)
after a tile the hand did not hold came into the hand area once tiles were laid, the refill; with the draw pile
empty, once tiles laid stay laid. A tile drawn into the place of a tile just laid is followed as a tile of its own
(in the hand area the tracker takes a tile out of sight for a moment, then read otherwise, as another tile put
there).
Readings taken where the rules are silent:

- The game starts, for the film, at the first steady moment with a full hand (3 tiles, or every tile left);
  that first table is checked as the turns are (a "turn 0"), with nothing played.
- A tile that comes into the hand area is drawn only if the hand did not hold it since the last boundary
  (`rules.seven_pis_turns.Draws`): a set has one of each tile, so a tidied hand (a tile moved within the
  area) or a tile laid and taken back draws nothing.
- Each turn is timed at the change that ended it (the hand refilled). Before a turn is judged, the tiles still
  on the table are taken where they are read now: a tile's slot read otherwise as its pi grows is no move. A
  tile that left the table is a move, in the turn as in its table.
- A table line is written when the tiles on the table change; the hand changing alone writes none.
- The game is over at a boundary where no tile in the hand can be laid; gone out where no tile is left.
  A turn after that is judged as the rules judge one (after the game was over).
- When the watch ends, a turn refilled (or laid with nothing to draw) that was not yet steady is judged as it
  stands; a turn laid and not yet refilled is left unjudged, and said so.
- A frame of another size than the profile's stops the watch, as a photo of another size is refused.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import typer

from rules.dominoes import Domino as Tile
from rules.seven_pis import Layout, Placement, Problem, Scoring, Setup, Status, TableState, check_turn
from rules.seven_pis_turns import Draws, TurnEnds
from server.app import counted
from server.commands.dominoes import chosen_setup, dominoes_in_hand
from server.storage import NotRecorded, Recording, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.dominoes import Domino, DominoRecognizer
from vision.dominoes.pis import PiGroup, read_pis
from vision.dominoes.tracking import TableChange, TileTracker
from vision.stillness import Remembered

if TYPE_CHECKING:
    from calibration.profile import CalibrationProfile


@dataclass(frozen=True)
class WatchedPis:
    tables: list[dict[str, Any]]  # each table as it changed: seconds, tiles laid and gone, pis, score, problems
    watched: Watched
    turns: list[dict[str, Any]] = field(default_factory=list)  # with a hand area: each turn judged, the start first
    turn_open: bool = False  # tiles were laid after the last turn judged, and the watch ended before the refill


@dataclass(frozen=True)
class _Boundary:
    """The table and hand at a turn boundary: each tile's placement by tile id, the hand."""

    placed: dict[int, Placement]
    hand: tuple[Tile, ...]


def stable_labels(groups: list[PiGroup], ids: list[int], before: dict[int, int]) -> dict[int, int]:
    """Each group's pi number (by its place in `groups`): the number most of its tiles had `before` (tile id ->
    number), unless a group earlier in the list took it; the others the lowest numbers left free."""
    labels: dict[int, int] = {}
    for k, group in enumerate(groups):
        votes = Counter(before[ids[i]] for i in group.dominoes if ids[i] in before)
        free = [label for label, _ in votes.most_common() if label not in labels.values()]
        if free:
            labels[k] = free[0]
    taken = set(labels.values())
    spare = (n for n in range(len(groups) + len(taken)) if n not in taken)
    return {k: labels[k] if k in labels else next(spare) for k in range(len(groups))}


def table_layout(
    tiles: dict[int, Domino], setup: Setup, size: tuple[int, int], before: dict[int, int]
) -> dict[int, Placement]:
    """Each tile's placement (by tile id), its pi numbered as `stable_labels` numbers it."""
    ids = list(tiles)
    groups = read_pis([tiles[i] for i in ids], setup, size)[1]
    labels = stable_labels(groups, ids, before)
    return {
        ids[i]: replace(p, pi=labels[k])
        for k, group in enumerate(groups)
        for i, p in zip(group.dominoes, group.placements, strict=True)
    }


def watch_pis(
    source: str,
    set_name: str,
    scoring: Scoring,
    on_table: Callable[[dict[str, Any]], None] = lambda table: None,
    recording: Recording | NotRecorded | None = None,
    profile: CalibrationProfile | None = None,
    on_turn: Callable[[dict[str, Any]], None] = lambda turn: None,
    onlooker: Onlooker | None = None,
    recognizer: DominoRecognizer | None = None,
) -> WatchedPis:
    """The game on `source` (a video file, a camera index or a stream URL), read frame by frame until the
    watch ends; `on_table` hears of each table as it changes, and `recording` keeps it. `set_name`: six, nine,
    or auto (the tiles say). With a `profile`, the tiles in its hand area are the hand, and each turn is judged
    (`on_turn` hears of it, `recording` keeps it); a frame of another size than the profile's ends the watch.
    The `onlooker` sees every frame (server/watching.py)."""
    recording = recording or NotRecorded()
    dominoes_in = Remembered(recognizer or DominoRecognizer(), _tiles_key)
    tracker = TileTracker(replaceable=lambda domino: bool(dominoes_in_hand(profile, [domino])[0]))
    ends = TurnEnds() if profile is not None else None
    placed: dict[int, Placement] = {}  # each tile's placement at the last change, by tile id
    hand: tuple[Tile, ...] = ()
    draws = Draws()
    setup: Setup | None = None
    changed_at = 0.0  # the last change's seconds
    last: _Boundary | None = None
    tables: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []

    def on_frame(seconds: float, frame: np.ndarray) -> None:
        nonlocal placed, hand, setup, changed_at
        size = frame.shape[1::-1]
        change = tracker.add(seconds, dominoes_in(frame))
        if change is not None:
            in_hand = dict(zip(change.tiles, dominoes_in_hand(profile, list(change.tiles.values())), strict=True))
            laid = {i: d for i, d in change.tiles.items() if not in_hand[i]}
            setup = chosen_setup(set_name, scoring, list(change.tiles.values()), size)
            before = placed
            placed = table_layout(laid, setup, size, {i: p.pi for i, p in before.items()})
            tiles = {i: Tile(*d.pips) for i, d in change.tiles.items()}
            hand = tuple(tile for i, tile in tiles.items() if in_hand[i])
            changed_at = max(changed_at, change.seconds)  # a tile gone is timed back to when last seen
            moved = (*change.laid, *change.left, *change.reread)
            # With a hand area, the hand's changes alone are no table, but for the first: a game not yet begun
            # shows only the hand.
            if profile is None or not tables or any(i in placed or i in before for i in moved):
                table = _judged(change, setup, before, placed)
                if profile is not None:
                    table["hand"] = [str(t) for t in hand]
                tables.append(table)
                recording.add(table["seconds"], table)
                on_table(table)
            if ends is not None:
                pile = len(TableState(Layout(setup, tuple(placed.values())), hand).unseen())
                came = {i: tiles[i] for i in change.laid if in_hand[i]}
                reread = {i: tiles[i] for i in change.reread if in_hand[i]}
                drawn = draws.count(came, reread, hand)
                ends.change(seconds, len(change.laid) - len(came), drawn, len(hand), pile)
        if ends is not None and setup is not None and ends.boundary(seconds, not tracker.hidden):
            judge_turn()

    def judge_turn() -> None:
        nonlocal last
        assert setup is not None
        draws.boundary(hand)
        now = _Boundary(placed, hand)
        turn = _turn(len(turns), changed_at, setup, last, now)
        last = now
        turns.append(turn)
        recording.add(turn["seconds"], turn)
        on_turn(turn)

    def close_turn() -> None:
        if ends is not None and ends.closes_at_end():
            judge_turn()

    size_problem = profile.size_problem if profile is not None else lambda size: None
    watched = watch(source, on_frame, recording, at_end=close_turn, size_problem=size_problem, onlooker=onlooker)
    return WatchedPis(tables, watched, turns, ends is not None and ends.mid_turn)


def _turn(number: int, seconds: float, setup: Setup, before: _Boundary | None, after: _Boundary) -> dict[str, Any]:
    """Turn `number` judged, from the boundary `before` (None: the game's start, judged on its own) to `after`.
    The tiles of `before` still on the table are taken as `after` reads them: a slot read otherwise is no move."""
    now = TableState(Layout(setup, tuple(after.placed.values())), after.hand)
    if before is None:
        verdict = {"played": [], **now.status().to_json()}
    else:
        then = Layout(setup, tuple(after.placed.get(i, p) for i, p in before.placed.items()))
        verdict = check_turn(TableState(then, before.hand), now).to_json()
    outcome = now.outcome()
    return {
        "seconds": round(seconds, 3),
        "turn": number,
        "hand": [str(t) for t in after.hand],
        **verdict,
        "over": outcome.over,
        "went_out": outcome.went_out,
        "score": outcome.score,
    }


def _judged(
    change: TableChange, setup: Setup, before: dict[int, Placement], now: dict[int, Placement]
) -> dict[str, Any]:
    state = TableState(Layout(setup, tuple(now.values())))
    gone = [
        Problem(Status.MOVED, f"{before[i].tile} left pi {before[i].pi} {before[i].slot}", (before[i],))
        for i in change.left
        if i in before
    ]
    outcome = state.outcome()
    pis: dict[int, list[dict[str, Any]]] = {}
    for p in sorted(now.values(), key=lambda p: (p.pi, p.slot)):
        pis.setdefault(p.pi, []).append(p.to_json())
    return {
        "seconds": round(change.seconds, 3),
        "set": setup.name,
        "laid": [now[i].to_json() for i in change.laid if i in now],
        "left": [before[i].to_json() for i in change.left if i in before],
        "reread": [now[i].to_json() for i in change.reread if i in now],
        "placed": outcome.placed,
        "complete_pis": list(outcome.completed),
        "score": outcome.score,
        "scoring": outcome.scoring.value,
        "pis": {str(pi): tiles for pi, tiles in sorted(pis.items())},
        "problems": [q.to_json() for q in (*state.status().problems, *gone)],
    }


def _where(p: dict[str, Any]) -> str:
    return f"{p['ends'][0]}|{p['ends'][1]} (pi {p['pi']} {p['slot']})"


def table_text(table: dict[str, Any]) -> str:
    """What a table that changed says: the tiles laid, gone or read again, the pis' progress, the score."""
    said = []
    if table["laid"]:
        said.append("laid " + ", ".join(map(_where, table["laid"])))
    if table["left"]:
        said.append("gone " + ", ".join(map(_where, table["left"])))
    if table["reread"]:
        said.append("read again as " + ", ".join(map(_where, table["reread"])))
    said = said or ["nothing laid yet"]
    status = _status(table["problems"])
    return f"{'; '.join(said)}: {_progress(table)}, score {table['score']} ({status})"


def turn_text(turn: dict[str, Any]) -> str:
    """What a turn judged says: the tiles played, the hand, the problems; a second line where the game ends."""
    hand = " ".join(turn["hand"]) or "empty"
    if turn["turn"] == 0:
        said = f"turn 0, the game as the film starts it: hand {hand}"
    else:
        said = f"turn {turn['turn']}: played {', '.join(map(_where, turn['played'])) or 'nothing'}; hand {hand}"
    line = f"{said} ({_status(turn['problems'])})"
    if turn["went_out"]:
        return line + "\nthe game went out: every tile is placed"
    if turn["over"]:
        return line + f"\ngame over: no tile in the hand can be laid; score {turn['score']}"
    return line


def _timed(seconds: float, text: str) -> str:
    """A line for the terminal: the seconds, then the text, its later lines under the first."""
    return f"{seconds:7.2f} s  " + text.replace("\n", "\n" + " " * 11)


def _status(problems: list[dict[str, Any]]) -> str:
    """A table's or a turn's problems, each with its kind, or "ok"."""
    return "; ".join(f"{q['kind'].replace('_', ' ')}: {q['detail']}" for q in problems) or "ok"


def _progress(table: dict[str, Any]) -> str:
    return f"{counted(table['placed'], 'tile')} placed, {counted(len(table['complete_pis']), 'pi')} complete"


def run_pis_watch(
    source: str,
    set_name: str,
    scoring: Scoring,
    as_json: bool,
    record: Path | None = None,
    profile: CalibrationProfile | None = None,
) -> None:
    """Score the game on `source` as it is laid: each table as it changes (live, on a camera), then the last
    score; with a `profile`, each turn judged as well. Exit code 1 where no tile was seen, where a frame is not
    of the profile's size, or where the camera stopped mid-game."""

    def show(table: dict[str, Any]) -> None:
        if not as_json:
            typer.echo(_timed(table["seconds"], table_text(table)))

    def show_turn(turn: dict[str, Any]) -> None:
        if not as_json:
            typer.echo(_timed(turn["seconds"], turn_text(turn)))

    kept = recording(record, "seven-pis", source)
    game = watched_or_exit(lambda: watch_pis(source, set_name, scoring, show, kept, profile=profile, on_turn=show_turn))
    watched = game.watched
    exit_if_nothing_held(source, watched, bool(game.tables), "no tile", "film the pis from above the table")
    last = game.tables[-1]
    turns = {"turns": game.turns, "turn_open": game.turn_open} if profile is not None else {}
    if as_json:
        typer.echo(json.dumps({**watched.to_json(), "tables": game.tables, **turns}))
    else:
        if game.turn_open:
            typer.echo("the watch ended mid-turn: the tiles laid since the last turn are not judged as a turn")
        if profile is not None:
            judged = game.turns[1:]
            faulty = sum(not t["ok"] for t in judged)
            typer.echo(f"{counted(len(judged), 'turn')} judged, {faulty} breaking a rule")
        typer.echo(f"score: {last['score']} ({last['scoring']} not placed) with {_progress(last)}")
    exit_if_cut_short(source, watched, "the tables judged until then stand")


def _tiles_key(dominoes: list[Domino]) -> list[tuple]:
    """Tiles read alike, for telling two readings of a still table apart: each tile's pips and where it lies, to
    8 px (a reading that straddles a step reads the table once more, no harm)."""
    return sorted((d.pips, *(round(float(x) / 8) for x in d.corners.mean(axis=0))) for d in dominoes)
