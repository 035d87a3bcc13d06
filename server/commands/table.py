"""Commands about the table as a whole: read everything on it, calibrate it, benchmark the readers."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from server.app import (
    advise,
    annotate_option,
    app,
    counted,
    evaluate_app,
    expand_inputs,
    fail,
    kit_app,
    load_calibration,
    output_file,
    output_image,
    pdf_output,
    progress_bar,
    write_image,
)
from vision.image_io import ImageLoadError, load_image


def _annotation_path(out: Path, source: Path, many: bool) -> Path:
    return out.with_name(f"{out.stem}-{source.stem}{out.suffix}") if many else out


@app.command()
def recognize(
    # Unreadable files are reported one by one with the rest still read, not refused up front by click.
    paths: list[Path] = typer.Argument(..., readable=False, help="Images, or folders of images."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per image, one per line."),
    annotate: Path | None = annotate_option("what was read"),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="A profile from `tableref calibrate`: adds table millimetres and zones; cards are also read top-down.",
    ),
    only: str | None = typer.Option(
        None, "--only", help="Look only for these kinds, comma-separated: cards, dominoes, sticks (default: all)."
    ),
) -> None:
    """Read every card, domino and stick on the table in each picture."""
    from calibration.topdown import TopDownView
    from vision.annotate import annotate_cards
    from vision.dominoes.annotate import annotate_dominoes
    from vision.table import KINDS, TableReader

    profile = load_calibration(calibration) if calibration else None
    try:
        reader = TableReader(tuple(kind.strip() for kind in only.split(",") if kind.strip()) if only else KINDS)
    except ValueError as exc:
        fail(f"--only: {exc}")
        raise typer.Exit(code=2) from exc
    sources, empty_folders = expand_inputs(paths)
    for line in empty_folders:
        fail(line)
    failed = len(empty_folders)
    for source in sources:
        try:
            image = load_image(source)
        except ImageLoadError as exc:
            fail(str(exc))
            failed += 1
            continue
        advise(source, image)
        reading = reader.read(image, str(source), TopDownView(profile.table) if profile else None)
        if profile and (problem := profile.size_problem((reading.width, reading.height))):
            fail(f"{source}: {problem}")
            failed += 1
            continue
        if as_json:
            typer.echo(json.dumps(reading.to_json(profile)))
        else:
            _print_table(reading)
        if annotate:
            target = _annotation_path(annotate, source, len(sources) > 1)
            write_image(target, annotate_dominoes(annotate_cards(image, reading.cards), reading.dominoes))
    if failed:
        raise typer.Exit(code=1)


def _print_table(reading) -> None:
    typer.echo(f"{reading.source}: {reading.width}x{reading.height}, {counted(len(reading.cards), 'card')}")
    for card in sorted(reading.cards, key=lambda c: (c.center[1], c.center[0])):
        x, y = card.center
        typer.echo(f"  {card.face.label:>5}  at ({x:6.0f}, {y:6.0f})  confidence {card.confidence:.2f}")
    if reading.dominoes:
        typer.echo(f"  {counted(len(reading.dominoes), 'domino', 'dominoes')}")
    for domino in sorted(reading.dominoes, key=lambda d: (d.center[1], d.center[0])):
        x, y = domino.center
        pips = f"{domino.pips[0]}|{domino.pips[1]}"
        typer.echo(f"  {pips:>5}  at ({x:6.0f}, {y:6.0f})  confidence {domino.confidence:.2f}")
    if reading.sticks:
        typer.echo(f"  {counted(len(reading.sticks), 'stick')}")
    for group in reading.polysticks:
        shape = f"DIGIT card {group.card}" if group.card else "no DIGIT card"
        where = "on the lattice" if group.on_lattice else "off the lattice"
        typer.echo(f"  a group of {counted(len(group.sticks), 'stick')}, {where}: {shape}")


RACE_OPTION = typer.Option(
    False, "--race", help="The race mat: the same markers, the page given to lanes a card tall (2) or wide (3)."
)
LANES_OPTION = typer.Option(None, "--lanes", help="Lanes printed: 2-4 on the play mat (4), 2-3 on the race mat (2).")


@kit_app.command("mat")
def kit_mat(
    output: Path = pdf_output("mat.pdf"),
    a4: bool = typer.Option(False, "--a4", help="Two A4 sheets that join edge to edge instead of one A3 page."),
    race: bool = RACE_OPTION,
    lanes: int | None = LANES_OPTION,
) -> None:
    """The play mat: ArUco markers, Tempus lanes, pi, stick and hand areas; or the race mat (--race)."""
    from calibration.mat import render_mat, render_mat_tiles
    from server.calibrate import mat_layout
    from server.kit import write_pdf

    layout = mat_layout(race, lanes)
    pages = render_mat_tiles(layout) if a4 else [render_mat(layout)]
    write_pdf(pages, output)
    typer.echo(
        f"wrote {output}: {'two A4 sheets, join them along the grey ticks' if a4 else 'one A3 page'}; print at 100 %"
    )


@kit_app.command("board")
def kit_board(
    output: Path = pdf_output("charuco.pdf"),
) -> None:
    """The ChArUco board for `tableref calibrate lens`."""
    from calibration.lens import render_board
    from server.kit import write_pdf

    write_pdf([render_board()], output)
    typer.echo(f"wrote {output}: print at 100 % on A4 and show it to the camera from many angles")


@app.command(no_args_is_help=True)
def calibrate(
    args: list[str] = typer.Argument(
        ...,
        metavar="SOURCE | lens SOURCE",
        help="A camera index (0), a video or image file, or a stream URL; "
        "`lens SOURCE` calibrates the lens from ChArUco board views.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the homography, marker ids and reprojection error."),
    profile: Path = typer.Option(
        Path("calibration.json"), callback=output_file, help="Where to write the calibration profile."
    ),
    annotate: Path = typer.Option(
        Path("calibration.png"), callback=output_image, help="Where to write the annotated frame."
    ),
    lens: Path | None = typer.Option(None, help="A lens file from `calibrate lens`, applied before the homography."),
    views: int = typer.Option(20, min=1, help="With `lens`: board views to take from the source."),
    output: Path = typer.Option(
        Path("lens.json"), "-o", "--output", callback=output_file, help="With `lens`: where to write it."
    ),
    race: bool = RACE_OPTION,
    lanes: int | None = LANES_OPTION,
) -> None:
    """Find the printed play mat and save the table's calibration (image pixels to table millimetres).

    Draw your own zones on the table afterwards with `tableref zones`."""
    from server.calibrate import calibrate_camera_lens, calibrate_table, mat_layout

    if args[0] == "lens":
        if len(args) != 2:
            fail("usage: tableref calibrate lens SOURCE")
            raise typer.Exit(code=2)
        calibrate_camera_lens(args[1], output, views)
    elif len(args) == 1:
        calibrate_table(args[0], profile, annotate, as_json, lens, mat_layout(race, lanes))
    else:
        fail("give one SOURCE (or `lens SOURCE`)")
        raise typer.Exit(code=2)


@app.command(no_args_is_help=True)
def zones(
    profile: Path = typer.Argument(..., help="A profile from `tableref calibrate`."),
    add: list[str] = typer.Option(
        [],
        "--add",
        help="NAME=x,y x,y x,y ... in table mm (repeat). lane-N is player N's lane, read from its first corner "
        "toward its second; hand-N is player N's hand area; an existing name is redrawn.",
    ),
    remove: list[str] = typer.Option([], "--remove", help="A zone to remove (repeat)."),
    load: Path | None = typer.Option(None, "--load", help="Add the zones of a JSON file (a profile's zones list)."),
    pixels: bool = typer.Option(False, "--pixels", help="--add points are frame pixels, mapped through the profile."),
    reset: bool = typer.Option(False, "--reset", help="Start again from the zones printed on the mat."),
    race: bool = typer.Option(False, "--race", help="Replace the lanes by the race mat's (lanes a card tall)."),
    lanes: int | None = typer.Option(None, "--lanes", help="With --race or --reset: how many lanes the print has."),
    as_json: bool = typer.Option(False, "--json", help="Print the zones as JSON."),
) -> None:
    """List or draw the profile's zones: named areas of the table (player lanes, your own areas)."""
    from server.calibrate import edit_zones, mat_layout

    edit_zones(profile, add, remove, load, pixels, reset, as_json, mat_layout(race, lanes))


