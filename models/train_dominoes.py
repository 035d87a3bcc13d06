"""Train the two domino networks on synthetic renders, export them to ONNX, and measure the recogniser.

    python -m models.train_dominoes [--scenes 2000] [--locate-steps 4000] [--pip-epochs 5]
    python -m models.finetune_dominoes   # the locator on more kinds of table and steeper views
    python -m models.train_dominoes --skip-locator --pips-start data/dominoes_pips.pt --pip-epochs 2 \
        --pip-lr 5e-4 --free-scenes 1000 --seed 1   # the reader trained on, with frames with no domino
    tableref evaluate dominoes   # the recogniser on held-out renders (models/evaluate_dominoes.py)

Both networks learn from the same rendered training scenes (train tile styles and tables only). The locator
learns each tile's centre heatmap and half-axes; the pip reader learns from crops of true tiles (jittered
as the locator's outlines are) and from crops that look like tiles but are not: a half of one tile with the
touching half of its neighbour (end to end, side by side, a pi's leg against the back), a tile read
sideways, a tile shifted by a half, dice, coins and bare table. Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import functools
import json
import math
import multiprocessing
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import typer

from models.locator_training import augment, block, fit_locator, locator_maker
from models.synth.dominoes import DominoScene, DominoSpec, render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.synth.sticks import SCENE_KINDS, StickSceneSpec, render_stick_scene
from models.synth.tables import EXTRA_TRAIN_TABLES, TRAIN_TABLES
from models.training import export_onnx, fit_epochs, load_exported_weights, motion_blurred
from vision.crops import to_tensor as pips_tensor
from vision.dominoes.locate import CHANNELS, INPUT_SIZE, STRIDE, TileLocator, encode_targets, letterbox
from vision.dominoes.locate import MODEL_PATH as LOCATE_PATH
from vision.dominoes.pips import MODEL_PATH as PIPS_PATH
from vision.dominoes.pips import N_COUNTS, output_names
from vision.dominoes.tile import CROP_SIZE, TileFrame, crop_tile

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
NOT_A_TILE = -1
PROPOSAL_SEED = 10_000_000  # proposal scenes: training styles and tables, seeds the renders did not use
FREE_SEED = 37_000_000  # frames with no domino (stick layouts, card scenes), training split
# Blur lengths in crop pixels: the renders' 5-9 image pixels, at the crop's scale of a half to one and a half.
BLUR_LENGTHS = (3, 5, 7, 9, 11)
VARIED_TILT = 62.0  # as steep as a webcam at the table's edge; the evaluation's steep views reach this


def training_spec(seed: int, split: str = "train") -> DominoSpec:
    """The mix of scenes: Seven Pis layouts, mixed tables, touching groups, scattered tiles, close-ups."""
    rng = random.Random(seed * 7919)
    kind = rng.random()
    one_set = rng.random() < 0.85
    if kind < 0.35:
        return DominoSpec(split=split, layout="pis", one_set=one_set)
    if kind < 0.6:
        return DominoSpec(split=split, layout="mixed", one_set=one_set)
    if kind < 0.78:
        return DominoSpec(split=split, layout="touching", one_set=one_set)
    if kind < 0.88:
        return DominoSpec(split=split, layout="scatter", one_set=one_set)
    return DominoSpec(
        split=split,
        layout=rng.choice(("touching", "mixed", "pis")),
        n_tiles=(2, 8),
        tile_px=(70, 150),
        max_tilt=40,
        one_set=one_set,
    )


def varied_spec(seed: int, tables: tuple[str, ...] = TRAIN_TABLES + EXTRA_TRAIN_TABLES) -> DominoSpec:
    """The training mix on any of `tables` and, in two frames in five, views tilted up to VARIED_TILT: the
    locator missed tiles on busy held-out cloths and at steep views (models/finetune_dominoes.py)."""
    rng = random.Random(seed * 7919 + 1)  # apart from training_spec's draws, which stay as they were
    spec = replace(training_spec(seed), table=rng.choice(tables))
    return replace(spec, max_tilt=VARIED_TILT) if rng.random() < 0.4 else spec


# Rendering the training data ---------------------------------------------------------------------------


def _jittered(rng: random.Random, frame: TileFrame, amount: float = 1.0) -> TileFrame:
    """The outline off by as much as the locator's may be: centre, turn and each axis's length."""
    width = float(np.linalg.norm(frame.v)) * 2
    shift = np.array([rng.gauss(0, 0.05 * width * amount), rng.gauss(0, 0.05 * width * amount)])
    turn = rng.gauss(0, 0.04 * amount)
    c, s = math.cos(turn), math.sin(turn)
    rot = np.array([[c, -s], [s, c]])
    u = rot @ frame.u * (1 + rng.gauss(0, 0.05 * amount))
    v = rot @ frame.v * (1 + rng.gauss(0, 0.06 * amount))
    return TileFrame(frame.center + shift, u, v)


def _lookalikes(rng: random.Random, frames: list[TileFrame]) -> list[TileFrame]:
    """Tile-shaped outlines over two halves of different tiles that touch: the junctions a recogniser
    must not read as dividers."""
    halves = [(i, h) for i, f in enumerate(frames) for h in f.halves()]
    out = []
    for a, (i, ha) in enumerate(halves):
        spacing = float(np.linalg.norm(frames[i].u))
        for j, hb in halves[a + 1 :]:
            if i == j or not 0.7 * spacing < np.linalg.norm(hb - ha) < 1.35 * spacing:
                continue
            u = hb - ha
            direction = u / np.linalg.norm(u)
            # Across the pair, the tile's own half-width is whichever of its axes lies across `u`.
            across = min((frames[i].v, frames[i].u / 2), key=lambda w: abs(float(np.dot(w, direction))))
            out.append(TileFrame((ha + hb) / 2, u, across))
    rng.shuffle(out)
    return out


def scene_samples(
    seed: int, split: str = "train", make_spec: Callable[[int], DominoSpec] | None = None
) -> dict[str, np.ndarray]:
    """One scene (training_spec's, or `make_spec`'s): the locator's input and targets, and labelled crops for
    the pip reader."""
    scene = render_dominoes(seed, make_spec(seed) if make_spec else training_spec(seed, split))
    return samples_of(scene, seed)


def samples_of(scene: DominoScene, seed: int) -> dict[str, np.ndarray]:
    """`scene_samples` of a scene rendered already, jittered by a stream of `seed`'s."""
    rng = random.Random(seed)
    canvas, scale = letterbox(scene.image)
    frames = [TileFrame.from_corners(t.corners) for t in scene.tiles]
    heat, reg, weight = encode_targets([f.scaled(scale) for f in frames])
    crops, labels = [], []

    def add(frame: TileFrame, label: tuple[int, int, int]) -> None:
        crops.append(crop_tile(scene.image, frame, (canvas, scale)))
        labels.append(label)

    negative = (NOT_A_TILE, NOT_A_TILE, 0)
    for tile, frame in zip(scene.tiles, frames, strict=True):
        for _ in range(2):
            jittered = _jittered(rng, frame, rng.choice((0.5, 1.0, 2.0, 3.0)))
            if rng.random() < 0.5:
                add(jittered, (*tile.pips, 1))
            else:
                add(jittered.turned(), (tile.pips[1], tile.pips[0], 1))
        if rng.random() < 0.3:
            add(_jittered(rng, TileFrame(frame.center, 2 * frame.v, frame.u / 2)), negative)  # read sideways
        if rng.random() < 0.3:
            side = rng.choice((-1, 1))
            add(_jittered(rng, TileFrame(frame.center + side * frame.u, frame.u, frame.v)), negative)
    for frame in _lookalikes(rng, frames)[: 2 * len(frames)]:
        add(_jittered(rng, frame), negative)
    for outline in [*scene.distractors, *scene.written_notes]:
        center = outline.mean(axis=0)
        size = np.linalg.norm(outline[0] - outline[2]) / 2
        angle = rng.uniform(0, math.pi)
        u = np.array([math.cos(angle), math.sin(angle)]) * size * rng.uniform(0.5, 1.0)
        add(TileFrame(center, u, np.array([-u[1], u[0]]) / 2), negative)
    h, w = scene.image.shape[:2]
    widths = [float(np.linalg.norm(f.v)) for f in frames] or [20.0]
    for _ in range(3):  # bare table, or the gap between tiles
        center = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        if any(np.linalg.norm(center - f.center) < 2 * np.linalg.norm(f.v) for f in frames):
            continue
        angle = rng.uniform(0, math.pi)
        v_len = rng.choice(widths) * rng.uniform(0.8, 1.2)
        v = np.array([math.cos(angle), math.sin(angle)]) * v_len
        add(TileFrame(center, np.array([-v[1], v[0]]) * 2, v), negative)
    return {
        "canvas": canvas,
        "heat": heat.astype(np.float16),
        "reg": reg.astype(np.float16),
        "weight": weight.astype(np.uint8),
        "crops": np.stack(crops),
        "labels": np.array(labels, np.int64),
    }


