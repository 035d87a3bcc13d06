"""The stick renderer lays a broken layout the way it is asked to."""

import numpy as np
import pytest

from models.synth.sticks import BROKEN_WAYS, StickSceneSpec, render_stick_scene


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
