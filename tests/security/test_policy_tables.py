"""csrc/guard/policy.def, the choke point's name tables: the docs' tables are generated from it, and
every entry does what its table says, on this CPython (scripts/gen_policy_tables.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from smolagents_native import LocalPythonExecutor
from smolagents_native.errors import InterpreterError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
try:
    import gen_policy_tables
finally:
    sys.path.pop(0)

TABLES = gen_policy_tables.read_def()


def test_the_docs_tables_are_generated_from_the_def_file():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_policy_tables.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert all(TABLES.values())


@pytest.fixture(scope="module")
def ex():
    e = LocalPythonExecutor(["os", "posix", "sys", "gc", "threading"], isolation="none")
    e.send_tools({})
    return e


def _error(ex, code):
    with pytest.raises(InterpreterError) as info:
        ex(code)
    return str(info.value)


@pytest.mark.parametrize("name", [n for n, _ in TABLES["INTERNAL_NAME"]])
def test_an_internal_name_is_refused_on_any_object(ex, name):
    assert f"Forbidden access to internal attribute: {name}" in _error(
        ex, f"getattr(1, {name!r})")


@pytest.mark.parametrize("name", [n for n, _ in TABLES["BUILTIN_REFUSED"]])
def test_a_refused_builtin_is_not_among_the_codes_builtins(ex, name):
    assert f"name '{name}' is not defined" in _error(ex, f"x = {name}")


@pytest.mark.parametrize("dotted", [n for n, _ in TABLES["FUNC_REFUSED"]])
def test_a_refused_function_is_refused_with_its_module_authorized(ex, dotted):
    module, _, path = dotted.partition(".")
    obj = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part, None)
    if obj is None:
        pytest.skip(f"{dotted} does not exist on this CPython")
    message = _error(ex, f"import {module}\nf = {dotted}")
    assert "Forbidden" in message, message


@pytest.mark.parametrize("name", [n for n, _ in TABLES["DUNDER_READ"]])
def test_a_listed_dunder_is_readable(ex, name):
    ex("class K:\n    'doc'\n    def __init__(self):\n        pass\n")
    ex(f"v = K.{name}")  # a class has every one of them
