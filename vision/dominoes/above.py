"""A steep view of dominoes, seen again from above.

A webcam at the table's edge sees far tiles squashed and near ones stretched, further from the squat 2:1
slabs the networks learnt from than any training view. The tiles read on a first look tell the camera's
tilt: under the right one their outlines on the table plane (vision.geometry.tilt_planes: a camera pitched,
not rolled) are rectangles twice as long as wide. Where that tilt is STEEP or more, the picture is warped to
a view from above round the tiles read, the tiles there at the size they had in the picture, and read
again; the readings are mapped back. That view keeps the tiles read in sight, so where the locator still
marks tiles no reading explains (far tiles, squashed past reading), a second view from above is taken round
those marks alone.
"""

from __future__ import annotations

import numpy as np

from vision.geometry import steep_view

STEEP = 40.0  # degrees from straight down
MIN_TILES = 3  # fewer tell too little of the tilt
MARGIN = 1.5  # tile lengths kept round the tiles read, for tiles the first look missed
UNREAD_FROM = 2  # locator marks unexplained by any tile that earn a view of their own


def view_from_above(corners: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    """Image px -> px of a view from above of the same size, round the tiles read (n, 4, 2 image px); None
    where the view is not steep or the tiles are too few."""
    if len(corners) < MIN_TILES:
        return None
    return steep_view(corners, size, 2.0, STEEP, MARGIN)


def view_of_unread(corners: np.ndarray, unread: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    """Image px -> px of a view from above round the `unread` outlines (n, 4, 2 image px: proposals no tile
    read explains), at the scale of the tiles read (`corners`) or smaller so that all fit; None where the
    tiles read do not tell a steep view or the unread are too few."""
    if len(corners) < MIN_TILES or len(unread) < UNREAD_FROM:
        return None
    return steep_view(corners, size, 2.0, STEEP, MARGIN, unread)
