"""The 8-bit classifier, card locator, tile locator and pip readers (models/quantize.py): found
beside their float models, refused when made from another float model, computed exactly on every CPU, and
reading as the float ones do (on a CPU without VNNI, whose fast kernels overflow their weights, too)."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from models.synth.dominoes import render_dominoes
from models.synth.scenes import SceneSpec, render_scene
from models.train_dominoes import training_spec
from vision.cards.centres import MODEL_PATH as CARD_LOCATOR_PATH
from vision.cards.centres import PEAK_THRESHOLD, CardLocator
from vision.cards.classify import BLURRED_MODEL_PATH as CARDS_BLURRED_PATH
from vision.cards.classify import MODEL_PATH as CARDS_PATH
from vision.cards.classify import CardClassifier
from vision.dominoes.locate import MODEL_PATH as TILE_LOCATOR_PATH
from vision.dominoes.locate import TileLocator, decode, letterbox
from vision.dominoes.pips import BLURRED_MODEL_PATH, PipReader
from vision.dominoes.pips import MODEL_PATH as PIPS_PATH
from vision.dominoes.tile import TileFrame, crop_tile
from vision.onnx_session import EXACT_8_BIT, load_session, quantized, quantized_path


@pytest.mark.parametrize(
    "model", [CARDS_PATH, CARDS_BLURRED_PATH, CARD_LOCATOR_PATH, TILE_LOCATOR_PATH, PIPS_PATH, BLURRED_MODEL_PATH]
)
def test_each_committed_8_bit_model_is_made_from_the_committed_float_one(model: Path) -> None:
    assert quantized(model) == quantized_path(model)


@pytest.mark.parametrize(
    "model", [CARDS_PATH, CARDS_BLURRED_PATH, CARD_LOCATOR_PATH, TILE_LOCATOR_PATH, PIPS_PATH, BLURRED_MODEL_PATH]
)
def test_each_8_bit_model_loads_into_the_kernels_that_compute_it_exactly_on_any_cpu(model: Path) -> None:
    """On a CPU without VNNI onnxruntime rewrites the weights for those kernels and fails on a weight two
    operators share (`models.quantize.unshare_weights`): there, loading is the check."""
    assert load_session(quantized(model)).get_session_options().get_session_config_entry(EXACT_8_BIT) == "1"


def _copies(tmp_path: Path) -> Path:
    for path in (CARDS_PATH, CARDS_PATH.with_suffix(".json")):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / CARDS_PATH.name


def test_a_missing_8_bit_model_says_how_to_make_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"models\.quantize"):
        quantized(_copies(tmp_path))


def test_an_8_bit_model_of_another_float_model_is_refused(tmp_path: Path) -> None:
    model = _copies(tmp_path)
    for path in (quantized_path(CARDS_PATH), quantized_path(CARDS_PATH).with_suffix(".json")):
        shutil.copy(path, tmp_path / path.name)
    assert quantized(model) == quantized_path(model)
    manifest = quantized_path(model).with_suffix(".json")
    record = json.loads(manifest.read_text())
    record["quantized"]["from_sha256"] = "0" * 64
    manifest.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"models\.quantize"):
        quantized(model)


def test_the_8_bit_classifier_reads_held_out_cards_as_the_float_one_does() -> None:
    images, outlines = [], []
    for seed in range(20_000_000, 20_000_012):
        scene = render_scene(seed, SceneSpec(split="heldout"))
        images.append(scene.image)
        outlines.append([c.corners.astype(np.float32) for c in scene.cards])
    float_reader, int8_reader = CardClassifier(CARDS_PATH), CardClassifier()
    same = total = 0
    for image, quads in zip(images, outlines, strict=True):
        a, b = float_reader.read(image, quads), int8_reader.read(image, quads)
        same += sum((x is None and y is None) or (x and y and x.face == y.face) for x, y in zip(a, b, strict=True))
        total += len(quads)
    assert total >= 60
    assert same >= 0.97 * total


# The float network's own share of cards peaked: the first look leaves small cards to the closer one.
@pytest.mark.parametrize(("look", "float_share"), [("first", 0.85), ("closer", 0.9)])
def test_the_8_bit_card_locator_looks_as_the_float_one_does(look: str, float_share: float) -> None:
    """Whole held-out frames read as the first look reads them and at the closer look's scale: the 8-bit
    locator puts a peak on as many cards as the float one, within a fifth of the card's height of its centre."""
    from vision.cards.recognize import ZOOM

    def peaks(locator: CardLocator, image: np.ndarray) -> list[tuple[float, np.ndarray]]:
        if look == "first":
            return locator.read(image)[0]
        h, w = image.shape[:2]
        return locator.read_closer(image, (0, 0, w, h), ZOOM * locator.input_scale(image))

    def peaked(locator: CardLocator, image: np.ndarray, cards: list[np.ndarray]) -> int:
        centres = np.array([q.mean(axis=0) for s, q in peaks(locator, image) if s >= PEAK_THRESHOLD]).reshape(-1, 2)
        return sum(
            bool(len(centres))
            and np.linalg.norm(centres - c.mean(axis=0), axis=1).min() < 0.2 * np.linalg.norm(c[3] - c[0])
            for c in cards
        )

    float_locator, int8_locator = CardLocator(CARD_LOCATOR_PATH), CardLocator(quantized(CARD_LOCATOR_PATH))
    by_float = by_int8 = total = 0
    for seed in range(20_000_000, 20_000_012):
        scene = render_scene(seed, SceneSpec(split="heldout"))
        cards = [c.corners for c in scene.cards]
        by_float += peaked(float_locator, scene.image, cards)
        by_int8 += peaked(int8_locator, scene.image, cards)
        total += len(cards)
    assert total >= 60 and by_float >= float_share * total
    assert by_int8 >= by_float - 0.02 * total, (by_int8, by_float, total)


