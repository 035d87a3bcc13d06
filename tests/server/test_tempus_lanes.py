"""`tableref judge tempus PHOTO --calibration PROFILE`: one verdict per lane, then the ranking."""

import itertools
import json
import random
from functools import cache

import cv2
import numpy as np
import pytest

from calibration.evaluate import race_lines, race_zones
from calibration.homography import estimate_homography
from calibration.lanes import lanes_of
from calibration.mat import MatLayout
from calibration.profile import CalibrationProfile, save_profile
from calibration.synth import race_view
from calibration.topdown import TopDownView, read_cards
from calibration.zones import Zones, mat_zones
from rules.tempus import TempusOptions
from server.tempus_lanes import LaneRaceError, judge_lanes, parse_finish_times
from tests.server.test_cli import tableref
from vision.cards.recognize import Card, CardRecognizer

LAYOUT = MatLayout()
# The printed A3 lanes are narrower than a card: two lanes a card tall, drawn by the user over the printed
# zones, hold a Starter and three cards each.
USER_LANES = race_zones()
RACE_LANES = lanes_of(USER_LANES)


@cache
def race(seed: int):
    view = race_view(seed, LAYOUT, RACE_LANES, race_lines(seed), max_tilt_deg=45)
    profile = CalibrationProfile(estimate_homography(view.frame, LAYOUT), USER_LANES)
    return view, profile


def truth_cards(view) -> list[Card]:
    return [Card(c.face, c.corners_px.astype(np.float32), 1.0) for row in view.lines for c in row]


def test_every_lane_is_judged_from_its_starter_on_rendered_races():
    """With the cards' true outlines, the homography and the lanes alone must order every lane right."""
    options = TempusOptions()
    for seed in range(6):
        view, profile = race(seed)
        cards = truth_cards(view)
        random.Random(seed).shuffle(cards)
        result = judge_lanes(cards, profile, options)
        got = {lane.name: list(lane.verdict.cards) for lane in result.lanes}
        want = {
            lane.zone.name: [c.face.digits[0] for c in row[1:]]
            for lane, row in zip(RACE_LANES, view.lines, strict=True)
        }
        assert got == want, seed
        best = max(v.consecutive_correct for v in (lane.verdict for lane in result.lanes))
        assert result.result.standings[0].consecutive_correct == best


def _lane_and_place(view, card: Card) -> tuple[int, int] | None:
    """The true (lane, place) of the laid card under a read card, or None when it is no laid card."""
    for k, row in enumerate(view.lines):
        for place, laid in enumerate(row):
            if cv2.pointPolygonTest(laid.corners_px.astype(np.float32), tuple(map(float, card.center)), False) >= 0:
                return k, place
    return None


def test_recognised_cards_land_in_their_lane_in_their_order():
    """Over rendered races, every card the recogniser finds is put in its true lane, in its true order.

    (How many cards it finds is the recogniser's figure, measured in calibration/topdown.py.)"""
    recognizer = CardRecognizer()
    placed = wrong = 0
    for seed in range(20, 26):
        view, profile = race(seed)
        cards = read_cards(recognizer, view.frame, TopDownView(profile.table))
        try:
            result = judge_lanes(cards, profile, TempusOptions())
        except LaneRaceError:
            continue
        for lane in result.lanes:
            k = [lane_.zone.name for lane_ in RACE_LANES].index(lane.name)
            truth = [_lane_and_place(view, c) for c in lane.order]
            places = [t[1] for t in truth if t is not None and t[0] == k]
            placed += len(lane.order)
            wrong += len(lane.order) - len(places) + sum(a >= b for a, b in itertools.pairwise(places))
    assert placed >= 12
    assert wrong / placed <= 0.05


