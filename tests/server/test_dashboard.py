"""The dashboard's web app, served by a real uvicorn: a watch judged and recorded as it settles, the token that
guards control (and viewing, off this machine), and what the page is told when a source fails or stops."""

import functools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
import server.live as live_module
import server.watching as watching
from rules.pi import PI_DECIMALS
from server.app import app
from server.live import GameSetup, LiveTable
from server.storage import recorded
from tests.server.serving import TOKEN, as_printed, call, served, until, watched_to_the_end
from tests.server.sources import camera_filming, flash_film, unplug_after
from vision.sources import timed_frames

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
RACE = str(SAMPLES / "tempus-race.mp4")


def _ended(base: str) -> dict:
    return until(lambda: (s := call(f"{base}/api/state")[1])["watch"]["ended_by"] and s, "the watch to end")


def test_a_race_is_judged_as_each_line_settles_and_recorded_as_it_is_judged(tmp_path) -> None:
    """A beginners' race of four digits: the page hears of each line as it grows a card, the race ends when
    the line is complete, and the results file holds the same verdicts."""
    results = tmp_path / "results.sqlite"
    with served(LiveTable(RACE, GameSetup("tempus", beginner=4), results, pace=False)) as base:
        state = _ended(base)
        assert state["watch"]["ended_by"] == "complete" and not state["running"]
        verdicts = [event["verdict"] for event in state["events"]]
        assert [v["cards"] for v in verdicts] == [list(PI_DECIMALS[:n]) for n in range(5)]
        assert verdicts[-1]["consecutive_correct"] == 4 and verdicts[-1]["complete"]
        assert state["events"][-1]["lines"][1] == "consecutive correct: 4 of 4"
        status, listed = call(f"{base}/api/watches")
        assert status == 200 and [(w["id"], w["events"], w["ended_by"]) for w in listed] == [(1, 5, "complete")]
        status, picture = call(f"{base}/api/frame.jpg")
        frame = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR)
        assert status == 200 and frame.shape == (540, 960, 3)  # 1280x720 sent no wider than the page needs
    (watch,) = recorded(results)
    assert [e["cards"] for e in watch.events] == [v["cards"] for v in verdicts]
    assert [e["seconds"] for e in watch.events] == [e["seconds"] for e in state["events"]]


def test_a_race_is_timed_against_its_limit_as_the_terminal_times_it(tmp_path) -> None:
    """The race clock: the seconds of the last frame judged, the sheet's limit for the digits in play, and the
    finish (when the last line first settled) as `tableref judge tempus --json` gives it for the same film."""
    printed = CliRunner().invoke(app, ["judge", "tempus", RACE, "--beginner", "12", "--json"])
    assert printed.exit_code == 0, printed.output
    terminal = json.loads(printed.stdout)
    state = watched_to_the_end(LiveTable(RACE, GameSetup("tempus", beginner=12), tmp_path / "r.sqlite", pace=False))
    last = state["events"][-1]["verdict"]
    assert state["time_limit"] == terminal["time_limit"] == 36
    assert (last["finished_at"], last["within_time"]) == (terminal["finished_at"], terminal["within_time"])
    assert state["watch"]["seconds"] >= last["finished_at"] > 0


def test_starting_and_stopping_need_the_token_and_looking_from_this_machine_does_not(tmp_path) -> None:
    live = LiveTable(RACE, GameSetup("tempus"), tmp_path / "results.sqlite")  # at the film's pace
    with served(live, start_watching=False) as base:
        assert call(f"{base}/api/state")[1]["watch"] is None
        for token in (None, "wrong", ""):
            status, body = call(f"{base}/api/watch/start", "POST", token)
            assert status == 401 and "access token" in body["detail"]
        assert call(f"{base}/api/state")[1]["watch"] is None
        status, state = call(f"{base}/api/watch/start", "POST", TOKEN)
        assert status == 200 and state["running"]
        assert call(f"{base}/api/watch/start", "POST", TOKEN)[0] == 409  # one watch at a time
        until(lambda: len(call(f"{base}/api/state")[1]["events"]) >= 3, "three lines to settle")
        assert call(f"{base}/api/watch/stop", "POST")[0] == 401
        status, state = call(f"{base}/api/watch/stop", "POST", TOKEN)
        assert status == 200 and state["watch"]["ended_by"] == "stopped"
        assert call(f"{base}/api/watch/stop", "POST", TOKEN)[0] == 409
    # Stopped mid-race: what was judged stands in the file, and the watch says how it ended.
    (watch,) = recorded(live.results)
    assert watch.ended_by == "stopped" and len(watch.events) == len(state["events"]) >= 3


