"""`tableref judge tempus VIDEO|CAMERA --calibration PROFILE`: a race between players, a lane each, timed from
a film of the mat.

Each frame is read as a photo of the lanes is (server/tempus_lanes.py): the cards placed on the table through the
profile, split among its lanes, each lane's line taken from its Starter. Each lane's line counts once it holds
for a few frames (rules/tempus.py, `LineSettler`), so a hand reaching over a lane changes nothing. A player's
finish is the moment their lane's last line first settled; the lanes are ranked on their last lines, a tie going
to whoever finished first. The race ends with the film, when every lane with a line holds a complete one, when
the time limit passes, on Ctrl-C, or when the camera stops; what was read until then is judged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typer

from calibration.lanes import lanes_of
from calibration.profile import CalibrationProfile
from calibration.sweep import read_lane_cards
from calibration.topdown import TopDownView
from rules.tempus import LineChange, LineSettler, RaceEntry, TempusOptions, finish_time, judge, rank
from server.app import load_calibration
from server.storage import NotRecorded, Recording, recording
from server.tempus_lanes import LaneRaceError, judge_lanes, print_ranking
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.cards.recognize import Card, CardRecognizer
from vision.stillness import Remembered


@dataclass(frozen=True)
class WatchedLanes:
    changes: dict[str, list[LineChange]]  # each lane's line as it settled, seconds from the first frame
    watched: Watched  # ended by the film, "complete", "time", Ctrl-C, the camera stopping or a frame's size

    def entries(self, options: TempusOptions) -> list[RaceEntry]:
        return lane_entries(self.changes, options)


def lane_entries(changes: dict[str, list[LineChange]], options: TempusOptions) -> list[RaceEntry]:
    """Each lane that settled a line, judged on its last one and timed to when that first settled."""
    return [
        RaceEntry(lane, judge(laid[-1].cards, options), finish_time(laid)) for lane, laid in changes.items() if laid
    ]


def lane_lines(cards: list[Card], profile: CalibrationProfile, options: TempusOptions) -> dict[str, tuple[int, ...]]:
    """Each lane's line after its Starter, as a photo's lanes are read; lanes with no Starter are left out."""
    try:
        race = judge_lanes(cards, profile, options)
    except LaneRaceError:  # no card in any lane yet
        return {}
    return {lane.name: tuple(lane.verdict.cards) for lane in race.lanes if lane.verdict is not None}


def lane_text(lane: str, change: LineChange) -> str:
    """A lane's line as it settled, for the terminal or the page."""
    return f"{lane}: 3.{''.join(map(str, change.cards))}"


def watch_lane_race(
    source: str,
    profile: CalibrationProfile,
    options: TempusOptions,
    on_change: Callable[[str, LineChange], None] = lambda lane, change: None,
    recording: Recording | NotRecorded | None = None,
    onlooker: Onlooker | None = None,
    recognizer: CardRecognizer | None = None,
) -> WatchedLanes:
    """The race on `source` read frame by frame until it ends (see the module); `on_change` hears of each
    lane's line as it settles, `recording` keeps it, and the `onlooker` sees every frame. A frame of another size than
    the profile's ends the watch."""
    recording = recording or NotRecorded()
    recognizer = recognizer or CardRecognizer()
    view, lanes = TopDownView(profile.table), lanes_of(profile.zones)
    settlers = {lane.zone.name: LineSettler() for lane in lanes}
    lines_of = Remembered(lambda frame: lane_lines(read_lane_cards(recognizer, frame, view, lanes), profile, options))

    def on_frame(seconds: float, frame: np.ndarray) -> str | None:
        if seconds > options.time_limit:
            return "time"
        lines = lines_of(frame)
        for lane, settler in settlers.items():
            change = settler.add(seconds, lines.get(lane))
            if change is not None:
                recording.add(change.seconds, {"lane": lane, **change.to_json()})
                on_change(lane, change)
        last = [settler.changes[-1].cards for settler in settlers.values() if settler.changes]
        return "complete" if last and all(judge(cards, options).complete for cards in last) else None

    watched = watch(source, on_frame, recording, size_problem=profile.size_problem, onlooker=onlooker)
    return WatchedLanes({lane: settler.changes for lane, settler in settlers.items()}, watched)


def run_lane_video_race(
    source: str, calibration: Path, options: TempusOptions, as_json: bool, record: Path | None = None
) -> None:
    """Judge, time and rank the race on `source`, printing each lane's line as it settles (live, on a camera).
    Exit code 1 where no lane's line was seen, or where the camera stopped or sent a frame of another size than
    the profile's mid-race (after the ranking)."""
    profile = load_calibration(calibration, "lane")

    def show(lane: str, change: LineChange) -> None:
        if not as_json:
            typer.echo(f"{change.seconds:7.2f} s  {lane_text(lane, change)}")

    kept = recording(record, "tempus-lanes", source)
    race = watched_or_exit(lambda: watch_lane_race(source, profile, options, on_change=show, recording=kept))
    entries = race.entries(options)
    exit_if_nothing_held(source, race.watched, bool(entries), "no lane's line", "film the lanes and their Starters")
    result = rank(entries, options)
    if as_json:
        lanes = [
            {"lane": e.player, **e.verdict.to_json(), "laid": [c.to_json() for c in race.changes[e.player]],
             "finished_at": round(e.finished_at, 3)}
            for e in entries
        ]  # fmt: skip
        typer.echo(json.dumps({**race.watched.to_json(), "lanes": lanes, "ranking": result.to_json()}))
    else:
        for e in entries:
            line, verdict = "".join(map(str, e.verdict.cards)), e.verdict
            typer.echo(f"{e.player}: 3.{line}  {verdict.consecutive_correct} of {verdict.digits} consecutive correct")
        print_ranking(result, typer.echo)
    exit_if_cut_short(source, race.watched, "the ranking is on the lines read until then")
