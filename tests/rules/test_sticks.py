import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.sticks import (
    PENTASTICKS,
    SYMMETRIES,
    Edge,
    NoSuchCardError,
    NotAnEdgeError,
    StickSyntaxError,
    Symmetry,
    Transform,
    adjacent_edges,
    canonical,
    card_number,
    is_connected,
    normalize,
    parse_shape,
    polysticks,
    shape_code,
    shape_for_card,
    size,
    to_ascii,
    to_svg,
    transform,
    translate,
)
from tests.rules.oracles import connected

quick = settings(database=None, deadline=None, max_examples=60)

# Reference counts: OEIS A019988 (free), A096267 (fixed); one-sided pentasticks from the rulebook notes.
FREE = {1: 1, 2: 2, 3: 5, 4: 16, 5: 55, 6: 222}
FIXED = {1: 2, 2: 6, 3: 22, 4: 88, 5: 372, 6: 1628}


def _neighbours(point):
    x, y = point
    return [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]


@st.composite
def connected_shapes(draw, min_sticks=1, max_sticks=7):
    n = draw(st.integers(min_sticks, max_sticks))
    start = draw(st.sampled_from([Edge((0, 0), (1, 0)), Edge((0, 0), (0, 1))]))
    edges = {start}
    while len(edges) < n:
        points = {p for e in edges for p in (e.a, e.b)}
        candidates = sorted({Edge(p, q) for p in points for q in _neighbours(p)} - edges)
        edges.add(draw(st.sampled_from(candidates)))
    return frozenset(edges)


shifts = st.integers(-30, 30)


# --- edges ---------------------------------------------------------------------------------------------


def test_edge_sorts_its_ends_and_its_repr_pastes_back():
    edge = Edge((1, 0), (0, 0))
    assert edge == Edge((0, 0), (1, 0))
    assert edge.a == (0, 0) and edge.b == (1, 0)
    assert eval(repr(edge)) == edge
    assert Edge.from_json(edge.to_json()) == edge
    assert Edge.from_json([[0, 0], [0, -1]]) == Edge((0, -1), (0, 0))
    assert Edge.parse("3,-2v") == Edge((3, -2), (3, -1))
    assert edge.horizontal and not Edge.parse("0,0v").horizontal


@pytest.mark.parametrize("a, b", [((0, 0), (1, 1)), ((0, 0), (2, 0)), ((0, 0), (0, 0)), ((0, 1), (1, 0))])
def test_points_not_one_stick_apart_are_not_an_edge(a, b):
    with pytest.raises(NotAnEdgeError):
        Edge(a, b)


@pytest.mark.parametrize(
    "json",
    [[[0, 0]], [[0, 0], [1, 0], [2, 0]], [[0, 0], [1, "0"]], [[0, 0], [True, 0]], [[0, 0], [1.0, 0]], "0,0h"],
)
def test_malformed_edge_json_is_a_syntax_error(json):
    with pytest.raises(StickSyntaxError):
        Edge.from_json(json)


@pytest.mark.parametrize("code", ["0,0x", "0 0h", "0,0h 0,0h", "a,0h", "0,0hv"])
def test_malformed_codes_are_syntax_errors(code):
    with pytest.raises(StickSyntaxError):
        parse_shape(code)


def test_syntax_and_illegal_errors_are_distinct_value_errors():
    assert issubclass(StickSyntaxError, ValueError) and issubclass(NotAnEdgeError, ValueError)
    assert not issubclass(StickSyntaxError, NotAnEdgeError) and not issubclass(NotAnEdgeError, StickSyntaxError)


@quick
@given(connected_shapes(), shifts, shifts)
def test_codes_round_trip_and_list_edges_in_reading_order(shape, dx, dy):
    shape = translate(shape, dx, dy)
    code = shape_code(shape)
    assert parse_shape(code) == shape
    reading = sorted(shape, key=lambda e: (e.a[1], e.a[0], not e.horizontal))
    assert code.split() == [f"{e.a[0]},{e.a[1]}{'h' if e.horizontal else 'v'}" for e in reading]
    assert sorted(shape) == reading


# --- geometry ------------------------------------------------------------------------------------------


def test_the_eight_symmetries_are_distinct_and_four_are_rotations():
    point = (2, 1)
    assert len({t(point) for t in SYMMETRIES}) == 8
    assert [t.is_rotation for t in SYMMETRIES] == [True] * 4 + [False] * 4
    assert Symmetry.ROTATIONS_ONLY.transforms == tuple(t for t in SYMMETRIES if t.is_rotation)
    assert eval(repr(SYMMETRIES[1])) == SYMMETRIES[1]
    # Closed under composition: a group.
    for s in SYMMETRIES:
        for t in SYMMETRIES:
            composed = Transform(*_compose(s, t))
            assert composed in SYMMETRIES


def _compose(s, t):
    return (
        s.xx * t.xx + s.xy * t.yx,
        s.xx * t.xy + s.xy * t.yy,
        s.yx * t.xx + s.yy * t.yx,
        s.yx * t.xy + s.yy * t.yy,
    )


