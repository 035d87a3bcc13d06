"""Train the card-core segmentation network on synthetic scenes and export it to ONNX.

    python -m models.train_card_mask [--scenes 2400] [--pattern-scenes 0] [--epochs 8]

Targets are each card's core (see vision/cards/segment.py) drawn on the network's output grid. The
reference card and blank notes are in the scenes and are not cards, so the network learns what a card
face is, not just what a light rectangle is. Needs the `train` extra.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import typer
from rich.progress import Progress

from models.datasets import render_cached
from models.synth.scenes import render_scene
from models.synth.tables import PATTERN_TRAIN_TABLES
from models.train_cards import training_spec
from models.training import export_onnx, take_step
from vision.cards.segment import INPUT_SIZE, MASK_MODEL_PATH, OUTPUT_STRIDE, core_quad, letterbox, to_input

OUT_SIZE = (INPUT_SIZE[0] // OUTPUT_STRIDE, INPUT_SIZE[1] // OUTPUT_STRIDE)
CROP = (256, 144)  # training crop of the letterboxed frame, in input pixels
OUTLINE_SCALE_SEEDS = range(30_000_000, 30_000_200)  # training scenes
# Scenes after the first `scenes` lie on PATTERN_TRAIN_TABLES (fine checks, grids, seams, veined stone),
# cached apart so the first block's cache stands.
PATTERN_CACHE = "mask-train-patterns-v1"


def scene_sample(seed: int, split: str = "train", tables: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """One letterboxed frame and its card-core target, as batches of one; the table one of `tables` if
    given, else one of the split's."""
    spec = training_spec(seed, split)
    if tables:
        spec = replace(spec, table=random.Random(seed).choice(tables))
    scene = render_scene(seed, spec)
    canvas, scale = letterbox(scene.image)
    target = np.zeros((OUT_SIZE[1], OUT_SIZE[0]), np.uint8)
    for card in scene.cards:
        quad = (core_quad(card.corners) + 0.5) * scale / OUTPUT_STRIDE - 0.5
        cv2.fillConvexPoly(target, np.round(quad * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
    return canvas[None], target[None]


def _heldout_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return scene_sample(seed, "heldout")


def _pattern_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return scene_sample(seed, "train", PATTERN_TRAIN_TABLES)


def build(first_seed: int, scenes: int, name: str, split: str) -> tuple[np.ndarray, np.ndarray]:
    return render_cached(name, scene_sample if split == "train" else _heldout_sample, first_seed, scenes)


def make_model():
    import torch
    import torch.nn as nn

    def sep(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        """Depthwise-separable 3x3: most of the receptive field for little arithmetic."""
        return nn.Sequential(
            nn.Conv2d(cin, cin, 3, stride, padding=dilation, dilation=dilation, groups=cin, bias=False),
            nn.BatchNorm2d(cin),
            nn.ReLU(),
            nn.Conv2d(cin, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        )

    class CoreNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())  # /2
            self.s4 = nn.Sequential(sep(16, 24, 2), sep(24, 24))  # /4
            self.s8 = nn.Sequential(sep(24, 48, 2), sep(48, 48, dilation=2), sep(48, 48, dilation=2))  # /8
            self.s16 = nn.Sequential(sep(48, 64, 2), sep(64, 64, dilation=2), sep(64, 64, dilation=4))  # /16
            self.up8 = sep(64 + 48, 48)
            self.up4 = sep(48 + 24, 24)
            self.up2 = sep(24 + 16, 16)
            self.head = nn.Conv2d(16, 1, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            up = nn.functional.interpolate
            a = self.stem(x)
            b = self.s4(a)
            c = self.s8(b)
            d = self.s16(c)
            c = self.up8(torch.cat([up(d, scale_factor=2.0, mode="nearest"), c], 1))
            b = self.up4(torch.cat([up(c, scale_factor=2.0, mode="nearest"), b], 1))
            a = self.up2(torch.cat([up(b, scale_factor=2.0, mode="nearest"), a], 1))
            return self.head(a)

    return CoreNet()


def measure_outline_scale(model_path: Path, seeds: range) -> float:
    """How much the proposals must shrink to fit the cards they found: the median over training scenes of
    sqrt(card area / proposal area), for proposals that clearly belong to one card."""
    from vision.cards.segment import CardMaskNet
    from vision.geometry import polygon_area, quad_iou

    net = CardMaskNet(model_path)
    net.outline_scale = 1.0
    ratios = []
    for seed in seeds:
        scene = render_scene(seed, training_spec(seed, "train"))
        proposals = net.propose(scene.image)
        for card in scene.cards:
            best = max(proposals, key=lambda q: quad_iou(q, card.corners), default=None)
            if best is not None and quad_iou(best, card.corners) > 0.5:
                ratios.append(np.sqrt(polygon_area(card.corners) / polygon_area(best)))
    if not ratios:
        raise ValueError(f"{model_path.name} found no card in {len(seeds)} training scenes; train it longer")
    return float(np.median(ratios))


def main(
    scenes: int = typer.Option(2400, help="training scenes to render"),
    pattern_scenes: int = typer.Option(0, help="more training scenes on PATTERN_TRAIN_TABLES (cached apart)"),
    val_scenes: int = typer.Option(200, help="validation scenes (held-out fonts, designs, tables)"),
    epochs: int = typer.Option(8),
    seed: int = typer.Option(0),
    out: Path = typer.Option(MASK_MODEL_PATH, help="where to write the ONNX model"),
    threads: int = typer.Option(multiprocessing.cpu_count(), help="torch threads (1 on a shared machine)"),
    calibrate_only: bool = typer.Option(False, help="only re-measure the outline scale of the existing model"),
) -> None:
    """Render, train, export, then measure the proposals' size bias into the manifest."""
    if calibrate_only:
        write_outline_scale(out)
        return
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    x_train, y_train = build(30_000_000, scenes, "mask-train", "train")
    if pattern_scenes:
        x_more, y_more = render_cached(PATTERN_CACHE, _pattern_sample, 30_000_000 + scenes, pattern_scenes)
        x_train, y_train = np.concatenate([x_train, x_more]), np.concatenate([y_train, y_more])
    x_val, y_val = build(40_000_000, val_scenes, "mask-val-heldout", "heldout")
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=1e-4)
    batch = 16
    steps = epochs * ((len(x_train) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps)
    gen = np.random.default_rng(seed)
    started = time.time()

    def tensors(idx: np.ndarray, x: np.ndarray, y: np.ndarray, augment: bool) -> tuple:
        imgs, masks = x[idx], y[idx]
        if augment:
            # The network is fully convolutional: training on crops costs a quarter and loses little context.
            cx = int(gen.integers(0, (INPUT_SIZE[0] - CROP[0]) // 16 + 1)) * 16
            cy = int(gen.integers(0, (INPUT_SIZE[1] - CROP[1]) // 16 + 1)) * 16
            imgs = imgs[:, cy : cy + CROP[1], cx : cx + CROP[0]]
            s = OUTPUT_STRIDE
            masks = masks[:, cy // s : (cy + CROP[1]) // s, cx // s : (cx + CROP[0]) // s]
            flip = gen.random(len(idx)) < 0.5
            imgs = np.where(flip[:, None, None, None], imgs[:, :, ::-1], imgs)
            masks = np.where(flip[:, None, None], masks[:, :, ::-1], masks)
        xt = torch.from_numpy(np.concatenate([to_input(i) for i in imgs]))
        if augment:
            xt = xt * (1 + 0.3 * (torch.rand(len(idx), 1, 1, 1) - 0.5)) + 0.2 * (torch.rand(len(idx), 3, 1, 1) - 0.5)
        return xt, torch.from_numpy(masks.astype(np.float32))[:, None]

    def loss_fn(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        p = torch.sigmoid(logits)
        dice = 1 - (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
        return F.binary_cross_entropy_with_logits(logits, target) + dice

    with Progress() as progress:
        task = progress.add_task("training", total=steps)
        for epoch in range(epochs):
            model.train()
            order = gen.permutation(len(x_train))
            for i in range(0, len(order), batch):
                xt, yt = tensors(order[i : i + batch], x_train, y_train, augment=True)
                loss = loss_fn(model(xt), yt)
                take_step(loss, opt, sched)
                progress.advance(task)
            model.eval()
            inter = union = 0.0
            with torch.no_grad():
                for i in range(0, len(x_val), 32):
                    xt, yt = tensors(np.arange(i, min(i + 32, len(x_val))), x_val, y_val, augment=False)
                    pred = (model(xt) > 0).float()
                    inter += (pred * yt).sum().item()
                    union += ((pred + yt) > 0).float().sum().item()
            iou = inter / max(union, 1)
            progress.console.print(f"epoch {epoch + 1}: loss {loss.item():.3f}  held-out core IoU {iou:.4f}")

    export_onnx(model, (1, 3, INPUT_SIZE[1], INPUT_SIZE[0]), out, "frame", "core_logits", any_batch=False)
    manifest = {
        "model": out.name,
        "input": {
            "name": "frame",
            "shape": [1, 3, INPUT_SIZE[1], INPUT_SIZE[0]],
            "layout": "NCHW BGR",
            "normalisation": "x / 127.5 - 1; frame letterboxed into the input, top-left aligned",
        },
        "output": {
            "name": "core_logits",
            "stride": OUTPUT_STRIDE,
            "meaning": "logit that the cell lies in a card's core (the card scaled by 0.75 about its centre)",
        },
        "training": {
            "scenes": scenes,
            "pattern_scenes": pattern_scenes,
            "epochs": epochs,
            "seed": seed,
            "data": "models/synth renders, split=train: scenes on its tables, pattern_scenes more on "
            "PATTERN_TRAIN_TABLES; validation split=heldout (fonts, designs, tables)",
            "heldout_core_iou": round(iou, 4),
            "seconds": round(time.time() - started),
        },
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    write_outline_scale(out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


def write_outline_scale(model_path: Path, seeds: range = OUTLINE_SCALE_SEEDS) -> None:
    manifest_path = model_path.with_suffix(".json")
    manifest = json.loads(manifest_path.read_text())
    manifest["outline_scale"] = round(measure_outline_scale(model_path, seeds), 4)
    manifest["outline_scale_measured_on"] = f"training scenes, seeds {seeds.start}..{seeds.stop - 1}"
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"outline scale {manifest['outline_scale']}")


if __name__ == "__main__":
    typer.run(main)
