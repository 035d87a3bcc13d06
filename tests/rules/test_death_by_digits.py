"""Death by Digits: the deal checked against the sheet's counts for every table size, and every combo a deck
allows judged against the sheet's three combos."""

import itertools
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.death_by_digits import LARGEST_TABLE, DeathByDigitsError, IfNothing, Rounding, combo, setup

TABLES = range(2, LARGEST_TABLE + 1)


@pytest.mark.parametrize("players", TABLES)
def test_the_deal_uses_every_card_once(players: int) -> None:
    """Cards 1..3P, three of each; 2P to each player, 3 to the Murder, the rest to the Evidence."""
    game = setup(players)
    deck = [n for n in range(1, 3 * players + 1) for _ in range(3)]
    assert game.deck == len(deck)
    assert players * game.hand + 3 + game.evidence == len(deck) and game.evidence >= 0
    assert game.hand == 2 * players


@pytest.mark.parametrize("players", range(0, 10))
def test_only_tables_the_deal_fits_are_dealt_and_the_others_are_told_why(players: int) -> None:
    fits = players >= 2 and 2 * players * players + 3 <= 9 * players
    if fits:
        assert setup(players).players == players
        return
    with pytest.raises(DeathByDigitsError) as refused:
        setup(players)
    said = str(refused.value)
    assert ("at least 2 players" in said) if players < 2 else (f"play with 2 to {LARGEST_TABLE} players" in said)
    assert LARGEST_TABLE == 4  # the sheet's printed numbers (1..18) would serve six; the deal serves four


@pytest.mark.parametrize("players", TABLES)
@pytest.mark.parametrize("rounding", list(Rounding))
def test_the_midnumber_is_half_the_highest_card_rounded(players: int, rounding: Rounding) -> None:
    half = Decimal(3 * players) / 2
    expected = half.to_integral_value(ROUND_HALF_UP) if rounding is Rounding.UP else int(half)
    assert setup(players, rounding).midnumber == expected


@pytest.mark.parametrize("players", TABLES)
def test_every_combo_a_deck_allows_does_what_the_sheet_says(players: int) -> None:
    """Exhaustive over the deck's numbers: one card steals, two take from the Evidence where their sum or
    difference is the Midnumber, three of a kind peek, anything else does nothing; the order of the cards
    never matters."""
    game = setup(players)
    numbers = range(1, game.highest + 1)
    for count in (1, 2, 3):
        for cards in itertools.product(numbers, repeat=count):
            verdict = combo(cards, game)
            if count == 1:
                expected = "steal"
            elif count == 2:
                a, b = cards
                expected = "take" if game.midnumber in {a + b, a - b, b - a} else "nothing"
            else:
                expected = "peek" if cards[0] == cards[1] == cards[2] else "nothing"
            assert verdict.effect == expected, cards
            assert (verdict.made is not None) == (expected == "take")
            if verdict.made:  # "1 + 4" or "9 - 4", as said to the table
                a, sign, b = verdict.made.split()
                assert int(a) + (int(b) if sign == "+" else -int(b)) == game.midnumber
            for other in itertools.permutations(cards):
                assert combo(other, game).effect == expected


@given(
    players=st.sampled_from(TABLES),
    cards=st.lists(st.integers(-3, 20), min_size=0, max_size=5),
    if_nothing=st.sampled_from(IfNothing),
)
def test_cards_no_deck_holds_and_counts_with_no_combo_are_refused(players, cards, if_nothing) -> None:
    game = setup(players)
    valid = 1 <= len(cards) <= 3 and all(1 <= n <= game.highest for n in cards)
    if valid:
        assert combo(cards, game, if_nothing).if_nothing is if_nothing
    else:
        with pytest.raises(DeathByDigitsError):
            combo(cards, game, if_nothing)
