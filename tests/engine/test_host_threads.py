"""One executor shared by several threads: steps run one at a time, prints never mix.

Steps hand the GIL over while they run (test_host_gil.py), so without the executor's lock two
threads' steps would interleave in one interpreter.
"""

from __future__ import annotations

import threading

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor

THREADS = 8
STEPS = 6

# Each step checks that it is alone (`active`), prints many lines tagged with its thread,
# does enough work between prints for the GIL to change hands, and returns its tag.
CODE = """
active += 1
if active != 1:
    overlaps += 1
for i in range(200):
    print(f"{TAG}:{i}")
    s = sum(range(300))
active -= 1
TAG
"""


def test_eight_threads_share_one_executor():
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    ex.send_variables({"active": 0, "overlaps": 0})
    problems: list[str] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def worker(k: int) -> None:
        tag = f"t{k}"
        try:
            barrier.wait()
            for j in range(STEPS):
                out = ex(CODE.replace("TAG", repr(tag)))
                lines = out.logs.splitlines()
                expected = [f"{tag}:{i}" for i in range(200)]
                if out.output != tag or lines != expected:
                    problems.append(f"{tag} step {j}: {out.output!r} {lines[:2]}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert not problems, problems[:5]
    assert ex.state["overlaps"] == 0
    assert ex.state["active"] == 0


def test_a_tool_reentering_its_executor_gets_a_clear_error():
    ex = LocalPythonExecutor([])

    def nested() -> object:
        return ex("1 + 1").output

    ex.send_tools({"nested": nested})
    with pytest.raises(InterpreterError, match="already running a step on this thread"):
        ex("nested()")
    # the executor is not left locked
    assert ex("3 * 3").output == 9


def test_a_tool_may_use_another_executor():
    inner = LocalPythonExecutor([])
    inner.send_tools({})
    outer = LocalPythonExecutor([])
    outer.send_tools({"nested": lambda code: inner(code).output})
    assert outer("nested('2 ** 10')").output == 1024


def test_state_and_logs_of_a_failed_step_are_its_own():
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    results: dict[int, str] = {}

    def worker(k: int) -> None:
        try:
            ex(f"print('from {k}')\nfor i in range(2000):\n    pass\n1 / 0")
        except InterpreterError:
            results[k] = str(ex.state["_print_outputs"])

    # The state entries are read by the failing thread after its own step; another step may
    # have replaced them since, so each thread reads the step's logs from its own call.
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == THREADS
    for text in results.values():
        assert text.count("from ") <= 1  # never two steps' prints in one buffer
