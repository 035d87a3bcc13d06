"""Decko Digits' appending, block and grid games and the flash-card drill refereed from films of held-out renders
played a card at a time: each state judged as it settles, in the terminal and on the dashboard alike."""

import json
from pathlib import Path

import cv2
import pytest
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
from rules.flash_cards import new_drill, seen
from rules.flash_memory import Memory
from rules.grid_digits import play
from rules.pi import PI_DECIMALS, wild_pair
from server.app import app
from server.decko_games import grid_lines, learner_memory, learners, planned_drill, turn_lines
from server.live import GameSetup, LiveTable
from server.storage import Recording, recorded
from tests.server.serving import watched_to_the_end
from tests.server.sources import GRID_REVEALS, appending_film, block_sets_film, filmed_table, flash_film, grid_film

SEED = 97_300_000  # a held-out appending line no other test reads
BLOCKS_SEED = 97_700_000  # held-out block-game sets no other test reads
GRID_SEED = 97_800_000  # a held-out Grid o' Digits table no other test reads
FLASH_SEED = 97_900_000  # a held-out table of the flash-card drill no other test reads


@pytest.fixture(scope="module")
def filmed(tmp_path_factory) -> tuple[Path, list[str]]:
    clip = tmp_path_factory.mktemp("appending") / "line.mp4"
    return clip, appending_film(clip, SEED)


def test_each_line_is_judged_as_it_settles_wilds_read_in_place(filmed) -> None:
    clip, laid = filmed
    result = CliRunner().invoke(app, ["judge", "append", str(clip), "--json"])
    assert result.exit_code == 0, result.output
    game = json.loads(result.stdout)
    assert game["ended_by"] == "film" and game["cards"] == laid and game["first_error"] is None
    lines = [line["cards"] for line in game["laid"]]
    assert all(line == laid[: len(line)] for line in lines)  # every line settled is the line as it was laid
    assert len(lines) >= len(laid) - 1 and [line["seconds"] for line in game["laid"]] == sorted(
        line["seconds"] for line in game["laid"]
    )


def test_the_dashboard_says_what_the_terminal_says(filmed, tmp_path) -> None:
    clip, laid = filmed
    printed = CliRunner().invoke(app, ["judge", "append", str(clip)])
    assert printed.exit_code == 0, printed.output
    state = watched_to_the_end(LiveTable(str(clip), GameSetup("append"), tmp_path / "r.sqlite", pace=False))
    assert state["watch"]["ended_by"] == "film" and state["events"][-1]["verdict"]["cards"] == laid
    shown = [f"{e['seconds']:7.2f} s  {e['lines'][0]}" for e in state["events"]]
    assert shown == printed.stdout.splitlines()[: len(shown)]
    assert printed.stdout.splitlines()[len(shown) :] == state["events"][-1]["lines"]  # the verdict on the last


def test_the_block_games_sets_are_counted_as_they_are_set_down_on_the_page_as_in_the_terminal(tmp_path) -> None:
    film = tmp_path / "sets.mp4"
    blocks = block_sets_film(film, BLOCKS_SEED)
    printed = CliRunner().invoke(app, ["judge", "blocks", str(film), "--json"])
    assert printed.exit_code == 0, printed.output
    game = json.loads(printed.stdout)
    assert game["ended_by"] == "film" and sorted(s["counted"] for s in game["sets"]) == sorted(blocks)
    counts = [table["blocks"] for table in game["laid"]]
    assert counts == sorted(counts) and counts[-1] == len(blocks)  # a block counts once its fifth card is down
    words = CliRunner().invoke(app, ["judge", "blocks", str(film)]).stdout.splitlines()
    state = watched_to_the_end(LiveTable(str(film), GameSetup("blocks"), tmp_path / "r.sqlite", pace=False))
    assert state["events"][-1]["lines"] == words[len(state["events"]) :]  # the verdict on the last, word for word


def test_a_grid_game_is_refereed_reveal_by_reveal_on_the_page_as_in_the_terminal(tmp_path) -> None:
    film = tmp_path / "grid.mp4"
    grid_film(film, GRID_SEED)
    printed = CliRunner().invoke(app, ["judge", "grid", str(film), "--json"])
    assert printed.exit_code == 0, printed.output
    game = json.loads(printed.stdout)
    expected = play(GRID_REVEALS)
    assert game["ended_by"] == "film" and {k: game[k] for k in expected.to_json()} == expected.to_json()
    kept = [view["kept"] for view in game["laid"]]
    assert kept == sorted(kept) and kept[-1] == 10
    state = watched_to_the_end(LiveTable(str(film), GameSetup("grid"), tmp_path / "r.sqlite", pace=False))
    assert state["events"][-1]["lines"] == [*turn_lines(expected), *grid_lines(expected)]


