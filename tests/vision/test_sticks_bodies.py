"""The body checks: on sticks read from end peaks alone (rendered broken layouts with a crossed stick), and on
sticks a completion lays (rendered layouts with and without the stick)."""

import math
from dataclasses import replace

import numpy as np

from models.synth.sticks import StickSceneSpec, render_stick_scene
from rules.sticks import shape_for_card
from vision.sticks.bodies import body_gauge, with_bodies
from vision.sticks.lattice import crossing

SCENES = 24


def _turned(ends: np.ndarray, about: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return (ends - about) @ np.array([[c, s], [-s, c]]) + about


def test_a_crossing_stick_shows_its_body_and_a_line_across_bare_table_does_not() -> None:
    """Each held-out broken layout's crossing stick, read on its true ends, passes against the stick it
    crosses; the same stick turned 40 degrees about the crossing point, over bare table, mostly does not
    (checks and veins give a line across them steps of their own: 8 of these 24 pass)."""
    kept = turned_kept = scenes = 0
    for seed in range(SCENES):
        scene = render_stick_scene(7_000_000 + seed, StickSceneSpec(split="heldout", kind="illegal", broken="crossing"))
        moved = scene.sticks[-1].ends.astype(np.float64)  # the renderer lists the moved stick last
        crossed = [s.ends.astype(np.float64) for s in scene.sticks[:-1] if crossing(*moved, *s.ends) is not None]
        if len(crossed) != 1:
            continue
        (target,) = crossed
        t, _ = crossing(*moved, *target)
        point = moved[0] + t * (moved[1] - moved[0])
        fakes = [_turned(moved, point, sign * math.radians(40)) for sign in (-1, 1)]
        fakes = [f for f in fakes if crossing(*f, *target) is not None]
        scenes += 1
        kept += len(with_bodies(scene.image, [(1.0, moved, target)]))
        turned_kept += len(with_bodies(scene.image, [(1.0, f, target) for f in fakes[:1]]))
    assert scenes >= SCENES // 2
    assert kept >= 0.9 * scenes
    assert turned_kept <= 0.4 * scenes


def test_a_stick_laid_to_complete_a_layout_shows_a_body_only_where_one_lies() -> None:
    """Each held-out card's layout rendered whole and again without its last stick (one camera and lattice):
    that stick's place, judged against the other four, shows a body where the stick lies and mostly not on
    the bare table left without it (patterned held-out tables give a line steps of their own). Measured: 49
    of 49 and 17 of 49."""
    shown = bare = judged = 0
    for k in range(55):
        edges = tuple(sorted(shape_for_card(k + 1)))
        spec = StickSceneSpec(split="heldout", kind="lattice", edges=edges, origin=(0.0, 0.0))
        whole = render_stick_scene(7_100_000 + k, spec)
        short = render_stick_scene(7_100_000 + k, replace(spec, edges=edges[:-1]))
        ends = [s.ends.astype(np.float64) for s in whole.sticks]
        if not all(_same(a.ends, b) for a, b in zip(short.sticks, ends[:4], strict=True)):
            continue  # the short layout's camera was drawn again: it did not fit the frame as the whole did
        judged += 1
        shown += body_gauge(whole.image, ends[:4])(ends[4])
        bare += body_gauge(short.image, [s.ends.astype(np.float64) for s in short.sticks])(ends[4])
    assert judged >= 40
    assert shown >= 0.95 * judged
    assert bare <= 0.4 * judged


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, atol=0.5) or np.allclose(a, b[::-1], atol=0.5))
