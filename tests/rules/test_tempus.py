from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.pi import PI_DECIMALS
from rules.tempus import RaceEntry, TempusError, TempusOptions, judge, rank, settled_lines

digits = st.integers(0, 9)


@given(st.integers(0, 50))
def test_a_correct_prefix_scores_its_length(n: int) -> None:
    verdict = judge(PI_DECIMALS[:n])
    assert verdict.consecutive_correct == n
    assert verdict.first_error is None
    assert verdict.complete == (n == 50)


@given(st.integers(0, 49), digits, st.lists(digits, max_size=10))
def test_the_first_wrong_card_stops_the_count(n: int, wrong: int, tail: list[int]) -> None:
    expected = PI_DECIMALS[n]
    if wrong == expected:
        wrong = (wrong + 1) % 10
    verdict = judge([*PI_DECIMALS[:n], wrong, *tail])
    assert verdict.consecutive_correct == n
    assert verdict.first_error is not None
    assert (verdict.first_error.index, verdict.first_error.expected, verdict.first_error.got) == (
        n,
        expected,
        wrong,
    )
    assert not verdict.complete


@given(st.lists(digits, max_size=60))
def test_count_agrees_with_a_direct_scan(cards: list[int]) -> None:
    verdict = judge(cards)
    n = 0
    while n < len(cards) and n < 50 and cards[n] == PI_DECIMALS[n]:
        n += 1
    assert verdict.consecutive_correct == n
    assert (verdict.first_error is None) == (n == len(cards))
    assert verdict.to_json()["cards"] == cards


@given(st.integers(1, 50))
def test_beginner_decks_end_early(n: int) -> None:
    options = TempusOptions(digits=n)
    assert judge(PI_DECIMALS[:n], options).complete
    extra = judge([*PI_DECIMALS[:n], 1], options)
    assert extra.consecutive_correct == n
    assert extra.first_error is not None and extra.first_error.expected is None
    assert extra.to_json()["first_error"]["expected"] is None  # JSON null: no card is expected there
    assert options.time_limit == pytest.approx(3.0 * n)


@pytest.mark.parametrize("bad", [0, 51, -3])
def test_beginner_option_out_of_range_is_refused(bad: int) -> None:
    with pytest.raises(TempusError):
        TempusOptions(digits=bad)


def test_non_digits_are_refused() -> None:
    with pytest.raises(TempusError):
        judge([1, 4, 10])


@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.one_of(st.none(), st.floats(0, 3000, allow_nan=False))),
        min_size=1,
        max_size=6,
    )
)
def test_ranking_orders_by_count_then_finish_time(players: list[tuple[int, float | None]]) -> None:
    entries = [RaceEntry(f"p{i}", judge(PI_DECIMALS[:n]), t) for i, (n, t) in enumerate(players)]
    result = rank(entries)
    standings = result.standings
    assert sorted(s.player for s in standings) == sorted(e.player for e in entries)
    inf = float("inf")
    for a, b in pairwise(standings):
        assert a.consecutive_correct >= b.consecutive_correct
        if a.consecutive_correct == b.consecutive_correct:
            ta = inf if a.finished_at is None else a.finished_at
            tb = inf if b.finished_at is None else b.finished_at
            assert ta <= tb
            assert (a.rank == b.rank) == (ta == tb)
        else:
            assert a.rank < b.rank
    assert result.winner == standings[0].player


def test_duplicate_player_names_are_refused() -> None:
    with pytest.raises(TempusError):
        rank([RaceEntry("a", judge([1]), 1.0), RaceEntry("a", judge([1]), 2.0)])


seen_lines = st.lists(digits, max_size=6).map(tuple)
held_lines = st.lists(st.tuples(seen_lines, st.integers(3, 6)), min_size=1, max_size=8)


def _filmed(held: list[tuple[tuple[int, ...], int]]) -> list[tuple[float, tuple[int, ...] | None]]:
    """Frames a tenth of a second apart, each line held for its count of frames."""
    frames = [line for line, count in held for _ in range(count)]
    return [(i / 10, line) for i, line in enumerate(frames)]


@given(held_lines)
def test_each_line_held_long_enough_is_timed_at_its_first_frame(held: list[tuple[tuple[int, ...], int]]) -> None:
    changes = settled_lines(_filmed(held), settle=3)
    expected, start = [], 0
    for line, count in held:
        if not expected or expected[-1][1] != line:
            expected.append((start / 10, line))
        start += count
    assert [(c.seconds, c.cards) for c in changes] == expected


@given(
    held_lines,
    st.dictionaries(st.integers(0, 8), st.tuples(seen_lines | st.none(), st.integers(1, 2))),
)
def test_a_glimpse_shorter_than_the_settling_run_and_frames_without_a_line_change_nothing(
    held: list[tuple[tuple[int, ...], int]], glimpses: dict[int, tuple[tuple[int, ...] | None, int]]
) -> None:
    """A hand over the cards (no line seen) or a misread for one or two frames, between any two held lines,
    leaves the lines as they were."""
    frames: list[tuple[tuple[int, ...] | None, int]] = list(held)
    for gap in sorted((g for g in glimpses if g <= len(held)), reverse=True):
        frames.insert(gap, glimpses[gap])
    # The times move with the frames inserted; the lines must not.
    clean = settled_lines(_filmed(held), settle=3)
    assert [c.cards for c in settled_lines(_filmed(frames), settle=3)] == [c.cards for c in clean]


def test_settling_takes_one_frame_or_more() -> None:
    with pytest.raises(TempusError):
        settled_lines([(0.0, (1,))], settle=0)
