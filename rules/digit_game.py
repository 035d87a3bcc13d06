"""Refereeing DIGIT (Piatnik, 1987): five sticks on the table, 55 pentastick cards.

Readings taken where the sheet (``rulebooks/digit-sticks.fr.md``) is silent:

- Layouts are compared up to translation only, never turning. The vision layer reports sticks in a
  frame of their own, so the same table can come back shifted, while a turn moves one stick and so never
  turns the picture as a whole. The sticks that moved are the difference of the two layouts, as multisets
  of edges, at the shift that keeps the most sticks in place (ties: the smallest shift, no shift first).
  A move whose result is the old pattern shifted (the straight line's end stick carried to its other end)
  therefore counts as no move: no camera frame can tell it from one.
- An off-lattice layout is judged with the edges the vision layer snapped it to, and is never legal.
- A layout that breaks a rule is rejected: the game keeps the last legal layout and the same player moves
  again, so putting the stick back and then moving it properly always works. It costs no point.
- Every card in the deck differs, so a pattern is in at most one hand; whoever holds it lays it at once
  (in no variant is keeping it better).
- Standard: the mover draws unless the move laid a card, theirs or another player's; an empty draw pile
  gives nothing. The first empty hand wins and ends the game.
- Plus: a match by the mover lets them move again while their hand lasts. When the turn ends every hand
  below five is refilled, the mover's first, then in seat order; the game ends when a refill leaves the
  draw pile empty.
- Solitaire: a match is replaced from the draw pile at once and the player moves again; a legal move that
  forms none of the five cards scores one negative point. The game ends when the draw pile is empty.
- Cards on the table (variant 4) is Standard or Plus with ``open_hands=True``: only the players' view of
  the state changes.
"""

from __future__ import annotations

import abc
import enum
import random
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from rules.sticks import (
    PENTASTICKS,
    Edge,
    StickSyntaxError,
    Symmetry,
    adjacent_edges,
    card_number,
    is_connected,
    normalize,
    shape_for_card,
)

STICKS = 5
HAND_SIZE = 5


class IllegalPlayError(ValueError):
    """An event the game's phase does not allow, or a stick move that does not fit the layout."""


class GameSetupError(ValueError):
    """A game that cannot be dealt, such as more players than the deck serves."""


class Status(enum.Flag):
    """Everything wrong with a layout, with a move between two layouts, or with the opening layout."""

    VALID = 0
    WRONG_STICK_COUNT = enum.auto()
    """A layout without exactly five sticks."""
    OFF_LATTICE = enum.auto()
    """Sticks crossing, an end against a stick's middle, or two sticks on one edge."""
    PATTERN_BROKEN = enum.auto()
    """The sticks do not all touch in one pattern."""
    NO_STICK_MOVED = enum.auto()
    """The layout is the previous one, up to translation."""
    SEVERAL_STICKS_MOVED = enum.auto()
    WRONG_PATTERN = enum.auto()
    """The opening layout is not the model card's pattern."""


def _names(status: Status) -> list[str]:
    return [(flag.name or "").lower() for flag in status]


@dataclass(frozen=True, slots=True)
class Layout:
    """The sticks on the table in one frame: a multiset of edges, since vision may see two on one edge.

    `edges` may be given as any iterable; it is kept sorted so that equal tables compare equal.
    """

    edges: tuple[Edge, ...]
    on_lattice: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "edges", tuple(sorted(self.edges)))

    def __iter__(self) -> Iterator[Edge]:
        return iter(self.edges)

    def __len__(self) -> int:
        return len(self.edges)

    def status(self) -> Status:
        """Every problem of the layout on its own (not WRONG_PATTERN, not the move ones)."""
        status = Status.VALID
        if len(self.edges) != STICKS:
            status |= Status.WRONG_STICK_COUNT
        if not self.on_lattice or len(set(self.edges)) != len(self.edges):
            status |= Status.OFF_LATTICE
        if not is_connected(self.edges):
            status |= Status.PATTERN_BROKEN
        return status

    def to_json(self) -> dict[str, Any]:
        return {"edges": [edge.to_json() for edge in self.edges], "on_lattice": self.on_lattice}

    @classmethod
    def from_json(cls, data: object) -> Layout:
        """Read ``{"edges": [[[x, y], [x, y]], ...], "on_lattice": true}``; other keys are ignored.

        One of the vision layer's ``polysticks`` reads as is.
        """
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("edges"), list)
            or type(data.get("on_lattice", True)) is not bool
        ):
            raise StickSyntaxError(f'a layout is {{"edges": [...], "on_lattice": bool}}, not {data!r}')
        return cls(tuple(Edge.from_json(edge) for edge in data["edges"]), data.get("on_lattice", True))


