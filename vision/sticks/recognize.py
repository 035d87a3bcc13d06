"""Sticks on the table, in stages, each timed by `StickRecognizer.timed`:

- bars: straight bars of a half-size thin-structure response, split by direction; lines of the table dropped;
- measure: each bar at full resolution, its line, ends, width and the seams along it;
- verify: bars of sticks kept, bars of the table's own pattern dropped;
- count: how many sticks each bar holds, from its seams and the sticks' common length, in a plane rectified by
  calibration or by the tilt the sticks themselves give; bars cut into sticks there;
- lattice: touching sticks grouped, each group walked onto the lattice and checked.
"""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import pairwise

import cv2
import numpy as np

from vision.sticks.bars import WORK_SCALE, Bar, bar_response, find_bars, threshold, work_image
from vision.sticks.detections import Polystick, Stick
from vision.sticks.lattice import crossing, group, segment_distance, snap
from vision.sticks.profile import Bridge, Profile, measure
from vision.sticks.units import count_sticks, cuts, to_plane
from vision.sticks.verify import Frame, Verifier, load_verifier

MIN_STICK_PX = 40.0  # a stick shorter than this in the picture is not read
MIN_ASPECT = 5.0  # length over width in the picture: the stubbiest stick, foreshortened along its length
MIN_COVERAGE = 0.8  # a bar with longer gaps of bare table is not one run of sticks
IGNORE_MARGIN = 8.0  # work px around an outline to ignore (cards): its edges, and the gaps between cards, are bars too


def _bridges(bars: list[tuple[np.ndarray, np.ndarray, float]]) -> list[list[Bridge]]:
    """For each bar, where other bars cross it (not merely end against it), and half the span they cover."""
    spans: list[list[Bridge]] = [[] for _ in bars]
    for i, (a, b, _) in enumerate(bars):
        for j, (c, d, width) in enumerate(bars):
            hit = crossing(a, b, c, d) if i != j else None
            other = float(np.linalg.norm(d - c))
            if hit is None or min(hit[1], 1 - hit[1]) * other < max(width, 0.1 * other):
                continue
            along, across = (b - a) / np.linalg.norm(b - a), (d - c) / other
            sine = abs(along[0] * across[1] - along[1] * across[0])
            spans[i].append((a + (b - a) * hit[0], (width / 2 + 2) / max(sine, 0.25)))
    return spans


def _covered(ends: np.ndarray, kept: list[tuple[np.ndarray, float]]) -> bool:
    """Whether a segment lies mostly along segments already kept (each with its width)."""
    samples = np.linspace(ends[0], ends[1], 12)
    covered = np.zeros(len(samples), bool)
    for other, width in kept:
        ab = other[1] - other[0]
        t = np.clip((samples - other[0]) @ ab / max(float(ab @ ab), 1e-9), 0, 1)
        dist = np.linalg.norm(samples - (other[0] + t[:, None] * ab), axis=1)
        covered |= dist <= max(width / 2 + 3.0, 4.0, 0.06 * float(np.linalg.norm(ab)))
    return bool(covered.mean() >= 0.75)


def _redundant(verified: list[tuple[Profile, float]]) -> list[tuple[Profile, float]]:
    """Drop a bar lying mostly along longer ones: a second find of a run of sticks."""
    kept: list[tuple[Profile, float]] = []
    for profile, confidence in sorted(verified, key=lambda pc: -pc[0].length):
        if not _covered(np.array([profile.a, profile.b]), [(np.array([k.a, k.b]), k.width) for k, _ in kept]):
            kept.append((profile, confidence))
    return kept


def _with_junctions(profiles: list[Profile]) -> list[Profile]:
    """Each bar with the places along it where another crosses it or ends against its side."""
    result = []
    for i, profile in enumerate(profiles):
        along = (profile.b - profile.a) / profile.length
        spots = []
        for j, other in enumerate(profiles):
            if i == j:
                continue
            hit = crossing(profile.a, profile.b, other.a, other.b)
            if hit is not None:
                spots.append(hit[0] * profile.length)
                continue
            for end in (other.a, other.b):
                dist, t = segment_distance(end, profile.a, profile.b)
                if dist <= max(6.0, profile.width + other.width) and 0 < t < 1:
                    spots.append(float((end - profile.a) @ along))
        result.append(replace(profile, junctions=tuple(spots)))
    return result


def _pieces(profile: Profile, cuts: list[float]) -> list[np.ndarray]:
    """The sticks of one measured bar, split at `cuts`, each refitted to its own stretch of the bar."""
    bounds = [0.0, *cuts, profile.length]
    d = (profile.b - profile.a) / profile.length
    n = np.array([-d[1], d[0]])
    sticks = []
    for lo, hi in pairwise(bounds):
        i0, i1 = round(lo), max(round(hi), round(lo) + 2)
        us = np.arange(i0, min(i1, len(profile.offsets)))
        if len(cuts) and len(us) >= 4:
            slope, shift = np.polyfit(us, profile.offsets[us], 1)
        else:
            slope, shift = 0.0, 0.0
        ends = np.array([profile.a + d * u + n * (shift + slope * u) for u in (lo, hi)])
        sticks.append(ends)
    return sticks


