"""Sticks the lattice asks for, where the network's reading falls short of a DIGIT card: faint readings that
complete one (`add_faint_sticks`), unsure extras that keep a touching group from being one dropped
(`drop_unsure_extras`), and groups that are no card read again on their own lattice from the network's centre
heat (`reread_layouts`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cache

import numpy as np

from vision.geometry import to_plane
from vision.sticks.detections import Polystick
from vision.sticks.lattice import (
    could_share_a_card,
    covered_shares,
    group,
    nearest_on_segments,
    segment_distance,
    snapped_card,
    touch_matrix,
)
from vision.sticks.reread import reread_group
from vision.sticks.rims import outside_outlines
from vision.sticks.seams import row_line

MIN_STICK_PX = 20.0  # a stick shorter than this in the picture is not read
COVERED = 0.7  # a reading lying this much of its length along better ones reads nothing new
COMPLETION_STATES = 4000  # a bound on the search for faint completions, for a dense heap's sake
NEAR_GROUP = 0.6  # of a stick: groups this near may be one layout with a stick read short
# A layout read again on its lattice (reread_layouts) is not taken where an end peak of STRONG_END or more lies
# within LEFT_OUT_NEAR of a stick of it but LEFT_OUT_OFF or more from all their ends: a stick is there that the
# look did not read, most often one crossing the layout, and the faint readings the lattice took in its place
# made a broken layout a card. On the two 330-layout held-out sets this turned 4 of 220 broken layouts read as
# a card into no card and cost no layout; at 0.3 it turned one more and cost 3 layouts of each set.
STRONG_END = 0.5
LEFT_OUT_NEAR = 0.5  # of the sticks' median length, and so below
LEFT_OUT_OFF = 0.3
IN_ROW = 0.12  # of a stick's length: how far off a row's line a reading of the row may lie (in_row)
UNSURE = 0.6  # a reading under this score may be dropped where it alone keeps a layout from being a card


def _stick_left_out(sticks: list[np.ndarray], strong_ends: np.ndarray) -> bool:
    """Whether one of the end peaks `strong_ends` (n x 2) lies near the sticks (rows of ends 2x2, all in
    picture px) but at none of their ends (see STRONG_END)."""
    if not len(strong_ends):
        return False
    segments = np.array(sticks, np.float64)
    unit = float(np.median(np.linalg.norm(segments[:, 1] - segments[:, 0], axis=1)))
    near = nearest_on_segments(strong_ends, segments)[1].min(axis=1) <= LEFT_OUT_NEAR * unit
    off_ends = np.linalg.norm(strong_ends[:, None] - segments.reshape(-1, 2)[None], axis=2).min(axis=1)
    return bool((near & (off_ends >= LEFT_OUT_OFF * unit)).any())


def add_faint_sticks(
    found: list[tuple[float, np.ndarray]],
    faint: list[tuple[float, np.ndarray]],
    plane: np.ndarray,
    shows_body: Callable[[np.ndarray], bool] | None = None,
) -> list[tuple[float, np.ndarray]]:
    """`found` with the faint readings that make a pattern of five sticks, a DIGIT card, with found ones
    touching them: the completion needing the fewest faint sticks first, of those the one whose weakest
    faint stick is surest, again until none is left. A stick the network barely marks is taken only where
    the lattice asks for it: the layouts read are all five-stick patterns, and sticks that fall on its edges
    and make a card are strong evidence. At least one read stick must be part of it, and each faint one must
    pass `shows_body` (vision/sticks/bodies.py's `body_gauge`) if given.
    """
    found = list(found)
    n = len(found)
    if not n:
        return found
    found_ends = to_plane(plane, np.array([e for _, e in found], np.float64))
    if not faint or not np.isfinite(found_ends).all():
        return found
    groups = group(found_ends)
    if all(len(g) >= 5 for g in groups):
        return found
    faint = sorted(faint, key=lambda c: -c[0])
    shares = covered_shares([e for _, e in faint], [e for _, e in found])
    options = [
        (score, candidate)
        for (score, candidate), share in zip(faint, shares, strict=True)
        if np.linalg.norm(candidate[1] - candidate[0]) >= MIN_STICK_PX and share < COVERED
    ]
    if not options:
        return found
    option_ends = to_plane(plane, np.array([c for _, c in options], np.float64))
    seen = np.isfinite(option_ends).all(axis=(1, 2))  # not beyond the table's horizon
    options = [o for o, ok in zip(options, seen, strict=True) if ok]
    if not options:
        return found
    ends = np.concatenate([found_ends, option_ends[seen]])
    touches = touch_matrix(ends)
    in_group = np.zeros((n, len(groups)), bool)
    for g, members in enumerate(groups):
        in_group[members, g] = True
    touches_found = [set(np.flatnonzero(row).tolist()) for row in touches[n:, :n].astype(int) @ in_group]
    touches_option = [set(np.flatnonzero(touches[n + k, n:]).tolist()) for k in range(len(options))]
    could_share = could_share_a_card(ends)  # sets holding a pair that could not be in one card are not grown
    best: tuple[int, float, frozenset[int]] | None = None
    tried: set[tuple[frozenset[int], frozenset[int]]] = set()

    @cache
    def has_body(k: int) -> bool:
        return shows_body is None or shows_body(options[k][1])

    def grow(chosen: frozenset[int], joined: frozenset[int]) -> None:
        nonlocal best
        size = len(chosen) + sum(len(groups[g]) for g in joined)
        if size > 5 or (chosen, joined) in tried or len(tried) >= COMPLETION_STATES:
            return
        members = [j for g in joined for j in groups[g]] + [n + k for k in chosen]
        if not could_share[np.ix_(members, members)].all():
            return
        tried.add((chosen, joined))
        if size == 5:
            weakest = min(options[k][0] for k in chosen)
            if best is not None and (len(chosen), -weakest) >= (best[0], -best[1]):
                return
            if snapped_card(ends[members], square=True) is not None and all(has_body(k) for k in chosen):
                best = (len(chosen), weakest, chosen)
            return
        reach = set().union(*(touches_option[k] for k in chosen)) | {
            k for k in range(len(options)) if touches_found[k] & joined
        }
        for k in reach - chosen:
            grow(chosen | {k}, joined | touches_found[k])

    for g, members in enumerate(groups):
        if len(members) < 5:
            grow(frozenset(), frozenset({g}))
    if best is None:
        return found
    chosen = best[2]
    return add_faint_sticks(
        found + [options[k] for k in chosen], [o for k, o in enumerate(options) if k not in chosen], plane, shows_body
    )


def drop_unsure_extras(found: list[tuple[float, np.ndarray]], plane: np.ndarray) -> list[tuple[float, np.ndarray]]:
    """`found` without the one or two unsure readings (score under UNSURE) that keep a touching group of six
    or seven from being a DIGIT card: a seam or a shadow read as a stick against a layout. Of the ways to
    leave five that make a card, the one dropping the least confident readings; but none that drops a reading
    surer than a stick it keeps: a stick turned off a broken layout, read beside a faint piece where a legal
    layout would have one, is no extra (broken layouts read as a card 21 -> 17 of 550 held-out). A straight
    row is cut whatever the scores: readings running on along its line are a seam's, or phantoms past a row's
    ends, and the seam check judges the row cut from it (vision/sticks/seams.py)."""
    if len(found) < 6:
        return found
    ends = to_plane(plane, np.array([e for _, e in found], np.float64))
    if not np.isfinite(ends).all():
        return found
    dropped: set[int] = set()
    for members in group(ends):
        if not 6 <= len(members) <= 7 or snapped_card(ends[members], square=True) is not None:
            continue
        unsure = [i for i in members if found[i][0] < UNSURE]
        straight = row_line(np.array([found[i][1] for i in members])) is not None
        ways = [
            out
            for out in itertools.combinations(unsure, len(members) - 5)
            if snapped_card(ends[[i for i in members if i not in out]], square=True) is not None
            and (straight or max(found[i][0] for i in out) <= min(found[i][0] for i in members if i not in out))
        ]
        if ways:
            dropped |= set(min(ways, key=lambda out: sorted((found[i][0] for i in out), reverse=True)))
    return [f for i, f in enumerate(found) if i not in dropped]


def _near(ends: np.ndarray, a: list[int], b: list[int]) -> bool:
    """Whether an end of one group of sticks (rows of `ends`, table plane) lies within NEAR_GROUP of the
    sticks' median length of a stick of the other."""
    reach = NEAR_GROUP * float(np.median(np.linalg.norm(ends[a + b, 1] - ends[a + b, 0], axis=1)))
    return any(
        segment_distance(point, *ends[j])[0] <= reach
        for first, second in ((a, b), (b, a))
        for i in first
        for point in ends[i]
        for j in second
    )


def _laid(cards: list[np.ndarray], members: list[int], found: list[tuple[float, np.ndarray]]) -> list[np.ndarray]:
    """The sticks of a card read again on its lattice that lie along none of the group's readings (COVERED of
    their length): those the re-read laid from the network's centre heat alone."""
    shares = covered_shares(np.array(cards), np.array([found[i][1] for i in members]))
    return [ends for ends, share in zip(cards, shares, strict=True) if share < COVERED]


def reread_layouts(
    found: list[tuple[float, np.ndarray]],
    polysticks: list[Polystick],
    plane: np.ndarray,
    stick_heat: Callable[[np.ndarray, np.ndarray], np.ndarray],
    ignore: list[np.ndarray] = (),
    strong_ends: np.ndarray | None = None,
    shows_body: Callable[[np.ndarray], bool] | None = None,
    end_points: np.ndarray | None = None,
) -> list[tuple[float, np.ndarray]]:
    """`found` with each of its touching groups (`polysticks`) that is no card, or two such groups near each
    other (a stick read short leaves a gap), read again on its lattice where that makes one
    (vision/sticks/reread.py); `found` itself if none does. A card with a stick on an outline to `ignore`
    is not taken, nor one that leaves out a stick the end peaks `strong_ends` show (STRONG_END), nor one
    with a stick along no reading that fails `shows_body` (vision/sticks/bodies.py's `body_gauge`)."""
    open_groups = [list(p.sticks) for p in polysticks if p.card is None]
    ends = to_plane(plane, np.array([e for _, e in found], np.float64))
    if not np.isfinite(ends).all():
        return found
    pairs = [a + b for a, b in itertools.combinations(open_groups, 2) if _near(ends, a, b)]
    result, used = found, set()
    for members in open_groups + pairs:
        if used & set(members):
            continue
        cards = reread_group([found[i] for i in members], plane, stick_heat, end_points)
        if cards is None or len(outside_outlines(cards, ignore)) < len(cards):
            continue
        if strong_ends is not None and _stick_left_out([e for _, e in cards], strong_ends):
            continue
        if shows_body is not None and not all(map(shows_body, _laid([e for _, e in cards], members, found))):
            continue
        others = [r for r in result if all(r is not found[i] for i in members)]
        others = [r for r, inside in zip(others, in_row([e for _, e in others], cards), strict=True) if not inside]
        both = to_plane(plane, np.array([e for _, e in cards + others], np.float64))
        # A card read this way that now touches other sticks would make a larger group: no card after all.
        if np.isfinite(both).all() and not touch_matrix(both)[:5, 5:].any():
            result = others + cards
            used |= set(members)
    return result


def in_row(readings: list[np.ndarray], card: list[tuple[float, np.ndarray]]) -> list[bool]:
    """Which readings (ends 2x2, image px) lie in the line of `card` where its sticks lie in one row (the I
    card), both ends within IN_ROW of a stick's length of it: that row read in pieces or runs, which a reading
    of the row stick by stick replaces. None do where the card is no row."""
    row = row_line(np.array([e for _, e in card])) if readings else None
    if row is None:
        return [False] * len(readings)
    (a, b), _, length = row
    _, off = nearest_on_segments(np.array(readings, np.float64), np.array([[a, b]]))
    return (off[..., 0] <= IN_ROW * length).all(axis=-1).tolist()
