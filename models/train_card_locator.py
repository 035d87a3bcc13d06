"""Train the card locator (vision/cards/centres.py) on synthetic scenes and export it to ONNX with its manifest.

    python -m models.train_card_locator [--scenes 2400] [--pattern-scenes 1200] [--free-scenes 800] [--steps 16000]
    python -m models.train_card_locator --scenes 1200 --pattern-scenes 600 --free-scenes 400 --mat-scenes 300 \
        --streaked-scenes 600 --start models/card_locate.onnx --steps 4000 --lr 5e-4 --seed 8 --blur-share 0.3 \
        --checkpoint data/card_locate-blurred.pt --out data/card_locate_blurred.onnx   # a copy trained on blur
        # (tried as a second look, not shipped: models/digit_cards.md)
    python -m models.train_card_locator --scenes 1200 --pattern-scenes 600 --free-scenes 400 --mat-scenes 300 \
        --streaked-scenes 600 --portrait-scenes 600 --start models/card_locate.onnx --steps 6000 --lr 5e-4 --seed 9 \
        --checkpoint data/card_locate_portrait.pt --out models/card_locate_portrait.onnx   # portrait frames' locator
    python -m models.train_card_locator --start models/card_locate.onnx --steps 4000 --lr 5e-4 --seed 13 \
        --exposure-share 0.3 --checkpoint data/card_locate-exposed.pt   # trained on overexposed windows too
        # (after the portrait locator and the classifiers that learn from its outlines)
    python -m models.train_card_locator --touching-scenes 1200 --start models/card_locate.onnx --steps 2000 \
        --lr 3e-4 --seed 16 --exposure-share 0.3 --checkpoint data/card_locate-touching.pt   # trained on from
        # that one with Tempus lines laid touching added (fifty-fourth session)
    python -m models.train_card_locator --scenes 1200 --pattern-scenes 600 --free-scenes 400 --mat-scenes 300 \
        --streaked-scenes 600 --touching-scenes 600 --inked-scenes 1200 --start models/card_locate.onnx \
        --steps 2000 --lr 3e-4 --seed 17 --exposure-share 0.3 --checkpoint data/card_locate-inked.pt   # the
        # shipped locator: trained on from that one with dark cards crossed by sashes in their ink added (after
        # the corner network's touching run, which learnt from the locator before it; fifty-sixth session)
    tableref evaluate cards   # the card reader on held-out renders

Frames are the card scenes of the training split (models/synth/scenes.py: its fonts, designs and tables;
notes, coins and the Reference card as things that are not cards), then as many again over
PATTERN_TRAIN_TABLES, the checks, grids, seams and veined stone that taught the domino and stick locators to
see through busy cloths. The network is the shared locator (models/locator_training.py), trained on random
windows. Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import typer

from models.datasets import DATA_DIR, render_blocks
from models.locator_training import export_locator, fit_locator, locator_frames, locator_maker, padded
from models.synth.dominoes import render_dominoes
from models.synth.scenes import PORTRAIT_SIZE, SceneSpec, render_scene
from models.synth.sticks import SCENE_KINDS, StickSceneSpec, render_stick_scene
from models.synth.tables import PATTERN_TRAIN_TABLES
from models.train_cards import tempus_line_spec, training_spec
from models.train_dominoes import training_spec as domino_training_spec
from vision.cards.centres import CHANNELS, INPUT_SIZE, MODEL_PATH, STRIDE, encode_targets, letterbox
from vision.geometry import landscape, turned

CHECKPOINT = DATA_DIR / "card_locate.pt"
MOST_CARDS = 64  # in one training scene
FIRST_SEED = 30_000_000  # training-split card scenes (the card classifier's start at 1)
FRAMES_CACHE = "card-locate-frames"
PATTERN_CACHE = "card-locate-frames-patterns"
FREE_CACHE = "card-locate-frames-free"
MAT_CACHE = "card-locate-frames-mat"
MAT_SEED = 33_000_000  # apart from the calibration evaluation's race views (seeds from 0 and 1000)
STREAKED_CACHE = "card-locate-frames-streaked"
STREAKED_SEED = 34_000_000
STREAKED_SHARE = 0.6
# Cards crossed by a sash in their numeral's colour, half the designs on dark paper: the classifier's fine-tuning
# and the locator's share this block's recipe. Dark cards were 21 % of the held-out cards and 59 % of those missed.
INKED_CACHE = "card-locate-frames-inked"
INKED_SEED = 63_000_000
INKED_SHARE = 0.7
INKED_DARK_PAPER = 0.5
INKED_CHANGES = {"streaks": INKED_SHARE, "inked_streaks": True, "dark_paper": INKED_DARK_PAPER}  # to a SceneSpec
PORTRAIT_CACHE = "card-locate-frames-portrait"
PORTRAIT_SEED = 36_000_000
TOUCHING_CACHE = "card-locate-frames-touching"
TOUCHING_SEED = 58_000_000
# Cards of a Tempus line laid touching, or each over the one before by up to a sixth of its width: players in a
# race lay them so, and the locator, taught on lines with gaps, took such a line for one large card.
TRAINING_TOUCHING_GAP_MM = (-10.0, 3.0)


def _sample(image: np.ndarray, cards: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The letterboxed frame (1, H, W, 3) and its cards' corners in its pixels (1, MOST_CARDS, 4, 2), NaN
    after the last card."""
    canvas, scale = letterbox(image)
    return canvas[None], padded(cards, MOST_CARDS, (4, 2), scale)


