"""Sticks on the table, in stages, each timed by `StickRecognizer.timed`:

- locate: the stick locator network (vision/sticks/locate.py) gives each stick's centre and both ends; a
  stick it reads across another from end peaks alone is kept where the picture shows its body
  (vision/sticks/bodies.py);
- lattice: a second peak on a stick already found, and sticks inside or along the rims of outlines to ignore
  (cards and tiles read), dropped; the table plane taken from calibration or from the sticks themselves
  (vision/sticks/plane.py), a reading two or three sticks long (sticks end to end) split into sticks of the
  common length there, sticks at fainter centre peaks added where they make read sticks a five-stick pattern,
  unsure readings dropped where they alone keep six or seven sticks from one, touching sticks grouped, a group
  that is no card read again on its own lattice from the centre heat (vision/sticks/reread.py), each group
  walked onto the lattice and checked (vision/sticks/lattice.py);
- brighter: where a group of under five sticks is no card, or no stick is read but some faintly, the same two
  stages again on the frame brightened (its shadows lifted most; where nothing is read surely, only the part
  round the faint readings), and each card found there and not before put in place of the readings along it;
- equalised: where no card is read on a flat frame, the same again on the frame equalised locally;
- closer: where still no card is read, the same again on the part of the frame that holds the readings, a
  third larger; a card read there stick by stick replaces the readings in that part;
- blurred: where sticks but no card are read, every look again with the network trained on blurred frames;
- mirrored: where no card is read at sure peaks stick by stick, and the sticks are no heap, all of that again on
  the frame's mirror images, which vote on the cards (vision/sticks/mirrored.py);
- heap: where three or more sticks but no card are read, the locator and lattice stages again on a window round
  them, at twice the scale, with the network trained on heaps seen so (vision/sticks/heaps.py), and pairs of its
  end peaks a second network believes to be one stick's ends taken with the sticks it read, and where it reads
  more than five, sticks from its end peaks that none holds (vision/sticks/pairs.py); that reading replaces the
  sticks in the window where seven or more were read, or where fewer, none five together, were read and it reads
  as many or more, as long; else its whole sticks lying where none was read (a stick crossed) are added;
- seams: groups in one straight row whose line runs on past both ends dropped as the table's own lines
  (vision/sticks/seams.py);
- row: where still no card is read, the window along the frame's best straight run of readings read again by
  the first network's looks but the closer one, twice as close and, where that reads no row, a third closer
  again; five sticks in a row read there that are no seam put in place of the readings along them
  (vision/sticks/rows.py);
- ends: a stick off the lattice read far longer or shorter than the frame's others has its ends found again
  along its axis, where its body ends in the picture (vision/sticks/ends.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import cache, partial

import cv2
import numpy as np

from rules.sticks import PENTASTICKS
from vision.deblur import MotionBlur, clear_streak, deblurred
from vision.geometry import mirrored, mirrored_points, to_plane, window_part
from vision.locator import CLOSER, closer_window, flat_gain
from vision.sharpen import FocusGauge
from vision.sticks.bodies import body_gauge, with_bodies
from vision.sticks.completion import (
    COVERED,
    MIN_STICK_PX,
    STRONG_END,
    add_faint_sticks,
    drop_unsure_extras,
    in_row,
    reread_layouts,
)
from vision.sticks.detections import Polystick, Stick, median_length
from vision.sticks.ends import refined_ends
from vision.sticks.heaps import (
    GROUPED_HEAP_STICKS,
    HEAP_MODEL_PATH,
    HEAP_STICKS,
    NEW_ACROSS,
    SAME_ENDS,
    SHORTER_HEAP,
    SMALL_HEAP_STICKS,
    heap_window,
)
from vision.sticks.lattice import (
    covered_shares,
    end_distance,
    group,
    lies_along,
    snap,
    touch_matrix,
)
from vision.sticks.locate import BLURRED_MODEL_PATH, PEAK_THRESHOLD, LocatorReadings, StickLocator, part_step
from vision.sticks.mirrored import MIRRORS, mirrored_homography, mirrored_streak, most_agreed
from vision.sticks.pairs import PairCheck, assembled, from_lone_ends
from vision.sticks.plane import split_runs, table_plane, turned_stick
from vision.sticks.rims import outside_outlines
from vision.sticks.rows import ROW_CARD, ROW_SHARES, straight_run
from vision.sticks.seams import is_seam
from vision.working_size import outlines_to_working, to_picture, working_copy, working_homography

# Faint readings that may be a layout seen too small where none is sure (_could_be_a_layout). Two may be where they
# touch, as a layout's sticks do: sticks in line read as one long faint reading (card 32 on held-out marble, frame
# 40196, read stick by stick closer). Two apart anywhere would send the stick-free close-up sample (a vein and the
# frame's edge) to the closer look as well.
FAINT_LAYOUT = 3
FAINT_APART = 0.3  # the most of one such reading that may lie along another
HEAP_FROM = 7  # sticks in one touching group: more are a heap (see _heap)
# Sticks a frame reading no card must read for its last two mirror images to be read where the first agrees on
# no card, as they could tie with it (`most_agreed`): a layout read short holds three or more, and on empty
# tables the frames reading one or two (a pen, a note's rim) would pay for both looks.
TIE_FROM = 3
RESTORED_MORE = 3  # sticks a frame restored from motion blur may read beyond the blurred frame's
CARD_STICKS = len(PENTASTICKS[0])
CLOSER_SHARES = (CLOSER, 0.5)  # windows (shares of each side of the frame) a closer look reads, in turn
# Where a look finds a layout of under five sticks that is no card, the frame is looked at again brighter:
# the network marks low-contrast sticks too weakly (a dark stick on a dark glossy top) and sees stick-like
# veins on light stone, which brightening flattens. A square-root curve (gamma 0.5) lifts shadows most and
# clips nothing; twice the exposure, clipped at white, read 3 and 1 fewer layouts of the two 330-layout sets.
BRIGHTER = np.round(255 * np.linspace(0.0, 1.0, 256) ** 0.5).astype(np.uint8)  # a lookup table for cv2.LUT
# Where no stick is read surely, the brighter look reads only the part of the frame round the faint readings
# wholly in it and apart (`_apart_in_frame`), at the whole frame's scale: each reading's centre with MARK_REACH
# of its length on every side. The network's cost goes with the area it reads. The two layouts this look gained
# (seeds 20321 and 80011) are read at 3, not at 2.5; a layout reaches 4.5 sticks from its end stick's centre
# (the I card), but 5 reads most of each stick-free sample picture again. A part of over WHOLE_PART of the
# frame is read as the whole frame.
MARK_REACH = 3.0
WHOLE_PART = 0.8
EQUALISE_CLIP = 3.0  # the contrast limit of the local equalisation (CLAHE) a flat frame is looked at with


def _distinct(
    candidates: list[tuple[float, np.ndarray]], kept: list[tuple[float, np.ndarray]] = (), covered: float = COVERED
) -> list[tuple[float, np.ndarray]]:
    """`kept` and the candidates, best first, without a second reading of sticks already kept: the same stick
    again, or a reading that runs along one stick and into the next (`covered` of its length or more)."""
    kept = list(kept)
    ordered = sorted(candidates, key=lambda c: -c[0])
    if not ordered:
        return kept
    # Each candidate's samples against every segment that may be kept before it, at once.
    along = lies_along([e for _, e in ordered], [e for _, e in kept] + [e for _, e in ordered])
    first = len(kept)
    chosen = list(range(first))
    for i, (score, ends) in enumerate(ordered):
        if np.linalg.norm(ends[1] - ends[0]) >= MIN_STICK_PX and along[i][:, chosen].any(axis=-1).mean() < covered:
            chosen.append(first + i)
            kept.append((score, ends))
    return kept


def _apart_in_frame(faint: list[tuple[float, np.ndarray]], size: tuple[int, int]) -> list[tuple[float, np.ndarray]]:
    """The faint readings wholly in a frame of `size`, best first, without those lying along a better one
    (FAINT_APART of their length): as a layout's sticks lie. Faint readings on a busy table run off its edges,
    or along one paper edge more than once."""
    inside = [(score, ends) for score, ends in faint if np.all((ends >= 0) & (ends < size))]
    return _distinct(inside, covered=FAINT_APART)


def _could_be_a_layout(faint: list[tuple[float, np.ndarray]], size: tuple[int, int]) -> bool:
    """Whether faint readings could be most of a layout seen too small: FAINT_LAYOUT or more wholly in the
    frame and mostly apart (`_apart_in_frame`), or two such that touch as the lattice groups sticks."""
    apart = np.array([ends for _, ends in _apart_in_frame(faint, size)]).reshape(-1, 2, 2)
    return len(apart) >= FAINT_LAYOUT or (len(apart) == 2 and bool(touch_matrix(apart)[0, 1]))


def _worth_a_brighter_look(polysticks: list[Polystick], marked: bool) -> bool:
    """Whether a look left a layout short: a group of under five sticks that is no card, or no stick read at
    all where the network marked something faintly (`marked`: a faint reading wholly in the frame). A group of
    five or more that is no card is a broken layout, which a brighter look could only misread as a card. A
    frame with nothing marked is not looked at again: every frame without sticks would pay for it."""
    if not polysticks:
        # Light sticks on light stone can be marked under the sure threshold, all five (held-out marble, seed
        # 20321: one faint peak; brightened, the five read as the card).
        return marked
    broken = any(p.card is None and len(p.sticks) >= 5 for p in polysticks)
    return not broken and any(p.card is None for p in polysticks)


def _around_marks(marked: list[tuple[float, np.ndarray]], size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The part of a frame of `size` (x, y, width, height) that a brighter look at the faint readings
    `marked` alone reads (MARK_REACH), its corner on the network's coarsest cells; None for the whole frame."""
    if size[1] > size[0] or not marked:
        return None
    ends = np.array([e for _, e in marked], np.float64)
    centres = ends.mean(axis=1)
    reach = MARK_REACH * np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)[:, None]
    # Its corner and sides on the coarsest cells: the part is then scaled as the frame is (by an exact half
    # at 1280x720, OpenCV's fast path) and fills its input.
    step = part_step(size)
    low = np.floor(np.clip((centres - reach).min(axis=0), 0, size) / step) * step
    high = np.minimum(np.ceil(np.clip((centres + reach).max(axis=0), 0, size) / step) * step, size)
    x0, y0 = (int(v) for v in np.rint(low))
    x1, y1 = (int(v) for v in np.rint(high))
    if (x1 - x0) * (y1 - y0) > WHOLE_PART * size[0] * size[1] or x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return x0, y0, x1 - x0, y1 - y0


