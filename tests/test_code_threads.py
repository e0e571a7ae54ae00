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


@pytest.fixture
def ex():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # threading in process: the host's choice
        executor = LocalPythonExecutor(IMPORTS, isolation="none")
    executor.send_tools({})
    return executor


@pytest.mark.parametrize("program", [THREAD_TARGET, POOL_MAP, CAUGHT, GENERATOR],
                         ids=["thread-target", "pool-map", "caught", "generator"])
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
