"""The games played in the hand, told in a referee's words: the bluffing game's challenges settled and the passing
game's cards checked along pi (rules/bluffing.py, rules/passing.py), each turn, where the game stands and who
plays next, for the command line and the dashboard alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rules import bluffing, passing
from rules.bluffing import Standing, Turn, leaders, standings
from rules.decko import card_text
from rules.game_log import Replay
from rules.pi import PI_DECIMALS
from server.app import counted


@dataclass(frozen=True)
class Told:
    """How a game played in the hand is told: its log replayed, each turn in a referee's words, where the game
    stands, who plays next (or how it ended), and the whole as JSON."""

    judge: Callable[[str], Replay]
    turn: Callable[[int, Any], str]
    standing: Callable[[Replay], list[str]]
    upcoming: Callable[[Replay], str]
    as_json: Callable[[Replay], dict]
    syntax: str  # how a turn is written
    noun: str = "turn"  # what the game calls a turn

    def lines(self, played: Replay) -> list[str]:
        turns = [self.turn(number, turn) for number, turn in enumerate(played.turns, start=1)]
        return [*turns, *self.standing(played), self.upcoming(played)]

    def judged(self, lines: list[str]) -> Replay | None:
        """The game the lines typed so far make; None while they hold nothing but blanks and comments."""
        if not any(_said(line) for line in lines):
            return None
        return self.judge("\n".join(lines))

    def tried(self, lines: list[str], line: str) -> tuple[Replay | None, str | None]:
        """The game once `line` is typed after `lines`, or why the rules refuse it."""
        try:
            trial = self.judged([*lines, line])
        except ValueError as exc:  # the log's or the table's
            return None, str(exc)
        return (None, trial.error) if trial is not None and trial.error else (trial, None)

    def news(self, before: Replay | None, after: Replay | None, line: str) -> tuple[list[Any], list[str]]:
        """What typing `line` turned `before` into `after`: the turns it settled, and in words each of them, then
        who plays next (nothing for a blank line or a comment)."""
        if after is None or not _said(line):
            return [], []
        done = len(before.turns) if before is not None else 0
        if before is not None and (len(after.turns) < done or (before.game.over and not after.game.over)):
            undone = f"{self.noun} {done}" if len(after.turns) < done else "the end"
            return [], [f"{undone} taken back", self.upcoming(after)]
        turns = list(after.turns[done:])
        return turns, [*(self.turn(n, turn) for n, turn in enumerate(turns, start=done + 1)), self.upcoming(after)]


def _said(line: str) -> bool:
    """Whether a line of a log says anything (not blank, not only a comment)."""
    return bool(line.split("#", 1)[0].strip())


BLUFF_TURNS = (
    "Each turn is 'bluff' (nobody challenged) or 'challenge: Bob Cem; strengthen: Ann Bob; reveal: Ann=7 Bob=2/7' "
    "(who challenged, who placed another card in each round, the initial bluffs turned up at the Reveal)."
)
PASS_TRIES = (
    "The first is the First Player's '3. -> Cem' (the Starter given); then each is the holder's "
    "'[draws N;] [trade NAME;] CARD -> NAME' (the card passed for the next decimal, e.g. 'draws 2; 4 -> Ann') "
    "or '[draws 3;] [trade NAME;] return' (no match: the card received goes back)."
)
HAND_GAMES = ("bluff", "pass")


def hand_game(game: str, bluff_worth: int = 1) -> Told:
    """How `game` (bluff or pass) is told, with a bluff standing worth `bluff_worth` points."""
    if game == "bluff":
        return Told(
            lambda text: bluffing.replay_log(bluffing.read_log(text)),
            bluff_turn,
            lambda played: bluff_standing(played, bluff_worth),
            lambda played: bluff_upcoming(played, bluff_worth),
            lambda played: bluff_json(played, bluff_worth),
            BLUFF_TURNS,
        )
    if game == "pass":
        return Told(
            lambda text: passing.replay_log(passing.read_log(text)),
            pass_try,
            pass_standing,
            pass_upcoming,
            pass_json,
            PASS_TRIES,
            "try",
        )
    raise ValueError(f"not a game played in the hand: {game} (one of {', '.join(HAND_GAMES)})")


ORDINALS = ("1st", "2nd", "3rd")


def decimal(place: int) -> str:
    """'the 2nd decimal', 'the 11th decimal'."""
    n = place + 1
    suffix = ORDINALS[n % 10 - 1][1:] if n % 10 in (1, 2, 3) and n % 100 not in (11, 12, 13) else "th"
    return f"the {n}{suffix} decimal"


def bluff_turn(number: int, turn: Turn) -> str:
    """One turn in a referee's words."""
    head = f"turn {number}, {turn.player}, {decimal(turn.place)} ({turn.digit}): "
    if turn.challenge is None:
        return head + f"not challenged; {turn.player}'s card stays face down (a bluff)"
    challenged = f"challenged by {', '.join(turn.challenge.challengers)}; "
    if turn.settled_by == "strength":
        (winner,) = turn.winners
        said = f"{winner}'s bluff is the strongest after round {turn.round} ({counted(turn.placed[winner], 'card')})"
        return head + challenged + f"{said}: {winner} wins {counted(turn.won[winner], 'card')}, bluff stays face down"
    shown = ", ".join(f"{name} {card_text(card)}" for name, card in turn.challenge.revealed.items())
    if turn.settled_by == "nobody":
        back = f"the {counted(turn.to_deck, 'card')} placed go back into the Deck; {decimal(turn.place)} is needed"
        return head + challenged + f"revealed {shown}: none fits {turn.digit}, nobody wins; {back}"
    won = " and ".join(f"{name} wins {counted(n, 'card')}" for name, n in turn.won.items())
    back = f"; {counted(turn.to_deck, 'card')} back into the Deck" if turn.to_deck else ""
    laid = f"{turn.appended.owner}'s {card_text(turn.appended.card)} appended face up"
    return head + challenged + f"revealed {shown}: {won}{back}; {laid}"


