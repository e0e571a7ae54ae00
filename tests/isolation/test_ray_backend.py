"""WorkerPool(backend="ray"): a batch of 100 programs on a local Ray instance the test starts."""

from __future__ import annotations

import time

import pytest

ray = pytest.importorskip("ray")

from smolagents_native import InterpreterError, WorkerPool  # noqa: E402


@pytest.mark.slow
@pytest.mark.no_sanitizer
def test_ray_batch_of_100_programs():
    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
    codes = [f"total = sum(range({i}))\nprint('n', {i})\ntotal" for i in range(99)]
    codes.append("import os")  # refused inside the sandbox, reported per program
    start = time.monotonic()
    with WorkerPool(size=2, backend="ray") as pool:
        started = time.monotonic()
        results = pool.run_many(codes)
        ran = time.monotonic() - started
    assert not ray.is_initialized()
    assert [r.output for r in results[:99]] == [sum(range(i)) for i in range(99)]
    assert results[5].logs == "n 5\n"
    assert isinstance(results[99], InterpreterError)
    assert "Import of os is not allowed" in str(results[99])
    print(f"ray: 100 programs in {ran:.2f} s ({100 / ran:.0f}/s); with start-up "
          f"{time.monotonic() - start:.2f} s")
