"""Digit-card commands: the Tempus Digit judge, the printable deck, the card recogniser's accuracy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import typer

from models.synth.degrade import Degradation
from rules.tempus import TempusError, TempusOptions, judge
from server.app import (
    DEGRADE_OPTION,
    RECORD_OPTION,
    annotate_option,
    evaluate_app,
    fail,
    film_only,
    judge_app,
    kit_app,
    load_photo,
    pdf_output,
    photo_or_film_argument,
    write_image,
)
from server.tempus_video import print_verdict
from vision.sources import is_film

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from vision.cards.classify import CardClassifier
    from vision.cards.lines import CardLine
    from vision.cards.recognize import Card

    # How a line is read from the cards found: vision/cards/lines.py's read_tempus_line or read_appending_line.
    LineReader = Callable[[CardClassifier, np.ndarray, list[Card]], CardLine]


@judge_app.command("tempus")
def judge_tempus(
    photo: str | None = photo_or_film_argument("the Starter and the cards laid after it", "a race to time"),
    digits: str | None = typer.Option(None, help="Judge a typed sequence instead of a photo, e.g. 14159."),
    beginner: int = typer.Option(50, "--beginner", help="House rule: only the first N digits are in play."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    annotate: Path | None = annotate_option("the reading order"),
    calibration: Path | None = typer.Option(
        None, "--calibration", help="A profile from `tableref calibrate`: each lane is one player, judged and ranked."
    ),
    finished: list[str] = typer.Option(
        [], "--finished", help="With --calibration: a lane's finish time, LANE=SECONDS (repeat), to break ties."
    ),
    record: Path | None = RECORD_OPTION,
) -> None:
    """How much of pi is right: consecutive correct cards after the Starter, and the first error.

    With --calibration, every lane of the mat is one player's line: one verdict per lane, then the ranking; on a
    film, each lane is timed to its last card laid.
    A video, a camera or a stream is a race filmed: the line is read in every frame as it settles, and the race
    timed to its last card laid; watched live, it ends when the line is complete, at the time limit, or on
    Ctrl-C."""
    try:
        options = TempusOptions(digits=beginner)
    except TempusError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    film_only(record, photo)
    extra: dict = {}
    if digits is not None:
        if photo is not None:
            fail("give a photo or --digits, not both")
            raise typer.Exit(code=2)
        cleaned = digits.removeprefix("3.").replace(" ", "")
        if not cleaned.isdigit():
            fail(f"--digits takes digits only, got {digits!r}")
            raise typer.Exit(code=2)
        sequence = [int(c) for c in cleaned]
    elif photo is not None and calibration is not None and is_film(photo):
        if finished or annotate:
            fail("--finished and --annotate are for a photo; a film times the race itself")
            raise typer.Exit(code=2)
        from server.tempus_lane_video import run_lane_video_race

        run_lane_video_race(photo, calibration, options, as_json, record)
        return
    elif photo is not None and calibration is not None:
        from server.tempus_lanes import run_lane_race

        run_lane_race(Path(photo), calibration, options, finished, as_json, annotate)
        return
    elif photo is not None and is_film(photo):
        from server.tempus_video import run_video_race

        run_video_race(photo, options, as_json, record)
        return
    elif photo is not None:
        sequence, extra = _read_tempus_photo(Path(photo), annotate)
    else:
        fail("give a photo of the cards, or --digits")
        raise typer.Exit(code=2)
    verdict = judge(sequence, options)
    if as_json:
        typer.echo(json.dumps({**verdict.to_json(), **extra}))
    else:
        print_verdict(verdict, options)
        for warning in extra.get("warnings", []):
            typer.echo(f"note: {warning}")


def _read_tempus_photo(photo: Path, annotate: Path | None) -> tuple[list[int], dict]:
    from vision.cards.lines import line_digits, read_tempus_line

    line, extra = read_line_photo(photo, annotate, read_tempus_line)
    wilds = [c for c in line.cards if c.face.kind != "digit"]
    if wilds:
        extra["warnings"].insert(0, f"{len(wilds)} non-digit card(s) in the line; Tempus decks hold digits only")
    return line_digits(line), extra


def read_line_photo(photo: Path, annotate: Path | None, read: LineReader) -> tuple[CardLine, dict]:
    """The line of cards after the Starter in `photo`, as `read` orders and reads it (vision/cards/lines.py),
    with what a player should check: cards apart from the line, rows shorter than the longest (a card there
    may be unread). The photo is written to `annotate` with the line's order drawn on it. No Starter: one line
    saying so, exit code 1."""
    from vision.annotate import annotate_cards
    from vision.cards.lines import NoStarterError, short_rows
    from vision.cards.recognize import CardRecognizer

    image = load_photo(photo)
    recognizer = CardRecognizer()
    cards = recognizer(image)
    try:
        line = read(recognizer.classifier, image, cards)
    except NoStarterError as exc:
        fail(f"{photo}: {exc}")
        raise typer.Exit(code=1) from exc
    warnings = []
    if not any(card.face.kind == "starter" for card in cards):
        head = min(cards, key=lambda card: float(np.linalg.norm(card.center - line.starter.center)))
        warnings.append(
            f"no Starter was read: the card heading the line (read as {head.face.label}) was taken for it; "
            "check that it is the Starter"
        )
    if line.stray:
        warnings.append(f"{len(line.stray)} card(s) lie apart from the line and were not judged")
    short = short_rows(line)
    if short:
        rows = ", ".join(map(str, short))
        warnings.append(f"row(s) {rows} hold fewer cards than the longest row: a card there may be unread")
    if annotate:
        order = [line.starter, *line.cards]
        write_image(annotate, annotate_cards(image, [*order, *line.stray], order))
    extra = {"rows": [len(r) for r in line.rows], "stray_cards": len(line.stray), "short_rows": short}
    return line, {**extra, "warnings": warnings}


@kit_app.command("digits")
def kit_digits(
    output: Path = pdf_output("deck.pdf"),
) -> None:
    """The print-and-play Decko-style deck on A4 with cut marks, and a last page of backs to print on the back of
    each sheet (for Grid o' Digits, whose cards lie face down)."""
    from server.kit import write_digit_deck

    pages = write_digit_deck(output)
    typer.echo(
        f"wrote {output}: {pages} A4 pages, 9 cards a page, cut along the marks; the last page is the backs, "
        "to print on the back of the others"
    )


@evaluate_app.command("cards")
def evaluate_cards(
    scenes: int = typer.Option(120, min=1, help="Held-out scenes to render and read."),
    seed: int = typer.Option(20_000_000, help="First scene seed (held-out seeds never overlap training)."),
    degrade: Degradation = DEGRADE_OPTION,
    portrait: bool = typer.Option(False, help="Render each scene 720x1280, as a phone held upright takes it."),
    touching: bool = typer.Option(
        False,
        help="Make every scene a Tempus line laid touching: from 4 mm apart to each card over the one before by "
        "8 mm, as players in a race lay them (the held-out lines lie 4-20 mm apart).",
    ),
    varied_wilds: bool = typer.Option(
        False,
        help='Print the Wilds in any layout and either order ("1/6", "1 6", "16", "6/1", "61"); otherwise as '
        'the print-and-play deck prints them, low digit first, "1/6" or "1 6".',
    ),
    index_only: bool = typer.Option(
        False,
        help="Tell every card's 6 and 9 apart by corner indices alone, top left or in both corners (the second "
        "turned half round, as playing cards print them), with no underline; otherwise as each design says.",
    ),
    appending: bool = typer.Option(
        False,
        help="Make every scene a line of the appending game: the Starter and 5-20 digits of pi, a third of them "
        "laid as their Wild, read as `judge append PHOTO` reads it (column `lines exact`).",
    ),
    blocks: bool = typer.Option(
        False,
        help="Make every scene the block game's sets: 2-4 blocks of five cards, each in a row of its own in any "
        "order, a fifth laid as their Wild, read as `judge blocks PHOTO` reads them (column `lines exact`: scenes "
        "whose every set is read card for card).",
    ),
    grid: bool = typer.Option(
        False,
        help="Make every scene a Grid o' Digits table part played: the 25 cards in a grid, some face down (backs "
        "of held-out patterns), read as `judge grid` reads them, the backs told apart (column `lines exact`: "
        "tables whose every card face up is read, and nothing else).",
    ),
    face_down: bool = typer.Option(
        False,
        help="Lay a share of each scene's cards face down (backs of held-out patterns), as a deck beside a race "
        "or the appending game's Deck lies: a back read as a card is a false detection.",
    ),
    written_notes: bool = typer.Option(
        False,
        help="Lay 2-4 paper notes written on by hand beside each scene's cards (scores, tally marks, doodles, "
        "digits of pi, long numbers; held-out hands): a note read as a card is a false detection.",
    ),
) -> None:
    """Digit cards: share read right and false detections on held-out scenes."""
    from models.evaluate import Laid
    from models.evaluate import evaluate_cards as run

    asked = {
        Laid.TOUCHING: touching,
        Laid.APPENDING: appending,
        Laid.BLOCKS: blocks,
        Laid.GRID: grid,
        Laid.FACE_DOWN: face_down,
    }
    chosen = [laid for laid, wanted in asked.items() if wanted]
    if len(chosen) > 1:
        fail("--touching, --appending, --blocks, --grid and --face-down each lay every scene their own way: give one")
        raise typer.Exit(code=2)
    laid = chosen[0] if chosen else Laid.MIX
    asked_prints = (("varied_wilds", varied_wilds), ("index_only", index_only), ("written_notes", written_notes))
    prints = [name for name, wanted in asked_prints if wanted]
    run(scenes, seed, worse=degrade, portrait=portrait, laid=laid, prints=prints)
