"""Hand games typed on the dashboard (server/hand_table.py): each line the rules allow is kept and recorded the
moment it is typed, a refused line is said why and kept nowhere, and a server started again on the results file
takes an unfinished game up where it stopped."""

from pathlib import Path

from server.hand_table import LONGEST_LINE, SOURCE, HandTable
from server.live import GameSetup, LiveTable
from server.storage import Recording, recorded
from tests.server.serving import TOKEN, call, served

RACE = str(Path(__file__).resolve().parents[2] / "samples" / "tempus-race.mp4")
GAME = ["players: Ann Bob", "bluff", "# Bob's turn", "challenge: Ann; reveal: Bob=4 Ann=9"]


def test_each_line_allowed_is_recorded_as_typed_and_a_refused_one_is_kept_nowhere(tmp_path) -> None:
    table = HandTable("bluff", tmp_path / "results.sqlite")
    assert table.typed("bluff") == "no game is being typed: start a new game"
    assert table.start() and not table.start()
    for line in GAME:
        assert table.typed(line) is None, line
    assert table.typed("challenge: Zed") == "line 5: 'Zed' is not at the table (players: Ann, Bob)"
    assert "one line" in table.typed("x" * (LONGEST_LINE + 1))
    (game,) = recorded(tmp_path / "results.sqlite")
    assert (game.game, game.source, game.ended_by) == ("bluff", SOURCE, None)
    assert [event["typed"] for event in game.events] == GAME
    assert game.events[3]["lines"] == [
        "turn 2, Bob, the 2nd decimal (4): challenged by Ann; revealed Bob 4, Ann 9: Bob wins 1 card; "
        "Bob's 4 appended face up",
        "next: Ann states the 3rd decimal (1)",
    ]
    state = table.state()
    assert state["hand"]["upcoming"] == "next: Ann states the 3rd decimal (1)"
    assert state["hand"]["game"]["standings"][0] == {"player": "Ann", "won": 0, "bluffs": 1, "score": 1}
    assert table.stop() and not table.stop()
    assert recorded(tmp_path / "results.sqlite")[0].ended_by == "stopped"


def test_a_game_cut_off_is_taken_up_where_it_stopped_and_one_that_ends_is_closed(tmp_path) -> None:
    results = tmp_path / "results.sqlite"
    first = HandTable("pass", results)
    first.start()
    for line in ("players: Ann Bob", "3. -> Bob", "1 -> Ann"):
        assert first.typed(line) is None
    first.close()  # the server stops (or is cut off): the game stays open
    again = HandTable("pass", results)
    assert again.running and not again.start()
    assert again.state()["watch"]["why"] == "taken up where it stopped"
    assert again.state()["hand"]["upcoming"] == "next: Ann passes the 2nd decimal (4)"
    assert again.typed("end: bedtime") is None and not again.running
    assert recorded(results)[0].ended_by == "game over" and [e["typed"] for e in recorded(results)[0].events][-1]
    assert not HandTable("pass", results).running  # nothing left open to take up
    assert not HandTable("bluff", results).running  # nor of another game


def test_a_game_the_rules_now_refuse_is_not_taken_up_and_stands_as_recorded(tmp_path) -> None:
    results = tmp_path / "results.sqlite"
    kept = Recording(results, "bluff", SOURCE)
    for line in ("players: Ann Bob", "challenge: Zed"):
        kept.add(0.0, {"typed": line, "lines": [], "turns": []})
    table = HandTable("bluff", results)
    assert not table.running
    assert recorded(results)[0].ended_by == "not taken up"


def _typed(base: str, line: str, token: str | None = TOKEN) -> tuple[int, dict]:
    return call(f"{base}/api/hand/line", "POST", token, {"line": line})


