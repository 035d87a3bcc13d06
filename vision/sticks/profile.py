"""A bar measured at full resolution: its exact line, width, ends, and where sticks laid end to end meet.

The frame is sampled in a straightened strip along the bar: `u` runs along it in pixels, `v` across it.
Per column, the colour distance from the table on both flanks (a running median along each flank, so that
a stick touching it briefly does not count) gives the bar's contrast, its middle and its width. The ends are
found walking out from inside the bar to where the contrast falls to half that of the stretch just walked:
a shadow or blur past a bright stick's end does not count, a dark stick laid on from a bright one does. The
seams between sticks laid end to end show as short dips in contrast (a hair's gap, darker end grain, the
notch of rounded ends), steps in colour (a match head, sticks of two colours) or sideways jumps.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

MIN_CONTRAST = 14.0  # colour distance (0..441) between a stick and the table beside it
REMEASURE_ANGLE = np.radians(3.0)  # a bar this far off its rough line is measured again along its own
JUNCTION_SEAM = 0.5  # the seam evidence a junction with another bar gives
BORDER = 3  # px: a bar reaching closer to the picture's edge than this is cut by it


@dataclass(frozen=True)
class Profile:
    """What one strip along a bar shows. `seam` and `offsets` are sampled per pixel from `a` toward `b`."""

    a: np.ndarray
    b: np.ndarray
    width: float
    contrast: float
    coverage: float  # share of the bar's length where it stands out of the table
    seam: np.ndarray  # 0..1 evidence that two sticks meet there
    offsets: np.ndarray  # the middle's distance from the straight line a->b, per pixel
    grain: float  # the least contrast that stands out of the table's own texture here
    continuation: float  # share of the line just past the ends in the bar's colour: a line of the table
    wobble: float  # spread (px) of the middle about the straight line
    width_spread: float  # spread of the width over the width
    junctions: tuple[float, ...] = ()  # where other bars cross this one or end against it (px from `a`)

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.b - self.a))


def _strip(image: np.ndarray, a: np.ndarray, d: np.ndarray, us: np.ndarray, vs: np.ndarray) -> np.ndarray:
    n = np.array([-d[1], d[0]])
    grid_u, grid_v = np.meshgrid(us, vs)
    mx = (a[0] + grid_u * d[0] + grid_v * n[0]).astype(np.float32)
    my = (a[1] + grid_u * d[1] + grid_v * n[1]).astype(np.float32)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def _squared_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Squared Euclidean distance over the last (colour) axis."""
    diff = x - y
    return np.einsum("...k,...k->...", diff, diff)


