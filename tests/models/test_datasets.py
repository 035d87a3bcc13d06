"""The training data's cache: blocks of seeds rendered once, read back as rendered, joined in the plan's order."""

import numpy as np

from models import datasets


def _worker(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return np.full((2, 3), seed, np.int32), np.array([seed, -seed])


def test_blocks_are_rendered_in_order_cached_and_joined(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets, "DATA_DIR", tmp_path)
    plan = [("first", _worker, 10, 2), ("empty", _worker, 50, 0), ("second", _worker, 30, 3)]
    x, y = datasets.render_joined(plan)
    assert x.shape == (10, 3)
    assert list(y) == [10, -10, 11, -11, 30, -30, 31, -31, 32, -32]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first-10-2.npz", "second-30-3.npz"]
    # A second run reads the caches: a worker that now fails is never called.
    again = datasets.render_blocks([(name, None, first, n) for name, _, first, n in plan])
    assert [len(b[1]) for b in again] == [4, 6]
    assert np.array_equal(np.concatenate([b[0] for b in again]), x)
