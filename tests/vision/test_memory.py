"""Freed frame memory kept in malloc's heap (vision/memory.py)."""

import numpy as np

from vision.memory import keep_freed_memory


def test_freed_memory_is_kept_where_malloc_allows_it() -> None:
    assert keep_freed_memory()  # glibc, as on every machine the project runs on
    frame = np.ones((720, 1280, 3), np.uint8)
    assert int(frame.sum()) == frame.size  # memory from the heap is memory as before