def test_a_grid_watch_begun_mid_game_credits_no_player_with_the_cards_already_face_up(tmp_path) -> None:
    """The film starts with 1 4 1 5 9 kept and a 2 revealed: those six are found, and the first reveal seen (the
    6) is the first player's, whose 7 then passes the turn to the second player."""
    film = tmp_path / "grid.mp4"
    grid_film(film, GRID_SEED, first=10)
    printed = CliRunner().invoke(app, ["judge", "grid", str(film), "--json"])
    assert printed.exit_code == 0, printed.output
    game = json.loads(printed.stdout)
    assert game["found_face_up"] == 6 and game["kept"] == 10
    assert [(r["digit"], r["player"], r["right"]) for r in game["reveals"]] == [
        (6, 1, True),
        (7, 1, False),
        *((digit, 2, True) for digit in (2, 6, 5, 3, 5)),
    ]
    words = CliRunner().invoke(app, ["judge", "grid", str(film)]).stdout
    assert "6 cards lay face up when the game was first seen: credited to no player" in words


def test_the_flash_card_drill_judges_each_card_laid_and_asks_a_missed_decimal_again(tmp_path) -> None:
    """Two decimals in play: the first asked answered right, the second wrong and then right; on the page as
    in the terminal."""
    film = tmp_path / "drill.mp4"
    first, second = new_drill(2, FLASH_SEED).order
    laid = [PI_DECIMALS[first], (PI_DECIMALS[second] + 1) % 10, wild_pair(PI_DECIMALS[second])]
    flash_film(film, FLASH_SEED, laid)
    args = ["judge", "flash", str(film), "--digits", "2", "--seed", str(FLASH_SEED)]
    drill = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    assert drill["ended_by"] == "answered" and drill["over"] and drill["right"] == 2
    assert [(a["decimal"], a["right"]) for a in drill["answers"]] == [
        (first + 1, True),
        (second + 1, False),
        (second + 1, True),
    ]
    asked = [state["asked"] for state in drill["laid"] if not state["waiting"]]
    assert asked == [first + 1, second + 1, second + 1]  # each question once the table is empty
    printed = CliRunner().invoke(app, args)
    setup = GameSetup("flash", beginner=2, flash_seed=FLASH_SEED)
    state = watched_to_the_end(LiveTable(str(film), setup, tmp_path / "r.sqlite", pace=False))
    assert state["watch"]["ended_by"] == "answered"
    assert printed.stdout.splitlines()[-len(state["events"][-1]["lines"]) :] == state["events"][-1]["lines"]


def test_a_photo_of_one_card_is_judged_against_the_decimal_it_answers(tmp_path) -> None:
    photo = tmp_path / "card.png"
    cv2.imwrite(str(photo), next(iter(filmed_table(FLASH_SEED, 7))))
    wrong = CliRunner().invoke(app, ["judge", "flash", str(photo), "--decimal", "3"])  # the 3rd decimal is 1
    assert wrong.stdout.strip() == "decimal 3 is 1: the card laid, 7, is wrong"
    said = json.loads(CliRunner().invoke(app, ["judge", "flash", str(photo), "--decimal", "13", "--json"]).stdout)
    assert said["cards"] == ["7"] and said["answers"] == [{"decimal": 13, "digit": 7, "card": "7", "right": True}]
    refused = CliRunner().invoke(app, ["judge", "flash", str(photo)])
    assert refused.exit_code == 2 and "needs --decimal N" in refused.stderr
    refused = CliRunner().invoke(app, ["judge", "flash", str(photo), "--decimal", "3", "--learner", "Ann"])
    assert refused.exit_code == 2 and "--learner is for a drill filmed" in refused.stderr


def _recorded_drill(results: Path, learner: str, right: bool) -> None:
    """A drill of `learner` drawn from `results`, every decimal answered (right or wrong) and recorded there."""
    drill = planned_drill(10, 0, learner, results)
    while not drill.over:
        digit = PI_DECIMALS[drill.asked]
        drill = seen(seen(drill, [digit if right else (digit + 1) % 10]), [])
        if not right:
            break  # a drill of misses would never end: cut off, as a watch stopped mid-drill is
    Recording(results, "flash", "typed").add(0.0, drill.to_json())


