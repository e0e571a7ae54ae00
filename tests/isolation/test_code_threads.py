"""Threads the code starts, in a process-mode worker (threading is outside the in-process
table, so this is the default for these imports); cases in tests/code_threads_cases.py. The
code's threads live in the worker: the host's thread count is the pool's business (the
in-process file waits for the code's threads to end; here they end with the worker)."""

from __future__ import annotations

import time

import pytest

from smolagents_native import InterpreterError

from code_threads_cases import (
    AFTER_STEP,
    CAUGHT,
    DEL_NAMED,
    GENERATOR,
    HOST_TARGET,
    IMPORTS,
    MESSAGE,
    POOL_MAP,
    THREAD_TARGET,
)


@pytest.mark.parametrize("program", [THREAD_TARGET, POOL_MAP, CAUGHT, GENERATOR, DEL_NAMED],
                         ids=["thread-target", "pool-map", "caught", "generator", "del-named"])
def test_a_call_from_a_code_thread_ends_the_step(make_process_executor, program):
    ex = make_process_executor(IMPORTS)
    with pytest.raises(InterpreterError, match=MESSAGE):
        ex(program)
    assert ex("1 + 1").output == 2


def test_host_callables_run_on_code_threads(make_process_executor):
    assert make_process_executor(IMPORTS)(HOST_TARGET).output == "ok"


def test_a_call_after_the_step_runs(make_process_executor):
    ex = make_process_executor(IMPORTS)
    assert ex(AFTER_STEP).output == "started"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and ex("len(fired)").output == 0:
        time.sleep(0.1)
    assert ex("fired").output == [1]