def test_a_drill_starts_for_the_learner_the_page_names_and_a_name_that_will_not_do_is_refused(tmp_path) -> None:
    film = tmp_path / "drill.mp4"
    flash_film(film, 97_950_000, [])  # the table empty: the drill's first question
    live = LiveTable(str(film), GameSetup("flash", flash_seed=5), tmp_path / "results.sqlite", pace=False)
    with served(live, start_watching=False) as base:
        start, state = f"{base}/api/watch/start", f"{base}/api/state"
        assert call(state)[1]["learner"] is None and call(f"{base}/api/learners") == (200, [])
        status, body = call(start, "POST", TOKEN, {"learner": "x" * 41})
        assert status == 422 and "a learner's name is 1 to 40 characters, not 41" in body["detail"]
        status, body = call(start, "POST", TOKEN, {"learner": "Ann\nBob"})
        assert status == 422 and "one line of printed characters" in body["detail"]
        for sent in ({"learner": 5}, ["Ann"]):  # not a name, or not an object naming one
            assert call(start, "POST", TOKEN, sent)[0] == 422
        form = urllib.request.Request(start, data=b"learner=Bob", method="POST")  # as curl -d sends it
        form.add_header("Authorization", f"Bearer {TOKEN}")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(form)
        assert refused.value.code == 422 and "send JSON" in json.loads(refused.value.read())["detail"]
        assert call(state)[1]["watch"] is None  # nothing started
        for named, learner in ((" Ann ", "Ann"), ("", None)):
            status, started = call(start, "POST", TOKEN, {"learner": named})
            assert status == 200 and started["learner"] == learner
            until(lambda: call(state)[1]["watch"]["ended_by"], "the drill to end")
            assert call(state)[1]["events"][-1]["verdict"].get("learner") == learner
        assert call(f"{base}/api/learners")[1] == ["Ann"]  # the drill for nobody names no one
    race = LiveTable(RACE, GameSetup("tempus"), tmp_path / "race.sqlite")
    with served(race, start_watching=False) as base:
        status, body = call(f"{base}/api/watch/start", "POST", TOKEN, {"learner": "Ann"})
        assert status == 422 and "not tempus" in body["detail"]


def test_opened_to_the_network_looking_needs_the_token_too(tmp_path) -> None:
    live = LiveTable(RACE, GameSetup("tempus", beginner=2), tmp_path / "results.sqlite", pace=False)
    with served(live, viewing_needs_token=True) as base:
        for path in ("/api/state", "/api/frame.jpg", "/api/watches", "/api/watches/1", "/api/learners"):
            assert call(base + path)[0] == 401, path
        until(lambda: call(f"{base}/api/state", token=TOKEN)[1]["watch"]["ended_by"], "the watch to end")
        for path in ("/api/state", "/api/frame.jpg", "/api/watches", "/api/watches/1"):
            assert call(base + path, token=TOKEN)[0] == 200, path
        status, page = call(base + "/")  # the page itself holds no results: it asks for them with the token
        assert status == 200 and b"<title>tableref</title>" in page


