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
    Recall,
    after_drill,
    drill_order,
)
from rules.pi import PI_DECIMALS

# Per drill, each decimal asked answered right or not, as a learner might.
answers_given = st.lists(st.tuples(st.integers(0, DECIMALS - 1), st.booleans()), max_size=30)


@given(st.lists(answers_given, max_size=25))
def test_boxes_move_by_each_decimals_first_answer_and_play_grows_only_once_all_is_learnt(drills) -> None:
    memory = Memory()
    for answers in drills:
        before = memory
        memory = after_drill(before, answers)
        first: dict[int, bool] = {}
        for place, right in answers:
            if place < before.reach:
                first.setdefault(place, right)
        assert memory.drills == before.drills + bool(first)  # a drill with no answer in play is not counted
        for place in range(before.reach):
            was, now = before.recalls[place], memory.recalls[place]
            if place not in first:
                assert now == was
            elif first[place] and was.due > before.drills:  # asked before its time: no box up
                assert (now.box, now.due, now.asked) == (was.box, was.due, True)
            elif first[place]:
                assert now.box == min(was.box + 1, TOP_BOX) and now.due == before.drills + INTERVALS[now.box]
                assert now.asked
            else:
                assert now.box == 0 and now.due == before.drills + 1 and now.asked
        assert len(memory.recalls) == memory.reach and FIRST_REACH <= memory.reach <= DECIMALS
        assert memory.reach % BLOCK == 0 and memory.reach >= before.reach
        grew = memory.reach > before.reach
        assert grew == (before.reach < DECIMALS and all(r.box >= LEARNT_BOX for r in memory.recalls[: before.reach]))
        assert all(r == Recall(0, before.drills + 1) for r in memory.recalls[before.reach :])  # new: never asked
        assert memory.reach - before.reach in (0, BLOCK)
        assert 0 <= memory.learnt <= memory.reach


@given(st.lists(answers_given, max_size=25), st.integers(0, 2**32))
def test_a_drill_asks_every_decimal_due_and_never_fewer_than_five(drills, seed: int) -> None:
    memory = Memory()
    for answers in drills:
        memory = after_drill(memory, answers)
    due = memory.due()
    assert len(due) == len(set(due)) >= FEWEST and all(0 <= place < memory.reach for place in due)
    assert {p for p, r in enumerate(memory.recalls) if r.due <= memory.drills} <= set(due)
    order = drill_order(memory, seed)
    assert sorted(order) == due and drill_order(memory, seed) == order


def test_a_decimal_missed_first_is_asked_in_the_next_drill_and_one_learnt_later() -> None:
    memory = after_drill(Memory(), [(0, False), (0, True), (1, True), (2, True)])
    assert memory.recalls[0].box == 0 and memory.recalls[1].box == 1  # the second answer to 0 moves nothing
    memory = after_drill(memory, [(place, True) for place in memory.due()])
    assert memory.recalls[1].box == LEARNT_BOX and memory.recalls[0].box == 1
    assert 1 not in memory.due() and 0 in memory.due()  # box 2 waits a drill; box 1 is asked again


def test_a_decimal_asked_early_to_make_up_the_number_waits_its_boxs_time_all_the_same() -> None:
    memory = Memory()
    for _ in range(2):  # the first ten learnt: five more in play
        memory = after_drill(memory, [(place, True) for place in memory.due()])
    assert memory.reach == FIRST_REACH + BLOCK and memory.due() == list(range(FIRST_REACH, FIRST_REACH + BLOCK))
    early = memory.recalls[0]
    assert early.box == LEARNT_BOX and early.due > memory.drills
    missed = after_drill(memory, [(0, False)])
    assert missed.recalls[0].box == 0 and 0 in missed.due()
    kept = after_drill(memory, [(0, True)])
    assert kept.recalls[0] == early and kept.drills == memory.drills + 1
    assert kept.to_json()["boxes"][:FIRST_REACH] == [LEARNT_BOX] * FIRST_REACH
    assert kept.to_json()["boxes"][FIRST_REACH:] == [None] * BLOCK  # in play, never asked


def _drills_to_learn_all(right: bool) -> int | None:
    memory = Memory()
    for drill in range(100):
        if memory.reach == DECIMALS and memory.learnt == DECIMALS:
            return drill
        memory = after_drill(memory, [(place, right) for place in memory.due()])
    return None


def test_a_learner_who_answers_right_brings_all_fifty_into_play_and_one_who_misses_stays_at_ten() -> None:
    perfect = _drills_to_learn_all(True)
    # Every decimal needs two drills right: the first ten, then eight blocks of five, a drill or two apart.
    assert perfect is not None and 2 * (DECIMALS - FIRST_REACH) // BLOCK <= perfect <= 3 * DECIMALS // BLOCK
    assert _drills_to_learn_all(False) is None
    memory = Memory()
    for _ in range(10):
        memory = after_drill(memory, [(place, False) for place in memory.due()])
    assert memory.reach == FIRST_REACH and memory.learnt == 0 and memory.due() == list(range(FIRST_REACH))


def test_a_remembered_drill_shows_the_memory_with_its_answers_taken_in() -> None:
    memory = Memory()
    drill = remembered_drill("Ann", memory, seed=3)
    asked = drill.asked
    drill = seen(drill, [PI_DECIMALS[asked]])
    said = drill.to_json()
    assert said["learner"] == "Ann" and said["memory"]["drills"] == 1
    assert said["memory"]["boxes"] == [1 if place == asked else None for place in range(FIRST_REACH)]
    assert drill.memory == memory  # as the drill began