@dataclass(frozen=True, slots=True, order=True)
class StickMove:
    """One stick taken off `removed` and laid on `added`, both in the layout's frame."""

    removed: Edge
    added: Edge

    def apply(self, layout: Layout) -> Layout:
        edges = list(layout)
        if self.removed not in edges or self.added in edges:
            raise IllegalPlayError(f"{self} does not fit {layout}: no stick to take, or one already there")
        edges.remove(self.removed)
        return Layout((*edges, self.added), layout.on_lattice)

    def to_json(self) -> dict[str, Any]:
        return {"removed": self.removed.to_json(), "added": self.added.to_json()}


@dataclass(frozen=True, slots=True)
class MoveVerdict:
    """Whether `after` follows from `before` by one legal stick move, and which sticks moved.

    `after` is `before` shifted by `translation`, except for the `removed` sticks (given in `before`'s
    frame) and the `added` ones (in `after`'s frame).
    """

    before: Layout
    after: Layout
    status: Status
    translation: tuple[int, int]
    removed: tuple[Edge, ...]
    added: tuple[Edge, ...]

    @property
    def is_legal(self) -> bool:
        return not self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.is_legal,
            "status": _names(self.status),
            "translation": list(self.translation),
            "removed": [edge.to_json() for edge in self.removed],
            "added": [edge.to_json() for edge in self.added],
            "before": self.before.to_json(),
            "after": self.after.to_json(),
        }


def _best_shift(before: Layout, after: Layout) -> tuple[int, int]:
    # Only a shift that carries some stick onto a parallel one can keep anything in place.
    shifts = {(0, 0)} | {
        (q.a[0] - p.a[0], q.a[1] - p.a[1]) for p in before for q in after if p.horizontal == q.horizontal
    }
    placed = Counter(after)

    def kept(shift: tuple[int, int]) -> int:
        return (Counter(edge.translated(*shift) for edge in before) & placed).total()

    return max(sorted(shifts, key=lambda s: (abs(s[0]) + abs(s[1]), s)), key=kept)


def judge_move(before: Layout, after: Layout) -> MoveVerdict:
    """Judge a turn: every problem of `after`, a wrong stick count in `before`, and how many sticks moved."""
    dx, dy = _best_shift(before, after)
    shifted, placed = Counter(edge.translated(dx, dy) for edge in before), Counter(after)
    removed = tuple(sorted(edge.translated(-dx, -dy) for edge in (shifted - placed).elements()))
    added = tuple(sorted((placed - shifted).elements()))
    status = after.status()
    if len(before) != STICKS:
        status |= Status.WRONG_STICK_COUNT
    moved = max(len(removed), len(added))
    if moved == 0:
        status |= Status.NO_STICK_MOVED
    elif moved > 1:
        status |= Status.SEVERAL_STICKS_MOVED
    return MoveVerdict(before, after, status, (dx, dy), removed, added)


def formed_card(layout: Layout, symmetry: Symmetry = Symmetry.ALL_EIGHT) -> int | None:
    """The card the layout's pattern shows; None if the layout breaks a rule or shows no card."""
    return None if layout.status() else card_number(layout, symmetry)


def matching_cards(layout: Layout, cards: Iterable[int], symmetry: Symmetry = Symmetry.ALL_EIGHT) -> tuple[int, ...]:
    """Which of `cards` (a hand, the model card, numbers typed in) the layout matches, in their order."""
    numbers = list(dict.fromkeys(cards))
    for number in numbers:
        shape_for_card(number)  # raises NoSuchCardError for a number no card carries
    formed = formed_card(layout, symmetry)
    return tuple(number for number in numbers if number == formed)


