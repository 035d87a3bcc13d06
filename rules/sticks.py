"""Stick shapes on the square lattice: edges, symmetries, polystick counts and the 55 DIGIT cards.

Points are integer pairs (x, y) with x to the right and y *down*, as in an image, so that pictures read
the same way as the camera's view. A stick lying on the table is an `Edge`; a shape is a frozenset of
edges. Shapes are compared up to translation always, and up to turning and flipping as a `Symmetry`
option says.

Card numbering
--------------
The vision layer's ``card`` field and stored results depend on these numbers, so the rule is fixed:

The 55 cards are the free pentasticks, each drawn in its *canonical orientation*: of its turned and
flipped images, each moved so that its smallest x and smallest y are 0, the one with the smallest code.
A shape's *code* lists its edges in reading order -- by the row y of the edge's top or left end, then
by its column x, a horizontal edge before a vertical one at the same point -- and two codes compare edge
by edge, each edge as (y, x, horizontal first). Cards are numbered 1..55 by:

1. bounding-box area, width x height in stick lengths, smaller first (the straight line has area 0);
2. then the box's longer side, shorter first;
3. then the code of the canonical orientation, smaller first.

Codes are written as ``x,y`` followed by ``h`` (the edge to x+1) or ``v`` (the edge to y+1), so card 1
is ``0,0h 1,0h 2,0h 3,0h 4,0h``, the straight line.

Under ``Symmetry.ROTATIONS_ONLY`` a layout matches a card's picture turned but not flipped, and the
picture is taken to be this canonical orientation. The rule sheet's pictures are lost, so a printed
deck may show some chiral cards mirrored; ALL_EIGHT, the default, does not depend on it.
"""

from __future__ import annotations

import enum
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, total_ordering

Point = tuple[int, int]

# An edge in reading order, (y, x, 0 if horizontal else 1) of its top or left end: the unit of codes.
_EdgeKey = tuple[int, int, int]
_ShapeKey = tuple[_EdgeKey, ...]


class StickSyntaxError(ValueError):
    """Text or JSON that does not describe an edge, a shape or a layout."""


class NotAnEdgeError(ValueError):
    """Two lattice points that are not one stick length apart: a stick cannot lie there."""


class NoSuchCardError(ValueError):
    """A card number outside 1..55."""


def _point(value: object) -> Point:
    if (
        not isinstance(value, tuple | list)
        or len(value) != 2
        or not all(type(v) is int for v in value)  # bool is an int subclass, and no coordinate
    ):
        raise StickSyntaxError(f"a lattice point is a pair of integers, not {value!r}")
    return (value[0], value[1])


@total_ordering
@dataclass(frozen=True, slots=True, repr=False)
class Edge:
    """One stick on the lattice: the unit segment between integer points `a` < `b`.

    The ends are sorted on construction, so an edge equals itself written backwards. Edges sort in
    reading order, the order of shape codes.
    """

    a: Point
    b: Point

    def __post_init__(self) -> None:
        a, b = sorted((_point(self.a), _point(self.b)))
        if abs(b[0] - a[0]) + abs(b[1] - a[1]) != 1:
            raise NotAnEdgeError(f"{a} and {b} are not one stick length apart on the lattice")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def __lt__(self, other: Edge) -> bool:
        if not isinstance(other, Edge):
            return NotImplemented
        return _edge_key(self) < _edge_key(other)

    @property
    def horizontal(self) -> bool:
        return self.a[1] == self.b[1]

    def translated(self, dx: int, dy: int) -> Edge:
        return Edge((self.a[0] + dx, self.a[1] + dy), (self.b[0] + dx, self.b[1] + dy))

    @property
    def code(self) -> str:
        """``x,y`` of the top or left end, then ``h`` or ``v``: the edge's token in a shape code."""
        return f"{self.a[0]},{self.a[1]}{'h' if self.horizontal else 'v'}"

    @classmethod
    def parse(cls, token: str) -> Edge:
        match = re.fullmatch(r"(-?\d+),(-?\d+)([hv])", token.strip())
        if match is None:
            raise StickSyntaxError(f"an edge is written like '0,1h' or '2,0v', not {token!r}")
        x, y = int(match[1]), int(match[2])
        return cls((x, y), (x + 1, y) if match[3] == "h" else (x, y + 1))

    def to_json(self) -> list[list[int]]:
        """``[[x, y], [x, y]]``, the form of the vision layer's ``edges``."""
        return [list(self.a), list(self.b)]

    @classmethod
    def from_json(cls, value: object) -> Edge:
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise StickSyntaxError(f"an edge is [[x, y], [x, y]], not {value!r}")
        return cls(_point(value[0]), _point(value[1]))

    def __repr__(self) -> str:
        return f"Edge.parse({self.code!r})"

    def __str__(self) -> str:
        """Its two lattice points, as a player's move reads: (x,y)-(x,y), y growing down the table."""
        return f"({self.a[0]},{self.a[1]})-({self.b[0]},{self.b[1]})"


