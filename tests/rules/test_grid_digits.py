"""Grid o' Digits: reveals judged against pi's decimals, streaks of five kept face up, turns passed on a wrong
card, and games played from the grid's own cards checked for what the sheet promises."""

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.grid_digits import STREAK, GridError, GridGame, new_game, play, turns
from rules.pi import PI_DECIMALS

grids = st.sampled_from(range(STREAK, 51, STREAK))


def played_from_the_grid(seed: int, cards: int, players: int, memory: float) -> GridGame:
    """A whole game whose players reveal face-down cards only: the right one with chance `memory`, else any."""
    rng = random.Random(seed)
    game = new_game(cards, players)
    while not game.over:
        down = list(game.face_down.elements())
        digit = game.next_digit if rng.random() < memory else rng.choice(down)
        game = game.reveal(digit)
        game = game.turn_down(game.to_turn_down)
    return game


@given(st.integers(0, 10**6), grids, st.integers(1, 5), st.floats(0.3, 1.0))
def test_a_game_played_from_the_grid_ends_with_every_card_kept_face_up(
    seed: int, cards: int, players: int, memory: float
) -> None:
    game = played_from_the_grid(seed, cards, players, memory)
    assert game.over and game.kept == cards and not game.problems
    assert game.face_up == Counter(PI_DECIMALS[:cards]) and not game.face_down
    last = game.reveals[-1]
    assert last.right and last.kept and game.winner == last.player and game.player is not None


@given(st.integers(0, 10**6), grids, st.integers(1, 5), st.integers(0, 200))
def test_every_state_of_a_game_keeps_the_sheets_promises(seed: int, cards: int, players: int, stop: int) -> None:
    rng = random.Random(seed)
    game = new_game(cards, players)
    for _ in range(stop):
        if game.over:
            break
        assert game.face_down[game.next_digit] > 0, "the next decimal is always among the cards face down"
        before = game
        game = game.reveal(rng.choice(list(game.face_down.elements())))
        reveal = game.reveals[-1]
        assert reveal.place == before.kept + len(before.streak) and reveal.player == before.player
        assert reveal.right == (reveal.digit == PI_DECIMALS[reveal.place])
        if reveal.right:
            assert game.player == before.player and not game.to_turn_down
        else:
            assert game.player == before.player % players + 1
            assert game.to_turn_down == (*before.streak, reveal.digit) and game.streak == ()
            game = game.turn_down(game.to_turn_down)
        assert game.kept % STREAK == 0 and len(game.streak) < STREAK
        assert game.streak == PI_DECIMALS[game.kept : game.kept + len(game.streak)]
        assert game.kept == STREAK * sum(r.kept for r in game.reveals)
    wrong = sum(not r.right for r in game.reveals)
    assert sum(map(len, turns(game))) == len(game.reveals)
    assert len(turns(game)) == wrong + (bool(game.reveals) and game.reveals[-1].right)


def test_a_player_who_knows_the_grid_wins_in_one_turn() -> None:
    game = play(PI_DECIMALS[:25], players=3)
    assert (game.winner, game.kept, len(turns(game))) == (1, 25, 1)
    assert [r.kept for r in game.reveals].count(True) == 5


def test_the_cards_after_a_kept_five_start_the_next_streak_in_the_same_turn() -> None:
    game = play([1, 4, 1, 5, 9, 2, 6, 7])
    assert game.kept == 5 and game.streak == () and game.player == 2
    assert [r.right for r in game.reveals] == [True] * 7 + [False]
    assert game.next_digit == 2 and game.face_up == Counter([1, 4, 1, 5, 9])


def test_a_wrong_turn_must_be_turned_down_and_a_kept_card_must_not() -> None:
    game = new_game().reveal(1).reveal(4).reveal(9)
    assert game.to_turn_down == (1, 4, 9) and game.player == 2
    game = game.turn_down([9, 1])
    assert game.to_turn_down == (4,) and not game.problems
    game = game.turn_down([4, 4])
    assert game.to_turn_down == () and len(game.problems) == 1 and "4" in game.problems[0]


def test_a_digit_no_face_down_card_has_is_noted_and_judged_as_revealed() -> None:
    game = new_game(cards=5).reveal(1).reveal(4).reveal(1).reveal(1)
    assert game.reveals[-1].right is False and "no 1 is left face down" in game.problems[0]
    json = game.to_json()
    assert json["reveals"][-1] == {"digit": 1, "player": 1, "place": 3, "right": False, "kept": False}
    assert json["to_turn_down"] == [1, 4, 1, 1] and json["player"] == 2 and json["winner"] is None


@pytest.mark.parametrize("cards", [0, 4, 26, 55])
def test_a_grid_holds_a_multiple_of_five_cards_up_to_fifty(cards: int) -> None:
    with pytest.raises(GridError, match="multiple of 5"):
        new_game(cards)


def test_nothing_is_revealed_once_the_grid_is_face_up_nor_a_game_without_players() -> None:
    with pytest.raises(GridError, match="player 1 won"):
        play(PI_DECIMALS[:5], cards=5).reveal(3)
    with pytest.raises(GridError, match="a player or more"):
        new_game(players=0)
    with pytest.raises(GridError, match="not a digit"):
        new_game().reveal(10)
