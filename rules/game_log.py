"""Games played in the hand, refereed from what the players write down: a log of a game's seats, hand size and
turns, one a line, and the game replayed from it turn by turn up to the first turn its rules do not allow.

    players: Ann Bob Cem   # seat order; the first plays first
    hand: 5                # optional
    ...                    # a turn a line, in the game's own words
    end: why               # optional: the players' word that the game is over

``undo`` takes back the turn (or the end) before it, typed by mistake; ``#`` starts a comment. Each game reads its
own turn lines (``read_turn``) and raises a ValueError for one it cannot read; the log's error names the line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

Move = TypeVar("Move")
Game = TypeVar("Game")
Judged = TypeVar("Judged")


UNDO = "undo"  # a line that takes back the turn (or the end) before it, as a player would who mistyped it


class GameLogError(ValueError):
    """A log that cannot be read, naming its line."""


def dealt(players: Iterable[str], hand: int, cards: int, refused: type[ValueError]) -> tuple[tuple[str, ...], int]:
    """The players in seat order and the cards left once each is dealt `hand` of `cards`; a table that cannot be
    dealt so raises `refused`, saying why."""
    names = tuple(players)
    if len(names) < 2:
        raise refused("the game needs two players or more")
    if len(set(names)) != len(names):
        raise refused(f"two players share a name: {' '.join(names)}")
    if hand < 1:
        raise refused(f"a hand holds one card or more, not {hand}")
    if hand * len(names) > cards:
        raise refused(f"{len(names)} hands of {hand} need {hand * len(names)} cards; the deck has {cards}")
    return names, cards - hand * len(names)


@dataclass(frozen=True)
class Log(Generic[Move]):
    players: tuple[str, ...]
    hand: int | None  # None: the game's own
    turns: tuple[Move, ...]
    ended: str | None = None  # the players' word that the game is over
    lines: tuple[int, ...] = ()  # each turn's line number in the text


def parse_log(text: str, read_turn: Callable[[str], Move]) -> Log[Move]:
    players: tuple[str, ...] = ()
    hand, turns, numbers, ended = None, [], [], None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            if line.lower() == UNDO:
                if ended is not None:
                    ended = None
                elif turns:
                    del turns[-1], numbers[-1]
                else:
                    raise GameLogError("no turn to undo")
                continue
            if ended is not None:
                raise GameLogError("nothing follows the end (but 'undo', which takes it back)")
            key, _, rest = line.partition(":")
            key = key.strip().lower()
            if key == "players" and not players and not turns:
                players = tuple(rest.split())
            elif key == "hand" and not turns:
                hand = _whole(rest.strip())
            elif key == "end":
                ended = rest.strip() or "the players ended it"
            elif not players:
                raise GameLogError("the log begins with the players in seat order: 'players: Ann Bob Cem'")
            else:
                turns.append(read_turn(line))
                numbers.append(number)
        except ValueError as exc:
            raise GameLogError(f"line {number}: {exc}") from exc
    if not players:
        raise GameLogError("the log names no players ('players: Ann Bob Cem')")
    return Log(players, hand, tuple(turns), ended, tuple(numbers))


def _whole(text: str) -> int:
    if not text.isdigit():
        raise GameLogError(f"a hand size is a whole number, not {text!r}")
    return int(text)


@dataclass(frozen=True)
class Replay(Generic[Game, Judged]):
    game: Game  # after the last turn the rules allowed
    turns: tuple[Judged, ...]
    error: str | None = None  # the first turn the rules do not allow, by its line; the turns after it unplayed


def replay(
    log: Log[Move],
    game: Game,
    play: Callable[[Game, Move], tuple[Game, Judged]],
    end: Callable[[Game, str], Game],
    refused: type[ValueError],
) -> Replay[Game, Judged]:
    """`game` played turn by turn as `log` has it, up to a turn whose `play` raises `refused`."""
    judged = []
    for number, move in zip(log.lines, log.turns, strict=True):
        try:
            game, turn = play(game, move)
        except refused as exc:
            return Replay(game, tuple(judged), f"line {number}: {exc}")
        judged.append(turn)
    return Replay(end(game, log.ended) if log.ended else game, tuple(judged))
