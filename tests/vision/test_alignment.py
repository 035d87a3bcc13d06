"""The camera's move between two photos of one table, told by the table: right where told, never made up."""

from dataclasses import replace

import cv2
import numpy as np

from models.synth.sticks import StickSceneSpec, render_stick_scene
from models.synth.tables import HELDOUT_TABLES
from rules.sticks import shape_for_card
from vision.alignment import table_motion
from vision.geometry import to_plane
from vision.sticks.detections import Stick
from vision.sticks.layout import stick_outlines

TEXTURED = ("birch", "marble", "wood", "granite", "cork", "concrete", "laminate", "white")


def two_photos(seed: int, table: str, move: np.ndarray, card: int = 12) -> tuple[np.ndarray, np.ndarray, list, list]:
    """Two exposures of one layout on `table` (each its own sensor grain), the second seen by a camera moved
    by `move` (2 x 3, first frame px -> second's), and each photo's stick ends."""
    split = "heldout" if table in HELDOUT_TABLES else "train"
    spec = StickSceneSpec(split=split, kind="lattice", edges=tuple(sorted(shape_for_card(card))), turn=0.3, table=table)
    first = render_stick_scene(seed, spec)
    second = render_stick_scene(seed, replace(spec, exposure=1))
    moved = cv2.warpAffine(second.image, move, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
    ends = [s.ends for s in first.sticks]
    return first.image, moved, ends, [cv2.transform(e[None], move)[0] for e in ends]


def camera_move(rng: np.random.Generator) -> np.ndarray:
    """A camera bumped: turned up to 3 degrees and shifted up to 60 px."""
    move = cv2.getRotationMatrix2D((640, 360), rng.uniform(-3, 3), rng.uniform(0.96, 1.04))
    move[:, 2] += rng.uniform(-60, 60, 2)
    return move


def outlines(ends: list[np.ndarray]) -> list[np.ndarray]:
    return stick_outlines(tuple(Stick(e, 1.0) for e in ends))


def test_the_cameras_move_is_told_by_a_textured_table() -> None:
    rng = np.random.default_rng(5)
    told = 0
    for i, table in enumerate(TEXTURED):
        move = camera_move(rng) if i % 4 else np.float64([[1, 0, 0], [0, 1, 0]])
        first, second, ends, moved_ends = two_photos(900 + i, table, move)
        motion = table_motion(first, second, outlines(ends), outlines(moved_ends))
        if motion is None:
            continue
        told += 1
        back = to_plane(motion, np.array(moved_ends, np.float64))
        length = np.median([np.linalg.norm(e[1] - e[0]) for e in ends])
        assert np.abs(back - np.array(ends)).max() < 0.05 * length, table
    assert told >= len(TEXTURED) - 1, f"told on {told} of {len(TEXTURED)} tables"


def test_two_different_tables_give_no_move() -> None:
    rng = np.random.default_rng(6)
    for i, table in enumerate(TEXTURED[:4]):
        first, _, ends, _ = two_photos(950 + i, table, camera_move(rng))
        _, other, _, other_ends = two_photos(960 + i, table, camera_move(rng), card=30)
        assert table_motion(first, other, outlines(ends), outlines(other_ends)) is None, table


def test_a_plain_cloth_tells_no_move_rather_than_a_wrong_one() -> None:
    rng = np.random.default_rng(7)
    for i, table in enumerate(("red_felt", "glossy_black", "felt", "checkered")):
        move = camera_move(rng)
        first, second, ends, moved_ends = two_photos(970 + i, table, move)
        motion = table_motion(first, second, outlines(ends), outlines(moved_ends))
        if motion is not None:
            back = to_plane(motion, np.array(moved_ends, np.float64))
            assert np.abs(back - np.array(ends)).max() < 10, table
