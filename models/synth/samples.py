"""Write the sample pictures and clips in samples/ (the demo photo and the bench set).
Run: python -m models.synth.samples"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from models.synth.dominoes import DominoSpec, render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.pi import PI_DECIMALS
from rules.seven_pis import DOUBLE_SIX, Placement
from rules.sticks import Edge, shape_for_card
from vision.cards.artwork import CardFace, decko_style

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def tempus_faces(correct: int, wrong: tuple[int, ...]) -> tuple[CardFace, ...]:
    """The Starter, `correct` right digits of pi, then the given digits."""
    digits = (*PI_DECIMALS[:correct], *wrong)
    return (CardFace("starter", (3,)), *(CardFace("digit", (d,)) for d in digits))


SAMPLE_SCENES = {
    # A race in progress with the project's printed deck, cards a finger apart: twelve digits right, then a
    # 9 and a 7 swapped.
    "tempus-row.jpg": (
        11,
        SceneSpec(
            layout="grid",
            faces=tempus_faces(12, (9, 7)),
            deck_style=decko_style(),
            table="wood",
            card_px=(100, 110),
            max_tilt=30,
            gap_mm=(10, 16),
            distractors=False,
        ),
    ),
    "table-12-cards.jpg": (12, SceneSpec(split="heldout", n_cards=(12, 12), card_px=(80, 120))),
    "close-up.jpg": (13, SceneSpec(split="heldout", n_cards=(1, 2), card_px=(380, 520), max_tilt=25)),
}
# Sticks for the bench: DIGIT card 17 laid in plastic sticks on a held-out table, seen at a tilt.
STICK_SCENES = {
    "sticks-digit.jpg": (22, StickSceneSpec(split="heldout", kind="lattice", card=17, stick_px=(90, 120), max_tilt=35)),
}

# The DIGIT clip (`digit_game_frames`): the bench's stick sample's camera and table, the layout at one fixed turn.
DIGIT_GAME = (22, StickSceneSpec(split="heldout", kind="lattice", stick_px=(90, 120), max_tilt=35, turn=0.35))

# The Seven Pis clip (`seven_pis_game_frames`): a game the advisor plays and wins (this game seed goes out: all
# 28 tiles in 7 pis), on held-out tiles and table, seen at a webcam's usual tilt.
SEVEN_PIS_GAME_SEED = 10
SEVEN_PIS_CLIP = (28, DominoSpec(split="heldout", layout="pis", top=6, max_tilt=35))


# The bench's clips, as a webcam films the table (MPEG-4 at CLIP_FPS, with its blocks): the race of
# tempus-row.jpg as a player lays it, a card a step; a game of Seven Pis, a turn a step; a DIGIT game through
# two turns. Each step is filmed for FRAMES_PER_STEP frames, each frame with the sensor's own
# noise (CLIP_NOISE grey levels).
CLIP_FPS = 8
FRAMES_PER_STEP = 4
CLIP_NOISE = 2.0


def laid_frames(render: Callable[[int], np.ndarray], counts: Iterable[int], seed: int) -> Iterator[np.ndarray]:
    """One scene filmed as it is laid: for each count, `render(count)` (the scene with that many things laid)
    for FRAMES_PER_STEP noisy frames."""
    for laid in counts:
        yield from filmed(render(laid), FRAMES_PER_STEP, seed + laid)


def race_frames(seed: int, spec: SceneSpec) -> Iterator[np.ndarray]:
    """The cards of the scene laid one by one."""
    return laid_frames(lambda n: render_scene(seed, replace(spec, laid=n)).image, range(1, len(spec.faces) + 1), seed)


def seven_pis_game() -> tuple[list[Placement], list[int]]:
    """The advisor's game of the Seven Pis clip: its placements in the order laid, and how many lie on the
    table after each turn."""
    from rules.seven_pis_play import play_game

    order: list[Placement] = []
    counts = []
    for state in play_game("advisor", SEVEN_PIS_GAME_SEED):
        order += [p for p in state.layout.placements if p not in order]
        counts.append(len(order))
    return order, [n for n in counts if n]


def seven_pis_placed() -> tuple:
    """The tiles of `seven_pis_game` on their pis' grids, in the order laid (`DominoSpec.placed`)."""
    shape = DOUBLE_SIX.shape
    return tuple((p.pi, shape.slots[shape.index[p.slot]].cells, p.ends) for p in seven_pis_game()[0])


