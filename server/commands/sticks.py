"""DIGIT, the stick game: its cards, layouts read from photos, moves judged, printable cards, and the stick
recogniser's accuracy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import typer

from models.synth.degrade import Degradation
from server.app import (
    DEGRADE_OPTION,
    RECORD_OPTION,
    counted,
    evaluate_app,
    fail,
    in_hand_area,
    judge_app,
    kit_app,
    load_calibration,
    load_photo,
    pdf_output,
    progress_bar,
)

if TYPE_CHECKING:
    from calibration.profile import CalibrationProfile
    from rules.digit_game import Status
    from rules.sticks import Symmetry
    from vision.advice import Advice
    from vision.sticks.cards import DigitCard
    from vision.sticks.layout import TableLayout

SYMMETRY_HELP = "Rotations only: a mirror image is another card (the default counts turned or flipped)."

# What the verdict says for each problem, in the order it says it.
PROBLEMS = {
    "wrong_stick_count": "the table does not hold exactly five sticks",
    "off_lattice": "off the lattice: sticks cross, an end touches a stick's middle, or a stick lies askew",
    "pattern_broken": "pattern broken: the sticks do not all touch in one pattern",
    "no_stick_moved": "the pattern did not change",
    "several_sticks_moved": "several sticks moved",
}
# A verdict on two frames between which the camera moved (vision.alignment) says so, and where every stick seems
# to have moved on a table too plain to tell, what may be the cause.
CAMERA_MOVED = " (the camera moved; the sticks are compared where the table shows they lay)"
CAMERA_UNTOLD = "if the camera moved, keep it still between the pictures: this table shows too little to tell"
# A five-stick pattern that breaks no rule shows a card, unless mirror images count apart and it is the mirror
# image of one: the cards print one of each pair.
MIRRORED = "a card's mirror image, which is no card when mirror images count apart (--rotations-only)"


def _read_table(
    photo: Path, profile: CalibrationProfile | None = None
) -> tuple[TableLayout, list[DigitCard], np.ndarray]:
    """The photo's DIGIT layout, the DIGIT cards lying beside it and the photo; a clear error and exit on a bad
    file, or on a photo the calibration `profile` was not made for. The sticks drawn on a card are no sticks of
    the layout. A layout read short of its five sticks beside a lamp's glare is told so on stderr
    (`vision.advice.glare_beside`): the sticks missing may lie there unseen."""
    from vision.sticks import StickRecognizer
    from vision.sticks.cards import read_digit_cards
    from vision.sticks.layout import table_layout

    image = load_photo(photo)
    if profile is not None and (problem := profile.size_problem(image.shape[1::-1])):
        fail(f"{photo}: {problem}")
        raise typer.Exit(code=1)
    cards = read_digit_cards(image)
    table = table_layout(*StickRecognizer()(image, ignore=[card.corners for card in cards]))
    if glare := glare_by_short_layout(image, table):
        typer.echo(f"tableref: {photo}: {glare.message}", err=True)
    return table, cards, image


def glare_by_short_layout(image: np.ndarray, table: TableLayout) -> Advice | None:
    """Advice of a lamp's glare beside a layout read short of its five sticks (`vision.advice.glare_beside`): the
    sticks missing may lie in it unseen. None for a layout read whole, or with no glare near it."""
    from rules.digit_game import STICKS
    from vision.advice import glare_beside
    from vision.sticks.detections import median_length

    if not 0 < len(table.sticks) < STICKS:
        return None
    ends = np.array([s.ends for s in table.sticks]).reshape(-1, 2)
    return glare_beside(image, ends, median_length(table.sticks))


def symmetry_of(rotations_only: bool) -> Symmetry:
    """The symmetry the `--rotations-only` flag asks for."""
    from rules.sticks import Symmetry

    return Symmetry.ROTATIONS_ONLY if rotations_only else Symmetry.ALL_EIGHT


def status_names(status: Status) -> list[str]:
    """A DIGIT status's flags as the verdict's JSON names them."""
    return [(flag.name or "").lower() for flag in status]


def problem_texts(names: list[str], moved: int = 0) -> list[str]:
    """What the verdict says for each problem named (`status_names`); `moved`: how many sticks moved."""
    return [
        f"{PROBLEMS[name]} ({moved})" if name == "several_sticks_moved" else PROBLEMS.get(name, name) for name in names
    ]


def move_picture(edges, removed, added) -> str:
    """The layout after a move as text: `+` at ends, `--` and `|` for sticks that stay, `==` and `#` for the
    stick laid, `..` and `:` where it was taken from. All edges in one frame; negative coordinates allowed."""
    drawn = [(e, "kept") for e in edges if e != removed] + [(removed, "taken"), (added, "laid")]
    xs = [p[0] for e, _ in drawn for p in (e.a, e.b)]
    ys = [p[1] for e, _ in drawn for p in (e.a, e.b)]
    x0, y0 = min(xs), min(ys)
    rows = [[" "] * (3 * (max(xs) - x0) + 1) for _ in range(2 * (max(ys) - y0) + 1)]
    marks = {"kept": ("-", "|"), "taken": (".", ":"), "laid": ("=", "#")}
    for edge, kind in drawn:
        (ax, ay), (bx, by) = (edge.a[0] - x0, edge.a[1] - y0), (edge.b[0] - x0, edge.b[1] - y0)
        across, down = marks[kind]
        if edge.horizontal:
            rows[2 * ay][3 * ax + 1 : 3 * ax + 3] = [across, across]
        else:
            rows[2 * ay + 1][3 * ax] = down
        for x, y in ((ax, ay), (bx, by)):
            if kind != "taken" or rows[2 * y][3 * x] == " ":
                rows[2 * y][3 * x] = "+"
    return "\n".join("".join(row).rstrip() for row in rows)


@judge_app.command("digit")
def judge_digit(
    photo: Path | None = typer.Argument(None, help="A photo of the sticks on the table."),
    cards: list[int] = typer.Option(
        [],
        "--card",
        help="A card to match the layout against (repeat it); else the cards read in the hand area (with "
        "--calibration), else those read on the table.",
    ),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="A profile from `tableref calibrate`: the DIGIT cards lying in its hand area are the player's hand.",
    ),
    list_cards: bool = typer.Option(False, "--list", help="Print the 55 DIGIT cards: number, code and edges."),
    rotations_only: bool = typer.Option(False, "--rotations-only", help=SYMMETRY_HELP),
    as_json: bool = typer.Option(False, "--json", help="As JSON (with --list, one object per card)."),
) -> None:
    """DIGIT, the stick game: read the layout in PHOTO, its card number, the printed DIGIT cards lying on the
    table (`tableref kit sticks`), whether the layout matches the given cards (else the cards shown in the
    calibrated mat's hand area, else the cards on the table), and the cards one stick move away (with the move).
    --list prints the 55 cards instead."""
    from rules.sticks import PENTASTICKS, NoSuchCardError, shape_code, to_ascii

    if list_cards:
        for number, shape in enumerate(PENTASTICKS, start=1):
            edges = sorted(shape)
            if as_json:
                typer.echo(
                    json.dumps({"card": number, "code": shape_code(edges), "edges": [e.to_json() for e in edges]})
                )
            else:
                typer.echo(f"card {number}: {shape_code(edges)}\n{to_ascii(edges)}\n")
        return
    if photo is None:
        fail("give a photo of the sticks, or --list")
        raise typer.Exit(code=2)
    from rules.digit_game import matching_cards, one_move_away
    from rules.sticks import card_number, shape_for_card

    try:
        for number in cards:
            shape_for_card(number)
    except NoSuchCardError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    symmetry = symmetry_of(rotations_only)
    profile = load_calibration(calibration, "hand") if calibration is not None else None
    table, on_table, _ = _read_table(photo, profile)
    centres = np.array([c.corners.mean(axis=0) for c in on_table]).reshape(-1, 2)
    in_hand = in_hand_area(profile, centres)
    held = [c.card for c, h in zip(on_table, in_hand, strict=True) if h]
    cards_from = "typed" if cards else "hand" if held else "table"
    against = list(dict.fromkeys(cards or held or [c.card for c in on_table]))
    status = table.status()
    legal = table.layout is not None and not status
    card = card_number(table.layout, symmetry) if legal else None
    matches = list(matching_cards(table.layout, against, symmetry)) if legal else []
    away = one_move_away(table.layout, symmetry) if card is not None else []
    result: dict[str, Any] = {
        "source": str(photo),
        "sticks": len(table.sticks),
        "card": card,
        "legal": not status,
        "status": status_names(status),
        "layout": table.layout.to_json() if table.layout else None,
        "table_cards": [
            c.to_json() | ({"in_hand": bool(h)} if profile is not None else {})
            for c, h in zip(on_table, in_hand, strict=True)
        ],
        "cards": against,
        "cards_from": cards_from,
        "matches": matches,
        "one_move_away": [
            {"card": number, "move": move.to_json(), "layout": [e.to_json() for e in move.apply(table.layout)]}
            for number, move in away
        ],
    }
    if as_json:
        typer.echo(json.dumps(result))
        return
    _print_layout(result, table, away)


def _print_layout(result: dict, table, away) -> None:
    from rules.sticks import to_ascii

    typer.echo(f"{result['source']}: {counted(result['sticks'], 'stick')}")
    if table.layout is not None:
        typer.echo(to_ascii(table.layout))
    if result["card"] is not None:
        typer.echo(f"card {result['card']}")
    else:
        typer.echo("no card: " + "; ".join(problem_texts(result["status"]) or [MIRRORED]))
    for place, in_hand in (("in the hand", True), ("on the table", False)):
        shown = [str(c["card"]) for c in result["table_cards"] if c.get("in_hand", False) == in_hand]
        if shown:
            typer.echo(f"cards {place}: " + ", ".join(shown))
    if result["cards"]:
        given = ", ".join(str(c) for c in result["cards"])
        matched = ", ".join(str(c) for c in result["matches"])
        where = {"typed": "", "hand": " in the hand", "table": " on the table"}[result["cards_from"]]
        typer.echo(f"matches card {matched}{where}" if matched else f"matches none of the cards {given}{where}")
    if away:
        cards = len({number for number, _ in away})
        typer.echo(f"one move away: {counted(len(away), 'move')} to {counted(cards, 'card')}")
    for number, move in away:
        typer.echo(f"\ncard {number}: take the stick at {move.removed}, lay it at {move.added}")
        typer.echo(move_picture(table.layout.edges, move.removed, move.added))


@judge_app.command("digit-move")
def judge_digit_move(
    before: Path = typer.Argument(..., help="A photo of the table before the move."),
    after: Path = typer.Argument(..., help="A photo of the table after it."),
    rotations_only: bool = typer.Option(False, "--rotations-only", help=SYMMETRY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
) -> None:
    """Judge one DIGIT turn from two photos: exactly one stick moved, all five still touch in one pattern on
    the lattice; and the card the new layout shows. A camera moved between the photos is allowed for where the
    table shows it (its grain, marks, things lying still); on a plain cloth keep the camera still."""
    from vision.sticks.layout import camera_motion

    (first, _, first_photo), (second, _, second_photo) = _read_table(before), _read_table(after)
    if first.layout is None or second.layout is None:
        fail(f"{before if first.layout is None else after}: no sticks found")
        raise typer.Exit(code=1)
    motion = camera_motion(first_photo, second_photo, first, second)
    result = move_result(first, second, symmetry_of(rotations_only), motion)
    if as_json:
        typer.echo(json.dumps(result))
    else:
        typer.echo(move_text(result))


def move_result(
    first: TableLayout, second: TableLayout, symmetry: Symmetry, motion: np.ndarray | None = None
) -> dict[str, Any]:
    """The turn from one table to the next (vision.sticks.layout.TableLayout, both with a layout) as the
    verdict's JSON: the move, whether it is legal and why not, the card the table now shows. `motion`, the
    camera's move between the frames as the table shows it (`camera_motion`), puts the second table's sticks
    where the first frame's camera saw them; `camera_moved` is null where the table could not tell."""
    from rules.sticks import card_number
    from vision.sticks.layout import camera_moved, judged_turn, seen_from

    moved_camera = None if motion is None else camera_moved(motion, second)
    if moved_camera:
        second = seen_from(second, motion)
    verdict, status, moved = judged_turn(first, second)
    names = status_names(status)
    card = card_number(second.layout, symmetry) if not status else None
    return {
        **verdict.to_json(),
        "legal": not status,
        "status": names,
        "card": card,
        "sticks_moved": moved,
        "camera_moved": moved_camera,
    }


def move_text(result: dict[str, Any]) -> str:
    """`move_result` in words."""
    from rules.sticks import Edge

    camera = CAMERA_MOVED if result["camera_moved"] else ""
    if result["legal"]:
        removed, added = (Edge.from_json(result[k][0]) for k in ("removed", "added"))
        shows = f"card {result['card']}" if result["card"] is not None else MIRRORED
        return f"legal move: take the stick at {removed}, lay it at {added}; the table now shows {shows}{camera}"
    problems = problem_texts(result["status"], result["sticks_moved"])
    if result["camera_moved"] is None and "several_sticks_moved" in result["status"] and result["sticks_moved"] >= 4:
        problems.append(CAMERA_UNTOLD)
    return "not a legal move: " + "; ".join(problems) + camera


@judge_app.command("digit-moves")
def judge_digit_moves(
    source: str = typer.Argument(..., help="A video of the game (MP4, AVI...), a camera (0) or a stream URL."),
    rotations_only: bool = typer.Option(False, "--rotations-only", help=SYMMETRY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the layouts and moves as JSON at the end."),
    record: Path | None = RECORD_OPTION,
) -> None:
    """Referee a DIGIT game filmed or watched live: each layout once it holds still for 3 frames, and each
    turn between two layouts judged as `digit-move` judges two photos. Ctrl-C ends a live watch."""
    from server.digit_video import run_digit_moves

    run_digit_moves(source, symmetry_of(rotations_only), as_json, record)


@kit_app.command("sticks")
def kit_sticks(
    output: Path = pdf_output("digit-cards.pdf"),
) -> None:
    """The 55 DIGIT cards (the pentasticks), each with its number in large digits, on A4 with cut marks."""
    from server.kit import write_stick_cards

    pages = write_stick_cards(output)
    typer.echo(f"wrote {output}: 55 cards on {pages} A4 pages, 9 cards a page, cut along the marks")


@evaluate_app.command("sticks")
def evaluate_sticks(
    scenes: int = typer.Option(
        330,
        min=1,
        help="Held-out lattice layouts (cards 1..55 in turn); a third as many again "
        "of broken layouts and of pick-up-sticks heaps.",
    ),
    seed: int = typer.Option(1_000, help="First scene seed."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    degrade: Degradation = DEGRADE_OPTION,
    material: str | None = typer.Option(
        None,
        help="Every stick of this material (one of models/synth/sticks.py's MATERIALS; mikado: the pick-up "
        "sticks game's, thin and pointed); else drawn per scene from the held-out materials.",
    ),
) -> None:
    """Sticks: share of layouts read as the right card, broken layouts flagged, pick-up sticks counted, false
    detections and CPU milliseconds per frame, on held-out renders (stick styles and tables tuning never used)."""
    from models.evaluate_sticks import evaluate_sticks as run
    from models.evaluate_sticks import scene_count
    from models.synth.sticks import MATERIALS

    if material is not None and material not in MATERIALS:
        fail(f"unknown stick material {material!r}: use one of {', '.join(MATERIALS)}")
        raise typer.Exit(code=2)
    with progress_bar() as progress:
        task = progress.add_task("reading sticks", total=scene_count(scenes))
        summary = run(scenes, seed, on_scene=lambda: progress.advance(task), worse=degrade, material=material)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    for key, value in summary.items():
        if key != "errors":
            typer.echo(f"{key:>22}: {value}")
    typer.echo("most frequent errors: " + (", ".join(f"{k} x{v}" for k, v in summary["errors"].items()) or "none"))