def test_a_learners_drill_is_drawn_from_the_drills_recorded_before(tmp_path) -> None:
    """Ann answered two drills right: the first ten decimals are learnt and the next five come into play, the
    ones her third drill asks (Bob's misses are his own). Filmed, its answers count for the drill after."""
    results, film = tmp_path / "results.sqlite", tmp_path / "drill.mp4"
    for learner, right in (("Ann", True), ("Bob", False), ("Ann", True), ("Bob", False)):
        _recorded_drill(results, learner, right)
    assert (learner_memory(results, "Bob").learnt, learner_memory(results, "Bob").drills) == (0, 2)
    order = planned_drill(10, FLASH_SEED, "Ann", results).order
    assert sorted(order) == list(range(10, 15))
    flash_film(film, FLASH_SEED, [PI_DECIMALS[order[0]], (PI_DECIMALS[order[1]] + 1) % 10])
    args = ["judge", "flash", str(film), "--learner", "Ann", "--record", str(results), "--seed", str(FLASH_SEED)]
    printed = CliRunner().invoke(app, args)
    assert printed.exit_code == 0, printed.output
    assert printed.stdout.splitlines()[0] == (
        "Ann: 10 of the first 15 decimals learnt (2 drills with an answer); this drill asks 5 decimals"
    )
    assert printed.stdout.splitlines()[-1] == "Ann: 10 of the first 15 decimals learnt (3 drills with an answer)"
    memory = learner_memory(results, "Ann")
    assert memory.drills == 3 and [memory.recalls[place].box for place in order[:2]] == [1, 0]
    assert set(order) <= set(memory.due())  # the one right in box 1, the one missed and those not asked
    assert learner_memory(results, "ANN") == memory  # one learner whatever the name's case
    unrecorded = CliRunner().invoke(app, ["judge", "flash", str(film), "--learner", "Ann"])
    assert unrecorded.exit_code == 2 and "give --record FILE" in unrecorded.stderr
    both = CliRunner().invoke(app, ["judge", "flash", str(film), "--learner", "Ann", "--digits", "5"])
    assert both.exit_code == 2 and "--digits or --learner" in both.stderr


def test_a_learners_memory_is_shown_decimal_by_decimal(tmp_path) -> None:
    """Ann's two drills answered right: the first ten learnt, five more in play and not asked; Bob's misses are
    his, whatever case his name is typed in."""
    results = tmp_path / "results.sqlite"
    for learner, right in (("Ann", True), ("Bob", False), ("Ann", True)):
        _recorded_drill(results, learner, right)
    shown = CliRunner().invoke(app, ["judge", "flash", "--learner", "Ann", "--record", str(results)])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[:3] == [
        "Ann: 10 of the first 15 decimals learnt (2 drills with an answer); the next drill asks 5 decimals",
        "decimals  1-25  ●●●●● ●●●●● ····· ----- -----",
        "decimals 26-50  ----- ----- ----- ----- -----",
    ]
    assert learners(results) == ["Ann", "Bob"]
    Recording(results, "flash", "typed").add(0.0, seen(new_drill(3, 0), [1]).to_json())  # a drill for no one
    assert learners(results) == ["Ann", "Bob"] and learner_memory(results, "None") == Memory()
    _recorded_drill(results, "bob", False)
    assert learners(results) == ["Ann", "bob"]  # one learner, by the name last typed
    args = ["judge", "flash", "--learner", "BOB", "--record", str(results), "--json"]
    said = json.loads(CliRunner().invoke(app, args).stdout)
    assert said["memory"]["drills"] == 2 and said["memory"]["boxes"].count(0) >= 1 and said["due"] == list(range(1, 11))


def test_a_learner_mistyped_is_renamed_into_another_and_a_learner_forgotten_starts_again(tmp_path) -> None:
    """Ann's first drill was typed as "Anm": renamed, her two drills are one memory, the first ten learnt. Bob
    forgotten starts again at the first ten, unasked, while his drill stays in the file for no one."""
    results = tmp_path / "results.sqlite"
    for learner, right in (("Anm", True), ("Bob", False), ("Ann", True)):
        _recorded_drill(results, learner, right)
    watches_before = len(recorded(results))

    def flash(*args: str):
        return CliRunner().invoke(app, ["judge", "flash", *args, "--record", str(results)])

    renamed = flash("--learner", "anm", "--rename", "Ann")
    assert renamed.exit_code == 0, renamed.output
    assert (
        renamed.stdout
        == "Anm renamed Ann (1 drill); Ann: 10 of the first 15 decimals learnt (2 drills with an answer)\n"
    )
    assert learners(results) == ["Ann", "Bob"] and learner_memory(results, "Ann").learnt == 10
    forgotten = flash("--learner", "Bob", "--forget")
    assert (
        forgotten.exit_code == 0
        and forgotten.stdout == "Bob's memory starts again (1 drill kept in the file, for no one)\n"
    )
    assert learners(results) == ["Ann"] and learner_memory(results, "Bob") == Memory()
    assert len(recorded(results)) == watches_before  # nothing recorded is lost
    assert [w.events[-1]["learner"] for w in recorded(results)] == ["Ann", None, "Ann"]

    refused = {
        ("--learner", "Bob", "--forget"): "holds no drill of Bob's (the learners: Ann)",
        ("--learner", "Ann", "--rename", " Ann "): "Ann is already the learner's name",
        ("--learner", "Ann", "--rename", "A\tB"): "one line of printed characters",
    }
    for args, said in refused.items():
        result = flash(*args)
        assert result.exit_code == 2 and said in result.stderr, (args, result.stderr)
    photo = CliRunner().invoke(app, ["judge", "flash", "0", "--learner", "Ann", "--forget"])
    assert photo.exit_code == 2 and "with no camera, film or photo" in photo.stderr
    gone = CliRunner().invoke(app, ["judge", "flash", "--learner", "Ann", "--forget", "--record", str(tmp_path / "no")])
    assert gone.exit_code == 2 and "no such results file" in gone.stderr
