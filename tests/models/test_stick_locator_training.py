"""The stick locator's training frames of other shapes than 16:9: the sticks' ends are where the letterboxed
frame shows them."""

import numpy as np

from models.train_sticks import frame_sample
from vision.sticks.locate import INPUT_SIZE

SEEDS = range(40, 52)


def test_a_4_3_frame_keeps_its_sticks_inside_its_part_of_the_input() -> None:
    width = round(960 * INPUT_SIZE[1] / 720)  # the rest of the input is the letterbox's black bar
    found = 0
    for seed in SEEDS:
        canvas, ends = frame_sample(seed, size=(960, 720))
        assert canvas[0, :, : width - 1].any() and not canvas[0, :, width + 1 :].any()
        points = ends[0][~np.isnan(ends[0]).any(axis=(1, 2))].reshape(-1, 2)
        assert (points[:, 0] <= width + 1).all()
        found += len(points)
    assert found > 40