def _colour_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Euclidean distance over the last (colour) axis."""
    return np.sqrt(_squared_distance(x, y))


def _box(values: np.ndarray, k: int) -> np.ndarray:
    """Running mean along the first axis with edge padding (odd `k`)."""
    if k <= 1:
        return values
    flat = values.reshape(len(values), -1).astype(np.float32)
    padded = np.pad(flat, ((k // 2, k // 2), (0, 0)), mode="edge")
    return cv2.blur(padded, (1, k))[k // 2 : k // 2 + len(values)].reshape(values.shape)


def _running_median(values: np.ndarray, k: int) -> np.ndarray:
    """About the median over a window of `k` along the first axis of (n, c) values: it ignores a stick that
    touches the flank briefly. Medians of blocks of k / 2, interpolated between block centres, are fast."""
    n = len(values)
    block = max(2, k // 2)
    count = -(-n // block)
    padded = np.pad(values, ((0, count * block - n), (0, 0)), mode="edge")
    medians = np.partition(padded.reshape(count, block, -1), block // 2, axis=1)[:, block // 2]
    if count == 1:
        return np.repeat(medians, n, axis=0)
    x = np.arange(n, dtype=np.float64)
    centres = np.arange(count) * block + (block - 1) / 2
    return np.column_stack([np.interp(x, centres, medians[:, c]) for c in range(values.shape[1])])


Bridge = tuple[np.ndarray, float]  # where another stick crosses on top (image px), and half its span along


def measure(
    image: np.ndarray, a: np.ndarray, b: np.ndarray, width: float, bridges: list[Bridge] = ()
) -> Profile | None:
    """Measure the bar roughly from `a` to `b` (full-resolution px) in the BGR `image`.

    `bridges` are where other sticks cross on top: no ends or seams there.
    None when nothing stands out of the table along the line, or when it runs on past the strip (a line of
    the table) or out of the picture.
    """
    length = float(np.linalg.norm(b - a))
    pads = [max(10.0, width + 4.0, 0.25 * length)] * 2
    for _attempt in range(3):
        result = _measure(image, a, b, width, bridges, pads)
        if isinstance(result, set):
            # The bar went on to the strip's end: look further out on that side.
            pads = [pad + (0.5 * length + 20 if side in result else 0) for side, pad in enumerate(pads)]
            continue
        if result is None or _angle(result.b - result.a, b - a) < REMEASURE_ANGLE:
            return result
        # The rough line was off the bar's own: measure again along the bar's line.
        a, b, width = result.a, result.b, max(result.width, 3.0)
        length = result.length
        pads = [max(10.0, width + 4.0, 0.25 * length)] * 2
    return None


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.arccos(np.clip(abs(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v)), 0, 1)))


def _measure(
    image: np.ndarray, a: np.ndarray, b: np.ndarray, width: float, bridges: list[Bridge], pads: list[float]
) -> Profile | set[int] | None:
    """One strip's measurement, or the sides (0 before `a`, 1 after `b`) where the bar reached its end."""
    length = float(np.linalg.norm(b - a))
    d = (b - a) / length
    n = np.array([-d[1], d[0]])
    reach = max(3.0, width / 2 + 3.0)  # how far off the rough line the bar's middle may be
    half = reach + max(3.0, width / 2) + 3.0
    us = np.arange(-pads[0], length + pads[1], 1.0, dtype=np.float32)
    vs = np.arange(-half, half + 0.5, 1.0, dtype=np.float32)
    strip = _strip(image, a, d, us, vs)  # (v, u, colour)
    # The table on either flank, a running median along the bar so that a stick touching it briefly does not
    # count; the bar stands out of both flanks.
    window = max(15, 2 * round(2 * width) + 1)
    bg_l = _running_median(strip[:2].mean(axis=0), window)
    bg_r = _running_median(strip[-2:].mean(axis=0), window)
    dist = np.sqrt(np.minimum(_squared_distance(strip, bg_l), _squared_distance(strip, bg_r)))
    dist = cv2.GaussianBlur(dist, (3, 3), 0)
    central = np.abs(vs) <= reach
    peak = dist[central].max(axis=0)
    inner = (us >= 0.1 * length) & (us <= 0.9 * length)
    typical = float(np.median(peak[inner]))
    grain = float(np.median(_colour_distance(strip[0], strip[1]) + _colour_distance(strip[-1], strip[-2])))
    floor = max(MIN_CONTRAST, 2.0 * grain)
    if typical < floor:
        return None
    above = np.where(central[:, None], np.maximum(dist - 0.5 * peak, 0), 0)
    centre = (above * vs[:, None]).sum(axis=0) / np.maximum(above.sum(axis=0), 1e-9)
    widths = (dist >= 0.5 * peak).sum(axis=0, where=central[:, None]).astype(np.float32)
    bridged = np.zeros(len(us), bool)
    for point, reach_px in bridges:
        at = float((point - a) @ d)
        bridged |= (us >= at - reach_px - 1) & (us <= at + reach_px + 1)
    # Present: at least half the contrast of the stick around it, and clearly above the table's own grain,
    # so that a dark stick laid on from a bright one counts.
    level = _running_median(peak[:, None], max(15, 4 * round(width) + 1))[:, 0]
    presence = peak / (2 * np.maximum(floor, 0.5 * level))
    presence = np.where(bridged, np.maximum(presence, 1.0), presence)

    # The ends: walking out from inside the rough ends to where the contrast falls below half that of the
    # stretch just walked, so that a shadow or blur past a bright stick's end does not count.
    run = max(2, round(width / 4))
    # Across another stick (at a corner) the bar seems to widen to the whole strip: that is past its end too.
    typical_width = float(np.median(widths[inner]))
    wide = widths > max(2.2 * typical_width, typical_width + 4)
    across = round(3 * typical_width + 6)
    start_u = _walk(us, peak, wide, bridged, floor, int(np.searchsorted(us, 0.12 * length)), -1, run, across)
    end_u = _walk(us, peak, wide, bridged, floor, int(np.searchsorted(us, 0.88 * length)), 1, run, across)
    if start_u is None or end_u is None:
        return {side for side, u in enumerate((start_u, end_u)) if u is None}
    keep = (us >= start_u) & (us <= end_u)
    ok = keep & (presence >= 0.6) & ~bridged
    slope, shift = np.polyfit(us[ok], centre[ok], 1) if ok.sum() >= 4 else (0.0, 0.0)
    ends = np.array([a + d * u + n * (shift + slope * u) for u in (start_u, end_u)])
    h, w = image.shape[:2]
    if not ((ends >= BORDER) & (ends <= np.array([w, h]) - 1 - BORDER)).all():
        return None  # cut by the picture's edge: its far end cannot be read
    typical = float(np.median(peak[keep]))
    bar_width = float(np.median(widths[keep]))
    column = np.clip(np.round(centre + half).astype(np.int32), 1, len(vs) - 2)
    cols = np.arange(len(us))
    middle = (strip[column - 1, cols] + strip[column, cols] + strip[column + 1, cols]) / 3
    offsets = centre[keep] - (shift + slope * us[keep])
    seam = _seam_evidence(peak[keep], middle[keep], centre[keep], typical, bar_width)
    seam[bridged[keep]] = 0.0
    return Profile(
        a=ends[0],
        b=ends[1],
        width=bar_width,
        contrast=typical,
        coverage=float(np.mean(presence[keep] >= 0.5)),
        seam=seam,
        offsets=offsets,
        grain=floor,
        continuation=_continuation(peak, middle, bridged, keep, typical, bar_width),
        wobble=float(np.std(offsets)),
        width_spread=float(np.std(widths[keep]) / max(bar_width, 1.0)),
    )