def standing_line(standing: Standing, bluff_worth: int) -> str:
    bluffs = counted(standing.bluffs, "bluff")
    worth = f" worth {bluff_worth}" if bluff_worth != 1 and standing.bluffs else ""
    return f"{standing.player}: {standing.score} ({counted(standing.won, 'card')} won, {bluffs} standing{worth})"


def bluff_json(played: Replay, bluff_worth: int) -> dict:
    game, table = played.game, standings(played.game, bluff_worth)
    line = [None if c.card is None else card_text(c.card) for c in game.line]
    upcoming = None if game.over else {"player": game.current, "decimal": game.place + 1, "digit": game.digit}
    return {
        "players": list(game.players),
        "turns": [turn.to_json() for turn in played.turns],
        "line": [{"owner": c.owner, "face_up": shown} for c, shown in zip(game.line, line, strict=True)],
        "hands": dict(zip(game.players, game.hands, strict=True)),
        "deck": game.deck,
        "standings": [s.to_json() for s in table],
        "over": game.over,
        "winners": leaders(table) if game.over else None,
        "next": upcoming,
        "error": played.error,
    }


def bluff_standing(played: Replay, bluff_worth: int) -> list[str]:
    game = played.game
    shown = " ".join("?" if c.card is None else card_text(c.card) for c in game.line)
    table = standings(game, bluff_worth)
    return [
        f"line: 3. {shown}".rstrip() + f" ({counted(len(game.line), 'card')} after the Starter)",
        "scores:",
        *(f"  {standing_line(s, bluff_worth)}" for s in table),
    ]


def bluff_upcoming(played: Replay, bluff_worth: int) -> str:
    game = played.game
    if game.over:
        return f"game over: {game.over}; {_won(leaders(standings(game, bluff_worth)))}"
    return f"next: {game.current} states {decimal(game.place)} ({game.digit})"


def _won(best: list[str]) -> str:
    return f"{best[0]} wins" if len(best) == 1 else f"{' and '.join(best)} tie"


def pass_try(number: int, tried: passing.Tried) -> str:
    move, head = tried.move, f"try {number}, {tried.player}: "
    searched = [f"draws {move.draws}"] if move.draws else []
    searched += [f"trades with {move.trade}"] if move.trade else []
    if tried.returned is not None:
        back = tried.returned
        shown = passing.STARTER if back.card is None else card_text(back.card)
        again = "the Starter" if tried.place is None else decimal(tried.place)
        return head + ", ".join([*searched, f"no match: {shown} back to {back.giver}, who passes {again} again"])
    if tried.place is None:
        return head + f'"Three point!", the Starter to {move.to}'
    passed = f"{card_text(move.card)} for {decimal(tried.place)} ({PI_DECIMALS[tried.place]}) to {move.to}"
    return head + ", ".join([*searched, passed + ("" if tried.replacement else ", no replacement: the Deck is gone")])


def pass_standing(played: Replay) -> list[str]:
    game = played.game
    called = "".join(str(d) for d in PI_DECIMALS[: game.recited])
    hands = ", ".join(f"{name} {n}" for name, n in zip(game.players, game.hands, strict=True))
    return [f"passed: 3.{called} ({counted(game.recited, 'decimal')})", f"hands: {hands}; Deck {game.deck}"]


def pass_upcoming(played: Replay) -> str:
    game = played.game
    if game.over:
        return f"game over: {game.over}; {_won(game.winners())} with the fewest cards"
    if game.chain:
        return f"next: {game.holder} passes {decimal(game.recited)} ({PI_DECIMALS[game.recited]})"
    return f'next: {game.holder} calls "Three point!" and gives the Starter'


def pass_json(played: Replay) -> dict:
    game = played.game
    upcoming = None if game.over else {"player": game.holder, "decimal": game.recited + 1 if game.chain else None}
    return {
        "players": list(game.players),
        "tries": [tried.to_json() for tried in played.turns],
        "passed": game.recited,
        "hands": dict(zip(game.players, game.hands, strict=True)),
        "deck": game.deck,
        "over": game.over,
        "winners": game.winners() if game.over else None,
        "next": upcoming,
        "error": played.error,
    }
