"""Dominoes: the detection type, the tile geometry, the locator's encoding, the renderer's truth, and the
recogniser's accuracy on seeded held-out renders."""

import colorsys
import math
import random
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models.evaluate_dominoes import (
    DominoScore,
    evaluate_dominoes,
    evaluation_spec,
    score_held_out,
)
from models.synth.dominoes import DominoSpec, pip_layout, random_tile_style, render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.synth.sticks import SCENE_KINDS, StickSceneSpec, render_stick_scene
from models.synth.tables import render_table
from vision.cards.recognize import CardRecognizer
from vision.dominoes import Domino, DominoRecognizer, Half, InvalidDominoError
from vision.dominoes.above import STEEP
from vision.dominoes.blanks import true_faces
from vision.dominoes.locate import CHANNELS, GRID, STRIDE, decode, encode_targets, letterbox
from vision.dominoes.recognize import SIZE_OFF, run_on, sized_frames
from vision.dominoes.selection import MIN_CONFIDENCE, MOST_OVERLAP, Candidate, apart, select_tiles
from vision.dominoes.tile import CROP_MARGIN, CROP_SIZE, CUT_SAMPLES, MIN_CUT, TileFrame, crop_matrices
from vision.geometry import FOCAL, point_in_quad, points_in_quads, quad_iou, tilt_plane, to_plane

ACCURACY_FLOOR = 0.85  # 0.93 measured on these twelve scenes, less a margin; the bar (99%) is the slow test's
SQUARE = np.array([[0, 0], [20, 0], [20, 40], [0, 40]], np.float32)


def tile(corners=SQUARE, pips=(3, 5), confidence=0.9) -> Domino:
    return Domino(corners, (Half((10, 10), pips[0]), Half((10, 30), pips[1])), confidence)


# The detection type ---------------------------------------------------------------------------------------


def test_json_follows_the_contract() -> None:
    data = tile().to_json()
    assert list(data) == ["center", "corners", "halves", "confidence"]
    assert data["center"] == [10.0, 20.0]
    assert data["corners"] == [[0.0, 0.0], [20.0, 0.0], [20.0, 40.0], [0.0, 40.0]]
    assert data["halves"] == [{"center": [10.0, 10.0], "pips": 3}, {"center": [10.0, 30.0], "pips": 5}]
    assert data["confidence"] == 0.9


@pytest.mark.parametrize(
    "change",
    [
        {"pips": (3, 10)},
        {"pips": (-1, 2)},
        {"confidence": 1.5},
        {"corners": SQUARE[::-1]},  # anticlockwise
        {"corners": SQUARE[[0, 2, 1, 3]]},  # crossed
        {"corners": SQUARE[:3]},
        {"corners": np.where(SQUARE == 0, np.nan, SQUARE)},
    ],
)
def test_bad_values_are_refused(change: dict) -> None:
    with pytest.raises(InvalidDominoError):
        tile(**change)


def test_a_half_refuses_a_bool_count() -> None:
    with pytest.raises(InvalidDominoError):
        Half(np.zeros(2), True)


# Tile geometry and the locator's encoding ------------------------------------------------------------------


def test_frame_round_trips_its_corners_and_halves() -> None:
    frame = TileFrame.from_corners(SQUARE)
    assert np.allclose(frame.corners(), SQUARE)
    assert np.allclose(frame.halves(), [[10, 10], [10, 30]])
    assert np.allclose(frame.turned().corners(), SQUARE[[2, 3, 0, 1]])


frames = st.builds(
    lambda x, y, angle, half, aspect, side: TileFrame(
        np.array([x, y]),
        half * np.array([math.cos(angle), math.sin(angle)]),
        side * half * aspect * np.array([-math.sin(angle), math.cos(angle)]),
    ),
    st.floats(-500, 2000),
    st.floats(-500, 2000),
    st.floats(0, 2 * math.pi),
    st.floats(5, 150),
    st.floats(0.3, 0.7),
    st.sampled_from([-1.0, 1.0]),
)


@given(st.lists(frames, min_size=1, max_size=6))
def test_the_crops_hold_each_tile_upright_with_a_rim(tiles: list[TileFrame]) -> None:
    w, h = CROP_SIZE
    rim_x, rim_y = w * (1 - 1 / CROP_MARGIN) / 2, h * (1 - 1 / CROP_MARGIN) / 2
    for frame, matrix in zip(tiles, crop_matrices(tiles), strict=True):
        mapped = np.hstack([frame.corners(), np.ones((4, 1))]) @ matrix.T
        expected = [[rim_x, rim_y], [w - rim_x, rim_y], [w - rim_x, h - rim_y], [rim_x, h - rim_y]]
        assert np.allclose(mapped, expected, atol=1e-2)


