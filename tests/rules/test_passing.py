"""The passing game: random games played try by try keep every card somewhere and every card passed on its
decimal; a failed try gives the card back to its giver; the game ends where the sheet says; logs are read back as
written, and tries the rules do not allow are named by their line."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.decko import card_fits
from rules.game_log import GameLogError
from rules.passing import DECK, DRAWS, PassingError, Try, new_game, play, read_log, replay_log
from rules.pi import PI_DECIMALS, wild_pair

NAMES = ("Ann", "Bob", "Cem", "Dee", "Eva", "Fay")


def a_try(data: st.DataObject, game) -> Try:
    """A try the rules allow: the Starter given first; then draws, and a return only once the draws are done,
    a trade only then and between players who hold cards, else a card that fits passed on."""
    others = [name for name in game.players if name != game.holder]
    to = data.draw(st.sampled_from(others))
    if not game.chain:
        return Try(to=to)
    seat = game.seat(game.holder)
    draws = data.draw(st.integers(0, min(DRAWS, game.deck)))
    searched = draws == DRAWS or draws == game.deck
    held = game.hands[seat] + draws
    partners = [name for name in others if game.hands[game.seat(name)]]
    trade = (
        data.draw(st.sampled_from(partners)) if searched and held and partners and data.draw(st.booleans()) else None
    )
    if (searched and data.draw(st.integers(0, 3)) == 0) or not held:
        if not searched:  # an empty hand with the Deck still full: draw first
            return Try(to=to, draws=min(DRAWS, game.deck), card=_fitting(data, game))
        return Try(draws, trade)
    return Try(draws, trade, _fitting(data, game), to)


def _fitting(data: st.DataObject, game):
    digit = PI_DECIMALS[game.recited]
    return data.draw(st.sampled_from([digit, wild_pair(digit)]))


@given(st.data())
def test_random_games_keep_every_card_and_every_card_passed_on_its_decimal(data: st.DataObject) -> None:
    players = data.draw(st.integers(2, 6))
    game = new_game(NAMES[:players], data.draw(st.integers(1, DECK // players)))
    for _ in range(data.draw(st.integers(1, 80))):
        if game.over:
            with pytest.raises(PassingError, match="over"):
                play(game, Try(to=game.players[0]))
            break
        before = game
        game, tried = play(game, a_try(data, game))
        set_aside = sum(passed.card is not None for passed in game.chain)
        assert sum(game.hands) + game.deck + set_aside == DECK and min(game.hands) >= 0
        assert all(card_fits(p.card, PI_DECIMALS[i]) for i, p in enumerate(game.chain[1:]))
        assert game.chain[0].giver == game.players[0] and game.chain[0].card is None if game.chain else True
        if tried.returned is not None:
            assert game.chain == before.chain[:-1] and game.holder == tried.returned.giver
            giver = game.seat(tried.returned.giver)
            back = tried.returned.card is not None
            assert game.hands[giver] == before.hands[giver] + back + (
                tried.move.draws if giver == before.seat(tried.player) else 0
            )
        else:
            assert game.chain[:-1] == before.chain and game.holder == tried.move.to
        last = game.chain[-1].giver if game.chain else None
        out = [name for name, n in zip(game.players, game.hands, strict=True) if n == 0 and name != last]
        if game.over is None:
            assert not out  # an empty hand ends the game once its last card cannot come back
        elif game.recited < 50:
            assert out and game.over == f"{' and '.join(out)} emptied their hand" and set(out) <= set(game.winners())


def test_a_hand_emptied_ends_the_game_once_its_last_card_cannot_come_back() -> None:
    """Eleven hands of five leave no Deck: Bob passes his five cards, four to Cem, who passes back, the last to
    Dee."""
    players = tuple(f"P{i}" for i in range(7))
    game, _ = play(new_game(("Ann", "Bob", "Cem", "Dee", *players)), Try(to="Bob"))
    for place in range(8):
        game, _ = play(game, Try(card=PI_DECIMALS[place], to="Cem" if game.holder == "Bob" else "Bob"))
    game, _ = play(game, Try(card=PI_DECIMALS[8], to="Dee"))
    assert game.hands[1] == 0 and game.holder == "Dee" and game.over is None  # his last card may come back
    failed, tried = play(game, Try())  # no Deck to draw from: Dee may fail at once
    assert failed.hands[1] == 1 and failed.holder == "Bob" and tried.place == 8 and failed.over is None
    game, _ = play(game, Try(card=wild_pair(PI_DECIMALS[9]), to="Ann"))
    assert game.over == "Bob emptied their hand" and game.winners() == ["Bob"]


def test_the_fiftieth_decimal_passed_ends_the_game_and_the_fewest_cards_win() -> None:
    """Two players pass back and forth, Bob the even decimals; the Deck runs out five decimals from the end, three
    of them (the 46th, 48th and 50th) Ann's."""
    game, _ = play(new_game(NAMES[:2]), Try(to="Bob"))
    for place in range(50):
        game, _ = play(game, Try(card=PI_DECIMALS[place], to=NAMES[place % 2]))
    assert game.over == "the fiftieth decimal is passed" and game.recited == 50 and game.deck == 0
    assert game.hands == (2, 3) and game.winners() == ["Ann"]