def test_the_command_prints_one_verdict_per_lane_and_the_ranking(tmp_path):
    view, profile = race(3)
    photo, profile_path, picture = tmp_path / "race.png", tmp_path / "table.json", tmp_path / "seen.png"
    cv2.imwrite(str(photo), view.frame)
    save_profile(profile, profile_path)
    args = ["judge", "tempus", str(photo), "--calibration", str(profile_path), "--annotate", str(picture)]
    result = tableref(*args, "--json", "--finished", "lane-2=40", "--finished", "1=35.5")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert picture.is_file()
    lanes = {lane["lane"]: lane for lane in out["lanes"]}
    assert set(lanes) <= {"lane-1", "lane-2"} and lanes
    truth = {
        lane.zone.name: [c.face.digits[0] for c in row[1:]] for lane, row in zip(RACE_LANES, view.lines, strict=True)
    }
    for name, lane in lanes.items():
        if lane["judged"]:  # what was read is the lane's own line, cards possibly missed but never reordered
            read = iter(truth[name])
            assert all(any(d == t for t in read) for d in lane["cards"]), (name, lane["cards"], truth[name])
    standings = out["ranking"]["standings"]
    assert [s["consecutive_correct"] for s in standings] == sorted(
        (s["consecutive_correct"] for s in standings), reverse=True
    )
    times = {s["player"]: s["finished_at"] for s in standings}
    assert times.get("lane-1", 35.5) == 35.5 and times.get("lane-2", 40.0) == 40.0


def test_the_command_refuses_bad_finish_times_and_a_profile_of_another_size(tmp_path):
    view, profile = race(3)
    photo, profile_path = tmp_path / "race.png", tmp_path / "table.json"
    cv2.imwrite(str(photo), view.frame)
    save_profile(profile, profile_path)
    result = tableref("judge", "tempus", str(photo), "--calibration", str(profile_path), "--finished", "lane-1")
    assert result.returncode == 2 and "LANE=SECONDS" in result.stderr
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(view.frame, (640, 360)))
    result = tableref("judge", "tempus", str(small), "--calibration", str(profile_path))
    assert result.returncode == 1
    assert "640x360 pixels" in result.stderr and "calibrate at this size" in result.stderr


def test_ties_without_finish_times_are_shared_and_said_so():
    view, profile = race(0)
    cards = truth_cards(view)
    for lane_cards in view.lines:  # make both lanes equally right: the Starter, then 1 4 1
        for laid, digit in zip(lane_cards[1:], (1, 4, 1), strict=True):
            i = next(i for i, c in enumerate(cards) if np.array_equal(c.corners, laid.corners_px.astype(np.float32)))
            cards[i] = Card(type(laid.face)("digit", (digit,)), cards[i].corners, 1.0)
    race_ = judge_lanes(cards, profile, TempusOptions())
    assert [s.rank for s in race_.result.standings] == [1, 1]
    assert any("no finish times" in w for w in race_.warnings)
    timed = judge_lanes(cards, profile, TempusOptions(), {"lane-2": 20.0, "lane-1": 25.0})
    assert [(s.rank, s.player) for s in timed.result.standings] == [(1, "lane-2"), (2, "lane-1")]
    assert not any("no finish times" in w for w in timed.warnings)


def test_finish_times_parse_and_must_name_an_occupied_lane():
    assert parse_finish_times(["lane-1=31.5", "2=40"]) == {"lane-1": 31.5, "2": 40.0}
    for bad in ("lane-1", "=3", "lane-1=-2", "lane-1=soon"):
        with pytest.raises(LaneRaceError):
            parse_finish_times([bad])
    view, profile = race(0)
    with pytest.raises(LaneRaceError, match="lane-3"):
        judge_lanes(truth_cards(view), profile, TempusOptions(), {"lane-3": 30.0})


def test_a_profile_without_lanes_is_refused():
    view, profile = race(0)
    no_lanes = CalibrationProfile(profile.table, Zones([z for z in USER_LANES if z.purpose != "lane"]))
    with pytest.raises(LaneRaceError, match="no lanes"):
        judge_lanes(truth_cards(view), no_lanes, TempusOptions())


def test_printed_lanes_narrower_than_a_card_are_pointed_out():
    view, profile = race(0)
    printed = CalibrationProfile(profile.table, mat_zones(LAYOUT))
    result = judge_lanes(truth_cards(view), printed, TempusOptions())
    assert any("narrower than a card" in w and "tableref zones" in w for w in result.warnings)
    assert not any("narrower" in w for w in judge_lanes(truth_cards(view), profile, TempusOptions()).warnings)