def seven_pis_game_frames(seed: int, spec: DominoSpec) -> Iterator[np.ndarray]:
    """The game of `seven_pis_game` filmed turn by turn, each tile where its pi and slot put it."""
    game = replace(spec, placed=seven_pis_placed())
    return laid_frames(lambda n: render_dominoes(seed, replace(game, laid=n)).image, seven_pis_game()[1], seed)


def domino_scenes() -> dict[str, tuple[int, DominoSpec]]:
    """The bench's dominoes: the table of the Seven Pis clip's game as it ends (28 tiles in 7 double-six pis, no
    tile twice), seen by another camera over another held-out table."""
    return {"dominoes-28.jpg": (30, DominoSpec(split="heldout", layout="pis", top=6, pis=7, placed=seven_pis_placed()))}


def digit_game_layouts() -> list[tuple[Edge, ...]]:
    """The DIGIT clip's layouts in turn: card 17; after a legal move (card 5); after two sticks moved at once."""
    from rules.digit_game import Layout, one_move_away

    first = tuple(sorted(shape_for_card(17)))
    second = tuple(sorted(one_move_away(first)[3][1].apply(Layout(first))))
    _, move = one_move_away(second)[0]
    _, other = next((n, m) for n, m in one_move_away(move.apply(Layout(second))) if m.removed != move.added)
    third = tuple(sorted(other.apply(move.apply(Layout(second)))))
    return [first, second, third]


def digit_game_frames(seed: int, spec: StickSceneSpec) -> Iterator[np.ndarray]:
    """A DIGIT table filmed through two turns (`digit_game_layouts`), with one origin so that the sticks not
    moved stay where they lay."""
    layouts = digit_game_layouts()
    points = np.array([p for edge in layouts[0] for p in (edge.a, edge.b)], float)
    origin = tuple((points.min(axis=0) + points.max(axis=0)) / 2)
    return laid_frames(
        lambda n: render_stick_scene(seed, replace(spec, edges=layouts[n], origin=origin)).image, range(3), seed
    )


def filmed(image: np.ndarray, count: int, seed: int) -> Iterator[np.ndarray]:
    """`count` frames of a still table: the picture with fresh sensor noise in each."""
    noise = np.random.default_rng(seed)
    for _ in range(count):
        yield np.clip(image + noise.normal(0, CLIP_NOISE, image.shape), 0, 255).astype(np.uint8)


def write_clip(path: Path, frames: Iterator[np.ndarray]) -> int:
    """The frames as an MPEG-4 video at CLIP_FPS; how many were written."""
    writer, count = None, 0
    for frame in frames:
        if writer is None:
            fourcc = cv2.VideoWriter_fourcc(*"mp4v")
            writer = cv2.VideoWriter(str(path), fourcc, CLIP_FPS, (frame.shape[1], frame.shape[0]))
            if not writer.isOpened():
                raise RuntimeError(f"{path}: OpenCV cannot write MPEG-4 video here (its build lacks the encoder)")
        writer.write(frame)
        count += 1
    if writer is not None:
        writer.release()
    return count


def main() -> None:
    from calibration.evaluate import mat_views

    SAMPLES.mkdir(exist_ok=True)
    cv2.imwrite(str(SAMPLES / "mat-view.jpg"), next(mat_views(1, seed=3)).frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    print("wrote samples/mat-view.jpg: the play mat seen by a webcam")
    for name, (seed, spec) in SAMPLE_SCENES.items():
        scene = render_scene(seed, spec)
        cv2.imwrite(str(SAMPLES / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        print(f"wrote samples/{name}: {len(scene.cards)} cards")
    for name, (seed, spec) in STICK_SCENES.items():
        sticks = render_stick_scene(seed, spec)
        cv2.imwrite(str(SAMPLES / name), sticks.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        print(f"wrote samples/{name}: {len(sticks.sticks)} sticks, card {sticks.card}")
    for name, (seed, spec) in domino_scenes().items():
        dominoes = render_dominoes(seed, spec)
        cv2.imwrite(str(SAMPLES / name), dominoes.image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        print(f"wrote samples/{name}: {len(dominoes.tiles)} dominoes")
    race_seed, race_spec = SAMPLE_SCENES["tempus-row.jpg"]
    clips = {
        "tempus-race.mp4": race_frames(race_seed, race_spec),
        "seven-pis.mp4": seven_pis_game_frames(*SEVEN_PIS_CLIP),
        "digit-game.mp4": digit_game_frames(*DIGIT_GAME),
    }
    for name, frames in clips.items():
        print(f"wrote samples/{name}: {write_clip(SAMPLES / name, frames)} frames")


if __name__ == "__main__":
    main()
