"""A steep view of dominoes, seen again from above.

A webcam at the table's edge sees far tiles squashed and near ones stretched, further from the squat 2:1
slabs the networks learnt from than any training view. The tiles read on a first look tell the camera's
tilt: under the right one their outlines on the table plane (vision.geometry.tilt_planes: a camera pitched,
not rolled) are rectangles twice as long as wide. Where that tilt is STEEP or more, the picture is warped to
a view from above round the tiles read, the tiles there at the size they had in the picture, and read
again; the readings are mapped back.
"""

from __future__ import annotations

import numpy as np

from vision.geometry import steep_view

STEEP = 40.0  # degrees from straight down
MIN_TILES = 3  # fewer tell too little of the tilt
MARGIN = 1.5  # tile lengths kept round the tiles read, for tiles the first look missed


def view_from_above(corners: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    """Image px -> px of a view from above of the same size, round the tiles read (n, 4, 2 image px); None
    where the view is not steep or the tiles are too few."""
    if len(corners) < MIN_TILES:
        return None
    return steep_view(corners, size, 2.0, STEEP, MARGIN)
