"""The games played in the hand, refereed from the game written down (rules/game_log.py): the bluffing game's
challenges settled, the passing game's cards checked along pi, each game's score and whose turn it is."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from rules import bluffing, passing
from rules.bluffing import Standing, Turn, leaders, standings
from rules.decko import card_text
from rules.game_log import Replay
from rules.pi import PI_DECIMALS
from server.app import counted, fail, judge_app

ORDINALS = ("1st", "2nd", "3rd")


def decimal(place: int) -> str:
    """'the 2nd decimal', 'the 11th decimal'."""
    n = place + 1
    suffix = ORDINALS[n % 10 - 1][1:] if n % 10 in (1, 2, 3) and n % 100 not in (11, 12, 13) else "th"
    return f"the {n}{suffix} decimal"


def turn_line(number: int, turn: Turn) -> str:
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


@dataclass(frozen=True)
class Told:
    """How a game played in the hand is told: its log replayed, each turn in a referee's words, where the game
    stands, who plays next (or how it ended), and the whole as JSON."""

    judge: Callable[[str], Replay]
    turn: Callable[[int, Any], str]
    standing: Callable[[Replay], list[str]]
    upcoming: Callable[[Replay], str]
    as_json: Callable[[Replay], dict]

    def lines(self, played: Replay) -> list[str]:
        turns = [self.turn(number, turn) for number, turn in enumerate(played.turns, start=1)]
        return [*turns, *self.standing(played), self.upcoming(played)]


LOG_HELP = (
    "The game written down, a {turn} a line: a text file, or - to read it whole from a pipe. Without it, the "
    "game is typed as it is played, each line judged at once. It starts 'players: Ann Bob Cem' in seat order (the "
    "first plays first); 'hand: 5' sets the hand size, 'end: why' ends the game by the players' word, # starts a "
    "comment. {turns}"
)


def log_argument(turn: str, turns: str) -> Any:
    return typer.Argument(None, metavar="[LOG]", help=LOG_HELP.format(turn=turn, turns=turns), show_default=False)


SAVE_OPTION = typer.Option(
    None,
    "--save",
    help="Typing the game: keep each line the rules allow in this file the moment it is typed, so that nothing "
    "is lost; if the file holds a game already, it goes on from there.",
)


def referee(log: str | None, told: Told, as_json: bool, save: Path | None) -> None:
    if log is None:
        play_along(told, save)
        return
    if save is not None:
        fail("--save keeps a game typed as it is played; a LOG given is a game written down already")
        raise typer.Exit(code=2)
    judged_log(log, told, as_json)


def judged_log(log: str, told: Told, as_json: bool) -> None:
    """Read the log at `log` (- for standard input), replay it and print it; a log that cannot be read is one
    line and exit code 1 (no file) or 2 (no game), a turn the rules refuse is named after the turns before it."""
    try:
        text = sys.stdin.read() if log == "-" else Path(log).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{log}: cannot be read as a text file ({exc}); give the game log's path, or - for standard input")
        raise typer.Exit(code=1) from exc
    try:
        played = told.judge(text)
    except ValueError as exc:  # the log's or the table's
        fail(f"{log}: {exc}")
        raise typer.Exit(code=2) from exc
    for line in [json.dumps(told.as_json(played))] if as_json else told.lines(played):
        typer.echo(line)
    if played.error:
        fail(f"{log}: {played.error}; what comes before it stands: mend that line and judge the log again")
        raise typer.Exit(code=2)


def play_along(told: Told, save: Path | None) -> None:
    """The game typed as it is played (standard input, a line at a time): each line the rules allow is kept and
    its turn said at once with who plays next; a line they refuse is said why and dropped, to be typed again
    (the exit code is then 2). Ctrl-D (or 'end: why') ends it with where the game stands."""
    kept, refusals = _saved(save), 0
    played = _judged(told, kept)
    if played is not None:
        typer.echo(f"tableref: {save}: the game goes on from its {counted(len(played.turns), 'turn')}", err=True)
        typer.echo(told.upcoming(played))
    elif sys.stdin.isatty():
        typer.echo("tableref: type the game a line at a time, 'players: Ann Bob Cem' first; Ctrl-D ends", err=True)
    for raw in sys.stdin:
        line = raw.rstrip("\r\n")
        try:
            trial = _judged(told, [*kept, line])
            refused = trial.error if trial is not None else None
        except ValueError as exc:
            trial, refused = None, str(exc)
        if refused:
            fail(f"{refused}; not kept: type it again")
            refusals += 1
            continue
        kept.append(line)
        if save is not None:
            with save.open("a", encoding="utf-8") as out:
                out.write(line + "\n")
        if trial is None or not line.split("#", 1)[0].strip():
            continue  # a blank line or a comment: nothing new to say
        done = len(played.turns) if played is not None else 0
        played = trial
        for number, turn in enumerate(played.turns[done:], start=done + 1):
            typer.echo(told.turn(number, turn))
        typer.echo(told.upcoming(played))
        if played.game.over:
            break
    if played is None:
        fail("no game was typed: it starts 'players: Ann Bob Cem'")
        raise typer.Exit(code=2)
    for line in told.standing(played):
        typer.echo(line)
    if refusals:
        raise typer.Exit(code=2)  # said line by line above; the game kept stands


def _judged(told: Told, lines: list[str]) -> Replay | None:
    """The game the lines typed so far make; None while they hold nothing but blanks and comments."""
    if not any(line.split("#", 1)[0].strip() for line in lines):
        return None
    return told.judge("\n".join(lines))


def _saved(save: Path | None) -> list[str]:
    """The lines of a game kept before in `save` (none if it does not exist yet)."""
    if save is None or not save.exists():
        return []
    try:
        return save.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{save}: cannot be read as a game's log ({exc}); give --save a new file")
        raise typer.Exit(code=1) from exc


@judge_app.command("bluff")
def judge_bluff(
    log: str | None = log_argument(
        "turn",
        "Each turn is 'bluff' (nobody challenged) or 'challenge: Bob Cem; strengthen: Ann Bob; reveal: Ann=7 "
        "Bob=2/7' (who challenged, who placed another card in each round, the initial bluffs turned up at the "
        "Reveal).",
    ),
    bluff_worth: int = typer.Option(
        1, "--bluff-worth", min=1, help="Points for each bluff left standing (the house rule makes it more than 1)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the game written down as JSON."),
    save: Path | None = SAVE_OPTION,
) -> None:
    """Decko Digits' bluffing game: each turn settled by the rules (the strongest bluff after each strengthening
    round, else the Reveal: the current player's card, then the others', a Digit card before a Wild), where
    every card went, the score and whose turn it is. A turn the rules do not allow is named; the turns before it
    stand. The cards lie face down, so the game is told, not filmed: written down, or typed as it is played."""
    told = Told(
        lambda text: bluffing.replay_log(bluffing.read_log(text)),
        turn_line,
        lambda played: bluff_standing(played, bluff_worth),
        lambda played: bluff_upcoming(played, bluff_worth),
        lambda played: bluff_json(played, bluff_worth),
    )
    referee(log, told, as_json, save)


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


@judge_app.command("pass")
def judge_pass(
    log: str | None = log_argument(
        "try",
        "The first is the First Player's '3. -> Cem' (the Starter given); then each is the holder's "
        "'[draws N;] [trade NAME;] CARD -> NAME' (the card passed for the next decimal, e.g. 'draws 2; 4 -> Ann') "
        "or '[draws 3;] [trade NAME;] return' (no match: the card received goes back).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the game written down as JSON."),
    save: Path | None = SAVE_OPTION,
) -> None:
    """Decko Digits' passing game: each try checked by the rules (the card passed fits the decimal called, up to
    three draws before a trade or a failure, a failed card back to its giver), the decimals passed, every hand
    and the Deck, and whose try it is, or who wins with the fewest cards. A try the rules do not allow is named;
    the tries before it stand. The cards go hand to hand, so the game is told, not filmed: written down, or typed
    as it is played."""
    told = Told(
        lambda text: passing.replay_log(passing.read_log(text)), try_line, pass_standing, pass_upcoming, pass_json
    )
    referee(log, told, as_json, save)


def try_line(number: int, tried: passing.Tried) -> str:
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
