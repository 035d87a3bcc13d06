import json
import random
from collections import Counter, deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.digit_game import (
    HAND_SIZE,
    Draw,
    GameSetupError,
    IllegalPlayError,
    Layout,
    MoveVerdict,
    Phase,
    PlusGame,
    Rating,
    SolitaireGame,
    StandardGame,
    Status,
    Step,
    StickMove,
    TurnVerdict,
    formed_card,
    judge_move,
    matching_cards,
    move_graph,
    one_move_away,
    shortest_path,
    solitaire_rating,
)
from rules.sticks import (
    PENTASTICKS,
    SYMMETRIES,
    Edge,
    NoSuchCardError,
    NotAnEdgeError,
    StickSyntaxError,
    Symmetry,
    card_number,
    normalize,
    parse_shape,
    shape_for_card,
    transform,
    translate,
)
from tests.rules.oracles import connected

quick = settings(database=None, deadline=None, max_examples=80)
cards = st.integers(1, 55)
small_shifts = st.integers(-4, 4)


def layout(code: str, on_lattice: bool = True) -> Layout:
    return Layout(parse_shape(code), on_lattice)


def placed(card: int, t_index: int = 0, dx: int = 0, dy: int = 0) -> Layout:
    return Layout(translate(transform(shape_for_card(card), SYMMETRIES[t_index]), dx, dy))


def _most_kept(before: Layout, after: Layout) -> int:
    """Brute force over every shift that could carry a stick of `before` onto one of `after`."""
    if not before.edges or not after.edges:
        return 0
    bx = [c for e in before for c in (e.a[0], e.b[0])]
    by = [c for e in before for c in (e.a[1], e.b[1])]
    ax = [c for e in after for c in (e.a[0], e.b[0])]
    ay = [c for e in after for c in (e.a[1], e.b[1])]
    target = Counter(after)
    return max(
        (Counter(e.translated(dx, dy) for e in before) & target).total()
        for dx in range(min(ax) - max(bx), max(ax) - min(bx) + 1)
        for dy in range(min(ay) - max(by), max(ay) - min(by) + 1)
    )


def _expected_status(before: Layout, after: Layout) -> Status:
    status = Status.VALID
    if len(before.edges) != 5 or len(after.edges) != 5:
        status |= Status.WRONG_STICK_COUNT
    if not after.on_lattice or len(set(after.edges)) < len(after.edges):
        status |= Status.OFF_LATTICE
    if not connected(after.edges):
        status |= Status.PATTERN_BROKEN
    moved = max(len(before.edges), len(after.edges)) - _most_kept(before, after)
    if moved == 0:
        status |= Status.NO_STICK_MOVED
    if moved > 1:
        status |= Status.SEVERAL_STICKS_MOVED
    return status


