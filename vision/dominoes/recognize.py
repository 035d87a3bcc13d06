"""Dominoes on the table: locate tile centres, read each proposal's pips, keep one reading per tile."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from vision.corners import CornerRefiner
from vision.deblur import MotionBlur, clear_streak, deblurred, motion_blur
from vision.dominoes.above import MIN_TILES, STEEP, view_from_above, view_of_unread
from vision.dominoes.blanks import true_faces
from vision.dominoes.corners import tile_corners
from vision.dominoes.detection import Domino, Half
from vision.dominoes.locate import BLURRED_MODEL_PATH as BLURRED_LOCATE_PATH
from vision.dominoes.locate import INPUT_SIZE, TileLocator, decode, heat_at, whole_frame
from vision.dominoes.locate import MODEL_PATH as LOCATE_PATH
from vision.dominoes.pips import BLURRED_MODEL_PATH as BLURRED_PIPS_PATH
from vision.dominoes.pips import PipReader
from vision.dominoes.selection import (
    MIN_CONFIDENCE,
    Candidate,
    apart,
    clash_pairs,
    clashing,
    select_tiles,
    unclaimed,
)
from vision.dominoes.tile import TileFrame, crop_tiles, on_table
from vision.geometry import (
    HALF_TURN,
    landscape,
    mirrored,
    mirrored_points,
    point_in_quad,
    points_in_quads,
    rectangle_tilt,
    tilts_kept,
    to_plane,
    turned,
    warped,
)
from vision.locator import closer_window, nearest_window, reading_scale, scaled_canvas, zoom_windows
from vision.onnx_session import quantized
from vision.sharpen import FocusGauge
from vision.working_size import outlines_to_working, to_picture, working_copy

SPAWN_FROM = 0.8  # a tile read at least this surely lends its structure to its neighbours
SPAWN_HEAT = 0.03  # and a neighbour is read only where the locator's heatmap is above this
# An unsure reading is often a real tile under a frame a little off (steep views, busy cloths): of 77 such
# tiles on the evaluation seeds, the reader is sure of 58 given the true frame. Readings at least REFINE_FROM
# sure, where the heatmap has at least REFINE_HEAT, are refined by a greedy search over nudged frames
# (REFINE_ROUNDS rounds of shrinking steps). The best frame is kept only if its reading holds under the last
# round's nudges: their mean confidence in the same pips becomes its confidence, and must reach REFINED_MIN.
# One lucky crop in thirty is not enough. Set on the tuning seeds: of the refined readings kept there, 41
# right and 1 misread at 0.88; 47 and 3 at 0.8; the heat gate 0.2 read more than 0.3 or 0.4, with fewer false.
REFINE_FROM = 0.2
REFINE_HEAT = 0.2
REFINED_MIN = 0.88
SURE_ENOUGH = 0.95  # a frame read this surely ends its search early (no loss on the tuning seeds)
# Frames searched per picture, surest first, and rounds per frame: each round reads 10 nudged crops and the
# check 10 more (about 1 ms each), and the search was most of the 28-tile sample's time. Since the tile-corner
# network fits doubted frames first (FIT_ROUNDS), a longer search reads few more tiles. Over four 200-scene
# sets (evaluation, tuning and two fresh ones, 15,942 tiles), with the 8-bit locator: 3 frames of 3 rounds
# read 15,344 right (200 false), 2 of 2 15,335 (200), 1 of 2 15,330 (197), 2 of 1 15,324 (192); the sample
# takes 47, 38, 36.7 and 35.9 ms on a quiet core, and a busy one adds a tenth (models/dominoes.md,
# forty-sixth session). One round no longer reaches frames a fifth too long or short
# (test_refining_reads_tiles_whose_frames_are_off): real frames may be off further than rendered ones.
REFINE_ROUNDS = 2
REFINE_LIMIT = 1
# Before that search, every unsure reading where the heatmap has at least REFINE_HEAT is read again on the frame
# the tile-corner network (vision.corners) fits to the tile's own corners: the proposal's centre is often right
# where its axes are 10-20 % off, and the reader is sure only of a frame close to the tile's. One round of the
# network read more than two (models/dominoes.md).
FIT_ROUNDS = 1
# A reading at least this sure but under MIN_CONFIDENCE is read again by the reader trained on blurred crops,
# and the surer reading kept. On the tuning seeds: 753 -> 762 tiles read right, false detections 3 -> 3.
SECOND_READ_FROM = 0.2
# A frame whose proposals are read in doubt (SECOND_READ_FROM to MIN_CONFIDENCE) at least this often, and as
# often as surely, is looked at again by the locator trained on blurred frames; the tiles found there that
# clash with none already read are added. On the tuning seeds it fires on 4 of 40 scenes, all blurred ones:
# 762 -> 766 tiles read right, false detections 3 -> 3. At half as often as surely: 766, 3, on 6 scenes.
BLURRED_LOOK_FROM = 4
# Where the locator proposed at least CLOSER_FROM tiles with heat CLOSER_HEAT or more that no tile read
# explains, the part of the frame that holds them is looked at again closer (vision.locator.closer_window):
# small tiles on a busy cloth are proposed with the wrong size, or not at all, at the frame's scale.
# Tiles the closer look reads count at CLOSER_MIN or surer: its second chance at many crops finds lucky false
# tiles too. Of what it added on the evaluation, tuning and blurred evaluation seeds at MIN_CONFIDENCE (when
# it still read the tiles already read again), 15 right and 1 misread from 0.9 up, 19 right and 12 false or
# misread under it.
CLOSER_HEAT = 0.3
CLOSER_FROM = 2
CLOSER_MIN = 0.9
# The closer look reads only the part of its window round the proposals it is taken for, this many of their
# longest tile lengths (at least CLOSER_REACH_PX) beyond them, at the window's scale: the locator costs as much
# as the pixels it reads.
CLOSER_REACH = 2.5
CLOSER_REACH_PX = 48
# The view of what a steep view leaves unread (vision.dominoes.above.view_of_unread) is a second chance too; its
# tiles count from here (from 0.8 it added a false tile on a blurred frame; from 0.9 it lost most far tiles).
UNREAD_MIN = 0.85
# A sure reading's frame can run on past its tile into a touching tile read too, most often a pi's leg into its
# back: the pips are read right, but the frame is a fifth to two fifths too long, its far half off the tile's,
# so the tile is missed and a false one reported (16 of 39 false detections over 200 tuning scenes). A frame
# with one end outside and more than RUN_ON of its axis inside another reading's outline is cut back to that
# outline (`TileFrame.cut_at`) and read again there; the cut frame stands where it reads the same pips at least
# MIN_CONFIDENCE sure (models/dominoes.md, sixty-first session). Readings that touch end to end run 0-0.03 into
# each other. Fitting the cut frames by the tile-corner network too read as many tiles and grouped 3 pis more
# over 200 tuning scenes, but cost the 28-tile sample 4 ms where cutting costs under 1.
RUN_ON = 0.15
# Every tile of a set has one size, and on the table plane the tiles read surely show it (`on_table`). A sure
# reading's frame can still be off in length, run on past its tile's end into a touching tile or cut short, its
# halves then off the tile's: a tile missed and a false one reported. A sure frame more than SIZE_OFF longer or
# shorter than that size (where SIZED_FROM or more tiles are read surely) is read again on frames of that size
# along its own axis, about its centre and from either end; the surest of them that claims no half of another
# sure reading replaces it where it reads the same pips more surely. Not in a steep view (`STEEP`), whose tiles
# are sized in its view from above: there one cell fits only roughly, and the steep marble frame 50000003 lost 4
# tiles. Over four 200-scene sets 25 tiles more, 2 false detections fewer (models/dominoes.md, sixty-second
# session). Adding sized frames of unsure readings as refined ones read no more tiles for more false detections.
SIZE_OFF = 0.1
SIZED_FROM = 3
# Degrees from straight down, far side at the top: a view tilted so is read turned half round (`_far_side_up`).
FAR_SIDE_UP = 20.0
FAR_SIDE_FROM = 3  # tiles read, to tell the tilt by
# Where tiles read are under ZOOM_BELOW input px long (a 1280x720 frame is read at half size: 64 px), the frame
# is read ZOOM times closer as well (`_zoomed`). The networks learnt tiles 30-70 input px long (none under 22), and
# a whole table seen from afar shows them smaller: `tableref evaluate dominoes --far` (tiles 36-56 px long) read
# 409 of 815 tiles right without this look, 39 false; 608 with it, 10 false. Half the usual scenes have such
# tiles somewhere: over 200 of them 3826 -> 3850 right, 21 -> 26 false. Every window of every frame read (with
# the windows' readings first) gave 757 of the usual 798, against 753 without and 758 as read here, for four
# times the time (models/dominoes.md, seventieth session).
ZOOM = 2
ZOOM_BELOW = 32.0


# A frame (image px) -> the locator's input canvas and its input px per image px.
CanvasOf = Callable[[np.ndarray], tuple[np.ndarray, float]]


def _unexplained(proposals: list[tuple[float, TileFrame]], kept: list[Candidate]) -> list[tuple[float, TileFrame]]:
    """The proposals (heat, frame) of CLOSER_HEAT or more that clash with no tile `kept`."""
    hot = [(heat, frame) for heat, frame in proposals if heat >= CLOSER_HEAT]
    clash = clashing([frame for _, frame in hot], [c.frame for c in kept])
    return [(heat, frame) for (heat, frame), c in zip(hot, clash, strict=True) if not c]


def _closer_region(
    window: tuple[int, int, int, int], unexplained: list[tuple[float, TileFrame]]
) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1 of the part of the closer look's `window` (x, y, width, height) that the `unexplained`
    proposals (heat, frame) in it need: CLOSER_REACH of their longest tile length round them."""
    x0, y0, w, h = window
    lo, hi = np.array([x0, y0]), np.array([x0 + w, y0 + h])
    centres = np.array([frame.center for _, frame in unexplained])
    held = np.all((centres >= lo) & (centres < hi), axis=1)
    if not held.any():  # the window was centred again on what it held; rounding can leave it holding none
        return x0, y0, x0 + w, y0 + h
    lengths = np.array([2 * np.linalg.norm(frame.u) for _, frame in unexplained])
    reach = max(CLOSER_REACH * float(lengths[held].max()), CLOSER_REACH_PX)
    first = np.maximum(lo, np.floor(centres[held].min(axis=0) - reach)).astype(int)
    last = np.minimum(hi, np.ceil(centres[held].max(axis=0) + reach)).astype(int)
    return int(first[0]), int(first[1]), int(last[0]), int(last[1])


