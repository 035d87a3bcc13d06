"""Training the small locator networks (vision/locator.py): the network, its colour augmentation, the
heatmap's focal loss and the loop over random windows of letterboxed frames. Needs the `train` extra.

The data is a dict of arrays, one row per frame: `canvas` (N, H, W, 3) uint8, and on the stride-`stride`
grid the heatmap targets `heat` (N, h, w), or (N, K, h, w) for K heatmaps, the regression targets `reg`
(N, R, h, w) and their `weight`, (N, h, w) for all R maps or (N, R, h, w) one per map. The network answers
the K heatmaps' logits first, then the R regressed maps.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from models.training import (
    EXPOSURE_GAINS,
    export_onnx,
    load_exported_weights,
    motion_blurred,
    overexposed,
    take_step,
)
from vision.locator import to_input

# Blur lengths in input pixels: the renders' 5-9 image pixels, in a 1280x720 frame letterboxed to half or less.
BLUR_LENGTHS = (3, 5, 7)


def target_maps(
    objects: np.ndarray, encode: Callable[[list[np.ndarray]], tuple[np.ndarray, ...]]
) -> tuple[np.ndarray, ...]:
    """Each frame's training targets, `encode(its objects)`, stacked in float16: `objects` holds one row per
    frame of NaN-padded objects (N, most, ...). Filled frame by frame, as thousands of frames' maps in
    float32 would not fit in memory."""
    maps: list[np.ndarray] = []
    for i, frame in enumerate(objects):
        targets = encode([o for o in frame if np.isfinite(o).all()])
        if not maps:
            maps = [np.zeros((len(objects), *t.shape), np.float16) for t in targets]
        for array, target in zip(maps, targets, strict=True):
            array[i] = target
    return tuple(maps)


def padded(objects: list[np.ndarray], most: int, shape: tuple[int, ...], scale: float) -> np.ndarray:
    """Objects' points (each `shape`) scaled into the letterboxed frame, as one row (1, most, *shape) with NaN
    after the last object: the form `locator_frames` reads back."""
    row = np.full((1, most, *shape), np.nan, np.float32)
    for i, points in enumerate(objects[:most]):
        row[0, i] = np.asarray(points) * scale
    return row


def locator_frames(
    blocks: list[tuple[np.ndarray, np.ndarray]], encode: Callable[[list[np.ndarray]], tuple[np.ndarray, ...]]
) -> dict[str, np.ndarray]:
    """Cached blocks of (frames, NaN-padded objects) joined into the data `fit_locator` takes. The list is
    emptied as it is joined: thousands of frames, one copy of them."""
    canvas, objects = (np.concatenate([block[k] for block in blocks]) for k in range(2))
    blocks.clear()
    heat, reg, weight = target_maps(objects, encode)
    return {"canvas": canvas, "heat": heat, "reg": reg, "weight": weight}


def export_locator(
    model,
    out: Path,
    committed: Path,
    input_size: tuple[int, int],
    channels: tuple[str, ...],
    stride: int,
    training: dict,
) -> None:
    """The network as ONNX at `out` with the manifest `vision.locator.LocatorNetwork` checks. A resumed run's
    manifest keeps the runs it started from: those of the network at `out`, else of the `committed` one."""
    manifest_path = out.with_suffix(".json")
    before = manifest_path if manifest_path.is_file() else committed.with_suffix(".json")
    if training.get("resumed") and before.is_file():
        training = {**training, "resumed_from": json.loads(before.read_text())["training"]}
    export_onnx(model, (1, 3, input_size[1], input_size[0]), out, "frames", "maps", any_size=True)
    manifest = {
        "model": out.name,
        "input": {"name": "frames", "shape": ["n", 3, input_size[1], input_size[0]], "layout": "NCHW BGR",
                  "normalisation": "per frame: (x - mean) / 64; frame letterboxed top-left"},
        "outputs": list(channels),
        "stride": stride,
        "grid": [input_size[0] // stride, input_size[1] // stride],
        "training": training,
    }  # fmt: skip
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")


def block(cin: int, cout: int, stride: int = 1, dilation: int = 1, batch_norm: bool = True):
    """Convolution, batch normalisation, ReLU; without `batch_norm` the shape of its ONNX export, where the
    normalisation is folded into the convolution (to train on from there)."""
    import torch.nn as nn

    if not batch_norm:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation), nn.ReLU(inplace=True)
        )
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def make_locator(channels: int, batch_norm: bool = True):
    """A small encoder at strides 4, 8 and 16 (for a receptive field as long as a close object) whose deeper
    features are added back at stride 4, where neighbours' centres are still cells apart. Answers `channels`
    maps, the first the centre heatmap's logits. Without `batch_norm` it has the shape of its ONNX export,
    into which `models.training.load_exported_weights` loads a shipped locator to train on."""
    import torch.nn as nn
    import torch.nn.functional as F

    conv = functools.partial(block, batch_norm=batch_norm)

    class Locator(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.s4 = nn.Sequential(conv(3, 16, 2), conv(16, 24, 2), conv(24, 24))
            self.s8 = nn.Sequential(conv(24, 48, 2), conv(48, 48), conv(48, 48))
            self.s16 = nn.Sequential(conv(48, 96, 2), conv(96, 96, dilation=2), conv(96, 96, dilation=4))
            self.lat16 = nn.Conv2d(96, 48, 1)
            self.lat8 = nn.Conv2d(48, 24, 1)
            self.head = nn.Sequential(conv(24, 24), nn.Conv2d(24, channels, 1))
            self.head[-1].bias.data[0] = -2.2  # centres are rare: start the heatmap near 0.1

        def forward(self, x):
            s4 = self.s4(x)
            s8 = self.s8(s4)
            s16 = self.s16(s8)
            s8 = s8 + F.interpolate(self.lat16(s16), scale_factor=2.0, mode="nearest")
            s4 = s4 + F.interpolate(self.lat8(s8), scale_factor=2.0, mode="nearest")
            return self.head(s4)

    return Locator()


def locator_maker(channels: int, start: Path | None = None) -> Callable[[], object]:
    """What makes the network to train: a fresh locator answering `channels` maps, or with `start` one holding
    the weights of that ONNX export (built without batch normalisation, which the export folded away)."""
    if start is None:
        return functools.partial(make_locator, channels)
    return lambda: load_exported_weights(make_locator(channels, batch_norm=False), start)


def augment(x, generator, gain: float = 0.3):
    """Colour variety beyond the renders: swapped channels (an object's colour is not what it is) and
    inverted polarity (light objects on dark tables and dark on light both exist), plus gain and noise."""
    import torch

    n = x.shape[0]
    perm = torch.stack([torch.randperm(3, generator=generator) for _ in range(n)])
    x = torch.gather(x, 1, perm[:, :, None, None].expand_as(x))
    flip = (torch.rand(n, 1, 1, 1, generator=generator) < 0.2).float()
    x = x * (1 - 2 * flip)
    scale = torch.exp(gain * (2 * torch.rand(n, 1, 1, 1, generator=generator) - 1))
    return x * scale + 0.08 * torch.randn(x.shape, generator=generator)


def mirror_signs(regressed: tuple[str, ...]) -> np.ndarray:
    """Each regressed map's sign in a window mirrored left to right (row 0) and top to bottom (row 1), by the
    maps' names: x offsets turn over one way, y offsets the other, and doubled angles' sines both ways."""
    return np.array(
        [[-1.0 if name.endswith((axis, "_sin")) else 1.0 for name in regressed] for axis in ("dx", "dy")],
        np.float32,
    )


def mirrored_window(
    window: tuple[np.ndarray, ...], signs: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, ...]:
    """A training window (image, heatmaps, regressed maps, weights) mirrored left to right, top to bottom,
    both or neither, at even odds. Windows start and end on cell edges, so mirroring the image mirrors the
    grid exactly and only the offsets' and angles' signs change (`signs`, from `mirror_signs`)."""
    image, heat, reg, weight = window
    if rng.random() < 0.5:
        image, heat, weight = image[:, ::-1], heat[..., ::-1], weight[..., ::-1]
        reg = reg[..., ::-1] * signs[0][:, None, None]
    if rng.random() < 0.5:
        image, heat, weight = image[::-1], heat[..., ::-1, :], weight[..., ::-1, :]
        reg = reg[..., ::-1, :] * signs[1][:, None, None]
    return image, heat, reg, weight


def focal(logits, target):
    """CenterNet's penalty-reduced focal loss over the heatmap."""
    import torch

    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = (target > 0.999).float()
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - target) ** 4 * (1 - pos)).sum()
    return (pos_loss + neg_loss) / pos.sum().clamp(min=1)


