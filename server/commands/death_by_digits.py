"""Death by Digits: the deal for a table of players, and what a combo played to the Evidence does."""

from __future__ import annotations

import json

import typer

from rules.death_by_digits import (
    MURDER_CARDS,
    ComboVerdict,
    DeathByDigitsError,
    IfNothing,
    Rounding,
    Setup,
    combo,
    setup,
)
from server.app import fail, judge_app

OTHERWISE = {
    IfNothing.NOTHING: "nothing happens",
    IfNothing.FLIP: "nothing happens, so flip one Evidence card (face up <-> face down)",
    IfNothing.LOOK: "nothing happens, so look privately at one face-down Evidence card",
    IfNothing.DRAW: "nothing happens, so draw a card from the draw pile",
}


def setup_lines(game: Setup, rounding: Rounding, if_nothing: IfNothing) -> list[str]:
    """The deal in a referee's words: which cards, how many to each, the Murder, the Evidence, the Midnumber."""
    rest = "face down as the Evidence"
    if if_nothing is IfNothing.DRAW:
        rest = "face down as a draw pile; the Evidence starts empty"
    return [
        f"Death by Digits, {game.players} players: cards 1 to {game.highest}, three of each ({game.deck} cards)",
        f"deal {game.hand} cards to each player, {MURDER_CARDS} face down to the side as the Murder, "
        f"the other {game.evidence} {rest}",
        f"Midnumber: {game.midnumber} ({game.highest} / 2, rounded {rounding.value})",
    ]


def combo_line(verdict: ComboVerdict, game: Setup) -> str:
    """What the combo does, and why."""
    cards = " ".join(map(str, verdict.cards))
    if verdict.effect == "steal":
        number = verdict.cards[0]
        does = f'steal 3 random cards from other players, unless a player holding a {number} calls "Stop!" first'
    elif verdict.effect == "take":
        does = f"{verdict.made} = {game.midnumber}, the Midnumber: take 2 cards from the Evidence"
    elif verdict.effect == "peek":
        does = "three of a kind: look at 1 of the Murder cards"
    elif len(verdict.cards) == 2:
        low, high = sorted(verdict.cards)
        why = f"{low} + {high} = {low + high} and {high} - {low} = {high - low}, neither the Midnumber {game.midnumber}"
        does = f"{why}: {OTHERWISE[verdict.if_nothing]}"
    else:
        does = f"not three of a kind: {OTHERWISE[verdict.if_nothing]}"
    return f"combo {cards}: {does}"


def _numbers(text: str) -> list[int]:
    parts = text.replace(",", " ").split()
    if not parts or not all(part.isdigit() for part in parts):
        raise DeathByDigitsError(f"--combo takes the cards' numbers, e.g. '4 1', got {text!r}")
    return [int(part) for part in parts]


@judge_app.command("death-by-digits")
def judge_death_by_digits(
    players: int = typer.Argument(..., help="How many play (2 to 4: the deal does not fit more)."),
    combo_played: str | None = typer.Option(
        None, "--combo", help="The 1, 2 or 3 cards a player plays face up to the Evidence, e.g. '4 1'."
    ),
    if_nothing: IfNothing = typer.Option(
        IfNothing.NOTHING.value,
        "--if-nothing",
        help="The variant for a combo that does nothing: nothing (the base game), flip an Evidence card, look at "
        "one, or draw a card (the cards left after the deal are then a draw pile, and the Evidence starts empty).",
    ),
    rounding: Rounding = typer.Option(
        Rounding.UP.value, "--round", help="How the Midnumber (the highest card / 2) is rounded when it is a half."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the deal (and the combo's verdict) as JSON."),
) -> None:
    """Death by Digits: the deal for PLAYERS (which cards, how many to each, the Murder, the Evidence, the
    Midnumber), and with --combo what the cards played do."""
    try:
        game = setup(players, rounding)
        verdict = combo(_numbers(combo_played), game, if_nothing) if combo_played is not None else None
    except DeathByDigitsError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    if as_json:
        typer.echo(json.dumps({"setup": game.to_json(), "combo": verdict.to_json() if verdict else None}))
        return
    for line in setup_lines(game, rounding, if_nothing):
        typer.echo(line)
    if verdict is not None:
        typer.echo(combo_line(verdict, game))
