"""The `tableref` command."""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

import cv2
import typer

from rules.tempus import TempusError, TempusOptions, TempusVerdict, judge
from vision.image_io import ImageLoadError, load_image
from vision.sources import IMAGE_SUFFIXES

app = typer.Typer(
    help="tableref: reads digit cards, dominoes and sticks on a real table and referees the games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
judge_app = typer.Typer(help="Judge a position by a game's rules.", no_args_is_help=True)
kit_app = typer.Typer(help="Printable game material (PDF).", no_args_is_help=True)
app.add_typer(judge_app, name="judge")
app.add_typer(kit_app, name="kit")


def _fail(message: str) -> None:
    typer.echo(f"tableref: {message}", err=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tableref {version('tableref')}")
        raise typer.Exit()


@app.callback()
def _root(
    _version_flag: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """tableref: reads digit cards, dominoes and sticks on a real table and referees the games."""


def expand_inputs(paths: list[Path]) -> list[Path]:
    """Folders stand for the images directly inside them; everything else is passed through to be checked."""
    expanded: list[Path] = []
    for path in paths:
        if path.is_dir():
            try:
                expanded.extend(sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES))
            except PermissionError:
                expanded.append(path)  # load_image names the problem
        else:
            expanded.append(path)
    return expanded


def _annotation_path(out: Path, source: Path, many: bool) -> Path:
    return out.with_name(f"{out.stem}-{source.stem}{out.suffix}") if many else out


@app.command()
def recognize(
    paths: list[Path] = typer.Argument(..., help="Images, or folders of images."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per image, one per line."),
    annotate: Path | None = typer.Option(
        None, "--annotate", help="Write the picture with what was read drawn on it (OUT.png)."
    ),
    calibration: Path | None = typer.Option(
        None, "--calibration", help="A profile from `tableref calibrate`: adds table millimetres and zones."
    ),
) -> None:
    """Read every card on the table in each picture."""
    from calibration.profile import ProfileError, load_profile
    from vision.annotate import annotate_cards
    from vision.table import TableReader

    try:
        profile = load_profile(calibration) if calibration else None
    except ProfileError as exc:
        _fail(f"{calibration}: {exc}")
        raise typer.Exit(code=2) from exc
    reader = TableReader()
    sources = expand_inputs(paths)
    failed = 0
    for source in sources:
        try:
            image = load_image(source)
        except ImageLoadError as exc:
            _fail(str(exc))
            failed += 1
            continue
        reading = reader.read(image, str(source))
        if profile and tuple(profile.table.image_size) != (reading.width, reading.height):
            w, h = profile.table.image_size
            _fail(
                f"{source}: is {reading.width}x{reading.height} but {calibration} was made at {w}x{h}; calibrate again"
            )
            failed += 1
            continue
        if as_json:
            typer.echo(json.dumps(reading.to_json(profile)))
        else:
            _print_table(reading)
        if annotate:
            target = _annotation_path(annotate, source, len(sources) > 1)
            cv2.imwrite(str(target), annotate_cards(image, reading.cards))
    if failed:
        raise typer.Exit(code=1)


def _print_table(reading) -> None:
    typer.echo(f"{reading.source}: {reading.width}x{reading.height}, {len(reading.cards)} cards")
    for card in sorted(reading.cards, key=lambda c: (c.center[1], c.center[0])):
        x, y = card.center
        typer.echo(f"  {card.face.label:>5}  at ({x:6.0f}, {y:6.0f})  confidence {card.confidence:.2f}")


def _print_verdict(verdict: TempusVerdict, options: TempusOptions) -> None:
    cards = "".join(str(d) for d in verdict.cards)
    typer.echo(f"3.{cards or ''}")
    typer.echo(f"consecutive correct: {verdict.consecutive_correct} of {options.digits}")
    if verdict.first_error:
        e = verdict.first_error
        expected = "no card (the deck ends there)" if e.expected < 0 else str(e.expected)
        typer.echo(f"first error: card {e.index + 1} after the Starter is {e.got}, expected {expected}")
    elif verdict.complete:
        typer.echo("complete: every digit in order")
    else:
        typer.echo("no error so far; the deck is not finished")


@judge_app.command("tempus")
def judge_tempus(
    photo: Path | None = typer.Argument(None, help="A photo of the Starter and the cards laid after it."),
    digits: str | None = typer.Option(None, help="Judge a typed sequence instead of a photo, e.g. 14159."),
    beginner: int = typer.Option(50, "--beginner", help="House rule: only the first N digits are in play."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    annotate: Path | None = typer.Option(None, "--annotate", help="Write the photo with the reading order."),
) -> None:
    """How much of pi is right: consecutive correct cards after the Starter, and the first error."""
    try:
        options = TempusOptions(digits=beginner)
    except TempusError as exc:
        _fail(str(exc))
        raise typer.Exit(code=2) from exc
    extra: dict = {}
    if digits is not None:
        if photo is not None:
            _fail("give a photo or --digits, not both")
            raise typer.Exit(code=2)
        cleaned = digits.removeprefix("3.").replace(" ", "")
        if not cleaned.isdigit():
            _fail(f"--digits takes digits only, got {digits!r}")
            raise typer.Exit(code=2)
        sequence = [int(c) for c in cleaned]
    elif photo is not None:
        sequence, extra = _read_tempus_photo(photo, annotate)
    else:
        _fail("give a photo of the cards, or --digits")
        raise typer.Exit(code=2)
    verdict = judge(sequence, options)
    if as_json:
        typer.echo(json.dumps({**verdict.to_json(), **extra}))
    else:
        _print_verdict(verdict, options)
        for warning in extra.get("warnings", []):
            typer.echo(f"note: {warning}")


def _read_tempus_photo(photo: Path, annotate: Path | None) -> tuple[list[int], dict]:
    from vision.annotate import annotate_cards
    from vision.cards.lines import NoStarterError, read_line
    from vision.cards.recognize import CardRecognizer

    try:
        image = load_image(photo)
    except ImageLoadError as exc:
        _fail(str(exc))
        raise typer.Exit(code=1) from exc
    cards = CardRecognizer()(image)
    try:
        line = read_line(cards)
    except NoStarterError as exc:
        _fail(f"{photo}: {exc}")
        raise typer.Exit(code=1) from exc
    warnings = []
    wilds = [c for c in line.cards if c.face.kind != "digit"]
    if wilds:
        warnings.append(f"{len(wilds)} non-digit card(s) in the line; Tempus decks hold digits only")
    if line.stray:
        warnings.append(f"{len(line.stray)} card(s) lie apart from the line and were not judged")
    if annotate:
        cv2.imwrite(str(annotate), annotate_cards(image, cards, [line.starter, *line.cards]))
    # A non-digit card breaks the sequence where it lies: -1 can match no digit of pi.
    sequence = [c.face.digits[0] if c.face.kind == "digit" else -1 for c in line.cards]
    sequence = sequence[: sequence.index(-1)] if -1 in sequence else sequence
    return sequence, {
        "rows": [len(r) for r in line.rows],
        "stray_cards": len(line.stray),
        "warnings": warnings,
    }


@kit_app.command("digits")
def kit_digits(
    output: Path = typer.Option(Path("deck.pdf"), "-o", "--output", help="Where to write the PDF."),
) -> None:
    """The print-and-play Decko-style deck on A4 with cut marks."""
    from server.kit import write_digit_deck

    pages = write_digit_deck(output)
    typer.echo(f"wrote {output}: {pages} A4 pages, 9 cards a page, cut along the marks")


@judge_app.command("digit")
def judge_digit(
    list_cards: bool = typer.Option(False, "--list", help="Print the 55 DIGIT cards: number, code and edges."),
    as_json: bool = typer.Option(False, "--json", help="As JSON, one object per card."),
) -> None:
    """DIGIT, the stick game. Reading a layout from a photo comes with the stick recogniser."""
    from rules.sticks import PENTASTICKS, shape_code, to_ascii

    if not list_cards:
        _fail("reading stick layouts from photos is not built yet; use --list")
        raise typer.Exit(code=2)
    for number, shape in enumerate(PENTASTICKS, start=1):
        edges = sorted(shape)
        if as_json:
            typer.echo(json.dumps({"card": number, "code": shape_code(edges), "edges": [e.to_json() for e in edges]}))
        else:
            typer.echo(f"card {number}: {shape_code(edges)}\n{to_ascii(edges)}\n")


@app.command()
def simulate(
    game: str = typer.Argument(..., help="The game: seven-pis."),
    strategy: list[str] = typer.Option(
        ["many", "one-at-a-time", "advisor"], "--strategy", help="many, one-at-a-time or advisor; repeat to compare."
    ),
    games: int = typer.Option(10_000, help="Games per strategy."),
    seed: int = typer.Option(2026, help="The same seed plays the same deals."),
    double_nine: bool = typer.Option(False, "--double-nine", help="11 pis of 5 tiles from a double-nine set."),
    as_json: bool = typer.Option(False, "--json", help="One JSON summary per strategy."),
) -> None:
    """Settle the Seven Pis sheet's open question by simulation: which way of playing leaves fewest tiles."""
    from rich.console import Console
    from rich.progress import Progress

    from rules.seven_pis import DOUBLE_NINE, DOUBLE_SIX
    from rules.seven_pis_play import STRATEGIES
    from rules.seven_pis_play import simulate as run

    if game != "seven-pis":
        _fail(f"no simulator for {game!r}; choose: seven-pis")
        raise typer.Exit(code=2)
    unknown = [s for s in strategy if s not in STRATEGIES]
    if unknown or games < 1:
        _fail(
            f"unknown strategy {unknown[0]!r}; choose: {', '.join(STRATEGIES)}" if unknown else "--games must be >= 1"
        )
        raise typer.Exit(code=2)
    setup = DOUBLE_NINE if double_nine else DOUBLE_SIX
    summaries = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
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


@kit_app.command("mat")
def kit_mat(
    output: Path = typer.Option(Path("mat.pdf"), "-o", "--output", help="Where to write the PDF."),
    a4: bool = typer.Option(False, "--a4", help="Two A4 sheets that join edge to edge instead of one A3 page."),
) -> None:
    """The play mat: ArUco markers, Tempus lanes, pi, stick and hand areas."""
    from calibration.mat import render_mat, render_mat_tiles
    from server.kit import write_pdf

    pages = render_mat_tiles() if a4 else [render_mat()]
    write_pdf(pages, output)
    typer.echo(
        f"wrote {output}: {'two A4 sheets, join them along the grey ticks' if a4 else 'one A3 page'}; print at 100 %"
    )


@kit_app.command("board")
def kit_board(
    output: Path = typer.Option(Path("charuco.pdf"), "-o", "--output", help="Where to write the PDF."),
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
    profile: Path = typer.Option(Path("calibration.json"), help="Where to write the calibration profile."),
    annotate: Path = typer.Option(Path("calibration.png"), help="Where to write the annotated frame."),
    lens: Path | None = typer.Option(None, help="A lens file from `calibrate lens`, applied before the homography."),
    views: int = typer.Option(20, help="With `lens`: board views to take from the source."),
    output: Path = typer.Option(Path("lens.json"), "-o", "--output", help="With `lens`: where to write it."),
) -> None:
    """Find the printed play mat and save the table's calibration (image pixels to table millimetres)."""
    from server.calibrate import calibrate_camera_lens, calibrate_table

    if args[0] == "lens":
        if len(args) != 2:
            _fail("usage: tableref calibrate lens SOURCE")
            raise typer.Exit(code=2)
        calibrate_camera_lens(args[1], output, views)
    elif len(args) == 1:
        calibrate_table(args[0], profile, annotate, as_json, lens)
    else:
        _fail("give one SOURCE (or `lens SOURCE`)")
        raise typer.Exit(code=2)


@app.command()
def bench(
    repeat: int = typer.Option(20, help="Times each picture is read."),
) -> None:
    """Per-stage milliseconds and frames per second on the project's sample pictures, on one CPU core."""
    from server.bench import run_bench

    run_bench(repeat)


@app.command()
def evaluate(
    what: str = typer.Argument("cards", help="Which recogniser: cards."),
    scenes: int = typer.Option(120, help="Held-out scenes to render and read."),
    seed: int = typer.Option(20_000_000, help="First scene seed (held-out seeds never overlap training)."),
) -> None:
    """Accuracy on held-out renders: fonts, card designs and tables that training never saw."""
    if what != "cards":
        _fail(f"no evaluation for {what!r} yet; choose: cards")
        raise typer.Exit(code=2)
    from models.evaluate import evaluate_cards

    evaluate_cards(scenes, seed)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