# Where neighbours() puts a touching tile's centre, (a, b) in the tile's own axes: end to end or side by side,
# then across it.
_END_OR_SIDE = np.array([(2, 0), (-2, 0), (0, 2), (0, -2)], np.float64)
_ACROSS = np.array(
    [(0.5, 3), (0.5, -3), (-0.5, 3), (-0.5, -3), (1.5, 0), (-1.5, 0), (1.5, 1), (1.5, -1), (-1.5, 1), (-1.5, -1)],
    np.float64,
)
_NEIGHBOUR_STEPS = np.concatenate([_END_OR_SIDE, _ACROSS])


def neighbours(frame: TileFrame) -> list[TileFrame]:
    """Where a tile touching this one would lie: end to end, side by side, and across it as a pi's leg
    hangs from its back or a double crosses a line, in the tile's own axes (u, v)."""
    u, v = frame.u, frame.v
    centers = frame.center + _NEIGHBOUR_STEPS[:, :1] * u + _NEIGHBOUR_STEPS[:, 1:] * v
    across_u, across_v = 2 * v, u / 2
    return [TileFrame(c, u, v) for c in centers[: len(_END_OR_SIDE)]] + [
        TileFrame(c, across_u, across_v) for c in centers[len(_END_OR_SIDE) :]
    ]


