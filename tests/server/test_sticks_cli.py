"""The DIGIT commands on rendered photos: a layout's card, its matches and moves, a move judged from two photos,
the printable cards, the stick evaluation; and their errors."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
from models.evaluate_sticks import scene_spec
from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.digit_game import Layout, Status, judge_move, one_move_away
from rules.sticks import SYMMETRIES, Edge, Symmetry, card_number, normalize, shape_for_card, transform
from server.app import app
from server.commands.sticks import MIRRORED, move_picture

SEED = 81_000
TABLES = ("birch", "red_felt", "glossy_black")
runner = CliRunner()


def tableref(*args: str):
    return runner.invoke(app, list(args))


def photo(
    tmp: Path,
    seed: int,
    edges: tuple[Edge, ...],
    turn: float,
    table: str,
    origin: tuple[float, float] | None = None,
    camera: np.ndarray | None = None,
) -> Path:
    """A held-out render of `edges` laid as they are; one seed and turn give one camera, light and table, and
    one `origin` (the lattice point laid at the table's middle) keeps the sticks not moved where they lay.
    With `camera` (2 x 3, px -> px) the camera moved that way, and the photo is another exposure."""
    spec = StickSceneSpec(
        split="heldout", kind="lattice", edges=edges, turn=turn, table=table, stick_px=(80, 130), origin=origin,
        exposure=int(camera is not None),
    )  # fmt: skip
    image = render_stick_scene(seed, spec).image
    if camera is not None:
        image = cv2.warpAffine(image, camera, image.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    path = tmp / f"{seed}-{abs(hash(edges))}-{spec.exposure}.png"
    cv2.imwrite(str(path), image)
    return path


def test_judge_digit_reads_the_card_its_matches_and_the_moves_away(tmp_path: Path) -> None:
    right = 0
    cards = (4, 17, 30, 43, 55, 9, 22, 36, 48, 12)
    for i, card in enumerate(cards):
        edges = tuple(sorted(shape_for_card(card)))
        path = photo(tmp_path, SEED + i, edges, 0.2 + 0.25 * i, TABLES[i % len(TABLES)])
        result = tableref("judge", "digit", str(path), "--card", str(card), "--card", "1", "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        if data["card"] != card:
            continue
        right += 1
        assert data["legal"] and data["matches"] == [card] and data["sticks"] == 5
        assert data["one_move_away"], "every card is one move from another"
        for option in data["one_move_away"]:
            layout = [Edge.from_json(e) for e in option["layout"]]
            assert card_number(layout) == option["card"]
    # 87.5 % of 40 layouts laid this way are read right (models/sticks.md); what is read must be judged right.
    assert right >= 7, f"{right} of {len(cards)} layouts read as their card"


def test_judge_digit_text_says_what_the_json_says(tmp_path: Path) -> None:
    for i, card in enumerate((17, 8)):
        path = photo(tmp_path, SEED + 20 + i, tuple(sorted(shape_for_card(card))), 0.45, TABLES[i])
        data = json.loads(tableref("judge", "digit", str(path), "--card", str(card), "--json").stdout)
        text = tableref("judge", "digit", str(path), "--card", str(card)).stdout
        assert f"{data['sticks']} sticks" in text
        if data["card"] is not None:
            assert f"card {data['card']}\n" in text
            assert text.count("take the stick at") == len(data["one_move_away"])
        else:
            assert "no card: " in text and "matches none of the cards" in text


def test_judge_digit_matches_the_layout_against_the_cards_on_the_table(tmp_path: Path) -> None:
    """Variant 4, cards on the table: with no --card, the layout is matched against the printed cards read
    beside it; the sticks drawn on them are no sticks of the layout."""
    read = 0
    for i, (card, others) in enumerate(((17, (5, 40)), (30, (31, 2)), (8, (44,)))):
        spec = StickSceneSpec(
            split="heldout", kind="lattice", card=card, cards=(card, *others), table=TABLES[i], stick_px=(70, 100)
        )
        scene = render_stick_scene(SEED + 40 + i, spec)
        assert len(scene.cards) == 1 + len(others), "the render lays every card"
        path = tmp_path / f"cards-{i}.png"
        cv2.imwrite(str(path), scene.image)
        data = json.loads(tableref("judge", "digit", str(path), "--json").stdout)
        on_table = sorted(c["card"] for c in data["table_cards"])
        assert set(on_table) <= {card, *others}, "no card read that does not lie there"
        assert data["cards"] == [c["card"] for c in data["table_cards"]] and data["cards_from"] == "table"
        for found in data["table_cards"]:
            truth = next(corners for number, corners in scene.cards if number == found["card"])
            assert abs(np.array(found["corners"]) - truth).max() < 10, "corners from the number's side"
        if data["card"] == card and on_table == sorted({card, *others}):
            read += 1
            assert data["sticks"] == 5 and data["matches"] == [card]
            text = tableref("judge", "digit", str(path)).stdout
            listed = ", ".join(str(c["card"]) for c in data["table_cards"])
            assert f"cards on the table: {listed}\n" in text and f"matches card {card} on the table\n" in text
        typed = json.loads(tableref("judge", "digit", str(path), "--card", "1", "--json").stdout)
        assert typed["cards"] == [1] and typed["cards_from"] == "typed" and typed["matches"] == []
        assert typed["table_cards"] == data["table_cards"]
    assert read >= 2, f"{read} of 3 tables read whole"  # measured 2: the birch table hides card 40's rim


def test_a_mirrored_card_shows_no_card_with_rotations_only_and_says_why(tmp_path: Path) -> None:
    mirror = SYMMETRIES[4]
    assert mirror.xx == -1 and not mirror.is_rotation
    card = next(
        n for n in range(1, 56) if card_number(transform(shape_for_card(n), mirror), Symmetry.ROTATIONS_ONLY) is None
    )
    edges = tuple(sorted(normalize(transform(shape_for_card(card), mirror))))
    path = photo(tmp_path, SEED + 40, edges, 0.3, "birch")
    assert f"\ncard {card}\n" in tableref("judge", "digit", str(path)).stdout
    turned_only = tableref("judge", "digit", str(path), "--rotations-only").stdout
    assert f"no card: {MIRRORED}\n" in turned_only


def test_move_picture_marks_the_stick_taken_and_the_stick_laid() -> None:
    edges = tuple(sorted(shape_for_card(1)))  # the straight line
    _, move = one_move_away(edges)[0]
    picture = move_picture(edges, move.removed, move.added)
    assert ("==" in picture) != ("#" in picture) and ((".." in picture) != (":" in picture))
    assert picture.count("--") == sum(e.horizontal for e in edges if e != move.removed)


def moves(before: tuple[Edge, ...]) -> dict[str, tuple[Edge, ...]]:
    """The layout after a legal move, after two sticks moved, and after one stick laid apart."""
    _, move = one_move_away(before)[0]
    one = move.apply(Layout(before))
    two = next(
        later.apply(first.apply(Layout(before)))
        for _, first in one_move_away(before)
        for _, later in one_move_away(first.apply(Layout(before)))
        if judge_move(Layout(before), later.apply(first.apply(Layout(before)))).status & Status.SEVERAL_STICKS_MOVED
    )
    far = max(p[0] for e in before for p in (e.a, e.b)) + 3
    apart = (*before[1:], Edge((far, 0), (far + 1, 0)))
    return {"legal": one.edges, "several_sticks_moved": two.edges, "pattern_broken": apart}


def test_judge_digit_move_names_what_went_wrong(tmp_path: Path) -> None:
    right = total = 0
    for i, card in enumerate((12, 26, 38)):
        before = tuple(sorted(shape_for_card(card)))
        seed, turn, table = SEED + 10 + i, 0.3 + 0.2 * i, TABLES[i]
        origin = (2.0, 1.0)  # one place on the table for every layout: the camera and the sticks left stay put
        first = photo(tmp_path, seed, before, turn, table, origin)
        for expected, after in moves(before).items():
            result = tableref(
                "judge", "digit-move", str(first), str(photo(tmp_path, seed, after, turn, table, origin)), "--json"
            )
            assert result.exit_code == 0, result.output
            verdict = json.loads(result.stdout)
            total += 1
            if expected == "legal":
                right += verdict["legal"] and verdict["card"] == card_number(after) and verdict["sticks_moved"] == 1
            else:
                right += not verdict["legal"] and expected in verdict["status"]
    assert right >= total - 2, f"{right} of {total} moves judged right"


def test_a_camera_moved_between_the_photos_is_allowed_for_where_the_table_shows_it(tmp_path: Path) -> None:
    """Turned 2 degrees and shifted 50 px, further than a stick left in place may move: on a grained table the
    move is judged as with a still camera, and the verdict says the camera moved. On a plain cloth it cannot
    be told, and the verdict says what to do."""
    bumped = cv2.getRotationMatrix2D((640, 360), 2.0, 1.0) + np.float64([[0, 0, 40], [0, 0, -30]])
    right = total = 0
    for i, card in enumerate((12, 26, 38)):
        before = tuple(sorted(shape_for_card(card)))
        seed, turn, origin = SEED + 60 + i, 0.3 + 0.2 * i, (2.0, 1.0)
        first = photo(tmp_path, seed, before, turn, "birch", origin)
        after = moves(before)["legal"]
        for edges, expected in ((after, "legal"), (before, "no_stick_moved")):
            moved = photo(tmp_path, seed, edges, turn, "birch", origin, bumped)
            verdict = json.loads(tableref("judge", "digit-move", str(first), str(moved), "--json").stdout)
            total += 1
            if expected == "legal":
                right += verdict["legal"] and verdict["sticks_moved"] == 1 and verdict["camera_moved"] is True
            else:
                right += verdict["status"] == [expected] and verdict["camera_moved"] is True
    assert right >= total - 1, f"{right} of {total} moves judged right"

    before = tuple(sorted(shape_for_card(12)))
    first = photo(tmp_path, SEED + 70, before, 0.4, "glossy_black", (2.0, 1.0))
    moved = photo(tmp_path, SEED + 70, before, 0.4, "glossy_black", (2.0, 1.0), bumped)
    text = tableref("judge", "digit-move", str(first), str(moved)).stdout
    assert "several sticks moved" in text and "keep it still between the pictures" in text


def test_judge_digit_errors(tmp_path: Path) -> None:
    missing = tableref("judge", "digit", str(tmp_path / "none.jpg"))
    assert missing.exit_code == 1 and "none.jpg" in missing.output
    assert tableref("judge", "digit").exit_code == 2
    path = photo(tmp_path, SEED, tuple(sorted(shape_for_card(3))), 0.0, "birch")
    unknown = tableref("judge", "digit", str(path), "--card", "56")
    assert unknown.exit_code == 2 and "56" in unknown.output
    not_image = tmp_path / "notes.jpg"
    not_image.write_text("not a picture")
    assert tableref("judge", "digit-move", str(path), str(not_image)).exit_code == 1


def test_kit_sticks_writes_the_55_cards(tmp_path: Path) -> None:
    out = tmp_path / "digit-cards.pdf"
    result = tableref("kit", "sticks", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"%PDF")
    assert "55 cards on 7 A4 pages" in result.output


def test_evaluate_sticks_reports_every_share() -> None:
    result = tableref("evaluate", "sticks", "--scenes", "1", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["lattice_scenes"] == 1 and summary["illegal_scenes"] == 1 and summary["pickup_scenes"] == 1
    for key in ("shape_accuracy", "illegal_flagged", "pickup_count_right", "stick_recall", "false_detection_rate"):
        assert 0.0 <= summary[key] <= 1.0


@pytest.mark.parametrize(
    "option, known, unknown, named",
    [("--degrade", "dim", "fog", "jpeg"), ("--material", "mikado", "bamboo", "mikado")],
)
def test_evaluate_reads_renders_made_worse_or_of_one_material_and_names_the_kinds_it_knows(
    option: str, known: str, unknown: str, named: str
) -> None:
    result = tableref("evaluate", "sticks", "--scenes", "1", "--json", option, known)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.strip().splitlines()[-1])["lattice_scenes"] == 1
    refused = tableref("evaluate", "sticks", "--scenes", "1", option, unknown)
    assert refused.exit_code == 2
    assert unknown in refused.output and named in refused.output


def test_judge_digit_matches_the_layout_against_the_cards_in_the_calibrated_hand_area(tmp_path: Path) -> None:
    """With a calibration, the cards lying in its hand area are the player's hand: the layout is matched against
    them, not against the others on the table."""
    from calibration.homography import TableHomography
    from calibration.profile import CalibrationProfile, save_profile
    from calibration.zones import Zone, Zones

    spec = StickSceneSpec(split="heldout", kind="lattice", card=8, cards=(8, 44), table=TABLES[2], stick_px=(70, 100))
    scene = render_stick_scene(SEED + 42, spec)  # the table the test above reads whole
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), scene.image)
    table = TableHomography(np.diag([2.0, 2.0, 1.0]), scene.image.shape[1::-1], (0, 1, 2), 0.3)
    for held, matches in ((8, [8]), (44, [])):
        corners = next(c for number, c in scene.cards if number == held)
        (x0, y0), (x1, y1) = corners.min(axis=0) - 5, corners.max(axis=0) + 5
        box = tuple((2.0 * float(x), 2.0 * float(y)) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
        profile = tmp_path / f"calibration-{held}.json"
        save_profile(CalibrationProfile(table, Zones([Zone("hand-1", box, "hand", 1)])), profile)
        data = json.loads(tableref("judge", "digit", str(path), "--calibration", str(profile), "--json").stdout)
        assert data["cards_from"] == "hand" and data["cards"] == [held] and data["matches"] == matches
        assert {(c["card"], c["in_hand"]) for c in data["table_cards"]} == {(8, held == 8), (44, held == 44)}
        text = tableref("judge", "digit", str(path), "--calibration", str(profile)).stdout
        other = 44 if held == 8 else 8
        assert f"cards in the hand: {held}\n" in text and f"cards on the table: {other}\n" in text
        assert ("matches card 8 in the hand" if matches else "matches none of the cards 44 in the hand") in text


def test_judge_digit_tells_of_glare_beside_a_layout_read_short(tmp_path: Path) -> None:
    """Held-out 40209: a lamp's glare whitens two of the layout's sticks, and three are read. The verdict
    (no card) is told, and so is the glare beside them; a layout read whole is told of no glare."""
    scene = render_stick_scene(40_209, scene_spec(209, "heldout", 330))
    path = tmp_path / "glare.png"
    cv2.imwrite(str(path), scene.image)
    result = tableref("judge", "digit", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["card"] is None
    assert "glare" in result.stderr and str(path) in result.stderr
    whole = photo(tmp_path, SEED, tuple(sorted(shape_for_card(17))), 0.3, "birch")
    result = tableref("judge", "digit", str(whole), "--json")
    assert json.loads(result.stdout)["card"] == 17 and "glare" not in result.stderr