def _plain_json(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(map(_plain_json, value))
    return value is None or type(value) in (str, int, float, bool)


@st.composite
def table_changes(draw):
    """A card's layout somewhere, then the table after 0..3 sticks were picked up and dropped anywhere
    near (even onto another stick), maybe a stick more or less, seen in a shifted frame."""
    before = placed(draw(cards), draw(st.integers(0, 7)), draw(small_shifts), draw(small_shifts))
    edges = list(before.edges)
    for _ in range(draw(st.integers(0, 3))):
        edges.pop(draw(st.integers(0, len(edges) - 1)))
    x0 = min(e.a[0] for e in before)
    y0 = min(e.a[1] for e in before)
    nearby = st.builds(
        lambda x, y, down: Edge((x, y), (x, y + 1) if down else (x + 1, y)),
        st.integers(x0 - 2, x0 + 6),
        st.integers(y0 - 2, y0 + 6),
        st.booleans(),
    )
    refill = 5 - len(edges) + draw(st.sampled_from([0, 0, 0, 0, -1, 1]))
    edges += draw(st.lists(nearby, min_size=max(refill, 0), max_size=max(refill, 0)))
    dx, dy = draw(small_shifts), draw(small_shifts)
    on_lattice = draw(st.sampled_from([True, True, True, False]))
    return before, Layout([e.translated(dx, dy) for e in edges], on_lattice)


# --- layouts and moves ---------------------------------------------------------------------------------


def test_layout_is_a_sorted_multiset_whose_repr_pastes_back():
    a = layout("0,0h 1,0h")
    b = Layout([Edge.parse("1,0h"), Edge.parse("0,0h")])
    assert a == b and len(a) == 2 and list(a) == sorted(a.edges)
    assert len(Layout([Edge.parse("0,0h")] * 2)) == 2
    assert eval(repr(a)) == a
    move = StickMove(Edge.parse("0,0h"), Edge.parse("2,0v"))
    assert eval(repr(move)) == move


def test_layout_reads_the_vision_polystick_json():
    vision = {
        "sticks": [0, 1],
        "edges": [[[0, 0], [1, 0]], [[1, 0], [1, 1]]],
        "connected": True,
        "on_lattice": False,
    }
    assert Layout.from_json(vision) == layout("0,0h 1,0v", on_lattice=False)
    assert Layout.from_json({"edges": []}) == Layout(())
    assert Layout.from_json(layout("0,0h 1,0v").to_json()) == layout("0,0h 1,0v")


@pytest.mark.parametrize(
    "data", [[], {"edge": []}, {"edges": {}}, {"edges": [], "on_lattice": "yes"}, {"edges": [[0, 0]]}]
)
def test_malformed_layout_json_is_a_syntax_error(data):
    with pytest.raises(StickSyntaxError):
        Layout.from_json(data)


def test_a_diagonal_in_layout_json_is_not_an_edge():
    with pytest.raises(NotAnEdgeError):
        Layout.from_json({"edges": [[[0, 0], [1, 1]]]})


@pytest.mark.parametrize(
    "after, status",
    [
        (layout("1,0h 2,0h 3,0h 4,0h 4,0v"), Status.VALID),
        (layout("0,0h 1,0h 2,0h 3,0h 4,0h"), Status.NO_STICK_MOVED),
        (layout("3,2h 4,2h 5,2h 6,2h 7,2h"), Status.NO_STICK_MOVED),  # whole picture shifted
        (layout("1,0h 2,0h 3,0h 4,0h 5,0h"), Status.NO_STICK_MOVED),  # end stick to the other end
        (layout("1,0h 2,0h 3,0h 3,0v 3,1h"), Status.SEVERAL_STICKS_MOVED),
        (layout("0,0h 1,0h 2,0h 3,0h 5,0h"), Status.PATTERN_BROKEN),
        (layout("0,0h 1,0h 2,0h 3,0h 3,0v", on_lattice=False), Status.OFF_LATTICE),
        (layout("0,0h 1,0h 2,0h 3,0h"), Status.WRONG_STICK_COUNT),
        (layout("0,0h 1,0h 2,0h 3,0h 4,0h 2,0v"), Status.WRONG_STICK_COUNT),
        (
            Layout([*parse_shape("0,0h 1,0h 2,0h 9,9v"), Edge.parse("9,9v"), Edge.parse("7,0v")], False),
            Status.WRONG_STICK_COUNT | Status.OFF_LATTICE | Status.PATTERN_BROKEN | Status.SEVERAL_STICKS_MOVED,
        ),
    ],
)
def test_move_verdicts_name_every_problem(after, status):
    verdict = judge_move(layout("0,0h 1,0h 2,0h 3,0h 4,0h"), after)
    assert verdict.status == status
    assert verdict.is_legal == (status == Status.VALID)
    assert _plain_json(verdict.to_json())
    assert set(verdict.to_json()["status"]) == {flag.name.lower() for flag in status}


def test_a_move_in_a_shifted_frame_finds_the_moved_stick():
    before = layout("0,0h 1,0h 2,0h 3,0h 4,0h")
    verdict = judge_move(before, Layout(translate(parse_shape("1,0h 2,0h 3,0h 4,0h 4,0v"), 10, -3)))
    assert verdict.is_legal
    assert verdict.translation == (10, -3)
    assert verdict.removed == (Edge.parse("0,0h"),)
    assert verdict.added == (Edge.parse("14,-3v"),)


@quick
@given(table_changes())
def test_move_verdicts_agree_with_a_brute_force_referee(change):
    before, after = change
    verdict = judge_move(before, after)
    assert verdict.status == _expected_status(before, after)
    # The reported difference explains the new table exactly.
    dx, dy = verdict.translation
    rebuilt = Counter(e.translated(dx, dy) for e in before) - Counter(e.translated(dx, dy) for e in verdict.removed)
    assert rebuilt + Counter(verdict.added) == Counter(after)
    assert not (Counter(verdict.removed) - Counter(before))
    assert len(before) - len(verdict.removed) == _most_kept(before, after)


@quick
@given(cards, st.integers(0, 7), small_shifts, small_shifts, st.data())
def test_moving_any_one_stick_to_a_touching_place_is_legal(card, t, dx, dy, data):
    before = placed(card, t)
    removed = data.draw(st.sampled_from(before.edges))
    rest = set(before.edges) - {removed}
    points = {p for e in rest for p in (e.a, e.b)}
    spots = sorted(
        {Edge(p, (p[0] + a, p[1] + b)) for p in points for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1))}
        - set(before.edges)
    )
    added = data.draw(st.sampled_from(spots))
    after = Layout(translate(rest | {added}, dx, dy))
    verdict = judge_move(before, after)
    if not connected(rest | {added}):
        assert verdict.status == Status.PATTERN_BROKEN
    elif normalize(after) == normalize(before):
        assert verdict.status == Status.NO_STICK_MOVED
    else:
        assert verdict.is_legal
        assert StickMove(removed, added).apply(before) == Layout(rest | {added})


