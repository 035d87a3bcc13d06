"""Decko Digits' appending, block and grid games and the flash-card drill: their verdicts in a referee's words,
and the watch that referees them as they are played, from a film, a camera or a stream (`tableref judge
append|blocks|grid|flash VIDEO|CAMERA`, and the dashboard).

Every frame is read as a photo of the game is (the line after the Starter, the sets of five, the grid's cards
face up, the card laid to answer); what is read counts once it holds for a few frames (rules/settling.py), so a
hand laying a card changes nothing until it is gone, and each state settled is judged by the game's rules (the
grid's and the drill's from the state before). The watch ends with the film, when the game says it is over (the
fifty decimals laid, the grid all face up, every decimal answered right), on Ctrl-C, or when a camera stops
(what was judged stands).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import typer

from rules.appending import AppendVerdict, appendable, judge_line, jump_to_end
from rules.blocks import BLOCK_SIZE, BlockSet, BlockTable, judge_sets
from rules.decko import DeckoCard, card_text
from rules.flash_cards import FlashDrill, FlashError, new_drill, remembered_drill, seen
from rules.flash_memory import Memory, after_drill
from rules.grid_digits import STREAK, GridGame, Reveal, a_digit, new_game, turns
from rules.pi import BLOCKS, PI_DECIMALS, wild_pair
from rules.settling import Settler
from server.app import counted
from server.storage import NotRecorded, Recording, edit_events, last_events, must_exist, recording
from server.watching import Onlooker, Watched, exit_if_cut_short, exit_if_nothing_held, watch, watched_or_exit
from vision.cards.grid import FaceUp, GridView, face_up_cards
from vision.cards.recognize import CardRecognizer
from vision.stillness import Remembered


class Verdict(Protocol):
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class DeckoGame:
    """How one game is watched: its name in the results file, what a frame shows of it (None: nothing to
    judge in it), its verdict on what settled, the reason it ends (or None), and its words."""

    name: str
    read: Callable[[CardRecognizer, np.ndarray], tuple | None]
    judge: Callable[[Any, tuple], Verdict]  # the verdict before (None at first) and the state settled
    ended: Callable[[Any], str | None]
    short: Callable[[Any], str]  # a verdict on one line, as it settles
    said: Callable[[Any], list[str]]  # the verdict whole
    nothing: tuple[str, str]  # what was not seen, and what to film instead
    key: Callable[[tuple], Hashable] = lambda reading: reading  # states read alike by this are one state


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
    settler: Settler[tuple] = Settler(key=game.key)
    judged: list[Settled] = []
    reading_of = Remembered(lambda frame: game.read(recognizer, frame), game.key)

    def on_frame(seconds: float, frame: np.ndarray) -> str | None:
        settled = settler.add(seconds, reading_of(frame))
        if settled is None:
            return None
        before = judged[-1].verdict if judged else None
        judged.append(Settled(settled.seconds, game.judge(before, settled.reading)))
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
    judge=lambda _, line: judge_line(line),
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
    judge=lambda _, sets: judge_sets(sets),
    ended=lambda table: None,
    short=lambda table: f"{table.count} block(s) set down in {len(table.sets)} set(s)",
    said=block_lines,
    nothing=("no set of cards", "film the sets of five set down"),
)


def grid_lines(game: GridGame, whose: bool = True) -> list[str]:
    """The grid in a referee's words: the cards kept face up, this turn's streak, the cards to turn down, the digit
    needed next (and, if the game was followed turn by turn, `whose`, whose turn it is or who won), and what
    looked wrong."""
    kept = "".join(map(str, PI_DECIMALS[: game.kept]))
    fives = " ".join(kept[i : i + STREAK] for i in range(0, len(kept), STREAK))
    lines = [f"face up for good: 3.{fives} ({game.kept} of {game.cards} cards)"]
    if game.streak:
        more = STREAK - len(game.streak)
        lines.append(f"this turn so far: {' '.join(map(str, game.streak))} ({more} more right to keep them face up)")
    if game.to_turn_down:
        lines.append(f"turn face down: {' '.join(map(str, game.to_turn_down))} (the last turn's cards)")
    if game.found and whose:
        lines.append(
            f"{counted(game.found, 'card')} lay face up when the game was first seen: credited to no player, the "
            "turns counted from then"
        )
    if game.over:
        won = whose and game.winner is not None
        lines.append(f"player {game.winner} revealed the last card and wins" if won else "the grid is all face up")
    else:
        place = game.kept + len(game.streak) + 1
        lines.append(
            f"{f'player {game.player}' if whose else 'next'} to reveal: {a_digit(game.next_digit)} (decimal {place})"
        )
    return [*lines, *(f"note: {problem}" for problem in game.problems)]


def _reveal_text(reveal: Reveal) -> str:
    if not reveal.right:
        return f"{reveal.digit} (wrong: decimal {reveal.place + 1} is {PI_DECIMALS[reveal.place]})"
    return f"{reveal.digit} |" if reveal.kept else str(reveal.digit)


def turn_lines(game: GridGame) -> list[str]:
    """Each turn's reveals ("|" after five kept face up, the wrong card with the digit it should have been)."""
    return [
        f"turn {n}, player {turn[0].player}: " + " ".join(map(_reveal_text, turn))
        for n, turn in enumerate(turns(game), start=1)
    ]


