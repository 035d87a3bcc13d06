"""The games played in the hand, refereed from the game written down (rules/game_log.py): the bluffing game's
challenges settled, the passing game's cards checked along pi, each game's score and whose turn it is."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
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


LOG_HELP = (
    "The game written down, a {turn} a line (a text file, or - to read it from the keyboard or a pipe). It starts "
    "'players: Ann Bob Cem' in seat order (the first plays first); 'hand: 5' sets the hand size, 'end: why' ends "
    "the game by the players' word, # starts a comment. {turns}"
)


def log_argument(turn: str, turns: str) -> Any:
    return typer.Argument(..., metavar="LOG", help=LOG_HELP.format(turn=turn, turns=turns))


def judged_log(
    log: str,
    judge: Callable[[str], Replay],
    said: Callable[[Replay], list[str]],
    as_json: Callable[[Replay], dict] | None,
) -> None:
    """Read the log at `log` (- for standard input), replay it and print it; a log that cannot be read is one
    line and exit code 1 (no file) or 2 (no game), a turn the rules refuse is named after the turns before it."""
    try:
        text = sys.stdin.read() if log == "-" else Path(log).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{log}: cannot be read as a text file ({exc}); give the game log's path, or - for standard input")
        raise typer.Exit(code=1) from exc
    try:
        played = judge(text)
    except ValueError as exc:  # the log's or the table's
        fail(f"{log}: {exc}")
        raise typer.Exit(code=2) from exc
    if as_json is not None:
        typer.echo(json.dumps(as_json(played)))
    else:
        for line in said(played):
            typer.echo(line)
    if played.error:
        fail(f"{log}: {played.error}; what comes before it stands: mend that line and judge the log again")
        raise typer.Exit(code=2)


@judge_app.command("bluff")
def judge_bluff(
    log: str = log_argument(
        "turn",
        "Each turn is 'bluff' (nobody challenged) or 'challenge: Bob Cem; strengthen: Ann Bob; reveal: Ann=7 "
        "Bob=2/7' (who challenged, who placed another card in each round, the initial bluffs turned up at the "
        "Reveal).",
    ),
    bluff_worth: int = typer.Option(
        1, "--bluff-worth", min=1, help="Points for each bluff left standing (the house rule makes it more than 1)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the game as JSON."),
) -> None:
    """Decko Digits' bluffing game: each turn of the game as written settled by the rules (the strongest bluff
    after each strengthening round, else the Reveal: the current player's card, then the others', a Digit card
    before a Wild), where every card went, the score and whose turn it is. A turn the rules do not allow is
    named; the turns before it stand. The cards lie face down, so the game is told, not filmed."""
    judged_log(
        log,
        lambda text: bluffing.replay_log(bluffing.read_log(text)),
        lambda played: bluff_lines(played, bluff_worth),
        (lambda played: bluff_json(played, bluff_worth)) if as_json else None,
    )


def bluff_lines(played: Replay, bluff_worth: int) -> list[str]:
    game = played.game
    lines = [turn_line(number, turn) for number, turn in enumerate(played.turns, start=1)]
    shown = " ".join("?" if c.card is None else card_text(c.card) for c in game.line)
    lines.append(f"line: 3. {shown}".rstrip() + f" ({counted(len(game.line), 'card')} after the Starter)")
    table = standings(game, bluff_worth)
    lines += ["scores:", *(f"  {standing_line(s, bluff_worth)}" for s in table)]
    if game.over:
        best = leaders(table)
        won = f"{best[0]} wins" if len(best) == 1 else f"{' and '.join(best)} tie"
        lines.append(f"game over: {game.over}; {won}")
    else:
        lines.append(f"next: {game.current} states {decimal(game.place)} ({game.digit})")
    return lines


@judge_app.command("pass")
def judge_pass(
    log: str = log_argument(
        "try",
        "The first is the First Player's '3. -> Cem' (the Starter given); then each is the holder's "
        "'[draws N;] [trade NAME;] CARD -> NAME' (the card passed for the next decimal, e.g. 'draws 2; 4 -> Ann') "
        "or '[draws 3;] [trade NAME;] return' (no match: the card received goes back).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the game as JSON."),
) -> None:
    """Decko Digits' passing game: each try of the game as written checked by the rules (the card passed fits
    the decimal called, up to three draws before a trade or a failure, a failed card back to its giver), the
    decimals passed, every hand and the Deck, and whose try it is, or who wins with the fewest cards. A try the
    rules do not allow is named; the tries before it stand. The cards go hand to hand, so the game is told, not
    filmed."""
    judged_log(
        log,
        lambda text: passing.replay_log(passing.read_log(text)),
        pass_lines,
        pass_json if as_json else None,
    )


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


def pass_lines(played: Replay) -> list[str]:
    game = played.game
    lines = [try_line(number, tried) for number, tried in enumerate(played.turns, start=1)]
    called = "".join(str(d) for d in PI_DECIMALS[: game.recited])
    lines.append(f"passed: 3.{called} ({counted(game.recited, 'decimal')})")
    hands = ", ".join(f"{name} {n}" for name, n in zip(game.players, game.hands, strict=True))
    lines.append(f"hands: {hands}; Deck {game.deck}")
    if game.over:
        best = game.winners()
        won = f"{best[0]} wins" if len(best) == 1 else f"{' and '.join(best)} tie"
        lines.append(f"game over: {game.over}; {won} with the fewest cards")
    elif game.chain:
        lines.append(f"next: {game.holder} passes {decimal(game.recited)} ({PI_DECIMALS[game.recited]})")
    else:
        lines.append(f'next: {game.holder} calls "Three point!" and gives the Starter')
    return lines


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
