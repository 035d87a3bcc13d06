"""The outlines of things read on the table (cards, tiles) that the stick reader looks past: a reading whose
centre lies under one, or that runs along its rim (a tile's side face, the gap between two tiles, a card's
shadowed edge), is that thing's edge, not a stick."""

from __future__ import annotations

from typing import TypeVar

import cv2
import numpy as np

from vision.geometry import scaled_outline

T = TypeVar("T")  # what a candidate carries beside its ends

IGNORE_GROWTH = 1.04  # outlines to ignore grown by this, and IGNORE_MARGIN px, so a card's edges go too
IGNORE_MARGIN = 4.0
# A reading RIM_OVERLAP of whose length lies beside edges of outlines to ignore that it runs along (turned under
# RIM_TURN), within RIM_BAND of the outline's shorter side off the edge, is the object's rim: a tile's side
# face, the gap between two tiles, a card's shadowed edge. Never further off than RIM_OF_LENGTH of the reading's
# own length: a card is over twice as wide as a tile, and a stick laid a centimetre or more off a DIGIT card's
# side, along it, is a stick (about a fifth of a matchstick's length).
RIM_TURN = np.deg2rad(15.0)
RIM_BAND = 0.45
RIM_OF_LENGTH = 0.2
RIM_OVERLAP = 0.7
RIM_SAMPLES = 9


def outside_outlines(candidates: list[tuple[T, np.ndarray]], ignore: list[np.ndarray]) -> list[tuple[T, np.ndarray]]:
    """The candidates (each a score or a stick, and its ends) whose centre lies outside every outline to ignore
    (`under_outlines`) and that lie along none of their rims (`along_rims`)."""
    ends = np.array([ends for _, ends in candidates], np.float64).reshape(-1, 2, 2)
    hidden = under_outlines(ends.mean(axis=1), ignore).any(axis=1)
    hidden[~hidden] = along_rims(ends[~hidden], ignore)
    return [candidate for candidate, h in zip(candidates, hidden, strict=True) if not h]


def under_outlines(points: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray:
    """under[i, j]: point i (image px) lies within outline j grown as an outline the reader ignores is
    (IGNORE_GROWTH, then IGNORE_MARGIN px), so that the object's own edges are under it too."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    under = np.zeros((len(points), len(outlines)), bool)
    for j, outline in enumerate(outlines):
        outline = np.asarray(outline, np.float32).reshape(-1, 2)
        bigger = scaled_outline(outline, IGNORE_GROWTH)
        grown = bigger + np.sign(bigger - outline.mean(axis=0)) * IGNORE_MARGIN
        under[:, j] = [cv2.pointPolygonTest(grown, (float(x), float(y)), False) >= 0 for x, y in points]
    return under


def along_rims(ends: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray:
    """along[i]: segment i (n x 2 x 2 image px) lies along the edges of the convex outlines (see RIM_BAND): a
    tile's or card's rim just outside it, or the gap between two tiles, which the centre test of
    `under_outlines` misses. Points along the segment are taken one by one, so a rim running past several
    tiles in a row counts."""
    ends = np.asarray(ends, np.float64).reshape(-1, 2, 2)
    if not len(ends) or not len(outlines):
        return np.zeros(len(ends), bool)
    quads = np.asarray(outlines, np.float64).reshape(len(outlines), -1, 2)
    edges = np.roll(quads, -1, axis=1) - quads  # (m, k, 2)
    sides = np.linalg.norm(edges, axis=-1)
    units = edges / np.maximum(sides, 1e-9)[..., None]
    band = RIM_BAND * sides.min(axis=1)  # (m,)
    along = ends[:, 1] - ends[:, 0]
    length = np.linalg.norm(along, axis=1)
    parallel = np.abs(np.einsum("nc,mkc->nmk", along, units)) >= np.cos(RIM_TURN) * length[:, None, None]
    # Only the edges of outlines within reach of the segment are looked at closely.
    centres = quads.mean(axis=1)
    reach = length[:, None] / 2 + np.linalg.norm(quads - centres[:, None], axis=-1).max(axis=1) + band
    near = np.linalg.norm(ends.mean(axis=1)[:, None] - centres[None], axis=-1) <= reach
    i, j, k = np.nonzero(parallel & near[:, :, None])
    points = np.linspace(ends[:, 0], ends[:, 1], RIM_SAMPLES, axis=1)  # (n, S, 2)
    rel = points[i] - quads[j, k][:, None]  # (pairs, S, 2)
    u = units[j, k][:, None]
    t = (rel * u).sum(axis=-1)
    off = np.abs(rel[..., 0] * u[..., 1] - rel[..., 1] * u[..., 0])
    margin = np.minimum(band[j], RIM_OF_LENGTH * length[i])[:, None]
    hits = (off <= margin) & (t >= -margin) & (t <= sides[j, k][:, None] + margin)
    # Point s of segment n is beside some edge: counted once however many edges it lies beside.
    flat = (i[:, None] * RIM_SAMPLES + np.arange(RIM_SAMPLES))[hits]
    beside = np.bincount(flat, minlength=len(ends) * RIM_SAMPLES).reshape(len(ends), RIM_SAMPLES) > 0
    return beside.mean(axis=1) >= RIM_OVERLAP