def test_the_8_bit_pip_reader_reads_held_out_tiles_as_the_float_one_does() -> None:
    crops = []
    for seed in range(50_000_000, 50_000_004):
        scene = render_dominoes(seed, training_spec(seed, split="heldout"))
        crops += [crop_tile(scene.image, TileFrame.from_corners(t.corners)) for t in scene.tiles]
    first, second, tile = PipReader(PIPS_PATH).read(crops)
    first8, second8, tile8 = PipReader().read(crops)
    assert len(crops) >= 30
    agree = (
        (first.argmax(1) == first8.argmax(1))
        & (second.argmax(1) == second8.argmax(1))
        & ((tile > 0.5) == (tile8 > 0.5))
    )
    assert agree.mean() >= 0.97


def test_the_8_bit_tile_locator_proposes_held_out_tiles_as_the_float_one_does() -> None:
    """A proposal within a fifth of its length of a tile's centre, from the 8-bit locator as often as from the
    float one."""

    def proposed(locator: TileLocator, image: np.ndarray, tiles: list[np.ndarray]) -> int:
        canvas, scale = letterbox(image)
        centres = np.array([f.center / scale for _, f in decode(locator.maps(canvas))]).reshape(-1, 2)
        return sum(
            bool(len(centres))
            and np.linalg.norm(centres - t.mean(axis=0), axis=1).min()
            < 0.2 * max(np.linalg.norm(t[1] - t[0]), np.linalg.norm(t[3] - t[0]))
            for t in tiles
        )

    float_locator, int8_locator = TileLocator(TILE_LOCATOR_PATH), TileLocator(quantized(TILE_LOCATOR_PATH))
    by_float = by_int8 = total = 0
    for seed in range(50_000_000, 50_000_012):
        scene = render_dominoes(seed, training_spec(seed, split="heldout"))
        tiles = [t.corners for t in scene.tiles]
        by_float += proposed(float_locator, scene.image, tiles)
        by_int8 += proposed(int8_locator, scene.image, tiles)
        total += len(tiles)
    assert total >= 100 and by_float >= 0.9 * total, (by_float, total)
    assert by_int8 >= by_float - 0.02 * total, (by_int8, by_float, total)
