"""The bluffing game: random games played turn by turn keep every card somewhere and every face-up card in the
line on its digit; challenges are settled by strength, then by the Reveal as an independent reading of the sheet
says; logs are read back as written, and turns the rules do not allow are named by their line."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.bluffing import (
    DECK,
    ROUNDS,
    BluffingError,
    Challenge,
    new_game,
    play,
    read_log,
    replay_log,
    standings,
)
from rules.decko import card_fits, card_text
from rules.game_log import GameLogError, Log
from rules.pi import PI_DECIMALS, WILD_PAIRS, wild_pair

NAMES = ("Ann", "Bob", "Cem", "Dee", "Eva", "Fay")
CARDS = [*range(10), *WILD_PAIRS]


def a_card(data: st.DataObject, place: int):
    """Often the place's digit or its Wild, so that reveals fit as often as not."""
    digit = PI_DECIMALS[place]
    return data.draw(st.one_of(st.sampled_from([digit, wild_pair(digit)]), st.sampled_from(CARDS)))


def a_turn(data: st.DataObject, game) -> Challenge | None:
    """A turn the rules allow: no challenge, or challengers with cards, strengthening only from cards they hold
    and no round after a sole leader, and every player's initial bluff turned up."""
    others = [name for seat, name in enumerate(game.players) if seat != game.turn and game.hands[seat] > 0]
    if not others or data.draw(st.booleans()):
        return None
    challengers = data.draw(st.lists(st.sampled_from(others), min_size=1, unique=True))
    placed = dict.fromkeys([game.current, *challengers], 1)
    rounds = []
    for _ in range(data.draw(st.integers(0, ROUNDS))):
        most = max(placed.values())
        if sum(n == most for n in placed.values()) == 1:
            break
        able = [name for name in placed if game.hands[game.seat(name)] > placed[name]]
        round_ = data.draw(st.lists(st.sampled_from(able), unique=True)) if able else []
        for name in round_:
            placed[name] += 1
        rounds.append(tuple(round_))
    revealed = {name: a_card(data, game.place) for name in placed}
    return Challenge(tuple(challengers), tuple(rounds), revealed)


def expected_winners(turn, current: str, seats: tuple[str, ...]) -> tuple[str, ...]:
    """The sheet's Reveal read afresh: the strongest reveal, the current player first; a fitting Digit card beats
    a fitting Wild; tied winners in turn order from the current player."""
    placed, revealed, digit = turn.placed, turn.challenge.revealed, turn.digit
    most = max(placed.values())
    revealing = [name for name in placed if placed[name] == most]
    if current in revealing and card_fits(revealed[current], digit):
        return (current,)
    rank = {name: 2 if revealed[name] == digit else 1 for name in revealing if card_fits(revealed[name], digit)}
    best = [name for name in revealing if rank and rank.get(name) == max(rank.values())]
    return tuple(sorted(best, key=lambda name: (seats.index(name) - seats.index(current)) % len(seats)))


