"""The block game: sets of five matched to the Reference card's blocks, checked against every way the Wilds
could be read, and the count against every way the sets could be given blocks."""

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from rules.blocks import blocks_matched, judge_sets
from rules.pi import BLOCKS, WILD_PAIRS, wild_pair

CARDS = [*range(10), *WILD_PAIRS]
cards = st.sampled_from(CARDS)


def makes(laid: list, block: tuple[int, ...], in_order: bool) -> bool:
    """By reading each Wild as one of its digits in every way: the digits are the block's (in its order)."""
    for digits in itertools.product(*[(c,) if isinstance(c, int) else c for c in laid]):
        if list(digits) == list(block) if in_order else Counter(digits) == Counter(block):
            return True
    return False


@given(st.integers(0, 9), st.permutations(range(5)), st.lists(st.booleans(), min_size=5, max_size=5))
def test_a_blocks_cards_make_it_in_any_order_wilds_standing_in(number: int, order, wild_at) -> None:
    laid = [wild_pair(d) if w else d for d, w in zip(BLOCKS[number], wild_at, strict=True)]
    shuffled = [laid[i] for i in order]
    assert number + 1 in blocks_matched(shuffled)
    assert (number + 1 in blocks_matched(shuffled, in_order=True)) == makes(shuffled, BLOCKS[number], True)


@given(st.lists(cards, min_size=0, max_size=7), st.booleans())
def test_the_blocks_a_set_makes_are_those_some_reading_of_its_wilds_makes(laid: list, in_order: bool) -> None:
    expected = tuple(n for n, block in enumerate(BLOCKS, 1) if len(laid) == 5 and makes(laid, block, in_order))
    assert blocks_matched(laid, in_order) == expected


@given(st.lists(st.tuples(st.integers(0, 9), st.lists(st.booleans(), min_size=5, max_size=5)), max_size=5))
def test_the_count_is_the_most_blocks_the_sets_can_make_each_once(chosen) -> None:
    """Sets made of random blocks (some twice), Wilds standing in: the count is the best of every way of
    giving each set one of its blocks or none, each block once; and a counted set counts one it makes."""
    sets = [[wild_pair(d) if w else d for d, w in zip(BLOCKS[n], wild_at, strict=True)] for n, wild_at in chosen]
    table = judge_sets(sets)
    options = [(None, *blocks_matched(s)) for s in sets]
    best = 0
    for pick in itertools.product(*options):
        given_blocks = [b for b in pick if b is not None]
        if len(given_blocks) == len(set(given_blocks)):
            best = max(best, len(given_blocks))
    assert table.count == best
    counted = [s.counted for s in table.sets if s.counted is not None]
    assert len(counted) == len(set(counted)) and all(s.counted in (None, *s.blocks) for s in table.sets)


def test_of_two_sets_that_can_only_make_one_block_the_first_counts() -> None:
    table = judge_sets([list(BLOCKS[0]), list(reversed(BLOCKS[0])), [0, 0, 0, 0, 0]])
    assert [s.counted for s in table.sets] == [1, None, None] and table.count == 1
    assert [s.blocks for s in table.sets] == [(1,), (1,), ()]
