"""The card classifier, the card locator, the tile locator and the pip readers in 8 bits: `python -m
models.quantize` (after `make train`'s training; needs the `train` extra for `onnx`).

Each float model is quantized statically (onnxruntime's QDQ format: weights int8 per channel, activations
uint8), its activation ranges calibrated on the inputs the float recogniser gives the network over
training-split scenes. The 8-bit classifier reads a crop in 0.16 ms instead of 0.26, the pip reader in 0.065
instead of 0.15 (one core of the development host), with the held-out figures unchanged (models/digit_cards.md,
models/dominoes.md). The card locator's look takes 5 ms instead of 8 and its closer look at a whole frame 10
instead of 20; the tile locator's look 8 ms instead of 15. Both read as many cards and tiles on held-out seeds
that no choice was tuned on. The stick locator and the corner networks stay in float: quantized, they lost
readings. An x86 CPU without VNNI runs them in onnxruntime's exact kernels (`vision.onnx_session.EXACT_8_BIT`),
which need each consumer of a weight to have its own (`unshare_weights`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import typer
from rich.progress import track

from vision.onnx_session import file_digest, quantized_path

CALIBRATION_CROPS = 2000  # inputs the activation ranges are calibrated on, drawn from all those recorded
BATCH = 50


class RecordingSession:
    """An inference session that keeps every input it is given, for calibration."""

    def __init__(self, session) -> None:
        self.session = session
        self.inputs: list[np.ndarray] = []

    def run(self, outputs, feed: dict[str, np.ndarray]):
        self.inputs.extend(feed.values())
        return self.session.run(outputs, feed)

    def __getattr__(self, name: str):
        return getattr(self.session, name)


def recorded_inputs(
    network, read: Callable[[int], None], seeds: range, seed: int = 0, shape: tuple[int, ...] | None = None
) -> np.ndarray:
    """Up to CALIBRATION_CROPS of the inputs `network` (an object with a `session`) is given while `read(s)`
    reads scene s, for each of `seeds`, drawn at random; with `shape`, only the inputs of that shape (a
    locator reads frames of other sizes too)."""
    recorder = RecordingSession(network.session)
    network.session = recorder
    try:
        for s in track(seeds, description="recording calibration inputs"):
            read(s)
    finally:
        network.session = recorder.session
    inputs = np.concatenate([x for x in recorder.inputs if shape is None or x.shape[1:] == shape])
    return inputs[np.random.default_rng(seed).permutation(len(inputs))[:CALIBRATION_CROPS]]


def quantize(model: Path, inputs: np.ndarray, calibration: str) -> Path:
    """Write the 8-bit model of the float `model` beside it, with its manifest: the float one's, and how it
    was quantized (from which file, by its SHA-256, and on what)."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    name = onnx.load(str(model)).graph.input[0].name

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter({name: inputs[i : i + BATCH]} for i in range(0, len(inputs), BATCH))

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    out = quantized_path(model)
    quantize_static(
        str(model),
        str(out),
        Batches(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
    )
    unshare_weights(out)
    manifest = json.loads(model.with_suffix(".json").read_text())
    manifest["model"] = out.name
    manifest["quantized"] = {
        "from": model.name,
        "from_sha256": file_digest(model),
        "method": "onnxruntime quantize_static, QDQ, weights int8 per channel, activations uint8 (min-max)",
        "calibration": f"{len(inputs)} inputs: {calibration}",
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its manifest")
    return out


def unshare_weights(model: Path) -> None:
    """Give each consumer of a shared 8-bit weight (the pip reader's count head reads both halves) a copy of
    its own: onnxruntime's exact kernels for CPUs without VNNI (`vision.onnx_session.EXACT_8_BIT`) rewrite each
    consumer's weights and fail on a weight rewritten twice ("Attempt to replace the existing tensor")."""
    import onnx
    from onnx import helper

    network = onnx.load(str(model))
    graph = network.graph
    weights = {tensor.name: tensor for tensor in graph.initializer}
    consumers: dict[str, list[tuple[onnx.NodeProto, int]]] = {}
    for node in graph.node:
        for k, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, k))
    copies = []
    for dequantize in graph.node:
        if dequantize.op_type != "DequantizeLinear" or dequantize.input[0] not in weights:
            continue
        for n, (node, k) in enumerate(consumers.get(dequantize.output[0], [])[1:], start=1):
            inputs = []
            for name in dequantize.input:
                tensor = onnx.TensorProto()
                tensor.CopyFrom(weights[name])
                tensor.name = f"{name}_{n}"
                graph.initializer.append(tensor)
                inputs.append(tensor.name)
            attributes = {a.name: helper.get_attribute_value(a) for a in dequantize.attribute}
            output = f"{dequantize.output[0]}_{n}"
            copies.append(
                helper.make_node("DequantizeLinear", inputs, [output], f"{dequantize.name}_{n}", **attributes)
            )
            node.input[k] = output
    for node in reversed(copies):  # inserted first: they read only weights, so the graph stays sorted
        graph.node.insert(0, node)
    onnx.save(network, str(model))


