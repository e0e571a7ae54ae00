"""WorkerPool(backend="ray"): a batch of 100 programs on a local Ray instance the test starts,
some of them calling a tool that reads data only the caller has."""

from __future__ import annotations

import time

import pytest

ray = pytest.importorskip("ray")

from smolagents_native import InterpreterError, WorkerPool  # noqa: E402


def make_lookup():
    table = {i: f"row-{i * i}" for i in range(100)}  # data the programs cannot reach

    def lookup(key, default=None):
        return table.get(key, default)

    return lookup


@pytest.mark.slow
@pytest.mark.no_sanitizer
def test_ray_batch_of_100_programs():
    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
    codes = [f"total = sum(range({i}))\nprint('n', {i})\ntotal" for i in range(90)]
    codes += [f"lookup({i}) + '/' + str(lookup(-1, default=0))" for i in range(9)]
    codes.append("import os")  # refused inside the sandbox, reported per program
    start = time.monotonic()
    with WorkerPool(size=2, backend="ray") as pool:
        started = time.monotonic()
        results = pool.run_many(codes, tools={"lookup": make_lookup()})
        ran = time.monotonic() - started
        shared = pool.run_many(codes, tools={"lookup": make_lookup()}, share_sandbox=True)
        with pytest.raises(TypeError, match="cannot be sent to the Ray actors"):
            import threading

            lock = threading.Lock()
            pool.run_many(["1"], tools={"locked": lambda: lock})
    assert not ray.is_initialized()
    assert [r.output for r in results[:90]] == [sum(range(i)) for i in range(90)]
    assert results[5].logs == "n 5\n"
    assert [r.output for r in results[90:99]] == [f"row-{i * i}/0" for i in range(9)]
    assert isinstance(results[99], InterpreterError)
    assert "Import of os is not allowed" in str(results[99])
    # the same batch, each actor's programs in one sandbox: the same results
    assert [r.output for r in shared[:99]] == [r.output for r in results[:99]]
    assert [r.logs for r in shared[:99]] == [r.logs for r in results[:99]]
    assert str(shared[99]) == str(results[99])
    print(f"ray: 100 programs in {ran:.2f} s ({100 / ran:.0f}/s); with start-up "
          f"{time.monotonic() - start:.2f} s")


@pytest.mark.slow
@pytest.mark.no_sanitizer
def test_a_dead_actor_is_replaced_and_its_programs_run_again():
    """Killing one of two actors mid-batch: its programs run again on a new actor, the other
    actor's results are kept, and the next batch runs on the replacement."""
    import threading

    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
    codes = [f"import time\ntime.sleep(0.05)\n{i} * 3" for i in range(40)]
    with WorkerPool(size=2, backend="ray") as pool:
        victim = pool._ray.actors[0]
        killer = threading.Timer(0.6, ray.kill, (victim,))
        killer.start()
        results = pool.run_many(codes, additional_authorized_imports=["time"])
        killer.join()
        assert [r.output for r in results] == [i * 3 for i in range(40)]
        assert pool._ray.actors[0] is not victim
        again = pool.run_many(["6 * 7", "1 + 1", "2", "3"])
        assert [r.output for r in again] == [42, 2, 2, 3]


def test_local_run_many_with_tools(pool):
    results = pool.run_many(["lookup(3)", "lookup(4) + '!'"], tools={"lookup": make_lookup()})
    assert [r.output for r in results] == ["row-9", "row-16!"]
