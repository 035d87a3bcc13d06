"""Dominoes and Seven Pis: the solitaire's simulator and, from photos, its pis."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import typer

from models.synth.degrade import Degradation
from models.synth.tables import TABLE_KINDS
from server.app import (
    DEGRADE_OPTION,
    RECORD_OPTION,
    annotate_option,
    app,
    counted,
    evaluate_app,
    fail,
    film_only,
    in_hand_area,
    judge_app,
    load_calibration,
    load_photo,
    photo_or_film_argument,
    progress_bar,
    write_image,
)
from vision.sources import is_film

if TYPE_CHECKING:
    from calibration.profile import CalibrationProfile
    from rules.seven_pis import Scoring, Setup
    from vision.dominoes import Domino


@app.command()
def simulate(
    game: str = typer.Argument(..., help="The game: seven-pis."),
    strategy: list[str] = typer.Option(
        ["many", "one-at-a-time", "advisor"], "--strategy", help="many, one-at-a-time or advisor; repeat to compare."
    ),
    games: int = typer.Option(10_000, min=1, help="Games per strategy."),
    seed: int = typer.Option(2026, help="The same seed plays the same deals."),
    double_nine: bool = typer.Option(False, "--double-nine", help="11 pis of 5 tiles from a double-nine set."),
    as_json: bool = typer.Option(False, "--json", help="One JSON summary per strategy."),
) -> None:
    """Settle the Seven Pis sheet's open question by simulation: which way of playing leaves fewest tiles."""

    from rules.seven_pis import DOUBLE_NINE, DOUBLE_SIX
    from rules.seven_pis_play import STRATEGIES
    from rules.seven_pis_play import simulate as run

    if game != "seven-pis":
        fail(f"no simulator for {game!r}; choose: seven-pis")
        raise typer.Exit(code=2)
    unknown = [s for s in strategy if s not in STRATEGIES]
    if unknown:
        fail(f"unknown strategy {unknown[0]!r}; choose: {', '.join(STRATEGIES)}")
        raise typer.Exit(code=2)
    setup = DOUBLE_NINE if double_nine else DOUBLE_SIX
    summaries = []
    with progress_bar() as progress:
        for name in strategy:
            task = progress.add_task(name, total=games)
            summaries.append(
                run(name, games, seed, setup, lambda done, _total, t=task: progress.update(t, completed=done))
            )
    for summary in summaries:
        if as_json:
            typer.echo(json.dumps(summary.to_json()))
        else:
            typer.echo(
                f"{summary.strategy:>14}: mean score {summary.mean_score:.2f} tiles left, "
                f"went out in {summary.went_out:.2%} of {summary.games} games, "
                f"{summary.mean_completed_pis:.2f} pis completed on average"
            )