@given(st.floats(-500, 500), st.floats(-500, 500), st.floats(0, 2 * math.pi), st.floats(8, 80), st.floats(0.1, 1))
def test_each_nudge_changes_one_thing_by_one_step(x: float, y: float, angle: float, half: float, step: float) -> None:
    u = half * np.array([math.cos(angle), math.sin(angle)])
    frame = TileFrame(np.array([x, y]), u, np.array([-u[1], u[0]]) / 2)
    nudges = frame.nudged(step)
    assert len(nudges) == 10
    shifts = [n for n in nudges if not np.allclose(n.center, frame.center)]
    assert len(shifts) == 4 and all(np.allclose((n.u, n.v), (frame.u, frame.v)) for n in shifts)
    assert all(np.isclose(np.linalg.norm(n.center - frame.center), 0.12 * step * half) for n in shifts)
    others = [n for n in nudges if np.allclose(n.center, frame.center)]
    lengths = sorted(np.linalg.norm(n.u) / half + np.linalg.norm(n.v) / (half / 2) - 2 for n in others)
    assert np.allclose(lengths, sorted([0.15 * step, 1 / (1 + 0.15 * step) - 1] * 2 + [0, 0]))
    turns = [n for n in others if np.isclose(np.linalg.norm(n.u), half) and np.isclose(np.linalg.norm(n.v), half / 2)]
    assert sorted(
        abs(math.atan2(frame.u[0] * n.u[1] - frame.u[1] * n.u[0], frame.u @ n.u)) for n in turns
    ) == pytest.approx([0.12 * step] * 2)


@given(frames, st.floats(-0.95, 0.95), st.sampled_from([-1.0, 1.0]))
def test_a_frame_run_into_a_tile_is_cut_back_to_its_edge(frame: TileFrame, edge: float, end: float) -> None:
    """The other tile covers the frame's axis from `edge` (in half-lengths from its centre) past the `end`:
    the cut keeps the other end where it was and stops at the edge, or gives up if under MIN_CUT is left."""
    u, v = frame.u * end, frame.v
    other = np.array([frame.center + u * t + v * w for t, w in ((edge, -2), (edge, 2), (1.5, 2), (1.5, -2))])
    sample = 2 / (CUT_SAMPLES - 1)  # the axis is looked at in steps of this many half-lengths
    assume(abs(edge + 1 - 2 * MIN_CUT) > sample)
    cut = frame.cut_at(other)
    if edge + 1 < 2 * MIN_CUT:  # the part left, edge + 1 half-lengths, is under MIN_CUT of the frame's two
        assert cut is None
        return
    assert cut is not None
    step = sample * np.linalg.norm(u)
    assert np.allclose(cut.center - cut.u * end, frame.center - u, atol=1e-6 * (1 + np.abs(frame.center).max()))
    assert np.linalg.norm(cut.center + cut.u * end - (frame.center + u * edge)) <= step + 1e-6
    assert np.allclose(cut.v, frame.v) and np.sign(cut.u @ frame.u) == 1
    assert frame.cut_at(other + 1e6) is None  # no end inside: nothing to cut
    assert frame.cut_at(TileFrame(frame.center, 2 * frame.u, 2 * frame.v).corners()) is None  # both ends inside


@st.composite
def tile_frames(draw) -> list[TileFrame]:
    """Non-overlapping tiles of any angle and size on the locator's input."""
    frames: list[TileFrame] = []
    for _ in range(draw(st.integers(1, 8))):
        width = draw(st.floats(11, 40))
        angle = draw(st.floats(-math.pi, math.pi))
        center = np.array([draw(st.floats(30, 610)), draw(st.floats(30, 338))])
        u = np.array([math.cos(angle), math.sin(angle)]) * width
        v = np.array([-u[1], u[0]]) / 2 * draw(st.floats(0.7, 1.3))  # a webcam's perspective shears
        if all(np.linalg.norm(center - f.center) > 2.2 * width for f in frames):
            frames.append(TileFrame(center, u, v))
    return frames


@settings(max_examples=60, deadline=None)
@given(frames=tile_frames())
def test_decoding_the_targets_gives_back_the_tiles(frames: list[TileFrame]) -> None:
    heat, reg, _ = encode_targets(frames)
    assert heat.shape == (GRID[1], GRID[0])
    assert reg.shape == (len(CHANNELS) - 1, GRID[1], GRID[0])  # one target per regressed output, no more
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    found = decode(np.concatenate([logits[None], reg]), threshold=0.99)
    assert len(found) == len(frames)
    for frame in frames:
        best = min((f for _, f in found), key=lambda f: np.linalg.norm(f.center - frame.center))
        assert np.linalg.norm(best.center - frame.center) < 0.01 * STRIDE
        corners = {tuple(np.round(c, 2)) for c in best.corners()} | {
            tuple(np.round(c, 2)) for c in best.turned().corners()
        }
        assert all(min(np.linalg.norm(np.array(c) - k) for c in corners) < 0.05 for k in frame.corners())


def test_a_frame_decoded_with_no_width_is_no_tile() -> None:
    """The locator's axes can come out flat; such a frame cannot be cropped, and the reader would fail."""
    tile = TileFrame(np.array([100.0, 100.0]), np.array([20.0, 0.0]), np.array([0.0, 10.0]))
    flat = TileFrame(np.array([300.0, 200.0]), np.array([20.0, 0.0]), np.array([0.0, 0.0]))
    heat, reg, _ = encode_targets([tile, flat])
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    found = decode(np.concatenate([logits[None], reg]), threshold=0.99)
    assert [np.round(f.center).tolist() for _, f in found] == [[100.0, 100.0]]


