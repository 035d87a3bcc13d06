"""The rules-only commands: the DIGIT card list and the Seven Pis simulator."""

import json
import subprocess
import sys

from rules.sticks import Edge, card_number
from tests.server.test_cli import tableref


def test_digit_list_prints_the_55_cards_and_each_edge_set_is_its_card() -> None:
    result = tableref("judge", "digit", "--list", "--json")
    assert result.returncode == 0, result.stderr
    cards = [json.loads(line) for line in result.stdout.splitlines()]
    assert [c["card"] for c in cards] == list(range(1, 56))
    for card in cards:
        edges = [Edge.from_json(e) for e in card["edges"]]
        assert len(edges) == 5
        assert card_number(edges) == card["card"]


def test_simulate_is_repeatable_and_reports_each_strategy() -> None:
    args = ("simulate", "seven-pis", "--strategy", "many", "--strategy", "one-at-a-time", "--games", "40", "--json")
    first, again = tableref(*args), tableref(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    summaries = [json.loads(line) for line in first.stdout.splitlines()]
    assert [s["strategy"] for s in summaries] == ["many", "one-at-a-time"]
    assert all(sum(s["histogram"]) == 40 and 0 <= s["went_out"] <= 1 for s in summaries)


def test_simulate_refuses_an_unknown_strategy() -> None:
    result = tableref("simulate", "seven-pis", "--strategy", "lucky")
    assert result.returncode == 2
    assert "lucky" in result.stderr


def test_death_by_digits_deals_the_table_and_judges_a_combo() -> None:
    result = tableref("judge", "death-by-digits", "3", "--combo", "9 4", "--json")
    assert result.returncode == 0, result.stderr
    said = json.loads(result.stdout)
    assert said["setup"] == {
        "players": 3, "highest": 9, "deck": 27, "hand": 6, "murder": 3, "evidence": 6, "midnumber": 5
    }  # fmt: skip
    assert (said["combo"]["effect"], said["combo"]["made"]) == ("take", "9 - 4")
    text = tableref("judge", "death-by-digits", "3", "--combo", "2,9", "--if-nothing", "draw").stdout.splitlines()
    assert text[1].endswith("the other 6 face down as a draw pile; the Evidence starts empty")
    assert text[3] == "combo 2 9: 2 + 9 = 11 and 9 - 2 = 7, neither the Midnumber 5: " + (
        "nothing happens, so draw a card from the draw pile"
    )


def test_death_by_digits_refuses_a_table_the_deal_does_not_fit_and_cards_it_does_not_hold() -> None:
    for args, said in (
        (("5",), "5 players need 53 cards (10 each and 3 for the Murder) but cards 1 to 15, three of each, are 45"),
        (("3", "--combo", "10"), "cards run 1 to 9 with 3 players, got [10]"),
        (("3", "--combo", "4 one"), "--combo takes the cards' numbers"),
        (("2", "--combo", "1 1 1 1"), "a combo is 1, 2 or 3 cards, got 4"),
    ):
        result = tableref("judge", "death-by-digits", *args)
        assert result.returncode == 2 and said in result.stderr and result.stdout == "", args


def test_blocks_typed_each_block_counted_once_and_sets_that_are_none_said_so() -> None:
    result = tableref("judge", "blocks", "--sets", "1 4 1 5 9; 9 5 1 4 1; 2 6 5 3 0/5; 1 2 3; 8 9 7 9 2", "--json")
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout)
    assert [(s["blocks"], s["counted"]) for s in table["sets"]] == [
        ([1], 1),
        ([1], None),
        ([2], 2),
        ([], None),
        ([], None),
    ]
    assert table["blocks"] == 2
    text = tableref("judge", "blocks", "--sets", "1 4 1 5 9; 9 5 1 4 1; 1 2 3").stdout.splitlines()
    assert text == [
        "set 1: 1 4 1 5 9 -> block 1 (14159)",
        "set 2: 9 5 1 4 1 -> block 1, which another set has: a block is set down once (this set does not count)",
        "set 3: 1 2 3 -> 3 card(s), not a set of five",
        "blocks set down: 1",
    ]
    in_order = json.loads(tableref("judge", "blocks", "--sets", "9 5 1 4 1", "--in-order", "--json").stdout)
    assert in_order["blocks"] == 0
    refused = tableref("judge", "blocks", "--sets", "1 4 1 5 x")
    assert refused.returncode == 2 and "--sets: not a card: 'x'" in refused.stderr