def take_quantized_frames(model: Path) -> None:
    """Have the 8-bit locator at `model` take its frames quantized, as the uint8 levels its first QuantizeLinear
    would make of them, laid out as a frame lies in memory (NHWC): the reader then builds its input by looking
    each grey level up (`vision.locator.quantized_levels`) instead of converting every pixel to float,
    transposing it and quantizing it again, about 2 ms a frame on the card reader's two looks
    (models/digit_cards.md, sixty-first session). The network is the same: the QuantizeLinear node goes, its
    scale and zero point go into the manifest, and a Transpose gives the convolutions their layout back
    (onnxruntime cancels it against the one it puts before its 8-bit convolutions)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    network = onnx.load(str(model))
    graph = network.graph
    frames = graph.input[0]
    (first,) = [node for node in graph.node if frames.name in node.input]
    if first.op_type != "QuantizeLinear":
        raise ValueError(f"{model.name} does not quantize its input first; run `python -m models.quantize`")
    constants = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    scale, zero_point = float(constants[first.input[1]]), int(constants[first.input[2]])
    n, channels, h, w = [d.dim_param or d.dim_value for d in frames.type.tensor_type.shape.dim]
    graph.node.remove(first)
    graph.input.remove(frames)
    graph.input.insert(0, helper.make_tensor_value_info(frames.name, TensorProto.UINT8, [n, h, w, channels]))
    graph.node.insert(0, helper.make_node("Transpose", [frames.name], [first.output[0]], perm=[0, 3, 1, 2]))
    onnx.save(network, str(model))
    manifest_path = model.with_suffix(".json")
    manifest = json.loads(manifest_path.read_text())
    shape = manifest["input"]["shape"]
    manifest["input"] |= {
        "shape": [shape[0], *shape[2:], shape[1]],
        "layout": "NHWC BGR, uint8",
        "normalisation": manifest["input"]["normalisation"].replace(
            "(x - mean) / 64", "round((x - mean) / 64 / scale) + zero_point, saturated (the float input quantized)"
        ),
        "quantized": {"scale": scale, "zero_point": zero_point},
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


def quantize_card_locator(scenes: int) -> None:
    """The card locator in 8 bits for the card reader's looks at landscape frames (vision.cards.recognize),
    calibrated on its closer look's frames: whole training card scenes at ZOOM times the first look's scale."""
    import cv2

    from models.synth.scenes import render_scene
    from models.train_cards import training_spec
    from vision.cards.centres import MODEL_PATH, CardLocator
    from vision.cards.recognize import ZOOM

    cv2.setNumThreads(1)
    locator = CardLocator(MODEL_PATH)

    def look_closer(s: int) -> None:
        image = render_scene(s, training_spec(s, split="train")).image
        h, w = image.shape[:2]
        locator.read_closer(image, (0, 0, w, h), ZOOM * locator.input_scale(image))

    seeds = range(61_500_000, 61_500_000 + scenes)
    inputs = recorded_inputs(locator, look_closer, seeds)
    out = quantize(
        MODEL_PATH,
        inputs,
        f"the float card locator's closer looks at whole training card scenes, seeds {seeds.start}..",
    )
    take_quantized_frames(out)


def quantize_tile_locator(scenes: int) -> None:
    """The tile locator in 8 bits, calibrated on the canvases of its own input size that the float one reads in
    training domino scenes: first looks and views from above (closer looks come in any size)."""
    import cv2

    from models.synth.dominoes import render_dominoes
    from models.train_dominoes import training_spec
    from vision.dominoes import DominoRecognizer
    from vision.dominoes.locate import INPUT_SIZE, MODEL_PATH, TileLocator

    cv2.setNumThreads(1)
    dominoes = DominoRecognizer(locator=TileLocator(MODEL_PATH))
    seeds = range(60_000_000, 60_000_000 + scenes)
    inputs = recorded_inputs(
        dominoes.locator,
        lambda s: dominoes(render_dominoes(s, training_spec(s)).image),
        seeds,
        shape=(3, INPUT_SIZE[1], INPUT_SIZE[0]),
    )
    source = f"the float tile locator's canvases over training domino scenes, seeds {seeds.start}.."
    quantize(MODEL_PATH, inputs, source)


def quantize_pip_readers(scenes: int) -> None:
    """Both pip readers, calibrated on the crops the float reader is given over training domino scenes."""
    from models.synth.dominoes import render_dominoes
    from models.train_dominoes import training_spec
    from vision.dominoes import DominoRecognizer
    from vision.dominoes.locate import MODEL_PATH as TILE_LOCATOR_PATH
    from vision.dominoes.locate import TileLocator
    from vision.dominoes.pips import BLURRED_MODEL_PATH, PipReader
    from vision.dominoes.pips import MODEL_PATH as PIPS_PATH

    dominoes = DominoRecognizer(
        locator=TileLocator(TILE_LOCATOR_PATH),
        reader=PipReader(PIPS_PATH),
        blurred_reader=PipReader(BLURRED_MODEL_PATH),
    )
    seeds = range(60_000_000, 60_000_000 + scenes)
    inputs = recorded_inputs(dominoes.reader, lambda s: dominoes(render_dominoes(s, training_spec(s)).image), seeds)
    source = f"the float pip reader's crops over training domino scenes, seeds {seeds.start}.."
    for model in (PIPS_PATH, BLURRED_MODEL_PATH):
        quantize(model, inputs, source)


def main(
    card_scenes: int = typer.Option(40, help="training-split card scenes to record the classifier's inputs on"),
    closer_scenes: int = typer.Option(96, help="training-split card scenes to record the closer look's frames on"),
    domino_scenes: int = typer.Option(30, help="training-split domino scenes to record the pip readers' inputs on"),
    tile_locator_scenes: int = typer.Option(
        150, help="training-split domino scenes to record the tile locator's canvases on"
    ),
    card_classifier_only: bool = typer.Option(
        False, help="quantize the card classifier alone (after its fine-tuning), not the other networks"
    ),
    pip_readers_only: bool = typer.Option(
        False, help="quantize the two pip readers alone (after their fine-tuning), not the other networks"
    ),
) -> None:
    import cv2

    from models.synth.scenes import render_scene
    from models.train_cards import training_spec as card_spec
    from vision.cards.classify import BLURRED_MODEL_PATH as CARDS_BLURRED_PATH
    from vision.cards.classify import MODEL_PATH as CARDS_PATH
    from vision.cards.classify import CardClassifier
    from vision.cards.recognize import CardRecognizer

    cv2.setNumThreads(1)
    if pip_readers_only:
        quantize_pip_readers(domino_scenes)
        return
    cards = CardRecognizer(classifier=CardClassifier(CARDS_PATH), backs=False)  # its crops are all it records
    seeds = range(61_000_000, 61_000_000 + card_scenes)
    inputs = recorded_inputs(
        cards.classifier, lambda s: cards(render_scene(s, card_spec(s, split="train")).image), seeds
    )
    source = f"the float classifier's crops over training card scenes, seeds {seeds.start}.."
    if card_classifier_only:
        quantize(CARDS_PATH, inputs, source)
        return
    for model in (CARDS_PATH, CARDS_BLURRED_PATH):
        quantize(model, inputs, source)
    quantize_card_locator(closer_scenes)
    quantize_pip_readers(domino_scenes)
    quantize_tile_locator(tile_locator_scenes)


if __name__ == "__main__":
    typer.run(main)