def _scene_sample(seed: int, spec: SceneSpec) -> tuple[np.ndarray, np.ndarray]:
    scene = render_scene(seed, spec)
    return _sample(scene.image, [card.corners for card in scene.cards])


def frame_sample(seed: int, tables: tuple[str, ...] = (), streaks: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A training scene as `_sample` gives it; the table one of `tables` if given, else one of the split's;
    `streaks` of its cards crossed by a band."""
    spec = replace(training_spec(seed, "train"), streaks=streaks)
    if tables:
        spec = replace(spec, table=random.Random(seed).choice(tables))
    return _scene_sample(seed, spec)


def pattern_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample over PATTERN_TRAIN_TABLES (a module-level function, for the rendering pool)."""
    return frame_sample(seed, PATTERN_TRAIN_TABLES)


def streaked_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample with STREAKED_SHARE of the cards crossed by glare or a printed band: a card must stay a
    card when a band breaks its face and, on a glossy card, its edges."""
    return frame_sample(seed, streaks=STREAKED_SHARE)


def inked_spec(seed: int, split: str = "train") -> SceneSpec:
    """The scene of `seed` with INKED_DARK_PAPER of its designs on dark paper and INKED_SHARE of its cards crossed
    by a band in the numeral's colour: a light numeral broken by a band is all a dark card shows of itself."""
    return replace(training_spec(seed, split), **INKED_CHANGES)


def inked_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`inked_spec`'s scene as `_sample` gives it."""
    return _scene_sample(seed, inked_spec(seed))


def portrait_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A training scene rendered as a phone held upright takes it (PORTRAIT_SIZE), turned to landscape as the
    reader turns such a frame (`vision.geometry.landscape`): a tilted table's far cards then lie at the
    frame's side, foreshortened across it, as in no landscape render."""
    scene = render_scene(seed, replace(training_spec(seed, "train"), size=PORTRAIT_SIZE))
    image, height = landscape(scene.image)
    return _sample(image, [turned(card.corners, height) for card in scene.cards])


def touching_spec(seed: int) -> SceneSpec:
    """The Tempus line of the training split laid TRAINING_TOUCHING_GAP_MM apart that `seed` gives."""
    return tempus_line_spec(random.Random(seed), "train", TRAINING_TOUCHING_GAP_MM)


def touching_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`touching_spec`'s line as `_sample` gives it."""
    return _scene_sample(seed, touching_spec(seed))


def card_free_image(seed: int) -> np.ndarray:
    """A training frame with no card in it: domino tiles (without their distractors, digit cards among them)
    or sticks. Dark tiles in a pi and stick layouts are card-sized shapes that are not cards."""
    if seed % 2:
        return render_dominoes(seed, replace(domino_training_spec(seed), distractors=False)).image
    kind = random.Random(seed).choice(SCENE_KINDS)
    return render_stick_scene(seed, StickSceneSpec(split="train", kind=kind)).image


def card_free_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`card_free_image` as `_sample` gives it."""
    return _sample(card_free_image(seed), [])


def mat_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Cards in Tempus lanes on the play mat (training designs), as `_sample` gives it: the camera's frame,
    or one time in two the top-down view of the mat that `judge tempus --calibration` reads as well, where
    cards are large and the mat's print lies all round them."""
    from calibration.evaluate import race_lines
    from calibration.homography import MatNotFoundError, estimate_homography
    from calibration.lanes import lanes_of
    from calibration.mat import MatLayout
    from calibration.synth import race_view
    from calibration.topdown import TopDownView
    from calibration.zones import mat_zones

    rng = random.Random(seed)
    layout = MatLayout(lanes=2, race=True)  # lanes a card tall: the play mat's are narrower than a card
    lanes = lanes_of(mat_zones(layout))
    for cards in range(rng.randint(1, 6), 0, -1):  # as many as the lanes hold
        try:
            view = race_view(seed, layout, lanes, race_lines(seed, len(lanes), cards), heldout=False)
            break
        except ValueError:
            continue
    frame = view.frame
    laid = [card.corners_px for row in view.lines for card in row]
    if seed % 2:
        try:
            top = TopDownView(estimate_homography(view.frame, layout), layout=layout)
            frame = top.warp(view.frame)
            laid = [cv2.perspectiveTransform(card.corners_mm.reshape(-1, 1, 2), top.mm_to_view).reshape(4, 2)
                    for row in view.lines for card in row]  # fmt: skip
        except MatNotFoundError:
            pass
    return _sample(frame, laid)


def locator_data(
    scenes: int,
    pattern_scenes: int,
    free_scenes: int = 0,
    mat_scenes: int = 0,
    streaked_scenes: int = 0,
    portrait_scenes: int = 0,
    touching_scenes: int = 0,
    inked_scenes: int = 0,
) -> dict[str, np.ndarray]:
    """The cached frames and their targets (vision.cards.centres.encode_targets)."""
    blocks = render_blocks(
        [
            (FRAMES_CACHE, frame_sample, FIRST_SEED, scenes),
            (PATTERN_CACHE, pattern_sample, FIRST_SEED + scenes, pattern_scenes),
            (FREE_CACHE, card_free_sample, FIRST_SEED + scenes + pattern_scenes, free_scenes),
            (MAT_CACHE, mat_sample, MAT_SEED, mat_scenes),
            (STREAKED_CACHE, streaked_sample, STREAKED_SEED, streaked_scenes),
            (PORTRAIT_CACHE, portrait_sample, PORTRAIT_SEED, portrait_scenes),
            (TOUCHING_CACHE, touching_sample, TOUCHING_SEED, touching_scenes),
            (INKED_CACHE, inked_sample, INKED_SEED, inked_scenes),
        ]
    )
    return locator_frames(blocks, encode_targets)


def train(
    scenes: int = typer.Option(2400, help="training scenes over the training tables (cached in data/)"),
    pattern_scenes: int = typer.Option(1200, help="more scenes over PATTERN_TRAIN_TABLES (cached in data/)"),
    free_scenes: int = typer.Option(800, help="frames with no card: dominoes and sticks (cached in data/)"),
    mat_scenes: int = typer.Option(600, help="cards in lanes on the play mat, raw and top-down (cached in data/)"),
    streaked_scenes: int = typer.Option(1200, help="training scenes with bands across cards (cached in data/)"),
    portrait_scenes: int = typer.Option(0, help="training scenes in portrait frames, turned (cached in data/)"),
    touching_scenes: int = typer.Option(0, help="Tempus lines of cards laid touching or overlapping (cached in data/)"),
    inked_scenes: int = typer.Option(
        0, help="training scenes, half the designs on dark paper, sashes in the ink's colour (cached in data/)"
    ),
    steps: int = typer.Option(16000, help="training steps of 16 windows"),
    seed: int = typer.Option(0),
    resume: bool = typer.Option(False, help="fine-tune from the checkpoint"),
    start: Path | None = typer.Option(None, help="train on from an exported locator (.onnx) instead"),
    lr: float | None = typer.Option(None, help="the peak learning rate (default: 3e-3 fresh, 1.5e-3 resumed)"),
    blur_share: float = typer.Option(0.0, help="share of the training windows blurred as by a moving camera"),
    exposure_share: float = typer.Option(0.0, help="share of the training windows overexposed (cut off at white)"),
    mirror: bool = typer.Option(False, help="mirror the training windows at random (left-right, top-bottom)"),
    checkpoint: Path = typer.Option(CHECKPOINT, help="the weights, saved every 250 steps (and resumed from)"),
    out: Path = typer.Option(MODEL_PATH, help="the ONNX model to write; its manifest goes beside it"),
) -> None:
    """Render the training frames, train the card locator, export it with its manifest."""
    import torch

    torch.set_num_threads(1)  # the machine is shared: one core for training
    data = locator_data(
        scenes, pattern_scenes, free_scenes, mat_scenes, streaked_scenes, portrait_scenes, touching_scenes, inked_scenes
    )
    print(f"{len(data['canvas'])} frames, {int((data['heat'] > 0.999).sum())} cards")
    model, report = fit_locator(
        locator_maker(len(CHANNELS), start),
        data,
        steps,
        seed,
        checkpoint,
        STRIDE,
        resume,
        window=(256, 160),
        batch=16,
        name="card locator",
        max_lr=lr,
        blur_share=blur_share,
        mirrored=CHANNELS[1:] if mirror else (),
        exposure_share=exposure_share,
    )
    training = {
        "scenes": scenes, "pattern_scenes": pattern_scenes, "free_scenes": free_scenes,
        "mat_scenes": mat_scenes, "streaked_scenes": streaked_scenes, "streaked_share": STREAKED_SHARE,
        "portrait_scenes": portrait_scenes, "portrait_seed": PORTRAIT_SEED,
        "touching_scenes": touching_scenes, "touching_seed": TOUCHING_SEED, "touching_gap_mm": TRAINING_TOUCHING_GAP_MM,
        "inked_scenes": inked_scenes, "inked_seed": INKED_SEED, "inked_share": INKED_SHARE,
        "inked_dark_paper": INKED_DARK_PAPER,
        "first_seed": FIRST_SEED,
        "seed": seed, "resumed": resume or start is not None,
        "data": "models/synth/scenes.py renders, split=train (models.train_cards.training_spec), on its tables, "
                "then pattern_scenes more on PATTERN_TRAIN_TABLES; free_scenes with no card "
                "(models/synth/dominoes.py without distractors, models/synth/sticks.py); mat_scenes of cards in "
                "lanes on the play mat (calibration/synth.py race views, training designs), half top-down; "
                "streaked_scenes more of the first kind with bands across streaked_share of their cards; "
                "portrait_scenes more of the first kind rendered 720x1280 and turned to landscape; "
                "touching_scenes Tempus lines (models.train_cards.tempus_line_spec) laid touching_gap_mm apart; "
                "inked_scenes more of the first kind, inked_dark_paper of their designs on dark paper and "
                "inked_share of their cards crossed by a band in the numeral's colour",
        **report,
    }  # fmt: skip
    export_locator(model, out, MODEL_PATH, INPUT_SIZE, CHANNELS, STRIDE, training)


if __name__ == "__main__":
    typer.run(train)
