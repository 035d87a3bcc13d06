"""A set whose divider is a ridge of the tiles' own material (`DominoSpec.ridged`): drawn from a stream of its
own, it changes a scene on its tiles alone, and a scene asked for none renders as before."""

from dataclasses import replace

import cv2
import numpy as np

from models.evaluate_dominoes import evaluation_spec
from models.synth.dominoes import render_dominoes

SEED = 51_000_000


def test_a_ridged_divider_changes_the_tiles_alone() -> None:
    for index in range(3):
        _, spec = evaluation_spec(index, SEED)
        plain = render_dominoes(SEED + index, spec)
        ridged = render_dominoes(SEED + index, replace(spec, ridged=1.0))
        assert np.array_equal(plain.image, render_dominoes(SEED + index, replace(spec, ridged=0.0)).image)
        changed = np.argwhere(np.abs(plain.image.astype(int) - ridged.image).max(axis=2) > 8)[:, ::-1].astype(float)
        assert len(changed) > 0
        # The photograph's blur and JPEG blocks carry a change a few pixels past a tile's edge.
        outlines = [t.corners for t in plain.tiles]
        beside = [max(cv2.pointPolygonTest(q, (x, y), True) for q in outlines) for x, y in changed[::7]]
        assert min(beside) > -16
