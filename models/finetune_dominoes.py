"""Fine-tune the domino locator on more kinds of table and steeper views than its first training saw.

    python -m models.finetune_dominoes [--pattern-scenes 1000] [--varied-scenes 1000] [--old-scenes 1000] [--steps 5000]
    python -m models.train_dominoes --skip-locator   # then the pip reader on the new locator's proposals
    python -m models.finetune_dominoes --start data/dominoes_locate-patterns.pt \
        --checkpoint data/dominoes_locate-longer.pt --steps 4000 --seed 3   # trained on once more (shipped)
    python -m models.finetune_dominoes --start models/dominoes_locate.onnx --out models/dominoes_locate_blurred.onnx \
        --checkpoint data/dominoes_locate-blurred.pt --steps 4000 --lr 1e-3 --blur-share 0.3 --seed 5
        # a copy for motion-blurred frames (vision/dominoes/recognize.py), from the shipped locator's weights

The locator trained by models/train_dominoes.py missed tiles on busy held-out cloths (checks, marble) and at
steep views. It is trained on from its checkpoint on three blocks of frames, each cached in data/: the
training mix over PATTERN_TRAIN_TABLES (fine checks, grids, seams, veined stone: what taught the stick
locator to see through busy cloths), over TRAIN_TABLES + EXTRA_TRAIN_TABLES, both with two views in five
tilted up to VARIED_TILT; and the first frames of the original training renders, so that it does not
forget them. None of these tables is a held-out kind. Torch runs on one thread (a shared machine).
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import numpy as np
import typer

from models.synth.tables import PATTERN_TRAIN_TABLES
from models.train_dominoes import (
    DATA_DIR,
    VARIED_TILT,
    build_dataset,
    train_locator,
    varied_spec,
    write_locator_manifest,
)
from vision.dominoes.locate import MODEL_PATH as LOCATE_PATH

PATTERN_SEED = 34_000_000  # seeds no other domino renders use (training 1.., proposals 10M, varied 30M)
VARIED_SEED = 30_000_000
CHECKS_SEED = 36_000_000
# Checked and tiled training cloths: the held-out checkered cloth stayed the locator's worst table after two
# fine-tunings over the patterned tables, where checks are one kind of six.
CHECK_TABLES = ("harlequin", "gingham", "plaid", "tiles", "graph")
LOCATOR_KEYS = ("canvas", "heat", "reg", "weight")


def frames(pattern_scenes: int, varied_scenes: int, old_scenes: int, check_scenes: int = 0) -> dict[str, np.ndarray]:
    """The locator's frames and targets from the cached blocks."""
    blocks = []
    if check_scenes:
        check_spec = functools.partial(varied_spec, tables=CHECK_TABLES)
        blocks.append(build_dataset(CHECKS_SEED, check_scenes, "dominoes-checks", make_spec=check_spec))
    if pattern_scenes:
        pattern_spec = functools.partial(varied_spec, tables=PATTERN_TRAIN_TABLES)
        blocks.append(build_dataset(PATTERN_SEED, pattern_scenes, "dominoes-patterns", make_spec=pattern_spec))
    if varied_scenes:
        blocks.append(build_dataset(VARIED_SEED, varied_scenes, "dominoes-varied", make_spec=varied_spec))
    if old_scenes:
        old = np.load(DATA_DIR / "dominoes-train-1-2000.npz")  # models/train_dominoes.py's renders
        blocks.append({k: old[k][:old_scenes] for k in LOCATOR_KEYS})
    return {k: np.concatenate([b[k] for b in blocks]) for k in LOCATOR_KEYS}


def finetune(
    pattern_scenes: int = typer.Option(1000, help="frames over PATTERN_TRAIN_TABLES (cached in data/)"),
    varied_scenes: int = typer.Option(1000, help="frames over TRAIN_TABLES + EXTRA_TRAIN_TABLES (cached)"),
    old_scenes: int = typer.Option(1000, help="frames of the original training renders mixed in"),
    check_scenes: int = typer.Option(0, help="frames over CHECK_TABLES (cached in data/)"),
    steps: int = typer.Option(5000, help="training steps of 16 windows"),
    seed: int = typer.Option(2),
    start: Path = typer.Option(
        DATA_DIR / "dominoes_locate.pt", help="the checkpoint resumed from (not written), or an exported .onnx"
    ),
    checkpoint: Path = typer.Option(DATA_DIR / "dominoes_locate-patterns.pt", help="the checkpoint written"),
    out: Path = typer.Option(LOCATE_PATH, help="the ONNX model to write; its manifest goes beside it"),
    lr: float = typer.Option(1.5e-3, help="peak learning rate"),
    blur_share: float = typer.Option(0.0, help="share of the windows blurred as by a moving camera"),
    mirror: bool = typer.Option(False, help="mirror the training windows at random (left-right, top-bottom)"),
    exposure_share: float = typer.Option(0.0, help="share of the training windows overexposed (cut off at white)"),
) -> None:
    """Render (or load) the frames, fine-tune the locator from `start`, export it with its manifest."""
    import torch

    torch.set_num_threads(1)  # the machine is shared: one core for training
    data = frames(pattern_scenes, varied_scenes, old_scenes, check_scenes)
    print(
        f"{len(data['canvas'])} frames ({check_scenes} checked, {pattern_scenes} patterned, {varied_scenes} varied, "
        f"{old_scenes} old)"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    if start.suffix == ".onnx":
        report = train_locator(data, steps, seed, out, False, checkpoint, start, lr, blur_share, mirror, exposure_share)
    else:
        shutil.copyfile(start, checkpoint)  # fit_locator resumes from and saves to one path: keep `start` as it is
        report = train_locator(
            data,
            steps,
            seed,
            out,
            True,
            checkpoint,
            max_lr=lr,
            blur_share=blur_share,
            mirror=mirror,
            exposure_share=exposure_share,
        )
    write_locator_manifest(
        out,
        {"resumed_from": f"{start.name} (how it was trained: models/dominoes.md)",
         "seed": seed,
         "data": f"models/synth/dominoes.py renders, split=train layouts: {check_scenes} over CHECK_TABLES "
                 f"(seeds {CHECKS_SEED}..), {pattern_scenes} over "
                 f"PATTERN_TRAIN_TABLES (seeds {PATTERN_SEED}..) and {varied_scenes} over "
                 f"TRAIN_TABLES + EXTRA_TRAIN_TABLES (seeds {VARIED_SEED}..), two in five tilted up "
                 f"to {VARIED_TILT:g} degrees; the first {old_scenes} training renders (seeds 1..)",
         **report},
    )  # fmt: skip
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


if __name__ == "__main__":
    typer.run(finetune)
