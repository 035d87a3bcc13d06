"""The stick renderer lays a broken layout the way it is asked to, and draws pick-up sticks thin and pointed."""

import numpy as np
import pytest

from models.synth.sticks import BROKEN_WAYS, MIKADO_SLENDERNESS, StickSceneSpec, render_stick_scene


def _crosses(a: np.ndarray, b: np.ndarray) -> bool:
    """Do the segments a and b (2x2) cross?"""

    def side(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> float:
        return float((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    return side(a[0], a[1], b[0]) * side(a[0], a[1], b[1]) < 0 and side(b[0], b[1], a[0]) * side(b[0], b[1], a[1]) < 0


@pytest.mark.parametrize("way", BROKEN_WAYS)
def test_a_broken_layout_is_broken_the_way_asked(way: str) -> None:
    for seed in range(3):
        scene = render_stick_scene(seed, StickSceneSpec(kind="illegal", broken=way, size=(640, 360), stick_px=(50, 70)))
        assert scene.kind == f"illegal:{way}"
        moved, rest = scene.sticks[-1].ends, [s.ends for s in scene.sticks[:-1]]
        # Only a crossing stick crosses another; the others touch the layout or turn on a shared end.
        assert any(_crosses(moved, other) for other in rest) == (way == "crossing")


def _contrast(image: np.ndarray, ends: np.ndarray, along: float, off: float) -> float:
    """How far the picture on the stick's axis, `along` its length from the first end, differs in colour from
    the table `off` px to either side of it (the nearer in colour)."""
    axis = ends[1] - ends[0]
    normal = np.array([-axis[1], axis[0]]) / np.linalg.norm(axis)
    at = ends[0] + along * axis

    def colour(p: np.ndarray) -> np.ndarray:
        x, y = np.round(p).astype(int)
        return image[y, x].astype(float)

    return min(float(np.linalg.norm(colour(at) - colour(at + s * off * normal))) for s in (-1, 1))


def test_mikado_sticks_are_slender_and_fade_to_a_point_at_both_ends() -> None:
    middle, tips = [], []
    for seed in range(6):
        spec = StickSceneSpec(kind="lattice", material="mikado", stick_px=(150, 200), max_tilt=20)
        scene = render_stick_scene(seed, spec)
        assert set(scene.materials) == {"mikado"}
        lo, hi = MIKADO_SLENDERNESS
        assert lo <= scene.length_mm / scene.thickness_mm <= hi
        for stick in scene.sticks:
            middle.append(_contrast(scene.image, stick.ends, 0.5, 6))
            tips += [_contrast(scene.image, stick.ends, t, 6) for t in (0.005, 0.995)]
    # The tips are a fraction of a pixel wide: the table shows through them.
    assert np.median(tips) < 0.5 * np.median(middle)
    assert np.median(middle) > 20