def test_stick_move_must_fit_the_layout():
    line = layout("0,0h 1,0h 2,0h 3,0h 4,0h")
    with pytest.raises(IllegalPlayError):
        StickMove(Edge.parse("9,9h"), Edge.parse("4,0v")).apply(line)
    with pytest.raises(IllegalPlayError):
        StickMove(Edge.parse("0,0h"), Edge.parse("4,0h")).apply(line)


# --- matching cards ------------------------------------------------------------------------------------


@quick
@given(cards, st.integers(0, 7), small_shifts, small_shifts, st.lists(cards, max_size=6))
def test_a_layout_matches_its_card_among_those_given(card, t, dx, dy, others):
    table = placed(card, t, dx, dy)
    hand = [*others, card, *others]
    assert matching_cards(table, hand) == (card,)
    assert matching_cards(table, [c for c in others if c != card]) == ()
    mirror_symmetric = any(normalize(transform(shape_for_card(card), r)) == normalize(table) for r in SYMMETRIES[:4])
    expected = (card,) if mirror_symmetric else ()
    assert matching_cards(table, hand, Symmetry.ROTATIONS_ONLY) == expected
    assert formed_card(table) == card


def test_a_layout_that_breaks_a_rule_matches_no_card():
    card = shape_for_card(7)
    assert matching_cards(Layout(card, on_lattice=False), [7]) == ()
    assert matching_cards(Layout([*card, next(iter(card))]), [7]) == ()
    assert formed_card(Layout(card, on_lattice=False)) is None


@pytest.mark.parametrize("typed", [0, 56, "7"])
def test_typed_numbers_outside_the_deck_are_refused(typed):
    with pytest.raises(NoSuchCardError):
        matching_cards(placed(7), [7, typed])


# --- one move away, the graph, shortest paths --------------------------------------------------------


@settings(database=None, deadline=None, max_examples=12)
@given(
    cards,
    st.integers(0, 7),
    small_shifts,
    small_shifts,
    st.sampled_from([Symmetry.ALL_EIGHT, Symmetry.ROTATIONS_ONLY]),
)
def test_one_move_away_lists_exactly_the_legal_moves_that_form_a_card(card, t, dx, dy, symmetry):
    table = placed(card, t, dx, dy)
    x0 = min(e.a[0] for e in table)
    y0 = min(e.a[1] for e in table)
    expected = []
    for removed in table:
        rest = set(table) - {removed}
        for x in range(x0 - 2, x0 + 7):
            for y in range(y0 - 2, y0 + 7):
                for added in (Edge((x, y), (x + 1, y)), Edge((x, y), (x, y + 1))):
                    after = Layout(rest | {added})
                    if added not in table and judge_move(table, after).is_legal:
                        formed = card_number(after, symmetry)
                        if formed is not None:
                            expected.append((formed, StickMove(removed, added)))
    assert one_move_away(table, symmetry) == sorted(expected)


@pytest.mark.parametrize("symmetry", list(Symmetry))
def test_move_graph_matches_shapes_sharing_four_sticks(symmetry):
    graph = move_graph(symmetry)
    assert sorted(graph) == list(range(1, 56))

    def ends(shape):
        return [(e.a[0], e.a[1], e.horizontal) for e in shape]

    images = {n: [ends(transform(shape, t)) for t in symmetry.transforms] for n, shape in enumerate(PENTASTICKS, 1)}
    for a, shape in enumerate(PENTASTICKS, 1):
        mine = ends(shape)
        for b in range(1, 56):
            # One move keeps four sticks in place: some allowed image of b, shifted, shares four with a.
            shared = max(
                max(
                    Counter((x - u, y - v) for x, y, h in mine for u, v, k in image if h == k).values(),
                    default=0,
                )
                for image in images[b]
            )
            assert (b in graph[a]) == (a != b and shared >= 4), (a, b)


