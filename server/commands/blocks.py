"""The block game's judge: the sets of five cards on the table and the blocks of pi they make."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from rules.blocks import judge_sets
from rules.decko import DeckoCard, DeckoCardError, parse_cards
from server.app import (
    RECORD_OPTION,
    annotate_option,
    fail,
    film_only,
    judge_app,
    load_photo,
    photo_or_film_argument,
    write_image,
)
from server.decko_games import BLOCK_GAME, block_lines, run_video_game
from vision.sources import is_film


@judge_app.command("blocks")
def judge_blocks(
    photo: str | None = photo_or_film_argument(
        "the sets of five cards set down, each in a row", "a game to referee as the sets are set down"
    ),
    sets: str | None = typer.Option(
        None, "--sets", help="Judge typed sets instead of a photo, apart by semicolons: '1 4 1 5 9; 2 6 5 3 0/5'."
    ),
    in_order: bool = typer.Option(False, "--in-order", help="A set must lie in its block's order, left to right."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    annotate: Path | None = annotate_option("each card's place in its set"),
    record: Path | None = RECORD_OPTION,
) -> None:
    """Decko Digits' block game: which of the Reference card's ten five-digit blocks each set of five cards
    makes (Wilds standing for either digit, in any order unless --in-order), each block counted once, and how
    many blocks are set down. A video, a camera or a stream is the game filmed: the table is judged each time
    its sets settle (a hand laying a card changes nothing), until the film ends or Ctrl-C."""
    if (photo is None) == (sets is None):
        fail("give a photo of the sets or --sets, one of them")
        raise typer.Exit(code=2)
    film_only(record, photo)
    if photo is not None and is_film(photo):
        if annotate is not None or in_order:
            fail("--annotate and --in-order are for a photo or typed sets")
            raise typer.Exit(code=2)
        run_video_game(photo, BLOCK_GAME, as_json, record)
        return
    if sets is not None:
        try:
            laid = [parse_cards(part) for part in sets.split(";") if part.strip()]
        except DeckoCardError as exc:
            fail(f"--sets: {exc}")
            raise typer.Exit(code=2) from exc
    else:
        assert photo is not None
        laid = _read_photo(Path(photo), annotate)
    table = judge_sets(laid, in_order)
    if as_json:
        typer.echo(json.dumps(table.to_json()))
        return
    for line in block_lines(table):
        typer.echo(line)


def _read_photo(photo: Path, annotate: Path | None) -> list[list[DeckoCard]]:
    from vision.annotate import annotate_cards
    from vision.cards.recognize import CardRecognizer
    from vision.cards.sets import read_sets

    image = load_photo(photo)
    recognizer = CardRecognizer()
    rows = read_sets(recognizer.classifier, image, recognizer(image))
    if annotate:
        order = [card for row in rows for card in row]
        write_image(annotate, annotate_cards(image, order, order))
    return [[card.face.played for card in row] for row in rows]
