"""Decko Digits' appending and block games refereed as they are laid, from a film, a camera or a stream
(`tableref judge append|blocks VIDEO|CAMERA`).

Every frame is read as a photo of the game is (the line after the Starter, or the sets of five); what is read
counts once it holds for a few frames (rules/settling.py), so a hand laying a card changes nothing until it
is gone, and each state settled is judged by the game's rules. The watch ends with the film, when the game
says it is over (the fifty decimals laid), on Ctrl-C, or when a camera stops (what was judged stands).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import typer

from rules.settling import Settler
from server.storage import NotRecorded, Recording, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.cards.recognize import CardRecognizer


class Verdict(Protocol):
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class DeckoGame:
    """How one game is watched: its name in the results file, what a frame shows of it (None: nothing to
    judge in it), its verdict on what settled, the reason it ends (or None), and its words."""

    name: str
    read: Callable[[CardRecognizer, np.ndarray], tuple | None]
    judge: Callable[[tuple], Verdict]
    ended: Callable[[Any], str | None]
    short: Callable[[Any], str]  # a verdict on one line, as it settles
    said: Callable[[Any], list[str]]  # the verdict whole
    nothing: tuple[str, str]  # what was not seen, and what to film instead


@dataclass(frozen=True)
class Settled:
    seconds: float  # from the first frame
    verdict: Any


@dataclass(frozen=True)
class WatchedGame:
    settled: list[Settled]  # each state judged as it settled
    watched: Watched


def watch_game(
    source: str,
    game: DeckoGame,
    recognizer: CardRecognizer | None = None,
    on_change: Callable[[Settled], None] = lambda settled: None,
    recording: Recording | NotRecorded | None = None,
    onlooker: Onlooker | None = None,
) -> WatchedGame:
    """`game` on `source`, read frame by frame until it ends (see the module); `on_change` hears of each state
    judged as it settles, `recording` keeps it, and the `onlooker` sees every frame."""
    recording = recording or NotRecorded()
    recognizer = recognizer or CardRecognizer()
    settler: Settler[tuple] = Settler()
    judged: list[Settled] = []

    def on_frame(seconds: float, frame: np.ndarray) -> str | None:
        settled = settler.add(seconds, game.read(recognizer, frame))
        if settled is None:
            return None
        judged.append(Settled(settled.seconds, game.judge(settled.reading)))
        recording.add(settled.seconds, judged[-1].verdict.to_json())
        on_change(judged[-1])
        return game.ended(judged[-1].verdict)

    watched = watch(source, on_frame, recording, onlooker=onlooker)
    return WatchedGame(judged, watched)


def run_video_game(source: str, game: DeckoGame, as_json: bool, record: Path | None = None) -> None:
    """Referee `game` on `source`, printing each state as it settles and the verdict on the last. Exit code 1
    where nothing was seen, or where the camera stopped mid-game (after the verdict)."""

    def show(settled: Settled) -> None:
        if not as_json:
            typer.echo(f"{settled.seconds:7.2f} s  {game.short(settled.verdict)}")

    kept = recording(record, game.name, source)
    watched = watched_or_exit(lambda: watch_game(source, game, on_change=show, recording=kept))
    exit_if_nothing_held(source, watched.watched, bool(watched.settled), *game.nothing)
    last = watched.settled[-1].verdict
    if as_json:
        laid = [{"seconds": round(s.seconds, 3), **s.verdict.to_json()} for s in watched.settled]
        typer.echo(json.dumps({**last.to_json(), **watched.watched.to_json(), "laid": laid}))
    else:
        for text in game.said(last):
            typer.echo(text)
    exit_if_cut_short(source, watched.watched, "the verdict is on what was read until then")