@evaluate_app.command("calibration")
def evaluate_calibration(
    frames: int = typer.Option(
        200, min=0, help="Rendered mat views for the homography's accuracy (within 2 mm; 0: skip)."
    ),
    lane_frames: int = typer.Option(
        40, min=0, help="Rendered mat views with cards in lanes, read three ways (0: skip)."
    ),
    seed: int = typer.Option(0, help="First view seed; the lane views start 1000 later."),
) -> None:
    """The mat: where the homography puts known table points, and how cards in lanes are read (raw, top-down, both)."""
    from server.calibrate import evaluate_calibration as run

    run(frames, lane_frames, seed)


@evaluate_app.command("table")
def evaluate_table(
    frames: int = typer.Option(
        40, min=1, help="Held-out frames of each kind: cards, tiles, stick layouts, empty tables."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
    written_notes: bool = typer.Option(
        False,
        "--written-notes",
        help="Lay 2-4 paper notes written on by hand (scores, tallies, pi's digits, a doodle) on the card and tile "
        "frames and the empty tables, as score sheets lie beside a game.",
    ),
) -> None:
    """False detections with every kind read (as `recognize` reads): each recogniser's readings on the other
    kinds' held-out frames and on empty tables with coins, pens, paper notes and the Reference card."""
    from models.evaluate_table import COUNTED
    from models.evaluate_table import evaluate_table as run

    with progress_bar() as progress:
        task = progress.add_task("reading every kind", total=frames * len(COUNTED))
        result = run(frames, on_frame=lambda: progress.advance(task), written_notes=written_notes)
    if as_json:
        typer.echo(json.dumps(result))
        return
    typer.echo(f"{'frames of':>10} {'cards':>6} {'dominoes':>9} {'sticks':>7} {'sticks read as a card':>22}")
    for kind, counts in result.items():
        cells = [str(counts.get(k, "-")) for k in ("cards", "dominoes", "sticks", "digit")]
        typer.echo(f"{kind:>10} {cells[0]:>6} {cells[1]:>9} {cells[2]:>7} {cells[3]:>22}")
    typer.echo(f"{counted(frames, 'held-out frame')} of each kind; every detection counted is false (- not counted)")


@app.command(no_args_is_help=True)
def results(
    file: Path = typer.Argument(..., help="A results file written by `tableref judge ... --record FILE`."),
    as_json: bool = typer.Option(False, "--json", help="Every watch and its events, one JSON object a watch."),
) -> None:
    """What the judges recorded: each race or game watched, when, how it ended, and what was judged last."""
    from server.hand_table import SOURCE as TYPED
    from server.storage import StorageError, recorded

    try:
        watches = recorded(file)
    except StorageError as exc:
        fail(str(exc))
        raise typer.Exit(code=1) from exc
    for watch in watches:
        if as_json:
            typer.echo(json.dumps(watch.to_json()))
            continue
        typed = watch.source == TYPED  # a hand game: its lines typed, not frames
        ended = "stopped mid-way"
        if typed:
            ended = f"open: `tableref serve --game {watch.game} --results {file}` takes it up"
        if watch.ended_by:
            done = counted(watch.frames, "line typed", "lines typed") if typed else counted(watch.frames, "frame")
            ended = f"ended by {watch.ended_by} after {done}"
        typer.echo(f"{watch.id}. {watch.game} on {watch.source}, {watch.started}: {len(watch.events)} judged, {ended}")
        if watch.events:
            last = watch.events[-1]
            said = "; ".join(last["lines"]) if last.get("lines") else json.dumps(last)
            typer.echo(f"   last, at {last['seconds']:.2f} s: {said}")


@app.command()
def bench(
    repeat: int = typer.Option(20, min=1, help="Times each picture is read."),
    clip: list[Path] = typer.Option(
        [], help="A video of your own table to read as well, frame by frame, by all three recognisers (repeatable)."
    ),
) -> None:
    """Per-stage milliseconds and frames per second on the project's sample pictures, and frames per second on
    its clips (and yours) read through the camera path, on one CPU core."""
    from server.bench import run_bench
    from vision.sources import SourceError

    for video in clip:
        if not video.is_file():
            fail(f"{video}: no such file; give a video file of the table (MP4, AVI...)")
            raise typer.Exit(code=1)
    try:
        run_bench(repeat, clips=tuple(clip))
    except SourceError as exc:
        fail(str(exc))
        raise typer.Exit(code=1) from exc
