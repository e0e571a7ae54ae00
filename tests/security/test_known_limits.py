"""Documented limits of the in-process sandbox (docs/security.md, "What is not covered").

CPython 3.11 itself recurses in C without a depth check in a few places: hashing a deeply
nested tuple, deallocating some deep chains. Code can build such a structure within its
budgets; the crash depth depends on the C stack the step runs on. With a large C stack (a
thread started after `threading.stack_size(512 * 2**20)`) the depth the operation budget allows
is far below the crash depth. The default-stack case is recorded as an expected failure, run in
a subprocess so that it cannot take the test process down.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from conftest import mark_slow, new_executor

ROOT = Path(__file__).resolve().parents[2]

DEEP_TUPLE_HASH = "x = ()\nfor i in range(1_000_000):\n    x = (x,)\nhash(x)"


@mark_slow
def test_deep_tuple_hash_on_a_large_stack():
    result = []

    def work():
        # the time limit is not what this tests: generous for a loaded machine
        ex = new_executor(timeout=120)
        result.append(ex(DEEP_TUPLE_HASH).output)

    old = threading.stack_size(512 * 2**20)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert result and isinstance(result[0], int)


@mark_slow
def test_deep_tuple_hash_on_the_default_stack():
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from smolagents_native import LocalPythonExecutor, InterpreterError
        ex = LocalPythonExecutor([])
        ex.send_tools({{}})
        try:
            ex({DEEP_TUPLE_HASH!r})
        except InterpreterError:
            pass
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.returncode
