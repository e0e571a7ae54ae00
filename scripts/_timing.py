"""Timing helper shared by the benchmark scripts of this directory."""

from __future__ import annotations

import statistics
import time


def median_us(ex, code: str, n: int) -> float:
    """The median time of `n` runs of `code` by executor `ex`, in µs, after one warm-up run
    (the worker started, the program lowered)."""
    ex(code)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        ex(code)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6
