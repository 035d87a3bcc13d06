"""The command line as a user meets it: exit codes, stderr lines, JSON shapes."""

import json
import os
import re
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from models.synth.samples import CLIP_FPS, FRAMES_PER_STEP, SAMPLE_SCENES
from models.synth.scenes import render_scene
from rules.pi import PI_DECIMALS

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def tableref(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server", *args], capture_output=True, text=True, timeout=300)


def test_every_command_has_help() -> None:
    """Every command and group the CLI registers, walked from the top, answers --help (the top one in a real
    process, as a user runs it)."""
    import typer.main
    from typer.testing import CliRunner

    import server.cli  # noqa: F401  (registers the commands)
    from server.app import app

    result = tableref("--help")
    assert result.returncode == 0 and "Usage" in result.stdout, result.stderr
    paths, groups = [], [([], typer.main.get_command(app))]
    while groups:
        path, group = groups.pop()
        for name, command in group.commands.items():
            paths.append([*path, name])
            if hasattr(command, "commands"):
                groups.append(([*path, name], command))
    assert {"recognize", "serve", "append", "death-by-digits", "tempus"} <= {p[-1] for p in paths}
    for path in paths:
        shown = CliRunner().invoke(app, [*path, "--help"])
        assert shown.exit_code == 0 and "Usage" in shown.stdout, (path, shown.output)


@pytest.mark.parametrize(
    ("command", "syntax"),
    [
        (("judge", "pass"), "'[draws N;] [trade NAME;] CARD -> NAME'"),
        (("judge", "mathleague"), "'LEVEL SCORE COLOUR [school=NAME] [tools=10+5]"),
    ],
)
def test_help_keeps_the_square_brackets_of_a_syntax_and_its_sentences_whole(command, syntax) -> None:
    shown = tableref(*command, "--help").stdout
    assert syntax in re.sub(r"[\s│]+", " ", shown)
    # Sentences are rewrapped to the terminal: no line of the description stops short mid-sentence.
    description = shown.split("╭")[0].splitlines()
    assert all(len(line.rstrip()) > 60 for line in description[3:-2] if line.strip())


def test_version() -> None:
    result = tableref("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("tableref ")


def test_recognize_json_follows_the_contract_and_bad_files_do_not_stop_the_rest(tmp_path) -> None:
    text = tmp_path / "notes.jpg"
    text.write_text("not a picture")
    empty = tmp_path / "empty.png"
    Image.fromarray(np.full((240, 320, 3), 90, np.uint8)).save(empty)
    missing = tmp_path / "missing.png"
    sample = SAMPLES / "table-12-cards.jpg"
    result = tableref("recognize", "--json", str(sample), str(text), str(missing), str(empty))
    assert result.returncode == 1
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 2
    assert str(text) in errors[0] and str(missing) in errors[1]
    lines = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert [o["source"] for o in lines] == [str(sample), str(empty)]
    first, blank = lines
    assert (first["width"], first["height"]) == (1280, 720)
    assert set(first) == {"source", "width", "height", "cards", "dominoes", "sticks", "polysticks"}
    assert blank["cards"] == [] and blank["dominoes"] == [] and blank["sticks"] == []
    card = first["cards"][0]
    assert set(card) == {"kind", "digits", "center", "corners", "confidence"}
    assert len(card["corners"]) == 4 and 0 <= card["confidence"] <= 1
    truth = sorted(c.face.label for c in render_scene(*SAMPLE_SCENES["table-12-cards.jpg"]).cards)
    read = sorted(
        "/".join(map(str, c["digits"]))
        if c["kind"] == "wild"
        else ("3." if c["kind"] == "starter" else str(c["digits"][0]))
        for c in first["cards"]
    )
    assert read == truth


def _without_root_privilege() -> list[str]:
    """A prefix that makes file permissions bite: root reads everything unless it gives up these capabilities."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv, so no file can be made unreadable")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def test_recognize_reports_each_unreadable_or_empty_input_and_reads_the_rest(tmp_path) -> None:
    sample = SAMPLES / "close-up.jpg"
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(sample, mixed / "a.jpg")
    shutil.copy(sample, mixed / "b.jpg")
    (mixed / "b.jpg").chmod(0)
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(sample, locked / "c.jpg")
    listed_only = tmp_path / "listed-only"  # names can be listed but no file opened
    listed_only.mkdir()
    shutil.copy(sample, listed_only / "d.jpg")
    empty = tmp_path / "empty"
    empty.mkdir()
    locked.chmod(0)
    listed_only.chmod(0o444)
    try:
        result = subprocess.run(
            [*_without_root_privilege(), sys.executable, "-m", "server", "recognize", "--json", "--only", "cards"]
            + [str(p) for p in (locked, mixed, listed_only, empty)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        locked.chmod(0o755)
        listed_only.chmod(0o755)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 4, errors
    for culprit, remedy in (
        (empty, "no images"),
        (locked, "check its permissions"),
        (mixed / "b.jpg", "check its permissions"),
        (listed_only / "d.jpg", "folder's permissions"),
    ):
        assert any(line.startswith(f"tableref: {culprit}: ") and remedy in line for line in errors), culprit
    assert [json.loads(line)["source"] for line in result.stdout.splitlines()] == [str(mixed / "a.jpg")]


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["kit", "digits", "-o", "{tmp}"], "is a folder"),
        (["kit", "mat", "-o", "{tmp}/no-such-folder/mat.pdf"], "does not exist"),
        (["recognize", str(SAMPLES / "close-up.jpg"), "--annotate", "{tmp}/seen.pdf"], "end the name in"),
        (["judge", "tempus", str(SAMPLES / "tempus-row.jpg"), "--annotate", "{tmp}/shut/seen.png"], "permission"),
        (["calibrate", str(SAMPLES / "mat-view.jpg"), "--profile", "{tmp}/shut/calibration.json"], "permission"),
    ],
)
def test_a_file_that_cannot_be_written_is_refused_before_any_work(tmp_path, args, problem) -> None:
    """A wrong output place is a usage error, found before the picture is read, rather than a traceback after
    it (and, for a verdict, instead of the verdict)."""
    shut = tmp_path / "shut"
    shut.mkdir()
    shut.chmod(0o555)
    try:
        result = subprocess.run(
            [*_without_root_privilege(), sys.executable, "-m", "server"] + [a.format(tmp=tmp_path) for a in args],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shut.chmod(0o755)
    assert result.returncode == 2, result.stderr
    assert problem in re.sub(r"[\s│]+", " ", result.stderr) and "Traceback" not in result.stderr  # rich wraps it
    assert result.stdout == ""
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["shut"]


def test_recognize_only_the_kinds_asked_for() -> None:
    sticks = SAMPLES / "sticks-digit.jpg"
    everything = json.loads(tableref("recognize", "--json", str(sticks)).stdout)
    only_cards = tableref("recognize", "--json", "--only", "cards", str(sticks))
    assert only_cards.returncode == 0, only_cards.stderr
    reading = json.loads(only_cards.stdout)
    assert reading["cards"] == everything["cards"]
    assert reading["sticks"] == reading["polysticks"] == reading["dominoes"] == []
    assert everything["sticks"]  # the picture has sticks, so leaving them out was the option's doing


def test_recognize_refuses_an_unknown_kind() -> None:
    result = tableref("recognize", "--only", "cards,marbles", str(SAMPLES / "close-up.jpg"))
    assert result.returncode == 2
    assert "marbles" in result.stderr and result.stdout == ""


def test_recognize_annotates(tmp_path) -> None:
    out = tmp_path / "seen.png"
    result = tableref("recognize", str(SAMPLES / "close-up.jpg"), "--annotate", str(out))
    assert result.returncode == 0, result.stderr
    assert Image.open(out).size == (1280, 720)
    assert ", 1 card\n" in result.stdout  # the close-up holds one card, said in the singular


def test_a_frame_to_fix_gets_advice_on_stderr_and_is_still_read(tmp_path) -> None:
    """The demo photo streaked by a moving camera and out of focus: one line each on stderr naming the file and
    what to do, the JSON on stdout as ever; the photo as taken gets none."""
    import cv2

    from vision.deblur import MotionBlur

    sample = SAMPLES / "tempus-row.jpg"
    image = cv2.imread(str(sample))
    streaked, soft = tmp_path / "streaked.png", tmp_path / "soft.png"
    cv2.imwrite(str(streaked), cv2.filter2D(image, -1, MotionBlur(13.0, 30.0).kernel()))
    cv2.imwrite(str(soft), cv2.GaussianBlur(image, (0, 0), 2.5))
    result = tableref("recognize", "--json", str(sample), str(streaked), str(soft))
    assert result.returncode == 0, result.stderr
    advice = result.stderr.strip().splitlines()
    assert len(advice) == 2
    assert str(streaked) in advice[0] and "the camera moved" in advice[0] and "hold it still" in advice[0]
    assert str(soft) in advice[1] and "out of focus" in advice[1]
    assert len(result.stdout.strip().splitlines()) == 3
    judged = tableref("judge", "tempus", str(streaked))
    assert judged.returncode == 0 and "the camera moved" in judged.stderr


def test_judge_tempus_on_the_demo_photo() -> None:
    result = tableref("judge", "tempus", str(SAMPLES / "tempus-row.jpg"), "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    # The sample lays twelve right digits, then the next two swapped.
    assert verdict["consecutive_correct"] == 12
    assert verdict["first_error"] == {"index": 12, "expected": PI_DECIMALS[12], "got": PI_DECIMALS[13]}
    assert verdict["cards"] == [*PI_DECIMALS[:12], PI_DECIMALS[13], PI_DECIMALS[12]]


def test_judge_tempus_times_the_race_filmed_in_a_video() -> None:
    """The sample race, a card laid every FRAMES_PER_STEP frames: the line read as it grew, one card at a
    time, each timed to the frame it was laid in; judged as the photo of the finished line is."""
    result = tableref("judge", "tempus", str(SAMPLES / "tempus-race.mp4"), "--json")
    assert result.returncode == 0, result.stderr
    race = json.loads(result.stdout)
    assert race["consecutive_correct"] == 12 and race["first_error"]["index"] == 12
    laid = race["laid"]
    assert [len(step["cards"]) for step in laid] == list(range(len(race["cards"]) + 1))
    assert all(later["cards"][:-1] == earlier["cards"] for earlier, later in pairwise(laid))
    card_turn = FRAMES_PER_STEP / CLIP_FPS
    for step in laid:
        assert abs(step["seconds"] - len(step["cards"]) * card_turn) < 1.01 / CLIP_FPS
    assert race["finished_at"] == laid[-1]["seconds"] and race["within_time"]


def test_judge_tempus_on_a_video_with_no_starter_says_so() -> None:
    result = tableref("judge", "tempus", str(SAMPLES / "digit-game.mp4"))
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()  # no blank line from the progress bar, in a log as here
    assert "digit-game.mp4" in line and "no line after a Starter" in line


def test_a_broken_video_gets_our_one_line_and_none_of_ffmpegs(tmp_path) -> None:
    film = tmp_path / "race.mp4"
    film.write_bytes((SAMPLES / "tempus-race.mp4").read_bytes()[:20_000])  # cut off: its index (moov) is lost
    result = tableref("judge", "tempus", str(film))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"tableref: {film}: cannot be opened as a video; check that it is a video file OpenCV can decode (MP4, AVI...)"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "cards", "--scenes", "0"],
        ["evaluate", "sticks", "--scenes", "-1"],
        ["evaluate", "dominoes", "--scenes", "0"],
        ["evaluate", "table", "--frames", "0"],
        ["evaluate", "calibration", "--frames", "-5"],
        ["bench", "--repeat", "0"],
        ["simulate", "seven-pis", "--games", "0"],
    ],
)
def test_a_count_that_cannot_be_run_is_a_usage_error(args) -> None:
    result = tableref(*args)
    assert result.returncode == 2 and "Invalid value" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("typed", "count"), [("14159", 5), ("3.1415926", 7), ("1415", 4), ("2", 0)])
def test_judge_tempus_typed(typed: str, count: int) -> None:
    result = tableref("judge", "tempus", "--digits", typed, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["consecutive_correct"] == count


def test_judge_tempus_refuses_nonsense() -> None:
    result = tableref("judge", "tempus", "--digits", "14x59")
    assert result.returncode == 2
    assert "digits only" in result.stderr


def test_judge_tempus_without_a_starter_says_what_to_do(tmp_path) -> None:
    blank = tmp_path / "blank.png"
    Image.fromarray(np.full((240, 320, 3), 120, np.uint8)).save(blank)
    result = tableref("judge", "tempus", str(blank))
    assert result.returncode == 1
    assert "Starter" in result.stderr


def test_judge_append_reads_a_line_with_wilds_and_says_what_the_hand_appends(tmp_path) -> None:
    """A held-out render of the appending game's line: the cards as laid (Wilds in place), every one right,
    and the hand's run to append after it."""
    import random

    from models.evaluate import appending_line_spec
    from rules.decko import card_text

    seed = 97_200_000
    scene = render_scene(seed, appending_line_spec(random.Random(seed), "heldout"))
    photo = tmp_path / "line.png"
    Image.fromarray(scene.image[..., ::-1]).save(photo)
    laid = [card_text(f.played) for f in (c.face for c in scene.cards[1:])]
    following = PI_DECIMALS[len(laid) : len(laid) + 2]
    hand = f"{following[1]} {following[0] % 5}/{following[0] % 5 + 5} 0"
    result = tableref("judge", "append", str(photo), "--hand", hand, "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["cards"] == laid and verdict["correct"] == len(laid) and verdict["first_error"] is None
    assert verdict["next_digit"] == following[0]
    assert verdict["append_now"] == hand.split()[1::-1]  # the Wild for the next digit, then the one after
    assert not any("Starter" in warning for warning in verdict["warnings"])


def test_judge_append_says_when_no_starter_was_read_and_a_card_stood_in_for_it(tmp_path) -> None:
    """A line headed by a 3 instead of the Starter (a Starter misread looks so): the 3 heads the line, and the
    player is told to check it."""
    from models.synth.scenes import SceneSpec
    from vision.cards.artwork import CardFace

    faces = tuple(CardFace("digit", (d,)) for d in (3, 1, 4, 1, 5, 9))
    scene = render_scene(97_250_000, SceneSpec(split="heldout", layout="row", faces=faces, one_deck_style=True))
    photo = tmp_path / "line.png"
    Image.fromarray(scene.image[..., ::-1]).save(photo)
    result = tableref("judge", "append", str(photo))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "3.14159"
    assert "note: no Starter was read: the card heading the line (read as 3) was taken for it" in result.stdout


def test_judge_append_typed_names_the_first_wrong_card_and_refuses_nonsense() -> None:
    result = tableref("judge", "append", "--cards", "1 4 2/7 5")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == ["3.14[2/7]5", "right: 2 card(s) in order after the Starter"]
    assert "card 3 after the Starter is the Wild 2/7, expected 1" in result.stdout
    line = " ".join(map(str, PI_DECIMALS[:45]))
    jumping = tableref("judge", "append", "--cards", line, "--hand", "0 1/6", "--deck-empty", "--json")
    assert json.loads(jumping.stdout)["jump_to_end"] == ["1/6", "0"]
    stuck = tableref("judge", "append", "--cards", line, "--hand", "0 1/6")  # the deck not said to be empty
    assert (
        stuck.stdout.splitlines()[-1]
        == "no card in the hand fits the next digit (3): draw (up to three draws this turn)"
    )
    for args, said in (
        (("--cards", "1 4 1/5"), "--cards: not a Decko card: 1/5"),
        (("--cards", "1", "--hand", "x"), "--hand: not a card: 'x'"),
        ((), "give a photo of the line or --cards"),
    ):
        refused = tableref("judge", "append", *args)
        assert refused.returncode == 2 and said in refused.stderr, args


def test_judge_blocks_reads_the_sets_on_a_held_out_table(tmp_path) -> None:
    import random

    from models.evaluate import block_sets_spec
    from rules.blocks import blocks_matched

    seed = 97_600_000
    spec = block_sets_spec(random.Random(seed), "heldout")
    photo = tmp_path / "sets.png"
    Image.fromarray(render_scene(seed, spec).image[..., ::-1]).save(photo)
    played = [f.played for f in spec.faces]
    truth = [played[k : k + 5] for k in range(0, len(played), 5)]
    result = tableref("judge", "blocks", str(photo), "--json", "--annotate", str(tmp_path / "read.png"))
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout)
    assert table["blocks"] == len(truth) and (tmp_path / "read.png").is_file()
    assert sorted(s["counted"] for s in table["sets"]) == sorted(blocks_matched(cards)[0] for cards in truth)