def _worth_refining(candidates: list[Candidate], maps: np.ndarray, scale: float) -> list[int]:
    """The indices of the unsure readings (REFINE_FROM to MIN_CONFIDENCE) where the heatmap has REFINE_HEAT or
    more: those a better frame may turn into tiles."""
    if not candidates:
        return []
    heat = heat_at(maps, np.array([c.frame.center for c in candidates]) * scale)
    return [
        i for i, c in enumerate(candidates) if REFINE_FROM <= c.confidence < MIN_CONFIDENCE and heat[i] >= REFINE_HEAT
    ]


def _cut_back(candidates: list[Candidate], kept: list[Candidate], maps: np.ndarray, scale: float) -> list[TileFrame]:
    """The frames of unsure readings (as refinement picks them) with one end inside a tile `kept`, cut back
    to its edge (`TileFrame.cut_at`): where tiles touch, the locator can run a tile's frame on into its
    neighbour, as a pi's leg into the back it meets."""
    if not kept:
        return []
    unsure = [candidates[i].frame for i in _worth_refining(candidates, maps, scale)]
    if not unsure:
        return []
    outlines = [c.frame.corners() for c in kept]
    ends = np.array([[f.center - f.u, f.center + f.u] for f in unsure]).reshape(-1, 2)
    inside = points_in_quads(ends, outlines).reshape(len(unsure), 2, len(outlines))  # [frame, end, tile]
    out = []
    for frame, (first, second) in zip(unsure, inside, strict=True):
        if first.any() == second.any():
            continue  # neither end ran into a tile, or both did: there is no end to keep
        cut: TileFrame | None = frame
        for j in np.flatnonzero(first | second):
            cut = cut.cut_at(outlines[j]) if cut is not None else None
        if cut is not None:
            out.append(cut)
    return out


def _on_none(ignore: Sequence[np.ndarray], point: np.ndarray) -> bool:
    return not any(point_in_quad(point, quad) for quad in ignore)


def off(ignore: Sequence[np.ndarray], frames: list[TileFrame]) -> list[TileFrame]:
    """The frames whose centre lies on none of the `ignore` outlines."""
    return [f for f in frames if _on_none(ignore, f.center)]


def _doubted(reading: Candidate) -> bool:
    """Read with some confidence, but not enough to count as a tile."""
    return SECOND_READ_FROM <= reading.confidence < MIN_CONFIDENCE


def _readings(frames: list[TileFrame], first: np.ndarray, second: np.ndarray, tile: np.ndarray) -> list[Candidate]:
    """A reader's output on `frames` as readings: each half's likeliest count, and as confidence the tile
    probability times the less sure half's."""
    return [
        Candidate(f, (int(a.argmax()), int(b.argmax())), float(t * min(a.max(), b.max())))
        for f, a, b, t in zip(frames, first, second, tile, strict=True)
    ]


def run_on(frames: list[TileFrame]) -> tuple[np.ndarray, np.ndarray]:
    """Per frame: the largest share of its axis (end to end) that lies inside another frame's outline while one
    of its ends lies outside it, and that frame's index (-1 where none). Worked out in the other frame's own
    axes, where its outline is the square |a|, |b| <= 1 and the axis a line a0 + t d, t in [-1, 1]."""
    n = len(frames)
    if n < 2:
        return np.zeros(n), np.full(n, -1)
    centres = np.array([f.center for f in frames], np.float64)
    axes = np.array([f.u for f in frames], np.float64)
    bases = np.array([np.column_stack([f.u, f.v]) for f in frames], np.float64)
    flat = np.abs(np.linalg.det(bases)) < 1e-6
    bases[flat] = np.eye(2)
    inverse = np.linalg.inv(bases)  # [other]
    start = np.einsum("jab,ijb->ija", inverse, centres[:, None] - centres[None])  # [frame, other, axis]
    step = np.einsum("jab,ib->ija", inverse, axes)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first, second = (-1 - start) / step, (1 - start) / step
    still = np.abs(step) < 1e-12  # the axis runs parallel to one of the other's: in it throughout or never
    low = np.where(still, np.where(np.abs(start) <= 1, -np.inf, np.inf), np.minimum(first, second))
    high = np.where(still, np.where(np.abs(start) <= 1, np.inf, -np.inf), np.maximum(first, second))
    low, high = np.maximum(low.max(axis=2), -1.0), np.minimum(high.min(axis=2), 1.0)
    ends_in = (np.abs(start - step) <= 1).all(axis=2) != (np.abs(start + step) <= 1).all(axis=2)
    share = np.where(ends_in, np.clip(high - low, 0.0, None) / 2, 0.0)
    share[:, flat] = 0.0
    np.fill_diagonal(share, 0.0)
    into = share.argmax(axis=1)
    most = share[np.arange(n), into]
    return most, np.where(most > 0, into, -1)


def sized_frames(frames: list[TileFrame], size: tuple[int, int], off_by: float = 0.0) -> dict[int, list[TileFrame]]:
    """The frames (of a picture of `size`) at least `off_by` longer or shorter than the size they share on the
    table plane (`on_table`), by index, each with three frames of that size along its own axis: about its
    centre, from its first end and from its second. Empty for fewer than SIZED_FROM frames (too few to tell the
    size) or a view of STEEP tilt or more."""
    if len(frames) < SIZED_FROM:
        return {}
    tilt, plane, seen, cell = on_table(np.array([f.corners() for f in frames], np.float64), size)
    if abs(tilt) >= STEEP:  # one cell fits a steep view's tiles only roughly: they are sized in its view from above
        return {}
    back = np.linalg.inv(plane)
    out = {}
    for k, f in enumerate(seen):
        length = float(np.linalg.norm(f.u))
        if abs(np.log(length / cell)) < np.log(1 + off_by):
            continue
        along, across = f.u / length, f.v / np.linalg.norm(f.v)
        centres = (f.center, f.center - f.u + cell * along, f.center + f.u - cell * along)
        corners = np.array([TileFrame(c, cell * along, cell / 2 * across).corners() for c in centres], np.float64)
        out[k] = [TileFrame.from_corners(q) for q in to_plane(back, corners)]
    return out