def build_dataset(
    first_seed: int,
    scenes: int,
    name: str,
    split: str = "train",
    make_spec: Callable[[int], DominoSpec] | None = None,
) -> dict[str, np.ndarray]:
    """Render (or load the cached) scenes; the cache is keyed by the name and the seeds."""
    DATA_DIR.mkdir(exist_ok=True)
    path = DATA_DIR / f"{name}-{first_seed}-{scenes}.npz"
    if path.is_file():
        return dict(np.load(path))
    from rich.progress import Progress

    parts: dict[str, list[np.ndarray]] = {}
    with multiprocessing.Pool(2) as pool, Progress() as progress:
        task = progress.add_task(f"rendering {name} scenes", total=scenes)
        work = functools.partial(scene_samples, split=split, make_spec=make_spec)
        for sample in pool.imap(work, range(first_seed, first_seed + scenes), chunksize=4):
            for key, value in sample.items():
                parts.setdefault(key, []).append(value)
            progress.advance(task)
    data = {
        "canvas": np.stack(parts["canvas"]),
        "heat": np.stack(parts["heat"]),
        "reg": np.stack(parts["reg"]),
        "weight": np.stack(parts["weight"]),
        "crops": np.concatenate(parts["crops"]),
        "labels": np.concatenate(parts["labels"]),
    }
    np.savez(path, **data)
    return data