def _walk(
    us: np.ndarray,
    peak: np.ndarray,
    wide: np.ndarray,
    bridged: np.ndarray,
    floor: float,
    start: int,
    step: int,
    run: int,
    across: int,
) -> float | None:
    """From index `start` by `step`: where the contrast falls below half that of the stretch just walked (and
    below `floor`) for `run` pixels in a row; sub-pixel where it crosses. A `wide` stretch (another stick
    across the line) is walked through only if the bar goes on beyond it within `across` pixels: at a corner
    the bar ends where the other stick begins. None if the strip ends first."""
    recent = deque([float(peak[start])], maxlen=24)  # the contrast of the stretch just walked
    last, low, through, i = start, 0, 0, start
    while 0 <= i < len(us):
        limit = max(floor, 0.5 * sum(recent) / len(recent))
        if bridged[i]:
            last, low, through = i, 0, 0
        elif peak[i] >= limit and wide[i]:
            through += 1
            if through > across:
                break
        elif peak[i] >= limit:
            last, low, through = i, 0, 0
            recent.append(float(peak[i]))
        else:
            low += 1
            if low >= run:
                break
        i += step
    j = last + step
    if not 0 <= j < len(us) or (low < run and through <= across):
        return None
    if wide[j] or bridged[last]:
        return float(us[last]) + 0.5 * step
    limit = max(floor, 0.5 * sum(recent) / len(recent))
    t = (peak[last] - limit) / max(peak[last] - peak[j], 1e-6)
    return float(us[last] + step * np.clip(t, 0, 1))


def _continuation(
    peak: np.ndarray, middle: np.ndarray, bridged: np.ndarray, keep: np.ndarray, typical: float, width: float
) -> float:
    """Share of the line just past the bar's ends (the more of the two) that goes on in the bar's colour."""
    colour = np.median(middle[keep], axis=0)
    same = (peak >= 0.5 * typical) & (_colour_distance(middle, colour) <= 0.5 * typical) & ~bridged
    inside = np.nonzero(keep)[0]
    gap, span = max(3, round(width)), max(8, round(2 * width))
    before = same[max(0, inside[0] - gap - span) : max(0, inside[0] - gap)]
    after = same[inside[-1] + gap + 1 : inside[-1] + gap + 1 + span]
    return max((float(side.mean()) for side in (before, after) if len(side)), default=1.0)


def _seam_evidence(
    peak: np.ndarray, middle: np.ndarray, centre: np.ndarray, typical: float, width: float
) -> np.ndarray:
    """Per pixel, 0..1: a dip in contrast, a step in colour or a sideways jump, as where two sticks meet."""
    n = len(peak)
    if n == 0:
        return np.zeros(0, np.float32)
    level = _running_median(peak[:, None], max(15, 4 * round(width) + 1))[:, 0]
    dip = np.clip(1.0 - _box(peak, 3) / np.maximum(level, 1e-6), 0, 1)
    k = max(3, round(width / 2))
    mean = _box(np.column_stack([middle, centre]), k)
    before = np.roll(mean, (k + 1) // 2, axis=0)
    after = np.roll(mean, -((k + 1) // 2), axis=0)
    step = _colour_distance(after[:, :3], before[:, :3]) / typical
    jump = np.abs(after[:, 3] - before[:, 3]) / max(width, 2.0)
    edge = np.zeros(n, bool)
    edge[: min(n, k)] = True
    edge[max(0, n - k) :] = True
    evidence = np.maximum(dip, np.maximum(0.6 * step, jump))
    evidence[edge] = dip[edge]
    return np.clip(evidence, 0, 1)


def seam_candidates(profile: Profile) -> list[tuple[float, float]]:
    """Local maxima of the seam evidence as (position in px from `a`, strength), strongest first, and the
    junctions with other bars: on a lattice, sticks meet where others cross or end."""
    seam = profile.seam.copy()
    for u in profile.junctions:
        i = round(u)
        if 0 <= i < len(seam):
            seam[i] = max(seam[i], JUNCTION_SEAM)
    spacing = max(4, round(profile.width))
    found = []
    order = np.argsort(-seam)
    taken = np.zeros(len(seam), bool)
    for i in order:
        if seam[i] < 0.2:
            break
        if taken[max(0, i - spacing) : i + spacing + 1].any():
            continue
        taken[i] = True
        found.append((float(i), float(seam[i])))
    return found