Shape = frozenset[Edge]
"""A set of sticks; the functions below take any iterable of edges and return shapes."""


def _edge_key(edge: Edge) -> _EdgeKey:
    return (edge.a[1], edge.a[0], edge.b[1] - edge.a[1])


def _key_edge(key: _EdgeKey) -> Edge:
    y, x, down = key
    return Edge((x, y), (x + 1 - down, y + down))


def _shape_key(shape: Iterable[Edge]) -> _ShapeKey:
    return tuple(sorted(map(_edge_key, shape)))


def shape_code(shape: Iterable[Edge]) -> str:
    """The shape's edges as space-separated tokens in reading order, e.g. ``0,0h 1,0v``."""
    return " ".join(edge.code for edge in sorted(set(shape)))


def parse_shape(code: str) -> Shape:
    """Read a `shape_code` back; tokens may come in any order but not twice."""
    edges = [Edge.parse(token) for token in code.split()]
    if len(set(edges)) != len(edges):
        raise StickSyntaxError(f"an edge is written twice in {code!r}")
    return frozenset(edges)


def _points(shape: Iterable[Edge]) -> set[Point]:
    return {end for edge in shape for end in (edge.a, edge.b)}


def _edges_at(point: Point) -> tuple[Edge, ...]:
    x, y = point
    return (
        Edge((x, y), (x + 1, y)),
        Edge((x - 1, y), (x, y)),
        Edge((x, y), (x, y + 1)),
        Edge((x, y - 1), (x, y)),
    )


def adjacent_edges(shape: Iterable[Edge]) -> Shape:
    """Edges not in the shape that share an end with it: where one more stick can touch it."""
    shape = frozenset(shape)
    return frozenset(edge for point in _points(shape) for edge in _edges_at(point)) - shape


def is_connected(shape: Iterable[Edge]) -> bool:
    """Whether every stick reaches every other through shared ends (an empty shape is, vacuously)."""
    edges = set(shape)
    if not edges:
        return True
    by_point: dict[Point, list[Edge]] = {}
    for edge in edges:
        by_point.setdefault(edge.a, []).append(edge)
        by_point.setdefault(edge.b, []).append(edge)
    start = next(iter(edges))
    seen, todo = {start}, [start]
    while todo:
        edge = todo.pop()
        for neighbour in by_point[edge.a] + by_point[edge.b]:
            if neighbour not in seen:
                seen.add(neighbour)
                todo.append(neighbour)
    return len(seen) == len(edges)


def size(shape: Iterable[Edge]) -> tuple[int, int]:
    """Width and height of the bounding box in stick lengths; (0, 0) for an empty shape."""
    points = _points(shape)
    if not points:
        return (0, 0)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (max(xs) - min(xs), max(ys) - min(ys))