@pytest.mark.parametrize("symmetry", list(Symmetry))
def test_move_graph_is_symmetric_and_connected(symmetry):
    graph = move_graph(symmetry)
    assert all(a in graph[b] for a in graph for b in graph[a])
    seen, todo = {1}, [1]
    while todo:
        for b in graph[todo.pop()] - seen:
            seen.add(b)
            todo.append(b)
    assert seen == set(graph)


def _distances(graph, start):
    dist, queue = {start: 0}, deque([start])
    while queue:
        a = queue.popleft()
        for b in graph[a]:
            if b not in dist:
                dist[b] = dist[a] + 1
                queue.append(b)
    return dist


@settings(database=None, deadline=None, max_examples=40)
@given(cards, cards, st.sampled_from(list(Symmetry)))
def test_shortest_paths_are_legal_moves_of_the_fewest_steps(start, goal, symmetry):
    path = shortest_path(start, goal, symmetry)
    assert len(path) == _distances(move_graph(symmetry), start)[goal]
    table = Layout(shape_for_card(start))
    for step in path:
        assert judge_move(table, step.layout).is_legal
        assert step.move.apply(table) == step.layout
        assert card_number(step.layout, symmetry) == step.card
        assert _plain_json(step.to_json())
        table = step.layout
    assert card_number(table, symmetry) == goal
    assert len(shortest_path(goal, start, symmetry)) == len(path)


def test_a_card_is_no_move_from_itself():
    assert shortest_path(12, 12) == ()
    with pytest.raises(NoSuchCardError):
        shortest_path(1, 56)


# --- solitaire rating ----------------------------------------------------------------------------------


def test_solitaire_rating_follows_the_sheet_at_every_score():
    sheet = [(0, 5, "Fantastique"), (6, 10, "Excellent"), (11, 15, "Bon"), (16, 20, "Satisfaisant")]
    for points in range(0, 500):
        words = next((w for low, high, w in sheet if low <= points <= high), "Insatisfaisant")
        assert solitaire_rating(points) == Rating(words)
        assert solitaire_rating(points).value == words


@pytest.mark.parametrize("points", [-1, 2.5, True, "3"])
def test_solitaire_rating_needs_a_count(points):
    with pytest.raises(ValueError):
        solitaire_rating(points)


# --- games ---------------------------------------------------------------------------------------------


def _visible(game) -> list[int]:
    return [game.model_card, *(c for h in game.hands for c in h), *(c for cs in game.laid for c in cs)]


def _check_cards(game):
    seen = _visible(game)
    assert len(seen) == len(set(seen)) and all(1 <= c <= 55 for c in seen)
    assert len(seen) + game.draw_pile_size == 55


def _expected_after_move(variant: str, before: dict, mover: int, formed: int) -> tuple[Phase, int, list[int]]:
    """The sheet's turn rules (with the module's documented readings), restated from the state before."""
    hands = [[c for c in h if c != formed] for h in before["hands"]]
    holder = next((s for s, h in enumerate(before["hands"]) if formed in h), None)
    seats = len(hands)
    if variant == "standard":
        if holder is not None and not hands[holder]:
            return Phase.OVER, mover, []
        if holder is None and before["draw_pile"]:
            return Phase.DRAW, mover, [mover]
        return Phase.MOVE, (mover + 1) % seats, []
    if variant == "plus":
        if holder == mover and hands[mover]:
            return Phase.MOVE, mover, []
        owed = [(mover + i) % seats for i in range(seats) for _ in range(5 - len(hands[(mover + i) % seats]))]
        return (Phase.DRAW, mover, owed) if owed else (Phase.MOVE, (mover + 1) % seats, [])
    return (Phase.MOVE, 0, []) if holder is None else (Phase.DRAW, 0, [0])