def one_move_away(layout: Iterable[Edge], symmetry: Symmetry = Symmetry.ALL_EIGHT) -> list[tuple[int, StickMove]]:
    """Every legal one-stick move from the layout that forms a card, with that card; sorted.

    A move whose result is the layout shifted is left out, as `judge_move` cannot tell it from no move.
    """
    edges = frozenset(layout)
    here = normalize(edges)
    found = []
    for removed in edges:
        rest = edges - {removed}
        for added in adjacent_edges(rest) - {removed}:
            after = rest | {added}
            if is_connected(after) and normalize(after) != here:
                card = card_number(after, symmetry)
                if card is not None:
                    found.append((card, StickMove(removed, added)))
    return sorted(found)


@cache
def _move_graph(symmetry: Symmetry) -> tuple[tuple[int, frozenset[int]], ...]:
    return tuple(
        (number, frozenset(card for card, _ in one_move_away(shape, symmetry)) - {number})
        for number, shape in enumerate(PENTASTICKS, 1)
    )


def move_graph(symmetry: Symmetry = Symmetry.ALL_EIGHT) -> dict[int, frozenset[int]]:
    """Card -> the other cards one stick move away from its picture; symmetric, as a move can be undone."""
    return dict(_move_graph(symmetry))


@dataclass(frozen=True, slots=True)
class Step:
    """One move of a path, the layout it leaves and the card that layout shows."""

    move: StickMove
    layout: Layout
    card: int

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move.to_json(), "layout": self.layout.to_json(), "card": self.card}


def shortest_path(start: int, goal: int, symmetry: Symmetry = Symmetry.ALL_EIGHT) -> tuple[Step, ...]:
    """The fewest stick moves from card `start`'s picture to a layout showing card `goal`.

    Every layout stays in the frame of `start`'s picture. The move graph is connected under every
    `Symmetry`, so a path always exists; it is empty when `start` is `goal`.
    """
    shape_for_card(goal)  # raises NoSuchCardError
    layout = Layout(shape_for_card(start))
    graph = move_graph(symmetry)
    parent, queue = {start: start}, deque([start])
    while goal not in parent:
        card = queue.popleft()
        for neighbour in sorted(n for n in graph[card] if n not in parent):
            parent[neighbour] = card
            queue.append(neighbour)
    cards = [goal]
    while cards[-1] != start:
        cards.append(parent[cards[-1]])
    steps = []
    for card in reversed(cards[:-1]):
        # The layout shows the previous card turned as `symmetry` allows, so its moves reach its neighbours.
        move = next(move for formed, move in one_move_away(layout, symmetry) if formed == card)
        layout = move.apply(layout)
        steps.append(Step(move, layout, card))
    return tuple(steps)


class Rating(enum.Enum):
    """The sheet's words for a solitaire's negative points."""

    FANTASTIQUE = "Fantastique"
    EXCELLENT = "Excellent"
    BON = "Bon"
    SATISFAISANT = "Satisfaisant"
    INSATISFAISANT = "Insatisfaisant"


# Highest negative points for each rating; more than the last is INSATISFAISANT.
_RATINGS = ((5, Rating.FANTASTIQUE), (10, Rating.EXCELLENT), (15, Rating.BON), (20, Rating.SATISFAISANT))


def solitaire_rating(points: int) -> Rating:
    """Rate a solitaire by its negative points: 0-5, 6-10, 11-15, 16-20, over 20."""
    if type(points) is not int or points < 0:
        raise ValueError(f"negative points are counted 0, 1, 2, ..., not {points!r}")
    return next((rating for limit, rating in _RATINGS if points <= limit), Rating.INSATISFAISANT)


class Phase(enum.Enum):
    SETUP = "setup"
    """Waiting for the sticks to be laid out as the model card shows."""
    MOVE = "move"
    """The player `to_move` moves one stick."""
    DRAW = "draw"
    """Cards are owed from the draw pile."""
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Draw:
    player: int
    card: int

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "card": self.card}


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """What one layout did to the game: accepted or not (with every problem), and the card it laid.

    `player` is the mover (None for the opening layout); `formed` the card the layout shows; `laid_by`
    whoever held and laid it; `penalty` the negative points the move earned (solitaire).
    """

    player: int | None
    status: Status
    move: MoveVerdict | None = None
    formed: int | None = None
    laid_by: int | None = None
    penalty: int = 0

    @property
    def accepted(self) -> bool:
        return not self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "accepted": self.accepted,
            "status": _names(self.status),
            "move": None if self.move is None else self.move.to_json(),
            "formed": self.formed,
            "laid_by": self.laid_by,
            "penalty": self.penalty,
        }