def read_stick_by_stick(polystick: Polystick, sticks: list[Stick]) -> bool:
    """Whether a polystick is a card read mostly at sure centre peaks, and all but one of its sticks each on
    a peak of its own: the pieces of a run read whole and cut at the common length share its score."""
    scores = _scores(polystick, sticks)
    sure = sum(score >= PEAK_THRESHOLD for score in scores)
    return polystick.card is not None and 2 * sure > len(scores) and len(set(scores)) >= len(scores) - 1


def _settled(sticks: list[Stick], polysticks: list[Polystick], own_peaks: bool = True) -> bool:
    """Whether a reading needs no mirrored look: it reads a card, and every card it reads has each of its sticks
    at a sure centre peak (of its own, with `own_peaks`: the pieces of a run cut at the common length share its
    score). On the two 330-layout held-out sets no such reading was wrong."""
    scores = [_scores(p, sticks) for p in polysticks if p.card is not None]
    return bool(scores) and all(min(s) >= PEAK_THRESHOLD and (len(set(s)) == len(s) or not own_peaks) for s in scores)


def _scores(polystick: Polystick, sticks: list[Stick]) -> list[float]:
    """The confidence of each of a polystick's sticks, in its order."""
    return [sticks[i].confidence for i in polystick.sticks]


def _heap(polysticks: list[Polystick]) -> bool:
    """Whether sticks read touch in a group larger than a layout with two stray readings: a heap of pick-up
    sticks, where a vote on cards decides nothing and each mirrored look costs the most."""
    return any(len(p.sticks) > HEAP_FROM for p in polysticks)


