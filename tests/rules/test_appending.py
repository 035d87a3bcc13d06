"""The appending game: lines judged place by place with Wilds standing for either digit, and the run a hand
can append checked against every order of every part of the hand."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.appending import appendable, fits, judge_line, jump_to_end
from rules.decko import DeckoCardError, card_text, checked, parse_card
from rules.pi import PI_DECIMALS, WILD_PAIRS, wild_pair

CARDS = [*range(10), *WILD_PAIRS]
cards = st.sampled_from(CARDS)


def as_laid(digits, wild_at: list[bool]) -> list:
    """Each digit as its card, or as its Wild where `wild_at` says."""
    return [wild_pair(d) if w else d for d, w in zip(digits, wild_at, strict=False)]


@given(st.integers(0, 50), st.lists(st.booleans(), min_size=50, max_size=50))
def test_a_right_line_fits_whatever_wilds_stand_in_it(n: int, wild_at: list[bool]) -> None:
    verdict = judge_line(as_laid(PI_DECIMALS[:n], wild_at))
    assert verdict.correct == n and verdict.first_wrong is None
    assert verdict.next_digit == (PI_DECIMALS[n] if n < 50 else None)
    assert verdict.complete == (n == 50)


@given(st.integers(0, 49), cards, st.lists(cards, max_size=5), st.lists(st.booleans(), min_size=50, max_size=50))
def test_the_first_card_that_does_not_fit_stops_the_line(n: int, wrong, tail: list, wild_at: list[bool]) -> None:
    digit = PI_DECIMALS[n]
    if wrong == digit or (isinstance(wrong, tuple) and digit in wrong):
        wrong = (digit + 1) % 10  # a digit the place does not take (its Wild would)
    verdict = judge_line([*as_laid(PI_DECIMALS[:n], wild_at), wrong, *tail])
    assert (verdict.correct, verdict.first_wrong, verdict.next_digit) == (n, n, None)
    error = verdict.to_json()["first_error"]
    assert (error["expected"], error["got"]) == (digit, card_text(wrong))


def test_a_card_past_the_fiftieth_decimal_is_wrong() -> None:
    verdict = judge_line([*PI_DECIMALS, 0])
    assert verdict.first_wrong == 50 and verdict.to_json()["first_error"]["expected"] is None


def test_every_card_of_the_deck_is_typed_and_read_back_and_nothing_else_is() -> None:
    for card in CARDS:
        assert parse_card(card_text(card)) == card == checked(card)
    assert parse_card("6/1") == (1, 6)
    for text in ("", "10", "1/5", "x", "1/", "/6", "1/66", "-1", "²", "1/6/1"):
        with pytest.raises(DeckoCardError):
            parse_card(text)
    for card in (10, -1, (1, 5), (1, 6, 2), "1", True):
        with pytest.raises(DeckoCardError):
            checked(card)


@given(st.integers(0, 50), st.lists(cards, max_size=6))
def test_the_run_to_append_is_the_longest_any_order_of_the_hand_gives(laid: int, hand: list) -> None:
    """Brute force over every ordered part of the hand: the run fits place after place from `laid`, uses the
    hand's own cards, is as long as the longest and, among those, spends fewest Wilds."""
    run = appendable(laid, hand)
    assert all(fits(card, laid + i) for i, card in enumerate(run))
    left = list(hand)
    for card in run:
        left.remove(card)  # raises if the run holds a card the hand has not
    best = (0, 0)
    for size in range(1, len(hand) + 1):
        for order in itertools.permutations(hand, size):
            if all(fits(card, laid + i) for i, card in enumerate(order)):
                best = max(best, (size, -sum(isinstance(c, tuple) for c in order)))
    assert (len(run), -sum(isinstance(c, tuple) for c in run)) == best


def test_the_special_rule_lets_a_hand_of_the_last_digits_jump_to_the_end() -> None:
    """The sheet's example: a hand of 1 and 0 once the other 1s and 0s are laid jumps to the end; a Wild 1/6
    in it only once no 1 or 6 fits a place still open."""
    assert PI_DECIMALS[-5:] == (3, 7, 5, 1, 0)
    assert jump_to_end(45, [0, 1]) == [1, 0]
    assert jump_to_end(45, [0, (1, 6)]) == [(1, 6), 0]
    assert jump_to_end(40, [0, (1, 6)]) is None  # the 6 at place 40 is still open: the Wild fits it
    assert jump_to_end(36, [0, 1]) is None  # the 1s at places 36 and 39 are still open
    assert jump_to_end(45, [0, 9]) is None  # not the fifty's last digits
    assert jump_to_end(49, [5, 1, 0]) is None and jump_to_end(45, []) is None  # past the line; no hand


@given(st.integers(0, 50), st.lists(cards, min_size=1, max_size=4))
def test_a_jump_lays_the_whole_hand_as_the_last_decimals_and_skips_no_place_it_fits(laid: int, hand: list) -> None:
    order = jump_to_end(laid, hand)
    start = 50 - len(hand)
    openings = [p for p in range(laid, max(laid, start))]
    could = start >= laid and not any(fits(c, p) for c in hand for p in openings)
    could = could and any(all(fits(c, start + i) for i, c in enumerate(o)) for o in itertools.permutations(hand))
    assert (order is not None) == could
    if order is not None:
        assert sorted(map(card_text, order)) == sorted(map(card_text, hand))
        assert all(fits(card, start + i) for i, card in enumerate(order))