@dataclass(frozen=True, slots=True)
class Transform:
    """A symmetry of the square lattice that fixes the origin: (x, y) -> (xx*x + xy*y, yx*x + yy*y)."""

    xx: int
    xy: int
    yx: int
    yy: int

    def __call__(self, point: Point) -> Point:
        x, y = point
        return (self.xx * x + self.xy * y, self.yx * x + self.yy * y)

    @property
    def is_rotation(self) -> bool:
        return self.xx * self.yy - self.xy * self.yx == 1


# The four rotations first, then the four reflections.
SYMMETRIES: tuple[Transform, ...] = (
    Transform(1, 0, 0, 1),
    Transform(0, -1, 1, 0),
    Transform(-1, 0, 0, -1),
    Transform(0, 1, -1, 0),
    Transform(-1, 0, 0, 1),
    Transform(1, 0, 0, -1),
    Transform(0, 1, 1, 0),
    Transform(0, -1, -1, 0),
)


class Symmetry(enum.Enum):
    """Which images of a shape count as the same shape (translations always do)."""

    # Turned or flipped, the sheet's "retournée soit inversée": free polysticks. The default.
    ALL_EIGHT = "all_eight"
    # Turned only, a mirror image being another shape: one-sided polysticks. Some summaries read it so.
    ROTATIONS_ONLY = "rotations_only"
    # Neither: every orientation is its own shape (fixed polysticks). For counting, not a table reading.
    NONE = "none"

    @property
    def transforms(self) -> tuple[Transform, ...]:
        return _TRANSFORMS[self]


_TRANSFORMS = {
    Symmetry.ALL_EIGHT: SYMMETRIES,
    Symmetry.ROTATIONS_ONLY: SYMMETRIES[:4],
    Symmetry.NONE: SYMMETRIES[:1],
}


def transform(shape: Iterable[Edge], t: Transform) -> Shape:
    return frozenset(Edge(t(edge.a), t(edge.b)) for edge in shape)


def translate(shape: Iterable[Edge], dx: int, dy: int) -> Shape:
    return frozenset(edge.translated(dx, dy) for edge in shape)


def normalize(shape: Iterable[Edge]) -> Shape:
    """The shape moved so that its smallest x and smallest y are 0."""
    shape = frozenset(shape)
    points = _points(shape)
    if not points:
        return shape
    return translate(shape, -min(p[0] for p in points), -min(p[1] for p in points))


def _canonical_key(shape: Iterable[Edge], transforms: tuple[Transform, ...]) -> _ShapeKey:
    # Works on key tuples rather than Edge objects: enumeration calls this thousands of times.
    ends = [(edge.a, edge.b) for edge in shape]
    if not ends:
        return ()
    images = []
    for t in transforms:
        moved = [(t(p), t(q)) for p, q in ends]
        mx = min(min(p[0], q[0]) for p, q in moved)
        my = min(min(p[1], q[1]) for p, q in moved)
        images.append(tuple(sorted((min(p[1], q[1]) - my, min(p[0], q[0]) - mx, abs(p[1] - q[1])) for p, q in moved)))
    return min(images)


def canonical(shape: Iterable[Edge], symmetry: Symmetry = Symmetry.ALL_EIGHT) -> Shape:
    """The image of the shape, among those `symmetry` allows, that is normalized and has the smallest code.

    Two shapes are the same under `symmetry` exactly when their canonical forms are equal.
    """
    return frozenset(map(_key_edge, _canonical_key(shape, symmetry.transforms)))


@cache
def _polystick_keys(n: int, symmetry: Symmetry) -> frozenset[_ShapeKey]:
    # Every connected shape of n sticks is a connected shape of n - 1 sticks plus one touching stick
    # (drop a leaf stick, or one on a cycle), so growing the smaller shapes one stick reaches them all.
    if n == 1:
        # A lying and a standing stick: the same shape unless turning is forbidden.
        seeds = (Edge((0, 0), (1, 0)), Edge((0, 0), (0, 1)))
        return frozenset(_canonical_key([edge], symmetry.transforms) for edge in seeds)
    grown = set()
    for key in _polystick_keys(n - 1, symmetry):
        shape = frozenset(map(_key_edge, key))
        for edge in adjacent_edges(shape):
            grown.add(_canonical_key(shape | {edge}, symmetry.transforms))
    return frozenset(grown)


