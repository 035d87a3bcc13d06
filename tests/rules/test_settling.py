"""Readings settle by their key, and the state settled is the reading of its run's first frame."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.settling import Settler, SettlingError


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(3, 5)), min_size=1, max_size=10))
def test_a_run_settles_as_its_first_frame_read_it(held: list[tuple[int, int]]) -> None:
    """Readings (state, frame number) keyed by state: each run held long enough settles once, timed and read
    as its first frame, unless it repeats the state settled before it."""
    settler: Settler[tuple[int, int]] = Settler(settle=3, key=lambda reading: reading[0])
    frame, expected = 0, []
    for state, count in held:
        if not expected or expected[-1][1][0] != state:
            expected.append((frame / 10, (state, frame)))
        for _ in range(count):
            settler.add(frame / 10, (state, frame))
            frame += 1
    assert [(s.seconds, s.reading) for s in settler.settled] == expected


def test_settling_takes_one_frame_or_more() -> None:
    with pytest.raises(SettlingError):
        Settler(settle=0)
