"""`tableref judge tempus VIDEO`: a Tempus Digit race timed from a film of the table, no stopwatch.

Every frame's line after the Starter is read as a photo's is; the line counts once it holds for a few
frames (rules/tempus.py, `settled_lines`), so a hand over the cards or one frame misread changes nothing.
The race is judged on the last line that settled, and timed from the film's first frame to the moment that
line was laid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import typer
from rich.console import Console
from rich.progress import Progress

from rules.tempus import LineChange, TempusOptions, judge, settled_lines
from server.app import fail
from server.commands.cards import print_verdict
from vision.cards.lines import NoStarterError, line_digits, read_tempus_line
from vision.cards.recognize import CardRecognizer
from vision.sources import SourceError, timed_frames

MOST_FRAMES = 100_000  # about an hour at 30 fps


@dataclass(frozen=True)
class FilmedRace:
    changes: list[LineChange]  # the line as it settled, in time
    frames: int
    started: float  # the first frame's time, seconds

    @property
    def finished_at(self) -> float | None:
        """Seconds from the first frame to the moment the last line first settled: a hand passing over the
        finished line hides some of it for a while, and the line it leaves is the same."""
        if not self.changes:
            return None
        final = self.changes[-1].cards
        return next(c.seconds for c in self.changes if c.cards == final) - self.started


def watch_race(video: Path, recognizer: CardRecognizer | None = None) -> FilmedRace:
    """Every frame of the film read for its line after the Starter (None where no Starter is seen)."""
    recognizer = recognizer or CardRecognizer()
    capture = cv2.VideoCapture(str(video))
    total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) or None
    capture.release()
    readings: list[tuple[float, tuple[int, ...] | None]] = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"reading {video.name}", total=total)
        for seconds, frame in timed_frames(str(video), MOST_FRAMES):
            cards = recognizer(frame)
            try:
                line = tuple(line_digits(read_tempus_line(recognizer.classifier, frame, cards)))
            except NoStarterError:
                line = None
            readings.append((seconds, line))
            progress.advance(task)
    started = readings[0][0] if readings else 0.0
    return FilmedRace(settled_lines(readings), len(readings), started)


def run_video_race(video: Path, options: TempusOptions, as_json: bool) -> None:
    """Judge and time the race filmed in `video`, printing the line as it grew and the verdict."""
    try:
        race = watch_race(video)
    except SourceError as exc:
        fail(str(exc))
        raise typer.Exit(code=1) from exc
    if not race.changes:
        fail(f"{video}: no line after a Starter held still in {race.frames} frames; film the Starter and the cards")
        raise typer.Exit(code=1)
    verdict = judge(race.changes[-1].cards, options)
    finished_at = race.finished_at
    within = finished_at <= options.time_limit
    if as_json:
        laid = [{**c.to_json(), "seconds": round(c.seconds - race.started, 3)} for c in race.changes]
        timing = {"frames": race.frames, "laid": laid, "finished_at": round(finished_at, 3)}
        typer.echo(json.dumps({**verdict.to_json(), **timing, "time_limit": options.time_limit, "within_time": within}))
        return
    for change in race.changes:
        typer.echo(f"{change.seconds - race.started:7.2f} s  3.{''.join(map(str, change.cards))}")
    print_verdict(verdict, options)
    limit = f"the limit for {options.digits} digits is {options.time_limit:g} s"
    typer.echo(f"last card laid at {finished_at:.2f} s; {limit}{'' if within else ': over time'}")
