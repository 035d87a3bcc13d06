"""How the camera moved between two frames of one table, told by the table itself.

A webcam bumped between the two photos of a turn, or a phone held in the hand, shows every stick or tile
elsewhere in the picture, as if all had moved. The table's own grain, marks and whatever lies still on it
move with the camera, not with the player: matched between the frames, with the things that may have moved
left out, they give the camera's move as a homography (a flat table seen by a camera that moves or turns).
A plain cloth or one of small repeating checks shows too little to match surely, and then no move is told.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

ALIGN_WIDTH = 640  # frames compared this wide: quicker, and each photo's own sensor grain averages out
FAST_THRESHOLD = 5  # a table's faint grain gives corners only this weak
MATCH_PX = 1.5  # how near (at ALIGN_WIDTH) a matched corner must land to agree with a move
# Matches that agree on one move before it is believed. Over 116 pairs of renders on 29 table kinds (two
# exposures, the camera still or moved up to 40 px and 3 degrees) every move told was right within a tenth of
# a stick; frames of two other scenes on one table kind agreed on at most 7 (models/sticks.md).
MIN_AGREEING = 30


def table_motion(
    before: np.ndarray,
    after: np.ndarray,
    hidden_before: Sequence[np.ndarray] = (),
    hidden_after: Sequence[np.ndarray] = (),
) -> np.ndarray | None:
    """The homography from `after`'s pixels to `before`'s that the table shows, leaving out the polygons
    (k x 2 px) hidden in each frame (what may have moved between them); None where too little of the table
    agrees on one move to tell it."""
    (grey_before, scale), (grey_after, scale_after) = _small(before), _small(after)
    orb = cv2.ORB_create(1500, fastThreshold=FAST_THRESHOLD, edgeThreshold=15, patchSize=15)
    points_before, described_before = orb.detectAndCompute(grey_before, _mask(grey_before, hidden_before, scale))
    points_after, described_after = orb.detectAndCompute(grey_after, _mask(grey_after, hidden_after, scale_after))
    if described_before is None or described_after is None:
        return None
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(described_after, described_before)
    if len(matches) < MIN_AGREEING:
        return None
    source = np.float32([points_after[m.queryIdx].pt for m in matches])
    target = np.float32([points_before[m.trainIdx].pt for m in matches])
    motion, agreeing = cv2.findHomography(source, target, cv2.RANSAC, MATCH_PX)
    if motion is None or int(agreeing.sum()) < MIN_AGREEING:
        return None
    return np.diag([1 / scale, 1 / scale, 1.0]) @ motion @ np.diag([scale_after, scale_after, 1.0])


def _small(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame in grey, ALIGN_WIDTH wide (never enlarged), and its scale."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    scale = min(1.0, ALIGN_WIDTH / grey.shape[1])
    if scale == 1.0:
        return grey, scale
    size = (round(grey.shape[1] * scale), round(grey.shape[0] * scale))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA), scale


def _mask(grey: np.ndarray, hidden: Sequence[np.ndarray], scale: float) -> np.ndarray:
    """Where corners may be taken: everywhere but the hidden polygons (frame px, drawn at `scale`)."""
    mask = np.full(grey.shape, 255, np.uint8)
    if hidden:
        cv2.fillPoly(mask, [np.round(np.asarray(p, np.float64) * scale).astype(np.int32) for p in hidden], 0)
    return mask
