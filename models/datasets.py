"""Rendered training data, made on every core and cached in data/ so a second run reuses it."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from rich.progress import Progress

DATA_DIR = Path(__file__).resolve().parents[1] / "data"

Worker = Callable[[int], tuple[np.ndarray, np.ndarray]]
Block = tuple[str, Worker, int, int]  # a cache's name, its worker, the first seed and how many seeds


def render_cached(name: str, worker: Worker, first_seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """`worker(seed)` for `count` seeds from `first_seed`, each returning a batch of samples and labels,
    joined in seed order and cached as data/{name}-{first_seed}-{count}.npz."""
    DATA_DIR.mkdir(exist_ok=True)
    path = DATA_DIR / f"{name}-{first_seed}-{count}.npz"
    if path.is_file():
        data = np.load(path)
        return data["x"], data["y"]
    xs, ys = [], []
    with multiprocessing.Pool() as pool, Progress() as progress:
        task = progress.add_task(f"rendering {name}", total=count)
        for x, y in pool.imap(worker, range(first_seed, first_seed + count), chunksize=4):
            xs.append(x)
            ys.append(y)
            progress.advance(task)
    x, y = np.concatenate(xs), np.concatenate(ys)
    np.savez(path, x=x, y=y)
    return x, y


def render_blocks(plan: Sequence[Block]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The plan's blocks that have any seeds, each rendered or read from its cache, in the plan's order."""
    return [render_cached(*block) for block in plan if block[3]]


def render_joined(plan: Sequence[Block]) -> tuple[np.ndarray, np.ndarray]:
    """The plan's blocks joined into one set of samples and one of labels."""
    blocks = render_blocks(plan)
    return np.concatenate([x for x, _ in blocks]), np.concatenate([y for _, y in blocks])
