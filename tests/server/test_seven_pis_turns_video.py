"""A filmed Seven Pis game judged turn by turn from the hand shown in the mat's hand area: a legal turn, a turn
that lays a tile never in the hand, a hand tidied between turns, and the hand's tiles never taken for tiles
laid."""

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
import server.watching as watching
from calibration.homography import TableHomography
from calibration.profile import CalibrationProfile, save_profile
from calibration.zones import Zone, Zones
from models.synth.dominoes import DominoSpec, render_dominoes
from models.synth.samples import SEVEN_PIS_GAME_SEED, filmed
from rules.dominoes import Domino
from rules.seven_pis import DOUBLE_SIX, LegalPlacements, Placement, TableState
from rules.seven_pis_play import play_game
from server.app import app
from server.seven_pis_video import _Boundary, _turn, turn_text
from server.storage import recorded
from vision.sources import FrameCounts, timed_frames

GAME_SEED, RENDER_SEED = 5, 4  # a held-out birch table whose ten tiles are all read
HAND = 99  # the hand's places, a block of their own beside the pis
FPS = 4
# A hand tile moved within the hand area is out of sight where it lay until the tracker forgets it (3 s), and the
# table must then be steady (1.5 s): the tidy is filmed long enough for a turn to end in it, were it a draw.
TIDY_FRAMES = 24
SAMPLE = str(Path(__file__).resolve().parents[2] / "samples" / "seven-pis.mp4")


