"""A DIGIT game refereed from a film: each layout as it settles, each turn judged; a camera that stops."""

import functools
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
import server.watching as watching
from models.evaluate_sticks import scene_spec
from models.synth.samples import CLIP_FPS, FRAMES_PER_STEP, digit_game_layouts, filmed, write_clip
from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.sticks import Symmetry, card_number
from server.app import app
from server.digit_video import run_digit_moves
from tests.server.sources import darkened, unplug_after
from vision.advice import Adviser

GAME = str(Path(__file__).resolve().parents[2] / "samples" / "digit-game.mp4")
TURN = FRAMES_PER_STEP  # frames each layout of the sample game is filmed for


def test_the_sample_game_is_read_layout_by_layout_and_each_turn_judged() -> None:
    """Card 17, a legal move to card 5, then two sticks moved at once: the layouts settle at their first
    frames, the first turn is legal and shows card 5, the second is not, with two sticks moved."""
    result = CliRunner().invoke(app, ["judge", "digit-moves", GAME, "--json"])
    assert result.exit_code == 0, result.output
    game = json.loads(result.stdout)
    cards = [card_number(edges) for edges in digit_game_layouts()]
    assert [layout["card"] for layout in game["layouts"]] == cards
    assert [layout["seconds"] for layout in game["layouts"]] == [n * TURN / CLIP_FPS for n in range(3)]
    assert all(layout["glare"] is None for layout in game["layouts"])
    first, second = game["moves"]
    assert first["legal"] and first["card"] == cards[1] and first["sticks_moved"] == 1
    assert not second["legal"] and second["status"] == ["several_sticks_moved"] and second["sticks_moved"] == 2
    text = CliRunner().invoke(app, ["judge", "digit-moves", GAME]).stdout
    assert f"the table now shows card {cards[1]}" in text and "several sticks moved (2)" in text
    assert text.rstrip().endswith("2 turns judged, 1 legal")


def test_a_settled_layout_is_matched_against_the_cards_on_the_table(tmp_path: Path) -> None:
    """Variant 4: the printed cards beside the sticks are read once the layout settles, and matched."""
    spec = StickSceneSpec(
        split="heldout", kind="lattice", card=30, cards=(30, 31, 2), table="red_felt", stick_px=(70, 100)
    )
    clip = tmp_path / "cards.mp4"
    write_clip(clip, filmed(render_stick_scene(81_041, spec).image, TURN, seed=1))
    result = CliRunner().invoke(app, ["judge", "digit-moves", str(clip), "--json"])
    assert result.exit_code == 0, result.output
    (layout,) = json.loads(result.stdout)["layouts"]
    assert layout["card"] == 30 and layout["matches"] == [30]
    assert sorted(c["card"] for c in layout["table_cards"]) == [2, 30, 31]
    text = CliRunner().invoke(app, ["judge", "digit-moves", str(clip)]).stdout
    assert "the table shows card 30; it matches card 30 on the table" in text


def test_a_layout_settled_short_beside_a_lamp_s_glare_carries_the_advice(tmp_path: Path) -> None:
    """Held-out 40209 filmed: a lamp's glare whitens two of the layout's sticks, and three are read. The layout
    that settles says so, in its JSON and in its line, as `judge digit` tells of a photo."""
    clip = tmp_path / "glare.mp4"
    write_clip(clip, filmed(render_stick_scene(40_209, scene_spec(209, "heldout", 330)).image, TURN, seed=1))
    result = CliRunner().invoke(app, ["judge", "digit-moves", str(clip), "--json"])
    assert result.exit_code == 0, result.output
    (layout,) = json.loads(result.stdout)["layouts"]
    assert layout["card"] is None and 0 < layout["sticks"] < 5
    assert "glare" in layout["glare"] and "move the lamp" in layout["glare"]
    assert "move the lamp" in CliRunner().invoke(app, ["judge", "digit-moves", str(clip)]).stdout


def test_a_camera_that_stops_mid_game_leaves_the_turns_judged(monkeypatch, capsys) -> None:
    unplug_after(monkeypatch, TURN * 2 - 1)
    with pytest.raises(typer.Exit) as ended:
        run_digit_moves(GAME, Symmetry.ALL_EIGHT, as_json=False)
    assert ended.value.exit_code == 1
    out, err = capsys.readouterr()
    assert "1 turn judged, 1 legal" in out
    assert f"the camera stopped after {TURN * 2 - 1} frames" in err


def test_a_film_too_dark_is_told_once_as_it_is_watched(tmp_path: Path, monkeypatch) -> None:
    """Every frame looked at for advice, the player is told once that the picture is dark and what to do, and
    the sample film as it was shot is told nothing."""
    monkeypatch.setattr(watching, "Adviser", functools.partial(Adviser, every_s=0.0))
    dark = darkened(GAME, tmp_path / "dark.mp4")
    said = CliRunner().invoke(app, ["judge", "digit-moves", str(dark)]).stderr
    assert said.count("the picture is dark") == 1 and "light the table" in said, said
    assert "tableref:" not in CliRunner().invoke(app, ["judge", "digit-moves", GAME]).stderr
