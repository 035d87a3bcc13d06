"""The pip reader's training crops taken from the locator's proposals: on domino scenes labelled by the
truth, on frames with no domino all labelled no tile, on a dotted cloth and of ridged sets both."""

import numpy as np
import pytest

from models.finetune_pips import BLOCKS, DOTTED_SEED, EVERY_TABLE, RIDGED_SEED, dotted_spec, ridged_spec
from models.synth.tables import DOT_TRAIN_TABLES
from models.train_dominoes import FREE_SEED, NOT_A_TILE, PROPOSAL_SEED, domino_free_crops, proposal_crops
from vision.dominoes.pips import PipReader
from vision.dominoes.tile import CROP_SIZE

SHAPE = (CROP_SIZE[1], CROP_SIZE[0], 3)


def test_proposals_on_a_domino_scene_are_labelled_as_the_reader_reads_them() -> None:
    """The labels of proposals over true tiles agree with the shipped reader, which learnt from such crops;
    a label off by a half or turned the wrong way round would not."""
    crops, labels = proposal_crops(PROPOSAL_SEED)
    assert crops.shape[1:] == SHAPE and len(labels) == len(crops)
    tiles = labels[:, 2] == 1
    assert tiles.sum() >= 5 and ((labels[tiles, :2] >= 0) & (labels[tiles, :2] <= 9)).all()
    first, second, _ = PipReader().read(list(crops[tiles]))
    agree = (first.argmax(1) == labels[tiles, 0]) & (second.argmax(1) == labels[tiles, 1])
    assert agree.mean() >= 0.9


def test_proposals_on_frames_with_no_domino_are_all_no_tile() -> None:
    total = 0
    for seed in range(FREE_SEED, FREE_SEED + 8):  # card scenes and stick layouts in turn
        crops, labels = domino_free_crops(seed)
        assert crops.shape[1:] == SHAPE and crops.dtype == np.uint8 and len(labels) == len(crops)
        assert (labels == [NOT_A_TILE, NOT_A_TILE, 0]).all()
        total += len(crops)
    assert total > 0


def test_the_dotted_and_ridged_scenes_draw_their_kind() -> None:
    for seed in range(DOTTED_SEED, DOTTED_SEED + 20):
        assert dotted_spec(seed).table in DOT_TRAIN_TABLES
    for seed in range(RIDGED_SEED, RIDGED_SEED + 20):
        spec = ridged_spec(seed)
        assert spec.ridged == 1.0 and spec.split == "train" and spec.table in EVERY_TABLE


@pytest.mark.parametrize("block", ["dotted", "ridged"])
def test_a_block_of_truth_and_proposals_gives_its_tiles_as_read_and_the_rest_as_no_tile(block: str) -> None:
    """Patches of a dotted cloth are no tile; a ridged set's tiles are labelled as the shipped reader reads them."""
    crops, labels = [], []
    for seed in range(BLOCKS[block].seed, BLOCKS[block].seed + 3):
        scene_crops, scene_labels = BLOCKS[block].crops_of(seed)
        assert scene_crops.shape[1:] == SHAPE and len(scene_labels) == len(scene_crops)
        crops.append(scene_crops)
        labels.append(scene_labels)
    crops, labels = np.concatenate(crops), np.concatenate(labels)
    tiles = labels[:, 2] == 1
    assert tiles.sum() >= 10 and (~tiles).sum() >= 10
    assert (labels[~tiles, :2] == NOT_A_TILE).all()
    first, second, _ = PipReader().read(list(crops[tiles]))
    agree = (first.argmax(1) == labels[tiles, 0]) & (second.argmax(1) == labels[tiles, 1])
    assert agree.mean() >= 0.9
