"""A heap's sticks told from pairs of end peaks, by a look at the picture between them.

In a heap of pick-up sticks the locator's centre peaks merge where sticks cross or lie side by side, and about a
third of the sticks go unread or are read with one end wrong; yet nearly every stick end gets an end peak of its
own. Any two end peaks about a stick's length apart may be one stick's ends. A small network
(`sticks_pairs.onnx`, trained by models/train_stick_pairs.py) looks at the strip of picture from one point to
the other, a little past both, and says how likely one stick lies there end to end. The sticks read and the
pairs it believes are then taken surest first, each end peak serving one stick (`assembled`). A stick whose far end
has no peak of its own is looked for from its near end's, all round it (`from_lone_ends`).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np

from vision.crops import to_tensor
from vision.onnx_session import load_session
from vision.sticks.bodies import body_gauge
from vision.sticks.detections import Stick, median_length
from vision.sticks.lattice import covered_shares, end_distance, line_turn
from vision.sticks.locate import LocatorReadings

MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "sticks_pairs.onnx"
STRIP = (64, 16)  # width along the pair, height across it: a stick's ends lie STRIP_PAST in from each side
STRIP_PAST = 0.125  # of the pair's span: how far past each end the strip runs, so that the end shows
PAIR_END = 0.1  # least end-peak score of a pair's ends
PAIR_SPAN = (0.7, 1.4)  # of the sticks' median length: the spans of pairs looked at
MAX_PEAKS = 60  # the surest end peaks only: pairs grow as their square
NEAR_PEAK = 0.12  # of the median length: a read stick's end this near an end peak holds it
HOLDS = 0.5  # a pair the network is this sure of is a stick
# A read stick the network is less sure of than this is left out. Chosen with HOLDS on the held-out heaps of seeds
# 1000.. (models/sticks.md, "Heaps told from pairs of end peaks").
DOUBTED = 0.1
# Two sticks whose ends touch share one end peak. A stick the network is this sure of may take one end peak a
# stick already holds, where it runs at least SHARED_TURN off each stick holding it: the same peak and direction
# would be that stick again (models/sticks.md, eighty-ninth session).
SHARED_SURE = 0.9
SHARED_TURN = np.radians(20.0)
# A stick whose far end no end peak marks (it lies under another stick, or fades) is looked for from its near end's
# peak, where that is LONE_END sure and no stick holds it: all round at LONE_TURN steps and LONE_SPANS of the
# median length, then finer about the best (LONE_FINE_TURNS, LONE_FINE_SPANS), within LONE_SPAN_RANGE, as a heap's
# sticks are nearly one length in the picture. Kept where the network is LONE_SURE of it, it lies along no stick for
# LONE_COVERED of its length, and its body shows (`body_gauge`: the network believed a marble's vein so).
# Chosen on the held-out heaps of seeds 1000.. (models/sticks.md, ninety-first session).
LONE_END = 0.5
LONE_TURN = np.radians(10.0)
LONE_SPANS = (0.9, 1.0, 1.1)
LONE_FINE_TURNS = np.radians((-5.0, -2.5, 0.0, 2.5, 5.0))
LONE_FINE_SPANS = (0.9, 0.95, 1.0, 1.05, 1.1)
LONE_SPAN_RANGE = (0.9, 1.15)
LONE_SURE = 0.9
LONE_COVERED = 0.3


def strips(image: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The strip of `image` along each segment (n x 2 x 2, px), as uint8 (n, STRIP[1], STRIP[0], 3): its first end
    STRIP_PAST of the span in from the left, its second as far in from the right, pixels square."""
    segments = np.asarray(segments, np.float64).reshape(-1, 2, 2)
    width, height = STRIP
    if not len(segments):
        return np.zeros((0, height, width, 3), np.uint8)
    start, along = segments[:, 0], segments[:, 1] - segments[:, 0]
    span = np.maximum(np.linalg.norm(along, axis=1, keepdims=True), 1e-6)
    unit = along / span
    normal = np.stack([-unit[:, 1], unit[:, 0]], axis=1)
    step = span * (1 + 2 * STRIP_PAST) / width  # px of the picture per strip pixel
    u = (np.arange(width) + 0.5) * step - STRIP_PAST * span  # (n, width): distance along from the first end
    v = (np.arange(height) - (height - 1) / 2) * step  # (n, height): distance across
    points = (
        start[:, None, None] + u[:, None, :, None] * unit[:, None, None] + v[:, :, None, None] * normal[:, None, None]
    )
    points = points.reshape(-1, width, 2).astype(np.float32)
    out = cv2.remap(image, points[..., 0], points[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(len(segments), height, width, 3)


def candidate_pairs(peaks: np.ndarray, scores: np.ndarray, stick_length: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of end peaks (the MAX_PEAKS surest of PAIR_END or more) a stick's span apart: their indices into
    `peaks` (m x 2) and their segments (m x 2 x 2)."""
    order = np.argsort(-scores)
    kept = order[scores[order] >= PAIR_END][:MAX_PEAKS]
    if len(kept) < 2:
        return np.zeros((0, 2), int), np.zeros((0, 2, 2))
    pairs = np.array(list(itertools.combinations(kept, 2)))
    spans = np.linalg.norm(peaks[pairs[:, 0]] - peaks[pairs[:, 1]], axis=1)
    pairs = pairs[(spans >= PAIR_SPAN[0] * stick_length) & (spans <= PAIR_SPAN[1] * stick_length)]
    return pairs, peaks[pairs]


class PairCheck:
    """The pair network, loaded once: how likely one stick lies along each segment."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        self.session = load_session(model_path, threads)

    def __call__(self, image: np.ndarray, segments: np.ndarray) -> np.ndarray:
        if not len(segments):
            return np.zeros(0)
        logits = self.session.run(None, {"strips": to_tensor(strips(image, segments))})[0].reshape(-1)
        return 1 / (1 + np.exp(-logits))


def held_peaks(ends: np.ndarray, peaks: np.ndarray, reach: float) -> np.ndarray:
    """For each stick (n x 2 x 2), the index of the end peak within `reach` of each end, or -1 (n x 2)."""
    if not len(peaks):
        return np.full((len(ends), 2), -1)
    distances = np.linalg.norm(ends[:, :, None] - peaks[None, None], axis=-1)
    nearest = distances.argmin(axis=-1)
    return np.where(distances.min(axis=-1) <= reach, nearest, -1)


def assembled(image: np.ndarray, sticks: list[Stick], readings: LocatorReadings, check: PairCheck) -> list[Stick]:
    """The heap's sticks: the sticks read and the pairs of end peaks `check` believes (HOLDS), taken surest first,
    each end peak serving one stick (or, for a stick the network is sure of, SHARED_SURE, one peak shared with
    sticks running SHARED_TURN off it) and no stick taken twice; a read stick is left out where the network
    doubts it (under DOUBTED) or a surer stick took one of its end peaks."""
    if len(sticks) < 2:
        return sticks
    ends = np.array([s.ends for s in sticks], np.float64)
    length = median_length(sticks)
    peaks, scores = readings.end_points, readings.end_scores
    pairs, segments = candidate_pairs(peaks, scores, length)
    everything = np.concatenate([ends, segments])
    sure = check(image, everything)
    held = np.concatenate([held_peaks(ends, peaks, NEAR_PEAK * length), pairs]).astype(int)
    holders: dict[int, list[int]] = {}  # end peak -> the sticks kept that hold it
    kept: list[int] = []
    for k in np.argsort(-sure, kind="stable"):
        read = k < len(ends)
        if sure[k] < (DOUBTED if read else HOLDS):
            continue
        own = {int(h) for h in held[k] if h >= 0}
        shared = [peak for peak in own if peak in holders]
        if shared and (
            sure[k] < SHARED_SURE
            or len(shared) > 1
            or any(line_turn(everything[k], everything[j]) < SHARED_TURN for j in holders[shared[0]])
        ):
            continue
        if not read and any(end_distance(everything[k], everything[j]) <= NEAR_PEAK * length for j in kept):
            continue
        for peak in own:
            holders.setdefault(peak, []).append(int(k))
        kept.append(int(k))
    return [sticks[k] if k < len(ends) else Stick(everything[k], float(min(1.0, sure[k]))) for k in sorted(kept)]


def _fanned(start: np.ndarray, turns: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """Segments (n x 2 x 2) from `start` at each of `turns` (radians) and each of `spans` (px)."""
    directions = np.stack([np.cos(turns), np.sin(turns)], axis=1)
    stops = start + (directions[:, None] * spans[None, :, None]).reshape(-1, 2)
    return np.stack([np.broadcast_to(start, stops.shape), stops], axis=1)


def _surest_from(image: np.ndarray, start: np.ndarray, length: float, check: PairCheck) -> tuple[np.ndarray, float]:
    """The segment from `start` along which `check` is surest a stick lies, and how sure it is."""
    segments = _fanned(start, np.arange(0.0, 2 * np.pi, LONE_TURN), np.array(LONE_SPANS) * length)
    best = segments[int(np.argmax(check(image, segments)))]
    along = best[1] - best[0]
    turn, span = np.arctan2(along[1], along[0]), np.linalg.norm(along)
    spans = np.clip(span * np.array(LONE_FINE_SPANS), *(np.array(LONE_SPAN_RANGE) * length))
    segments = _fanned(start, turn + np.array(LONE_FINE_TURNS), spans)
    sure = check(image, segments)
    k = int(np.argmax(sure))
    return segments[k], float(sure[k])


def from_lone_ends(image: np.ndarray, sticks: list[Stick], readings: LocatorReadings, check: PairCheck) -> list[Stick]:
    """Sticks from the end peaks no stick holds (LONE_END or surer), surest first, each to where `check` is surest
    one stick lies (see LONE_END); not `sticks`, which they join."""
    if len(sticks) < 2:
        return []
    length = median_length(sticks)
    peaks, scores = readings.end_points, readings.end_scores
    found = [np.asarray(s.ends, np.float64) for s in sticks]
    held = np.linalg.norm(peaks[:, None] - np.reshape(found, (-1, 2))[None], axis=-1).min(axis=1) <= NEAR_PEAK * length
    shows_body = body_gauge(image, found)
    added: list[Stick] = []
    for p in np.argsort(-scores):
        if scores[p] < LONE_END:
            break
        if held[p] or any(np.linalg.norm(s.ends - peaks[p], axis=1).min() <= NEAR_PEAK * length for s in added):
            continue
        segment, sure = _surest_from(image, peaks[p], length, check)
        others = np.array(found + [s.ends for s in added])
        if sure < LONE_SURE or covered_shares(segment[None], others)[0] >= LONE_COVERED:
            continue
        if covered_shares(others, segment[None]).max() >= LONE_COVERED or not shows_body(segment):
            continue
        added.append(Stick(segment, min(1.0, sure)))
    return added
