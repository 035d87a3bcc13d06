"""`tableref judge tempus VIDEO|CAMERA`: a Tempus Digit race timed from a film of the table, no stopwatch; and the
verdict's words, which the photo's judge and the dashboard say too.

Every frame's line after the Starter is read as a photo's is; the line counts once it holds for a few
frames (rules/tempus.py, `LineSettler`), so a hand over the cards or one frame misread changes nothing. The
race is timed from the first frame (server/watching.py). It ends when the film does, when the line is
complete, when the time limit passes (the sheet stops sorting there: the line on the table then is judged),
or, watched live, when the referee presses Ctrl-C. A camera that stops mid-race ends it too: the lines
settled so far are judged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typer

from rules.tempus import LineChange, LineSettler, TempusOptions, TempusVerdict, finish_time, judge
from server.storage import NotRecorded, Recording, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.cards.lines import NoStarterError, line_digits, read_tempus_line
from vision.cards.recognize import CardRecognizer
from vision.stillness import Remembered


def verdict_lines(verdict: TempusVerdict, options: TempusOptions) -> list[str]:
    """The verdict as the terminal and the dashboard say it: the line read, the count, the first error."""
    cards = "".join(str(d) for d in verdict.cards)
    lines = [f"3.{cards or ''}", f"consecutive correct: {verdict.consecutive_correct} of {options.digits}"]
    if verdict.first_error:
        e = verdict.first_error
        expected = "no card (the deck ends there)" if e.expected is None else str(e.expected)
        lines.append(f"first error: card {e.index + 1} after the Starter is {e.got}, expected {expected}")
    elif verdict.complete:
        lines.append("complete: every digit in order")
    else:
        lines.append("no error so far; the deck is not finished")
    return lines


def print_verdict(verdict: TempusVerdict, options: TempusOptions) -> None:
    for line in verdict_lines(verdict, options):
        typer.echo(line)


@dataclass(frozen=True)
class WatchedRace:
    changes: list[LineChange]  # the line as it settled, seconds from the first frame
    watched: Watched  # ended by the film, "complete", "time", Ctrl-C or the camera stopping

    @property
    def finished_at(self) -> float | None:
        """Seconds from the first frame to the moment the last line first settled."""
        return finish_time(self.changes)


def watch_race(
    source: str,
    options: TempusOptions,
    recognizer: CardRecognizer | None = None,
    on_change: Callable[[LineChange], None] = lambda change: None,
    recording: Recording | NotRecorded | None = None,
    onlooker: Onlooker | None = None,
) -> WatchedRace:
    """The race on `source` (a video file, a camera index or a stream URL), read frame by frame until it
    ends (see the module); `on_change` hears of each line as it settles, `recording` keeps it, and the `onlooker` sees
    every frame (server/watching.py)."""
    recording = recording or NotRecorded()
    recognizer = recognizer or CardRecognizer()
    settler = LineSettler()
    line_of = Remembered(lambda frame: _line(recognizer, frame))

    def on_frame(seconds: float, frame: np.ndarray) -> str | None:
        if seconds > options.time_limit:
            return "time"
        change = settler.add(seconds, line_of(frame))
        if change is None:
            return None
        recording.add(change.seconds, change.to_json())
        on_change(change)
        return "complete" if judge(change.cards, options).complete else None

    watched = watch(source, on_frame, recording, onlooker=onlooker)
    return WatchedRace(settler.changes, watched)


def _line(recognizer: CardRecognizer, frame: np.ndarray) -> tuple[int, ...] | None:
    cards = recognizer(frame)
    try:
        return tuple(line_digits(read_tempus_line(recognizer.classifier, frame, cards)))
    except NoStarterError:
        return None


def run_video_race(source: str, options: TempusOptions, as_json: bool, record: Path | None = None) -> None:
    """Judge and time the race on `source`, printing each line as it settles (live, on a camera) and the
    verdict. Exit code 1 where no line was seen, or where the camera stopped mid-race (after the verdict on
    what was read until then)."""

    def show(change: LineChange) -> None:
        if not as_json:
            typer.echo(f"{change.seconds:7.2f} s  3.{''.join(map(str, change.cards))}")

    kept = recording(record, "tempus", source)
    race = watched_or_exit(lambda: watch_race(source, options, on_change=show, recording=kept))
    watched = race.watched
    exit_if_nothing_held(
        source, watched, bool(race.changes), "no line after a Starter", "film the Starter and the cards"
    )
    verdict = judge(race.changes[-1].cards, options)
    finished_at = race.finished_at
    within = finished_at <= options.time_limit and watched.ended_by != "time"
    if as_json:
        laid = [c.to_json() for c in race.changes]
        timing = {**watched.to_json(), "laid": laid, "finished_at": round(finished_at, 3)}
        typer.echo(json.dumps({**verdict.to_json(), **timing, "time_limit": options.time_limit, "within_time": within}))
    else:
        print_verdict(verdict, options)
        limit = f"the limit for {options.digits} digits is {options.time_limit:g} s"
        typer.echo(f"last card laid at {finished_at:.2f} s; {limit}{'' if within else ': time ran out'}")
    exit_if_cut_short(source, watched, "the verdict is on the line read until then")
