"""Blank tiles (0|0) read where there is none: a tile lying face down, a patch of table enclosed by tiles, a
plain note. A true blank shows its set's face and a divider across its middle."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dominoes.selection import Candidate
from vision.dominoes.tile import crop_tiles

# A blank tile (0|0) shows nothing but its face and its divider, and a tile-sized patch of table enclosed by
# tiles (under a pi's back, between its legs) or a plain note reads as one, 0.8-0.94 sure. A 0|0 reading is no
# tile where its face (the median Lab colour inside its rim) lies far from the other tiles' typical face, with
# at least BLANK_FACES_FROM other tiles read (the tiles of one set share a colour; glare and pips move it less):
# more than FACE_FAR, and more than FACE_OFF times as far as they lie from it (their median distance, at least
# FACE_SPREAD_MIN); or more than FACE_UNLIKE without a divider, a line across its middle at least DIVIDER_MIN
# grey levels off the face beside it (`_divider`; a true blank's can be as faint). Over 200 scenes each of
# 50000000.., 51000000.., 95000000.. and 96000000.., 17 of 22 false blanks went and none of 217 right ones
# (models/dominoes.md, sixty-fourth session).
DIVIDER_MIN = 5.0
# A tile lying face down (Seven Pis draws from a pile of them) is read as 0|0, 0.8-0.87 sure, its face the set's
# own: it has no divider at all. On 200 scenes with ten tiles face down beside the rest (51000000..), 20 of the 26
# such readings stood under 2.5 (the others read two tiles' joint as one), and every one of the 73 true blanks over
# 8.7; over 600 scenes without piles, every true blank read right over 3.4 (models/dominoes.md).
NO_DIVIDER = 3.0
FACE_UNLIKE = 40.0
FACE_FAR = 100.0
FACE_OFF = 12.0
FACE_SPREAD_MIN = 3.0
BLANK_FACES_FROM = 3


def _divider(crop: np.ndarray) -> float:
    """How far (grey levels) a line across an upright tile crop's middle stands off the face either side of it:
    the most, over the rows about the middle, of a row's mean over the tile's middle columns against the mean of
    the rows 5 px either side."""
    h, w = crop.shape[:2]
    rows = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)[:, w // 4 : 3 * w // 4].mean(axis=1)
    middle = np.arange(h // 2 - 3, h // 2 + 4)
    return float(np.abs(rows[middle] - (rows[middle - 5] + rows[middle + 5]) / 2).max())


def _faces(crops: list[np.ndarray]) -> np.ndarray:
    """Each tile crop's face colour (n, 3): its median Lab colour inside the tile's rim."""
    inner = np.array([crop[5:-5, 5:-5] for crop in crops])  # the crop shows a rim of table round the tile
    lab = cv2.cvtColor(inner.reshape(-1, inner.shape[2], 3), cv2.COLOR_BGR2LAB).reshape(len(crops), -1, 3)
    return np.median(lab, axis=1)


def true_blanks(image: np.ndarray, kept: list[Candidate]) -> list[Candidate]:
    """`kept` without the 0|0 readings with no divider at all (a tile lying face down), or whose face is far
    unlike the other tiles', or somewhat unlike them with a faint divider (see NO_DIVIDER, FACE_FAR, FACE_UNLIKE
    and DIVIDER_MIN)."""
    blanks = [i for i, c in enumerate(kept) if c.pips == (0, 0)]
    if not blanks:
        return kept
    crops = crop_tiles(image, [c.frame for c in kept])
    dividers = {i: _divider(crops[i]) for i in blanks}
    unlike = {i for i in blanks if dividers[i] < NO_DIVIDER}
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
