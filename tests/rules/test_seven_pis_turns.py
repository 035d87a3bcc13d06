"""Where a filmed Seven Pis turn ends (rules/seven_pis_turns.py): once per turn, after the refill, whatever the
player's pauses; never for a hand over the table, a tile read again or a draw before the tiles are laid. Which
tiles coming into the hand are drawn: those the hand did not hold this turn, however the hand is tidied."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dominoes import Domino
from rules.seven_pis_turns import Draws, TurnEnds

STEADY, SHORT = 15.0, 50.0  # in frames: times here are frame numbers
SET = 28


def _run(events: dict[int, tuple[int, ...]], frames: int, hidden: frozenset[int] = frozenset()) -> list[int]:
    """The frames a turn ends at: `events` the changes (tiles laid, tiles drawn, then in hand, then in the pile)
    at a frame, `hidden` the frames with a tile out of sight."""
    ends = TurnEnds(steady=STEADY, short_draw=SHORT)
    found = []
    for n in range(frames):
        if n in events:
            ends.change(n, *events[n])
        if ends.boundary(n, n not in hidden):
            found.append(n)
    return found


pause = st.integers(0, int(STEADY) - 1)  # a player's pause while laying or drawing: the turn goes on
thinking = st.integers(0, 60)  # a pause before laying, or between laying and drawing: any length


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_turn_ends_once_at_the_first_quiet_frame_after_its_refill(data) -> None:
    """A whole game dealt and played a tile at a time (1 to 3 a turn, the hand refilled to 3 while the pile
    lasts), with pauses of any length before laying and before drawing: one boundary for the deal and one
    for each turn, each at the first frame `STEADY` after the turn's last tile came."""
    events: dict[int, tuple[int, ...]] = {}
    table, hand, pile, now = 0, 0, SET, 0
    expected = []

    def step(gap: int, laid: int, drawn: int) -> None:
        nonlocal table, hand, pile, now
        now += gap + 1
        table, hand, pile = table + laid, hand - laid + drawn, pile - drawn
        events[now] = (laid, drawn, hand, pile)

    for _ in range(3):
        step(data.draw(pause), 0, 1)
    expected.append(now + int(STEADY))
    while hand:
        now = expected[-1] + data.draw(thinking)
        laid = data.draw(st.integers(1, hand))
        for k in range(laid):
            step(data.draw(thinking) if k == 0 else data.draw(pause), 1, 0)
        drawn = min(3 - hand, pile)
        for k in range(drawn):
            step(data.draw(thinking) if k == 0 else data.draw(pause), 0, 1)
        expected.append(now + int(STEADY))
    assert table == SET and pile == 0
    assert _run(events, now + int(STEADY) + 5) == expected


@settings(max_examples=100, deadline=None)
@given(st.sets(st.integers(0, 300)))
def test_nothing_ends_while_a_tile_is_out_of_sight(hidden: set[int]) -> None:
    """The deal, then a turn: each boundary comes at the first frame both quiet enough and with every tile in
    sight."""
    events = {0: (0, 3, 3, 25), 100: (1, 0, 3, 25), 130: (0, 0, 2, 25), 140: (0, 1, 3, 24)}  # laid, gone, drawn
    found = _run(events, 300, frozenset(hidden))
    seen = [n for n in range(300) if n not in hidden]
    start = next((n for n in seen if n >= STEADY and n < 100), None)
    turn = next((n for n in seen if n >= 140 + STEADY), None)
    assert found == [n for n in (start, turn) if n is not None]


def test_short_and_long_draws_nothing_played_swaps_and_a_draw_before_laying() -> None:
    cases = {
        # the hand refilled to 2 of 3: the turn ends only after the short draw's wait
        "short draw": ({0: (0, 3, 3, 25), 30: (2, 0, 1, 25), 40: (0, 1, 2, 24)}, [15, 40 + int(SHORT)]),
        # four in hand: full, the turn ends as a refill does (the rules judge the bad draw)
        "long draw": ({0: (0, 3, 3, 25), 30: (1, 0, 2, 25), 40: (0, 2, 4, 23)}, [15, 55]),
        # nothing laid, a tile drawn: a turn that played nothing
        "nothing played": ({0: (0, 3, 3, 25), 30: (0, 1, 4, 24)}, [15, 45]),
        # a hand tile swapped for one from the pile in its place: drawn, a turn (nothing played, a bad draw)
        "swap": ({0: (0, 3, 3, 25), 30: (0, 1, 3, 25)}, [15, 45]),
        # a hand tile read again: nothing drawn, no turn
        "read again": ({0: (0, 3, 3, 25), 30: (0, 0, 3, 25)}, [15]),
        # drawn before laying: the turn waits for a draw after the laying
        "drawn first": ({0: (0, 3, 3, 25), 30: (0, 1, 4, 24), 35: (2, 0, 2, 24), 100: (0, 1, 3, 23)}, [15, 115]),
        # the hand shown one tile at a time with long pauses: the game starts with the third
        "slow deal": ({0: (0, 1, 1, 27), 40: (0, 1, 2, 26), 90: (0, 1, 3, 25)}, [105]),
        # the pile empty: a turn ends once its tiles are laid, nothing to draw
        "empty pile": ({0: (24, 3, 3, 1), 30: (2, 0, 1, 1), 40: (0, 1, 2, 0), 80: (1, 0, 1, 0), 200: (1, 0, 0, 0)},
                       [15, 55, 95, 215]),
        # the pile empty, a tile laid and taken back before the table was steady: nothing played yet
        "taken back, pile empty": ({0: (25, 3, 3, 0), 30: (1, 0, 2, 0), 35: (0, 0, 3, 0), 100: (1, 0, 2, 0)},
                                   [15, 115]),
    }  # fmt: skip
    for name, (events, expected) in cases.items():
        assert _run(events, 300) == expected, name