class DigitGame(abc.ABC):
    """A DIGIT table fed by events: `start` with the opening layout, then `move` and `draw`.

    Players are seats 0..n-1 in turn order; seat 0 (the youngest, says the sheet) starts. The deck is
    shuffled with `rng`, so a seed replays a game: the model card is taken first, then five cards for each
    seat in turn; the rest is the draw pile.
    """

    variant: ClassVar[str]
    seats: ClassVar[range] = range(2, (len(PENTASTICKS) - 1) // HAND_SIZE + 1)

    def __init__(
        self,
        players: int,
        *,
        rng: random.Random,
        symmetry: Symmetry = Symmetry.ALL_EIGHT,
        open_hands: bool = False,
    ) -> None:
        if type(players) is not int or players not in self.seats:
            raise GameSetupError(
                f"{self.variant} is for {self.seats.start}..{self.seats.stop - 1} players, not {players!r}"
            )
        deck = list(range(1, len(PENTASTICKS) + 1))
        rng.shuffle(deck)
        self.symmetry = symmetry
        self.open_hands = open_hands
        self.model_card = deck.pop()
        self._hands = [[deck.pop() for _ in range(HAND_SIZE)] for _ in range(players)]
        self._laid: list[list[int]] = [[] for _ in range(players)]
        self._pile = deck
        self._layout: Layout | None = None
        self._phase = Phase.SETUP
        self._to_move = 0
        self._owed: list[int] = []

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def layout(self) -> Layout | None:
        """The last accepted layout: moves are judged against it."""
        return self._layout

    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, self._hands))

    @property
    def laid(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, self._laid))

    @property
    def draw_pile_size(self) -> int:
        return len(self._pile)

    @property
    def owed(self) -> tuple[int, ...]:
        """The seats owed a card, one entry per card, in drawing order."""
        return tuple(self._owed)

    def start(self, layout: Layout) -> TurnVerdict:
        """The sticks laid out as the model card, turned as `symmetry` allows; opens the game."""
        self._require(Phase.SETUP, "lay out the model card")
        formed = formed_card(layout, self.symmetry)
        status = layout.status()
        if not status and formed != self.model_card:
            status = Status.WRONG_PATTERN
        if not status:
            self._layout, self._phase = layout, Phase.MOVE
        return TurnVerdict(None, status, formed=formed)

    def move(self, layout: Layout) -> TurnVerdict:
        """The table after the player to move moved a stick; a rejected layout changes nothing."""
        self._require(Phase.MOVE, "move a stick")
        assert self._layout is not None  # set by `start` before the first MOVE phase
        mover = self._to_move
        verdict = judge_move(self._layout, layout)
        if not verdict.is_legal:
            return TurnVerdict(mover, verdict.status, verdict)
        self._layout = layout
        formed = formed_card(layout, self.symmetry)
        holder = next((seat for seat, hand in enumerate(self._hands) if formed in hand), None)
        if holder is not None:
            self._hands[holder].remove(formed)
            self._laid[holder].append(formed)
        penalty = self._after_move(mover, holder)
        return TurnVerdict(mover, Status.VALID, verdict, formed, holder, penalty)

    def draw(self) -> tuple[Draw, ...]:
        """Deal the owed cards from the draw pile, in order, while it lasts."""
        self._require(Phase.DRAW, "draw")
        draws = []
        for seat in self._owed:
            if not self._pile:
                break
            card = self._pile.pop()
            self._hands[seat].append(card)
            draws.append(Draw(seat, card))
        self._owed = []
        self._after_draw()
        return tuple(draws)

    @abc.abstractmethod
    def scores(self) -> tuple[int, ...]:
        """Each seat's score as it would stand if the game ended now."""

    def winners(self) -> tuple[int, ...]:
        """The seats with the best score once the game is over (a tie shares the win); empty before."""
        if self._phase is not Phase.OVER:
            return ()
        scores = self.scores()
        return tuple(seat for seat, score in enumerate(scores) if score == max(scores))

    def to_json(self, viewer: int | None = None) -> dict[str, Any]:
        """The state; for a `viewer` seat, the other hands are null unless hands are open."""

        def shown(seat: int) -> bool:
            return viewer is None or self.open_hands or seat == viewer

        return {
            "variant": self.variant,
            "symmetry": self.symmetry.value,
            "open_hands": self.open_hands,
            "phase": self._phase.value,
            "to_move": self._to_move,
            "model_card": self.model_card,
            "layout": None if self._layout is None else self._layout.to_json(),
            "hands": [list(hand) if shown(seat) else None for seat, hand in enumerate(self._hands)],
            "hand_sizes": [len(hand) for hand in self._hands],
            "laid": [list(cards) for cards in self._laid],
            "draw_pile": len(self._pile),
            "owed": list(self._owed),
            "scores": list(self.scores()),
            "winners": list(self.winners()),
        }

    def _require(self, phase: Phase, action: str) -> None:
        if self._phase is not phase:
            raise IllegalPlayError(f"cannot {action} in the {self._phase.value} phase")

    def _pass_turn(self) -> None:
        self._to_move = (self._to_move + 1) % len(self._hands)
        self._phase = Phase.MOVE

    @abc.abstractmethod
    def _after_move(self, mover: int, holder: int | None) -> int:
        """Set the next phase after a legal move; return the negative points it earned."""

    @abc.abstractmethod
    def _after_draw(self) -> None:
        """Set the next phase once the owed cards are dealt."""


