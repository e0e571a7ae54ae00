"""smolagents' own `tests/test_local_python_executor.py` (1.26.0, from the registry's source
distribution), run against smolagents_native by `scripts/run_upstream_tests.py`.

Skipped when smolagents, numpy or pandas is missing (`pip install -e '.[smolagents,upstream]'`)
or when the registry cannot be reached. Fails when a test fails that is not a documented
difference (docs/compatibility.md, "smolagents' own test-suite"), or when the pass ratio falls
below MIN_RATIO.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.no_sanitizer]

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "run_upstream_tests.py"

# The target is 0.95. The documented differences below (CPython semantics and messages,
# no fuzzy names, a stricter policy, attacks refused one step later than smolagents refuses
# them) cap the ratio near 0.87 (345 of 397 pass); this floor catches regressions. Override with the environment
# variable SMOLAGENTS_NATIVE_UPSTREAM_MIN_RATIO.
MIN_RATIO = float(os.environ.get("SMOLAGENTS_NATIVE_UPSTREAM_MIN_RATIO", "0.86"))

# Upstream tests that fail on purpose or for a known, reported reason: test id -> reason. A key
# matches that test and all its parametrized cases; a key containing "[" matches the cases it
# is a prefix of. Each is explained in docs/compatibility.md. "core": a C-core change was
# requested.
KNOWN_FAILURES = {
    # Operation counts match smolagents'; this test also expects smolagents' wording for an
    # undefined name ("Forbidden function evaluation") where CPython raises NameError.
    "TestEvaluatePythonCode::test_evaluate_call": "cpython: NameError for an undefined name",
    "TestEvaluatePythonCode::test_variable_args": "cpython: self takes the first argument",
    "TestEvaluatePythonCode::test_exceptions": "cpython: missing argument is a TypeError",
    "TestEvaluatePythonCode::test_generatorexp": "cpython: generators are the core's type",
    "TestEvaluatePythonCode::test_generatorexp_with_infinite_sequence":
        "cpython: generators are the core's type",
    # CPython's exception messages instead of smolagents' wording.
    "TestEvaluatePythonCode::test_evaluate_call_starred_kwargs_errors": "cpython message",
    "TestEvaluatePythonCode::test_adding_int_to_list_raises_error": "cpython message",
    "TestEvaluatePythonCode::test_close_matches_subscript": "cpython message",
    "TestEvaluatePythonCode::test_evaluate_delete[x = 5\\ndel x\\nx\\n-": "cpython message",
    'TestEvaluatePythonCode::test_evaluate_delete[x = {"key": "value"}\\ndel x["key"]':
        "cpython message",
    "TestEvaluatePythonCode::test_evaluate_delete[del x\\n-": "cpython message",
    "TestLocalPythonExecutor::test_evaluate_assign_error": "cpython message",
    # No fuzzy name resolution (the tests read `st` for `str`, `food_item_counts`).
    "TestEvaluatePythonCode::test_tuple_id": "no fuzzy names",
    "TestEvaluateSubscript::test_evaluate_subscript[st[": "no fuzzy names",
    # Builtins given as static tools are ordinary builtins (shadowable).
    "TestEvaluatePythonCode::test_assignment_cannot_overwrite_tool": "builtins not protected",
    # Stricter policy.
    "TestEvaluatePythonCode::test_dangerous_builtins_are_callable_if_explicitly_added":
        "security: code objects",
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_sys[additional_authorized_imports2":
        "security: os.system refused at call time",
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_importlib["
    "additional_authorized_imports1": "security: os.system refused at call time",
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys["
    "additional_authorized_imports1": "security: sys._getframe",
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys["
    "additional_authorized_imports2": "security: sys._getframe",
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys["
    "additional_authorized_imports3": "security: sys._getframe",
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_sys["
    "additional_authorized_imports4": "security: sys._getframe",
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_access[a = (); "
    "b = a.__class__": "dunder allowlist",
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_indirect_access":
        "dunder allowlist",
    # The reviewed dunder reads (csrc/guard/dunders.c): these attacks are still refused, one step
    # later (at `__subclasses__`, not at `__bases__`), so smolagents' expected message differs;
    # `x.__dict__` of the code's own instance is an allowed read.
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_via_class_catch_warnings":
        "dunder allowlist: refused at __subclasses__",
    "TestLocalPythonExecutorSecurity::test_vulnerability_load_module_via_builtin_importer":
        "dunder allowlist: refused at __subclasses__",
    "TestLocalPythonExecutorSecurity::test_vulnerability_class_via_subclasses":
        "dunder allowlist: refused at __subclasses__",
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_access[class A:\\n    attr=1\\nx = A()\\nx_dict = x.__dict__":
        "dunder allowlist: __dict__ of the code's own instance",
    "TestLocalPythonExecutorSecurity::test_vulnerability_via_dunder_call[":
        "security: dunder attributes refused at access",
    # Authorizing builtins / os / a third-party module selects isolation="process": tools are
    # host-side proxies in the worker, not the builtin they wrap.
    "TestLocalPythonExecutorSecurity::test_vulnerability_builtins_dangerous_functions["
    "additional_authorized_imports2": "process mode: tools are proxies",
    "TestLocalPythonExecutorSecurity::test_vulnerability_dangerous_functions["
    "additional_authorized_imports2": "process mode: tools are proxies",
}
# Failures that depend on the environment, not on us: upstream test-id prefix -> the module
# whose absence explains it.
ENVIRONMENT = {
    "TestEvaluatePythonCode::test_can_import_scipy_if_explicitly_authorized": "scipy",
    "TestEvaluatePythonCode::test_can_import_sklearn_if_explicitly_authorized": "sklearn",
}


def _matches(name: str, key: str) -> bool:
    return name == key or name.startswith(key if "[" in key else key + "[")


def _known(test_id: str) -> bool:
    # junit ids: "test_local_python_executor.<Class>::<test>[params]", or
    # "test_local_python_executor::<test>[params]" for module-level tests.
    name = test_id.removeprefix("test_local_python_executor.")
    if any(_matches(name, key) for key in KNOWN_FAILURES):
        return True
    for key, module in ENVIRONMENT.items():
        if _matches(name, key) and importlib.util.find_spec(module) is None:
            return True
    if "pandas_exceptions" in name:  # pandas 3 changed the message the upstream test expects
        import pandas

        return int(pandas.__version__.split(".")[0]) >= 3
    return False


def test_upstream_suite(tmp_path):
    for module in ("smolagents", "numpy", "pandas"):
        pytest.importorskip(module)
    report = tmp_path / "upstream.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", str(report)],
        capture_output=True, text=True, timeout=1800,
    )
    if proc.returncode == 3:
        pytest.skip("the registry is unreachable: " + proc.stderr.strip().splitlines()[-1])
    if proc.returncode == 2:
        pytest.skip("missing packages: " + proc.stderr.strip()[-300:])
    assert report.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(report.read_text())
    print(proc.stdout.strip().splitlines()[-1])

    unexpected = [f for f in result["failed"] if not _known(f["test"])]
    assert not unexpected, "undocumented upstream failures:\n" + "\n".join(
        f"{f['test']}: {f['message']}" for f in unexpected
    )
    assert result["ratio"] >= MIN_RATIO, (result["passed"], result["total"])
