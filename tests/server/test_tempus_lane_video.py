"""`tableref judge tempus VIDEO --calibration PROFILE`: a race between two players filmed on the race mat, each
lane timed to its last card laid, and the lanes ranked."""

import json
from functools import cache

import cv2
import numpy as np

from calibration.evaluate import race_lines
from calibration.homography import estimate_homography
from calibration.profile import CalibrationProfile, save_profile
from calibration.synth import race_view
from models.synth.samples import CLIP_FPS, FRAMES_PER_STEP, filmed, write_clip
from rules.tempus import RaceEntry, TempusOptions, judge, rank
from server.storage import recorded
from tests.server.test_cli import tableref
from tests.server.test_tempus_lanes import LAYOUT, RACE_LANES, USER_LANES

SEED = 3
# Cards on each lane after each step: the first player lays a card a step, the second one every other step.
STEPS = [(1, 0), (2, 1), (3, 1), (4, 2), (4, 2), (4, 3), (4, 3), (4, 4)]
STEP_SECONDS = FRAMES_PER_STEP / CLIP_FPS


@cache
def filmed_race(path: str) -> tuple[str, list]:
    """The race written to `path` as a webcam films it; its lines (Starter first), per lane."""
    lines = race_lines(SEED, cards=3)
    frames = (
        frame
        for step, laid in enumerate(STEPS)
        for frame in filmed(race_view(SEED, LAYOUT, RACE_LANES, lines, laid=laid).frame, FRAMES_PER_STEP, step)
    )
    write_clip(path, frames)
    return path, lines


def race_profile(lines: list) -> CalibrationProfile:
    """The race mat's calibration, taken from a view of the finished race."""
    full = race_view(SEED, LAYOUT, RACE_LANES, lines)
    return CalibrationProfile(estimate_homography(full.frame, LAYOUT), USER_LANES)


def test_each_lane_is_timed_to_its_last_card_and_the_lanes_ranked(tmp_path) -> None:
    clip, lines = filmed_race(str(tmp_path / "race.mp4"))
    profile_path = tmp_path / "table.json"
    save_profile(race_profile(lines), profile_path)
    result = tableref("judge", "tempus", clip, "--calibration", str(profile_path), "--json")
    assert result.returncode == 0, result.stderr
    race = json.loads(result.stdout)
    lanes = {lane["lane"]: lane for lane in race["lanes"]}
    names = [lane.zone.name for lane in RACE_LANES]
    assert set(lanes) == set(names)
    entries = []
    for k, (name, line) in enumerate(zip(names, lines, strict=True)):
        digits = [face.digits[0] for face in line[1:]]
        # Each line as laid, from the step the lane's Starter went down, timed to the step's first frame.
        counts = [laid[k] for laid in STEPS]
        laid_at = [counts.index(n) * STEP_SECONDS for n in range(1, len(line) + 1)]
        assert [c["cards"] for c in lanes[name]["laid"]] == [digits[:n] for n in range(len(digits) + 1)]
        assert [c["seconds"] for c in lanes[name]["laid"]] == laid_at
        assert lanes[name]["finished_at"] == laid_at[-1]
        entries.append(RaceEntry(name, judge(digits, TempusOptions()), laid_at[-1]))
    assert race["ranking"] == rank(entries, TempusOptions()).to_json()
    text = tableref("judge", "tempus", clip, "--calibration", str(profile_path)).stdout
    assert "ranking:" in text and f"finished at {STEPS.index((4, 4)) * STEP_SECONDS:g} s" in text


def test_a_film_takes_no_typed_finish_times(tmp_path) -> None:
    clip = str(tmp_path / "race.mp4")
    write_clip(clip, iter([np.zeros((72, 128, 3), np.uint8)] * 3))
    result = tableref("judge", "tempus", clip, "--calibration", "table.json", "--finished", "lane-1=3")
    assert result.returncode == 2 and "a film times the race itself" in result.stderr


def test_a_film_of_another_size_than_the_calibration_is_refused_and_recorded_so(tmp_path) -> None:
    full = race_view(SEED, LAYOUT, RACE_LANES, race_lines(SEED, cards=3))
    profile_path = tmp_path / "table.json"
    save_profile(CalibrationProfile(estimate_homography(full.frame, LAYOUT), USER_LANES), profile_path)
    clip = str(tmp_path / "small.mp4")
    write_clip(clip, iter([cv2.resize(full.frame, (640, 360), interpolation=cv2.INTER_AREA)] * 3))
    kept = tmp_path / "results.sqlite"
    result = tableref("judge", "tempus", clip, "--calibration", str(profile_path), "--record", str(kept))
    assert result.returncode == 1
    assert "frame 1 is 640x360 pixels, but the calibration was made on 1280x720 frames" in result.stderr
    (watch,) = recorded(kept)
    assert (watch.ended_by, watch.frames) == ("frame size", 0)


def test_the_dashboard_ranks_the_lanes_as_each_line_settles(tmp_path) -> None:
    """`tableref serve --game tempus --calibration`: each lane's line as the terminal prints it, with the
    standings after it; the last standings are the terminal's ranking."""
    from server.live import GameSetup, LiveTable
    from tests.server.serving import watched_to_the_end

    clip, lines = filmed_race(str(tmp_path / "race.mp4"))
    profile = race_profile(lines)
    save_profile(profile, tmp_path / "table.json")
    state = watched_to_the_end(LiveTable(clip, GameSetup("tempus", profile=profile), tmp_path / "r.sqlite", pace=False))
    assert state["game"] == "tempus-lanes"
    printed = tableref("judge", "tempus", clip, "--calibration", str(tmp_path / "table.json"), "--json")
    race = json.loads(printed.stdout)
    last = state["events"][-1]["verdict"]
    assert {k: last[k] for k in ("winner", "standings")} == race["ranking"]
    assert {lane["lane"]: lane["cards"] for lane in race["lanes"]} == {k: v["cards"] for k, v in last["lanes"].items()}
    text = tableref("judge", "tempus", clip, "--calibration", str(tmp_path / "table.json")).stdout.splitlines()
    said = [f"{e['seconds']:7.2f} s  {e['lines'][0]}" for e in state["events"]]
    assert said == [line for line in text if " s  " in line]
    assert state["events"][-1]["lines"][1:] == text[-len(state["events"][-1]["lines"]) + 1 :]