class StandardGame(DigitGame):
    """1 DIGIT standard: lay a match or draw; the first empty hand wins, others lose a point per card."""

    variant = "standard"

    def scores(self) -> tuple[int, ...]:
        return tuple(-len(hand) for hand in self._hands)

    def _after_move(self, mover: int, holder: int | None) -> int:
        if holder is not None and not self._hands[holder]:
            self._phase = Phase.OVER
        elif holder is None and self._pile:
            self._owed = [mover]
            self._phase = Phase.DRAW
        else:
            self._pass_turn()
        return 0

    def _after_draw(self) -> None:
        self._pass_turn()


class PlusGame(DigitGame):
    """2 DIGIT plus: a match scores a point and lets the mover go on; hands are refilled to five."""

    variant = "plus"

    def scores(self) -> tuple[int, ...]:
        return tuple(len(cards) for cards in self._laid)

    def _after_move(self, mover: int, holder: int | None) -> int:
        if holder == mover and self._hands[mover]:
            return 0
        seats = [(mover + i) % len(self._hands) for i in range(len(self._hands))]
        self._owed = [seat for seat in seats for _ in range(HAND_SIZE - len(self._hands[seat]))]
        if self._owed:
            self._phase = Phase.DRAW
        else:
            self._pass_turn()
        return 0

    def _after_draw(self) -> None:
        if self._pile:
            self._pass_turn()
        else:
            self._phase = Phase.OVER


class SolitaireGame(DigitGame):
    """3 DIGIT en solitaire: five cards face up, a point lost per move that forms none of them."""

    variant = "solitaire"
    seats = range(1, 2)

    def __init__(self, *, rng: random.Random, symmetry: Symmetry = Symmetry.ALL_EIGHT) -> None:
        super().__init__(1, rng=rng, symmetry=symmetry, open_hands=True)
        self._penalty = 0

    @property
    def penalty(self) -> int:
        """Negative points so far."""
        return self._penalty

    @property
    def rating(self) -> Rating:
        return solitaire_rating(self._penalty)

    def scores(self) -> tuple[int, ...]:
        return (-self._penalty,)

    def to_json(self, viewer: int | None = None) -> dict[str, Any]:
        return {**super().to_json(viewer), "penalty": self._penalty, "rating": self.rating.value}

    def _after_move(self, mover: int, holder: int | None) -> int:
        if holder is None:
            self._penalty += 1
            return 1
        self._owed = [mover]
        self._phase = Phase.DRAW
        return 0

    def _after_draw(self) -> None:
        self._phase = Phase.MOVE if self._pile else Phase.OVER
