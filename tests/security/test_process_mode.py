"""The attack corpus against process mode (docs/isolation.md, "Two tiers").

In process mode the worker's policy still refuses what the code itself does, but what
library code does for the code is bounded by the kernel sandbox instead of refused: a payload
may now run to its end inside the worker. What must hold is what the corpus protects: no host
secret in any output, log, error or variable; no canary file; no host state changed; the
executor usable afterwards. Every payload of test_payloads.py runs here in a worker.
"""

from __future__ import annotations

import pytest

import hostside
from conftest import host_snapshot, new_executor, slow
from test_payloads import HEAVY_CLASSES, PAYLOADS

from smolagents_native import ExecutionTimeoutError, InterpreterError

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .* was never awaited")


def _payloads():
    out, seen = [], {}
    for p in PAYLOADS:
        seen[p.cls] = seen.get(p.cls, 0) + 1
        heavy = p.heavy or p.cls in HEAVY_CLASSES
        out.append(pytest.param(p, id=f"{p.cls}-{seen[p.cls]}", marks=slow if heavy else ()))
    return out


@pytest.mark.parametrize("p", _payloads())
def test_payload_reaches_nothing_of_the_host_in_process_mode(p, canary):
    import importlib

    if p.needs and not hasattr(importlib.import_module(p.needs[0]), p.needs[1]):
        pytest.skip(f"{p.needs[0]} has no {p.needs[1]} on this CPython")
    ex = new_executor(imports=p.imports, timeout=p.timeout, isolation="process")
    try:
        variables = {k: getattr(hostside, v) for k, v in p.variables.items()}
        if variables:
            try:
                ex.send_variables(variables)
            except InterpreterError as exc:  # a host object: it stays in the host
                assert "cannot cross the process boundary" in str(exc)
                return
        code = p.code.replace("CANARY", str(canary))
        before = host_snapshot()
        texts = []
        try:
            out = ex(code)
            texts += [repr(out.output), out.logs]
        except (InterpreterError, ExecutionTimeoutError) as exc:
            texts.append(str(exc))
        texts.append(str(ex.state.get("_print_outputs", "")))
        for value in ex.state.values():
            try:
                texts.append(repr(value))
            except ValueError:  # an int past sys.get_int_max_str_digits(): no text
                pass
        for text in texts:
            assert hostside.SECRET not in text
        assert not canary.exists(), "the canary file was created on the host"
        assert host_snapshot() == before
        assert ex("__ok = 40 + 2\n__ok").output == 42
    finally:
        ex.close()