# Keeping one reading per half ---------------------------------------------------------------------------


def test_a_junction_reading_gives_way_to_the_two_tiles_it_straddles() -> None:
    u, v = np.array([20.0, 0.0]), np.array([0.0, 10.0])
    left = Candidate(TileFrame(np.array([50.0, 50.0]), u, v), (1, 3), 0.95)
    right = Candidate(TileFrame(np.array([90.0, 50.0]), u, v), (3, 6), 0.9)
    junction = Candidate(TileFrame(np.array([70.0, 50.0]), u, v), (3, 3), 0.92)
    side_by_side = Candidate(TileFrame(np.array([50.0, 60.0]), v * 2, u / 2), (1, 1), 0.7)
    kept = select_tiles([junction, right, side_by_side, left])
    assert kept == [left, right]


def test_a_refined_reading_yields_to_a_proposed_one() -> None:
    """However sure, a reading on a searched frame does not push out a tile read as proposed; where nothing
    else claims its halves it is kept."""
    u, v = np.array([20.0, 0.0]), np.array([0.0, 10.0])
    proposed = Candidate(TileFrame(np.array([50.0, 50.0]), u, v), (1, 3), 0.85)
    junction = Candidate(TileFrame(np.array([70.0, 50.0]), u, v), (3, 3), 0.99, refined=True)
    apart = Candidate(TileFrame(np.array([50.0, 150.0]), u, v), (2, 5), 0.9, refined=True)
    assert select_tiles([junction, apart, proposed]) == [proposed, apart]
    assert select_tiles([junction]) == [junction]


readings = st.builds(
    lambda x, y, angle, half, aspect, confidence: Candidate(
        TileFrame(
            np.array([x, y]),
            half * np.array([math.cos(angle), math.sin(angle)]),
            half * aspect * np.array([-math.sin(angle), math.cos(angle)]),
        ),
        (1, 2),
        confidence,
    ),
    st.floats(0, 150),
    st.floats(0, 150),
    st.floats(0, 2 * math.pi),
    st.floats(15, 40),
    st.floats(0.4, 0.6),
    st.floats(0.8, 1.0),
)


@given(st.lists(readings, max_size=12))
def test_of_readings_over_one_another_only_the_surest_stands(candidates: list[Candidate]) -> None:
    """Checked against every pair, not only those `apart` compares: its shortcut must drop no overlap."""
    kept = apart(candidates)
    assert kept == [c for c in candidates if any(c is k for k in kept)]  # in their order
    overlap = [[quad_iou(a.frame.corners(), b.frame.corners()) for b in candidates] for a in candidates]
    index = {id(c): i for i, c in enumerate(candidates)}
    held = [index[id(k)] for k in kept]
    assert all(overlap[i][j] <= MOST_OVERLAP for i in held for j in held if i != j)
    for i, c in enumerate(candidates):
        if i not in held:
            assert any(overlap[i][j] > MOST_OVERLAP and candidates[j].confidence >= c.confidence for j in held)


def test_unsure_readings_are_dropped() -> None:
    lone = Candidate(TileFrame(np.array([50.0, 50.0]), np.array([20.0, 0.0]), np.array([0.0, 10.0])), (2, 2), 0.3)
    assert select_tiles([lone]) == []


# The renderer's truth ------------------------------------------------------------------------------------


def test_pip_layouts_have_their_counts_on_the_grid() -> None:
    for n in range(10):
        for turn in range(4):
            points = pip_layout(n, turn)
            assert len(points) == len(set(points)) == n
            assert all(x in (-1, 0, 1) and y in (-1, 0, 1) for x, y in points)


def _hues(split: str) -> list[float]:
    rng = random.Random(7)
    hues = []
    for _ in range(300):
        style = random_tile_style(rng, split, top=9)
        for bgr in (style.body, *style.pips):
            h, s, _ = colorsys.rgb_to_hsv(*(c / 255 for c in reversed(bgr)))
            if s > 0.3:
                hues.append(h * 360)
    return hues


def test_held_out_colours_are_never_trained_on() -> None:
    assert all(h % 60 < 30.5 for h in _hues("train"))
    assert all(h % 60 > 29.5 for h in _hues("heldout"))


def test_renders_are_a_function_of_the_seed() -> None:
    spec = DominoSpec(split="heldout", layout="touching", n_tiles=(4, 6))
    a, b = render_dominoes(3, spec), render_dominoes(3, spec)
    assert np.array_equal(a.image, b.image)
    assert [t.pips for t in a.tiles] == [t.pips for t in b.tiles]


@pytest.mark.parametrize("seed", range(3))
def test_pis_are_complete_and_their_touching_ends_match(seed: int) -> None:
    top = 9 if seed % 2 else 6
    scene = render_dominoes(seed, DominoSpec(layout="pis", pis=1, top=top, distractors=False))
    assert len(scene.tiles) == (5 if top == 9 else 4)
    assert all(t.group == "pi" for t in scene.tiles)
    touching = 0
    for i, a in enumerate(scene.tiles):
        spacing = np.linalg.norm(a.halves[1] - a.halves[0])
        for b in scene.tiles[i + 1 :]:
            for ha, pa in zip(a.halves, a.pips, strict=True):
                for hb, pb in zip(b.halves, b.pips, strict=True):
                    if np.linalg.norm(ha - hb) < 1.25 * spacing:
                        touching += 1
                        assert pa == pb
    assert touching == (4 if top == 9 else 3)  # the back's joints and the two legs


