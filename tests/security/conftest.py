"""Shared helpers of the security suite (docs/security.md).

`refused(...)` is the one assertion every attack goes through: the step must end with
InterpreterError (or ExecutionTimeoutError), with a message that says *why* (a policy or budget
refusal, not any error), with no side effect (the canary file was not created, host state did
not change, SECRET appears in no message, log or output), and the executor must still work for
the next step.

Slow tests and the hypothesis test are marked `no_sanitizer` (deselected by `.ci/run` in its
ASan run) and also skip themselves when SMOLAGENTS_NATIVE_SANITIZE=1 (set by `.ci/run` for that
run) or SMOLAGENTS_NATIVE_SANITIZER=1.
"""

from __future__ import annotations

import math
import os
import queue
import random
import re
import statistics
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostside  # noqa: E402

UNDER_SANITIZER = any(
    os.environ.get(v, "") not in ("", "0")
    for v in ("SMOLAGENTS_NATIVE_SANITIZE", "SMOLAGENTS_NATIVE_SANITIZER")
)

# Slow or heavy tests: deselected by `-m "not no_sanitizer"` and skipped under sanitizers.
slow = [
    pytest.mark.no_sanitizer,
    pytest.mark.skipif(UNDER_SANITIZER, reason="too slow under ASan/UBSan"),
]


def mark_slow(fn):
    for m in slow:
        fn = m(fn)
    return fn


def new_executor(imports=(), timeout=5, tools=True, variables=None, isolation="none"):
    """An executor for an attack. In process (`isolation="none"`) by default, whatever the
    imports: this suite attacks the in-process policy, where everything the code and the
    host code acting for it do must meet a mechanism (in process mode the kernel bounds what
    library code does, and tests/isolation attacks that)."""
    import warnings

    from smolagents_native import LocalPythonExecutor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "isolation='none' with os..."
        ex = LocalPythonExecutor(additional_authorized_imports=list(imports),
                                 timeout_seconds=timeout, isolation=isolation)
    ex.send_tools(dict(hostside.SECURITY_TOOLS) if tools else {})
    if variables:
        ex.send_variables(variables)
    return ex


def host_snapshot():
    """Host state that no sandboxed code may change."""
    return {
        "random.Random.random": random.Random.random,
        "random.seed": random.seed,
        "queue.Queue.get": queue.Queue.get,
        "statistics.NormalDist.mean": statistics.NormalDist.__dict__.get("mean"),
        "time.sleep": time.sleep,
        "math.pi": math.pi,
        "math.__name__": math.__name__,
        "re.__name__": re.__name__,
        "recursionlimit": sys.getrecursionlimit(),
        "trace": sys.gettrace(),
        "profile": sys.getprofile(),
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "hostside.SECRET": hostside.SECRET,
        "hostside.tools": dict(hostside.SECURITY_TOOLS),
        "HostThing": dict(vars(hostside.HostThing)),
        "tool attrs": {k: dict(getattr(v, "__dict__", {})) for k, v in hostside.SECURITY_TOOLS.items()},
    }


# Messages that name a refusal or an exhausted budget (not just any error).
REFUSAL = (
    r"Forbidden|not allowed|Cannot assign|too large|Maximum number of|max number of operations"
    r"|maximum execution time|RecursionError|Print outputs exceeded|Execution was stopped"
    r"|is not defined|only authorized as the parent"
)


def refused(ex, code, match=REFUSAL, canary=None, timeout_ok=False):
    """Run `code`; assert it is refused with a message matching `match`, with no side effect,
    and that `ex` works afterwards. Returns the error."""
    from smolagents_native import ExecutionTimeoutError, InterpreterError

    if canary is not None:
        code = code.replace("CANARY", str(canary))
    before = host_snapshot()
    allowed = (InterpreterError, ExecutionTimeoutError) if timeout_ok else (InterpreterError,)
    with pytest.raises(allowed) as info:
        out = ex(code)
        # reached only when the step succeeded: show what leaked
        raise AssertionError(f"not refused: output={out.output!r} logs={out.logs!r}")
    err = info.value
    msg = str(err)
    assert re.search(match, msg), f"unexpected error for {code!r}: {msg}"
    assert hostside.SECRET not in msg
    assert hostside.SECRET not in str(ex.state.get("_print_outputs", ""))
    for k, v in list(ex.state.items()):
        if isinstance(v, (str, bytes)):
            assert hostside.SECRET not in str(v), k
    if canary is not None:
        assert not Path(canary).exists(), "the canary file was created"
    after = host_snapshot()
    assert after == before, {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    # the executor is healthy
    assert ex("__ok = 40 + 2\n__ok").output == 42
    return err


@pytest.fixture
def canary(tmp_path):
    path = tmp_path / "canary.txt"
    yield path
    assert not path.exists(), "the canary file was created"