def _play(game, policy: random.Random, kinds: Counter, max_events: int = 400):
    opening = Layout(translate(transform(shape_for_card(game.model_card), policy.choice(SYMMETRIES)), 3, -2))
    assert game.start(opening).accepted
    assert game.phase is Phase.MOVE and game.to_move == 0
    for _ in range(max_events):
        _check_cards(game)
        before = game.to_json()
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.DRAW:
            draws = game.draw()
            owed, pile = before["owed"], before["draw_pile"]
            assert [d.player for d in draws] == owed[: min(len(owed), pile)]
            for d in draws:
                assert d.card not in before["hands"][d.player] and d.card in game.hands[d.player]
            empty = game.draw_pile_size == 0
            if game.variant == "standard":
                assert (game.phase, game.to_move) == (Phase.MOVE, (before["to_move"] + 1) % len(game.hands))
            elif game.variant == "plus":
                expected = Phase.OVER if empty else Phase.MOVE
                next_seat = before["to_move"] if empty else (before["to_move"] + 1) % len(game.hands)
                assert (game.phase, game.to_move) == (expected, next_seat)
                assert empty or all(len(h) == HAND_SIZE for h in game.hands)
            else:
                assert game.phase is (Phase.OVER if empty else Phase.MOVE)
            kinds["draw"] += 1
            continue
        mover = game.to_move
        if policy.random() < 0.1:  # a table the referee must refuse: the same pattern, shifted
            verdict = game.move(Layout(translate(game.layout, 1, 1)))
            assert verdict.status == Status.NO_STICK_MOVED and not verdict.accepted
            assert game.to_json() == before
            kinds["refused"] += 1
            continue
        options = one_move_away(game.layout, game.symmetry)
        mine = [o for o in options if o[0] in game.hands[mover]]
        formed, move = policy.choice(mine if mine and policy.random() < 0.75 else options)
        after = Layout(translate(move.apply(game.layout), policy.randint(-2, 2), policy.randint(-2, 2)))
        verdict = game.move(after)
        holder = next((s for s, h in enumerate(before["hands"]) if formed in h), None)
        assert verdict.accepted and verdict.player == mover and verdict.move.is_legal
        assert (verdict.formed, verdict.laid_by) == (formed, holder)
        assert game.layout == after
        if holder is not None:
            assert formed in game.laid[holder] and formed not in game.hands[holder]
        kinds["own" if holder == mover else "other" if holder is not None else "none"] += 1
        phase, to_move, owed = _expected_after_move(game.variant, before, mover, formed)
        assert (game.phase, game.to_move, list(game.owed)) == (phase, to_move, owed)
        if game.variant == "solitaire":
            assert verdict.penalty == (holder is None)
            assert game.penalty == before["penalty"] + verdict.penalty
        else:
            assert verdict.penalty == 0
        if phase is Phase.MOVE and to_move == mover and game.variant == "plus":
            kinds["again"] += 1
    _check_cards(game)
    return game


@pytest.mark.parametrize("seed", range(6))
def test_standard_games_follow_the_rules(seed):
    kinds = Counter()
    game = _play(StandardGame(2 + seed % 3, rng=random.Random(seed)), random.Random(100 + seed), kinds)
    assert game.scores() == tuple(-len(h) for h in game.hands)
    if game.phase is Phase.OVER:
        assert game.winners() == tuple(s for s, h in enumerate(game.hands) if not h)
        assert len(game.winners()) == 1
    else:
        assert game.winners() == ()


def test_standard_games_meet_every_kind_of_turn():
    kinds = Counter()
    over = 0
    for seed in range(6):
        game = _play(StandardGame(4, rng=random.Random(seed)), random.Random(seed), kinds)
        over += game.phase is Phase.OVER
    assert over > 0
    assert all(kinds[k] > 0 for k in ("own", "other", "none", "draw", "refused")), kinds


@pytest.mark.parametrize("seed", range(4))
def test_plus_games_follow_the_rules_and_end_with_the_draw_pile(seed):
    kinds = Counter()
    game = _play(PlusGame(2 + seed, rng=random.Random(seed)), random.Random(seed), kinds, max_events=2000)
    assert game.phase is Phase.OVER and game.draw_pile_size == 0
    assert game.scores() == tuple(len(cards) for cards in game.laid)
    best = max(game.scores())
    assert game.winners() == tuple(s for s, score in enumerate(game.scores()) if score == best)
    assert kinds["again"] > 0 and kinds["draw"] > 0


