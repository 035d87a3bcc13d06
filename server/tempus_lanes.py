"""`tableref judge tempus PHOTO --calibration PROFILE`: every lane of the mat is one player's line.

The cards are placed on the table through the profile, split among its lanes (calibration/lanes.py),
each lane judged on its own from its Starter, and the lanes ranked by rules/tempus.py. A photo has no
finish times, so ties stay shared unless the players' times are typed in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import typer

from calibration.lanes import LaneLine, lanes_of, read_lanes
from calibration.profile import CalibrationProfile
from calibration.sweep import read_lane_cards
from calibration.topdown import TopDownView
from rules.tempus import RaceEntry, RaceResult, TempusOptions, TempusVerdict, judge, rank
from server.app import fail, load_calibration, load_photo, write_image
from vision.cards.artwork import CARD_MM
from vision.cards.lines import STARTER_STAND_INS
from vision.cards.recognize import Card, CardRecognizer


class LaneRaceError(ValueError):
    """The photo or the typed times cannot make a race."""


@dataclass(frozen=True)
class LaneVerdict:
    line: LaneLine
    order: list[Card]  # the Starter, then the line's cards
    verdict: TempusVerdict | None  # None when the lane has cards but no Starter
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.line.lane.zone.name

    def to_json(self) -> dict:
        return {
            "lane": self.name,
            "player": self.line.lane.zone.player,
            "judged": self.verdict is not None,
            **(self.verdict.to_json() if self.verdict else {}),
            "rows": [len(r) for r in self.line.rows],
            "stray_cards": len(self.line.stray),
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class LaneRace:
    lanes: list[LaneVerdict]
    result: RaceResult
    outside: int  # cards in no lane
    warnings: list[str]

    def to_json(self) -> dict:
        return {
            "lanes": [lane.to_json() for lane in self.lanes],
            "ranking": self.result.to_json(),
            "outside_lanes": self.outside,
            "warnings": self.warnings,
        }


def parse_finish_times(items: list[str]) -> dict[str, float]:
    """`lane-1=31.5` pairs (a lane name or a player number before the '=') -> seconds by that key."""
    times: dict[str, float] = {}
    for item in items:
        key, sep, value = item.partition("=")
        try:
            seconds = float(value)
        except ValueError:
            seconds = float("nan")
        if not sep or not key or not seconds >= 0:
            raise LaneRaceError(f"--finished takes LANE=SECONDS (e.g. lane-1=31.5), got {item!r}")
        times[key.strip()] = seconds
    return times


def judge_lanes(
    cards: list[Card],
    profile: CalibrationProfile,
    options: TempusOptions,
    finished: dict[str, float] | None = None,
) -> LaneRace:
    """Judge every lane that holds cards and rank the lanes that have a Starter."""
    if not lanes_of(profile.zones):
        raise LaneRaceError("the profile has no lanes (zones of purpose 'lane'); draw some with `tableref zones`")
    finished = dict(finished or {})
    # A card's outline, not its pixel centre, is mapped: under perspective the two centres differ.
    positions = [tuple(profile.table.pixel_to_mm(c.corners).mean(axis=0)) for c in cards]
    starters = [c.face.kind == "starter" for c in cards]
    stand_ins = [c.face in STARTER_STAND_INS for c in cards]
    reading = read_lanes(positions, starters, profile.zones, [c.confidence for c in cards], stand_ins=stand_ins)
    verdicts, entries = [], []
    for line in reading.lines:
        if line.empty:
            continue
        zone = line.lane.zone
        keys = [k for k in (zone.name, str(zone.player)) if k in finished]
        finished_at = finished.pop(keys[0]) if keys else None
        verdict, warnings = _judge_line(line, cards, options)
        order = ([cards[line.starter]] if line.starter is not None else []) + [cards[i] for i in line.cards]
        verdicts.append(LaneVerdict(line, order, verdict, warnings))
        if verdict is not None:
            entries.append(RaceEntry(zone.name, verdict, finished_at))
    if not verdicts:
        raise LaneRaceError("no card lies in any lane")
    if finished:
        raise LaneRaceError(f"--finished names no occupied lane: {', '.join(sorted(finished))}")
    warnings = []
    if reading.outside:
        warnings.append(f"{len(reading.outside)} card(s) lie outside every lane and were not judged")
    counts = [e.verdict.consecutive_correct for e in entries if e.finished_at is None]
    if len(set(counts)) < len(counts):
        warnings.append("a photo has no finish times: lanes with equal counts share a rank (give --finished)")
    narrow = [v.name for v in verdicts if v.line.lane.width < CARD_MM[0]]
    if narrow:
        warnings.append(
            f"{', '.join(narrow)} {'is' if len(narrow) == 1 else 'are'} narrower than a card ({CARD_MM[0]:.0f} mm): "
            "print the race mat (`tableref kit mat --race`) and take its lanes with `tableref zones PROFILE --race`"
        )
    return LaneRace(verdicts, rank(entries, options), len(reading.outside), warnings)


def _judge_line(line: LaneLine, cards: list[Card], options: TempusOptions) -> tuple[TempusVerdict | None, list[str]]:
    warnings = []
    if line.starter is None:
        return None, [f"{len(line.stray)} card(s) but no Starter (3.): not judged"]
    if line.stand_in:
        warnings.append(f"no Starter read: the line starts at the {cards[line.starter].face.label} where it begins")
    faces = [cards[i].face for i in line.cards]
    if any(f.kind != "digit" for f in faces):
        warnings.append("a non-digit card in the line ends it there; Tempus decks hold digits only")
    if line.stray:
        warnings.append(f"{len(line.stray)} card(s) lie before the Starter or apart from its line, not judged")
    # Tempus decks hold digits only: the line ends at the first card that is not one.
    digits = []
    for face in faces:
        if face.kind != "digit":
            break
        digits.append(face.digits[0])
    return judge(digits, options), warnings


def print_race(race: LaneRace, echo) -> None:
    """The race as a person reads it: one line per lane, then the ranking."""
    for lane in race.lanes:
        player = f" (player {lane.line.lane.zone.player})" if lane.line.lane.zone.player else ""
        if lane.verdict is None:
            echo(f"{lane.name}{player}: not judged")
        else:
            v = lane.verdict
            summary = f"{v.consecutive_correct} of {v.digits} consecutive correct"
            if v.first_error:
                expected = "no card" if v.first_error.expected is None else str(v.first_error.expected)
                summary += f"; card {v.first_error.index + 1} is {v.first_error.got}, expected {expected}"
            elif v.complete:
                summary += "; complete"
            echo(f"{lane.name}{player}: 3.{''.join(map(str, v.cards))}  {summary}")
        for warning in lane.warnings:
            echo(f"  note: {warning}")
    print_ranking(race.result, echo)
    for warning in race.warnings:
        echo(f"note: {warning}")


def print_ranking(result: RaceResult, echo) -> None:
    """The standings, one line each, with the finish times where known."""
    echo("ranking:" if result.standings else "ranking: none, no lane holds a Starter")
    for standing in result.standings:
        time = "" if standing.finished_at is None else f", finished at {standing.finished_at:g} s"
        late = "" if standing.within_time or standing.finished_at is None else " (over the time limit)"
        echo(f"  {standing.rank}. {standing.player}: {standing.consecutive_correct} correct{time}{late}")


def annotate_race(image: np.ndarray, cards: list[Card], race: LaneRace) -> np.ndarray:
    """The photo with every card, and each lane's reading order numbered from its Starter (0)."""
    from vision.annotate import annotate_cards

    out = annotate_cards(image, cards)
    for lane in race.lanes:
        out = annotate_cards(out, [], lane.order)
    return out


def run_lane_race(
    photo: Path,
    calibration: Path,
    options: TempusOptions,
    finished: list[str],
    as_json: bool,
    annotate: Path | None,
) -> None:
    """The command's body: read the photo, judge the lanes, print; every failure is one line and exit 1 or 2."""
    profile = load_calibration(calibration, "lane")
    try:
        times = parse_finish_times(finished)
    except LaneRaceError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    image = load_photo(photo)
    if problem := profile.size_problem(image.shape[1::-1]):
        fail(f"{photo}: {problem}")
        raise typer.Exit(code=1)
    # Read on the raw frame and the top-down view, then where the lanes say the cards lie (calibration/sweep.py).
    cards = read_lane_cards(CardRecognizer(), image, TopDownView(profile.table), lanes_of(profile.zones))
    try:
        race = judge_lanes(cards, profile, options, times)
    except LaneRaceError as exc:
        fail(f"{photo}: {exc}")
        raise typer.Exit(code=1) from exc
    if as_json:
        typer.echo(json.dumps(race.to_json()))
    else:
        print_race(race, typer.echo)
    if annotate:
        write_image(annotate, annotate_race(image, cards, race))
