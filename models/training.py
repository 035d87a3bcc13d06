"""What every trainer does the same way: one optimiser step, and the export to ONNX. Needs the `train` extra."""

from __future__ import annotations

from pathlib import Path


def take_step(loss, optimizer, scheduler) -> None:
    """Back-propagate `loss`, update the weights, advance the learning-rate schedule."""
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()


def export_onnx(
    model, shape: tuple[int, ...], out: Path, input_name: str, output_name: str, any_batch: bool = True
) -> None:
    """The model in eval mode as ONNX (opset 17, the TorchScript exporter); `any_batch` leaves the batch
    size free, else it is fixed at `shape[0]`."""
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(*shape),
        str(out),
        input_names=[input_name],
        output_names=[output_name],
        dynamic_axes={input_name: {0: "n"}, output_name: {0: "n"}} if any_batch else None,
        opset_version=17,
        dynamo=False,
    )
