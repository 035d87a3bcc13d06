"""Blank tiles (0|0) and lone pips (1|0) read where there is no tile: a tile lying face down, its maker's mark
taken for a pip, a patch of table enclosed by tiles, a plain note. A true tile shows its set's face and a
divider across its middle."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dominoes.selection import Candidate
from vision.dominoes.tile import CROP_MARGIN, crop_tiles

# A blank tile (0|0) shows nothing but its face and its divider, and a tile-sized patch of table enclosed by
# tiles (under a pi's back, between its legs) or a plain note reads as one, 0.8-0.94 sure. A 0|0 reading is no
# tile where its face (the median Lab colour inside its rim) lies far from the other tiles' typical face, with
# at least BLANK_FACES_FROM other tiles read (the tiles of one set share a colour; glare and pips move it less):
# more than FACE_FAR, and more than FACE_OFF times as far as they lie from it (their median distance, at least
# FACE_SPREAD_MIN); or more than FACE_UNLIKE without a divider, a line across its middle at least DIVIDER_MIN
# levels off the face beside it (`_divider`, grey levels then, Lab levels all across the tile since the 107th
# session; a true blank's can be as faint). Over 200 scenes each of
# 50000000.., 51000000.., 95000000.. and 96000000.., 17 of 22 false blanks went and none of 217 right ones
# (models/dominoes.md, sixty-fourth session).
DIVIDER_MIN = 5.0
# A divider runs across the tile, and a maker's mark on a face-down tile's back (a disc, a ring, a star, a
# letter) sits at its middle: the line is looked for in bands across the tile (shares of its width, clear of the
# centre pin) and must show in every one.
DIVIDER_BANDS = ((0.23, 0.29), (0.29, 0.35), (0.35, 0.41), (0.59, 0.65), (0.65, 0.71), (0.71, 0.77))
DIVIDER_SHIFTS = (-0.04, 0.0, 0.04)
# A tile lying face down (Seven Pis draws from a pile of them) is read as 0|0, 0.8-0.87 sure, its face the set's
# own: it has no divider at all. Tuned (107th session) on 200 scenes with ten tiles face down beside the rest, their
# backs marked (123000000..), and 600 scenes without (124000000..): of 364 such readings, 240 stood under 3 (the
# others mostly rings and stars as wide as a divider, or two tiles' joint read as one), and none of the 284 true
# blanks. The measure before, a line's mean across the middle columns, let a mark pass as a divider: 49 of 364
# stood under 3 (models/dominoes.md).
NO_DIVIDER = 3.0
# A mark on a back a little off the outline's middle reads as one pip, 1|0 or 0|1: such a reading needs a divider
# of LONE_PIP_DIVIDER or more. On tuning scenes (hundred-and-ninth session; the divider measured on the readings
# kept before this check), ten tiles face down with marked backs beside 40 scenes (123000000..) gave 25 false
# one-pip readings, 11 of them under 2 and 18 under NO_DIVIDER (3); of 380 true ones on 600 scenes (124000000..,
# 126000000.., 130000000..) none stood under 2 and one under 3, and of 18 on 40 scenes whose every divider is a
# ridge (128000000..; a ridge shows faintly) one under 2 and two under 3. The classifier's confidence does not
# separate them (true ones under 3 at 0.91-0.97, false ones 0.8-0.93).
LONE_PIP = ((1, 0), (0, 1))
LONE_PIP_DIVIDER = 2.0
FACE_UNLIKE = 40.0
FACE_FAR = 100.0
FACE_OFF = 12.0
FACE_SPREAD_MIN = 3.0
BLANK_FACES_FROM = 3


def _divider(crop: np.ndarray) -> float:
    """How far a line across an upright tile crop's middle stands off the face either side of it, all along it
    (Lab levels, the most over L, a and b: a yellow line on cream shows in b alone). In each of DIVIDER_BANDS,
    a row's mean against the mean of the rows 5 px either side, at one row about the middle (give or take one,
    for a frame a little askew); the least over the bands; the most over the rows and over the bands moved
    sideways by DIVIDER_SHIFTS (a frame a little off the tile's middle)."""
    h, w = crop.shape[:2]
    rim = (w - w / CROP_MARGIN) / 2
    tile = w - 2 * rim
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    middle = np.arange(h // 2 - 4, h // 2 + 5)
    strongest = 0.0
    for shift in DIVIDER_SHIFTS:
        columns = [(round(rim + (a + shift) * tile), round(rim + (b + shift) * tile)) for a, b in DIVIDER_BANDS]
        bands = np.stack([lab[:, a:b].mean(axis=1) for a, b in columns], axis=1)  # rows x bands x channels
        off = bands[middle] - (bands[middle - 5] + bands[middle + 5]) / 2
        for line in (off, -off):
            near = np.maximum(np.maximum(line[:-2], line[1:-1]), line[2:])
            strongest = max(strongest, float(near.min(axis=1).max()))
    return strongest


def _faces(crops: list[np.ndarray]) -> np.ndarray:
    """Each tile crop's face colour (n, 3): its median Lab colour inside the tile's rim."""
    inner = np.array([crop[5:-5, 5:-5] for crop in crops])  # the crop shows a rim of table round the tile
    lab = cv2.cvtColor(inner.reshape(-1, inner.shape[2], 3), cv2.COLOR_BGR2LAB).reshape(len(crops), -1, 3)
    return np.median(lab, axis=1)


def true_faces(image: np.ndarray, kept: list[Candidate]) -> list[Candidate]:
    """`kept` without the 0|0, 1|0 and 0|1 readings with no divider at all (a tile lying face down), and the 0|0
    ones whose face is far unlike the other tiles', or somewhat unlike them with a faint divider (see NO_DIVIDER,
    LONE_PIP_DIVIDER, FACE_FAR, FACE_UNLIKE and DIVIDER_MIN)."""
    plain = [i for i, c in enumerate(kept) if c.pips == (0, 0) or c.pips in LONE_PIP]
    if not plain:
        return kept
    crops = crop_tiles(image, [c.frame for c in kept])
    dividers = {i: _divider(crops[i]) for i in plain}
    blanks = [i for i in plain if kept[i].pips == (0, 0)]
    unlike = {i for i in plain if dividers[i] < (NO_DIVIDER if i in blanks else LONE_PIP_DIVIDER)}
    if len(kept) > BLANK_FACES_FROM:
        faces = _faces(crops)
        for i in blanks:
            others = np.delete(faces, i, axis=0)
            typical = np.median(others, axis=0)
            spread = max(float(np.median(np.linalg.norm(others - typical, axis=1))), FACE_SPREAD_MIN)
            off = float(np.linalg.norm(faces[i] - typical))
            if (off > FACE_FAR and off > FACE_OFF * spread) or (off > FACE_UNLIKE and dividers[i] < DIVIDER_MIN):
                unlike.add(i)
    return [c for i, c in enumerate(kept) if i not in unlike]