@pytest.mark.parametrize("seed", range(3))
def test_solitaire_follows_the_rules_and_is_rated(seed):
    kinds = Counter()
    game = _play(SolitaireGame(rng=random.Random(seed)), random.Random(seed), kinds, max_events=2000)
    assert game.phase is Phase.OVER and game.draw_pile_size == 0
    assert kinds["none"] == game.penalty and kinds["other"] == 0
    assert len(game.laid[0]) == 55 - 1 - HAND_SIZE
    assert game.scores() == (-game.penalty,)
    assert game.rating == solitaire_rating(game.penalty)
    state = game.to_json(viewer=0)
    assert (state["penalty"], state["rating"]) == (game.penalty, game.rating.value)


def test_a_seed_replays_the_deal():
    one, two = StandardGame(3, rng=random.Random(7)), StandardGame(3, rng=random.Random(7))
    assert one.to_json() == two.to_json()
    assert one.to_json() != StandardGame(3, rng=random.Random(8)).to_json()
    assert all(len(h) == HAND_SIZE for h in one.hands) and one.draw_pile_size == 55 - 1 - 15
    _check_cards(one)


@pytest.mark.parametrize("game_type, players", [(StandardGame, 1), (StandardGame, 11), (PlusGame, 0), (PlusGame, 2.0)])
def test_the_deck_serves_two_to_ten_players(game_type, players):
    with pytest.raises(GameSetupError):
        game_type(players, rng=random.Random(0))
    assert len(game_type(10, rng=random.Random(0)).hands) == 10


def test_the_opening_layout_must_be_the_model_card():
    game = StandardGame(2, rng=random.Random(3))
    other = next(n for n in range(1, 56) if n != game.model_card)
    verdict = game.start(placed(other))
    assert verdict.status == Status.WRONG_PATTERN and verdict.formed == other
    broken = game.start(Layout(shape_for_card(game.model_card), on_lattice=False))
    assert broken.status == Status.OFF_LATTICE and not broken.accepted
    assert game.phase is Phase.SETUP and game.layout is None
    assert game.start(placed(game.model_card, 6, -5, 5)).accepted
    with pytest.raises(IllegalPlayError):
        game.start(placed(game.model_card))


def test_under_rotations_only_the_mirrored_model_is_refused():
    game = next(
        g
        for g in (StandardGame(2, rng=random.Random(s), symmetry=Symmetry.ROTATIONS_ONLY) for s in range(100))
        if card_number(transform(shape_for_card(g.model_card), SYMMETRIES[4]), Symmetry.ROTATIONS_ONLY) is None
    )
    assert game.start(placed(game.model_card, 4)).status == Status.WRONG_PATTERN
    assert game.start(placed(game.model_card, 1)).accepted


def test_events_out_of_phase_are_illegal():
    game = SolitaireGame(rng=random.Random(1))
    with pytest.raises(IllegalPlayError):
        game.move(placed(game.model_card))
    with pytest.raises(IllegalPlayError):
        game.draw()
    game.start(placed(game.model_card))
    with pytest.raises(IllegalPlayError):
        game.draw()


def test_a_refused_move_changes_nothing_and_costs_nothing():
    game = SolitaireGame(rng=random.Random(2))
    game.start(placed(game.model_card))
    before = game.to_json()
    two = [*game.layout.edges[:3], Edge.parse("40,40h"), Edge.parse("41,40h")]
    verdict = game.move(Layout(two))
    assert Status.SEVERAL_STICKS_MOVED in verdict.status and Status.PATTERN_BROKEN in verdict.status
    assert verdict.penalty == 0 and game.to_json() == before


def test_open_hands_show_every_hand_to_every_player():
    closed = StandardGame(3, rng=random.Random(4))
    open_ = StandardGame(3, rng=random.Random(4), open_hands=True)
    seen = closed.to_json(viewer=1)["hands"]
    assert seen[1] == list(closed.hands[1]) and seen[0] is None and seen[2] is None
    assert open_.to_json(viewer=1)["hands"] == [list(h) for h in open_.hands]
    assert closed.to_json()["hands"] == [list(h) for h in closed.hands]
    assert closed.to_json(viewer=1)["hand_sizes"] == [5, 5, 5]


def test_verdicts_and_states_are_plain_json():
    game = PlusGame(2, rng=random.Random(5))
    opening = game.start(placed(game.model_card))
    _, move = one_move_away(game.layout)[0]
    turn = game.move(move.apply(game.layout))
    values = [opening, turn, game, Draw(0, 3), Step(move, move.apply(placed(game.model_card)), 1)]
    for value in values:
        data = value.to_json()
        assert _plain_json(data) and json.loads(json.dumps(data)) == data
    assert isinstance(turn, TurnVerdict) and isinstance(turn.move, MoveVerdict)
