"""A Seven Pis game scored from a film: each turn's tiles as they settle, the pis kept apart and numbered the
same all game, the score; a camera that stops."""

import json
from collections import Counter
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
from models.synth.samples import CLIP_FPS, FRAMES_PER_STEP, seven_pis_game
from rules.seven_pis import Scoring
from server.app import app
from server.seven_pis_video import run_pis_watch, stable_labels
from tests.server.sources import unplug_after
from vision.dominoes.pis import PiGroup

GAME = str(Path(__file__).resolve().parents[2] / "samples" / "seven-pis.mp4")
TURN = FRAMES_PER_STEP  # frames each turn of the sample game is filmed for


def _pis(placements) -> Counter:
    """Each pi's tiles, whatever the pis' numbers and the tiles' ends."""
    by_pi: dict = {}
    for pi, ends in placements:
        by_pi.setdefault(pi, []).append(tuple(sorted(ends)))
    return Counter(tuple(sorted(tiles)) for tiles in by_pi.values())


def test_the_sample_game_is_scored_turn_by_turn() -> None:
    """The advisor's game that goes out: every turn settles at its first frame with the tiles it laid, no tile
    leaves, and at the end the pis hold the game's tiles: score 0 (one misread pip allowed)."""
    order, counts = seven_pis_game()
    result = CliRunner().invoke(app, ["judge", "seven-pis", GAME, "--json"])
    assert result.exit_code == 0, result.output
    tables = json.loads(result.stdout)["tables"]
    assert [t["seconds"] for t in tables] == [n * TURN / CLIP_FPS for n in range(len(counts))]
    laid = [len(t["laid"]) for t in tables]
    assert [sum(laid[: n + 1]) for n in range(len(laid))] == counts
    assert not any(t["left"] for t in tables)
    last = tables[-1]
    read = _pis((int(pi), p["ends"]) for pi, tiles in last["pis"].items() for p in tiles)
    truth = _pis((p.pi, p.ends) for p in order)
    assert len(last["complete_pis"]) == 7 and sum((truth - read).values()) <= 1
    numbers: dict = {}  # each tile's pi numbers over the game: a pi keeps its number as others are started
    for table in tables:
        for pi, tiles in table["pis"].items():
            for p in tiles:
                numbers.setdefault(tuple(sorted(p["ends"])), set()).add(int(pi))
    assert sum(len(seen) == 1 for seen in numbers.values()) >= 25  # numbered by place in each frame: 4 of 28
    assert all(0 <= int(pi) < 7 for table in tables for pi in table["pis"])
    text = CliRunner().invoke(app, ["judge", "seven-pis", GAME]).stdout
    assert text.splitlines()[0].startswith("   0.00 s  laid ") and "score: " in text.splitlines()[-1]


def test_a_camera_that_stops_mid_game_leaves_the_tables_judged(monkeypatch, capsys) -> None:
    unplug_after(monkeypatch, TURN * 2 + 1)
    with pytest.raises(typer.Exit) as ended:
        run_pis_watch(GAME, "six", Scoring.TILES, as_json=False)
    assert ended.value.exit_code == 1
    out, err = capsys.readouterr()
    _, counts = seven_pis_game()
    assert f"with {counts[1]} tiles placed" in out
    assert f"the camera stopped after {TURN * 2 + 1} frames: camera 0: no frame for 10 s" in err


def test_hand_and_annotate_are_for_photos() -> None:
    result = CliRunner().invoke(app, ["judge", "seven-pis", GAME, "--hand", "3|5"])
    assert result.exit_code == 2 and "for a photo" in result.output


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=5, unique=True), min_size=1, max_size=8), st.data())
def test_pis_keep_their_numbers_and_never_share_one(groups: list, data) -> None:
    """Whatever the tiles' numbers before, each group gets its own number, and a group whose tiles all had
    one number, not taken by a group before it, keeps it."""
    tiles = sorted({t for g in groups for t in g})
    before = data.draw(st.dictionaries(st.sampled_from(tiles), st.integers(0, 6)))
    ids = tiles
    pi_groups = [PiGroup(k, tuple(ids.index(t) for t in dict.fromkeys(g)), ()) for k, g in enumerate(groups)]
    labels = stable_labels(pi_groups, ids, before)
    assert sorted(labels) == list(range(len(groups)))
    assert len(set(labels.values())) == len(groups)
    claimed: set[int] = set()
    for k, group in enumerate(groups):
        had = {before[t] for t in group if t in before}
        if len(had) == 1 and all(t in before for t in group) and not had & claimed:
            assert labels[k] == had.pop()
        claimed.add(labels[k])