def test_connectivity_examples():
    assert is_connected(parse_shape("0,0h 1,0h 1,0v"))
    assert not is_connected(parse_shape("0,0h 2,0h"))
    assert not is_connected(parse_shape("0,0h 0,1h"))  # parallel, one apart: no shared end
    assert is_connected(parse_shape("0,0h 0,0v 0,1h 1,0v"))  # a square
    assert is_connected(frozenset())


@quick
@given(
    st.sets(st.builds(Edge.parse, st.sampled_from([f"{x},{y}{d}" for x in range(3) for y in range(3) for d in "hv"])))
)
def test_connectivity_agrees_with_a_flood_fill(edges):
    assert is_connected(edges) == connected(edges)


@quick
@given(connected_shapes(max_sticks=5))
def test_adjacent_edges_are_exactly_the_edges_touching_the_shape(shape):
    width, height = size(shape)
    nearby = {
        Edge((x, y), (x + dx, y + dy))
        for x in range(-3, width + 4)
        for y in range(-3, height + 4)
        for dx, dy in ((1, 0), (0, 1))
    }
    shape = normalize(shape)
    points = {p for e in shape for p in (e.a, e.b)}
    assert adjacent_edges(shape) == {e for e in nearby - shape if {e.a, e.b} & points}


@quick
@given(connected_shapes(), st.sampled_from(SYMMETRIES), shifts, shifts)
def test_canonical_form_ignores_turning_flipping_and_shifting(shape, t, dx, dy):
    moved = translate(transform(shape, t), dx, dy)
    assert canonical(moved) == canonical(shape)
    if t.is_rotation:
        assert canonical(moved, Symmetry.ROTATIONS_ONLY) == canonical(shape, Symmetry.ROTATIONS_ONLY)
    assert canonical(translate(shape, dx, dy), Symmetry.NONE) == normalize(shape)


@quick
@given(connected_shapes(), st.sampled_from(list(Symmetry)))
def test_canonical_form_is_a_normalized_image_with_the_smallest_code(shape, symmetry):
    form = canonical(shape, symmetry)
    images = [normalize(transform(shape, t)) for t in symmetry.transforms]
    assert form in images
    assert min(x.a[0] for x in form) == 0 and min(x.a[1] for x in form) == 0

    def code(s):
        return sorted((e.a[1], e.a[0], not e.horizontal) for e in s)

    assert code(form) == min(code(image) for image in images)
    assert canonical(form, symmetry) == form


def test_a_mirror_image_is_another_shape_only_when_turning_alone_is_allowed():
    hook = parse_shape("0,0h 1,0h 2,0h 2,0v")
    mirrored = transform(hook, SYMMETRIES[4])
    assert canonical(mirrored) == canonical(hook)
    assert canonical(mirrored, Symmetry.ROTATIONS_ONLY) != canonical(hook, Symmetry.ROTATIONS_ONLY)


# --- counting (the perft of polysticks) ---------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 7))
def test_free_and_fixed_counts_match_the_references(n):
    assert len(polysticks(n)) == FREE[n]
    assert len(polysticks(n, Symmetry.NONE)) == FIXED[n]


def test_there_are_99_one_sided_pentasticks():
    assert len(polysticks(5, Symmetry.ROTATIONS_ONLY)) == 99


@pytest.mark.parametrize("n", range(1, 7))
def test_orbit_sizes_add_up_to_the_finer_counts(n):
    fixed = one_sided = 0
    for shape in polysticks(n):
        fixed += len({normalize(transform(shape, t)) for t in SYMMETRIES})
        one_sided += len({canonical(transform(shape, t), Symmetry.ROTATIONS_ONLY) for t in SYMMETRIES})
    assert fixed == len(polysticks(n, Symmetry.NONE))
    assert one_sided == len(polysticks(n, Symmetry.ROTATIONS_ONLY))


@pytest.mark.parametrize("symmetry", list(Symmetry))
def test_enumerated_shapes_are_connected_distinct_canonical_forms(symmetry):
    for n in range(1, 6):
        shapes = polysticks(n, symmetry)
        assert len(set(shapes)) == len(shapes)
        for shape in shapes:
            assert len(shape) == n and connected(shape)
            assert canonical(shape, symmetry) == shape


@pytest.mark.parametrize("n", [0, -1, 2.5, True])
def test_polysticks_need_a_whole_number_of_sticks(n):
    with pytest.raises(ValueError):
        polysticks(n)


# --- the 55 cards --------------------------------------------------------------------------------------