@evaluate_app.command("dominoes")
def evaluate_dominoes(
    scenes: int = typer.Option(40, min=1, help="Held-out scenes to render and read; half are tables of complete pis."),
    seed: int = typer.Option(50_000_000, help="First scene seed (held-out seeds never overlap training)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
    degrade: Degradation = DEGRADE_OPTION,
    far: bool = typer.Option(
        False,
        help="Render the tiles as small as a webcam taking in a whole table sees them: 36-56 px long at the centre.",
    ),
    face_down: int = typer.Option(
        0,
        "--face-down",
        min=0,
        help="Lay this many more tiles face down in a heap beside the rest, as Seven Pis's draw pile lies; a tile "
        "read there is a false detection.",
    ),
    marked_backs: float = typer.Option(
        0.0,
        "--marked-backs",
        min=0.0,
        max=1.0,
        help="With --face-down: the chance that a scene's tiles face down carry a maker's mark on their backs "
        "(a disc, a ring, a star, a letter, a pin-hole).",
    ),
    table_kind: str | None = typer.Option(
        None,
        "--table",
        help="Lay every scene on this kind of table (models/synth/tables.py), e.g. polka: a polka-dot cloth in "
        "staggered rows, a probe kind that neither training nor the held-out set draws.",
    ),
    ridged: float = typer.Option(
        0.0,
        "--ridged",
        min=0.0,
        max=1.0,
        help="The chance that a scene's set has its divider moulded as a ridge of the tiles' own material, seen "
        "only by a thin highlight and shade (many black sets); the pip readers trained on ridged training styles.",
    ),
    written_notes: bool = typer.Option(
        False,
        "--written-notes",
        help="Lay 2-4 paper notes written on by hand beside the tiles (scores, tallies, pi's digits, a doodle), as "
        "a score sheet lies beside a game; a tile read on one is a false detection.",
    ),
) -> None:
    """Dominoes: tiles with both halves read right, false detections, and speed on 28-tile frames."""
    from models.evaluate_dominoes import SceneOptions, print_evaluation
    from models.evaluate_dominoes import evaluate_dominoes as run

    if table_kind is not None and table_kind not in TABLE_KINDS:
        fail(f"unknown table kind {table_kind!r}; choose: {', '.join(TABLE_KINDS)}")
        raise typer.Exit(code=2)
    options = SceneOptions(
        far=far,
        face_down=face_down,
        marked_backs=marked_backs,
        table=table_kind,
        ridged=ridged,
        written_notes=written_notes,
    )
    result = run(scenes, seed, worse=degrade, options=options)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
    else:
        print_evaluation(result, scenes, seed, degrade, options)


@judge_app.command("seven-pis")
def judge_seven_pis(
    photo: str | None = photo_or_film_argument("the pis on the table", "a game to score as it is laid"),
    tiles: str | None = typer.Option(
        None,
        "--tiles",
        help="Typed pis instead of a photo: each pi's tiles in slot order (back left to right, then the left and "
        "right legs), the end on the back's left or the leg's top first, '-' for an empty slot, pis separated "
        "by ';'. E.g. '3|4 4|1 3|2 1|6; 2|2 - 2|5 -'.",
    ),
    tile_set: str = typer.Option("auto", "--set", help="six, nine, or auto (nine if the tiles say so)."),
    pips: bool = typer.Option(False, "--pips", help="Score the pips on the tiles left instead of the tiles left."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    annotate: Path | None = annotate_option("the tiles and pis"),
    hand: str | None = typer.Option(
        None, "--hand", help="The tiles in hand, e.g. '3|5 2|2 6|1': adds the legal placements and the advisor's play."
    ),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="A profile from `tableref calibrate`: the tiles shown in its hand area are the hand (as --hand, which "
        "overrides them; a photo only), not tiles laid on the table. On a film, each turn is judged from it as well.",
    ),
    record: Path | None = RECORD_OPTION,
) -> None:
    """Read the pis on the table: each pi's tiles and problems, and the score (tiles not placed).

    With a hand (typed, or shown in the calibrated mat's hand area), its legal placements and the advisor's play.

    A video, camera or stream is judged as it is laid: a tile counts once still for 3 frames; with --calibration,
    each turn too, from the hand (it ends once the hand is refilled and all holds still). Ctrl-C ends a watch."""
    from rules.seven_pis import Scoring

    if tile_set not in ("six", "nine", "auto"):
        fail(f"--set is six, nine or auto, not {tile_set!r}")
        raise typer.Exit(code=2)
    if (photo is None) == (tiles is None):
        fail("give a photo of the pis or --tiles, one of the two")
        raise typer.Exit(code=2)
    film_only(record, photo)
    scoring = Scoring.PIPS if pips else Scoring.TILES
    held = _typed_hand(hand)
    if photo is not None and is_film(photo):
        if held is not None or annotate is not None:
            fail("--hand and --annotate are for a photo; a film is judged as it is laid (its hand: --calibration)")
            raise typer.Exit(code=2)
        from server.seven_pis_video import run_pis_watch

        profile = load_calibration(calibration, "hand") if calibration is not None else None
        run_pis_watch(photo, tile_set, scoring, as_json, record, profile)
        return
    if tiles is not None:
        if calibration is not None:
            fail("--calibration is for a photo or a film: it tells which tiles are the hand")
            raise typer.Exit(code=2)
        layout, extra = _typed_pis(tiles, tile_set, scoring)
    else:
        profile = load_calibration(calibration, "hand") if calibration is not None else None
        layout, extra, seen = _photo_pis(Path(photo), tile_set, scoring, annotate, profile)
        held = seen if held is None else held
    _print_pis(layout, held, extra, as_json)


def _typed_hand(text: str | None) -> tuple | None:
    from rules.dominoes import Domino, InvalidDominoError

    if text is None:
        return None
    try:
        return tuple(Domino.parse(t) for t in text.replace(",", " ").split())
    except InvalidDominoError as exc:
        fail(f"--hand: {exc}")
        raise typer.Exit(code=2) from exc


def chosen_setup(tile_set: str, scoring: Scoring, dominoes: list[Domino], size: tuple[int, int]) -> Setup:
    """The game `tile_set` names (six or nine), or for "auto" the one the tiles read in a picture of `size`
    say (`guess_setup`), scored by `scoring`."""
    from vision.dominoes.pis import guess_setup

    if tile_set == "auto":
        tile_set = "nine" if guess_setup(dominoes, size).top == 9 else "six"
    return setup_named(tile_set, scoring)


def dominoes_in_hand(profile: CalibrationProfile | None, dominoes: Sequence[Domino]) -> np.ndarray:
    """Whether each tile read lies in the profile's hand area (by its centre): the player's hand, not a tile
    laid. None does without a profile. A photo's tiles and a film's tiles are split by this one test."""
    return in_hand_area(profile, np.array([d.center for d in dominoes]).reshape(-1, 2))


def setup_named(name: str, scoring: Scoring) -> Setup:
    """The double-nine set's game for "nine", else the double-six set's, scored by `scoring`."""
    from rules.seven_pis import Setup

    return Setup.double_nine(scoring) if name == "nine" else Setup.double_six(scoring)


def _typed_pis(text: str, tile_set: str, scoring) -> tuple:
    from rules.dominoes import Domino, InvalidDominoError
    from rules.seven_pis import Layout, Placement

    pis = [p.split() for p in text.split(";") if p.strip()]
    try:
        typed = [[None if t == "-" else Domino.parse(t) for t in pi] for pi in pis]
    except InvalidDominoError as exc:
        fail(f"--tiles: {exc}")
        raise typer.Exit(code=2) from exc
    if tile_set == "auto":
        big = any(t is not None and max(t.ends) > 6 for pi in typed for t in pi) or any(len(pi) > 4 for pi in typed)
        tile_set = "nine" if big else "six"
    setup = setup_named(tile_set, scoring)
    slots = setup.shape.slots
    placements = []
    for pi, row in enumerate(typed):
        if len(row) > len(slots):
            fail(f"--tiles: pi {pi} lists {len(row)} tiles; a {setup.shape.name} has {len(slots)} slots")
            raise typer.Exit(code=2)
        placements += [Placement(pi, slot.name, t.ends) for slot, t in zip(slots, row, strict=False) if t is not None]
    return Layout(setup, tuple(placements)), {}


def _photo_pis(
    photo: Path, tile_set: str, scoring, annotate: Path | None, profile: CalibrationProfile | None = None
) -> tuple:
    """The layout the tiles on the table make, the JSON of what was read, and with a `profile`, the tiles in
    its hand area as the hand (None without one, or with none there): those are not laid."""
    from rules.dominoes import Domino as Tile
    from vision.dominoes import DominoRecognizer
    from vision.dominoes.annotate import annotate_dominoes
    from vision.dominoes.pis import read_pis

    image = load_photo(photo)
    size = image.shape[1::-1]
    if profile is not None and (problem := profile.size_problem(size)):
        fail(f"{photo}: {problem}")
        raise typer.Exit(code=1)
    dominoes = DominoRecognizer()(image)
    in_hand = dominoes_in_hand(profile, dominoes)
    laid = [d for d, h in zip(dominoes, in_hand, strict=True) if not h]
    held = [d for d, h in zip(dominoes, in_hand, strict=True) if h]
    setup = chosen_setup(tile_set, scoring, dominoes, size)
    layout, groups = read_pis(laid, setup, size)
    if annotate:
        labels = [(f"pi {g.pi}", np.mean([laid[i].center for i in g.dominoes], axis=0)) for g in groups]
        if held:  # one label over the hand's tiles, clear of their counts
            outlines = np.array([d.corners for d in held])
            labels.append(("hand", np.array([outlines[..., 0].mean(), max(outlines[..., 1].min() - 15, 20)])))
        write_image(annotate, annotate_dominoes(image, dominoes, labels))
    read = [d.to_json() for d in dominoes]
    if profile is None:
        return layout, {"source": str(photo), "dominoes": read}, None
    for tile, h in zip(read, in_hand, strict=True):
        tile["in_hand"] = bool(h)
    # An empty hand area is a hand not shown, not one gone out: the game is not called over for it.
    return layout, {"source": str(photo), "dominoes": read}, tuple(Tile(*d.pips) for d in held) or None


def _print_pis(layout, hand: tuple | None, extra: dict, as_json: bool) -> None:
    from rules.seven_pis import TableState
    from rules.seven_pis_play import advise

    setup = layout.setup
    state = TableState(layout, hand or ())
    report = state.status()
    outcome = state.outcome()
    complete = set(outcome.completed)
    by_pi: dict[int, list] = {}
    for p in layout.placements:
        by_pi.setdefault(p.pi, []).append(p)
    problems_of = {pi: [q for q in report.problems if any(p.pi == pi for p in q.placements)] for pi in by_pi}
    hand_problems = [q for q in report.problems if not q.placements]
    legal = list(state.legal_placements()) if hand is not None else []
    advice = advise(state) if hand is not None else None
    unit = "pips" if outcome.scoring.value == "pips" else "tiles"
    if as_json:
        pis = [
            {
                "pi": pi,
                "complete": pi in complete,
                "placements": [p.to_json() for p in ps],
                "problems": [q.to_json() for q in problems_of[pi]],
            }
            for pi, ps in sorted(by_pi.items())
        ]
        summary = outcome.to_json()
        if hand is None:
            del summary["over"]  # whether a tile can be laid depends on the hand, which was not given
        else:
            summary |= {
                "hand": [str(t) for t in hand],
                "legal_placements": [p.to_json() for p in legal],
                "advice": advice.to_json(),
            }
        typer.echo(json.dumps({"set": setup.name, **summary, "pis": pis, "status": report.to_json(), **extra}))
        return
    typer.echo(
        f"{setup.name} set, {counted(setup.pis, 'pi')} of {len(setup.shape.slots)}: {len(by_pi)} on the table, "
        f"{counted(outcome.placed, 'tile')} placed, {len(complete)} complete"
    )
    for pi, ps in sorted(by_pi.items()):
        tiles = "  ".join(f"{p.slot} {p.tile}" for p in ps)
        mark = "complete" if pi in complete else f"{len(ps)} of {len(setup.shape.slots)}"
        typer.echo(f"pi {pi} ({mark}): {tiles}")
        for q in problems_of[pi]:
            typer.echo(f"    {(q.kind.name or '').lower()}: {q.detail}")
    for q in hand_problems:
        typer.echo(f"hand: {(q.kind.name or '').lower()}: {q.detail}")
    typer.echo("status: ok" if report.ok else f"status: {len(report.problems)} problem(s)")
    typer.echo(f"score: {outcome.score} ({unit} not placed; {counted(outcome.left, 'tile')} left)")
    if hand is not None:
        typer.echo("hand: " + (" ".join(map(str, hand)) or "no tile"))
        if not legal:
            typer.echo("game over: no tile in the hand can be laid")
        else:
            typer.echo(f"{len(legal)} legal placement(s); the advisor plays: " + ", ".join(map(str, advice.placements)))
