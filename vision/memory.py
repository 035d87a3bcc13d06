"""Freed memory kept for the next frame.

A frame's working arrays are a few megabytes each (a 1280x720 colour frame is 2.7 MB). glibc's malloc maps
such blocks afresh and returns the top of its heap to the system as the allocation pattern shifts, so every
frame could pay for the same pages again: on the Tempus row 1845 page faults a frame, 3 ms of the card reader's
55, and a change in one stage's arrays moved the faults into another (models/digit_cards.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1  # mallopt's parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024  # the largest glibc takes on 64-bit: blocks under it come from the heap
TRIM_THRESHOLD = 256 * 1024 * 1024  # free memory at the heap's top kept, up to this much


def keep_freed_memory() -> bool:
    """Have malloc serve frame-sized blocks from its heap and keep what is freed there for the next frame.
    Whether it could (only glibc has `mallopt`); a process-wide setting, made once at start."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c")).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
