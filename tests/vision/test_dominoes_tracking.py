"""Tiles followed over a filmed table (vision/dominoes/tracking.py): each tile laid counts once, timed at the
first frame of its run, with the pips read most often; glimpses never count; a tile gone long enough leaves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.dominoes import Domino, Half
from vision.dominoes.tile import TileFrame
from vision.dominoes.tracking import FORGET_SECONDS, TileTracker

FPS = 8
WIDTH = 40.0  # px across a tile


def _reading(center: np.ndarray, angle: float, pips: tuple[int, int], rng: np.random.Generator) -> Domino:
    """The tile as one frame reads it: a little off, from either end."""
    along = WIDTH * np.array([np.cos(angle), np.sin(angle)])
    frame = TileFrame(center + rng.normal(0, 1.5, 2), along * rng.normal(1, 0.04), np.array([-along[1], along[0]]) / 2)
    if rng.random() < 0.5:
        frame, pips = frame.turned(), pips[::-1]
    a, b = frame.halves()
    return Domino(frame.corners(), (Half(a, pips[0]), Half(b, pips[1])), 0.9)


tiles = st.lists(
    st.tuples(st.integers(0, 40), st.tuples(st.integers(0, 6), st.integers(0, 6)), st.floats(0, 2 * np.pi)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(laid=tiles, seed=st.integers(0, 2**32 - 1))
def test_each_tile_laid_counts_once_at_its_first_frame_with_its_pips(laid: list, seed: int) -> None:
    """Tiles laid on a row at the given frames, each missed in a frame now and then after it counted and read
    with a wrong pip in one frame in five, among glimpses of things that are not tiles (1-2 frames each)."""
    rng = np.random.default_rng(seed)
    places = [np.array([60.0 + 90 * k, 300.0]) for k in range(len(laid))]
    tracker = TileTracker()
    changes = []
    for n in range(60):
        readings = []
        for (first, pips, angle), place in zip(laid, places, strict=True):
            counted = n >= first + 3
            if n < first or (counted and rng.random() < 0.15):
                continue
            shown = pips if rng.random() < 0.8 or n < first + 3 else ((pips[0] + 1) % 7, pips[1])
            readings.append(_reading(place, angle, shown, rng))
        if n % 7 == 3:  # a glimpse far from the tiles, gone before it could count
            readings.append(_reading(np.array([500.0, 600.0 + 50 * rng.random()]), 0.0, (5, 5), rng))
        change = tracker.add(n / FPS, readings)
        if change is not None:
            changes.append(change)
    assert all(not change.left for change in changes)
    timed = sorted(t for change in changes for t in [change.seconds] * len(change.laid))
    assert timed == sorted(first / FPS for first, _, _ in laid)
    final = tracker.tiles
    assert len(final) == len(laid)
    assert sorted(tuple(sorted(d.pips)) for d in final.values()) == sorted(tuple(sorted(p)) for _, p, _ in laid)


def test_a_tile_hidden_for_a_moment_stays_and_one_taken_away_leaves() -> None:
    rng = np.random.default_rng(0)
    tracker = TileTracker()
    a, b = np.array([100.0, 100.0]), np.array([300.0, 100.0])
    changes = []
    for n in range(100):
        seconds = n / FPS
        hidden = 20 <= n < 20 + FPS * FORGET_SECONDS / 2  # a hand over tile b for half the time allowed
        taken = n >= 60
        readings = [_reading(a, 0.3, (2, 5), rng)]
        if not hidden and not taken:
            readings.append(_reading(b, 1.2, (4, 4), rng))
        change = tracker.add(seconds, readings)
        if change is not None:
            changes.append(change)
    assert [len(c.laid) for c in changes] == [2, 0]
    gone = changes[1]
    assert len(gone.left) == 1 and gone.seconds == 59 / FPS  # when it was last seen
    assert [d.pips for d in gone.tiles.values()] in ([(2, 5)], [(5, 2)])


@settings(max_examples=40, deadline=None)
@given(laid=tiles, shaded=st.lists(st.integers(3, 6), min_size=8, max_size=8), seed=st.integers(0, 2**32 - 1))
def test_a_tile_misread_as_it_settled_is_read_again_once_outvoted(laid: list, shaded: list, seed: int) -> None:
    """Each tile read with a wrong pip for its first `k` frames (a hand's shadow as it settles), then right:
    it counts with the wrong pips, and is read again once, at the frame whose vote tips it (the k+1st right)."""
    rng = np.random.default_rng(seed)
    places = [np.array([60.0 + 90 * k, 300.0]) for k in range(len(laid))]
    shaded = shaded[: len(laid)]
    tracker = TileTracker()
    changes = []
    for n in range(60):
        readings = []
        for (first, pips, angle), k, place in zip(laid, shaded, places, strict=True):
            if n >= first:
                shown = pips if n >= first + k else ((pips[0] + 1) % 7, pips[1])
                readings.append(_reading(place, angle, shown, rng))
        change = tracker.add(n / FPS, readings)
        if change is not None:
            changes.append((n, change))
    reread = {}  # tile laid -> the frame that read it again, and as what
    for n, change in changes:
        for i in change.reread:
            tile = change.tiles[i]
            which = int(np.argmin([np.linalg.norm(tile.center - place) for place in places]))
            assert which not in reread
            reread[which] = (n, tuple(sorted(tile.pips)))
        if not change.laid and not change.left:
            assert change.seconds == n / FPS
    assert reread == {
        which: (first + 2 * k, tuple(sorted(pips)))
        for which, ((first, pips, _), k) in enumerate(zip(laid, shaded, strict=True))
    }


def test_a_tile_wavering_between_two_readings_is_not_read_again_at_every_frame() -> None:
    """Read 3 frames as 2|5, then 4 as 3|5 (read again once), then each reading in turn: the votes tie every
    other frame, and a tie keeps what the table has."""
    rng = np.random.default_rng(5)
    tracker = TileTracker()
    shown = [(2, 5)] * 3 + [(3, 5)] * 4 + [(2, 5), (3, 5)] * 6
    changes = [
        tracker.add(n / FPS, [_reading(np.array([200.0, 200.0]), 0.4, pips, rng)]) for n, pips in enumerate(shown)
    ]
    said = [(n, change) for n, change in enumerate(changes) if change is not None]
    assert [(n, bool(c.laid), bool(c.reread)) for n, c in said] == [(2, True, False), (6, False, True)]
    assert sorted(next(iter(tracker.tiles.values())).pips) == [3, 5]


@settings(max_examples=30, deadline=None)
@given(missed=st.lists(st.sets(st.integers(0, 3), max_size=4), min_size=20, max_size=20), seed=st.integers(0, 2**32))
def test_hidden_are_the_tiles_counted_that_the_latest_frame_missed(missed: list, seed: int) -> None:
    """Four tiles read in every frame at first, then each missed in the frames `missed` names: hidden holds
    exactly the counted tiles the latest frame did not read (none, while every one is read)."""
    rng = np.random.default_rng(seed)
    places = [np.array([60.0 + 90 * k, 300.0]) for k in range(4)]
    tracker = TileTracker()
    for n in range(3):
        tracker.add(n / FPS, [_reading(p, 0.0, (k, 6), rng) for k, p in enumerate(places)])
    ids = sorted(tracker.tiles)
    assert len(ids) == 4 and tracker.hidden == ()
    for n, skip in enumerate(missed, start=3):
        tracker.add(n / FPS, [_reading(p, 0.0, (k, 6), rng) for k, p in enumerate(places) if k not in skip])
        assert sorted(tracker.hidden) == sorted(ids[k] for k in skip)  # 20 frames: none forgotten yet


@settings(max_examples=40, deadline=None)
@given(gap=st.integers(0, 8), misread=st.integers(0, 10), seed=st.integers(0, 2**32), in_hand=st.booleans())
def test_a_tile_put_where_another_lay_in_the_hand_is_another_tile(gap: int, misread: int, seed: int, in_hand) -> None:
    """A tile counted (read in 12 frames), then out of sight for `gap` frames, then read as 5|5 for `misread`
    frames and as itself again: in the hand area (`replaceable`) another tile (left and laid, timed at its first
    frame) only after 3 frames out of sight and 6 read so; else, and anywhere else, nothing changes (a hand over
    a laid tile's pips misreads it). The tile beside it never changes."""
    rng = np.random.default_rng(seed)
    here, beside = np.array([100.0, 300.0]), np.array([190.0, 300.0])
    tracker = TileTracker(replaceable=lambda domino: in_hand and domino.center[0] < 150)
    frames = [[(1, 2)]] * 12 + [[]] * gap + [[(5, 5)]] * misread + [[(1, 2)]] * 5
    changes = []
    for n, tiles in enumerate(frames):
        readings = [_reading(here, 0.0, pips, rng) for pips in tiles] + [_reading(beside, 0.0, (3, 4), rng)]
        if (change := tracker.add(n / FPS, readings)) is not None:
            changes.append(change)
    first, kept = changes[0].laid
    assert [tuple(sorted(changes[0].tiles[i].pips)) for i in (first, kept)] == [(1, 2), (3, 4)]
    after = [(c.seconds, c.left, len(c.laid)) for c in changes[1:]]
    if in_hand and gap >= 3 and misread >= 6:
        assert after == [((12 + gap) / FPS, (first,), 1)]
        new = changes[1].laid[0]
        assert tuple(sorted(changes[1].tiles[new].pips)) == (5, 5) and kept in changes[1].tiles
    else:
        assert after == [] and sorted(tracker.tiles) == [first, kept]
        assert tuple(sorted(tracker.tiles[first].pips)) == (1, 2)