_locator: TileLocator | None = None  # one per worker process


def _proposal_crops(image: np.ndarray, truth: list) -> tuple[np.ndarray, np.ndarray]:
    """The trained locator's own proposals on `image`, each labelled by the tile of `truth` it matches, or
    as no tile."""
    global _locator
    if _locator is None:
        _locator = TileLocator(threads=1)
    canvas, scale = letterbox(image)
    crops, labels = [], []
    for _, frame in _locator.propose(canvas, scale):
        label = (NOT_A_TILE, NOT_A_TILE, 0)
        for tile in truth:
            order = tile.match(frame.halves())
            if order is not None:
                label = (*(tile.pips if order else tile.pips[::-1]), 1)
                break
        crops.append(crop_tile(image, frame, (canvas, scale)))
        labels.append(label)
    empty = np.zeros((0, CROP_SIZE[1], CROP_SIZE[0], 3), np.uint8)
    return (np.stack(crops) if crops else empty), np.array(labels, np.int64).reshape(-1, 3)


def proposal_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The locator's proposals on one training scene: the outlines the reader is given at run time, and the
    junctions the locator takes for dividers."""
    scene = render_dominoes(seed, training_spec(seed))
    return _proposal_crops(scene.image, scene.tiles)


def domino_free_crops(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The locator's proposals on a training frame with no domino, all no tile: a stick layout or a card
    scene (with its coins, dice and notes). On dark tables the locator proposes bare stretches of table
    there, which a reader that never saw such frames takes for blank doubles."""
    if seed % 2:
        image = render_scene(seed, SceneSpec(split="train")).image
    else:
        kind = random.Random(seed).choice(SCENE_KINDS)
        image = render_stick_scene(seed, StickSceneSpec(split="train", kind=kind)).image
    return _proposal_crops(image, [])


