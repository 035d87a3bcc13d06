"""Flash cards as a drill: the referee asks a decimal of pi, the player lays its card, and hears whether it is
right; refereed from a camera or a film of the drill, or a photo of one answer."""

from __future__ import annotations

import json
import random
from pathlib import Path

import typer

from rules.decko import card_text
from rules.flash_cards import FlashDrill, FlashError, seen
from rules.flash_memory import BLOCK, DECIMALS
from server.app import RECORD_OPTION, counted, fail, film_only, judge_app, load_photo, photo_or_film_argument
from server.decko_games import (
    answers_in,
    flash_game,
    learner_memory,
    learner_name,
    memory_line,
    planned_drill,
    renamed_learner,
    run_video_game,
)
from server.storage import StorageError
from vision.sources import is_film

FIRST_DIGITS = 10  # a drill's decimals in play unless --digits says


@judge_app.command("flash")
def judge_flash(
    photo: str | None = photo_or_film_argument("one card laid to answer --decimal", "the drill to referee"),
    digits: int | None = typer.Option(
        None, "--digits", help="The first N decimals of pi in play (1 to 50; 10 if not given).", show_default=False
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Ask the decimals in the order this number shuffles them; else in a new order each time."
    ),
    decimal: int | None = typer.Option(
        None, "--decimal", min=1, max=50, help="With a photo: the decimal (1-50) the card laid answers."
    ),
    learner: str | None = typer.Option(
        None,
        "--learner",
        help="Draw the drill from this learner's memory in the --record file: the decimals they have due, more "
        "in play as they learn (in place of --digits).",
    ),
    rename: str | None = typer.Option(
        None,
        "--rename",
        help="With --learner and --record alone: the learner's drills are this learner's from now on (a name "
        "mistyped mended; into a learner already known, the two memories are one).",
    ),
    forget: bool = typer.Option(
        False,
        "--forget",
        help="With --learner and --record alone: the learner's memory starts again; their drills stay recorded, "
        "as drills for no one.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    record: Path | None = RECORD_OPTION,
) -> None:
    """Decko Digits' flash cards, as a drill for one: the referee asks for a decimal of pi among the first
    --digits, the player lays the card they take it to be (its Digit card or its Wild) and hears whether it is
    right; a decimal missed is asked again after the others, until every one is answered right.

    With --learner and --record, the drill remembers: each decimal's first answer moves it up a box (asked
    again less often) or back to the first (asked in the next drill), and once the decimals in play are
    learnt, the next five come into play.

    A camera (or a film, or a stream) watches the table: the question is printed, the card laid is judged once
    it lies still, and the next question comes once it is taken away. A photo of one card is judged against
    --decimal. With --learner and --record alone, the learner's memory is shown, decimal by decimal."""
    if rename is not None or forget:
        _rename_learner(photo, learner, record, rename)
        return
    if photo is None and learner is not None and record is not None:
        _show_memory(learner, record, as_json)
        return
    film_only(record, photo)
    if photo is None:
        fail(
            "give a camera (0), a film or a stream of the table, or a photo of a card with --decimal (or --learner "
            "NAME --record FILE alone to see a learner's memory)"
        )
        raise typer.Exit(code=2)
    if is_film(photo):
        if decimal is not None:
            fail("--decimal is for a photo of one answer; a drill filmed asks its own decimals")
            raise typer.Exit(code=2)
        if digits is not None and learner is not None:
            fail("--digits or --learner: a learner's drill asks the decimals their memory has due")
            raise typer.Exit(code=2)
        try:
            order = random.SystemRandom().randrange(2**32) if seed is None else seed
            drill = planned_drill(FIRST_DIGITS if digits is None else digits, order, learner, record)
        except (FlashError, StorageError) as exc:
            fail(str(exc))
            raise typer.Exit(code=2) from exc
        if drill.memory is not None and not as_json:
            shown = memory_line(drill.learner or "", drill.memory)
            typer.echo(f"{shown}; this drill asks {counted(len(drill.order), 'decimal')}")
        run_video_game(photo, flash_game(drill), as_json, record)
        return
    if learner is not None:
        fail("--learner is for a drill filmed or watched by a camera; a photo answers one --decimal")
        raise typer.Exit(code=2)
    if decimal is None:
        fail("a photo of an answer needs --decimal N: the decimal its card answers")
        raise typer.Exit(code=2)
    from vision.cards.recognize import CardRecognizer

    cards = answers_in(CardRecognizer(), load_photo(Path(photo)))
    drill = seen(FlashDrill((decimal - 1,)), cards)
    if as_json:
        typer.echo(json.dumps({**drill.to_json(), "cards": [card_text(card) for card in cards]}))
        return
    if drill.answers:
        (answer,) = drill.answers
        judged = "right" if answer.right else "wrong"
        typer.echo(f"decimal {decimal} is {answer.digit}: the card laid, {card_text(answer.card)}, is {judged}")
    elif drill.crowded:
        typer.echo(f"{len(cards)} cards read ({' '.join(map(card_text, cards))}): lay one card at a time")
    else:
        typer.echo("no Digit or Wild card read: lay the card where the camera sees it whole")


# A decimal as the memory strip shows it: learnt (box 2 and up), right once, missed last, not asked yet.
MARKS = {None: "·", 0: "○", 1: "◐"}
LEARNT_MARK, OUT_OF_PLAY = "●", "-"
STRIP_ROW = 25


def _rename_learner(photo: str | None, learner: str | None, record: Path | None, to: str | None) -> None:
    """--rename or --forget: the learner's drills in `record` made `to`'s, or nobody's (`to` None)."""
    if photo is not None or learner is None or record is None:
        fail("--rename and --forget go with --learner NAME --record FILE alone, with no camera, film or photo")
        raise typer.Exit(code=2)
    try:
        new = None if to is None else learner_name(to)
        if new == learner_name(learner):
            raise FlashError(f"{new} is already the learner's name")
        name, drills = renamed_learner(record, learner, new)
    except (FlashError, StorageError) as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    kept = counted(drills, "drill")
    if new is None:
        typer.echo(f"{name}'s memory starts again ({kept} kept in the file, for no one)")
    else:
        typer.echo(f"{name} renamed {new} ({kept}); {memory_line(new, learner_memory(record, new))}")


def _show_memory(learner: str, record: Path, as_json: bool) -> None:
    """The learner's memory in `record`: a line, and the fifty decimals in blocks of five by box."""
    try:
        name = learner_name(learner)
        memory = learner_memory(record, name)
    except (FlashError, StorageError) as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    due = memory.due()
    if as_json:
        typer.echo(json.dumps({"learner": name, "memory": memory.to_json(), "due": [place + 1 for place in due]}))
        return
    typer.echo(f"{memory_line(name, memory)}; the next drill asks {counted(len(due), 'decimal')}")
    boxes = memory.to_json()["boxes"]
    marks = [MARKS.get(box, LEARNT_MARK) for box in boxes] + [OUT_OF_PLAY] * (DECIMALS - len(boxes))
    for first in range(0, DECIMALS, STRIP_ROW):
        blocks = ["".join(marks[at : at + BLOCK]) for at in range(first, first + STRIP_ROW, BLOCK)]
        typer.echo(f"decimals {first + 1:2}-{first + STRIP_ROW}  {' '.join(blocks)}")
    typer.echo(
        f"{LEARNT_MARK} learnt  {MARKS[1]} right once  {MARKS[0]} missed last  {MARKS[None]} not asked yet  "
        f"{OUT_OF_PLAY} not in play yet"
    )