def _maybe_small_heap(sticks: list[Stick], polysticks: list[Polystick]) -> bool:
    """Whether too few sticks are read to be sure of a heap (SMALL_HEAP_STICKS or more), and no layout's worth
    of them touch in one group: those are read as a layout, whole or broken."""
    return len(sticks) >= SMALL_HEAP_STICKS and all(len(p.sticks) < CARD_STICKS for p in polysticks)


def _kept_whole(sticks: list[Stick], more: list[Stick]) -> bool:
    """Whether the heap look's reading `more` of a frame with few `sticks` read keeps them whole: no fewer
    sticks, and at the median no shorter than SHORTER_HEAP times theirs. The heap network reads a broken
    layout's sticks, which meet end to end, as fewer and longer ones or cut short; a small heap's as they lie."""
    return len(more) >= len(sticks) and median_length(more) >= SHORTER_HEAP * median_length(sticks)


def _read_anew(sticks: list[Stick], more: list[Stick]) -> list[Stick]:
    """The sticks of the heap look's reading `more` that lie along `sticks` for under NEW_ACROSS of their length,
    no shorter than SHORTER_HEAP times those read at the median, and with their ends apart from each stick read's
    (SAME_ENDS): a piece of a stick read, or that stick a little aside, is no stick of its own."""
    if not more:
        return []
    shares = covered_shares(np.array([s.ends for s in more]), np.array([s.ends for s in sticks]))
    median = median_length(sticks)
    long_enough = np.array([s.length for s in more]) >= SHORTER_HEAP * median
    apart = [all(end_distance(s.ends, read.ends) > SAME_ENDS * median for read in sticks) for s in more]
    return [stick for stick, new in zip(more, (shares < NEW_ACROSS) & long_enough & apart, strict=True) if new]


def _in_window(
    image: np.ndarray, window: tuple[int, int, int, int], homography: np.ndarray | None, ignore: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray | None, list[np.ndarray]]:
    """The part of a frame in `window` (x, y, width, height), with the calibration and the outlines to ignore
    moved into its pixels."""
    x0, y0 = window[:2]
    shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)  # window px -> frame px
    return (
        window_part(image, window),
        None if homography is None else np.asarray(homography, np.float64) @ shift,
        [np.asarray(quad) - [x0, y0] for quad in ignore],
    )


def _centred_in(segments: list[np.ndarray], window: tuple[int, int, int, int]) -> np.ndarray:
    """Which segments (each 2x2, frame px) have their centre in `window` (x, y, width, height)."""
    x0, y0, w, h = window
    centres = np.array([ends.mean(axis=0) for ends in segments]).reshape(-1, 2)
    return np.all((centres >= [x0, y0]) & (centres < [x0 + w, y0 + h]), axis=1)


def _in_picture(sticks: list[Stick], factor: int) -> list[Stick]:
    """Sticks read on a working copy shrunk by `factor` (vision/working_size.py) in the picture's own pixels."""
    return [replace(stick, ends=to_picture(stick.ends, factor)) for stick in sticks] if factor > 1 else sticks