def test_truth_halves_lie_inside_their_tiles() -> None:
    scene = render_dominoes(11, DominoSpec(layout="mixed"))
    for t in scene.tiles:
        assert all(point_in_quad(h, t.corners) for h in t.halves)
        assert t.match(t.halves) is True and t.match(t.halves[::-1]) is False


# The recogniser on held-out renders ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def recognizer() -> DominoRecognizer:
    return DominoRecognizer()


@pytest.mark.parametrize("kind", ["marble", "checkered", "glossy_black"])
def test_a_bare_table_gives_no_dominoes(recognizer: DominoRecognizer, kind: str) -> None:
    table = render_table(np.random.default_rng(1), kind, 720, 1280).astype(np.uint8)
    assert recognizer(table) == []


def test_cards_are_not_dominoes(recognizer: DominoRecognizer) -> None:
    """As the table reader runs it: the cards are read first, and nothing on a card is taken for a tile.
    Of six card scenes, one paper note printed with lines of text reads as a 9|9: at most one is allowed."""
    cards = CardRecognizer()
    false = 0
    for seed in range(6):
        image = render_scene(seed, SceneSpec(split="heldout")).image
        false += len(recognizer(image, ignore=[card.corners for card in cards(image)]))
    assert false <= 1


def test_a_phones_4_3_frame_is_read_as_a_16_9_one(recognizer: DominoRecognizer) -> None:
    """Four held-out scenes rendered 1280x960, a phone's 4:3 shape: read at the scale of a 16:9 frame as wide
    (vision.locator.reading_size), 89 of their 90 tiles were read right; shrunk to fit the 16:9 input, 85 (and 3
    false detections for none)."""
    totals = DominoScore()
    for i in range(4):
        _, spec = evaluation_spec(i, 50_000_000)
        scene = render_dominoes(50_000_000 + i, replace(spec, size=(1280, 960)))
        totals.add(score_held_out(scene, spec, recognizer(scene.image)))
    assert totals.tiles >= 80 and totals.read_right >= totals.tiles - 2, (totals.read_right, totals.tiles)
    assert totals.false_detections <= 1


def test_reading_a_set_of_held_out_scenes(recognizer: DominoRecognizer) -> None:
    """Pis of 28 and 25 tiles and the training mix, with styles and tables training never saw; the pis
    scenes' tiles grouped into their pis as `judge seven-pis` groups them."""
    totals = DominoScore()
    for i in range(12):
        _, spec = evaluation_spec(i, 70_000_000)
        scene = render_dominoes(70_000_000 + i, spec)
        dominoes = recognizer(scene.image)
        assert all(isinstance(d.to_json()["halves"][1]["pips"], int) for d in dominoes)
        totals.add(score_held_out(scene, spec, dominoes))
    assert totals.tiles > 200 and totals.pi_tiles > 150
    assert totals.accuracy >= ACCURACY_FLOOR
    assert totals.pi_accuracy >= ACCURACY_FLOOR
    assert totals.false_rate <= 0.02
    assert totals.pis >= 30 and totals.pis_right >= 0.9 * totals.pis


def _set_off(scene, rng: np.random.Generator) -> list[TileFrame]:
    """Each true tile's frame set off as the locator's are on steep views and busy cloths: its axes a fifth
    too long or too short, turned 6 to 11 degrees, shifted a little."""
    frames = []
    for truth in scene.tiles:
        frame = TileFrame.from_corners(truth.corners)
        turn = rng.choice([-1, 1]) * rng.uniform(0.1, 0.2)
        spin = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        shift = rng.uniform(-0.05, 0.05) * frame.u + rng.uniform(-0.05, 0.05) * frame.v
        frames.append(
            TileFrame(
                frame.center + shift,
                spin @ frame.u * rng.choice([0.8, 1.2]),
                spin @ frame.v * rng.choice([0.8, 1.2]),
            )
        )
    return frames


def _read_better(recognizer: DominoRecognizer, seed: int, better) -> tuple[int, int, int, int]:
    """Over 4 held-out scenes from `seed`, each tile read on a frame set off (`_set_off`) and then by
    `better(image, canvas, scale, maps, readings)`: (tiles, sure and right before, sure and right after,
    sure and wrong after)."""
    rng = np.random.default_rng(5)
    total = before = after = wrong = 0
    for i in range(4):
        _, spec = evaluation_spec(i, seed)
        scene = render_dominoes(seed + i, spec)
        canvas, scale = letterbox(scene.image)
        given = recognizer.read_frames(scene.image, canvas, scale, _set_off(scene, rng))
        improved = better(scene.image, canvas, scale, recognizer.locator.maps(canvas), given)
        for truth, a, b in zip(scene.tiles, given, improved, strict=True):
            total += 1
            before += a.confidence >= MIN_CONFIDENCE and a.pips in (truth.pips, truth.pips[::-1])
            after += b.confidence >= MIN_CONFIDENCE and b.pips in (truth.pips, truth.pips[::-1])
            wrong += b.confidence >= MIN_CONFIDENCE and b.pips not in (truth.pips, truth.pips[::-1])
    return total, before, after, wrong