def test_mathleague_scores_a_typed_team_against_the_win_number() -> None:
    args = ["judge", "mathleague", "--lowest", "63", "--school", "Euler cards=3 tools=60+50"]
    for spec in (
        "ms 40 red school=Euler tools=10+5 teachers=red",
        "hs 100 red school=Euler",
        "elem 90 red school=Euler tools=20",
        "ms 30 red school=Euler",
    ):
        args += ["--student", spec]
    result = tableref(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-3:] == [
        "all-star score: 210 (students 1, 2, 3, 4 with the colour bonus)",
        "school Euler: 310 (students 1, 2, 3, 4 with the colour bonus)",
        "win number 263: best 310, reached: this team wins",
    ]
    refused = tableref("judge", "mathleague", "--student", "ms forty red")
    assert refused.returncode == 2 and "give LEVEL (elem, ms, hs), SCORE and COLOUR" in refused.stderr


def test_grid_typed_says_each_turn_whose_turn_it_is_and_refuses_what_the_game_does_not_allow() -> None:
    result = tableref("judge", "grid", "--reveals", "1 4 1 5 9 2 7 3", "--players", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "turn 1, player 1: 1 4 1 5 9 | 2 7 (wrong: decimal 7 is 6)",
        "turn 2, player 2: 3 (wrong: decimal 6 is 2)",
        "face up for good: 3.14159 (5 of 25 cards)",
        "player 3 to reveal: a 2 (decimal 6)",
    ]
    won = json.loads(tableref("judge", "grid", "--reveals", "1 4 1 5 9", "--cards", "5", "--json").stdout)
    assert (won["winner"], won["player"], won["kept"]) == (1, None, 5)
    for args, said in (
        (("--reveals", "1 4 x"), "type the digits revealed"),
        (("--reveals", "1", "--cards", "12"), "a multiple of 5"),
        (("--reveals", "1 4 1 5 9 2", "--cards", "5"), "player 1 won"),
        ((), "give a photo or film of the grid or --reveals"),
    ):
        refused = tableref("judge", "grid", *args)
        assert refused.returncode == 2 and said in refused.stderr, args


BLUFF_LOG = """players: Ann Bob Cem
bluff
challenge: Cem; strengthen: Cem
challenge: Ann Bob; reveal: Cem=4 Ann=1/6 Bob=1
challenge: Cem; reveal: Ann=3 Cem=3
"""


def test_bluff_settles_each_turn_of_a_log_and_says_the_scores_and_whose_turn_it_is(tmp_path) -> None:
    log = tmp_path / "game.txt"
    log.write_text(BLUFF_LOG)
    result = tableref("judge", "bluff", str(log), "--bluff-worth", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "turn 1, Ann, the 1st decimal (1): not challenged; Ann's card stays face down (a bluff)",
        "turn 2, Bob, the 2nd decimal (4): challenged by Cem; Cem's bluff is the strongest after round 1 (2 cards): "
        "Cem wins 2 cards, bluff stays face down",
        "turn 3, Cem, the 3rd decimal (1): challenged by Ann, Bob; revealed Cem 4, Ann 1/6, Bob 1: Bob wins 2 cards; "
        "Bob's 1 appended face up",
        "turn 4, Ann, the 4th decimal (5): challenged by Cem; revealed Ann 3, Cem 3: none fits 5, nobody wins; "
        "the 2 cards placed go back into the Deck; the 4th decimal is needed",
        "line: 3. ? ? 1 (3 cards after the Starter)",
        "scores:",
        "  Cem: 4 (2 cards won, 1 bluff standing worth 2)",
        "  Ann: 2 (0 cards won, 1 bluff standing worth 2)",
        "  Bob: 2 (2 cards won, 0 bluffs standing)",
        "next: Bob states the 4th decimal (5)",
    ]
    piped = subprocess.run(
        [sys.executable, "-m", "server", "judge", "bluff", "-", "--json"],
        input=BLUFF_LOG + "challenge: Zed\nbluff\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert piped.returncode == 2 and "line 6: 'Zed' is not at the table" in piped.stderr
    game = json.loads(piped.stdout)
    assert len(game["turns"]) == 4 and game["next"] == {"player": "Bob", "decimal": 4, "digit": 5}
    assert [c["face_up"] for c in game["line"]] == [None, None, "1"]
    assert game["deck"] == 40 - 4 + 2  # four replacements drawn, two cards back
    missing = tableref("judge", "bluff", str(tmp_path / "none.txt"))
    assert missing.returncode == 1 and "none.txt: cannot be read" in missing.stderr


def test_pass_checks_each_try_of_a_log_along_pi_and_says_whose_try_it_is(tmp_path) -> None:
    log = tmp_path / "game.txt"
    log.write_text("players: Ann Bob Cem\n3. -> Cem\n1 -> Bob\ndraws 3; trade Ann; return\n1/6 -> Ann\n")
    result = tableref("judge", "pass", str(log))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        'try 1, Ann: "Three point!", the Starter to Cem',
        "try 2, Cem: 1 for the 1st decimal (1) to Bob",
        "try 3, Bob: draws 3, trades with Ann, no match: 1 back to Cem, who passes the 1st decimal again",
        "try 4, Cem: 1/6 for the 1st decimal (1) to Ann",
        "passed: 3.1 (1 decimal)",
        "hands: Ann 5, Bob 8, Cem 6; Deck 35",
        "next: Ann passes the 2nd decimal (4)",
    ]
    log.write_text("players: Ann Bob\n3. -> Bob\n1 -> Ann\n5 -> Bob\n")
    refused = tableref("judge", "pass", str(log), "--json")
    assert refused.returncode == 2 and "line 4: 5 does not fit decimal 2, a 4" in refused.stderr
    game = json.loads(refused.stdout)
    assert len(game["tries"]) == 2 and game["next"] == {"player": "Ann", "decimal": 2} and game["passed"] == 1