def grid_short(view: GridView) -> str:
    """What a view of the grid showed, and the grid then, on one line as each view settles."""
    game = view.game
    shown = [f"turned down {' '.join(map(str, view.turned_down))}"] if view.turned_down else []
    for reveal in game.reveals[len(game.reveals) - view.revealed :]:
        outcome = "right, five kept" if reveal.kept else "right" if reveal.right else "wrong"
        shown.append(f"player {reveal.player} revealed {a_digit(reveal.digit)}: {outcome}")
    said = "; ".join(shown) + " | " if shown else ""
    said += f"{game.kept} of {game.cards} kept"
    if game.streak:
        said += f", streak {' '.join(map(str, game.streak))}"
    if game.to_turn_down:
        said += f", to turn down {' '.join(map(str, game.to_turn_down))}"
    if game.over:
        return f"{said}: player {game.winner} wins" if game.winner is not None else f"{said}: all face up"
    return f"{said}: player {game.player} to reveal {a_digit(game.next_digit)}"


def face_up_in(recognizer: CardRecognizer, frame: np.ndarray) -> tuple[FaceUp, ...]:
    """The grid's cards a frame shows face up."""
    return face_up_cards(recognizer(frame))


def grid_game(cards: int, players: int) -> DeckoGame:
    """Grid o' Digits as a film of it is refereed, on a grid of `cards` for `players`: each view of the grid
    judged, as it settles, from the one before."""
    start = GridView(new_game(cards, players))
    return DeckoGame(
        name="grid",
        read=face_up_in,
        judge=lambda before, shown: start.found(shown) if before is None else before.seen(shown),
        ended=lambda view: None if not view.game.over else "won" if view.game.winner else "all face up",
        short=grid_short,
        said=lambda view: [*turn_lines(view.game), *grid_lines(view.game)],
        nothing=("no frame of the grid", "film the grid of cards from above"),
        key=lambda shown: tuple(sorted(card.digit for card in shown)),
    )


def answers_in(recognizer: CardRecognizer, frame: np.ndarray) -> tuple:
    """The Digit and Wild cards a frame shows (not the Starter), in an order that does not hang on where each
    lies: what the flash-card drill takes as laid."""
    cards = [card.face.played for card in recognizer(frame) if card.face.kind in ("digit", "wild")]
    return tuple(sorted(cards, key=card_text))


def flash_lines(drill: FlashDrill) -> list[str]:
    """The drill in a referee's words: the last answer judged, what to do now, the tally and, for a learner,
    their memory."""
    return [*_flash_now(drill), *_flash_tally(drill)]


def _flash_now(drill: FlashDrill) -> list[str]:
    lines = []
    if drill.answers:
        last = drill.answers[-1]
        judged = f"right ({drill.run} in a row)" if last.right else f"not {card_text(last.card)}: asked again later"
        lines.append(f"decimal {last.place + 1} is {last.digit}: {judged}")
    if drill.crowded:
        lines.append("more than one card on the table: lay one card at a time")
    asked = drill.asked
    if asked is None:
        lines.append("every decimal in play answered right")
    elif drill.waiting:
        lines.append("take the card away for the next decimal")
    else:
        lines.append(f"decimal {asked + 1}? lay its card")
    return lines