def test_the_watch_ending_closes_a_refilled_turn_or_one_with_nothing_to_draw() -> None:
    def ended(events: dict[int, tuple[int, ...]]) -> tuple[bool, bool]:
        ends = TurnEnds(steady=STEADY, short_draw=SHORT)
        for n in range(max(events) + 1):
            if n in events:
                ends.change(n, *events[n])
            ends.boundary(n, True)
        return ends.mid_turn, ends.closes_at_end()

    assert ended({0: (0, 3, 3, 25), 20: (2, 0, 1, 25)}) == (True, False)  # laid, not yet refilled: left open
    assert ended({0: (0, 3, 3, 25), 20: (1, 0, 2, 25), 25: (0, 0, 3, 25)}) == (False, False)  # laid, taken back
    assert ended({0: (0, 3, 3, 25), 20: (2, 0, 1, 25), 25: (0, 2, 3, 23)}) == (True, True)  # refilled, not quiet
    assert ended({0: (25, 3, 3, 0), 20: (3, 0, 0, 0)}) == (True, True)  # the last tiles laid: gone out
    assert ended({0: (0, 3, 3, 25)}) == (False, False)  # the deal only


def test_a_tidied_hand_draws_nothing_and_a_new_tile_is_drawn_once() -> None:
    a, b, c, x, y = (Domino.parse(t) for t in ("1|2", "3|4", "5|5", "0|6", "2|2"))
    draws = Draws()
    assert draws.count({1: a, 2: b, 3: c}, {}, [a, b, c]) == 3  # the deal
    draws.boundary([a, b, c])
    assert draws.count({4: a}, {}, [a, b, c]) == 0  # a moved within the hand area (its old place forgotten)
    assert draws.count({5: b, 6: c}, {}, [a, b, c]) == 0  # b and c swapped
    assert draws.count({}, {}, [b, c]) == 0  # a laid
    assert draws.count({7: a.turned()}, {}, [a, b, c]) == 0  # a taken back, lying the other way round
    assert draws.count({}, {}, [b, c]) == 0  # a laid again
    assert draws.count({8: b}, {}, [b, c, b]) == 0  # x drawn, read as b at first (a hand over its pips)
    assert draws.count({}, {8: x}, [b, c, x]) == 1  # then read as the tile it is: drawn
    assert draws.count({}, {8: y}, [b, c, y]) == 0  # read again otherwise: still the one draw
    draws.boundary([b, c, x])
    assert draws.count({9: a}, {}, [b, c, x, a]) == 1  # placed last turn, taken back: moved, new to this hand
    assert draws.count({}, {2: y}, [y, c, x, a]) == 0  # a hand tile counted at the boundary, read again


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_only_tiles_from_the_pile_are_drawn_whatever_the_hand_does(data) -> None:
    """Between two boundaries the hand is tidied, tiles are laid and taken back, and tiles come from the pile,
    each perhaps read at first as a tile the hand held: the draws counted are the tiles from the pile."""
    tiles = [Domino(a, b) for a in range(7) for b in range(a, 7)]
    pile = data.draw(st.permutations(tiles))
    hand = {k: pile.pop() for k in range(3)}  # tracker id -> tile
    laid: list[Domino] = []
    draws = Draws()
    draws.boundary(hand.values())
    next_id, counted, expected = 3, 0, 0
    for action in data.draw(st.lists(st.sampled_from(["tidy", "lay", "take back", "draw"]), max_size=12)):
        came, reread = {}, {}
        if action == "tidy" and hand:
            moved = data.draw(st.sampled_from(sorted(hand)))
            came[next_id] = hand.pop(moved)
        elif action == "lay" and hand:
            laid.append(hand.pop(data.draw(st.sampled_from(sorted(hand)))))
        elif action == "take back" and laid:
            came[next_id] = laid.pop()
        elif action == "draw" and pile:
            tile, expected = pile.pop(), expected + 1
            misread = data.draw(st.sampled_from([None, *hand.values(), *laid]))
            came[next_id] = misread or tile
            if misread is not None:  # the first reading, then the tile as it is
                counted += draws.count(came, {}, [*hand.values(), misread])
                came, reread = {}, {next_id: tile}
            hand[next_id] = tile
        hand.update(came)
        counted += draws.count(came, reread, hand.values())
        next_id += 1
    assert counted == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), pause), max_size=8))
def test_with_the_pile_empty_a_turn_ends_only_if_a_tile_laid_stays_laid(moves: list[tuple[bool, int]]) -> None:
    """Nothing left to draw: tiles laid from the hand and taken back into it, each move soon after the last; the
    turn ends once the table is quiet if the hand then holds fewer tiles than it was dealt."""
    events: dict[int, tuple[int, ...]] = {0: (25, 3, 3, 0)}
    hand, now = 3, int(STEADY) + 5
    for lay, gap in moves:
        if lay and hand:
            hand -= 1
            events[now] = (1, 0, hand, 0)
        elif not lay and hand < 3:
            hand += 1
            events[now] = (0, 0, hand, 0)
        else:
            continue  # nothing to lay or take back: no move, no time passes
        now += gap + 1
    found = _run(events, now + int(STEADY) + 5)
    assert found == [int(STEADY)] + ([max(events) + int(STEADY)] if hand < 3 else [])
