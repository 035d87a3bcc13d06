"""Tempus Digit: race to restore a shuffled deck to pi order, judged card by card from the Starter."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.pi import PI_DECIMALS
from rules.settling import SETTLE_FRAMES, Settler, SettlingError

SECONDS_PER_TEN_DIGITS = 30.0


class TempusError(ValueError):
    """A Tempus Digit option or input that cannot be judged."""


@dataclass(frozen=True, slots=True)
class FirstError:
    index: int  # 0-based position after the Starter
    expected: int | None  # None: a card laid past the deck's last digit
    got: int

    def to_json(self) -> dict:
        return {"index": self.index, "expected": self.expected, "got": self.got}


@dataclass(frozen=True, slots=True)
class TempusOptions:
    """`digits`: the beginner house rule (only the first N decimals); `seconds_per_ten`: the time limit rate."""

    digits: int = len(PI_DECIMALS)
    seconds_per_ten: float = SECONDS_PER_TEN_DIGITS

    def __post_init__(self) -> None:
        if not 1 <= self.digits <= len(PI_DECIMALS):
            raise TempusError(f"digits must be 1..{len(PI_DECIMALS)}, got {self.digits}")
        if self.seconds_per_ten <= 0:
            raise TempusError(f"seconds_per_ten must be positive, got {self.seconds_per_ten}")

    @property
    def target(self) -> tuple[int, ...]:
        return PI_DECIMALS[: self.digits]

    @property
    def time_limit(self) -> float:
        """The recommended limit: 30 s for each 10 digits, pro rata."""
        return self.seconds_per_ten * self.digits / 10


@dataclass(frozen=True, slots=True)
class TempusVerdict:
    cards: tuple[int, ...]
    consecutive_correct: int
    first_error: FirstError | None
    digits: int
    complete: bool  # every digit of the deck placed in order, nothing extra

    def to_json(self) -> dict:
        return {
            "cards": list(self.cards),
            "consecutive_correct": self.consecutive_correct,
            "first_error": self.first_error.to_json() if self.first_error else None,
            "digits": self.digits,
            "complete": self.complete,
        }


def judge(cards: list[int] | tuple[int, ...], options: TempusOptions | None = None) -> TempusVerdict:
    """Judge the digits placed after the Starter, in order.

    A card beyond the deck's last digit is an error too: the deck has no such card.
    """
    options = options or TempusOptions()
    cards = tuple(cards)
    if any(not isinstance(c, int) or not 0 <= c <= 9 for c in cards):
        raise TempusError(f"cards must be digits 0..9, got {list(cards)}")
    target = options.target
    correct = 0
    for got, expected in zip(cards, target, strict=False):
        if got != expected:
            break
        correct += 1
    first_error = None
    if correct < len(cards):
        expected = target[correct] if correct < len(target) else None
        first_error = FirstError(index=correct, expected=expected, got=cards[correct])
    return TempusVerdict(
        cards=cards,
        consecutive_correct=correct,
        first_error=first_error,
        digits=options.digits,
        complete=correct == len(target) and len(cards) == len(target),
    )


@dataclass(frozen=True, slots=True)
class RaceEntry:
    player: str
    verdict: TempusVerdict
    finished_at: float | None  # seconds from the start signal; None if the player never finished


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: str
    consecutive_correct: int
    finished_at: float | None
    within_time: bool

    def to_json(self) -> dict:
        return {
            "rank": self.rank,
            "player": self.player,
            "consecutive_correct": self.consecutive_correct,
            "finished_at": self.finished_at,
            "within_time": self.within_time,
        }


@dataclass(frozen=True, slots=True)
class RaceResult:
    standings: tuple[Standing, ...] = field(default_factory=tuple)

    @property
    def winner(self) -> str | None:
        return self.standings[0].player if self.standings else None

    def to_json(self) -> dict:
        return {"winner": self.winner, "standings": [s.to_json() for s in self.standings]}


def rank(entries: list[RaceEntry], options: TempusOptions | None = None) -> RaceResult:
    """Most consecutive correct cards wins; a tie goes to whoever finished sorting first.

    A finish time past the limit still ranks (the sheet says sorting stops at the limit, so what is on the
    table then is what counts); `within_time` tells the page to show it. Equal count and equal time share
    a rank.
    """
    options = options or TempusOptions()
    names = [e.player for e in entries]
    if len(set(names)) != len(names):
        raise TempusError(f"player names must be unique, got {names}")

    def key(e: RaceEntry) -> tuple[int, float]:
        return (-e.verdict.consecutive_correct, e.finished_at if e.finished_at is not None else float("inf"))

    ordered = sorted(entries, key=key)
    standings: list[Standing] = []
    for position, entry in enumerate(ordered):
        tied = standings and key(ordered[position - 1]) == key(entry)
        standings.append(
            Standing(
                rank=standings[-1].rank if tied else position + 1,
                player=entry.player,
                consecutive_correct=entry.verdict.consecutive_correct,
                finished_at=entry.finished_at,
                within_time=entry.finished_at is not None and entry.finished_at <= options.time_limit,
            )
        )
    return RaceResult(tuple(standings))


@dataclass(frozen=True, slots=True)
class LineChange:
    """The line after the Starter as it settled at `seconds` into a filmed race."""

    seconds: float
    cards: tuple[int, ...]

    def to_json(self) -> dict:
        return {"seconds": round(self.seconds, 3), "cards": list(self.cards)}


class LineSettler:
    """The line of a filmed race as it settles (rules/settling.py), one frame at a time: `add` each frame's
    line read (None where no Starter was seen); `changes` holds the lines settled so far."""

    def __init__(self, settle: int = SETTLE_FRAMES) -> None:
        try:
            self._settler: Settler[tuple[int, ...]] = Settler(settle)
        except SettlingError as exc:
            raise TempusError(str(exc)) from exc
        self.changes: list[LineChange] = []

    def add(self, seconds: float, line: tuple[int, ...] | None) -> LineChange | None:
        """The line settled by this frame, if any."""
        settled = self._settler.add(seconds, line)
        if settled is None:
            return None
        self.changes.append(LineChange(settled.seconds, settled.reading))
        return self.changes[-1]


def finish_time(changes: list[LineChange]) -> float | None:
    """When the last line first settled (None before any did): a hand passing over a finished line hides some
    of it for a while, and the line it leaves is the same, so the finish is not moved."""
    if not changes:
        return None
    final = changes[-1].cards
    return next(c.seconds for c in changes if c.cards == final)


def settled_lines(
    readings: Iterable[tuple[float, tuple[int, ...] | None]], settle: int = SETTLE_FRAMES
) -> list[LineChange]:
    """How the line changed over a filmed race, from each frame's (seconds, line read): each line read alike
    `settle` frames in a row, timed at the first of them (rules/settling.py)."""
    settler = LineSettler(settle)
    for seconds, line in readings:
        settler.add(seconds, line)
    return settler.changes
