"""The appending game's judge: the line after the Starter, Wilds standing for either digit, and what a hand can
append next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rules.appending import AppendVerdict, appendable, judge_line, jump_to_end
from rules.decko import DeckoCard, DeckoCardError, card_text, parse_cards
from rules.pi import wild_pair
from server.app import RECORD_OPTION, annotate_option, fail, film_only, judge_app, photo_or_film_argument
from server.commands.cards import read_line_photo
from server.decko_video import DeckoGame, run_video_game
from vision.sources import is_film

if TYPE_CHECKING:
    import numpy as np

    from vision.cards.recognize import CardRecognizer


def line_text(cards: tuple[DeckoCard, ...]) -> str:
    """The line as read: digits as they are, each Wild in brackets ('3.14[1/6]59')."""
    return "3." + "".join(card_text(c) if isinstance(c, int) else f"[{card_text(c)}]" for c in cards)


def verdict_lines(verdict: AppendVerdict, hand: list[DeckoCard] | None, deck_empty: bool = False) -> list[str]:
    """The verdict in a referee's words; with a hand, what it can append now (and, the deck empty, whether it may
    jump to the end)."""
    lines = [line_text(verdict.cards), f"right: {verdict.correct} card(s) in order after the Starter"]
    if verdict.first_wrong is not None:
        place = verdict.first_wrong
        expected = verdict.expected
        wanted = "no card (the fifty decimals end there)" if expected is None else str(expected)
        got = verdict.cards[place]
        named = f"the Wild {card_text(got)}" if isinstance(got, tuple) else card_text(got)
        lines.append(
            f"first error: card {place + 1} after the Starter is {named}, expected {wanted}: "
            "whoever laid it takes back every card they laid this turn"
        )
        return lines
    if verdict.complete:
        return [*lines, "complete: all fifty decimals laid"]
    digit = verdict.next_digit
    assert digit is not None
    lines.append(f"next: {digit} (a {digit} or the Wild {card_text(wild_pair(digit))})")
    if hand is None:
        return lines
    run = appendable(verdict.correct, hand)
    jump = jump_to_end(verdict.correct, hand) if deck_empty and len(run) < len(hand) else None
    if jump is not None:
        cards = ", ".join(card_text(c) for c in jump)
        lines.append(f"jump to the end: lay {cards} as the last decimals of the fifty, and win (the Special Rule)")
    elif run:
        lines.append("append now: " + ", ".join(card_text(c) for c in run))
    else:
        draw = "no draw: the deck is empty" if deck_empty else "draw (up to three draws this turn)"
        lines.append(f"no card in the hand fits the next digit ({digit}): {draw}")
    return lines


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
    for text in verdict_lines(verdict, held, deck_empty):
        typer.echo(text)
    for warning in extra.get("warnings", []):
        typer.echo(f"note: {warning}")


def _read_photo(photo: Path, annotate: Path | None) -> tuple[list[DeckoCard], dict]:
    from vision.cards.lines import line_cards, read_appending_line

    line, extra = read_line_photo(photo, annotate, read_appending_line)
    return line_cards(line), extra


def _line_in(recognizer: CardRecognizer, frame: np.ndarray) -> tuple | None:
    from vision.cards.lines import NoStarterError, line_cards, read_appending_line

    try:
        return tuple(line_cards(read_appending_line(recognizer.classifier, frame, recognizer(frame))))
    except NoStarterError:
        return None


# The game as a film of it is refereed (server/decko_video.py): each line judged as it settles.
APPENDING = DeckoGame(
    name="append",
    read=_line_in,
    judge=judge_line,
    ended=lambda verdict: "complete" if verdict.complete else None,
    short=lambda verdict: line_text(verdict.cards),
    said=lambda verdict: verdict_lines(verdict, None),
    nothing=("no line after a Starter", "film the Starter and the cards"),
)
