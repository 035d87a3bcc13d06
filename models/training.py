"""What every trainer does the same way: one optimiser step, passes over a crop set, and the export to ONNX.
Needs the `train` extra (torch, onnx)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.synth.degrade import motion_kernel


def motion_blurred(images: np.ndarray, rng: np.random.Generator, share: float, lengths: tuple[int, ...]) -> np.ndarray:
    """`images` (N, H, W, C), a `share` of them blurred as by a moving camera, `lengths` pixels (odd) at a
    random angle. The renders blur about one frame in seven, and the domino reader missed most of its held-out
    tiles in those."""
    out = images.copy()
    for i in np.flatnonzero(rng.random(len(images)) < share):
        out[i] = cv2.filter2D(images[i], -1, motion_kernel(int(rng.choice(lengths)), rng.uniform(0, 180)))
    return out


EXPOSURE_GAINS = (1.2, 2.0)  # the light raised this much, at random, in the windows `overexposed` picks


def overexposed(images: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """`images` (N, H, W, C, uint8), a `share` of them with the light raised by a gain drawn from EXPOSURE_GAINS
    and cut off at white, as a webcam metering a dark cloth does: light cards, tiles and sticks and the table
    round them clip together and lose the edge between them. The gain augmentation after `to_input` scales
    contrast only; it never clips."""
    out = images.copy()
    for i in np.flatnonzero(rng.random(len(images)) < share):
        out[i] = cv2.convertScaleAbs(images[i], alpha=rng.uniform(*EXPOSURE_GAINS))
    return out


def take_step(loss, optimizer, scheduler) -> None:
    """Back-propagate `loss`, update the weights, advance the learning-rate schedule."""
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()


def fit_epochs(
    model,
    samples: int,
    epochs: int,
    max_lr: float,
    seed: int,
    batch_loss: Callable,
    evaluate: Callable[[], tuple[Any, str]],
    batch: int = 128,
    title: str = "training",
) -> Any:
    """Train `model` with AdamW under a one-cycle schedule: `epochs` shuffled passes over `samples` samples in
    batches of `batch`, with a progress bar. `batch_loss(indices, generator)` gives one batch's loss (the
    generator is the seeded one that shuffles, for augmentation); `evaluate()` runs in eval mode without
    gradients after each pass and returns its result and a line to print. Returns the last result."""
    import torch
    from rich.progress import Progress

    optimizer = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * (samples // batch + 1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, total_steps=steps)
    generator = torch.Generator().manual_seed(seed)
    result = None
    with Progress() as progress:
        task = progress.add_task(title, total=steps)
        for epoch in range(epochs):
            model.train()
            order = torch.randperm(samples, generator=generator)
            for i in range(0, samples, batch):
                loss = batch_loss(order[i : i + batch], generator)
                take_step(loss, optimizer, scheduler)
                progress.advance(task)
            model.eval()
            with torch.no_grad():
                result, line = evaluate()
            progress.console.print(f"epoch {epoch + 1}: loss {loss.item():.4f}  {line}")
    return result


def export_onnx(
    model,
    shape: tuple[int, ...],
    out: Path,
    input_name: str,
    output_name: str,
    any_batch: bool = True,
    any_size: bool = False,
) -> None:
    """The model in eval mode as ONNX (opset 17, the TorchScript exporter); `any_batch` leaves the batch
    size free, else it is fixed at `shape[0]`; `any_size` leaves an image's height and width free too (a fully
    convolutional network read at another scale)."""
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(*shape),
        str(out),
        input_names=[input_name],
        output_names=[output_name],
        dynamic_axes=_free_axes(input_name, output_name, any_batch, any_size),
        opset_version=17,
        dynamo=False,
    )


def _free_axes(input_name: str, output_name: str, any_batch: bool, any_size: bool) -> dict | None:
    axes = {0: "n"} if any_batch else {}
    if any_size:
        return {input_name: {**axes, 2: "h", 3: "w"}, output_name: {**axes, 2: "map_h", 3: "map_w"}}
    return {input_name: axes, output_name: axes} if axes else None


def load_exported_weights(model, path: Path):
    """`model` (its batch normalisation left out) with the weights of the ONNX export at `path`, where the
    exporter folded the normalisation into the convolutions. A layer whose weight kept its module's name is
    loaded by that name (a layer used twice appears twice in the graph); the folded ones take each remaining
    Conv and Gemm node's weight and bias in graph order. So a shipped model can be trained on without its
    checkpoint."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {init.name: numpy_helper.to_array(init).copy() for init in graph.initializer}
    layers = [(n, m) for n, m in model.named_modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    named = {f"{n}.weight" for n, _ in layers}
    folded = [
        [weights[name] for name in node.input[1:]]
        for node in graph.node
        if node.op_type in ("Conv", "Gemm") and node.input[1] not in named
    ]
    unnamed = [m for n, m in layers if f"{n}.weight" not in weights]
    if len(unnamed) != len(folded):
        raise ValueError(f"{path} has {len(folded)} weighted layers without a name, the model {len(unnamed)}")
    pairs = [(m, (weights[f"{n}.weight"], weights[f"{n}.bias"])) for n, m in layers if f"{n}.weight" in weights]
    with torch.no_grad():
        for layer, (weight, bias) in pairs + list(zip(unnamed, folded, strict=True)):
            layer.weight.copy_(torch.from_numpy(weight))
            layer.bias.copy_(torch.from_numpy(bias))
    return model
