"""The block game's judge: the sets of five cards on the table and the blocks of pi they make."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rules.blocks import BLOCK_SIZE, BlockSet, BlockTable, judge_sets
from rules.decko import DeckoCard, DeckoCardError, card_text, parse_cards
from rules.pi import BLOCKS
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
from server.decko_video import DeckoGame, run_video_game
from vision.sources import is_film

if TYPE_CHECKING:
    import numpy as np

    from vision.cards.recognize import CardRecognizer


def set_line(number: int, block_set: BlockSet) -> str:
    """One set in a referee's words: its cards and the block it makes, or why it counts for none."""
    cards = " ".join(card_text(c) if isinstance(c, int) else f"[{card_text(c)}]" for c in block_set.cards)
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


def table_lines(table: BlockTable) -> list[str]:
    return [*(set_line(i, s) for i, s in enumerate(table.sets, start=1)), f"blocks set down: {table.count}"]


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
    for line in table_lines(table):
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


def _sets_in(recognizer: CardRecognizer, frame: np.ndarray) -> tuple:
    """The sets a frame shows, in an order that does not hang on where each lies (a frame's noise may change
    which row reads first): by their cards."""
    from vision.cards.sets import read_sets

    rows = [
        tuple(card.face.played for card in row) for row in read_sets(recognizer.classifier, frame, recognizer(frame))
    ]
    return tuple(sorted(rows, key=lambda row: [card_text(card) for card in row]))


# The game as a film of it is refereed (server/decko_video.py): the table judged each time its sets settle.
BLOCK_GAME = DeckoGame(
    name="blocks",
    read=_sets_in,
    judge=judge_sets,
    ended=lambda table: None,
    short=lambda table: f"{table.count} block(s) set down in {len(table.sets)} set(s)",
    said=table_lines,
    nothing=("no set of cards", "film the sets of five set down"),
)
