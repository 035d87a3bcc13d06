"""Flash cards as a drill: any run of tables seen asks every decimal in play until it is answered right once,
asks a missed one again after the others, and counts what was answered; one card at a time answers."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.flash_cards import FlashError, new_drill, seen
from rules.pi import PI_DECIMALS, WILD_PAIRS, wild_pair

CARDS = [*range(10), *WILD_PAIRS]


@given(st.integers(1, 50), st.integers(0, 2**32), st.data())
def test_a_drill_asks_every_decimal_until_it_is_answered_right(digits: int, seed: int, data: st.DataObject) -> None:
    drill = new_drill(digits, seed)
    assert sorted(drill.order) == list(range(digits))
    misses = 0
    while not drill.over:
        asked = drill.asked
        digit = PI_DECIMALS[asked]
        card = data.draw(st.one_of(st.sampled_from([digit, wild_pair(digit)]), st.sampled_from(CARDS)))
        before = drill
        drill = seen(drill, [card])
        right = card == digit or card == wild_pair(digit)
        assert drill.answers[-1].place == asked and drill.answers[-1].right == right
        assert seen(drill, [card]) == drill  # the answer lying there answers nothing more
        drill = seen(drill, [])
        assert len(drill.order) == len(before.order) + (not right)
        misses += not right
        assert misses < 200, "a drill that never ends"
    answered_right = [answer.place for answer in drill.answers if answer.right]
    assert sorted(answered_right) == list(range(digits))  # each once: a decimal right is not asked again
    assert drill.right == digits and len(drill.answers) == digits + misses
    assert drill.best_run >= drill.run and drill.to_json()["asked"] is None


def test_runs_count_right_answers_in_a_row_and_more_than_one_card_answers_nothing() -> None:
    drill = new_drill(3, 7)
    first, second, third = (PI_DECIMALS[place] for place in drill.order)
    crowded = seen(drill, [first, second])
    assert crowded.crowded and crowded.answers == ()
    drill = seen(seen(seen(crowded, [first]), []), [(second + 1) % 10])  # right, then wrong
    assert (drill.run, drill.best_run, drill.right) == (0, 1, 1) and drill.waiting
    for card in (third, second):
        drill = seen(seen(drill, []), [card])
    assert drill.over and (drill.run, drill.best_run, drill.right) == (2, 2, 3)


@pytest.mark.parametrize("digits", [0, 51])
def test_a_drill_asks_one_to_fifty_decimals(digits: int) -> None:
    with pytest.raises(FlashError, match="1 to 50"):
        new_drill(digits, 0)
