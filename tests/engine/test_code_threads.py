"""Threads the code starts, in process (docs/compatibility.md, "Threads"); the process-mode
cases are in tests/isolation/test_code_threads.py."""

from __future__ import annotations

import time
import warnings

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor

from code_threads_cases import (
    AFTER_STEP,
    CAUGHT,
    DEL_NAMED,
    GENERATOR,
    HOST_TARGET,
    IMPORTS,
    LONG_AFTER_STEP,
    MESSAGE,
    POOL_MAP,
    THREAD_TARGET,
)

# the refused threads' errors reach threading.excepthook, as in CPython
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


@pytest.fixture(autouse=True)
def threads_end_with_the_test():
    """The threads a test's program started have ended when it returns (a later test in the
    same process compares the host's thread count: tests/security/test_inprocess_modules.py)."""
    import threading

    import gc

    before = threading.active_count()
    yield
    # an aborted step leaves its ThreadPoolExecutor in the state, unshut: its idle workers
    # end when it is collected (the test's executor is gone by now)
    gc.collect()
    deadline = time.monotonic() + 30
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
        gc.collect()


@pytest.fixture
def ex():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # threading in process: the host's choice
        executor = LocalPythonExecutor(IMPORTS, isolation="none")
    executor.send_tools({})
    yield executor
    executor.state.clear()  # the code's pools and threads: collectable


@pytest.mark.parametrize("program", [THREAD_TARGET, POOL_MAP, CAUGHT, GENERATOR, DEL_NAMED],
                         ids=["thread-target", "pool-map", "caught", "generator", "del-named"])
def test_a_call_from_a_code_thread_ends_the_step(ex, program):
    with pytest.raises(InterpreterError, match=MESSAGE):
        ex(program)
    # the executor stays usable, its next step is not aborted
    assert ex("1 + 1").output == 2


def test_host_callables_run_on_code_threads(ex):
    assert ex(HOST_TARGET).output == "ok"


def test_a_call_after_the_step_runs(ex):
    assert ex(AFTER_STEP).output == "started"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and ex("len(fired)").output == 0:
        time.sleep(0.1)
    assert ex("fired").output == [1]


def test_a_step_waits_for_a_call_still_running_on_another_thread(ex):
    assert ex(LONG_AFTER_STEP).output == "started"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and ex("len(marks)").output == 0:
        time.sleep(0.02)
    # the call has started (or ended): this step waits for its end
    assert ex("marks[:]").output == ["start", "end"]


HOOK_STREAM = """
import sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {root!r})
import smolagents_native as sn
ex = sn.LocalPythonExecutor(["threading", "itertools", "collections"], isolation="none")
ex.send_tools({{}})
ex(\"\"\"
import threading, itertools, collections
def f(x):
    return x
threading.Timer(0.2, collections.deque, args=(map(f, itertools.repeat(None, 10**8)), 0)).start()
\"\"\")
time.sleep(0.6)
print("host main thread runs", flush=True)
import os
os._exit(0)
"""


def test_short_hooks_in_a_host_loop_hand_the_gil_over():
    """A thread the code started calls its function from a host C loop after the step: each
    call is a short hook window; the GIL is handed over at the switch interval between them,
    as CPython's eval loop would (the host's main thread was starved for the whole loop)."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run([sys.executable, "-c", HOOK_STREAM.format(root=root)],
                          capture_output=True, text=True, timeout=120)
    assert "host main thread runs" in proc.stdout, proc.stderr[-2000:]


BLOCKED_HOOK = """
import threading
from concurrent.futures import Future
blocker = Future()
def later():
    blocker.result()
threading.Timer(0.1, later).start()
"started"
"""


def test_a_step_waits_for_a_blocked_call_at_most_its_timeout():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ex = LocalPythonExecutor(IMPORTS, isolation="none", timeout_seconds=1)
    ex.send_tools({})
    assert ex(BLOCKED_HOOK).output == "started"
    time.sleep(0.5)  # the call has started and blocks in a host wait
    with pytest.raises(RuntimeError, match="already running a step"):
        ex("1 + 1")
    ex.state["blocker"].set_result(None)  # the call ends: the executor is usable again
    deadline = time.monotonic() + 30
    while True:
        try:
            assert ex("2 + 2").output == 4
            break
        except RuntimeError:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_a_hook_that_joins_a_thread_calling_the_code_ends_with_the_error(ex):
    """A function of the code that host code calls after the step (a test method run by
    unittest) starts threads whose target is the code's and joins them: the threads' calls
    wait for that call at most a second (it may be a concurrent host call that ends soon),
    then fail, and the call that started them ends with the same error instead of a result
    computed without them (it used to wait the whole timeout: a hang until then)."""
    ex("""
import threading
def count_in_threads():
    hits = []
    def work():
        hits.append(1)
    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return len(hits)
""")
    t0 = time.monotonic()
    with pytest.raises(InterpreterError, match="runs only on the thread"):
        ex.state["count_in_threads"]()
    assert time.monotonic() - t0 < 15
    assert ex("1 + 1").output == 2
    assert ex("count_in_threads.__name__").output == "count_in_threads"
