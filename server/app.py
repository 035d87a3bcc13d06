"""The `tableref` typer apps and what every subcommand shares; the commands live in server/commands/."""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import typer
from rich.console import Console
from rich.progress import Progress

from models.synth.degrade import Degradation
from vision.image_io import ImageLoadError, load_image
from vision.sources import IMAGE_SUFFIXES

if TYPE_CHECKING:
    from calibration.profile import CalibrationProfile

# Help as Markdown: paragraphs rewrapped to the terminal and `code` shown as code; Rich's own markup would keep a
# docstring's line breaks and take square brackets ("[draws N;]") for styles, dropping them.
HELP_MARKUP = "markdown"
app = typer.Typer(
    help="tableref: reads digit cards, dominoes and sticks on a real table and referees the games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=HELP_MARKUP,
)
judge_app = typer.Typer(help="Judge a position by a game's rules.", no_args_is_help=True, rich_markup_mode=HELP_MARKUP)
kit_app = typer.Typer(help="Printable game material (PDF).", no_args_is_help=True, rich_markup_mode=HELP_MARKUP)
evaluate_app = typer.Typer(
    help="Accuracy on held-out renders: designs, tables and angles that training never saw.",
    no_args_is_help=True,
    rich_markup_mode=HELP_MARKUP,
)
app.add_typer(judge_app, name="judge")
app.add_typer(kit_app, name="kit")
app.add_typer(evaluate_app, name="evaluate")


def _writable(path: Path | None, suffixes: frozenset[str] = frozenset()) -> Path | None:
    """Refuse, before any work is done, a file that could not be written where the user asked."""
    if path is None:
        return None
    if path.is_dir():
        problem = "is a folder; name a file in it"
    elif not path.parent.is_dir():
        problem = f"the folder {path.parent} does not exist; make it first"
    elif not os.access(path if path.exists() else path.parent, os.W_OK):
        problem = "cannot be written there (permission denied); choose another place"
    elif suffixes and path.suffix.lower() not in suffixes:
        problem = f"end the name in {', '.join(sorted(suffixes))} so that the picture's format is known"
    else:
        return path
    raise typer.BadParameter(f"{path}: {problem}")


def output_file(path: Path | None) -> Path | None:
    """A typer callback for an option naming a file to write."""
    return _writable(path)


def output_image(path: Path | None) -> Path | None:
    """A typer callback for an option naming a picture to write: also a format OpenCV can write."""
    return _writable(path, frozenset(IMAGE_SUFFIXES))


def pdf_output(default: str) -> typer.models.OptionInfo:
    """The -o option of a `kit` command."""
    return typer.Option(Path(default), "-o", "--output", callback=output_file, help="Where to write the PDF.")


def photo_or_film_argument(photo: str, film: str) -> typer.models.ArgumentInfo:
    """The PHOTO argument of a judge that also referees what is filmed: a photo of `photo`; or `film` (a race
    to time, a game to referee) from a video, a camera or a stream."""
    return typer.Argument(
        None, help=f"A photo of {photo}; or {film}: a video (MP4, AVI...), a camera (0) or a stream URL."
    )


def annotate_option(what: str) -> typer.models.OptionInfo:
    """The --annotate option: `what` is what the written photo shows drawn on it."""
    return typer.Option(
        None, "--annotate", callback=output_image, help=f"Write the photo with {what} drawn on it (OUT.png)."
    )


def progress_bar() -> Progress:
    """A bar for a long job on stderr, gone when it is done; none where stderr is a log or a pipe, which would
    get only a stray blank line from it."""
    console = Console(stderr=True)
    return Progress(console=console, transient=True, disable=not console.is_terminal)


def write_image(path: Path, image: np.ndarray) -> None:
    """Write a picture the user asked for; cv2.imwrite tells of a failure only by returning False."""
    if not cv2.imwrite(str(path), image):
        fail(f"{path}: the picture could not be written; check that the disk has room")
        raise typer.Exit(code=1)


