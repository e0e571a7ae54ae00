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


# --- csrc/guard/events.def: the audit events the tripwire watches -----------------------------

EVENTS = gen_policy_tables.read_events()
# what each rule refuses an event raised by host code acting for the code, with no file,
# process or network module authorized (EXEC, GETATTR, GETFRAME and MARSHAL depend on the caller:
# tests/security/test_tripwire.py)
_REFUSED_AS = {
    "READ": "readable_dirs", "OPEN": "readable_dirs", "COPY": "readable_dirs",
    "WRITE": "writable_dirs", "WRITE2": "writable_dirs",
    "PROCESS": "Forbidden by the sandbox", "NETWORK": "Forbidden by the sandbox",
    "ENV": "Forbidden by the sandbox",
}


def test_every_event_line_is_understood_and_has_a_reason():
    assert len(EVENTS) > 60
    for name, rule, what, why in EVENTS:
        assert rule in {"EXEC", "GETATTR", "GETFRAME", "MARSHAL", "DENY", *_REFUSED_AS}, name
        assert (what is not None) == (rule == "DENY"), name
        assert len(why) > 8, name


@pytest.fixture(scope="module")
def ex_sys():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # sys authorized in process
        e = LocalPythonExecutor(["sys"], isolation="none")
    e.send_tools({})
    return e


@pytest.mark.parametrize(
    "name,rule,what", [(n, r, w) for n, r, w, _ in EVENTS if r in _REFUSED_AS or r == "DENY"]
)
def test_a_watched_event_is_refused_as_its_rule_says(ex_sys, name, rule, what):
    event = name[:-1] + "x" if name.endswith("*") else name
    args = ("/etc/passwd", "r", 0) if rule == "OPEN" else ("/etc/passwd", "/etc/hosts")
    message = _error(ex_sys, f"import sys\nsys.audit({event!r}, *{args!r})")
    assert "Forbidden by the sandbox (host code acting for the code)" in message
    assert (what if rule == "DENY" else _REFUSED_AS[rule]) in message


def test_an_event_not_in_the_table_passes(ex_sys):
    ex_sys("import sys\nsys.audit('smolagents_native.test.unwatched', 1)")
    ex_sys("import sys\nsys.audit('ctype.notaprefix', 1)")