def test_malformed_requests_get_a_clear_status(tmp_path) -> None:
    live = LiveTable(RACE, GameSetup("tempus", beginner=1), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        _ended(base)
        assert call(f"{base}/api/watches/first")[0] == 422
        status, body = call(f"{base}/api/watches/99")
        assert status == 404 and "no watch 99" in body["detail"]
        assert call(f"{base}/api/state", "DELETE", TOKEN)[0] == 405
        assert call(f"{base}/api/watch/restart", "POST", TOKEN)[0] == 404


def test_a_camera_that_stops_mid_race_leaves_its_verdicts_and_the_page_says_why(tmp_path, monkeypatch) -> None:
    unplug_after(monkeypatch, 30)
    live = LiveTable(RACE, GameSetup("tempus"), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        state = _ended(base)
    assert state["watch"]["ended_by"] == "camera" and "no frame for 10 s" in state["watch"]["why"]
    assert state["events"][-1]["verdict"]["cards"] == list(PI_DECIMALS[:6])
    (watch,) = recorded(live.results)
    assert watch.ended_by == "camera" and len(watch.events) == len(state["events"])


def test_a_live_cameras_rate_and_the_frames_it_dropped_are_shown(tmp_path, monkeypatch) -> None:
    """A camera filming at 60 frames a second, faster than a line of cards is read: the page is told the
    camera's rate and how many frames went unjudged, and the race is judged from the newest frames."""
    camera_filming(monkeypatch, RACE, fps=60)
    live = LiveTable("0", GameSetup("tempus"), tmp_path / "results.sqlite")
    with served(live) as base:

        def judged() -> bool:
            state = call(f"{base}/api/state")[1]
            return state["watch"]["frames"] >= 20 and bool(state["events"])

        until(judged, "twenty frames judged and a line settled")
        status, state = call(f"{base}/api/watch/stop", "POST", TOKEN)
    watch = state["watch"]
    assert status == 200 and watch["ended_by"] == "stopped" and state["events"]
    assert 30 <= watch["capture"]["fps"] <= 61 and watch["fps"] < watch["capture"]["fps"]
    assert watch["capture"]["dropped"] > watch["frames"]  # judged at a few a second, most frames go unjudged


def test_a_games_camera_that_comes_back_is_watched_again_by_itself(tmp_path, monkeypatch) -> None:
    """A DIGIT game's camera pulled out for longer than the source waits: the watch ends (what it judged stands),
    the page says it is trying again, and once the camera is back a new watch reads the table where it stands,
    with no one pressing Start."""
    plugged = threading.Event()
    plugged.set()
    camera_filming(monkeypatch, str(SAMPLES / "digit-game.mp4"), fps=30, plugged=plugged)
    monkeypatch.setattr(watching, "timed_frames", functools.partial(timed_frames, timeout_s=0.5))
    monkeypatch.setattr(live_module, "RETRY_FIRST_S", 0.2)
    live = LiveTable("0", GameSetup("digit"), tmp_path / "results.sqlite")
    with served(live) as base:

        def state() -> dict:
            return call(f"{base}/api/state")[1]

        until(lambda: state()["watch"]["frames"] >= 5, "five frames judged")
        plugged.clear()
        until(lambda: "trying again" in state()["watch"]["why"], "the page to say it tries again")
        assert state()["running"] and state()["watch"]["ended_by"] == "camera"
        plugged.set()
        until(lambda: state()["watch"]["id"] == 2 and state()["watch"]["frames"] > 0, "a new watch to judge frames")
        until(lambda: state()["events"], "the table to settle again")
        call(f"{base}/api/watch/stop", "POST", TOKEN)
    first, again = recorded(live.results)
    assert first.ended_by == "camera" and again.ended_by == "stopped" and again.events


def test_a_race_is_not_started_again_by_itself(tmp_path, monkeypatch) -> None:
    """A race's clock cannot start again: its camera cut short ends it, and it waits for Start."""
    unplug_after(monkeypatch, 10)
    live = LiveTable("0", GameSetup("tempus"), tmp_path / "results.sqlite")
    camera_filming(monkeypatch, RACE, fps=30)
    assert not live.retries and LiveTable("0", GameSetup("digit"), tmp_path / "r.sqlite").retries
    state = watched_to_the_end(live)
    assert state["watch"]["ended_by"] == "camera" and "trying again" not in state["watch"]["why"]
    assert len(recorded(live.results)) == 1


def test_a_film_is_not_said_to_drop_frames(tmp_path) -> None:
    state = watched_to_the_end(LiveTable(RACE, GameSetup("tempus", beginner=1), tmp_path / "r.sqlite", pace=False))
    assert state["watch"]["frames"] > 0 and "capture" not in state["watch"]


def test_a_source_that_gives_no_frames_is_told_on_the_page_and_the_server_stays_up(tmp_path) -> None:
    film = tmp_path / "race.mp4"
    film.write_text("not a film")
    with served(LiveTable(str(film), GameSetup("tempus"), tmp_path / "results.sqlite")) as base:
        state = _ended(base)
        assert state["watch"]["ended_by"] == "no frames" and "cannot be opened as a video" in state["watch"]["why"]
        assert call(f"{base}/api/frame.jpg")[0] == 404
        assert call(f"{base}/api/watch/start", "POST", TOKEN)[0] == 200  # it may be tried again


def test_the_page_says_what_the_terminal_says(tmp_path) -> None:
    """A DIGIT game watched on the dashboard: each verdict in the words and at the times `tableref judge`
    prints for the same film (Seven Pis: tests/server/test_seven_pis_turns_video.py)."""
    film = str(SAMPLES / "digit-game.mp4")
    printed = CliRunner().invoke(app, ["judge", "digit-moves", film])
    assert printed.exit_code == 0, printed.output
    state = watched_to_the_end(LiveTable(film, GameSetup("digit"), tmp_path / "r.sqlite", pace=False))
    assert state["watch"]["ended_by"] == "film" and "time_limit" not in state  # no race, no race clock
    shown = as_printed(state["events"])
    assert shown and shown == printed.stdout.splitlines()[: len(shown)]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nothing-here.mp4"], "nothing-here.mp4: no such file"),
        (
            [RACE, "--game", "chess"],
            "--game chess: choose one of tempus, append, blocks, grid, flash, digit, seven-pis, bluff, pass",
        ),
        ([RACE, "--set", "eight"], "--set eight: choose six, nine or auto"),
        ([RACE, "--beginner", "0"], "digits must be 1..50"),
        ([RACE, "--game", "grid", "--cards", "12"], "a grid holds a multiple of 5 cards up to 50, not 12"),
        ([RACE, "--game", "grid", "--players", "0"], "a game needs a player or more"),
        ([RACE, "--host", "0.0.0.0"], "--host 0.0.0.0 opens the dashboard to the network: give --token"),
        ([RACE, "--game", "digit", "--calibration", "c.json"], "--calibration: digit is watched without one"),
        ([], "give SOURCE, what to watch"),
        ([RACE, "--game", "bluff"], "the bluff game is typed on the page turn by turn, not watched"),
        ([RACE, "--learner", "Ann"], "--learner: it is for the flash-card drill, not tempus"),
        ([RACE, "--game", "flash", "--learner", "  "], "--learner: a learner's name is 1 to 40 characters"),
    ],
)
def test_serve_refuses_what_it_cannot_do_before_it_listens(args: list[str], said: str, monkeypatch) -> None:
    monkeypatch.delenv("TABLEREF_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 2 and said in result.stderr, result.output


def test_serve_leaves_another_programs_database_untouched(tmp_path) -> None:
    theirs = tmp_path / "theirs.sqlite"
    with sqlite3.connect(theirs) as db:
        db.execute("CREATE TABLE accounts (name TEXT)")
    before = theirs.read_bytes()
    result = CliRunner().invoke(app, ["serve", RACE, "--results", str(theirs)])
    assert result.exit_code == 2 and "another program's SQLite file" in result.stderr
    assert theirs.read_bytes() == before


def test_a_port_in_use_is_one_line(tmp_path) -> None:
    from server.commands.serve import bound

    taken = bound("127.0.0.1", 0)
    try:
        port = str(taken.getsockname()[1])
        result = CliRunner().invoke(app, ["serve", RACE, "--port", port, "--results", str(tmp_path / "r.sqlite")])
    finally:
        taken.close()
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "choose another port" in result.stderr


def test_tableref_serve_runs_a_real_server_until_ctrl_c(tmp_path) -> None:
    """The command as a user runs it: it prints the page's link, token included; the race is watched and
    recorded; Ctrl-C ends the server cleanly and leaves the results file."""
    results = tmp_path / "results.sqlite"
    command = [sys.executable, "-m", "server", "serve", RACE, "--beginner", "3", "--port", "0"]
    command += ["--results", str(results)]
    env = {**os.environ, "TABLEREF_TOKEN": "from-the-environment"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        assert line.startswith("tableref: the dashboard is at http://127.0.0.1:"), line + process.stderr.read()
        link = line.split()[-1]
        assert link.endswith("/?token=from-the-environment")
        base = link.split("/?")[0]
        assert _ended(base)["watch"]["ended_by"] == "complete"
        assert call(f"{base}/api/watch/start", "POST", "from-the-environment")[0] == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)
    assert process.returncode == 0, process.stderr.read()
    assert [w.ended_by is not None for w in recorded(results)] == [True, True]


def _last_frame(film: str) -> np.ndarray:
    *_, (_, frame) = timed_frames(film, 1000)
    return frame


@pytest.mark.parametrize(("film", "game"), [("digit-game.mp4", "digit"), ("tempus-race.mp4", "tempus")])
def test_the_picture_shows_what_was_read_on_the_frame(tmp_path, film: str, game: str) -> None:
    """After a DIGIT game or a race, the page's picture is the last frame with each stick drawn along its
    middle line, or each card's top edge outlined, where a reader run afresh on that frame finds them."""
    from vision.annotate import CARD_COLOUR
    from vision.cards.recognize import CardRecognizer
    from vision.sticks import StickRecognizer
    from vision.sticks.annotate import STICK_COLOUR

    source = str(SAMPLES / film)
    live = LiveTable(source, GameSetup(game), tmp_path / "results.sqlite", pace=False)
    watched_to_the_end(live)
    picture = cv2.imdecode(np.frombuffer(live.frame_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    frame = _last_frame(source)
    if game == "digit":
        points, colour = [s.ends.mean(axis=0) for s in StickRecognizer()(frame)[0]], STICK_COLOUR
    else:
        points, colour = [c.corners[:2].mean(axis=0) for c in CardRecognizer()(frame)], CARD_COLOUR
    scale = picture.shape[1] / frame.shape[1]
    drawn = [np.abs(picture[round(y * scale), round(x * scale)].astype(int) - colour).max() < 60 for x, y in points]
    assert len(points) >= 5 and sum(drawn) >= 0.9 * len(points), (sum(drawn), len(points))


def test_a_digit_layout_comes_with_the_cards_one_move_away_as_judge_digit_finds_them(tmp_path) -> None:
    """The dashboard takes the cards one move away from the card's own shape; `judge digit` tries every move
    on the sticks as they lie. On the game's last layout they must agree."""
    film = str(SAMPLES / "digit-game.mp4")
    state = watched_to_the_end(LiveTable(film, GameSetup("digit"), tmp_path / "r.sqlite", pace=False))
    last = state["events"][-1]["verdict"]
    photo = tmp_path / "last.png"
    cv2.imwrite(str(photo), _last_frame(film))
    judged = CliRunner().invoke(app, ["judge", "digit", str(photo), "--json"])
    assert judged.exit_code == 0, judged.output
    read = json.loads(judged.stdout)
    assert last["layout"]["card"] == read["card"] is not None
    assert last["one_move_away"] == sorted({away["card"] for away in read["one_move_away"]}) != []


def test_digit_cards_are_drawn_for_the_page_as_the_kit_prints_them(tmp_path) -> None:
    from vision.sticks.artwork import draw_stick_card

    live = LiveTable(RACE, GameSetup("tempus", beginner=1), tmp_path / "r.sqlite", pace=False)
    with served(live, viewing_needs_token=True, start_watching=False) as base:
        status, png = call(f"{base}/api/digit-cards/17.png")  # artwork, not the table: no token needed
        assert status == 200
        drawn = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
        expected = np.asarray(draw_stick_card(17, 180))
        assert drawn.shape == expected.shape and np.array_equal(drawn[..., [2, 1, 0, 3]], expected)
        for number in ("0", "56"):
            assert call(f"{base}/api/digit-cards/{number}.png")[0] == 404
        assert call(f"{base}/api/digit-cards/seven.png")[0] == 422


def test_a_grid_games_picture_draws_no_digit_on_a_card_it_takes_for_a_back() -> None:
    """The page's picture of a Grid o' Digits table shows the cards face up as its game reads them, not a
    back the reader doubted (its back probability between the grid's bar and the reader's)."""
    from vision.cards.artwork import CardFace
    from vision.cards.grid import GRID_BACK_ABOVE
    from vision.cards.recognize import Card

    frame = np.full((200, 300, 3), 90, np.uint8)
    corners = np.array([[100, 50], [160, 50], [160, 134], [100, 134]], np.float32)
    seven = CardFace("digit", (7,))
    draw = live_module.GAMES["grid"].draw
    doubted = Card(seven, corners, 0.9, back=(GRID_BACK_ABOVE + 1) / 2)
    assert np.array_equal(draw(frame, [doubted]), frame)
    assert not np.array_equal(draw(frame, [Card(seven, corners, 0.9, back=GRID_BACK_ABOVE / 2)]), frame)
    assert not np.array_equal(live_module.GAMES["tempus"].draw(frame, [doubted]), frame)


@pytest.mark.parametrize(
    ("args", "kind", "learner"),
    [
        (["--calibration", "mat.json"], "tempus-lanes", None),
        (["--game", "flash", "--learner", " Ann "], "flash", "Ann"),
    ],
)
def test_serve_watches_with_the_options_it_was_given(
    args: list[str], kind: str, learner: str | None, tmp_path, monkeypatch
) -> None:
    """The table the server watches has the calibration and the learner the command line names (a calibrated
    race is a race between lanes)."""
    import uvicorn

    import server.dashboard
    from calibration.evaluate import race_lines
    from calibration.homography import estimate_homography
    from calibration.profile import CalibrationProfile, save_profile
    from calibration.synth import race_view
    from tests.server.test_tempus_lanes import LAYOUT, RACE_LANES, USER_LANES

    view = race_view(3, LAYOUT, RACE_LANES, race_lines(3, len(RACE_LANES))).frame
    save_profile(CalibrationProfile(estimate_homography(view, LAYOUT), USER_LANES), tmp_path / "mat.json")
    served: list[LiveTable] = []
    monkeypatch.setattr(server.dashboard, "dashboard_app", lambda live, *rest: served.append(live))
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: None)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["serve", RACE, "--port", "0", *args])
    assert result.exit_code == 0, result.output
    (live,) = served
    assert live.setup.kind == kind and live.setup.learner == learner