def build_proposals(
    first_seed: int, scenes: int, crops_of: Callable = proposal_crops, name: str = "dominoes-proposals"
) -> dict[str, np.ndarray]:
    """Proposal crops from fresh training frames (`crops_of` a seed), cached per locator model."""
    DATA_DIR.mkdir(exist_ok=True)
    path = DATA_DIR / f"{name}-{first_seed}-{scenes}-{zlib.crc32(LOCATE_PATH.read_bytes()):08x}.npz"
    if path.is_file():
        return dict(np.load(path))
    from rich.progress import Progress

    crops, labels = [], []
    with multiprocessing.Pool(2) as pool, Progress() as progress:
        task = progress.add_task("collecting the locator's proposals", total=scenes)
        for x, y in pool.imap(crops_of, range(first_seed, first_seed + scenes), chunksize=4):
            crops.append(x)
            labels.append(y)
            progress.advance(task)
    data = {"crops": np.concatenate(crops), "labels": np.concatenate(labels)}
    np.savez(path, **data)
    return data


# The networks --------------------------------------------------------------------------------------------


def make_pip_reader(batch_norm: bool = True):
    """A small CNN over the upright crop; each half's counts come from its own half of the last feature
    map through one shared head, and the tile check from the whole map and the band round the divider.
    Without `batch_norm` it has the shape of its ONNX export (models/finetune_pips.py trains on from there)."""
    import torch
    import torch.nn as nn

    conv = functools.partial(block, batch_norm=batch_norm)

    class PipNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                conv(3, 16, 2),  # 32x16
                conv(16, 24),
                nn.MaxPool2d(2),  # 16x8
                conv(24, 48),
                conv(48, 48),
                nn.MaxPool2d(2),  # 8x4
                conv(48, 64),
            )
            self.count = nn.Sequential(nn.Linear(64, 64), nn.ReLU(inplace=True), nn.Linear(64, N_COUNTS))
            self.tile = nn.Sequential(nn.Linear(4 * 64, 32), nn.ReLU(inplace=True), nn.Linear(32, 1))

        def forward(self, x):
            f = self.features(x)
            rows = f.shape[2] // 2
            first, second = f[:, :, :rows].mean(dim=(2, 3)), f[:, :, rows:].mean(dim=(2, 3))
            middle, whole = f[:, :, rows - 1 : rows + 1].mean(dim=(2, 3)), f.mean(dim=(2, 3))
            tile = self.tile(torch.cat([first, second, middle, whole], dim=1))
            return torch.cat([self.count(first), self.count(second), tile], dim=1)

    return PipNet()


def train_locator(
    data: dict[str, np.ndarray],
    steps: int,
    seed: int,
    out: Path,
    resume: bool = False,
    checkpoint: Path = DATA_DIR / "dominoes_locate.pt",
    start: Path | None = None,
    max_lr: float | None = None,
    blur_share: float = 0.0,
    mirror: bool = False,
    exposure_share: float = 0.0,
) -> dict:
    """Train on random 256x192 windows of the letterboxed frames (a fifth of the work of whole frames), with
    `mirror` mirrored at random and an `exposure_share` overexposed; from the exported locator `start` if
    given (its ONNX weights), else fresh or resumed from `checkpoint`."""
    make = locator_maker(len(CHANNELS), start)
    mirrored = CHANNELS[1:] if mirror else ()
    model, report = fit_locator(
        make,
        data,
        steps,
        seed,
        checkpoint,
        STRIDE,
        resume,
        max_lr=max_lr,
        blur_share=blur_share,
        mirrored=mirrored,
        exposure_share=exposure_share,
    )
    export_onnx(model, (1, 3, INPUT_SIZE[1], INPUT_SIZE[0]), out, "frames", "maps", any_size=True)
    return report