def _tiles(tiles) -> list:
    """Tiles (as "3|4", [3, 4] or Domino) sorted, whichever way round each lies."""
    as_read = {str: Domino.parse, list: lambda ends: Domino(*ends)}
    return sorted(sorted(as_read.get(type(t), lambda tile: tile)(t).ends) for t in tiles)


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> dict:
    """The advisor's first turn of a game (legal), then a turn that lays a hand tile and a tile from the pile
    beside it, each refilled: the first turn's draw into places of their own in the hand area, the second's
    into the place of the hand tile laid. Before the second turn lays anything, the player tidies the hand: a
    tile kept moves to an empty place in the hand area. Filmed at FPS, with a calibration (1 px = 2 mm) whose
    hand area is the hull round the hand's places."""
    tmp = tmp_path_factory.mktemp("turns")
    start, first = play_game("advisor", GAME_SEED, DOUBLE_SIX)[:2]
    played = list(first.layout.placements)
    mine = next(iter(first.legal_placements()))
    laid = first.layout.place(mine)
    stranger = next(iter(LegalPlacements(laid, TableState(laid, first.hand).unseen())))  # legal, not from the hand
    kept = [t for t in first.hand if t != mine.tile]
    drawn = next(t for t in TableState(laid, first.hand).unseen() if t != stranger.tile)
    on_table = [*played, mine, stranger]
    left = [t for t in start.hand if t not in {p.tile for p in played}]
    tidied = kept[0]
    steps = [  # tiles laid, hand shown, frames filmed, the tidied tile in its new place
        (0, list(start.hand), 10, False),
        (len(played), left, 3, False),  # laid; the hand not yet refilled
        (len(played), list(first.hand), 20, False),  # refilled
        (len(played), list(first.hand), TIDY_FRAMES, True),  # the hand tidied: no draw, no turn
        (len(on_table), kept, 3, True),
        (len(on_table), [*kept, drawn], 20, True),
    ]
    places = {t: k for k, t in enumerate(dict.fromkeys(t for _, hand, _, _ in steps[:3] for t in hand))}
    places[drawn] = places[mine.tile]  # drawn where the tile laid lay
    shape = DOUBLE_SIX.shape

    def cells(k: int) -> tuple:
        row, col = 3 * (k // 4), 2 * (k % 4) + 6  # two rows of four, six cells right of the pis
        return ((row, col), (row + 1, col))

    placed = tuple((p.pi, shape.slots[shape.index[p.slot]].cells, p.ends) for p in on_table)
    placed += tuple((HAND, cells(k), t.ends) for t, k in places.items())
    placed += ((HAND, cells(max(places.values()) + 1), tidied.ends),)  # where the tidied tile goes
    spec = DominoSpec(split="heldout", layout="pis", top=6, max_tilt=35, placed=placed)
    video = tmp / "game.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (1280, 720))
    for k, (n, hand, frames, tidy) in enumerate(steps):
        shown = tuple(range(n)) + tuple(
            len(on_table) + (len(places) if tidy and t == tidied else list(places).index(t)) for t in hand
        )
        for frame in filmed(render_dominoes(RENDER_SEED, replace(spec, shown=shown)).image, frames, k):
            writer.write(frame)
    writer.release()
    everything = render_dominoes(RENDER_SEED, spec)
    held = np.concatenate([t.corners for t in everything.tiles if t.pi == HAND]).astype(np.float32)
    hull = cv2.convexHull(held).reshape(-1, 2)
    hull = hull.mean(axis=0) + 1.1 * (hull - hull.mean(axis=0))
    table = TableHomography(np.diag([2.0, 2.0, 1.0]), (1280, 720), (0, 1, 2), 0.3)
    profile = tmp / "calibration.json"
    area = Zone("hand", tuple(map(tuple, (2.0 * hull).tolist())), "hand")
    save_profile(CalibrationProfile(table, Zones([area])), profile)
    return {
        "video": str(video),
        "profile": str(profile),
        "hands": [start.hand, first.hand, (*kept, drawn)],
        "played": [played, [mine, stranger]],
        "stranger": stranger,
        "on_table": on_table,
        "refilled": [sum(frames for _, _, frames, _ in steps[:k]) / FPS for k in (2, 5)],  # each draw's first frame
        "second_refill": sum(frames for _, _, frames, _ in steps[:5]),  # the second refill's first frame (from 0)
    }


def test_each_turn_is_judged_from_the_hand(game: dict, tmp_path: Path) -> None:
    kept = tmp_path / "results.sqlite"
    args = ["judge", "seven-pis", game["video"], "--calibration", game["profile"], "--json", "--record", str(kept)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    turns = out["turns"]
    (watched,) = recorded(kept)
    assert [e for e in watched.events if "turn" in e] == turns  # each turn kept as it was judged
    assert [e for e in watched.events if "turn" not in e] == out["tables"]
    assert [t["turn"] for t in turns] == [0, 1, 2] and not out["turn_open"]
    assert [_tiles(t["hand"]) for t in turns] == [_tiles(h) for h in game["hands"]]
    assert [_tiles(Placement.from_json(p).tile for p in t["played"]) for t in turns[1:]] == [
        _tiles(p.tile for p in played) for played in game["played"]
    ]
    assert turns[0]["ok"] and turns[1]["ok"]
    assert turns[2]["flags"] == ["not_from_hand"]
    (problem,) = turns[2]["problems"]
    assert _tiles(Placement.from_json(p).tile for p in problem["placements"]) == _tiles([game["stranger"].tile])
    assert [t["seconds"] for t in turns] == [0.0, *game["refilled"]]  # each turn timed at its draw's first frame
    laid = [Placement.from_json(p).tile for t in out["tables"] for p in t["laid"]]
    assert _tiles(laid) == _tiles(p.tile for p in game["on_table"])  # the hand's tiles are never laid
    assert out["tables"][-1]["placed"] == len(game["on_table"])
    assert out["tables"][0]["laid"] == [] and _tiles(out["tables"][0]["hand"]) == _tiles(game["hands"][0])
    assert not any(t["left"] for t in out["tables"])
    text = CliRunner().invoke(app, ["judge", "seven-pis", game["video"], "--calibration", game["profile"]]).stdout
    lines = text.splitlines()
    assert any(line.split("s  ", 1)[-1].startswith("turn 1: played ") and line.endswith("(ok)") for line in lines)
    a, b = game["stranger"].ends
    said = (f"not from hand: {a}|{b} was laid but was not in the hand", f"not from hand: {b}|{a} was laid")
    assert any("turn 2: " in line and any(s in line for s in said) for line in lines)
    assert "2 turns judged, 1 breaking a rule" in text
    assert lines[0].startswith("   0.00 s  nothing laid yet: 0 tiles placed")  # the film starts with the hand alone


def test_without_a_calibration_the_hand_is_tiles_laid_and_no_turn_is_judged(game: dict) -> None:
    result = CliRunner().invoke(app, ["judge", "seven-pis", game["video"], "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert "turns" not in out and "hand" not in out["tables"][0]
    assert _tiles(p["ends"] for p in out["tables"][0]["laid"]) == _tiles(game["hands"][0])


def test_a_film_needs_a_profile_with_a_hand_area_made_at_its_size(tmp_path: Path) -> None:
    table = TableHomography(np.diag([2.0, 2.0, 1.0]), (640, 360), (0, 1, 2), 0.3)
    small = tmp_path / "small.json"
    save_profile(CalibrationProfile(table, Zones([Zone("hand", ((0, 0), (90, 0), (90, 90)), "hand")])), small)
    result = CliRunner().invoke(app, ["judge", "seven-pis", SAMPLE, "--calibration", str(small)])
    assert result.exit_code == 1 and "1280x720 pixels" in result.output and "640x360" in result.output
    lanes = tmp_path / "lanes.json"
    save_profile(CalibrationProfile(table, Zones([Zone("lane-1", ((0, 0), (9, 0), (9, 9)), "lane", 1)])), lanes)
    result = CliRunner().invoke(app, ["judge", "seven-pis", SAMPLE, "--calibration", str(lanes)])
    assert result.exit_code == 2 and "no hand area" in result.output


def test_a_frame_of_another_size_mid_game_ends_the_watch_and_what_was_judged_stands(
    game: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A camera that switches to another size mid-game cannot be placed by the calibration: the watch ends at
    that frame, the turns judged until then are printed and kept, the record says how it ended, and the user
    is told why."""
    cut = game["second_refill"]  # the second turn's tiles are laid, the hand not yet refilled

    def resized_mid_game(source: str, count: int, counts: FrameCounts | None = None):
        for n, (seconds, frame) in enumerate(timed_frames(source, count, counts=counts)):
            yield seconds, frame if n < cut else cv2.resize(frame, (640, 360))

    monkeypatch.setattr(watching, "timed_frames", resized_mid_game)
    kept = tmp_path / "results.sqlite"
    args = ["judge", "seven-pis", game["video"], "--calibration", game["profile"], "--record", str(kept)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert f"frame {cut + 1} is 640x360 pixels, but the calibration was made on 1280x720" in result.output
    assert "calibrate at this size. The tables judged until then stand" in result.output
    assert "turn 1: played " in result.output and "score: " in result.output
    (watched,) = recorded(kept)
    assert (watched.ended_by, watched.frames) == ("frame size", cut)
    assert [e["turn"] for e in watched.events if "turn" in e][:2] == [0, 1]


def test_a_turn_takes_the_tiles_still_on_the_table_as_they_read_now() -> None:
    """A tile whose slot is read otherwise as its pi grows has not moved; a tile gone from the table has."""
    a, b = Placement(0, "back-1", (3, 4)), Placement(1, "back-1", (6, 6))
    hand = tuple(Domino.parse(t) for t in ("1|3", "2|2", "5|5"))
    before = _Boundary({1: a, 2: b}, hand)
    now = {1: replace(a, slot="back-2"), 3: Placement(0, "back-1", (1, 3))}  # 3|4 now read as the second
    after = _Boundary(now, (*hand[1:], Domino.parse("0|0")))
    turn = _turn(1, 2.0, DOUBLE_SIX, before, after)
    assert turn["flags"] == ["moved"]
    (moved,) = turn["problems"]
    assert moved["detail"] == "6|6 left pi 1 back-1"
    assert [Placement.from_json(p) for p in turn["played"]] == [now[3]]
    start = _turn(0, 0.0, DOUBLE_SIX, None, before)
    assert start["ok"] and start["played"] == [] and start["hand"] == ["1|3", "2|2", "5|5"]
    assert not start["over"] and start["score"] == 26


def test_the_last_turn_of_a_game_that_goes_out_says_so() -> None:
    """The advisor's game of the sample clip goes out: its last turn, judged between its last two tables as the
    watch judges them, is clean and says the game went out; the turn before it does not."""
    states = play_game("advisor", SEVEN_PIS_GAME_SEED, DOUBLE_SIX)
    ids = {p.tile: i for i, p in enumerate(states[-1].layout.placements)}

    def boundary(state: TableState) -> _Boundary:
        return _Boundary({ids[p.tile]: p for p in state.layout.placements}, state.hand)

    last = _turn(len(states) - 1, 60.0, DOUBLE_SIX, boundary(states[-2]), boundary(states[-1]))
    assert last["ok"] and last["went_out"] and last["over"] and last["score"] == 0 and last["hand"] == []
    assert "the game went out" in turn_text(last)
    before = _turn(len(states) - 2, 50.0, DOUBLE_SIX, boundary(states[-3]), boundary(states[-2]))
    assert before["ok"] and not before["over"] and "went out" not in turn_text(before)


def test_the_dashboard_judges_each_turn_from_the_hand_as_the_terminal_does(game: dict, tmp_path: Path) -> None:
    """`tableref serve --game seven-pis --calibration`: every table and every turn, in the words and at the
    times `judge seven-pis --calibration` prints them."""
    from calibration.profile import load_profile
    from server.live import GameSetup, LiveTable
    from tests.server.serving import as_printed, watched_to_the_end

    setup = GameSetup("seven-pis", profile=load_profile(Path(game["profile"])))
    state = watched_to_the_end(LiveTable(game["video"], setup, tmp_path / "results.sqlite", pace=False))
    assert sum("turn" in e["verdict"] for e in state["events"]) == 3
    text = CliRunner().invoke(app, ["judge", "seven-pis", game["video"], "--calibration", game["profile"]]).stdout
    shown = as_printed(state["events"])
    assert shown == text.splitlines()[: len(shown)]