def _flash_tally(drill: FlashDrill) -> list[str]:
    left = len(set(drill.order) - {a.place for a in drill.answers if a.right})
    to_answer = f"{counted(left, 'decimal')} still to answer right" if left else ""
    tally = (
        f"{drill.right} of {counted(len(drill.answers), 'answer')} right, best run {drill.best_run}"
        if drill.answers
        else ""
    )
    memory = drill.remembered
    known = [] if memory is None else [memory_line(drill.learner or "", memory)]
    return [", ".join(filter(None, [tally, to_answer])), *known]


def memory_line(learner: str, memory: Memory) -> str:
    """A learner's memory in a line: how far they have come."""
    return (
        f"{learner}: {memory.learnt} of the first {memory.reach} decimals learnt"
        f" ({counted(memory.drills, 'drill')} with an answer)"
    )


def flash_short(drill: FlashDrill) -> str:
    """The drill on one line as the table settles: the answer just judged, or the question now."""
    lines = _flash_now(drill)
    return " | ".join(lines if drill.waiting or drill.over else lines[-1:])


def _learners_drills(results: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each drill recorded in `results` for a learner (a drill for no one is none), oldest first, with the
    learner's name as typed: the drill as its watch left it, a drill cut off included."""
    for drill in last_events(results, "flash"):
        if isinstance(name := drill.get("learner"), str):
            yield name, drill


def learner_memory(results: Path, learner: str) -> Memory:
    """The learner's memory as their drills recorded in `results` left it; a drill cut off counts what was
    answered in it. "Ann" and "ann" are one learner."""
    memory = Memory()
    for name, drill in _learners_drills(results):
        if name.casefold() == learner.casefold():
            memory = after_drill(memory, ((answer["decimal"] - 1, answer["right"]) for answer in drill["answers"]))
    return memory


def learners(results: Path) -> list[str]:
    """Every learner with a drill recorded in `results`, by name as last typed, in alphabetical order."""
    named = {name.casefold(): name for name, _ in _learners_drills(results)}
    return sorted(named.values(), key=str.casefold)


def renamed_learner(results: Path, learner: str, to: str | None) -> tuple[str, int]:
    """`learner`'s drills in `results` made `to`'s (into a learner already known, the two memories are one), or,
    `to` None, nobody's: their memory starts again and the drills stay recorded. The learner's name as last
    recorded and how many drills; a FlashError where `results` holds none of `learner`'s."""
    must_exist(results)
    old = learner_name(learner).casefold()
    new = None if to is None else learner_name(to)
    names = [name for name, _ in _learners_drills(results) if name.casefold() == old]
    if not names:
        known = ", ".join(learners(results)) or "none yet"
        raise FlashError(f"{results} holds no drill of {learner_name(learner)}'s (the learners: {known})")

    def renamed(event: dict[str, Any]) -> dict[str, Any] | None:
        name = event.get("learner")
        return {**event, "learner": new} if isinstance(name, str) and name.casefold() == old else None

    edit_events(results, "flash", renamed)
    return names[-1], len(names)


LEARNER_LONGEST = 40


def learner_name(text: str) -> str:
    """A learner's name as given, each run of spaces made one and those round it taken off; a FlashError where
    it is empty, too long, or holds a character that is not printed (a line break, a tab)."""
    name = re.sub(" +", " ", text).strip(" ")
    if not name.isprintable():
        raise FlashError("a learner's name is one line of printed characters")
    if not 1 <= len(name) <= LEARNER_LONGEST:
        raise FlashError(f"a learner's name is 1 to {LEARNER_LONGEST} characters, not {len(name)}")
    return name


def planned_drill(digits: int, seed: int, learner: str | None, results: Path | None) -> FlashDrill:
    """The first `digits` decimals shuffled by `seed`; for a learner, the decimals their memory in `results` has
    due (rules/flash_memory.py)."""
    if learner is None:
        return new_drill(digits, seed)
    name = learner_name(learner)
    if results is None:
        raise FlashError("a learner's drills are remembered in a results file: give --record FILE")
    return remembered_drill(name, learner_memory(results, name), seed)


def flash_game(drill: FlashDrill) -> DeckoGame:
    """Flash cards as a film of `drill` is refereed. The drill starts as if an answer lay on the table: a card
    there before the first question answers nothing, and the question comes once the table is seen empty."""
    start = replace(drill, waiting=True)
    return DeckoGame(
        name="flash",
        read=answers_in,
        judge=lambda before, cards: seen(start if before is None else before, cards),
        ended=lambda drill: "answered" if drill.over else None,
        short=flash_short,
        said=flash_lines,
        nothing=("no frame of the table", "film the table where the card is laid"),
    )
