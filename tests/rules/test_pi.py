from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from rules.pi import BLOCKS, DIGIT_COUNTS, PI_DECIMALS, WILD_PAIRS, occurrence_marks, wild_pair


# pi to 50 decimals, computed here by Machin's formula rather than copied from the module under test.
def machin_pi_decimals(n: int) -> list[int]:
    scale = 10 ** (n + 10)

    def arctan_inv(x: int) -> int:
        total, term, k, sign = 0, scale // x, 1, 1
        while term:
            total += sign * term // k
            term //= x * x
            k += 2
            sign = -sign
        return total

    pi = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    return [int(c) for c in str(pi)[1 : n + 1]]


def test_fifty_decimals_match_machin() -> None:
    assert list(PI_DECIMALS) == machin_pi_decimals(50)


def test_blocks_are_the_fifty_in_fives() -> None:
    assert len(BLOCKS) == 10
    assert all(len(b) == 5 for b in BLOCKS)
    assert [d for b in BLOCKS for d in b] == list(PI_DECIMALS)


def test_digit_counts_match_the_notes() -> None:
    # NOTES.md: 0:2, 1:5, 2:5, 3:8, 4:4, 5:5, 6:4, 7:4, 8:5, 9:8
    assert DIGIT_COUNTS == {0: 2, 1: 5, 2: 5, 3: 8, 4: 4, 5: 5, 6: 4, 7: 4, 8: 5, 9: 8}
    assert sum(DIGIT_COUNTS.values()) == 50


@given(st.integers(0, 9))
def test_wild_pair_holds_the_digit_and_its_partner(d: int) -> None:
    pair = wild_pair(d)
    assert d in pair
    assert pair[1] - pair[0] == 5
    assert pair in WILD_PAIRS


def test_occurrence_marks_point_at_last_and_next_to_last() -> None:
    marks = occurrence_marks()
    for digit, count in Counter(PI_DECIMALS).items():
        positions = [i for i, d in enumerate(PI_DECIMALS) if d == digit]
        assert marks[positions[-1]] == 1
        assert marks[positions[-2]] == 2 if count > 1 else True
        assert all(marks[i] == 0 for i in positions[:-2])
