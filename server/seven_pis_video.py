"""`tableref judge seven-pis VIDEO|CAMERA`: a Seven Pis game scored from a film of the table as it is laid.

Tiles are followed from frame to frame (vision/dominoes/tracking.py): a tile counts once it holds still for a
few frames, and is timed at the first of them. Each time a tile comes or goes, or later frames read its pips
otherwise, the table is judged again: its pis, their problems and the score. A pi keeps its number while any
of its tiles stay, so the pis are not renumbered as a new one is started above the others. A placed tile that
leaves the table, or is moved away, is reported as moved. The watch ends with the film, on Ctrl-C, or when the
camera stops (server/watching.py); the tables judged until then stand.

The hand is not seen, so the turn rules that need it (a tile a turn at least, three at most) are not judged.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import typer

from rules.seven_pis import Layout, Placement, Problem, Scoring, Setup, Status, TableState
from server.app import counted
from server.commands.dominoes import chosen_setup
from server.storage import NotRecorded, Recording, recording
from server.watching import Watched, exit_if_camera_stopped, exit_if_nothing_held, watch, watched_or_exit
from vision.dominoes import Domino, DominoRecognizer
from vision.dominoes.pis import PiGroup, read_pis
from vision.dominoes.tracking import TableChange, TileTracker


@dataclass(frozen=True)
class WatchedPis:
    tables: list[dict[str, Any]]  # each table as it changed: seconds, tiles laid and gone, pis, score, problems
    watched: Watched


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
) -> WatchedPis:
    """The game on `source` (a video file, a camera index or a stream URL), read frame by frame until the
    watch ends; `on_table` hears of each table as it changes, and `recording` keeps it. `set_name`: six, nine,
    or auto (the tiles say)."""
    recording = recording or NotRecorded()
    recognizer = DominoRecognizer()
    tracker = TileTracker()
    placed: dict[int, Placement] = {}  # each tile's placement at the last change, by tile id
    tables: list[dict[str, Any]] = []

    def on_frame(seconds: float, frame: np.ndarray) -> None:
        nonlocal placed
        change = tracker.add(seconds, recognizer(frame))
        if change is None:
            return
        size = frame.shape[1::-1]
        setup = chosen_setup(set_name, scoring, list(change.tiles.values()), size)
        before = placed
        placed = table_layout(change.tiles, setup, size, {i: p.pi for i, p in before.items()})
        table = _judged(change, setup, before, placed)
        tables.append(table)
        recording.add(table["seconds"], table)
        on_table(table)

    return WatchedPis(tables, watch(source, on_frame, recording))


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
        "laid": [now[i].to_json() for i in change.laid],
        "left": [before[i].to_json() for i in change.left if i in before],
        "reread": [now[i].to_json() for i in change.reread if i in now],
        "placed": outcome.placed,
        "complete_pis": list(outcome.completed),
        "score": outcome.score,
        "scoring": outcome.scoring.value,
        "pis": {str(pi): tiles for pi, tiles in sorted(pis.items())},
        "problems": [q.to_json() for q in (*state.status().problems, *gone)],
    }


def _table_line(table: dict[str, Any]) -> str:
    def where(p: dict[str, Any]) -> str:
        return f"{p['ends'][0]}|{p['ends'][1]} (pi {p['pi']} {p['slot']})"

    said = []
    if table["laid"]:
        said.append("laid " + ", ".join(map(where, table["laid"])))
    if table["left"]:
        said.append("gone " + ", ".join(map(where, table["left"])))
    if table["reread"]:
        said.append("read again as " + ", ".join(map(where, table["reread"])))
    problems = table["problems"]
    status = "ok" if not problems else "; ".join(q["detail"] for q in problems)
    return f"{table['seconds']:7.2f} s  {'; '.join(said)}: {_progress(table)}, score {table['score']} ({status})"


def _progress(table: dict[str, Any]) -> str:
    return f"{counted(table['placed'], 'tile')} placed, {counted(len(table['complete_pis']), 'pi')} complete"


def run_pis_watch(source: str, set_name: str, scoring: Scoring, as_json: bool, record: Path | None = None) -> None:
    """Score the game on `source` as it is laid: each table as it changes (live, on a camera), then the last
    score. Exit code 1 where no tile was seen, or where the camera stopped mid-game."""

    def show(table: dict[str, Any]) -> None:
        if not as_json:
            typer.echo(_table_line(table))

    kept = recording(record, "seven-pis", source)
    game = watched_or_exit(lambda: watch_pis(source, set_name, scoring, on_table=show, recording=kept))
    watched = game.watched
    exit_if_nothing_held(source, watched, bool(game.tables), "no tile", "film the pis from above the table")
    last = game.tables[-1]
    if as_json:
        typer.echo(json.dumps({**watched.to_json(), "tables": game.tables}))
    else:
        typer.echo(f"score: {last['score']} ({last['scoring']} not placed) with {_progress(last)}")
    exit_if_camera_stopped(source, watched, "the tables judged until then stand")
