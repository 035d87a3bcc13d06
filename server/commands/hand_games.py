"""The games played in the hand, refereed on the command line from the game written down (rules/game_log.py) or
typed as it is played: the bluffing game's challenges settled, the passing game's cards checked along pi."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from server.app import counted, fail, judge_app
from server.hand_games import BLUFF_TURNS, PASS_TRIES, Told, hand_game

LOG_HELP = (
    "The game written down, a {turn} a line: a text file, or - to read it whole from a pipe. Without it, the "
    "game is typed as it is played, each line judged at once. It starts 'players: Ann Bob Cem' in seat order (the "
    "first plays first); 'hand: 5' sets the hand size, 'end: why' ends the game by the players' word, 'undo' takes "
    "back the {turn} before it, # starts a comment. {turns}"
)


def log_argument(turn: str, turns: str) -> Any:
    return typer.Argument(None, metavar="LOG", help=LOG_HELP.format(turn=turn, turns=turns), show_default=False)


SAVE_OPTION = typer.Option(
    None,
    "--save",
    help="Typing the game: keep each line the rules allow in this file the moment it is typed, so that nothing "
    "is lost; if the file holds a game already, it goes on from there.",
)


def referee(log: str | None, told: Told, as_json: bool, save: Path | None) -> None:
    if log is None:
        if as_json:
            fail("--json prints a game written down (LOG, or - for a pipe); a game typed is told line by line")
            raise typer.Exit(code=2)
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
    played = told.judged(kept)
    if played is not None:
        typer.echo(f"tableref: {save}: the game goes on from its {counted(len(played.turns), 'turn')}", err=True)
        typer.echo(told.upcoming(played))
    elif sys.stdin.isatty():
        typer.echo("tableref: type the game a line at a time, 'players: Ann Bob Cem' first; Ctrl-D ends", err=True)
    for raw in sys.stdin:
        line = raw.rstrip("\r\n")
        trial, refused = told.tried(kept, line)
        if refused:
            fail(f"{refused}; not kept: type it again")
            refusals += 1
            continue
        if save is not None:  # saved first: a line the file does not hold is not taken as played
            try:
                with save.open("a", encoding="utf-8") as out:
                    out.write(line + "\n")
            except OSError as exc:
                fail(f"{save}: the line could not be saved ({exc.strerror}); not kept: type it again")
                refusals += 1
                continue
        kept.append(line)
        said = told.news(played, trial, line)[1]
        played = trial if trial is not None else played
        for text in said:
            typer.echo(text)
        if played is not None and played.game.over:
            break
    if played is None:
        fail("no game was typed: it starts 'players: Ann Bob Cem'")
        raise typer.Exit(code=2)
    for line in told.standing(played):
        typer.echo(line)
    if refusals:
        raise typer.Exit(code=2)  # said line by line above; the game kept stands


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
    log: str | None = log_argument("turn", BLUFF_TURNS),
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
    referee(log, hand_game("bluff", bluff_worth), as_json, save)


@judge_app.command("pass")
def judge_pass(
    log: str | None = log_argument("try", PASS_TRIES),
    as_json: bool = typer.Option(False, "--json", help="Print the game written down as JSON."),
    save: Path | None = SAVE_OPTION,
) -> None:
    """Decko Digits' passing game: each try checked by the rules (the card passed fits the decimal called, up to
    three draws before a trade or a failure, a failed card back to its giver), the decimals passed, every hand
    and the Deck, and whose try it is, or who wins with the fewest cards. A try the rules do not allow is named;
    the tries before it stand. The cards go hand to hand, so the game is told, not filmed: written down, or typed
    as it is played."""
    referee(log, hand_game("pass"), as_json, save)