@given(st.data())
def test_random_games_keep_every_card_and_every_face_up_card_on_its_digit(data: st.DataObject) -> None:
    players = data.draw(st.integers(2, 6))
    game = new_game(NAMES[:players], data.draw(st.integers(1, DECK // players)))
    for _ in range(data.draw(st.integers(1, 60))):
        if game.over:
            with pytest.raises(BluffingError, match="over"):
                play(game, None)
            break
        before = game
        game, turn = play(game, a_turn(data, game))
        assert sum(game.hands) + game.deck + len(game.line) + sum(game.won) == DECK
        assert min(game.hands) >= 0 and game.deck >= 0
        assert len(game.line) == len(before.line) + (1 if turn.winners else 0)
        assert all(c.card is None or card_fits(c.card, PI_DECIMALS[i]) for i, c in enumerate(game.line))
        assert game.turn == (before.turn + 1) % players
        if turn.settled_by == "strength":
            most = turn.placed[turn.winners[0]]
            assert all(n < most for name, n in turn.placed.items() if name != turn.winners[0])
            assert turn.won[turn.winners[0]] == sum(turn.placed.values()) - 1 and game.line[-1].card is None
        if turn.settled_by in ("reveal", "nobody"):
            assert turn.winners == expected_winners(turn, before.current, game.players)
        if turn.settled_by == "reveal":
            assert game.line[-1] == turn.appended and turn.appended.owner == turn.winners[0]
            assert card_fits(turn.appended.card, turn.digit)
        table = standings(game)
        assert sum(s.won for s in table) == sum(game.won)
        assert sum(s.bluffs for s in table) == sum(c.card is None for c in game.line)
        assert [s.score for s in table] == sorted((s.score for s in table), reverse=True)


@given(st.integers(2, 3), st.integers(0, 3))
def test_tied_winners_share_the_cards_and_the_rest_goes_back(ties: int, rounds: int) -> None:
    """Every player strengthens every round, so all reveal; `ties` challengers show the digit's own card."""
    game = new_game(NAMES[:4])
    digit = PI_DECIMALS[0]
    players = list(game.players)
    revealed = {name: (digit + 1) % 10 for name in players}
    revealed.update({name: digit for name in players[1 : 1 + ties]})
    challenge = Challenge(tuple(players[1:]), ((*players,),) * rounds, revealed)
    after, turn = play(game, challenge)
    total = 4 * (1 + rounds)
    pool = total - ties
    assert turn.winners == tuple(players[1 : 1 + ties])
    assert turn.won == dict.fromkeys(turn.winners, pool // ties)
    assert turn.to_deck == pool % ties + ties - 1
    assert after.line[0].owner == players[1] and after.line[0].card == digit


def test_a_digit_card_beats_a_wild_and_a_challenge_nobody_wins_appends_nothing() -> None:
    game = new_game(NAMES[:3])
    digit = PI_DECIMALS[0]
    wild, wrong = wild_pair(digit), (digit + 1) % 10
    _, turn = play(game, Challenge(("Bob", "Cem"), (), {"Ann": wrong, "Bob": wild, "Cem": digit}))
    assert turn.winners == ("Cem",) and turn.won == {"Cem": 2} and turn.to_deck == 0
    after, turn = play(game, Challenge(("Bob",), (), {"Ann": wrong, "Bob": wrong}))
    assert turn.settled_by == "nobody" and after.line == () and turn.to_deck == 2
    assert after.deck == game.deck + 2 - 1  # the current player's replacement drawn from it


def test_the_current_player_revealing_a_fitting_card_wins_and_needs_no_other_card() -> None:
    game = new_game(NAMES[:2])
    _, turn = play(game, Challenge(("Bob",), (), {"Ann": wild_pair(PI_DECIMALS[0])}))
    assert turn.winners == ("Ann",) and turn.appended.card == wild_pair(PI_DECIMALS[0])


def test_a_game_ends_at_the_fiftieth_decimal_and_when_a_hand_is_empty() -> None:
    game = new_game(NAMES[:2])
    for _ in PI_DECIMALS:
        game, _turn = play(game, None)
    assert game.over == "the fiftieth decimal is appended" and len(game.line) == 50
    game = new_game(NAMES[:2], hand=1)
    game, _turn = play(game, Challenge(("Bob",), (), {"Ann": 0, "Bob": 0}))
    assert game.over == "Bob ran out of cards"
    table = standings(game)
    assert [(s.player, s.score) for s in table] == [("Ann", 0), ("Bob", 0)]


def test_bluffs_standing_score_what_the_house_rule_makes_them_worth() -> None:
    game = new_game(NAMES[:2])
    game, _ = play(game, None)  # Ann's bluff stands
    game, _ = play(game, Challenge(("Ann",), (("Ann",),)))  # Ann wins 2 cards by strength, a bluff stands too
    assert {s.player: (s.won, s.bluffs, s.score) for s in standings(game)} == {"Ann": (2, 2, 4), "Bob": (0, 0, 0)}
    assert standings(game, bluff_worth=3)[0].score == 2 + 3 * 2


LOG = """# three players
players: Ann Bob Cem
hand: 4
bluff
challenge: Cem; strengthen: Cem   # Cem the strongest after round 1
challenge: Ann Bob; strengthen: ; strengthen: Ann Bob Cem; reveal: Cem=4 Ann=1/6 Bob=1
end: nobody can place
"""


def test_a_log_is_read_as_written() -> None:
    log = read_log(LOG)
    assert log == Log(
        ("Ann", "Bob", "Cem"),
        4,
        (
            None,
            Challenge(("Cem",), (("Cem",),)),
            Challenge(("Ann", "Bob"), ((), ("Ann", "Bob", "Cem")), {"Cem": 4, "Ann": (1, 6), "Bob": 1}),
        ),
        "nobody can place",
        (4, 5, 6),
    )
    played = replay_log(log)
    assert played.error is None and played.game.over == "nobody can place"
    assert [t.winners for t in played.turns] == [("Ann",), ("Cem",), ("Bob",)]
    assert card_text(played.game.line[-1].card) == "1"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("challenge: Ann", "other players than Ann"),
        ("challenge: Zed", "'Zed' is not at the table"),
        ("challenge: Bob; strengthen: Cem", "only the challenge's players"),
        ("challenge: Bob; strengthen: Bob; strengthen: Ann", "strongest after round 1"),
        ("challenge: Bob; strengthen:; strengthen:; strengthen:; strengthen:", "3 strengthening rounds at most"),
        ("challenge: Bob; reveal: Ann=9", "needs the initial bluff of Bob"),
        ("challenge: Bob; reveal: Ann=9 Bob=9 Cem=1", "Cem did not join"),
        ("challenge: Bob; strengthen: Ann Bob; strengthen: Ann Bob", "Ann has no card left"),
    ],
)
def test_a_turn_the_rules_do_not_allow_is_named_and_the_turns_before_it_stand(line: str, says: str) -> None:
    played = replay_log(read_log(f"players: Ann Bob Cem\nhand: 2\nbluff\nbluff\nbluff\n{line}\nbluff\n"))
    assert len(played.turns) == 3 and played.error.startswith("line 6: ") and says in played.error


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("bluff", "begins with the players"),
        ("", "names no players"),
        ("players: Ann Ann", "share a name"),
        ("players: Ann Bob\nchallenge: Bob; reveal: Bob", "Name=card"),
        ("players: Ann Bob\nchallenge: Bob; reveal: Bob=1/5", "not a Decko card"),
        ("players: Ann Bob\nstrengthen: Bob", "a turn is 'bluff'"),
        ("players: Ann Bob\nchallenge: Bob; reveal: Bob=1; strengthen: Ann", "then one 'reveal:'"),
        ("players: Ann Bob\nhand: five", "whole number"),
        ("players: Ann Bob\nhand: 0", "one card or more"),
        ("players: Ann Bob\nend:\nbluff", "nothing follows the end"),
    ],
)
def test_a_log_that_cannot_be_read_says_where(text: str, says: str) -> None:
    with pytest.raises((GameLogError, BluffingError), match=says):
        replay_log(read_log(text))


@pytest.mark.parametrize(("players", "hand"), [(("Ann",), 5), (("Ann", "Bob"), 0), (NAMES, 10)])
def test_a_table_the_deck_cannot_deal_is_refused(players: tuple[str, ...], hand: int) -> None:
    with pytest.raises(BluffingError):
        new_game(players, hand)


def test_undo_takes_back_the_turn_or_the_end_before_it() -> None:
    log = read_log("players: Ann Bob\nbluff\nchallenge: Ann\nundo\nbluff\nend: tea\nundo\n")
    assert log.turns == (None, None) and log.ended is None and log.lines == (2, 5)
    assert len(replay_log(log).game.line) == 2
    with pytest.raises(GameLogError, match="line 2: no turn to undo"):
        read_log("players: Ann Bob\nundo")
