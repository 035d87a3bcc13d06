"""Decko Digits' appending and block games: their verdicts in a referee's words, and the watch that referees them
as they are laid, from a film, a camera or a stream (`tableref judge append|blocks VIDEO|CAMERA`, and the
dashboard).

Every frame is read as a photo of the game is (the line after the Starter, or the sets of five); what is read
counts once it holds for a few frames (rules/settling.py), so a hand laying a card changes nothing until it
is gone, and each state settled is judged by the game's rules. The watch ends with the film, when the game
says it is over (the fifty decimals laid), on Ctrl-C, or when a camera stops (what was judged stands).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import typer

from rules.appending import AppendVerdict, appendable, judge_line, jump_to_end
from rules.blocks import BLOCK_SIZE, BlockSet, BlockTable, judge_sets
from rules.decko import DeckoCard, card_text
from rules.pi import BLOCKS, wild_pair
from rules.settling import Settler
from server.storage import NotRecorded, Recording, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.cards.recognize import CardRecognizer


class Verdict(Protocol):
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class DeckoGame:
    """How one game is watched: its name in the results file, what a frame shows of it (None: nothing to
    judge in it), its verdict on what settled, the reason it ends (or None), and its words."""

    name: str
    read: Callable[[CardRecognizer, np.ndarray], tuple | None]
    judge: Callable[[tuple], Verdict]
    ended: Callable[[Any], str | None]
    short: Callable[[Any], str]  # a verdict on one line, as it settles
    said: Callable[[Any], list[str]]  # the verdict whole
    nothing: tuple[str, str]  # what was not seen, and what to film instead


@dataclass(frozen=True)
class Settled:
    seconds: float  # from the first frame
    verdict: Any


@dataclass(frozen=True)
class WatchedGame:
    settled: list[Settled]  # each state judged as it settled
    watched: Watched


def watch_game(
    source: str,
    game: DeckoGame,
    recognizer: CardRecognizer | None = None,
    on_change: Callable[[Settled], None] = lambda settled: None,
    recording: Recording | NotRecorded | None = None,
    onlooker: Onlooker | None = None,
) -> WatchedGame:
    """`game` on `source`, read frame by frame until it ends (see the module); `on_change` hears of each state
    judged as it settles, `recording` keeps it, and the `onlooker` sees every frame."""
    recording = recording or NotRecorded()
    recognizer = recognizer or CardRecognizer()
    settler: Settler[tuple] = Settler()
    judged: list[Settled] = []

    def on_frame(seconds: float, frame: np.ndarray) -> str | None:
        settled = settler.add(seconds, game.read(recognizer, frame))
        if settled is None:
            return None
        judged.append(Settled(settled.seconds, game.judge(settled.reading)))
        recording.add(settled.seconds, judged[-1].verdict.to_json())
        on_change(judged[-1])
        return game.ended(judged[-1].verdict)

    watched = watch(source, on_frame, recording, onlooker=onlooker)
    return WatchedGame(judged, watched)


def run_video_game(source: str, game: DeckoGame, as_json: bool, record: Path | None = None) -> None:
    """Referee `game` on `source`, printing each state as it settles and the verdict on the last. Exit code 1
    where nothing was seen, or where the camera stopped mid-game (after the verdict)."""

    def show(settled: Settled) -> None:
        if not as_json:
            typer.echo(f"{settled.seconds:7.2f} s  {game.short(settled.verdict)}")

    kept = recording(record, game.name, source)
    watched = watched_or_exit(lambda: watch_game(source, game, on_change=show, recording=kept))
    exit_if_nothing_held(source, watched.watched, bool(watched.settled), *game.nothing)
    last = watched.settled[-1].verdict
    if as_json:
        laid = [{"seconds": round(s.seconds, 3), **s.verdict.to_json()} for s in watched.settled]
        typer.echo(json.dumps({**last.to_json(), **watched.watched.to_json(), "laid": laid}))
    else:
        for text in game.said(last):
            typer.echo(text)
    exit_if_cut_short(source, watched.watched, "the verdict is on what was read until then")


def shown(card: DeckoCard) -> str:
    """A card among others: a digit as it is, a Wild in brackets ('[1/6]')."""
    return card_text(card) if isinstance(card, int) else f"[{card_text(card)}]"


def line_text(cards: tuple[DeckoCard, ...]) -> str:
    """The line as read ('3.14[1/6]59')."""
    return "3." + "".join(map(shown, cards))


def appending_lines(verdict: AppendVerdict, hand: list[DeckoCard] | None, deck_empty: bool = False) -> list[str]:
    """The verdict in a referee's words; with a hand, what it can append now (and, the deck empty, whether it may
    jump to the end)."""
    lines = [line_text(verdict.cards), f"right: {verdict.correct} card(s) in order after the Starter"]
    if verdict.first_wrong is not None:
        place = verdict.first_wrong
        expected = verdict.expected
        wanted = "no card (the fifty decimals end there)" if expected is None else str(expected)
        got = verdict.cards[place]
        named = f"the Wild {card_text(got)}" if isinstance(got, tuple) else card_text(got)
        lines.append(
            f"first error: card {place + 1} after the Starter is {named}, expected {wanted}: "
            "whoever laid it takes back every card they laid this turn"
        )
        return lines
    if verdict.complete:
        return [*lines, "complete: all fifty decimals laid"]
    digit = verdict.next_digit
    assert digit is not None
    lines.append(f"next: {digit} (a {digit} or the Wild {card_text(wild_pair(digit))})")
    if hand is None:
        return lines
    run = appendable(verdict.correct, hand)
    jump = jump_to_end(verdict.correct, hand) if deck_empty and len(run) < len(hand) else None
    if jump is not None:
        cards = ", ".join(card_text(c) for c in jump)
        lines.append(f"jump to the end: lay {cards} as the last decimals of the fifty, and win (the Special Rule)")
    elif run:
        lines.append("append now: " + ", ".join(card_text(c) for c in run))
    else:
        draw = "no draw: the deck is empty" if deck_empty else "draw (up to three draws this turn)"
        lines.append(f"no card in the hand fits the next digit ({digit}): {draw}")
    return lines


def set_line(number: int, block_set: BlockSet) -> str:
    """One set in a referee's words: its cards and the block it makes, or why it counts for none."""
    cards = " ".join(map(shown, block_set.cards))
    if len(block_set.cards) != BLOCK_SIZE:
        said = f"{len(block_set.cards)} card(s), not a set of five"
    elif not block_set.blocks:
        said = "no block"
    elif block_set.counted is None:
        taken = " or ".join(str(b) for b in block_set.blocks)
        said = f"block {taken}, which another set has: a block is set down once (this set does not count)"
    else:
        digits = "".join(map(str, BLOCKS[block_set.counted - 1]))
        others = [str(b) for b in block_set.blocks if b != block_set.counted]
        said = f"block {block_set.counted} ({digits})" + (f"; it could also be {' or '.join(others)}" if others else "")
    return f"set {number}: {cards} -> {said}"


