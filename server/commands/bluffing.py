"""The bluffing game's referee: a game written down turn by turn, each challenge settled, the line, the scores
and whose turn it is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from rules.bluffing import BluffingError, Standing, Turn, leaders, read_log, replay_log, standings
from rules.decko import card_text
from rules.game_log import GameLogError, Replay
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


def replay_json(played: Replay, bluff_worth: int) -> dict:
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


@judge_app.command("bluff")
def judge_bluff(
    log: str = typer.Argument(
        ...,
        metavar="LOG",
        help="The game written down, a turn a line (a text file, or - to read it from the keyboard or a pipe). "
        "It starts 'players: Ann Bob Cem' in seat order; then each turn is 'bluff' (nobody challenged) or "
        "'challenge: Bob Cem; strengthen: Ann Bob; reveal: Ann=7 Bob=2/7' (who challenged, who placed another "
        "card in each round, the initial bluffs turned up at the Reveal). 'hand: 5' sets the hand size; "
        "'end: why' ends the game by the players' word; # starts a comment.",
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
    try:
        text = sys.stdin.read() if log == "-" else Path(log).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{log}: cannot be read as a text file ({exc}); give the game log's path, or - for standard input")
        raise typer.Exit(code=1) from exc
    try:
        played = replay_log(read_log(text))
    except (GameLogError, BluffingError) as exc:
        fail(f"{log}: {exc}")
        raise typer.Exit(code=2) from exc
    if as_json:
        typer.echo(json.dumps(replay_json(played, bluff_worth)))
    else:
        for text in game_lines(played, bluff_worth):
            typer.echo(text)
    if played.error:
        fail(f"{log}: {played.error}; the turns before it stand, fix it and judge the log again")
        raise typer.Exit(code=2)


def game_lines(played: Replay, bluff_worth: int) -> list[str]:
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