def _distinct(found: list[tuple[np.ndarray, float, float]]) -> list[tuple[np.ndarray, float]]:
    """Sticks (ends, confidence), dropping one found again along a longer one."""
    kept: list[tuple[np.ndarray, float, float]] = []
    for ends, conf, width in sorted(found, key=lambda s: -np.linalg.norm(s[0][1] - s[0][0])):
        if not _covered(ends, [(k[0], k[2]) for k in kept]):
            kept.append((ends, conf, width))
    return [(ends, conf) for ends, conf, _ in kept]


def candidate_bars(image: np.ndarray, ignore: list[np.ndarray] = ()) -> list[Bar]:
    """Straight bars in a BGR frame, in work-image pixels, none within the `ignore` outlines (image px)."""
    response = bar_response(work_image(image))
    low = threshold(response)
    if len(ignore):
        mask = np.zeros(response.shape, np.uint8)
        for outline in ignore:
            outline = np.asarray(outline, np.float64).reshape(-1, 2) * WORK_SCALE
            centre = outline.mean(axis=0)
            # Grown by a little more than the bar filter's reach, so that the outline's own edges go too.
            grown = centre + (outline - centre) * 1.04
            grown += np.sign(grown - centre) * IGNORE_MARGIN
            cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 1)
        response[mask > 0] = 0
    return find_bars(response, low)


def measured_bars(image: np.ndarray, bars: list[Bar] | None = None) -> list[Profile]:
    """Every bar in a BGR frame (or the given candidates) measured at full resolution, long and slender
    enough to be sticks."""
    bars = candidate_bars(image) if bars is None else bars
    scaled = [(bar.a / WORK_SCALE, bar.b / WORK_SCALE, bar.width / WORK_SCALE) for bar in bars]
    profiles = []
    for (a, b, width), spans in zip(scaled, _bridges(scaled), strict=True):
        profile = measure(image, a, b, width, spans)
        if profile is None or profile.length < max(MIN_STICK_PX, MIN_ASPECT * profile.width):
            continue
        if profile.coverage >= MIN_COVERAGE:
            profiles.append(profile)
    return profiles


class StickRecognizer:
    """Frames in, sticks and polysticks out. Holds the bar verifier; build one and reuse it."""

    def __init__(self, verifier: Verifier | None = None) -> None:
        self.verifier = verifier or load_verifier()

    def __call__(
        self, image: np.ndarray, homography: np.ndarray | None = None, ignore: list[np.ndarray] = ()
    ) -> tuple[list[Stick], list[Polystick]]:
        sticks, polysticks, _ = self.timed(image, homography, ignore)
        return sticks, polysticks

    def timed(
        self, image: np.ndarray, homography: np.ndarray | None = None, ignore: list[np.ndarray] = ()
    ) -> tuple[list[Stick], list[Polystick], dict[str, float]]:
        """The sticks, the polysticks, and each stage's milliseconds.

        `homography`, if given, maps image pixels to table millimetres (from calibration). `ignore` holds
        outlines (image px) of other things read on the table, such as cards: their edges and print are not
        sticks.
        """
        t0 = time.perf_counter()
        bars = candidate_bars(image, ignore)
        tb = time.perf_counter()
        profiles = measured_bars(image, bars)
        t1 = time.perf_counter()
        frame = Frame.of(profiles)
        scored = [(p, self.verifier.probability(p, frame)) for p in profiles]
        verified = _redundant([(p, c) for p, c in scored if c >= self.verifier.threshold])
        profiles = _with_junctions([p for p, _ in verified])
        t2 = time.perf_counter()
        h, w = image.shape[:2]
        counting = count_sticks(profiles, (w, h), MIN_STICK_PX, homography)
        found = []
        for profile, (_, confidence), count in zip(profiles, verified, counting.counts, strict=True):
            for ends in _pieces(profile, cuts(profile, count, counting.plane)):
                found.append((ends, confidence, profile.width))
        sticks = [Stick(ends, confidence) for ends, confidence in _distinct(found)]
        t3 = time.perf_counter()
        polysticks = self.polysticks(sticks, counting.plane, square=True)
        t4 = time.perf_counter()
        return (
            sticks,
            polysticks,
            {
                "bars_ms": (tb - t0) * 1000,
                "measure_ms": (t1 - tb) * 1000,
                "verify_ms": (t2 - t1) * 1000,
                "count_ms": (t3 - t2) * 1000,
                "lattice_ms": (t4 - t3) * 1000,
            },
        )

    @staticmethod
    def polysticks(sticks: list[Stick], plane: np.ndarray | None = None, square: bool = False) -> list[Polystick]:
        """Group touching sticks and snap each group, in the plane `plane` maps the picture to if given.

        `square`: the plane shows the table's right angles as right angles (calibration's, or the tilt plane
        the sticks themselves gave), so a group's two directions must be square.
        """
        if not sticks:
            return []
        ends = np.array([s.ends for s in sticks], np.float64)
        if plane is not None:
            ends = to_plane(np.asarray(plane, np.float64), ends)
        result = []
        for members in group(ends):
            edges, connected, on_lattice, card = snap(ends[members], square=square)
            result.append(Polystick(tuple(members), edges, connected, on_lattice, card))
        return result


def recognize_sticks(image: np.ndarray, homography: np.ndarray | None = None) -> tuple[list[Stick], list[Polystick]]:
    """Every stick in a BGR frame and the touching groups they form (see StickRecognizer.timed)."""
    return StickRecognizer()(image, homography)