LOG = """players: Ann Bob Cem Dee   # Ann is the First Player
3. -> Cem
1 -> Bob
draws 2; 4 -> Ann
draws 3; trade Dee; 1/6 -> Cem
draws 3; return
1 -> Dee
end: we stop here
"""


def test_a_log_is_read_as_written_and_played() -> None:
    log = read_log(LOG)
    assert log.turns == (
        Try(to="Cem"),
        Try(card=1, to="Bob"),
        Try(2, None, 4, "Ann"),
        Try(3, "Dee", (1, 6), "Cem"),
        Try(3),
        Try(card=1, to="Dee"),
    )
    played = replay_log(log)
    assert played.error is None and played.game.over == "we stop here" and played.game.recited == 3
    assert played.game.hands == (9, 7, 8, 5) and played.game.deck == 55 - 20 - 12
    assert played.turns[4].returned.giver == "Ann" and played.game.holder == "Dee"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("4 -> Bob", "4 does not fit decimal 1, a 1"),
        ("1 -> Cem", "Cem passes to another player"),
        ("1 -> Zed", "'Zed' is not at the table"),
        ("3. -> Bob", "the Starter was given already"),
        ("draws 4; 1 -> Bob", "draws 0 to 3"),
        ("draws 2; trade Bob; 1 -> Bob", "trades only after drawing 3"),
        ("draws 1; return", "before failing"),
        ("draws 3; trade Cem; return", "with another player who holds one"),
    ],
)
def test_a_try_the_rules_do_not_allow_is_named_and_the_tries_before_it_stand(line: str, says: str) -> None:
    played = replay_log(read_log(f"players: Ann Bob Cem\n3. -> Cem\n{line}\n1 -> Bob\n"))
    assert len(played.turns) == 1 and played.error.startswith("line 3: ") and says in played.error


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("players: Ann Bob\n1 -> Bob", 'calls "Three point!"'),
        ("players: Ann Bob\n3. -> Bob\nBob", "CARD -> NAME"),
        ("players: Ann Bob\n3. -> Bob\n1 -> Ann Bob", "CARD -> NAME"),
        ("players: Ann Bob\n3. -> Bob\nhop 2; 1 -> Ann", "a try is"),
        ("players: Ann Bob\n3. -> Bob\n1/5 -> Ann", "not a Decko card"),
        ("players: Ann", "two players or more"),
    ],
)
def test_a_log_that_cannot_be_played_says_why(text: str, says: str) -> None:
    with pytest.raises((GameLogError, PassingError), match=says):
        played = replay_log(read_log(text))
        if played.error:
            raise PassingError(played.error)