def polysticks(n: int, symmetry: Symmetry = Symmetry.ALL_EIGHT) -> tuple[Shape, ...]:
    """Every connected shape of `n` sticks, one canonical form per shape under `symmetry`, sorted by code.

    ALL_EIGHT gives the free polysticks (1, 2, 5, 16, 55, 222 for n = 1..6), ROTATIONS_ONLY the one-sided
    ones, NONE the fixed ones (2, 6, 22, 88, 372, 1628).
    """
    if type(n) is not int or n < 1:
        raise ValueError(f"a polystick has a whole number of sticks, at least one, not {n!r}")
    return tuple(frozenset(map(_key_edge, key)) for key in sorted(_polystick_keys(n, symmetry)))


def _numbering_key(shape: Shape) -> tuple[int, int, _ShapeKey]:
    width, height = size(shape)
    return (width * height, max(width, height), _shape_key(shape))


PENTASTICKS: tuple[Shape, ...] = tuple(sorted(polysticks(5), key=_numbering_key))
"""The 55 cards in their canonical orientation; index 0 is card 1 (see the module's numbering rule)."""


@cache
def _card_index(symmetry: Symmetry) -> dict[_ShapeKey, int]:
    return {_canonical_key(shape, symmetry.transforms): n for n, shape in enumerate(PENTASTICKS, 1)}


def card_number(shape: Iterable[Edge], symmetry: Symmetry = Symmetry.ALL_EIGHT) -> int | None:
    """The card whose picture the shape shows, wherever it lies and however `symmetry` lets it turn.

    None if the shape is not a pentastick, or (under ROTATIONS_ONLY) is the mirror image of a card.
    """
    return _card_index(symmetry).get(_canonical_key(set(shape), symmetry.transforms))


def shape_for_card(number: int) -> Shape:
    """The picture on card `number` (1..55), in its canonical orientation."""
    if type(number) is not int or not 1 <= number <= len(PENTASTICKS):
        raise NoSuchCardError(f"cards are numbered 1..{len(PENTASTICKS)}, not {number!r}")
    return PENTASTICKS[number - 1]


def to_ascii(shape: Iterable[Edge]) -> str:
    """The shape as text: ``+`` at stick ends, ``--`` for a horizontal stick, ``|`` for a vertical one."""
    shape = normalize(shape)
    if not shape:
        return ""
    width, height = size(shape)
    rows = [[" "] * (3 * width + 1) for _ in range(2 * height + 1)]
    for edge in shape:
        (x, y), (bx, by) = edge.a, edge.b
        rows[2 * y][3 * x] = rows[2 * by][3 * bx] = "+"
        if edge.horizontal:
            rows[2 * y][3 * x + 1 : 3 * x + 3] = ["-", "-"]
        else:
            rows[2 * y + 1][3 * x] = "|"
    return "\n".join("".join(row).rstrip() for row in rows)


def to_svg(
    shape: Iterable[Edge], *, unit: int = 40, stroke_width: int = 6, color: str = "#222", margin: int = 10
) -> str:
    """A standalone SVG picture of the shape, `unit` pixels per stick, with round stick ends."""
    shape = normalize(shape)
    width, height = size(shape)
    w, h = width * unit + 2 * margin, height * unit + 2 * margin
    lines = "".join(
        f'<line x1="{margin + e.a[0] * unit}" y1="{margin + e.a[1] * unit}" '
        f'x2="{margin + e.b[0] * unit}" y2="{margin + e.b[1] * unit}"/>'
        for e in sorted(shape)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
        f'<g stroke="{html.escape(color, quote=True)}" stroke-width="{stroke_width}" '
        f'stroke-linecap="round">{lines}</g></svg>'
    )