def test_refining_reads_tiles_whose_frames_are_off(recognizer: DominoRecognizer) -> None:
    """Refinement reads more tiles on frames set off surely and right, and none surely wrong. Measured: 61 of
    74 sure and right before, 72 after; since the readers learnt the dotted cloth (hundred-and-eighth session),
    which read more of the frames set off as they are, 65 and 69; with ridged sets too, 65 and 70."""

    def refine(image, canvas, scale, maps, readings):
        return recognizer.refined(image, canvas, scale, maps, readings, limit=len(readings))[0]

    total, before, after, wrong = _read_better(recognizer, 72_000_000, refine)
    assert total > 60
    assert after >= before + total // 20
    assert after >= 0.9 * total
    assert wrong == 0


def test_fitting_reads_tiles_whose_frames_are_off(recognizer: DominoRecognizer) -> None:
    """The tile-corner network's frames read more tiles on frames set off surely and right, and hardly any
    surely wrong. Measured: 48 of 68 sure and right before, 63 after, none wrong."""

    def fit(image, canvas, scale, maps, readings):
        # Each reading alone: its surest reading once the network's frame is read too.
        return [max(recognizer.fitted(image, canvas, scale, maps, [r]), key=lambda c: c.confidence) for r in readings]

    total, before, after, wrong = _read_better(recognizer, 74_000_000, fit)
    assert total > 60
    assert after >= before + total // 10
    assert wrong <= total // 50


def test_a_frame_run_on_into_a_touching_tile_reads_once_cut_back(recognizer: DominoRecognizer) -> None:
    """Each tile of held-out pis under a frame run on by 40 % of its length into the tile it touches end on
    (as the locator gives a pi's leg that meets the back): cut back at that tile's outline, more of them read
    surely and right, and none surely wrong. Measured: 53 of 116 before, 116 after."""
    run_on = 0.4
    total = before = after = wrong = 0
    for i in (0, 2, 4, 6):  # the pis scenes
        _, spec = evaluation_spec(i, 73_000_000)
        scene = render_dominoes(73_000_000 + i, spec)
        canvas, scale = letterbox(scene.image)
        truths = [TileFrame.from_corners(t.corners) for t in scene.tiles]
        outlines = [f.corners() for f in truths]
        long_frames, cut_frames, pips = [], [], []
        for k, (tile, frame) in enumerate(zip(scene.tiles, truths, strict=True)):
            for end in (1, -1):
                long = TileFrame(frame.center + frame.u * end * run_on, frame.u * (1 + run_on), frame.v)
                tip = long.center + long.u * end
                into = [j for j, outline in enumerate(outlines) if j != k and point_in_quad(tip, outline)]
                cut = long.cut_at(outlines[into[0]]) if len(into) == 1 else None
                if cut is not None:
                    long_frames.append(long)
                    cut_frames.append(cut)
                    pips.append(tile.pips)
        if not cut_frames:
            continue
        readings = recognizer.read_frames(scene.image, canvas, scale, long_frames + cut_frames)
        n = len(pips)
        for truth, a, b in zip(pips, readings[:n], readings[n:], strict=True):
            total += 1
            before += a.confidence >= MIN_CONFIDENCE and a.pips in (truth, truth[::-1])
            after += b.confidence >= MIN_CONFIDENCE and b.pips in (truth, truth[::-1])
            wrong += b.confidence >= MIN_CONFIDENCE and b.pips not in (truth, truth[::-1])
    assert total > 100
    assert after >= before + total // 3
    assert after >= 0.9 * total
    assert wrong == 0


@given(st.lists(readings, min_size=2, max_size=8))
def test_a_frame_run_on_is_measured_along_its_axis(candidates: list[Candidate]) -> None:
    """`run_on` worked out exactly against the axis sampled finely: the share inside each other outline where
    one end is outside, the largest taken."""
    frames = [c.frame for c in candidates]
    for a in frames:  # no end on another outline's edge, where sampling in float32 may tell either way
        for b in frames:
            if a is b:
                continue
            ends = np.linalg.solve(
                np.column_stack([b.u, b.v]), np.array([a.center - a.u, a.center + a.u]).T - b.center[:, None]
            )
            assume(np.abs(np.abs(ends) - 1).min() > 1e-3)
    share, into = run_on(frames)
    ts = np.linspace(-1, 1, 2001)
    for k, frame in enumerate(frames):
        inside = points_in_quads(frame.center + ts[:, None] * frame.u, [f.corners() for f in frames])
        sampled = [
            float(inside[:, j].mean()) if j != k and inside[0, j] != inside[-1, j] else 0.0 for j in range(len(frames))
        ]
        assert share[k] == pytest.approx(max(sampled), abs=0.005)
        assert (into[k] == -1) == (share[k] == 0) and (into[k] == -1 or sampled[into[k]] > max(sampled) - 0.005)