def train_pip_reader(
    data: dict[str, np.ndarray],
    val: dict[str, np.ndarray],
    epochs: int,
    seed: int,
    out: Path,
    start: Path | None = None,
    max_lr: float = 3e-3,
    blur_share: float = 0.0,
    blur_lengths: tuple[int, ...] = BLUR_LENGTHS,
) -> dict:
    """Train the reader (from the checkpoint `start` if given, a .pt or its ONNX export) and export it to
    `out`; its weights go to data/ under the same name. A `blur_share` of each batch's crops is blurred as
    by a moving camera (`blur_lengths` crop pixels)."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    crops, yt = data["crops"], torch.from_numpy(data["labels"])
    xv, yv = torch.from_numpy(pips_tensor(val["crops"])), val["labels"]
    if start is not None and start.suffix == ".onnx":
        model = load_exported_weights(make_pip_reader(batch_norm=False), start)
    else:
        model = make_pip_reader()
        if start is not None:
            model.load_state_dict(torch.load(start))
    started = time.time()

    def batch_loss(idx, generator):
        y = yt[idx]
        batch = crops[idx.numpy()]
        if blur_share:
            batch = motion_blurred(batch, rng, blur_share, blur_lengths)
        logits = model(augment(torch.from_numpy(pips_tensor(batch)), generator))
        counts = F.cross_entropy(logits[:, :N_COUNTS], y[:, 0], ignore_index=NOT_A_TILE, label_smoothing=0.02)
        counts = counts + F.cross_entropy(
            logits[:, N_COUNTS : 2 * N_COUNTS], y[:, 1], ignore_index=NOT_A_TILE, label_smoothing=0.02
        )
        return counts + F.binary_cross_entropy_with_logits(logits[:, -1], y[:, 2].float())

    def evaluate() -> tuple[dict[str, float], str]:
        logits = torch.cat([model(xv[i : i + 1024]) for i in range(0, len(xv), 1024)]).numpy()
        scores = _crop_scores(logits, yv)
        return scores, f"held-out crops {scores}"

    scores = fit_epochs(
        model, len(crops), epochs, max_lr, seed, batch_loss, evaluate, batch=256, title="training the pip reader"
    )
    torch.save(model.state_dict(), DATA_DIR / f"{out.stem}.pt")
    export_onnx(model, (1, 3, CROP_SIZE[1], CROP_SIZE[0]), out, "crops", "logits")
    blur = {"blur_share": blur_share, "blur_lengths": list(blur_lengths)} if blur_share else {}
    return {
        "crops": len(crops),
        "epochs": epochs,
        **blur,
        "seconds": round(time.time() - started),
        "heldout_crops": scores,
    }


def _crop_scores(logits: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    tiles = labels[:, 2] == 1
    both = (logits[tiles, :N_COUNTS].argmax(1) == labels[tiles, 0]) & (
        logits[tiles, N_COUNTS : 2 * N_COUNTS].argmax(1) == labels[tiles, 1]
    )
    is_tile = logits[:, -1] > 0
    return {
        "both_halves": round(float(both.mean()), 4),
        "tile_recall": round(float(is_tile[tiles].mean()), 4),
        "lookalike_rejection": round(float((~is_tile[~tiles]).mean()), 4),
    }


def _manifest(out: Path, extra: dict) -> None:
    out.with_suffix(".json").write_text(json.dumps({"model": out.name, **extra}, indent=2) + "\n")


def write_pip_manifest(out: Path, training: dict) -> None:
    """The reader's manifest beside its ONNX: input, outputs and how it was trained."""
    _manifest(
        out,
        {
            "input": {"name": "crops", "shape": ["n", 3, CROP_SIZE[1], CROP_SIZE[0]], "layout": "NCHW BGR",
                      "normalisation": "per crop: (x - mean) / (std + 8)"},
            "outputs": output_names(),
            "training": training,
        },
    )  # fmt: skip