def _reference_numbering() -> list[str]:
    """The module docstring's rule, implemented again from scratch on plain tuples."""

    def norm(edges):
        mx = min(min(a[0], b[0]) for a, b in edges)
        my = min(min(a[1], b[1]) for a, b in edges)
        return frozenset(tuple(sorted(((a[0] - mx, a[1] - my), (b[0] - mx, b[1] - my)))) for a, b in edges)

    shapes = {frozenset({((0, 0), (1, 0))}), frozenset({((0, 0), (0, 1))})}
    for _ in range(4):
        shapes = {
            norm(s | {tuple(sorted((p, q)))})
            for s in shapes
            for p in {p for e in s for p in e}
            for q in _neighbours(p)
            if tuple(sorted((p, q))) not in s
        }
    assert len(shapes) == 372

    def code(edges):
        return tuple(sorted((a[1], a[0], 0 if a[1] == b[1] else 1) for a, b in edges))

    maps = [lambda x, y: (x, y), lambda x, y: (-y, x), lambda x, y: (-x, -y), lambda x, y: (y, -x)]
    maps += [lambda x, y, m=m: m(-x, y) for m in maps]
    forms = {min(code(norm({(f(*a), f(*b)) for a, b in s})) for f in maps) for s in shapes}

    def rule(form):
        xs = [x for _, x, d in form] + [x + 1 - d for _, x, d in form]
        ys = [y for y, _, d in form] + [y + d for y, _, d in form]
        w, h = max(xs) - min(xs), max(ys) - min(ys)
        return (w * h, max(w, h), form)

    return [" ".join(f"{x},{y}{'hv'[d]}" for y, x, d in form) for form in sorted(forms, key=rule)]


def test_card_numbers_follow_the_documented_rule():
    assert [shape_code(shape) for shape in PENTASTICKS] == _reference_numbering()
    assert shape_code(shape_for_card(1)) == "0,0h 1,0h 2,0h 3,0h 4,0h"  # the docstring's example


def test_card_numbers_are_a_bijection_onto_1_to_55():
    assert len(PENTASTICKS) == 55
    assert [card_number(shape_for_card(n)) for n in range(1, 56)] == list(range(1, 56))
    assert len({canonical(shape) for shape in PENTASTICKS}) == 55
    assert all(shape == canonical(shape) for shape in PENTASTICKS)


def test_every_placed_turned_or_flipped_card_is_recognised():
    for n, shape in enumerate(PENTASTICKS, 1):
        for i, t in enumerate(SYMMETRIES):
            assert card_number(translate(transform(shape, t), i - 3, 7 - 2 * i)) == n


def test_under_rotations_only_a_mirrored_chiral_card_is_no_card():
    chiral = 0
    for n, shape in enumerate(PENTASTICKS, 1):
        for t in SYMMETRIES[:4]:
            assert card_number(transform(shape, t), Symmetry.ROTATIONS_ONLY) == n
        mirrored = transform(shape, SYMMETRIES[4])
        symmetric = any(normalize(transform(shape, t)) == normalize(mirrored) for t in SYMMETRIES[:4])
        assert card_number(mirrored, Symmetry.ROTATIONS_ONLY) == (n if symmetric else None)
        chiral += not symmetric
    assert chiral == 99 - 55


@pytest.mark.parametrize(
    "code",
    [
        "0,0h 1,0h 2,0h 3,0h",
        "0,0h 1,0h 2,0h 3,0h 4,0h 5,0h",
        "0,0h 1,0h 2,0h 3,0h 5,0h",
        "0,0h 0,2h 0,4h 0,6h 0,8h",
    ],
)
def test_shapes_that_are_not_pentasticks_have_no_card(code):
    assert card_number(parse_shape(code)) is None


@pytest.mark.parametrize("number", [0, 56, -1, True, "3", 3.0, None])
def test_no_card_carries_a_number_outside_1_to_55(number):
    with pytest.raises(NoSuchCardError):
        shape_for_card(number)


# --- pictures ------------------------------------------------------------------------------------------


def test_ascii_picture_of_a_hook():
    assert to_ascii(parse_shape("5,5h 6,5v 6,6h")) == "+--+\n   |\n   +--+"
    assert to_ascii(frozenset()) == ""


@quick
@given(connected_shapes(), shifts, shifts)
def test_ascii_picture_shows_every_stick_and_end(shape, dx, dy):
    art = to_ascii(translate(shape, dx, dy))
    assert art == to_ascii(shape)
    assert art.count("--") == sum(e.horizontal for e in shape)
    assert art.count("|") == sum(not e.horizontal for e in shape)
    assert art.count("+") == len({p for e in shape for p in (e.a, e.b)})
    width, height = size(shape)
    assert len(art.splitlines()) == 2 * height + 1
    assert max(map(len, art.splitlines())) == 3 * width + 1


@quick
@given(connected_shapes(), shifts, shifts, st.integers(5, 80))
def test_svg_picture_is_a_standalone_drawing_of_every_stick(shape, dx, dy, unit):
    svg = to_svg(translate(shape, dx, dy), unit=unit, margin=7, color='a"b')
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    width, height = size(shape)
    assert (int(root.get("width")), int(root.get("height"))) == (width * unit + 14, height * unit + 14)
    group = root.find("{http://www.w3.org/2000/svg}g")
    assert group.get("stroke") == 'a"b'
    lines = group.findall("{http://www.w3.org/2000/svg}line")
    drawn = Counter(
        Edge(
            ((int(line.get("x1")) - 7) // unit, (int(line.get("y1")) - 7) // unit),
            ((int(line.get("x2")) - 7) // unit, (int(line.get("y2")) - 7) // unit),
        )
        for line in lines
    )
    assert drawn == Counter(normalize(shape))