def test_a_sure_frame_run_on_into_a_touching_tile_is_drawn_in(recognizer: DominoRecognizer) -> None:
    """Held-out pis read on their true frames but one, run on by 30 % of its length past the end that meets
    another tile (as the locator gives a pi's leg that meets the back, read surely and right: a tile missed
    and a false one reported). Drawn in, that tile's halves lie on its own again, and the tiles it touches
    stay. Measured: none of 35 such frames on their tile before, 26 after; one neighbour lost."""
    run = 0.3
    total = drawn = lost = 0
    for i in (0, 2, 4, 6):  # the pis scenes
        _, spec = evaluation_spec(i, 75_000_000)
        scene = render_dominoes(75_000_000 + i, spec)
        truths = [TileFrame.from_corners(t.corners) for t in scene.tiles]
        outlines = [f.corners() for f in truths]
        kept = [Candidate(f, t.pips, 0.95) for f, t in zip(truths, scene.tiles, strict=True)]
        for k, frame in enumerate(truths):
            end = random.Random(k).choice([1, -1])
            long = TileFrame(frame.center + frame.u * end * run, frame.u * (1 + run), frame.v)
            into = [j for j, q in enumerate(outlines) if j != k and point_in_quad(long.center + long.u * end, q)]
            if len(into) != 1 or k % 2:  # half the tiles, for time
                continue
            total += 1
            assert scene.tiles[k].match(long.halves()) is None  # as run on, it is no reading of its tile
            kept[k] = replace(kept[k], frame=long)
            out = recognizer._drawn_in(scene.image, *letterbox(scene.image), kept)
            drawn += scene.tiles[k].match(out[k].frame.halves()) is not None and sorted(out[k].pips) == sorted(
                scene.tiles[k].pips
            )
            lost += scene.tiles[into[0]].match(out[into[0]].frame.halves()) is None
            kept[k] = Candidate(frame, scene.tiles[k].pips, 0.95)
    assert total > 30
    assert drawn >= 0.6 * total
    assert lost <= total // 10


def _junctions(scene) -> list[tuple[int, int, TileFrame, int]]:
    """(a, b, frame, count) for each two tiles laid end to end whose touching halves hold one count: the frame
    over those two halves, the first on a's."""
    out = []
    for a, ta in enumerate(scene.tiles):
        spacing = float(np.linalg.norm(ta.halves[1] - ta.halves[0]))
        for b, tb in enumerate(scene.tiles):
            for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)):
                near, far = np.asarray(ta.halves[i], np.float64), np.asarray(ta.halves[1 - i], np.float64)
                other, beyond = np.asarray(tb.halves[j], np.float64), np.asarray(tb.halves[1 - j], np.float64)
                if b <= a or ta.pips[i] != tb.pips[j]:
                    continue
                step = near - far  # a's axis, out of its touching end
                if (
                    np.linalg.norm(other - (near + step)) < 0.15 * spacing
                    and np.linalg.norm(beyond - (near + 2 * step)) < 0.3 * spacing
                ):
                    v = TileFrame.from_corners(ta.corners).v
                    out.append((a, b, TileFrame((near + other) / 2, other - near, v), ta.pips[i]))
    return out