def test_a_game_typed_as_it_is_played_is_judged_line_by_line_kept_and_taken_up_again(tmp_path) -> None:
    saved = tmp_path / "game.txt"

    def typed(text: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "server", "judge", "bluff", "--save", str(saved)]
        return subprocess.run(command, input=text, capture_output=True, text=True, timeout=300)

    first = typed("players: Ann Bob\n\nbluff\nchallenge: Ann\nchallenge: Ann; reveal: Bob=4 Ann=9\n")
    assert first.returncode == 2  # a line was refused; the others stand
    assert (
        "line 4: the Reveal needs the initial bluff of Bob and Ann" in first.stderr and "type it again" in first.stderr
    )
    assert first.stdout.splitlines()[:4] == [
        "next: Ann states the 1st decimal (1)",
        "turn 1, Ann, the 1st decimal (1): not challenged; Ann's card stays face down (a bluff)",
        "next: Bob states the 2nd decimal (4)",
        "turn 2, Bob, the 2nd decimal (4): challenged by Ann; revealed Bob 4, Ann 9: Bob wins 1 card; "
        "Bob's 4 appended face up",
    ]
    assert saved.read_text() == "players: Ann Bob\n\nbluff\nchallenge: Ann; reveal: Bob=4 Ann=9\n"
    again = typed("bluff\nend: time is up\n")
    assert again.returncode == 0 and "goes on from its 2 turns" in again.stderr
    assert again.stdout.splitlines()[-5:] == [
        "game over: time is up; Ann wins",
        "line: 3. ? 4 ? (3 cards after the Starter)",
        "scores:",
        "  Ann: 2 (0 cards won, 2 bluffs standing)",
        "  Bob: 1 (1 card won, 0 bluffs standing)",
    ]
    whole = tableref("judge", "bluff", str(saved), "--json")
    assert json.loads(whole.stdout)["over"] == "time is up"
    refused = tableref("judge", "bluff", str(saved), "--save", str(saved))
    assert refused.returncode == 2 and "--save keeps a game typed" in refused.stderr
    refused = tableref("judge", "bluff", "--json")
    assert refused.returncode == 2 and "--json prints a game written down" in refused.stderr


def test_a_typed_line_that_cannot_be_saved_is_not_kept(tmp_path) -> None:
    nowhere = tmp_path / "no-such-folder" / "game.txt"
    command = [sys.executable, "-m", "server", "judge", "pass", "--save", str(nowhere)]
    result = subprocess.run(command, input="players: Ann Bob\n", capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "the line could not be saved" in result.stderr
    assert "no game was typed" in result.stderr and not nowhere.exists()
