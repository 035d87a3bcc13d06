"""A learner's memory across flash-card drills: each decimal's first answer in a drill moves it a box up or back
to the first, a decimal is asked again as its box says, and the decimals in play grow a block of five once
every one in play is learnt."""

from hypothesis import given
from hypothesis import strategies as st

from rules.flash_cards import remembered_drill, seen
from rules.flash_memory import (
    BLOCK,
    DECIMALS,
    FEWEST,
    FIRST_REACH,
    INTERVALS,
    LEARNT_BOX,
    TOP_BOX,
    Memory,
    drill_order,
    learnt,
)
from rules.pi import PI_DECIMALS

# Per drill, each decimal asked answered right or not, as a learner might.
answers_given = st.lists(st.tuples(st.integers(0, DECIMALS - 1), st.booleans()), max_size=30)


@given(st.lists(answers_given, max_size=25))
def test_boxes_move_by_each_decimals_first_answer_and_play_grows_only_once_all_is_learnt(drills) -> None:
    memory = Memory()
    for answers in drills:
        before = memory
        memory = learnt(before, answers)
        first: dict[int, bool] = {}
        for place, right in answers:
            if place < before.reach:
                first.setdefault(place, right)
        assert memory.drills == before.drills + bool(first)  # a drill with no answer in play is not counted
        for place in range(before.reach):
            was, now = before.recalls[place], memory.recalls[place]
            if place not in first:
                assert now == was
            elif first[place]:
                assert now.box == min(was.box + 1, TOP_BOX) and now.due == before.drills + INTERVALS[now.box]
            else:
                assert now.box == 0 and now.due == before.drills + 1
        assert len(memory.recalls) == memory.reach and FIRST_REACH <= memory.reach <= DECIMALS
        assert memory.reach % BLOCK == 0 and memory.reach >= before.reach
        grew = memory.reach > before.reach
        assert grew == (before.reach < DECIMALS and all(r.box >= LEARNT_BOX for r in memory.recalls[: before.reach]))
        assert all(r.box == 0 and r.due == before.drills + 1 for r in memory.recalls[before.reach :])
        assert 0 <= memory.learnt <= memory.reach


@given(st.lists(answers_given, max_size=25), st.integers(0, 2**32))
def test_a_drill_asks_every_decimal_due_and_never_fewer_than_five(drills, seed: int) -> None:
    memory = Memory()
    for answers in drills:
        memory = learnt(memory, answers)
    due = memory.due()
    assert len(due) == len(set(due)) >= FEWEST and all(0 <= place < memory.reach for place in due)
    assert {p for p, r in enumerate(memory.recalls) if r.due <= memory.drills} <= set(due)
    order = drill_order(memory, seed)
    assert sorted(order) == due and drill_order(memory, seed) == order


def test_a_decimal_missed_first_is_asked_in_the_next_drill_and_one_learnt_later() -> None:
    memory = learnt(Memory(), [(0, False), (0, True), (1, True), (2, True)])
    assert memory.recalls[0].box == 0 and memory.recalls[1].box == 1  # the second answer to 0 moves nothing
    memory = learnt(memory, [(place, True) for place in memory.due()])
    assert memory.recalls[1].box == LEARNT_BOX and memory.recalls[0].box == 1
    assert 1 not in memory.due() and 0 in memory.due()  # box 2 waits a drill; box 1 is asked again


def _drills_to_learn_all(right: bool) -> int | None:
    memory = Memory()
    for drill in range(100):
        if memory.reach == DECIMALS and memory.learnt == DECIMALS:
            return drill
        memory = learnt(memory, [(place, right) for place in memory.due()])
    return None


def test_a_learner_who_answers_right_brings_all_fifty_into_play_and_one_who_misses_stays_at_ten() -> None:
    perfect = _drills_to_learn_all(True)
    # Every decimal needs two drills right: the first ten, then eight blocks of five, a drill or two apart.
    assert perfect is not None and 2 * (DECIMALS - FIRST_REACH) // BLOCK <= perfect <= 3 * DECIMALS // BLOCK
    assert _drills_to_learn_all(False) is None
    memory = Memory()
    for _ in range(10):
        memory = learnt(memory, [(place, False) for place in memory.due()])
    assert memory.reach == FIRST_REACH and memory.learnt == 0 and memory.due() == list(range(FIRST_REACH))


def test_a_remembered_drill_shows_the_memory_with_its_answers_taken_in() -> None:
    memory = Memory()
    drill = remembered_drill("Ann", memory, seed=3)
    asked = drill.asked
    drill = seen(drill, [PI_DECIMALS[asked]])
    said = drill.to_json()
    assert said["learner"] == "Ann" and said["memory"]["drills"] == 1
    assert said["memory"]["boxes"][asked] == 1 and sum(said["memory"]["boxes"]) == 1
    assert drill.memory == memory  # as the drill began