def test_a_junction_read_as_a_double_gives_way_to_its_tiles(recognizer: DominoRecognizer) -> None:
    """Where tiles touch end to end their touching halves hold one count (pis and lines), and a frame over the
    junction reads as that double: a false tile, claiming a half of each tile it lies on. Held-out pis read on
    their true frames but two such tiles, and the junction read as a double: it gives way to a tile a cell along
    its axis, which is read. Real doubles read on their true frames all stay. Measured: all 34
    junctions give way (none before), and all 10 doubles stay."""
    total = undone = 0
    for i in (0, 2, 4, 6):  # the pis scenes
        _, spec = evaluation_spec(i, 77_000_000)
        scene = render_dominoes(77_000_000 + i, spec)
        canvas = letterbox(scene.image)
        maps = recognizer.locator.maps(canvas[0])
        truths = [Candidate(TileFrame.from_corners(t.corners), t.pips, 0.9) for t in scene.tiles]
        kept = recognizer._unjoined(scene.image, *canvas, truths, maps)
        assert len(kept) == len(truths) and all(k is t for k, t in zip(kept, truths, strict=True))  # doubles stay
        for a, b, frame, count in _junctions(scene):
            junction = Candidate(frame, (count, count), 0.85)
            out = recognizer._unjoined(
                scene.image, *canvas, [t for k, t in enumerate(truths) if k not in (a, b)] + [junction], maps
            )
            total += 1
            undone += all(c is not junction for c in out) and any(
                scene.tiles[k].match(c.frame.halves()) is not None and sorted(c.pips) == sorted(scene.tiles[k].pips)
                for c in out
                for k in (a, b)
            )
    assert total > 20
    assert undone >= 0.9 * total


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0, 30) | st.floats(46, 60),
    st.floats(0, math.pi),
    st.sampled_from([0.7, 1.3]),
    st.sampled_from([-1.0, 1.0]),
)
def test_a_frame_off_in_size_has_a_sized_frame_on_its_tile(
    tilt: float, angle: float, length: float, end: float
) -> None:
    """Tiles of one size laid two ways on a table seen under a camera tilted `tilt` degrees, one of them read a
    third too long or too short from one `end`: one of its sized frames (about its centre, from either end) lies
    on its tile, its halves within a tenth of their spacing of the tile's, and the tiles read right keep theirs.
    A steep view's tiles are not sized: one cell fits them only roughly."""
    size = (1280, 720)
    to_image = np.linalg.inv(tilt_plane(size, tilt))
    unit = 1 / (FOCAL * size[0])  # the plane's length of an image px at the picture's centre
    cell = 40 * unit
    along = cell * np.array([np.cos(angle), np.sin(angle)])
    across = cell / 2 * np.array([-np.sin(angle), np.cos(angle)])
    centres = [unit * np.array([x, y]) for x in (-150.0, 0.0, 150.0) for y in (-100.0, 100.0)]
    on_plane = [
        TileFrame(c, along, across) if k % 2 else TileFrame(c, 2 * across, along / 2) for k, c in enumerate(centres)
    ]
    shown = [TileFrame.from_corners(to_plane(to_image, f.corners().astype(np.float64))) for f in on_plane]
    off = on_plane[0]
    far = off.center + end * off.u  # the end read right
    wrong = TileFrame(far - end * length * off.u, length * off.u, off.v)
    read = TileFrame.from_corners(to_plane(to_image, wrong.corners().astype(np.float64)))
    assume(np.isfinite(read.center).all() and all(np.isfinite(f.center).all() for f in shown))
    sized = sized_frames([read, *shown[1:]], size)
    if tilt > STEEP:
        assert sized == {}
        return
    spacing = float(np.linalg.norm(shown[0].u))
    assert min(np.abs(f.halves() - shown[0].halves()).max() for f in sized[0]) < 0.1 * spacing
    for k, frame in enumerate(shown[1:], start=1):
        assert np.abs(sized[k][0].halves() - frame.halves()).max() < 0.1 * spacing
    assert list(sized_frames([read, *shown[1:]], size, SIZE_OFF)) == [0]  # only the frame off in size


def test_a_sure_frame_off_in_size_is_read_again_at_the_tiles_size(recognizer: DominoRecognizer) -> None:
    """Held-out pis read on their true frames but one, run on by 30 % past one end or cut 30 % short at
    one end (as the locator gives a tile, read surely and right: a tile missed and a false one reported). Read
    again at the size the other tiles share, it lies on its own tile again, and the tiles read right keep their
    frames. Measured: none of 54 such frames on their tile before, 40 after (52 when steep views were sized too)."""
    total = back = 0
    for i in (0, 2, 4, 6):  # the pis scenes
        _, spec = evaluation_spec(i, 76_000_000)
        scene = render_dominoes(76_000_000 + i, spec)
        truths = [TileFrame.from_corners(t.corners) for t in scene.tiles]
        sure = [Candidate(f, t.pips, 0.95) for f, t in zip(truths, scene.tiles, strict=True)]
        canvas = letterbox(scene.image)
        for k, frame in enumerate(truths):
            if k % 2:  # half the tiles, for time
                continue
            end = random.Random(k).choice([1, -1])
            length = random.Random(k).choice([1.3, 0.7])
            far = frame.center - end * frame.u  # the end read right
            wrong = TileFrame(far + end * length * frame.u, length * frame.u, frame.v)
            assert scene.tiles[k].match(wrong.halves()) is None  # as read, it is no reading of its tile
            total += 1
            read = [*sure[:k], Candidate(wrong, scene.tiles[k].pips, 0.85), *sure[k + 1 :]]
            out = recognizer.sized(scene.image, *canvas, read)
            back += scene.tiles[k].match(out[k].frame.halves()) is not None and sorted(out[k].pips) == sorted(
                scene.tiles[k].pips
            )
            assert all(o is r for j, (o, r) in enumerate(zip(out, read, strict=True)) if j != k)
    assert total > 40
    assert back >= 0.65 * total


def test_a_turned_frame_reads_the_same(recognizer: DominoRecognizer) -> None:
    """A portrait frame (the same picture turned a quarter) gives the same tiles at the same places."""
    scene = render_dominoes(8, DominoSpec(split="heldout", layout="touching", n_tiles=(6, 10)))
    upright = recognizer(scene.image)
    turned = recognizer(np.ascontiguousarray(np.rot90(scene.image)))  # (x, y) -> (y, width - 1 - x)
    width = scene.image.shape[1]
    back = [np.array([[width - 1 - y, x] for x, y in (h.center for h in d.halves)]) for d in turned]
    same = 0
    for d in upright:
        halves = np.array([h.center for h in d.halves])
        for other, where in zip(turned, back, strict=True):
            for order in (slice(None), slice(None, None, -1)):
                if np.abs(where[order] - halves).max() < 4 and other.pips[order] == d.pips:
                    same += 1
    assert len(upright) >= 0.8 * len(scene.tiles)
    assert same >= 0.9 * len(upright) and len(turned) <= len(upright) + 1


