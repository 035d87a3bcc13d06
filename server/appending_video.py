"""`tableref judge append VIDEO|CAMERA`: the appending game refereed as it is laid, from a film, a camera or a
stream.

Every frame's line after the Starter is read as a photo's is (Wilds included); the line counts once it holds
for a few frames (rules/settling.py), so a hand laying a card changes nothing until it is gone, and each line
settled is judged (rules/appending.py). The watch ends with the film, when the fifty are laid, on Ctrl-C, or
when a camera stops (the lines judged until then stand).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typer

from rules.appending import AppendVerdict, judge_line
from rules.settling import Settler
from server.storage import NotRecorded, Recording, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.cards.lines import NoStarterError, line_cards, read_appending_line
from vision.cards.recognize import CardRecognizer


@dataclass(frozen=True)
class SettledLine:
    seconds: float  # from the first frame
    verdict: AppendVerdict


@dataclass(frozen=True)
class WatchedLine:
    lines: list[SettledLine]  # each line as it settled
    watched: Watched  # ended by the film, "complete", Ctrl-C or the camera stopping


def watch_appending(
    source: str,
    recognizer: CardRecognizer | None = None,
    on_change: Callable[[SettledLine], None] = lambda line: None,
    recording: Recording | NotRecorded | None = None,
    onlooker: Onlooker | None = None,
) -> WatchedLine:
    """The appending game on `source`, read frame by frame until it ends (see the module); `on_change` hears of
    each line judged as it settles, `recording` keeps it, and the `onlooker` sees every frame."""
    recording = recording or NotRecorded()
    recognizer = recognizer or CardRecognizer()
    settler: Settler[tuple] = Settler()
    lines: list[SettledLine] = []

    def on_frame(seconds: float, frame: np.ndarray) -> str | None:
        settled = settler.add(seconds, _line(recognizer, frame))
        if settled is None:
            return None
        lines.append(SettledLine(settled.seconds, judge_line(settled.reading)))
        recording.add(settled.seconds, lines[-1].verdict.to_json())
        on_change(lines[-1])
        return "complete" if lines[-1].verdict.complete else None

    watched = watch(source, on_frame, recording, onlooker=onlooker)
    return WatchedLine(lines, watched)


def _line(recognizer: CardRecognizer, frame: np.ndarray) -> tuple | None:
    cards = recognizer(frame)
    try:
        return tuple(line_cards(read_appending_line(recognizer.classifier, frame, cards)))
    except NoStarterError:
        return None


def run_video_appending(source: str, as_json: bool, record: Path | None = None) -> None:
    """Referee the appending game on `source`, printing each line as it settles and the verdict on the last.
    Exit code 1 where no line was seen, or where the camera stopped mid-game (after the verdict)."""
    from server.commands.appending import line_text, verdict_lines

    def show(line: SettledLine) -> None:
        if not as_json:
            typer.echo(f"{line.seconds:7.2f} s  {line_text(line.verdict.cards)}")

    kept = recording(record, "append", source)
    game = watched_or_exit(lambda: watch_appending(source, on_change=show, recording=kept))
    exit_if_nothing_held(
        source, game.watched, bool(game.lines), "no line after a Starter", "film the Starter and the cards"
    )
    last = game.lines[-1]
    if as_json:
        laid = [{"seconds": round(line.seconds, 3), **line.verdict.to_json()} for line in game.lines]
        typer.echo(json.dumps({**last.verdict.to_json(), **game.watched.to_json(), "laid": laid}))
    else:
        for text in verdict_lines(last.verdict, None):
            typer.echo(text)
    exit_if_cut_short(source, game.watched, "the verdict is on the line read until then")
