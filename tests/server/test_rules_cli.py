"""The rules-only commands: the DIGIT card list and the Seven Pis simulator."""

import json

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