def test_stick_layouts_are_not_dominoes(recognizer: DominoRecognizer) -> None:
    """On dark tables the locator proposes bare stretches of table round the sticks, which a reader that
    never saw such frames took for blank doubles: 7 on these twelve held-out frames, then 1; 3 since the
    tile-corner network fits doubted proposals (on 60 such frames 9 against 7: models/dominoes.md)."""
    found = [
        len(recognizer(render_stick_scene(seed, StickSceneSpec(split="heldout", kind=SCENE_KINDS[seed % 3])).image))
        for seed in range(12)
    ]
    assert sum(found) <= 3


@pytest.mark.parametrize("portrait", [False, True])
def test_what_lies_on_a_card_is_not_a_domino(recognizer: DominoRecognizer, portrait: bool) -> None:
    """`ignore` outlines are in the picture's own coordinates, portrait or not."""
    image = render_dominoes(5, DominoSpec(split="heldout", layout="touching", n_tiles=(5, 8))).image
    if portrait:
        image = np.ascontiguousarray(np.rot90(image))
    found = recognizer(image)
    assert found
    first = found[0]
    kept = recognizer(image, ignore=[first.corners])
    assert len(kept) == len(found) - 1
    assert all(np.linalg.norm(d.center - first.center) > 1 for d in kept)


def test_a_portrait_frame_is_read_in_its_own_coordinates() -> None:
    frame = TileFrame(np.array([30.0, 10.0]), np.array([5.0, 1.0]), np.array([-0.5, 2.5]))
    height = 100  # the original frame's rows; turned a quarter clockwise, (x, y) -> (height - 1 - y, x)
    turned = TileFrame(np.array([height - 1 - 10.0, 30.0]), np.array([-1.0, 5.0]), np.array([-2.5, -0.5]))
    back = turned.turned_back(height)
    assert np.allclose(back.center, frame.center) and np.allclose(back.u, frame.u) and np.allclose(back.v, frame.v)


@pytest.mark.slow
def test_held_out_accuracy_meets_the_bar() -> None:
    result = evaluate_dominoes(scenes=40, seed=50_000_000, quiet=True).total
    assert result.tiles >= 300 and result.pi_tiles >= result.tiles / 2
    assert result.accuracy >= 0.99
    assert result.pi_accuracy >= 0.99
    assert result.false_rate < 0.01


def _painted(rng: np.random.Generator, image: np.ndarray, frame: TileFrame, face: np.ndarray, divider: bool) -> None:
    """A tile's face over `frame`, its colour a little off `face` as light varies, with or without a divider."""
    colour = np.clip(face + rng.normal(0, 6, 3), 0, 255)
    cv2.fillConvexPoly(image, np.round(frame.corners()).astype(np.int32), colour.tolist(), cv2.LINE_AA)
    if divider:
        a, b = frame.center - frame.v, frame.center + frame.v
        cv2.line(image, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), (128, 128, 128), 2)


@pytest.mark.parametrize("seed", range(8))
def test_a_blank_or_lone_pip_without_a_divider_or_a_blank_unlike_the_other_tiles_goes(seed: int) -> None:
    """Dark tiles on a light table (or the other way round), one of them a true blank: a 0|0 read on the table
    goes, with a divider across its middle or without, and so do one somewhat unlike the tiles without a
    divider and one coloured as the tiles with no divider at all (a tile lying face down); the true blank, the
    other readings, a divided blank coloured as the tiles and a divided one somewhat unlike them stay. A 1|0
    coloured as the tiles goes with no divider (a back's mark read as a pip) and stays with one."""
    rng = np.random.default_rng(seed)
    dark, light = rng.uniform(0, 50, 3), rng.uniform(205, 255, 3)
    face, table = (dark, light) if seed % 2 else (light, dark)
    image = np.empty((360, 640, 3), np.uint8)
    image[:] = np.round(table).astype(np.uint8)
    image[:] = np.clip(image + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)
    kept = []
    for k in range(6):
        frame = TileFrame(np.array([60.0 + 90 * k, 100.0]), np.array([0.0, 30.0]), np.array([15.0, 0.0]))
        _painted(rng, image, frame, face, divider=True)
        kept.append(Candidate(frame, (0, 0) if k == 3 else (k, 6 - k), 0.95))
    blanks = []
    between = 0.6 * face + 0.4 * table
    kinds = ((table, False), (face, False), (table, True), (face, True), (between, False), (between, True))
    for k, (colour, divider) in enumerate(kinds):
        frame = TileFrame(np.array([60.0 + 100 * k, 260.0]), np.array([30.0, 0.0]), np.array([0.0, 15.0]))
        _painted(rng, image, frame, colour, divider)
        blanks.append(Candidate(frame, (0, 0), 0.9))
    lone = []
    for k, divider in enumerate((False, True)):
        frame = TileFrame(np.array([60.0 + 100 * k, 320.0]), np.array([30.0, 0.0]), np.array([0.0, 15.0]))
        _painted(rng, image, frame, face, divider)
        lone.append(Candidate(frame, (1, 0) if k else (0, 1), 0.9))
    assert true_faces(image, [*kept, *blanks, *lone]) == [*kept, blanks[3], blanks[5], lone[1]]