def fit_locator(
    make_model: Callable[[], object],
    data: dict[str, np.ndarray],
    steps: int,
    seed: int,
    checkpoint: Path,
    stride: int,
    resume: bool = False,
    window: tuple[int, int] = (256, 192),
    batch: int = 16,
    name: str = "locator",
    max_lr: float | None = None,
    blur_share: float = 0.0,
    mirrored: tuple[str, ...] = (),
    exposure_share: float = 0.0,
):
    """Train on random `window`-sized crops of the frames (a fifth of the work of whole frames), saving
    `checkpoint` every 250 steps; `resume` starts from it at half the learning rate, unless `max_lr` sets the
    one-cycle schedule's peak. A `blur_share` of the windows is blurred as by a moving camera
    (BLUR_LENGTHS input pixels), and an `exposure_share` overexposed (`overexposed`). With `mirrored` (the
    regressed maps' names) windows are mirrored at random. Returns the model and a report for its manifest."""
    import torch
    import torch.nn.functional as F
    from rich.progress import Progress

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = make_model()
    if resume:
        model.load_state_dict(torch.load(checkpoint))
    n, height, width = data["canvas"].shape[:3]
    win_w, win_h = window
    max_lr = max_lr or (1.5e-3 if resume else 3e-3)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    started = time.time()
    running = None
    signs = mirror_signs(mirrored) if mirrored else None
    with Progress() as progress:
        task = progress.add_task(f"training the {name}", total=steps)
        for step in range(steps):
            idx = rng.integers(0, n, batch)
            xs, heats, regs, weights = [], [], [], []
            for i in idx:
                x0 = int(rng.integers(0, (width - win_w) // 16 + 1)) * 16
                y0 = int(rng.integers(0, (height - win_h) // 16 + 1)) * 16
                gx, gy, gw, gh = x0 // stride, y0 // stride, win_w // stride, win_h // stride
                grid = (..., slice(gy, gy + gh), slice(gx, gx + gw))
                one = (
                    data["canvas"][i, y0 : y0 + win_h, x0 : x0 + win_w],
                    data["heat"][i][grid],
                    data["reg"][i][grid],
                    data["weight"][i][grid],
                )
                if signs is not None:
                    one = mirrored_window(one, signs, rng)
                for array, part in zip((xs, heats, regs, weights), one, strict=True):
                    array.append(part)
            windows = np.stack(xs)
            if blur_share:
                windows = motion_blurred(windows, rng, blur_share, BLUR_LENGTHS)
            if exposure_share:
                windows = overexposed(windows, rng, exposure_share)
            x = augment(torch.from_numpy(to_input(windows)), gen, gain=0.5)
            heat = torch.from_numpy(np.stack(heats).astype(np.float32))
            heat = heat[:, None] if heat.ndim == 3 else heat
            reg = torch.from_numpy(np.stack(regs).astype(np.float32))
            weight = torch.from_numpy(np.stack(weights).astype(np.float32))
            weight = weight[:, None] if weight.ndim == 3 else weight
            out_ = model(x)
            k = heat.shape[1]
            # Per weighted cell: the regressed maps' errors summed, whether the weight is shared or per map.
            cells = (weight.sum() / weight.shape[1]).clamp(min=1)
            reg_loss = (F.l1_loss(out_[:, k:], reg, reduction="none") * weight).sum() / cells
            loss = sum(focal(out_[:, i], heat[:, i]) for i in range(k)) + 0.5 * reg_loss
            take_step(loss, opt, sched)
            progress.advance(task)
            running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
            if (step + 1) % 250 == 0 or step + 1 == steps:
                torch.save(model.state_dict(), checkpoint)
                progress.console.print(f"{name} step {step + 1}: mean loss {running:.3f}")
    report = {"frames": n, "steps": steps, "batch": batch, "window": [win_w, win_h], "max_lr": max_lr}
    report |= {"blur_share": blur_share, "blur_lengths": list(BLUR_LENGTHS)} if blur_share else {}
    report |= {"exposure_share": exposure_share, "exposure_gains": list(EXPOSURE_GAINS)} if exposure_share else {}
    report |= {"mirrored": "left-right and top-bottom, each at even odds"} if mirrored else {}
    return model, {**report, "seconds": round(time.time() - started)}