def test_turns_are_typed_over_http_with_the_token_and_a_refusal_says_why(tmp_path) -> None:
    with served(HandTable("bluff", tmp_path / "results.sqlite")) as base:
        assert _typed(base, "players: Ann Bob", token=None)[0] == 401
        assert _typed(base, "players: Ann Bob", token="wrong")[0] == 401
        status, state = _typed(base, "players: Ann Bob")
        assert status == 200 and state["hand"]["upcoming"] == "next: Ann states the 1st decimal (1)"
        status, body = _typed(base, "challenge: Ann")
        assert status == 422 and body["detail"] == "line 2: a challenge is joined by other players than Ann, each once"
        assert call(f"{base}/api/state")[1]["hand"]["lines"] == ["players: Ann Bob"]
        assert call(f"{base}/api/frame.jpg")[0] == 404  # nothing is filmed
        assert call(f"{base}/api/watch/stop", "POST", TOKEN)[1]["watch"]["ended_by"] == "stopped"
        assert _typed(base, "bluff")[1]["detail"] == "no game is being typed: start a new game"


def test_a_dashboard_watching_a_camera_takes_no_typed_turns(tmp_path) -> None:
    live = LiveTable(RACE, GameSetup("tempus"), tmp_path / "results.sqlite", pace=False)
    with served(live, start_watching=False) as base:
        status, body = _typed(base, "bluff")
        assert status == 404 and "(--game bluff or pass)" in body["detail"]


def test_the_results_command_says_a_hand_game_is_open_and_what_its_last_turn_said(tmp_path) -> None:
    from typer.testing import CliRunner

    from server.cli import app

    results = tmp_path / "results.sqlite"
    table = HandTable("bluff", results)
    table.start()
    for line in GAME[:2]:
        table.typed(line)
    shown = CliRunner().invoke(app, ["results", str(results)]).stdout.splitlines()
    assert shown == [
        f"1. bluff on {SOURCE}, {table.state()['watch']['started']}: 2 judged, open: `tableref serve --game bluff "
        f"--results {results}` takes it up",
        f"   last, at {table.state()['events'][-1]['seconds']:.2f} s: turn 1, Ann, the 1st decimal (1): not "
        "challenged; Ann's card stays face down (a bluff); next: Bob states the 2nd decimal (4)",
    ]
    table.stop()
    assert "ended by stopped after 2 lines typed" in CliRunner().invoke(app, ["results", str(results)]).stdout


def test_a_turn_the_results_file_cannot_take_is_refused_and_kept_nowhere(tmp_path) -> None:
    results = tmp_path / "results.sqlite"
    table = HandTable("bluff", results)
    table.start()
    assert table.typed(GAME[0]) is None
    results.unlink()
    results.mkdir()  # the file gone, a folder in its place: nothing can be written there
    refused = table.typed("bluff")
    assert refused is not None and "could not be recorded" in refused and "type it again" in refused
    assert table.state()["hand"]["lines"] == [GAME[0]] and len(table.state()["events"]) == 1


def test_a_new_game_the_results_file_cannot_take_is_said_why_and_none_is_started(tmp_path) -> None:
    """The results file gone and a folder in its place: Start is answered 503 with what to do, no game is being
    typed, and once the file can be written again a game starts."""
    results = tmp_path / "results.sqlite"
    with served(HandTable("bluff", results), start_watching=False) as base:
        results.mkdir()
        status, body = call(f"{base}/api/watch/start", "POST", TOKEN)
        assert status == 503 and "a new game could not be recorded" in body["detail"]
        assert "another --results" in body["detail"]
        assert call(f"{base}/api/state")[1]["running"] is False
        assert _typed(base, "players: Ann Bob")[0] == 422
        results.rmdir()
        status, state = call(f"{base}/api/watch/start", "POST", TOKEN)
        assert status == 200 and state["running"] is True
        assert _typed(base, "players: Ann Bob")[0] == 200


def test_a_turn_taken_back_is_said_so_and_stays_taken_back_when_the_game_is_taken_up(tmp_path) -> None:
    results = tmp_path / "results.sqlite"
    table = HandTable("pass", results)
    table.start()
    for line in ("players: Ann Bob", "3. -> Bob", "1 -> Ann", "undo"):
        assert table.typed(line) is None, line
    assert table.state()["events"][-1]["lines"] == ["try 2 taken back", "next: Bob passes the 1st decimal (1)"]
    assert table.typed("undo") is None and table.typed("undo") == "line 6: no turn to undo"
    again = HandTable("pass", results)
    assert again.state()["hand"]["upcoming"] == 'next: Ann calls "Three point!" and gives the Starter'