def _in_frame(candidates: list[Candidate], size: tuple[int, int]) -> list[Candidate]:
    """The candidates whose halves' centres lie in a frame of `size` (width, height). Beyond its edge a look
    sees a canvas's padding or a warped view's smeared border, never a half's pips: steep views read such
    smears as blank tiles."""
    w, h = size
    return [c for c in candidates if all(0 <= x < w and 0 <= y < h for x, y in c.frame.halves().tolist())]


def _far_side_up(kept: list[Candidate], size: tuple[int, int]) -> bool:
    """Whether the tiles read tell a view tilted FAR_SIDE_UP or more with the table's far side at the top of
    the picture, as a webcam at the table's edge sees it: the networks learnt from renders with the far side
    at the foot, and read such a view better turned half round."""
    if len(kept) < FAR_SIDE_FROM:
        return False
    return rectangle_tilt(np.array([c.frame.corners() for c in kept], np.float64), size, 2.0)[0] <= -FAR_SIDE_UP


def to_domino(cand: Candidate) -> Domino:
    centers = cand.frame.halves()
    halves = (Half(centers[0], cand.pips[0]), Half(centers[1], cand.pips[1]))
    return Domino(cand.frame.corners(), halves, cand.confidence)


class DominoRecognizer:
    """Frames in, dominoes out. Holds the networks (the locator, the pip reader, their copies trained on
    blurred frames, and the tile-corner network that fits doubted frames); build one and reuse it.

    Two passes: the locator's proposals are read and the readings kept one per half; then, round every
    tile read with confidence, the places where a touching tile would lie (end to end, side by side, across
    as in a pi) are read too wherever the locator saw any sign of a centre. A tile in a group that the
    locator under-rated is found from its neighbours' structure. A steep view is read again from above, and
    a frame read mostly in doubt again with the blurred locator.
    """

    def __init__(
        self,
        locator: TileLocator | None = None,
        reader: PipReader | None = None,
        threads: int = 1,
        blurred_reader: PipReader | None = None,
        blurred_locator: TileLocator | None = None,
        focus: FocusGauge | None = None,
        corners: CornerRefiner | None = None,
    ) -> None:
        self.locator = locator or TileLocator(quantized(LOCATE_PATH), threads=threads)
        self.corners = corners or tile_corners(threads)
        self.reader = reader or PipReader(threads=threads)
        self.blurred_reader = blurred_reader or PipReader(quantized(BLURRED_PIPS_PATH), threads=threads)
        self.blurred_locator = blurred_locator or TileLocator(BLURRED_LOCATE_PATH, threads=threads)
        self.focus = focus or FocusGauge()

    def __call__(self, image: np.ndarray, ignore: Sequence[np.ndarray] = ()) -> list[Domino]:
        return self.timed(image, ignore)[0]

    def timed(self, image: np.ndarray, ignore: Sequence[np.ndarray] = ()) -> tuple[list[Domino], dict[str, float]]:
        """The dominoes and each stage's milliseconds (keys prefixed `dominoes_`, apart from other readers').

        `ignore` holds outlines (image px) of other things read on the table, such as cards: a tile whose
        centre lies on one of them is not a tile. A soft frame is read sharpened (`vision.sharpen`), and a picture
        larger than the working size at it (vision/working_size.py).
        """
        image, factor = working_copy(image)
        ignore = outlines_to_working(ignore, factor)
        # The tiles' tilt is asked for again where a look adds no tile (`tilts_kept`).
        with tilts_kept():
            kept, timing = self._upright(image, ignore)
            t0 = time.perf_counter()
            size = image.shape[1::-1]
            turn = _far_side_up(kept, size)
            if not turn:
                zoomed = self._zoomed(image, ignore, kept)
                # Tiles too small for the first look to tell the tilt by can tell it, read from closer.
                turn = len(zoomed) > len(kept) and _far_side_up(zoomed, size)
                kept = zoomed
            t1 = time.perf_counter()
            if turn:
                kept = self._half_round(image, ignore)
        timing["dominoes_zoomed_ms"] = (t1 - t0) * 1000
        timing["dominoes_turned_ms"] = (time.perf_counter() - t1) * 1000
        if factor > 1:
            kept = [replace(c, frame=TileFrame.from_corners(to_picture(c.frame.corners(), factor))) for c in kept]
        return [to_domino(c) for c in kept], timing

    def _upright(self, image: np.ndarray, ignore: Sequence[np.ndarray]) -> tuple[list[Candidate], dict[str, float]]:
        """The tiles read as the picture stands, and each stage's milliseconds."""
        t0 = time.perf_counter()
        image = np.ascontiguousarray(self.focus.sharpened_if_soft(image))
        sharpen_ms = (time.perf_counter() - t0) * 1000
        # The locator's input is landscape: a portrait frame is read turned a quarter, so its tiles keep
        # the size they would have in a landscape frame of the same resolution.
        image, portrait_height = landscape(image)
        if portrait_height is not None:
            ignore = [turned(quad, portrait_height) for quad in ignore]
        canvas = whole_frame(image)  # made once for its looks and `_drawn_in`
        kept, timing, proposals, blur = self._looks(image, ignore, lambda f: canvas if f is image else whole_frame(f))
        timing = {"dominoes_sharpen_ms": sharpen_ms, **timing}
        t0 = time.perf_counter()
        kept = self._drawn_in(image, *canvas, kept)
        timing["dominoes_run_on_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        kept = apart(kept + self._closer(image, ignore, proposals, kept, blur))
        timing["dominoes_closer_ms"] = (time.perf_counter() - t0) * 1000
        kept = true_faces(image, kept)
        if portrait_height is not None:
            kept = [replace(c, frame=c.frame.turned_back(portrait_height)) for c in kept]
        return kept, timing

    def _half_round(self, image: np.ndarray, ignore: Sequence[np.ndarray]) -> list[Candidate]:
        """The tiles read (with the look from closer) on the picture turned half round, in the picture's px."""
        size = image.shape[1::-1]
        image, ignore = mirrored(image, HALF_TURN), [mirrored_points(quad, size, HALF_TURN) for quad in ignore]
        kept = self._zoomed(image, ignore, self._upright(image, ignore)[0])
        return [replace(c, frame=c.frame.half_turned(size)) for c in kept]

    def _zoomed(self, image: np.ndarray, ignore: Sequence[np.ndarray], kept: list[Candidate]) -> list[Candidate]:
        """`kept` with the tiles a look ZOOM times closer reads where they are small. The frame is cut into
        overlapping windows (`zoom_windows`): all of them where most of the tiles `kept` are under ZOOM_BELOW
        input px long, else each nearest such a tile. Each is read whole, keeping the tiles nearer its centre
        than any other window's (so that they lie whole in it). Of two readings there and in `kept` that claim a
        half of each other, the surer stands (`select_tiles`: one as proposed before one refined): over 200
        scenes of 50000000.. that read 10 tiles more and 6 false detections fewer than taking the closer look's
        readings first."""
        if not kept:
            return kept
        size = image.shape[1::-1]
        scale = reading_scale(max(size), min(size), INPUT_SIZE)  # a portrait frame is read turned a quarter
        lengths = 2 * np.linalg.norm([c.frame.u for c in kept], axis=1) * scale
        small = lengths < ZOOM_BELOW
        if not small.any():
            return kept
        windows = zoom_windows(size, ZOOM)
        wanted = range(len(windows))
        if np.median(lengths) >= ZOOM_BELOW:
            wanted = sorted(set(nearest_window(np.array([c.frame.center for c in kept])[small], windows).tolist()))
        seen: list[Candidate] = []
        for i in wanted:
            x0, y0, x1, y1 = windows[i]
            offset = np.array([x0, y0], np.float64)
            inside = self._upright(np.ascontiguousarray(image[y0:y1, x0:x1]), [q - offset for q in ignore])[0]
            moved = [replace(c, frame=c.frame.shifted(offset)) for c in inside]
            if moved:
                owners = nearest_window(np.array([c.frame.center for c in moved]), windows)
                seen += [c for c, owner in zip(moved, owners, strict=True) if owner == i]
        return select_tiles(seen + kept)

    def _looks(
        self,
        image: np.ndarray,
        ignore: Sequence[np.ndarray],
        canvas_of: CanvasOf = whole_frame,
        streak: Callable[[np.ndarray], MotionBlur | None] = motion_blur,
    ) -> tuple[list[Candidate], dict[str, float], list[tuple[float, TileFrame]], MotionBlur | None]:
        """A landscape frame read with the locator and, where that look is mostly in doubt, again with the
        camera's motion blur the `streak` finds taken out (vision/deblur.py) and with the blurred locator, each
        on the canvases `canvas_of` makes: the tiles, each stage's milliseconds, the first locator's proposals
        (heat, frame), and the blur taken out, if any."""
        kept, timing, in_doubt, proposals = self._read(image, ignore, self.locator, canvas_of)
        t0 = time.perf_counter()
        blur = streak(image) if in_doubt else None
        if blur is not None:
            # Blurred frames are read mostly in doubt. A moving camera's streak, taken out, gives back the pips
            # (models/dominoes.md: 604 -> 656 of 798 tiles in frames streaked 11 px): the tiles read on the
            # restored frame come first, then those of the first look that clash with none of them.
            sharp = self._read(deblurred(image, blur), ignore, self.locator, canvas_of)[0]
            kept = sharp + unclaimed(kept, sharp)
        t1 = time.perf_counter()
        if in_doubt:
            # Then the locator trained on blurred frames looks, and what it reads that clashes with nothing read
            # is added (the tiles already read stay, as the surer ones elsewhere).
            kept = kept + unclaimed(self._read(image, ignore, self.blurred_locator, canvas_of)[0], kept)
        timing["dominoes_deblurred_ms"] = (t1 - t0) * 1000
        timing["dominoes_blurred_ms"] = (time.perf_counter() - t1) * 1000
        return kept, timing, proposals, blur

    def _closer(
        self,
        image: np.ndarray,
        ignore: Sequence[np.ndarray],
        proposals: list[tuple[float, TileFrame]],
        kept: list[Candidate],
        blur: MotionBlur | None = None,
    ) -> list[Candidate]:
        """The tiles a closer look finds that clash with none `kept`, where the locator's `proposals` (heat,
        frame) hold CLOSER_FROM or more that no tile read explains: small tiles on a busy cloth, proposed at the
        frame's scale with the wrong size or not at all. The look is restored from the frame's motion `blur`."""
        unexplained = _unexplained(proposals, kept)
        if len(unexplained) < CLOSER_FROM:
            return []
        centres = np.array([frame.center for _, frame in unexplained])
        window = closer_window(centres, np.array([heat for heat, _ in unexplained]), image.shape[1::-1])
        if window is None:
            return []
        x0, y0, x1, y1 = _closer_region(window, unexplained)
        zoom = reading_scale(window[2], window[3], INPUT_SIZE)
        offset = np.array([x0, y0], np.float64)
        # The tiles read are ignored there as cards are: the look reads only what they leave unexplained. Its
        # part of the frame, read in doubt, is restored from the `blur` the whole frame was, or else from a streak
        # it shows clearly: a part read in doubt in a frame read surely is as often cards or a busy cloth
        # (restored from any streak, the 12-card sample took 175 ms, not 65).
        known = [*ignore, *(c.frame.corners() for c in kept)]
        seen, _, _, _ = self._looks(
            np.ascontiguousarray(image[y0:y1, x0:x1]),
            [np.asarray(q) - offset for q in known],
            lambda frame: (scaled_canvas(frame, zoom), zoom),
            (lambda _: blur) if blur is not None else clear_streak,
        )
        seen = [replace(c, frame=c.frame.shifted(offset)) for c in seen if c.confidence >= CLOSER_MIN]
        return unclaimed(seen, kept)

    def _read(
        self, image: np.ndarray, ignore: Sequence[np.ndarray], locator: TileLocator, canvas_of: CanvasOf
    ) -> tuple[list[Candidate], dict[str, float], bool, list[tuple[float, TileFrame]]]:
        """A landscape frame read with `locator`: its look, and a steep view's second look from above (and a
        third at what the second leaves unread, `view_of_unread`), whose tiles are then settled on fitted frames
        (`_settled`). The tilt is told by the tiles the look reads, or by its surer proposals where it reads too
        few. The tiles read, each stage's milliseconds, whether the look's proposals were read mostly
        in doubt, and the locator's proposals on the frame (heat, frame in its pixels)."""
        kept, timing, in_doubt, proposals = self._look(image, ignore, locator, canvas_of)
        t1 = time.perf_counter()
        size = image.shape[1::-1]
        kept = _in_frame(kept, size)
        outlines = [c.frame.corners() for c in kept]
        if len(outlines) < MIN_TILES:
            # Too few tiles read to tell the tilt, as where a steep view squashes most past reading: the locator's
            # surer proposals tell it, and the view is drawn round them. Over four 200-scene sets (50000000..,
            # 51000000.., 95000000.., 96000000..) 15 tiles more (all in steep scenes of the last three), no
            # more false detections (models/dominoes.md, sixty-third session).
            outlines = [frame.corners() for heat, frame in proposals if heat >= CLOSER_HEAT]
        above = view_from_above(np.array(outlines), size) if outlines else None
        if above is not None:
            kept = select_tiles(kept + self._seen_from(image, ignore, locator, above, canvas_of))
            unread = [frame.corners() for _, frame in _unexplained(proposals, kept)]
            beyond = view_of_unread(np.array([c.frame.corners() for c in kept]), np.array(unread), size)
            if beyond is not None:
                known = [*ignore, *(c.frame.corners() for c in kept)]
                seen = [
                    c for c in self._seen_from(image, known, locator, beyond, canvas_of) if c.confidence >= UNREAD_MIN
                ]
                kept = kept + unclaimed(seen, kept)
            kept = self._settled(image, canvas_of, kept)
        timing["dominoes_above_ms"] = (time.perf_counter() - t1) * 1000
        return kept, timing, in_doubt, proposals

    def _seen_from(
        self,
        image: np.ndarray,
        ignore: Sequence[np.ndarray],
        locator: TileLocator,
        view: np.ndarray,
        canvas_of: CanvasOf,
    ) -> list[Candidate]:
        """The tiles a look at the frame warped to `view` (image px -> view px) reads, mapped back to the
        frame: those in it (`_in_frame`)."""
        below = np.linalg.inv(view)
        ignored = [to_plane(view, np.asarray(quad, np.float64)) for quad in ignore]
        seen, _, _, _ = self._look(warped(image, view), ignored, locator, canvas_of)
        back = [
            replace(c, frame=TileFrame.from_corners(to_plane(below, c.frame.corners().astype(np.float64))))
            for c in seen
        ]
        return _in_frame(back, image.shape[1::-1])

    def _look(
        self, image: np.ndarray, ignore: Sequence[np.ndarray], locator: TileLocator, canvas_of: CanvasOf
    ) -> tuple[list[Candidate], dict[str, float], bool, list[tuple[float, TileFrame]]]:
        """One look at a landscape frame with `locator`: the tiles read (frames in its pixels), each stage's
        milliseconds, whether its proposals were read mostly in doubt (BLURRED_LOOK_FROM), and the proposals
        (heat, frame)."""
        t0 = time.perf_counter()
        canvas, scale = canvas_of(image)
        maps = locator.maps(canvas)
        proposals = [(heat, frame.scaled(1 / scale)) for heat, frame in decode(maps)]
        proposals = [(heat, frame) for heat, frame in proposals if _on_none(ignore, frame.center)]
        frames = [frame for _, frame in proposals]
        t1 = time.perf_counter()
        candidates = self.read_frames(image, canvas, scale, frames)
        doubted = sum(map(_doubted, candidates))
        in_doubt = doubted >= max(BLURRED_LOOK_FROM, sum(c.confidence >= MIN_CONFIDENCE for c in candidates))
        t2 = time.perf_counter()
        candidates = self.fitted(image, canvas, scale, maps, candidates)
        candidates = self.sized(image, canvas, scale, candidates)
        candidates, searched = self.refined(image, canvas, scale, maps, candidates)
        kept = select_tiles(candidates)
        cut = _cut_back(candidates, kept, maps, scale)
        if cut:
            kept = select_tiles(kept + self.read_frames(image, canvas, scale, cut))
        # In pis and lines touching halves hold one count, and a frame over a junction reads as that double: a
        # false tile over two missed ones. Over four 200-scene sets 2 tiles more, 3 false detections fewer, none
        # lost on the tuning seeds (models/dominoes.md, sixty-third session).
        kept = self._unjoined(image, canvas, scale, kept, maps)
        t3 = time.perf_counter()
        spawned = off(ignore, self._spawn(kept, maps, scale))
        if spawned:
            more = self.read_frames(image, canvas, scale, spawned)
            kept = select_tiles(kept + self.refined(image, canvas, scale, maps, more, REFINE_LIMIT - searched)[0])
        t4 = time.perf_counter()
        timing = {
            "dominoes_locate_ms": (t1 - t0) * 1000,
            "dominoes_read_ms": (t2 - t1) * 1000,
            "dominoes_refine_ms": (t3 - t2) * 1000,
            "dominoes_complete_ms": (t4 - t3) * 1000,
        }
        return kept, timing, in_doubt, proposals

    def read_frames(
        self, image: np.ndarray, canvas: np.ndarray, scale: float, frames: list[TileFrame], again: bool = True
    ) -> list[Candidate]:
        """The pip reader on each frame (image px) of `image`, whose letterboxed `canvas` is `scale` of it; with
        `again`, the frames it doubts read again by the reader trained on blurred crops, the surer reading kept
        (the refinement's many nudged frames go without: it cost 7 ms on the 28-tile sample for one tile)."""
        crops = crop_tiles(image, frames, (canvas, scale))
        readings = _readings(frames, *self.reader.read(crops))
        doubted = [i for i, c in enumerate(readings) if _doubted(c)] if again else []
        if doubted:
            second = _readings([frames[i] for i in doubted], *self.blurred_reader.read([crops[i] for i in doubted]))
            for i, reading in zip(doubted, second, strict=True):
                readings[i] = max(readings[i], reading, key=lambda c: c.confidence)
        return readings

    def _unjoined(
        self, image: np.ndarray, canvas: np.ndarray, scale: float, kept: list[Candidate], maps: np.ndarray
    ) -> list[Candidate]:
        """`kept`, each double that is the junction of two tiles laid end to end whose touching halves hold its
        count replaced by such a tile that reads more surely (on `canvas`, the frame's at `scale`). A double X|X
        is a junction where its frame moved a cell along its axis, clashing with no other tile kept, reads as a
        tile that is no double and holds X at the half they share (kept tiles are all read surely)."""
        doubles = [i for i, c in enumerate(kept) if c.pips[0] == c.pips[1]]
        if not doubles:
            return kept
        shifted = [
            (i, side, TileFrame(kept[i].frame.center + side * kept[i].frame.u, kept[i].frame.u, kept[i].frame.v))
            for i in doubles
            for side in (1, -1)
        ]
        # A tile found on a frame that clashes with another tile kept (most often a real double's neighbour) could
        # not join, and where the heatmap is flat (SPAWN_HEAT) no tile is marked: only the other frames are read.
        # On the 28-tile sample none is left; read with no heat gate they cost 2-3 ms there and read as much.
        heat = heat_at(maps, np.array([f.center for _, _, f in shifted]) * scale)
        shifted = [s for s, h in zip(shifted, heat, strict=True) if h >= SPAWN_HEAT]
        if not shifted:
            return kept
        clash = clash_pairs([f for _, _, f in shifted], [c.frame for c in kept])
        free = [s for k, s in enumerate(shifted) if not np.delete(clash[k], s[0]).any()]
        if not free:
            return kept
        readings = self.read_frames(image, canvas, scale, [f for _, _, f in free], again=False)
        junctions, tiles = set(), []
        for (i, side, _), reading in zip(free, readings, strict=True):
            pips = reading.pips
            shared = pips[0] if side == 1 else pips[1]  # the half next to the double's
            if shared == kept[i].pips[0] and pips[0] != pips[1] and reading.confidence > kept[i].confidence:
                junctions.add(i)
                tiles.append(reading)
        if not junctions:
            return kept
        rest = [c for i, c in enumerate(kept) if i not in junctions]
        return rest + unclaimed(select_tiles(tiles), rest)

    def _drawn_in(self, image: np.ndarray, canvas: np.ndarray, scale: float, kept: list[Candidate]) -> list[Candidate]:
        """`kept`, each tile whose frame runs on into another's (`run_on`, more than RUN_ON) cut back to that
        tile's outline where it reads the same pips there at least MIN_CONFIDENCE sure (on `canvas`, the frame's
        at `scale`)."""
        share, into = run_on([c.frame for c in kept])
        chosen = np.flatnonzero(share > RUN_ON)
        if not len(chosen):
            return kept
        cuts = [kept[k].frame.cut_at(kept[into[k]].frame.corners()) for k in chosen]
        chosen = [k for k, cut in zip(chosen, cuts, strict=True) if cut is not None]
        frames = [cut for cut in cuts if cut is not None]
        if not frames:
            return kept
        readings = self.read_frames(image, canvas, scale, frames, again=False)
        held = {
            k: r
            for k, r in zip(chosen, readings, strict=True)
            if sorted(r.pips) == sorted(kept[k].pips) and r.confidence >= MIN_CONFIDENCE
        }
        out = list(kept)
        for k, r in held.items():
            # Two frames that run into each other are a frame run on and the tile it runs into, whose own frame
            # then runs into it as far: only the one whose cut reads surer is drawn in.
            j = into[k]
            if j in held and into[j] == k and (held[j].confidence, j) > (r.confidence, k):
                continue
            out[k] = replace(r, refined=kept[k].refined)
        return out

    def _settled(self, image: np.ndarray, canvas_of: CanvasOf, kept: list[Candidate]) -> list[Candidate]:
        """`kept`, each tile on the frame the tile-corner network fits to it where it reads the same pips there
        at least MIN_CONFIDENCE sure. A steep view's tiles are often read right on frames 15-40 % too long or
        short, whose halves then lie off the tile's: on 120 fresh steep scenes, 16 of 37 false detections were
        such readings, each a tile missed as well (models/dominoes.md). The settled tiles are not selected
        again where they come to clash: that cut false detections further but lost more tiles."""
        if not kept:
            return kept
        canvas, scale = canvas_of(image)
        quads = self.corners.refine(image, [c.frame.corners() for c in kept], FIT_ROUNDS)
        readings = self.read_frames(image, canvas, scale, [TileFrame.from_corners(q) for q in quads])
        return [
            replace(r, refined=c.refined) if sorted(r.pips) == sorted(c.pips) and r.confidence >= MIN_CONFIDENCE else c
            for c, r in zip(kept, readings, strict=True)
        ]

    def fitted(
        self, image: np.ndarray, canvas: np.ndarray, scale: float, maps: np.ndarray, candidates: list[Candidate]
    ) -> list[Candidate]:
        """The candidates, and the sure readings of each unsure one where the heatmap has REFINE_HEAT or more
        read again on the frame the tile-corner network fits to it. Those count as refined readings (they
        yield to readings as proposed), and the unsure ones stay: where tiles touch, the network may fit a
        frame over a junction, and the unsure frame may still be cut back to its tile (`_cut_back`)."""
        if not candidates:
            return candidates
        heat = heat_at(maps, np.array([c.frame.center for c in candidates]) * scale)
        hot = [c for c, h in zip(candidates, heat, strict=True) if h >= REFINE_HEAT]
        unsure = [c for c in hot if c.confidence < MIN_CONFIDENCE]
        if not unsure:
            return candidates
        quads = self.corners.refine(image, [c.frame.corners() for c in unsure], FIT_ROUNDS)
        readings = self.read_frames(image, canvas, scale, [TileFrame.from_corners(q) for q in quads])
        return candidates + [replace(r, refined=True) for r in readings if r.confidence >= MIN_CONFIDENCE]

    def sized(
        self, image: np.ndarray, canvas: np.ndarray, scale: float, candidates: list[Candidate]
    ) -> list[Candidate]:
        """The candidates, each sure one whose frame is more than SIZE_OFF longer or shorter than the size the
        sure ones share replaced by its surest reading on a frame of that size (`sized_frames`, on `canvas`, the
        frame's at `scale`) that claims no half of another sure reading, where that reads the same pips more
        surely."""
        sure = [i for i, c in enumerate(candidates) if c.confidence >= MIN_CONFIDENCE]
        frames = [candidates[i].frame for i in sure]
        sized = sized_frames(frames, image.shape[1::-1], SIZE_OFF)
        if not sized:
            return candidates
        resized = [f for variants in sized.values() for f in variants]
        readings = self.read_frames(image, canvas, scale, resized, again=False)
        clash = clash_pairs(resized, frames)
        out = list(candidates)
        for m, k in enumerate(sized):
            was = candidates[sure[k]]
            own = range(3 * m, 3 * m + 3)
            free = [readings[r] for r in own if not np.delete(clash[r], k).any()]
            best = max(free, key=lambda r: r.confidence, default=None)
            if best is not None and sorted(best.pips) == sorted(was.pips) and best.confidence > was.confidence:
                out[sure[k]] = replace(best, refined=was.refined)
        return out

    def refined(
        self,
        image: np.ndarray,
        canvas: np.ndarray,
        scale: float,
        maps: np.ndarray,
        candidates: list[Candidate],
        limit: int = REFINE_LIMIT,
    ) -> tuple[list[Candidate], int]:
        """The candidates, the `limit` surest unsure ones each replaced by its reading on a better frame where
        one holds; and how many were searched."""
        if not candidates or limit <= 0:
            return candidates, 0
        unsure = _worth_refining(candidates, maps, scale)
        # A refined reading yields to any reading as proposed (select_tiles): one that clashes with a sure
        # proposed reading could never be kept, so it is not searched.
        sure = [c for c in candidates if c.confidence >= MIN_CONFIDENCE]
        frames = [candidates[i].frame for i in unsure]
        clash = clash_pairs(frames, [c.frame for c in sure])
        clash_proposed = clash[:, [not c.refined for c in sure]].any(axis=1)
        clash_any = clash.any(axis=1)
        # One that clashes only with a sure refined reading (`fitted`: most often its own tile fitted) comes last.
        last = {i: bool(c) for i, c, p in zip(unsure, clash_any, clash_proposed, strict=True) if not p}
        order = sorted(last, key=lambda i: (last[i], -candidates[i].confidence))
        best = {i: candidates[i] for i in order[:limit]}
        searched = len(best)
        searching = dict(best)
        reusable: dict[int, list[Candidate]] = {}  # last-round readings about an unmoved frame: the check's own
        for round_ in range(1, REFINE_ROUNDS + 1):
            for i, reading in self._nudged_readings(image, canvas, scale, searching, 1 / round_):
                top = max(reading, key=lambda c: c.confidence)
                if top.confidence > best[i].confidence:
                    best[i] = top
                elif round_ == REFINE_ROUNDS:
                    reusable[i] = reading
            searching = {i: best[i] for i in searching if best[i].confidence < SURE_ENOUGH}
        # The held confidence is a mean of readings rarely surer than the best one: below REFINED_MIN, none.
        check = {i: c for i, c in best.items() if i not in reusable and c.confidence >= REFINED_MIN}
        readings = reusable | dict(self._nudged_readings(image, canvas, scale, check, 1 / REFINE_ROUNDS))
        out = list(candidates)
        for i, reading in readings.items():
            held = float(np.mean([r.confidence if r.pips == best[i].pips else 0.0 for r in reading]))
            if held >= REFINED_MIN:
                out[i] = Candidate(best[i].frame, best[i].pips, held, refined=True)
        return out, searched

    def _nudged_readings(
        self, image: np.ndarray, canvas: np.ndarray, scale: float, candidates: dict[int, Candidate], step: float
    ) -> list[tuple[int, list[Candidate]]]:
        """Each candidate's readings on its frame's ten nudges, read in one batch."""
        if not candidates:
            return []
        frames = [f for c in candidates.values() for f in c.frame.nudged(step)]
        readings = self.read_frames(image, canvas, scale, frames, again=False)
        per = len(frames) // len(candidates)
        return [(i, readings[k * per : (k + 1) * per]) for k, i in enumerate(candidates)]

    @staticmethod
    def _spawn(kept: list[Candidate], maps: np.ndarray, scale: float) -> list[TileFrame]:
        """Free places next to confidently read tiles where the locator's heatmap is not flat."""
        frames = [n for c in kept if c.confidence >= SPAWN_FROM for n in neighbours(c.frame)]
        if not frames:
            return []
        heat = heat_at(maps, np.array([f.center for f in frames]) * scale)
        frames = [f for f, h in zip(frames, heat, strict=True) if h >= SPAWN_HEAT]
        if not frames:
            return []
        free = ~clashing(frames, [c.frame for c in kept])
        chosen: list[TileFrame] = []
        for frame, ok in zip(frames, free, strict=True):
            if ok and all(np.linalg.norm(frame.center - o.center) > np.linalg.norm(o.v) for o in chosen):
                chosen.append(frame)
        return chosen
