"""The block game's judge: the sets of five cards on the table and the blocks of pi they make."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from rules.blocks import BLOCK_SIZE, BlockSet, BlockTable, judge_sets
from rules.decko import DeckoCard, DeckoCardError, card_text, parse_cards
from rules.pi import BLOCKS
from server.app import annotate_option, fail, judge_app, load_photo, write_image


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
    photo: Path | None = typer.Argument(None, help="A photo of the sets of five cards set down, each in a row."),
    sets: str | None = typer.Option(
        None, "--sets", help="Judge typed sets instead of a photo, apart by semicolons: '1 4 1 5 9; 2 6 5 3 0/5'."
    ),
    in_order: bool = typer.Option(False, "--in-order", help="A set must lie in its block's order, left to right."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    annotate: Path | None = annotate_option("each card's place in its set"),
) -> None:
    """Decko Digits' block game: which of the Reference card's ten five-digit blocks each set of five cards
    makes (Wilds standing for either digit, in any order unless --in-order), each block counted once, and how
    many blocks are set down."""
    if (photo is None) == (sets is None):
        fail("give a photo of the sets or --sets, one of them")
        raise typer.Exit(code=2)
    if sets is not None:
        try:
            laid = [parse_cards(part) for part in sets.split(";") if part.strip()]
        except DeckoCardError as exc:
            fail(f"--sets: {exc}")
            raise typer.Exit(code=2) from exc
    else:
        assert photo is not None
        laid = _read_photo(photo, annotate)
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