def _replaced_in_window(sticks: list[Stick], more: list[Stick], window: tuple[int, int, int, int]) -> list[Stick]:
    """`sticks` outside `window` (their centres) and the sticks `more` read in it, moved into the frame."""
    offset = np.array(window[:2], np.float64)
    inside = _centred_in([s.ends for s in sticks], window)
    return [s for s, i in zip(sticks, inside, strict=True) if not i] + [
        Stick(s.ends + offset, s.confidence) for s in more
    ]


def _keeps(sticks: list[Stick], sure: list[np.ndarray], window: tuple[int, int, int, int]) -> bool:
    """Whether `sticks` lie along (COVERED of its length) each sure reading whose centre is in `window`."""
    held = [e for e, inside in zip(sure, _centred_in(sure, window), strict=True) if inside]
    if not held:
        return True
    if not sticks:
        return False
    return bool((covered_shares(np.array(held), np.array([s.ends for s in sticks])) >= COVERED).all())


def _twice_as_close_holds(
    image: np.ndarray,
    more: list[Stick],
    more_polysticks: list[Polystick],
    sure: list[tuple[float, np.ndarray]],
    window: tuple[int, int, int, int],
) -> bool:
    """Whether the half window's reading (`more`, window px) may stand: it lies along each sure reading in the
    window (`_keeps`) and no card it reads is a line of the table's own (a bare plank's seam, read as card 1)."""
    moved = _replaced_in_window([], more, window)
    if not _keeps(moved, [e for _, e in sure], window):
        return False
    ends = np.array([s.ends for s in moved]).reshape(-1, 2, 2)
    return not any(p.card is not None and is_seam(image, ends[list(p.sticks)]) for p in more_polysticks)


def _turned_broken(sticks: list[Stick], polysticks: list[Polystick], size: tuple[int, int]) -> list[Polystick]:
    """The polysticks, a card with a stick the others put off the lattice (`turned_stick`) read as broken."""
    return [
        replace(p, on_lattice=False, card=None)
        if p.card is not None
        and turned_stick(np.array([sticks[i].ends for i in p.sticks], np.float64), size) is not None
        else p
        for p in polysticks
    ]


def _loose_ends_refined(image: np.ndarray, sticks: list[Stick], polysticks: list[Polystick]) -> list[Stick]:
    """The sticks, in a frame of more than a layout's five, those off the lattice (alone, or in a group off it)
    with their ends found again in the picture where their length is far off the frame's median
    (vision/sticks/ends.py). The groups stand as read: a loose stick's ends decide no card. A frame of five
    or fewer is a DIGIT layout at most, whose verdict its ends as read gave: refined there too, the moved
    stick of 5 of the 220 held-out broken layouts came out further from where it lies."""
    loose = {i for p in polysticks if len(p.sticks) == 1 or not p.on_lattice for i in p.sticks}
    if len(sticks) <= CARD_STICKS or not loose:
        return sticks
    median_length = float(np.median([s.length for s in sticks]))
    return [
        replace(s, ends=refined_ends(image, s.ends, median_length)) if i in loose else s for i, s in enumerate(sticks)
    ]


def _cards(polysticks: list[Polystick]) -> tuple[int, ...]:
    return tuple(sorted(p.card for p in polysticks if p.card is not None))