def train(
    scenes: int = typer.Option(2000, help="training scenes to render"),
    val_scenes: int = typer.Option(150, help="validation scenes (held-out styles and tables)"),
    locate_steps: int = typer.Option(4000),
    proposal_scenes: int = typer.Option(1200, help="fresh scenes whose locator proposals the reader learns from"),
    pip_epochs: int = typer.Option(5),
    seed: int = typer.Option(0),
    skip_locator: bool = typer.Option(False, help="keep the exported locator, train the reader only"),
    resume_locator: bool = typer.Option(False, help="fine-tune the locator from its last checkpoint"),
    pips_out: Path = typer.Option(PIPS_PATH, help="the reader's ONNX (manifest beside it, weights in data/)"),
    pips_start: Path = typer.Option(None, help="train the reader on from these weights (a .pt in data/)"),
    pip_lr: float = typer.Option(3e-3, help="the reader's peak learning rate"),
    free_scenes: int = typer.Option(0, help="frames with no domino whose locator proposals are all no tile"),
) -> None:
    """Render, train the locator, collect its proposals, train the reader; export both with manifests."""
    import torch

    torch.set_num_threads(1)  # the machine is shared: one core for training
    data = build_dataset(1, scenes, "dominoes-train")
    val = build_dataset(20_000_000, val_scenes, "dominoes-val-heldout", split="heldout")
    print(f"{len(data['canvas'])} frames, {len(data['crops'])} training crops, {len(val['crops'])} held-out crops")
    source = "models/synth/dominoes.py renders, split=train; validation split=heldout (tile styles, tables)"
    if not skip_locator:
        _train_and_export_locator(data, locate_steps, seed, scenes, source, resume_locator)
    proposals = build_proposals(PROPOSAL_SEED, proposal_scenes)
    print(f"{len(proposals['crops'])} proposal crops, {int(proposals['labels'][:, 2].sum())} of them tiles")
    blocks = [proposals]
    if free_scenes:
        blocks.append(build_proposals(FREE_SEED, free_scenes, domino_free_crops, "dominoes-free"))
        print(f"{len(blocks[-1]['crops'])} proposal crops on {free_scenes} frames with no domino")
    for key in ("crops", "labels"):
        data[key] = np.concatenate([data[key], *(part[key] for part in blocks)])
    report = train_pip_reader(data, val, pip_epochs, seed, pips_out, pips_start, pip_lr)
    write_pip_manifest(
        pips_out,
        {"scenes": scenes, "proposal_scenes": proposal_scenes, "free_scenes": free_scenes, "seed": seed,
         "data": source, "trained_on_from": pips_start and pips_start.name, "max_lr": pip_lr, **report},
    )  # fmt: skip
    for path in (LOCATE_PATH, pips_out):
        print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB) and its manifest")


def _train_and_export_locator(
    data: dict[str, np.ndarray], steps: int, seed: int, scenes: int, source: str, resume: bool
) -> None:
    report = train_locator(data, steps, seed, LOCATE_PATH, resume)
    write_locator_manifest(LOCATE_PATH, {"scenes": scenes, "seed": seed, "data": source, **report})


def write_locator_manifest(path: Path, training: dict) -> None:
    """The locator's manifest beside `path`: its input, maps and stride, and how it was trained."""
    _manifest(
        path,
        {
            "input": {"name": "frames", "shape": ["n", 3, INPUT_SIZE[1], INPUT_SIZE[0]], "layout": "NCHW BGR",
                      "normalisation": "per frame: (x - mean) / 64; frame letterboxed top-left"},
            "outputs": list(CHANNELS),
            "stride": STRIDE,
            "training": training,
        },
    )  # fmt: skip


if __name__ == "__main__":
    typer.run(train)
