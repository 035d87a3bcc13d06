"""The appending game's judge: the line after the Starter, Wilds standing for either digit, and what a hand can
append next."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from rules.appending import appendable, judge_line, jump_to_end
from rules.decko import DeckoCard, DeckoCardError, card_text, parse_cards
from server.app import RECORD_OPTION, annotate_option, fail, film_only, judge_app, photo_or_film_argument
from server.commands.cards import read_line_photo
from server.decko_games import APPENDING, appending_lines, run_video_game
from vision.sources import is_film


def _typed(text: str, what: str) -> list[DeckoCard]:
    try:
        return parse_cards(text)
    except DeckoCardError as exc:
        fail(f"{what}: {exc}")
        raise typer.Exit(code=2) from exc


@judge_app.command("append")
def judge_append(
    photo: str | None = photo_or_film_argument(
        "the Starter and the cards appended after it", "a game to referee as it is laid"
    ),
    cards: str | None = typer.Option(
        None, "--cards", help="Judge a typed line instead of a photo: the cards after the Starter, e.g. '1 4 1/6 5'."
    ),
    hand: str | None = typer.Option(
        None, "--hand", help="The cards in the player's hand, e.g. '9 2/7 6': which of them to append now."
    ),
    deck_empty: bool = typer.Option(
        False,
        "--deck-empty",
        help="With --hand: the deck is gone, so the Special Rule may let the hand jump to the end.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    annotate: Path | None = annotate_option("the reading order"),
    record: Path | None = RECORD_OPTION,
) -> None:
    """Decko Digits' appending game: the line after the Starter (Digits, and Wilds standing for either of their
    digits), how much of it fits pi, the first card that does not (its player takes back the turn's cards),
    the digit needed next and, with --hand, the cards to append now.

    A video, a camera or a stream is the game filmed: the line is judged each time it settles (a hand laying a
    card changes nothing), until the film ends or Ctrl-C."""
    if (photo is None) == (cards is None):
        fail("give a photo of the line or --cards, one of them")
        raise typer.Exit(code=2)
    film_only(record, photo)
    if photo is not None and is_film(photo):
        if hand is not None or annotate is not None:
            fail("--hand and --annotate are for a photo or typed cards; a film is judged line by line")
            raise typer.Exit(code=2)
        run_video_game(photo, APPENDING, as_json, record)
        return
    held = _typed(hand, "--hand") if hand is not None else None
    extra: dict = {}
    if cards is not None:
        line = _typed(cards.removeprefix("3."), "--cards")
    else:
        assert photo is not None
        line, extra = _read_photo(Path(photo), annotate)
    verdict = judge_line(line)
    if as_json:
        playing = held is not None and verdict.next_digit is not None
        run = appendable(verdict.correct, held) if playing else None
        appended = None if run is None else [card_text(c) for c in run]
        jump = jump_to_end(verdict.correct, held) if playing and deck_empty else None
        jumped = None if jump is None else [card_text(c) for c in jump]
        typer.echo(json.dumps({**verdict.to_json(), "append_now": appended, "jump_to_end": jumped, **extra}))
        return
    for text in appending_lines(verdict, held, deck_empty):
        typer.echo(text)
    for warning in extra.get("warnings", []):
        typer.echo(f"note: {warning}")


def _read_photo(photo: Path, annotate: Path | None) -> tuple[list[DeckoCard], dict]:
    from vision.cards.lines import line_cards, read_appending_line

    line, extra = read_line_photo(photo, annotate, read_appending_line)
    return line_cards(line), extra