class StickRecognizer:
    """Frames in, sticks and polysticks out. Holds the locator network and its copy trained on blurred frames;
    build one and reuse it."""

    def __init__(
        self,
        locator: StickLocator | None = None,
        focus: FocusGauge | None = None,
        blurred_locator: StickLocator | None = None,
        heap_locator: StickLocator | None = None,
        pairs: bool = True,
    ) -> None:
        self.locator = locator or StickLocator()
        self.blurred_locator = blurred_locator or StickLocator(BLURRED_MODEL_PATH)
        self.heap_locator = heap_locator or StickLocator(HEAP_MODEL_PATH)
        self.pair_check = PairCheck() if pairs else None
        self.focus = focus or FocusGauge()
        self.equaliser = cv2.createCLAHE(clipLimit=EQUALISE_CLIP, tileGridSize=(8, 8))

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
        outlines (image px) of other things read on the table, such as cards: what lies on them is not a stick.
        A soft frame is read sharpened (`vision.sharpen`) where its reading is not settled (`_settled`): a card
        read at sure peaks, stick by stick, needs no sharper look, and the focus measure costs a fifth of a
        frame in focus. Nor does a frame where no stick is read: of 506 held-out frames out of focus, one read
        none unsharpened, and sharpened it was read wrong still; read alone (a DIGIT game), the stick reader
        would pay for the measure on every frame of an empty table or of cards. A picture larger than the working
        size is read at it (vision/working_size.py).
        """
        image, factor = working_copy(image)
        homography = working_homography(homography, factor)
        ignore = outlines_to_working(ignore, factor)
        streak = cache(partial(clear_streak, image))
        sticks, polysticks, timing, readings = self._both_networks(image, homography, ignore, streak)
        settled = _settled(sticks, polysticks)
        start = time.perf_counter()
        sharpened = image if settled or not sticks else self.focus.sharpened_if_soft(image)
        sharpen_ms = (time.perf_counter() - start) * 1000
        if sharpened is not image:
            image, first_look = sharpened, timing
            streak = cache(partial(clear_streak, image))
            sticks, polysticks, timing, readings = self._both_networks(image, homography, ignore, streak)
            timing = {stage: ms + first_look[stage] for stage, ms in timing.items()}
            settled = _settled(sticks, polysticks)
        t0 = time.perf_counter()
        if sticks and not settled and not _heap(polysticks):
            sticks, polysticks = self._mirrored(image, homography, ignore, sticks, polysticks, streak)
        timing["mirrored_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        no_card = not any(p.card is not None for p in polysticks)
        if no_card and len(sticks) >= HEAP_STICKS:
            sticks, polysticks = self._heap_closer(image, homography, ignore, sticks)
        elif no_card and _maybe_small_heap(sticks, polysticks):
            more, more_polysticks = self._heap_closer(image, homography, ignore, sticks)
            if _kept_whole(sticks, more):
                sticks, polysticks = more, more_polysticks
            elif added := _read_anew(sticks, more):
                sticks = sticks + added
                polysticks = self._snapped(sticks, image.shape[1::-1], homography)
        elif no_card and len(sticks) >= CARD_STICKS:  # a group of five or six touch: `_maybe_small_heap` said no
            more, more_polysticks = self._heap_closer(image, homography, ignore, sticks)
            if len(more) >= GROUPED_HEAP_STICKS and _kept_whole(sticks, more):
                sticks, polysticks = more, more_polysticks
        timing["heap_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        sticks, polysticks = self._without_seams(image, homography, sticks, polysticks)
        timing["seams_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        if not any(p.card is not None for p in polysticks) and len(sticks) < HEAP_STICKS:
            sticks, polysticks = self._along_row(image, homography, ignore, readings, sticks, polysticks)
        timing["row_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        if homography is None:  # a calibrated plane is not searched: snapping there sees a turned stick
            polysticks = _turned_broken(sticks, polysticks, image.shape[1::-1])
        timing["turned_ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        sticks = _loose_ends_refined(image, sticks, polysticks)
        timing["ends_ms"] = (time.perf_counter() - t0) * 1000
        return _in_picture(sticks, factor), polysticks, {"sharpen_ms": sharpen_ms, **timing}

    def _without_seams(
        self, image: np.ndarray, homography: np.ndarray | None, sticks: list[Stick], polysticks: list[Polystick]
    ) -> tuple[list[Stick], list[Polystick]]:
        """The reading without the groups that are a line of the table's own (vision/sticks/seams.py)."""
        ends = np.array([s.ends for s in sticks], np.float64)
        seams = {i for p in polysticks if is_seam(image, ends[list(p.sticks)]) for i in p.sticks}
        if not seams:
            return sticks, polysticks
        sticks = [s for i, s in enumerate(sticks) if i not in seams]
        return sticks, self._snapped(sticks, image.shape[1::-1], homography)

    def first_look(
        self, image: np.ndarray, homography: np.ndarray | None = None
    ) -> tuple[list[Stick], list[Polystick]]:
        """The sticks and polysticks of the first network's first look alone (with its brighter second look),
        nothing ignored: a quick reading, without the looks that cost the most where a frame is read in doubt."""
        image, factor = working_copy(image)
        sticks, polysticks, _, _ = self._look(image, working_homography(homography, factor), [], self.locator)
        return _in_picture(sticks, factor), polysticks

    def _both_networks(
        self,
        image: np.ndarray,
        homography: np.ndarray | None,
        ignore: list[np.ndarray],
        streak: Callable[[], MotionBlur | None],
    ) -> tuple[list[Stick], list[Polystick], dict[str, float], LocatorReadings]:
        """Every look of the first network, and where it reads sticks but no card, of the one trained on
        blurred frames; the sticks, the polysticks, each stage's milliseconds and the first network's readings
        of its first look. `streak` gives the frame's clear camera streak, if any: asked only where needed, once
        a frame for all its mirror images."""
        sticks, polysticks, timing, readings = self._looks(image, homography, ignore, self.locator)
        t0 = time.perf_counter()
        if sticks and not any(p.card is not None for p in polysticks):
            # Sticks but no card: the network trained on blurred frames reads motion-blurred layouts the first
            # misses. Its reading replaces the first only where it reads a card stick by stick.
            more, more_polysticks, _, _ = self._looks(image, homography, ignore, self.blurred_locator)
            if any(read_stick_by_stick(p, more) for p in more_polysticks):
                sticks, polysticks = more, more_polysticks
            elif blur := streak():
                # A camera's streak taken out (vision/deblur.py): that reading stands where it reads a card stick
                # by stick, and no more than RESTORED_MORE sticks beyond the first reading or a card's five: a
                # restored frame shows the sticks that were there (on a striped cloth it once read 54 of 5).
                more, more_polysticks, _, _ = self._looks(deblurred(image, blur), homography, ignore, self.locator)
                few = len(more) <= max(len(sticks), CARD_STICKS) + RESTORED_MORE
                if few and any(read_stick_by_stick(p, more) for p in more_polysticks):
                    sticks, polysticks = more, more_polysticks
        timing["blurred_ms"] = (time.perf_counter() - t0) * 1000
        return sticks, polysticks, timing, readings

    def _mirrored(
        self,
        image: np.ndarray,
        homography: np.ndarray | None,
        ignore: list[np.ndarray],
        sticks: list[Stick],
        polysticks: list[Polystick],
        streak: Callable[[], MotionBlur | None],
    ) -> tuple[list[Stick], list[Polystick]]:
        """The frame's reading, or where its mirror images outvote it on the cards, theirs
        (vision/sticks/mirrored.py). Read mirrored left to right first: where that agrees on a card, the others
        are not read; nor where it agrees on none, unless two mirror images could tie with that (`TIE_FROM`).
        A tie between the frame's no card and a card goes to a card read at sure peaks (look-alikes on a bare
        table are read faintly), unless the frame read a group off the lattice, as a crossing gives."""
        size = image.shape[1::-1]
        broken_seen = any(not p.on_lattice for p in polysticks)
        could_tie = not broken_seen and len(sticks) >= TIE_FROM
        readings = [(sticks, polysticks)]
        for mirror in MIRRORS:
            more, _, _, _ = self._both_networks(
                mirrored(image, mirror),
                mirrored_homography(homography, size, mirror),
                [mirrored_points(quad, size, mirror) for quad in ignore],
                lambda mirror=mirror: mirrored_streak(streak(), mirror),
            )
            back = [Stick(mirrored_points(s.ends, size, mirror), s.confidence) for s in more]
            readings.append((back, self._snapped(back, size, homography)))
            agreed = len(readings) == 2 and _cards(readings[1][1]) == _cards(polysticks)
            if agreed and (_cards(polysticks) or not could_tie):
                break
        firm = [] if broken_seen else [i for i, (s, p) in enumerate(readings) if _settled(s, p, own_peaks=False)]
        return readings[most_agreed([_cards(p) for _, p in readings], firm)]

    def _looks(
        self,
        image: np.ndarray,
        homography: np.ndarray | None,
        ignore: list[np.ndarray],
        locator: StickLocator,
        closer: bool = True,
    ) -> tuple[list[Stick], list[Polystick], dict[str, float], LocatorReadings]:
        """Every look `locator` takes at a frame: the first (with its brighter second look), the equalised look
        of a flat frame and, if `closer`, the closer look; the sticks, the polysticks, each stage's milliseconds
        and the locator's readings of the first look."""
        sticks, polysticks, timing, readings = self._look(image, homography, ignore, locator)
        t0 = time.perf_counter()
        if not any(p.card is not None for p in polysticks) and flat_gain(image) > 1.0:
            # A flat frame with no card read: dark sticks on a dark top can stay hidden even brightened, and
            # stand out once the frame is equalised locally. Only the cards read there are taken.
            grey = self.equaliser.apply(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
            more, more_polysticks, _, _ = self._look(
                cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), homography, ignore, locator
            )
            size = image.shape[1::-1]
            sticks, polysticks = self._with_new_cards(sticks, polysticks, more, more_polysticks, size, homography)
        equalised_ms = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        if closer and not any(p.card is not None for p in polysticks):
            sticks, polysticks = self._closer(image, readings, sticks, polysticks, homography, ignore, locator)
        closer_ms = (time.perf_counter() - t0) * 1000
        return sticks, polysticks, {**timing, "equalised_ms": equalised_ms, "closer_ms": closer_ms}, readings

    def _closer(
        self,
        image: np.ndarray,
        readings: LocatorReadings,
        sticks: list[Stick],
        polysticks: list[Polystick],
        homography: np.ndarray | None,
        ignore: list[np.ndarray],
        locator: StickLocator,
    ) -> tuple[list[Stick], list[Polystick]]:
        """A frame with no card read, looked at again closer (closer_window): on a busy held-out table the
        locator marks a small layout's sticks too faintly at the frame's scale and reads them surely a third
        larger. Where that look reads a card stick by stick (read_stick_by_stick), its readings replace the
        first look's in its window. Where it does not, the first network looks at a window half the frame's
        sides (CLOSER_SHARES), where it reads a few layouts that it misreads at both other scales. That
        reading stands only where it also lies along each sure reading in its window and reads no table seam
        as a card (`_twice_as_close_holds`): twice as close, a stick across another's middle was read as two
        half sticks that made a card, and a plank's seam as five sticks in a row."""
        # A frame with no stick read surely is looked at again only where faint readings could be most of a
        # layout: every frame without sticks would pay for it (card and tile edges leave faint peaks).
        sure = outside_outlines(readings.sure, ignore)
        faint = outside_outlines(readings.faint, ignore)
        if not sure and not _could_be_a_layout(faint, image.shape[1::-1]):
            return sticks, polysticks
        scored = sure + faint
        centres = np.array([ends.mean(axis=0) for _, ends in scored]).reshape(-1, 2)
        scores = np.array([s for s, _ in scored])
        # The half window for the first network only, where it read a stick surely: the other looks are second
        # opinions, and each look costs. (Not gated on heaps: a layout on checks joins the cloth's lines in a
        # group as large.)
        for share in CLOSER_SHARES if locator is self.locator and sure else CLOSER_SHARES[:1]:
            window = closer_window(centres, scores, image.shape[1::-1], share)
            if window is None:
                return sticks, polysticks
            crop, window_homography, window_ignore = _in_window(image, window, homography, ignore)
            more, more_polysticks, _, _ = self._look(crop, window_homography, window_ignore, locator)
            if not any(read_stick_by_stick(p, more) for p in more_polysticks):
                continue
            if share < CLOSER and not _twice_as_close_holds(image, more, more_polysticks, sure, window):
                continue
            sticks = _replaced_in_window(sticks, more, window)
            return sticks, self._snapped(sticks, image.shape[1::-1], homography)
        return sticks, polysticks

    def _along_row(
        self,
        image: np.ndarray,
        homography: np.ndarray | None,
        ignore: list[np.ndarray],
        readings: LocatorReadings,
        sticks: list[Stick],
        polysticks: list[Polystick],
    ) -> tuple[list[Stick], list[Polystick]]:
        """A frame with no card read (seams dropped), its windows along the best straight run of readings
        (vision/sticks/rows.py, ROW_SHARES in turn) read by the first network's looks but the closer one: five
        sticks in a row read there that are the run (`Run.holds`) and no seam (`is_seam`) take the place of the
        readings along them, where they are still that card among the others (`_with_new_cards`). The windows
        are already close: read by every look of both networks, the first read the same rows of five at tuning
        seeds 9800000.. and two more of 200 at 9900000.., and cost up to 1.5 s a frame where it fired on
        held-out tables without sticks, against 60-250 ms for both windows this way on all but one
        (models/sticks.md)."""
        size = image.shape[1::-1]
        run = straight_run(outside_outlines(readings.sure + readings.faint, ignore), readings.end_points, size)
        if run is None:
            return sticks, polysticks
        for share in ROW_SHARES:
            window = run.window(size, share)
            crop, window_homography, window_ignore = _in_window(image, window, homography, ignore)
            more, more_polysticks, _, _ = self._looks(
                crop, window_homography, window_ignore, self.locator, closer=False
            )
            moved = _replaced_in_window([], more, window)
            rows = [
                p
                for p in more_polysticks
                if p.card == ROW_CARD
                and run.holds([moved[i] for i in p.sticks], sticks, size)
                and not is_seam(image, np.array([moved[i].ends for i in p.sticks]))
            ]
            read, read_polysticks = self._with_new_cards(sticks, polysticks, moved, rows, size, homography)
            if any(p.card is not None for p in read_polysticks):
                return read, read_polysticks
        return sticks, polysticks

    def _heap_closer(
        self, image: np.ndarray, homography: np.ndarray | None, ignore: list[np.ndarray], sticks: list[Stick]
    ) -> tuple[list[Stick], list[Polystick]]:
        """The sticks with those in the heap's window (heap_window) read again there by the heap network:
        its locator and lattice stages only, as the other looks serve layouts."""
        size = image.shape[1::-1]
        window = heap_window(np.array([s.ends for s in sticks]), size)
        crop, window_homography, window_ignore = _in_window(image, window, homography, ignore)
        readings = self._read(crop, self.heap_locator)
        more, _ = self._layout(crop, readings, window_homography, window_ignore)
        if self.pair_check is not None:
            # Its pairs come from end peaks, which know nothing of the outlines to ignore.
            more = assembled(crop, more, readings, self.pair_check)
            if len(more) > CARD_STICKS:  # five or fewer may be a DIGIT layout, which a stick more would break
                more += from_lone_ends(crop, more, readings, self.pair_check)
            more = [stick for stick, _ in outside_outlines([(stick, stick.ends) for stick in more], window_ignore)]
        sticks = _replaced_in_window(sticks, more, window)
        return sticks, self._snapped(sticks, size, homography)

    def _look(
        self, image: np.ndarray, homography: np.ndarray | None, ignore: list[np.ndarray], locator: StickLocator
    ) -> tuple[list[Stick], list[Polystick], dict[str, float], LocatorReadings]:
        """One look at the frame: the locator, the lattice, and a brighter second look where a layout is short;
        the sticks, the polysticks, each stage's milliseconds and the locator's readings."""
        t0 = time.perf_counter()
        readings = self._read(image, locator)
        t1 = time.perf_counter()
        size = image.shape[1::-1]
        sticks, polysticks = self._layout(image, readings, homography, ignore)
        t2 = time.perf_counter()
        marked = (
            [] if polysticks else _apart_in_frame(outside_outlines(readings.faint, ignore), size)
        )  # looked at only then
        if _worth_a_brighter_look(polysticks, bool(marked)):
            window = None if polysticks else _around_marks(marked, size)
            brighter = self._read_brighter(image, locator, window)
            more, more_polysticks = self._layout(image, brighter, homography, ignore)
            sticks, polysticks = self._with_new_cards(sticks, polysticks, more, more_polysticks, size, homography)
        t3 = time.perf_counter()
        stages = {"locate": t1 - t0, "lattice": t2 - t1, "brighter": t3 - t2}
        return sticks, polysticks, {f"{stage}_ms": seconds * 1000 for stage, seconds in stages.items()}, readings

    def _read(self, image: np.ndarray, locator: StickLocator) -> LocatorReadings:
        """The locator's readings, of the sticks it read across others from end peaks alone only those whose
        bodies the picture shows (vision/sticks/bodies.py)."""
        readings = locator.read(image)
        return replace(readings, crossed=with_bodies(image, readings.crossed))

    def _read_brighter(
        self, image: np.ndarray, locator: StickLocator, window: tuple[int, int, int, int] | None
    ) -> LocatorReadings:
        """The locator's readings (`_read`) of the frame brightened, or of its part in `window` (x, y, width,
        height) read at the whole frame's scale, in frame px."""
        if window is None:
            return self._read(cv2.LUT(image, BRIGHTER), locator)
        x0, y0, w, h = window
        part = cv2.LUT(image[y0 : y0 + h, x0 : x0 + w], BRIGHTER)  # the lookup writes a new array: no copy first
        readings = locator.read_part(part, (x0, y0), image.shape[1::-1])
        origin = np.array([x0, y0], np.float64)
        moved = [(score, ends - origin, other - origin) for score, ends, other in readings.crossed]
        crossed = [(score, ends + origin, other + origin) for score, ends, other in with_bodies(part, moved)]
        return replace(readings, crossed=crossed)

    def _layout(
        self,
        image: np.ndarray,
        readings: LocatorReadings,
        homography: np.ndarray | None,
        ignore: list[np.ndarray],
    ) -> tuple[list[Stick], list[Polystick]]:
        """The sticks and polysticks that one look of the locator at `image` gives (the lattice stage)."""
        ignore = list(ignore)
        size = image.shape[1::-1]
        shows_body = None
        found = _distinct(outside_outlines(readings.sure, ignore))
        plane = None
        if found:
            plane = self.plane(np.array([e for _, e in found]), size, homography)
            pieces = split_runs(np.array([e for _, e in found]), plane, readings.end_points, MIN_STICK_PX)
            if len(pieces) > len(found):
                # A run read whole may also have been read stick by stick; the plane is chosen again.
                found = _distinct([(found[i][0], e) for i, e in pieces])
                plane = self.plane(np.array([e for _, e in found]), size, homography)
            # Sticks read across others from their ends alone lie off the lattice's directions: they join
            # once the plane is chosen, which they would skew.
            found = _distinct(outside_outlines([(score, e) for score, e, _ in readings.crossed], ignore), found)
            shows_body = body_gauge(image, [e for _, e in found])
            found = add_faint_sticks(found, outside_outlines(readings.faint, ignore), plane, shows_body)
            found = drop_unsure_extras(found, plane)
        sticks = [Stick(e, min(1.0, score)) for score, e in found]
        polysticks = self.polysticks(sticks, plane, square=True)
        strong_ends = readings.end_points[readings.end_scores >= STRONG_END]
        reread = (
            found
            if plane is None
            else reread_layouts(
                found, polysticks, plane, readings.stick_heat, ignore, strong_ends, shows_body, readings.end_points
            )
        )
        if reread is not found:
            sticks = [Stick(e, min(1.0, score)) for score, e in reread]
            polysticks = self.polysticks(sticks, plane, square=True)
        return sticks, polysticks

    def _with_new_cards(
        self,
        sticks: list[Stick],
        polysticks: list[Polystick],
        more: list[Stick],
        more_polysticks: list[Polystick],
        size: tuple[int, int],
        homography: np.ndarray | None,
    ) -> tuple[list[Stick], list[Polystick]]:
        """The first look with each card the brighter look found and it did not: the card's sticks in place of
        the readings along them, kept where it is still that card among the first look's other sticks."""
        known = {p.card for p in polysticks if p.card is not None}
        for new in (p for p in more_polysticks if p.card is not None and p.card not in known):
            card = [(more[i].confidence, more[i].ends) for i in new.sticks]
            rowed = in_row([s.ends for s in sticks], card)
            first = [(s.confidence, s.ends) for s, inside in zip(sticks, rowed, strict=True) if not inside]
            merged = [Stick(e, score) for score, e in _distinct(first, card)]
            merged_polysticks = self._snapped(merged, size, homography)
            if any(p.card == new.card for p in merged_polysticks):
                sticks, polysticks = merged, merged_polysticks
                known.add(new.card)
        return sticks, polysticks

    def _snapped(self, sticks: list[Stick], size: tuple[int, int], homography: np.ndarray | None) -> list[Polystick]:
        """The polysticks of sticks gathered from several looks, snapped in the plane they give together (or
        calibration's)."""
        if not sticks:
            return []
        return self.polysticks(sticks, self.plane(np.array([s.ends for s in sticks]), size, homography), square=True)

    @staticmethod
    def plane(ends: np.ndarray, size: tuple[int, int], homography: np.ndarray | None) -> np.ndarray:
        """Image px -> table plane: calibration's if given, else the one the sticks give."""
        if homography is None:
            return table_plane(ends, size)
        return np.asarray(homography, np.float64)

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
