"""`tableref judge digit-moves VIDEO|CAMERA`: a DIGIT game refereed from a film of the table, move by move.

Every frame's layout is read as a photo's is (vision/sticks/layout.py); a layout counts once it holds for a
few frames (rules/settling.py), so a hand moving a stick, or one frame misread, is no move. Each layout that
settles after another is judged as one turn, as `judge digit-move` judges two photos. The watch ends with the
film, on Ctrl-C, or when the camera stops (server/watching.py); the turns judged until then stand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import typer

from rules.settling import Settler
from server.app import counted
from server.commands.sticks import (
    MIRRORED,
    glare_by_short_layout,
    move_result,
    move_text,
    problem_texts,
    status_names,
)
from server.storage import NotRecorded, Recording, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.sticks import StickRecognizer
from vision.sticks.layout import TableLayout, camera_motion, layout_key, table_layout
from vision.stillness import Remembered

if TYPE_CHECKING:
    from rules.sticks import Symmetry


@dataclass(frozen=True)
class WatchedGame:
    # Each table as it settled: seconds, sticks, card, legal, status, the DIGIT cards read and those it matches.
    layouts: list[dict[str, Any]]
    moves: list[dict[str, Any]]  # each turn between two settled layouts, as `move_result`, with its seconds
    watched: Watched


def watch_game(
    source: str,
    symmetry: Symmetry,
    on_settled: Callable[[dict[str, Any], dict[str, Any] | None], None] = lambda layout, move: None,
    recording: Recording | NotRecorded | None = None,
    onlooker: Onlooker | None = None,
    recognizer: StickRecognizer | None = None,
) -> WatchedGame:
    """The game on `source` (a video file, a camera index or a stream URL), read frame by frame until the
    watch ends; `on_settled` hears of each layout as it settles, with the turn that made it (None for the
    first layout, or where either table holds no layout), `recording` keeps them, and the `onlooker` sees every
    frame. The printed DIGIT cards on the table are read in the frame where a layout settles (not in every
    frame: they cost as much again as the sticks), and the layout matched against them (variant 4, cards on
    the table). A layout that settles short of its five sticks beside a lamp's glare carries the advice."""
    from rules.digit_game import matching_cards
    from rules.sticks import card_number
    from vision.sticks.cards import read_digit_cards

    recording = recording or NotRecorded()
    recognizer = recognizer or StickRecognizer()
    settler: Settler[TableLayout] = Settler(key=layout_key)
    layouts: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    settled_frames: list[np.ndarray] = []  # the frame each layout settled in: the camera's move is told by them
    layout_of = Remembered(lambda frame: table_layout(*recognizer(frame)), layout_key)

    def on_frame(seconds: float, frame: np.ndarray) -> None:
        settled = settler.add(seconds, layout_of(frame))
        if settled is None:
            return
        table, status = settled.reading, settled.reading.status()
        card = card_number(table.layout, symmetry) if table.layout is not None and not status else None
        on_table = read_digit_cards(frame)
        numbers = list(dict.fromkeys(c.card for c in on_table))
        glare = glare_by_short_layout(frame, table)
        layout = {
            "seconds": round(settled.seconds, 3),
            "sticks": len(table.sticks),
            "card": card,
            "legal": table.layout is not None and not status,
            "status": status_names(status),
            "table_cards": [c.to_json() for c in on_table],  # as `judge digit` gives them
            "matches": list(matching_cards(table.layout, numbers, symmetry)) if card is not None else [],
            "glare": glare.message if glare is not None else None,
        }
        layouts.append(layout)
        before = settler.settled[-2].reading if len(settler.settled) > 1 else None
        settled_frames[:] = [*settled_frames[-1:], frame]
        move = None
        if before is not None and before.layout is not None and table.layout is not None:
            motion = camera_motion(settled_frames[0], frame, before, table)
            move = {"seconds": layout["seconds"], **move_result(before, table, symmetry, motion)}
            moves.append(move)
        recording.add(layout["seconds"], {"layout": layout, "move": move})
        on_settled(layout, move)

    watched = watch(source, on_frame, recording, onlooker=onlooker)
    return WatchedGame(layouts, moves, watched)


def settled_text(layout: dict[str, Any], move: dict[str, Any] | None) -> str:
    """What a layout that settled says, with the turn that made it: one line for the terminal or the page."""
    if move is not None:
        said = move_text(move)
    elif layout["card"] is not None:
        said = f"the table shows card {layout['card']}"
    else:
        problems = problem_texts(layout["status"]) or [MIRRORED]
        said = f"{counted(layout['sticks'], 'stick')}, no card: " + "; ".join(problems)
    if layout["matches"]:
        said += f"; it matches card {layout['matches'][0]} on the table"
    if layout["glare"]:
        said += f"; {layout['glare']}"
    return said


def run_digit_moves(source: str, symmetry: Symmetry, as_json: bool, record: Path | None = None) -> None:
    """Referee the game on `source`: each layout and each turn as it settles (live, on a camera), then the
    moves in all. Exit code 1 where no layout was seen, or where the camera stopped mid-game."""

    def show(layout: dict[str, Any], move: dict[str, Any] | None) -> None:
        if not as_json:
            typer.echo(f"{layout['seconds']:7.2f} s  {settled_text(layout, move)}")

    kept = recording(record, "digit", source)
    game = watched_or_exit(lambda: watch_game(source, symmetry, on_settled=show, recording=kept))
    watched = game.watched
    exit_if_nothing_held(source, watched, bool(game.layouts), "no layout", "film the sticks from above the table")
    legal = sum(move["legal"] for move in game.moves)
    if as_json:
        typer.echo(json.dumps({**watched.to_json(), "layouts": game.layouts, "moves": game.moves}))
    else:
        typer.echo(f"{counted(len(game.moves), 'turn')} judged, {legal} legal")
    exit_if_cut_short(source, watched, "the turns judged until then stand")