# Every evaluation can read its renders made worse, as a poor webcam makes frames (models/synth/degrade.py).
DEGRADE_OPTION = typer.Option(
    Degradation.none,
    help="Make each render worse first: jpeg (compressed again at quality 40), dim (light cut to 45 % with "
    "sensor noise), bright (overexposed: light raised 1.6 times, cut off at white), warm (a tungsten lamp's "
    "colour cast left in: blue to 0.6, green to 0.85 of the light), grey (a monochrome camera: the colour "
    "gone), blur (the camera moving 11 px), soft "
    "(out of focus: a Gaussian blur of sigma 2 px), barrel (an uncalibrated wide lens's barrel distortion; "
    "the truth is bent with the frame), turned (turned half round: the table's far side at the top, as a "
    "webcam at the table's edge sees it; the renders put it at the foot), phone (a phone's own processing: noise "
    "smoothed away, local tone mapping, sharpening halos, darker corners) or hand (a player's arm and hand "
    "reaching in beside what lies on the table, covering none of it).",
)


# Every judge that takes a film can keep what it judges as it goes (server/storage.py).
RECORD_OPTION = typer.Option(
    None,
    "--record",
    callback=output_file,
    help="On a film, a camera or a stream: a SQLite file that keeps each line, table or turn the moment it is "
    "judged, so that a crash loses nothing already judged. `tableref results FILE` reads it back.",
)


def film_only(record: Path | None, source: str | None) -> None:
    """--record is for a film; with anything else, one line saying so and exit code 2."""
    from vision.sources import is_film

    if record is not None and (source is None or not is_film(source)):
        fail("--record keeps what a film, a camera or a stream is judged to; a photo's verdict is printed whole")
        raise typer.Exit(code=2)


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """ "1 tile", "2 tiles": a count and its noun, plural unless one (`nouns` where an s will not do)."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def fail(message: str) -> None:
    """One line on stderr, prefixed so that it reads as the tool speaking."""
    typer.echo(f"tableref: {message}", err=True)


def advise(source: Path | str, image: np.ndarray) -> None:
    """A line on stderr for each thing about the picture the player could fix (vision/advice.py): what was
    read from it may be short, and the frame is easier to fix than to read through."""
    from vision.advice import frame_advice

    for advice in frame_advice(image):
        typer.echo(f"tableref: {source}: {advice.message}", err=True)


def load_photo(path: Path) -> np.ndarray:
    """The picture at `path`, with advice on it (`advise`); if it cannot be read, one line saying why and exit
    code 1."""
    try:
        image = load_image(path)
    except ImageLoadError as exc:
        fail(str(exc))
        raise typer.Exit(code=1) from exc
    advise(path, image)
    return image


def load_calibration(path: Path, purpose: str | None = None) -> CalibrationProfile:
    """The calibration profile at `path`, with a zone of `purpose` if one is named; if it cannot be used, one
    line naming the file and what is wrong, and exit code 2."""
    from calibration.profile import ProfileError, load_profile

    try:
        profile = load_profile(path)
    except ProfileError as exc:
        fail(f"{path}: {exc}")
        raise typer.Exit(code=2) from exc
    if purpose is not None and not any(zone.purpose == purpose for zone in profile.zones):
        fail(
            f"{path}: the profile has no {purpose} area (a zone of purpose '{purpose}'); draw one with "
            f"`tableref zones {path} --add {purpose}-1=x,y x,y x,y ...`"
        )
        raise typer.Exit(code=2)
    return profile


def in_hand_area(profile: CalibrationProfile | None, centres: np.ndarray) -> np.ndarray:
    """Whether each object centre (n, 2 frame px) lies in the profile's hand area; none without a profile."""
    return profile.in_purpose(centres, "hand") if profile is not None else np.zeros(len(centres), bool)


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


def expand_inputs(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """Folders stand for the images directly inside them; everything else is passed through for load_image to
    check. Also a line for each folder that holds no image."""
    expanded: list[Path] = []
    empty: list[str] = []
    for path in paths:
        try:
            if not path.is_dir():
                expanded.append(path)
                continue
            images = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        except PermissionError:
            expanded.append(path)  # load_image names the problem
            continue
        expanded.extend(images)
        if not images:
            suffixes = ", ".join(sorted(IMAGE_SUFFIXES))
            empty.append(f"{path}: a folder with no images in it (looked for {suffixes}); check the path")
    return expanded, empty
