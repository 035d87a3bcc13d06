"""Grid o' Digits' judge: reveals checked against pi's decimals, the fives kept face up, whose turn it is and who
won; typed, from a photo of the grid, or refereed as a film of the game is played."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from rules.grid_digits import GRID_CARDS, GridError, new_game, play
from server.app import RECORD_OPTION, fail, film_only, judge_app, load_photo, photo_or_film_argument
from server.decko_games import face_up_in, grid_game, grid_lines, run_video_game, turn_lines
from vision.cards.grid import GridView
from vision.sources import is_film


@judge_app.command("grid")
def judge_grid(
    photo: str | None = photo_or_film_argument(
        "the grid, its cards face down or up", "a game to referee as it is played"
    ),
    reveals: str | None = typer.Option(
        None, "--reveals", help="Judge typed reveals instead, in the order turned up: '1 4 1 5 9 2 7'."
    ),
    cards: int = typer.Option(GRID_CARDS, "--cards", help="Cards in the grid (the house rule: any multiple of 5)."),
    players: int = typer.Option(2, "--players", help="Players taking turns, the first to reveal first."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    record: Path | None = RECORD_OPTION,
) -> None:
    """Decko Digits' Grid o' Digits: each card revealed checked against the next decimal of pi, a wrong card ends
    the turn (its turn's cards go back face down), every five right in a row stay face up, and whoever reveals
    the last card wins.

    A video, a camera or a stream is the game filmed from above: start it with the grid face down; each reveal is
    judged as the grid settles (a hand over it changes nothing) until the grid is all face up, the film ends or
    Ctrl-C. A photo says which cards are face up and what they make of pi. The Starter may lie beside the grid."""
    if (photo is None) == (reveals is None):
        fail("give a photo or film of the grid or --reveals, one of them")
        raise typer.Exit(code=2)
    film_only(record, photo)
    try:
        start = new_game(cards, players)
        if reveals is not None:
            game = play(_typed(reveals), cards, players)
    except GridError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    if photo is not None and is_film(photo):
        run_video_game(photo, grid_game(cards, players), as_json, record)
        return
    if reveals is not None:
        lines, extra = [*turn_lines(game), *grid_lines(game)], {}
    else:
        assert photo is not None
        shown = _read_photo(Path(photo))
        game = GridView(start).found(shown).game
        digits = [card.digit for card in shown]
        lines = ["face up: " + (" ".join(map(str, digits)) or "none"), *grid_lines(game, whose=False)]
        extra = {"face_up": digits}
    if as_json:
        typer.echo(json.dumps({**game.to_json(), **extra}))
        return
    for line in lines:
        typer.echo(line)


def _typed(text: str) -> list[int]:
    parts = text.replace(",", " ").split()
    if not all(part in "0123456789" and len(part) == 1 for part in parts):
        raise GridError(f"--reveals: type the digits revealed apart by spaces, e.g. '1 4 1 5 9', not {text!r}")
    return [int(part) for part in parts]


def _read_photo(photo: Path) -> tuple:
    from vision.cards.recognize import CardRecognizer

    return face_up_in(CardRecognizer(), load_photo(photo))
