"""`tableref judge seven-pis` on typed tiles and on a rendered photo of a game, and `tableref evaluate dominoes`."""

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.homography import TableHomography
from calibration.profile import CalibrationProfile, save_profile
from calibration.zones import Zone, Zones
from models.synth.dominoes import DominoSpec, render_dominoes
from rules.dominoes import Domino
from rules.seven_pis import DOUBLE_SIX, TableState
from rules.seven_pis_play import play_game
from tests.server.test_cli import tableref


def test_typed_pis_are_judged() -> None:
    result = tableref("judge", "seven-pis", "--tiles", "3|4 4|1 3|2 1|6; 2|2 - 2|5 -; 6|6 5|5", "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["set"] == "double-six"
    assert verdict["completed_pis"] == [0]
    assert verdict["placed"] == 8 and verdict["score"] == 28 - 8
    assert [p["complete"] for p in verdict["pis"]] == [True, False, False]
    assert verdict["pis"][2]["problems"][0]["kind"] == "mismatch"  # 6|6 against 5|5 along the back
    assert verdict["status"]["flags"] == ["mismatch"]


def test_typed_pis_of_five_mean_double_nine_and_pips_scoring_counts_pips() -> None:
    result = tableref("judge", "seven-pis", "--tiles", "9|8 8|7 7|6 9|1 6|0", "--pips", "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["set"] == "double-nine" and verdict["completed_pis"] == [0]
    assert verdict["score"] == 11 * sum(range(10)) - (17 + 15 + 13 + 10 + 6)  # each count is on 11 ends


@pytest.mark.parametrize(
    "args",
    [
        ("--tiles", "3|x"),
        ("--tiles", "1|2 2|3 3|4 4|5 5|6 6|6 0|0"),  # more tiles than a pi has slots
        ("--tiles", "1|2", "--set", "ten"),
        (),
    ],
)
def test_bad_input_is_refused(args: tuple[str, ...]) -> None:
    result = tableref("judge", "seven-pis", *args)
    assert result.returncode == 2
    assert result.stderr.startswith("tableref: ")


def test_a_missing_photo_is_named(tmp_path: Path) -> None:
    result = tableref("judge", "seven-pis", str(tmp_path / "nope.jpg"))
    assert result.returncode == 1
    assert "nope.jpg" in result.stderr


def test_a_photo_of_a_finished_game_is_scored(tmp_path: Path) -> None:
    """The advisor's game, laid out as its pis and photographed on a held-out table."""
    state = play_game("advisor", 5, DOUBLE_SIX)[-1]
    shape = DOUBLE_SIX.shape
    placed = tuple((p.pi, shape.slots[shape.index[p.slot]].cells, p.ends) for p in state.layout.placements)
    spec = DominoSpec(split="heldout", layout="pis", top=6, placed=placed, tile_px=(50, 60), max_tilt=25)
    photo = tmp_path / "pis.jpg"
    cv2.imwrite(str(photo), render_dominoes(5, spec).image)
    result = tableref("judge", "seven-pis", str(photo), "--json", "--annotate", str(tmp_path / "pis.png"))
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    truth = state.outcome()
    assert verdict["set"] == "double-six"
    assert verdict["placed"] == truth.placed and verdict["score"] == truth.score
    assert len(verdict["completed_pis"]) == len(truth.completed)
    assert verdict["status"]["ok"]
    assert cv2.imread(str(tmp_path / "pis.png")) is not None


def test_the_draw_pile_lying_face_down_beside_the_pis_is_not_read_as_tiles(tmp_path: Path) -> None:
    """Mid-game, the tiles not yet drawn lie face down in a heap beside the pis (as the sheet has the draw pile):
    the photo is judged as the pis alone, none of the pile taken for a tile laid."""
    states = play_game("advisor", 5, DOUBLE_SIX)
    state = states[len(states) // 2]
    shape = DOUBLE_SIX.shape
    placed = tuple((p.pi, shape.slots[shape.index[p.slot]].cells, p.ends) for p in state.layout.placements)
    spec = DominoSpec(split="heldout", layout="pis", top=6, placed=placed, tile_px=(50, 60), max_tilt=25)
    scene = render_dominoes(5, replace(spec, face_down=28 - len(placed)))
    assert len(scene.face_down) >= 8
    photo = tmp_path / "mid-game.jpg"
    cv2.imwrite(str(photo), scene.image)
    result = tableref("judge", "seven-pis", str(photo), "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["placed"] == state.outcome().placed == len(placed)
    assert verdict["status"]["ok"], verdict["status"]


HAND = 99  # the hand's tiles are laid as a block of their own, apart from the pis


def _mid_game_photo(tmp_path: Path, seed: int, turn: int) -> tuple[TableState, Path, Path]:
    """A game's table after `turn` turns, photographed with the hand's tiles laid apart, and a calibration
    whose hand area (px = 2 mm) holds the hand's tiles and nothing else."""
    state = play_game("advisor", seed, DOUBLE_SIX)[turn]
    shape = DOUBLE_SIX.shape
    placed = tuple((p.pi, shape.slots[shape.index[p.slot]].cells, p.ends) for p in state.layout.placements)
    hand = tuple((HAND, ((0, 2 * k), (1, 2 * k)), tile.ends) for k, tile in enumerate(state.hand))
    spec = DominoSpec(split="heldout", layout="pis", top=6, placed=placed + hand, tile_px=(50, 60), max_tilt=25)
    scene = render_dominoes(seed, spec)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), scene.image)
    held = np.concatenate([t.corners for t in scene.tiles if t.pi == HAND])
    (x0, y0), (x1, y1) = held.min(axis=0) - 10, held.max(axis=0) + 10
    box = tuple((2.0 * float(x), 2.0 * float(y)) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
    table = TableHomography(np.diag([2.0, 2.0, 1.0]), (1280, 720), (0, 1, 2), 0.3)
    profile = tmp_path / "calibration.json"
    save_profile(CalibrationProfile(table, Zones([Zone("hand", box, "hand")])), profile)
    return state, photo, profile


@pytest.mark.parametrize(("seed", "turn"), [(5, 2), (11, 4)])
def test_the_tiles_in_the_hand_area_are_the_hand(tmp_path: Path, seed: int, turn: int) -> None:
    state, photo, profile = _mid_game_photo(tmp_path, seed, turn)
    result = tableref("judge", "seven-pis", str(photo), "--calibration", str(profile), "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert sorted(sorted(Domino.parse(t).ends) for t in verdict["hand"]) == sorted(sorted(t.ends) for t in state.hand)
    assert verdict["placed"] == len(state.layout.placements)
    assert len(verdict["legal_placements"]) == len(list(state.legal_placements()))
    assert sum(d["in_hand"] for d in verdict["dominoes"]) == len(state.hand)
    typed = tableref("judge", "seven-pis", str(photo), "--calibration", str(profile), "--hand", "6|6", "--json")
    assert json.loads(typed.stdout)["hand"] == ["6|6"]  # typed, the hand overrides what the area shows
    assert json.loads(typed.stdout)["placed"] == len(state.layout.placements)


def test_an_empty_hand_area_is_a_hand_not_shown(tmp_path: Path) -> None:
    _, photo, _ = _mid_game_photo(tmp_path, 5, 2)
    table = TableHomography(np.diag([2.0, 2.0, 1.0]), (1280, 720), (0, 1, 2), 0.3)
    profile = tmp_path / "empty.json"
    corner = ((0.0, 0.0), (20.0, 0.0), (20.0, 20.0), (0.0, 20.0))  # the frame's top-left corner, 10 px a side
    save_profile(CalibrationProfile(table, Zones([Zone("hand", corner, "hand")])), profile)
    verdict = json.loads(tableref("judge", "seven-pis", str(photo), "--calibration", str(profile), "--json").stdout)
    assert "hand" not in verdict and "over" not in verdict and "legal_placements" not in verdict
    assert verdict["dominoes"] and not any(d["in_hand"] for d in verdict["dominoes"])


def test_a_calibration_is_for_a_photo_of_its_camera(tmp_path: Path) -> None:
    _, photo, profile = _mid_game_photo(tmp_path, 5, 2)
    cv2.imwrite(str(photo), cv2.resize(cv2.imread(str(photo)), (640, 360)))
    result = tableref("judge", "seven-pis", str(photo), "--calibration", str(profile))
    assert result.returncode == 1 and "640x360 pixels" in result.stderr
    typed = tableref("judge", "seven-pis", "--tiles", "3|4 4|1", "--calibration", str(profile))
    assert typed.returncode == 2 and "for a photo" in typed.stderr
    table = TableHomography(np.diag([2.0, 2.0, 1.0]), (1280, 720), (0, 1, 2), 0.3)
    lanes_only = tmp_path / "lanes.json"
    save_profile(CalibrationProfile(table, Zones([Zone("lane-1", ((0, 0), (9, 0), (9, 9)), "lane", 1)])), lanes_only)
    result = tableref("judge", "seven-pis", str(photo), "--calibration", str(lanes_only))
    assert result.returncode == 2 and "no hand area" in result.stderr and "--add hand-1=" in result.stderr


def test_evaluate_prints_figures() -> None:
    result = tableref("evaluate", "dominoes", "--scenes", "2", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["tiles"] >= 28 and set(figures["by_kind"]) == {"pis-28", "mix"}
    assert 0 <= figures["accuracy"] <= 1 and figures["median_cpu_ms_28_tiles"] > 0


def test_evaluate_lays_the_scenes_on_a_table_asked_for_by_name() -> None:
    result = tableref(
        "evaluate", "dominoes", "--scenes", "1", "--table", "polka", "--face-down", "4", "--marked-backs", "1",
        "--ridged", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    title = " ".join(result.stdout.split())  # the table's title wraps
    assert "every scene on a polka table" in title and "backs marked in 100% of scenes" in title
    assert "dividers ridged in 100% of scenes" in title
    unknown = tableref("evaluate", "dominoes", "--scenes", "1", "--table", "lino")
    assert unknown.returncode == 2 and "unknown table kind 'lino'" in unknown.stderr and "polka" in unknown.stderr


def test_recognize_reports_dominoes_in_the_contract_shape(tmp_path: Path) -> None:
    spec = DominoSpec(split="heldout", layout="scatter", n_tiles=(4, 6), tile_px=(40, 50), max_tilt=20)
    scene = render_dominoes(3, spec)
    photo = tmp_path / "tiles.jpg"
    cv2.imwrite(str(photo), scene.image)
    result = tableref("recognize", "--json", str(photo), "--annotate", str(tmp_path / "out.png"))
    assert result.returncode == 0, result.stderr
    reading = json.loads(result.stdout)
    assert len(reading["dominoes"]) >= len(scene.tiles) / 2  # the contract's shape, not the accuracy
    for domino in reading["dominoes"]:
        assert list(domino) == ["center", "corners", "halves", "confidence"]
        assert len(domino["corners"]) == 4 and len(domino["halves"]) == 2
        assert all(0 <= half["pips"] <= 9 and len(half["center"]) == 2 for half in domino["halves"])
    assert cv2.imread(str(tmp_path / "out.png")) is not None


def test_a_typed_hand_gets_its_legal_placements_and_the_advisors_play() -> None:
    result = tableref("judge", "seven-pis", "--tiles", "3|4 4|1 3|2 1|6; 2|2 - 2|5 -", "--hand", "2|6 5|5", "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["over"] is False
    legal = verdict["legal_placements"]
    assert legal and all(sorted(p["ends"]) in ([2, 6], [5, 5]) for p in legal)
    assert {"pi": 1, "slot": "back-2", "ends": [2, 6]} in legal  # its 2 against the 2|2 above
    assert {"pi": 1, "slot": "back-2", "ends": [6, 2]} not in legal
    assert verdict["advice"]["placements"] and all(p in legal for p in verdict["advice"]["placements"][:1])