def block_lines(table: BlockTable) -> list[str]:
    return [*(set_line(i, s) for i, s in enumerate(table.sets, start=1)), f"blocks set down: {table.count}"]


def _line_in(recognizer: CardRecognizer, frame: np.ndarray) -> tuple | None:
    from vision.cards.lines import NoStarterError, line_cards, read_appending_line

    try:
        return tuple(line_cards(read_appending_line(recognizer.classifier, frame, recognizer(frame))))
    except NoStarterError:
        return None


# The appending game as a film of it is refereed: each line judged as it settles.
APPENDING = DeckoGame(
    name="append",
    read=_line_in,
    judge=judge_line,
    ended=lambda verdict: "complete" if verdict.complete else None,
    short=lambda verdict: line_text(verdict.cards),
    said=lambda verdict: appending_lines(verdict, None),
    nothing=("no line after a Starter", "film the Starter and the cards"),
)


def _sets_in(recognizer: CardRecognizer, frame: np.ndarray) -> tuple:
    """The sets a frame shows, in an order that does not hang on where each lies (a frame's noise may change
    which row reads first): by their cards."""
    from vision.cards.sets import read_sets

    rows = [
        tuple(card.face.played for card in row) for row in read_sets(recognizer.classifier, frame, recognizer(frame))
    ]
    return tuple(sorted(rows, key=lambda row: [card_text(card) for card in row]))


# The block game as a film of it is refereed: the table judged each time its sets settle.
BLOCK_GAME = DeckoGame(
    name="blocks",
    read=_sets_in,
    judge=judge_sets,
    ended=lambda table: None,
    short=lambda table: f"{table.count} block(s) set down in {len(table.sets)} set(s)",
    said=block_lines,
    nothing=("no set of cards", "film the sets of five set down"),
)
