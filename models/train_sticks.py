"""Train the stick locator on synthetic renders and export it to ONNX with its manifest.

    python -m models.train_sticks [--scenes 3600] [--pattern-scenes 1800] [--steps 12000] [--resume]
    python -m models.train_sticks --scenes 0 --pattern-scenes 0 --shaped-scenes 2400 \
        --start models/sticks_locate.onnx --steps 4000 --lr 5e-4 --seed 7   # trained on in frames of other shapes
    python -m models.train_sticks --scenes 1200 --pattern-scenes 600 --shaped-scenes 2400 \
        --start models/sticks_locate.onnx --steps 4000 --lr 5e-4 --seed 8 --blur-share 0.3 \
        --checkpoint data/sticks_locate-blurred.pt --out models/sticks_locate_blurred.onnx   # for blurred frames
    python -m models.train_sticks --scenes 0 --pattern-scenes 0 --close-heap-scenes 1500 \
        --start models/sticks_locate.onnx --steps 2500 --lr 5e-4 --seed 5 --mirror --threads 2 \
        --checkpoint data/sticks_locate-heaps.pt --out models/sticks_locate_heaps.onnx   # for heaps seen closer
    python -m models.train_sticks --scenes 1200 --pattern-scenes 600 --shaped-scenes 2400 --mikado-scenes 1200 \
        --start models/sticks_locate.onnx --steps 4000 --lr 5e-4 --seed 10 \
        --checkpoint data/sticks_locate-mikado.pt   # trained on in thin pointed pick-up sticks too
    tableref evaluate sticks   # the recogniser on held-out renders (models/evaluate_sticks.py)

Training frames are the stick renders of the training split (its stick materials, colours and tables only)
at many scales, from a close-up of one layout to a whole table, under many tilts; and, as frames with no
stick at all, card scenes (cards, coins, notes: card borders and print) and views of the play mat (its
printed lines and markers). The network is the shared locator (models/locator_training.py), trained on
random windows. Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import typer

from models.datasets import DATA_DIR, render_blocks
from models.locator_training import export_locator, fit_locator, locator_frames, locator_maker, padded
from models.synth.degrade import Degradation, degrade, px_per_mm
from models.synth.scenes import SceneSpec, render_scene
from models.synth.sticks import StickSceneSpec, render_stick_scene
from models.synth.tables import EXTRA_TRAIN_TABLES, PATTERN_TRAIN_TABLES, TRAIN_TABLES
from vision.locator import letterbox, letterbox_scale
from vision.sticks.locate import CHANNELS, INPUT_SIZE, MODEL_PATH, STRIDE, encode_targets

CHECKPOINT = DATA_DIR / "sticks_locate.pt"
NO_STICK_SHARE = 0.2  # of the frames: card scenes (CARD_SCENE_SHARE) and views of the play mat
CARD_SCENE_SHARE = 0.13
MOST_STICKS = 32  # in one training frame (a far pick-up heap holds up to 25)
WINDOW = (320, 224)  # training crops: wider than the domino locator's, as a close stick is long
# The training split's tables and more kinds only these frames use: a network that has seen few kinds of
# table misses sticks on the ones it has not seen.
TABLES = TRAIN_TABLES + EXTRA_TRAIN_TABLES
FRAMES_CACHE = "sticks-frames-train-v2"  # v2: drawn over TABLES
# Frames after the first `scenes` are drawn over PATTERN_TRAIN_TABLES (fine checks, grids, seams, veined
# stone), cached apart so the first block's cache stands.
PATTERN_CACHE = "sticks-frames-patterns-v1"
# Scene kinds a frame draws from, as (kind, how an illegal layout is broken).
KINDS = (("lattice", None), ("lattice", None), ("illegal", None), ("pickup", None), ("pickup", None))
# The crossing block: sticks crossed near their middles are read from their end peaks (vision.sticks.locate),
# which the first frames mark weakly there, so half of these frames hold a layout with one stick crossing
# another, over every training table.
CROSSING_CACHE = "sticks-frames-crossing-v1"
CROSSING_KINDS = (("illegal", "crossing"), ("illegal", "crossing"), ("lattice", None), ("pickup", None))
# The shaped block: frames of the shapes photos come in (4:3 above all, and 3:2), not only 16:9, over every
# training table. The network reads a 4:3 frame narrower than its input, beside a black bar, and read such
# frames worse than 16:9 ones (models/sticks.md, "Where it fails"). Its seeds are its own.
SHAPED_CACHE = "sticks-frames-shaped-v2"  # v2: tables drawn at one pattern size for every frame shape
SHAPED_SEED = 60_000_000
SHAPES = ((960, 720), (640, 480), (1600, 1200), (1080, 720), (1280, 720))
# The close-heap block, for the network that reads a heap again closer (vision/sticks/heaps.py): three frames
# in five a heap of sticks twice as long as the first look's heaps, as long in the network's input as those
# heaps read at twice the scale; the rest as `frame_sample`. The first frames hold no heap at that scale.
CLOSE_HEAP_CACHE = "sticks-frames-close-heaps-v1"
CLOSE_HEAP_SEED = 49_500_000
# The mikado block: every stick a pick-up-sticks game's (models/synth/sticks.py), thinner than any other
# material and pointed, over every training table. Its seeds are its own. A network that learns such sticks
# from these frames alone reads plank seams as sticks (models/sticks.md), so a share of them are bare tables
# of the training tables with seams or joints, photographed as the stick scenes are.
MIKADO_CACHE = "sticks-frames-mikado-v2"  # v2: bare seamed tables
MIKADO_SEED = 62_000_000
SEAMED_TABLES = ("wood", "planks", "tiles")
BARE_SEAMED_SHARE = 0.2
# The hand block: `frame_sample`'s frames over every training table with a player's arm and hand reaching in
# beside the sticks (models/synth/degrade.py). The first frames hold no hand, and the network read the gaps
# between the fingers as sticks (models/sticks.md, "Where it fails"). Its seeds are its own.
HAND_CACHE = "sticks-frames-hands-v1"
HAND_SEED = 64_000_000
HAND_STICK_MM = 65.0  # the sticks rendered are 50-80 mm long: the hand's scale
# The small block: frames of a webcam filming at 640x480 or so are read at their own pixels' scale or near it
# (vision/locator.py, `reading_size`), where every other block's frames come to the network halved, sharper and
# less grainy than they were rendered; such frames read far worse (models/sticks.md). These are rendered that
# small, over every training table, with sticks as long in the network's input as in the other blocks.
SMALL_CACHE = "sticks-frames-small-v1"
SMALL_SEED = 66_000_000
SMALL_SHAPES = ((640, 360), (720, 405), (854, 480))  # read at 1.0, 0.89 and 0.75 of their pixels
# Sticks that short are often thinner than the renderer draws (MIN_THICKNESS_PX): such a seed is drawn again
# from here, up to SMALL_TRIES times.
SMALL_RETRY_SEED = 66_100_000
SMALL_TRIES = 8


def training_frame(
    seed: int,
    tables: tuple[str, ...] = TABLES,
    kinds: tuple[tuple[str, str | None], ...] = KINDS,
    size: tuple[int, int] = (1280, 720),
    material: str | None = None,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """One training frame (BGR) of `size` and its sticks' ends (image px): mostly sticks of one of `kinds`, at
    every scale (as many of the network's input pixels long in any frame shape), on any of `tables`, all of
    `material` if given; NO_STICK_SHARE are card scenes or mat views, which hold no stick."""
    rng = random.Random(seed * 7919)
    kind = rng.random()
    table = rng.choice(tables)
    if kind < CARD_SCENE_SHARE:
        return render_scene(seed, SceneSpec(split="train", table=table, size=size)).image, []
    if kind < NO_STICK_SHARE:
        from calibration.evaluate import mat_views

        return next(mat_views(1, seed=seed)).frame, []
    scene_kind, broken = rng.choice(kinds)
    # One frame in six has every stick close to the table's colour, the hardest to see.
    camouflage = rng.random() < 1 / 6
    material = material or ("camouflage" if camouflage else None)
    k = letterbox_scale(1280, 720, INPUT_SIZE) / letterbox_scale(*size, INPUT_SIZE)
    base = StickSceneSpec(split="train", kind=scene_kind, table=table, material=material, broken=broken, size=size)
    base = replace(base, stick_px=(base.stick_px[0] * k, base.stick_px[1] * k))
    scale = rng.random()
    if scale < 0.55:
        spec = base
    elif scale < 0.75:  # a whole table seen from afar
        spec = replace(base, stick_px=(45 * k, 75 * k), n_sticks=(8, 25))
    else:  # a close-up
        spec = replace(base, stick_px=(130 * k, 280 * k), n_sticks=(2, 6), max_tilt=60)
    try:
        scene = render_stick_scene(seed, spec)
    except RuntimeError:  # the heap or layout does not fit the picture at that scale
        scene = render_stick_scene(seed, base)
    return scene.image, [s.ends for s in scene.sticks]


def frame_sample(
    seed: int,
    tables: tuple[str, ...] = TABLES,
    kinds: tuple[tuple[str, str | None], ...] = KINDS,
    size: tuple[int, int] = (1280, 720),
    material: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A `training_frame` as a sample (`as_sample`)."""
    return as_sample(*training_frame(seed, tables, kinds, size, material))


def as_sample(image: np.ndarray, sticks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The letterboxed frame (1, H, W, 3) and its sticks' ends in its pixels (1, MOST_STICKS, 2, 2), NaN
    after the last stick."""
    canvas, scale = letterbox(image, INPUT_SIZE)
    return canvas[None], padded(sticks, MOST_STICKS, (2, 2), scale)


def pattern_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample over PATTERN_TRAIN_TABLES (a module-level function, for the rendering pool)."""
    return frame_sample(seed, PATTERN_TRAIN_TABLES)


def crossing_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample of CROSSING_KINDS over TABLES and PATTERN_TRAIN_TABLES."""
    return frame_sample(seed, TABLES + PATTERN_TRAIN_TABLES, CROSSING_KINDS)


def shaped_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample over TABLES and PATTERN_TRAIN_TABLES in a frame of one of SHAPES."""
    return frame_sample(seed, TABLES + PATTERN_TRAIN_TABLES, size=random.Random(seed).choice(SHAPES))


def mikado_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample over TABLES and PATTERN_TRAIN_TABLES, every stick of the mikado material; or, in
    BARE_SEAMED_SHARE of the seeds, one of SEAMED_TABLES with no stick on it."""
    rng = random.Random(seed * 104_729)
    if rng.random() < BARE_SEAMED_SHARE:
        spec = StickSceneSpec(split="train", kind="pickup", table=rng.choice(SEAMED_TABLES), n_sticks=(0, 0))
        return as_sample(render_stick_scene(seed, spec).image, [])
    return frame_sample(seed, TABLES + PATTERN_TRAIN_TABLES, material="mikado")


def close_heap_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A frame of the close-heap block, as `frame_sample` gives one."""
    rng = random.Random(seed * 31)
    tables = TABLES + PATTERN_TRAIN_TABLES
    if rng.random() < 0.4:
        return frame_sample(seed, tables)
    table = rng.choice(tables)
    material = "camouflage" if rng.random() < 1 / 6 else None
    spec = StickSceneSpec(
        split="train", kind="pickup", table=table, material=material, stick_px=(120, 300), n_sticks=(3, 15)
    )
    try:
        scene = render_stick_scene(seed, spec)
    except RuntimeError:  # the heap does not fit the picture at that scale
        scene = render_stick_scene(seed, replace(spec, stick_px=(100, 200), n_sticks=(3, 8)))
    return as_sample(scene.image, [s.ends for s in scene.sticks])


def hand_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A `training_frame` over TABLES and PATTERN_TRAIN_TABLES with a hand reaching in beside its sticks."""
    image, sticks = training_frame(seed, TABLES + PATTERN_TRAIN_TABLES)
    scale = px_per_mm(sticks, HAND_STICK_MM)  # None in a frame with no stick: the hand is sized by the frame
    return as_sample(degrade(image, Degradation.hand, seed, sticks, scale), sticks)


def small_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """frame_sample over TABLES and PATTERN_TRAIN_TABLES in a frame of one of SMALL_SHAPES."""
    size = random.Random(seed).choice(SMALL_SHAPES)
    tries = [seed] + [SMALL_RETRY_SEED + (seed - SMALL_SEED) * SMALL_TRIES + k for k in range(SMALL_TRIES - 1)]
    for tried in tries[:-1]:
        try:
            return frame_sample(tried, TABLES + PATTERN_TRAIN_TABLES, size=size)
        except RuntimeError:  # no stick of this seed fits that small
            continue
    return frame_sample(tries[-1], TABLES + PATTERN_TRAIN_TABLES, size=size)


def locator_data(
    first_seed: int,
    scenes: int,
    pattern_scenes: int = 0,
    crossing_scenes: int = 0,
    shaped_scenes: int = 0,
    close_heap_scenes: int = 0,
    mikado_scenes: int = 0,
    hand_scenes: int = 0,
    small_scenes: int = 0,
) -> dict[str, np.ndarray]:
    """The cached frames and their targets (vision.sticks.locate.encode_targets): `scenes` over TABLES, then
    `pattern_scenes` more over PATTERN_TRAIN_TABLES, then `crossing_scenes` of the crossing block,
    `shaped_scenes` of the shaped block, `close_heap_scenes` of the close-heap block, `mikado_scenes` of
    the mikado block, `hand_scenes` of the hand block and `small_scenes` of the small block."""
    blocks = render_blocks(
        [
            (FRAMES_CACHE, frame_sample, first_seed, scenes),
            (PATTERN_CACHE, pattern_sample, first_seed + scenes, pattern_scenes),
            (CROSSING_CACHE, crossing_sample, first_seed + scenes + pattern_scenes, crossing_scenes),
            (SHAPED_CACHE, shaped_sample, SHAPED_SEED, shaped_scenes),
            (CLOSE_HEAP_CACHE, close_heap_sample, CLOSE_HEAP_SEED, close_heap_scenes),
            (MIKADO_CACHE, mikado_sample, MIKADO_SEED, mikado_scenes),
            (HAND_CACHE, hand_sample, HAND_SEED, hand_scenes),
            (SMALL_CACHE, small_sample, SMALL_SEED, small_scenes),
        ]
    )
    return locator_frames(blocks, encode_targets)


def train(
    scenes: int = typer.Option(3600, help="training frames to render over the training tables (cached in data/)"),
    pattern_scenes: int = typer.Option(1800, help="more frames over PATTERN_TRAIN_TABLES (cached in data/)"),
    crossing_scenes: int = typer.Option(0, help="more frames, half with one stick crossing another (cached)"),
    shaped_scenes: int = typer.Option(0, help="more frames of other shapes than 16:9 (cached)"),
    close_heap_scenes: int = typer.Option(0, help="more frames, mostly heaps seen close (cached)"),
    mikado_scenes: int = typer.Option(0, help="more frames, every stick a thin pointed pick-up stick (cached)"),
    hand_scenes: int = typer.Option(0, help="more frames, a player's hand reaching in beside the sticks (cached)"),
    small_scenes: int = typer.Option(
        0, help="more frames as small as a 640x480 webcam's, read at their scale (cached)"
    ),
    threads: int = typer.Option(1, help="torch threads (the machine is shared: one by default)"),
    steps: int = typer.Option(12000, help="training steps of 12 windows"),
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
    """Render the training frames, train the stick locator, export it with its manifest."""
    import torch

    torch.set_num_threads(threads)
    data = locator_data(
        1,
        scenes,
        pattern_scenes,
        crossing_scenes,
        shaped_scenes,
        close_heap_scenes,
        mikado_scenes,
        hand_scenes,
        small_scenes,
    )
    print(f"{len(data['canvas'])} frames, {int((data['heat'][:, 0] > 0.999).sum())} sticks")
    model, report = fit_locator(
        locator_maker(len(CHANNELS), start),
        data,
        steps,
        seed,
        checkpoint,
        STRIDE,
        resume,
        window=WINDOW,
        batch=12,
        name="stick locator",
        max_lr=lr,
        blur_share=blur_share,
        mirrored=CHANNELS[2:] if mirror else (),
        exposure_share=exposure_share,
    )
    training = {
        "scenes": scenes, "pattern_scenes": pattern_scenes, "crossing_scenes": crossing_scenes,
        "shaped_scenes": shaped_scenes, "close_heap_scenes": close_heap_scenes, "mikado_scenes": mikado_scenes,
        "hand_scenes": hand_scenes, "small_scenes": small_scenes,
        "seed": seed, "threads": threads,
        "resumed": resume or start is not None,
        "data": "models/synth/sticks.py renders, split=train, at three scales, on the training tables and "
                "EXTRA_TRAIN_TABLES (then pattern_scenes more on PATTERN_TRAIN_TABLES, then crossing_scenes more on "
                "both, half of them a layout with one stick crossing another), a sixth all camouflage; card scenes "
                "(models/synth/scenes.py, split=train) and play-mat views as stick-free frames; shaped_scenes more on "
                "both in frames of SHAPES (seeds SHAPED_SEED..); close_heap_scenes more, three in five a heap "
                "of sticks 120-300 px long in 1280x720 (seeds CLOSE_HEAP_SEED..); mikado_scenes more on both, every "
                "stick of the mikado material, BARE_SEAMED_SHARE of them bare SEAMED_TABLES (seeds MIKADO_SEED..); "
                "hand_scenes more on both, a player's hand reaching in beside the sticks (seeds HAND_SEED..); "
                "small_scenes more on both in frames of SMALL_SHAPES, read near their own pixels' scale (seeds "
                "SMALL_SEED..)",
        **report,
    }  # fmt: skip
    export_locator(model, out, MODEL_PATH, INPUT_SIZE, CHANNELS, STRIDE, training)


if __name__ == "__main__":
    typer.run(train)
