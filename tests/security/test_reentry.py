"""Interpreted code entered by host code in the middle of a step keeps the step's checks.

A tool runs with the step's checks suspended (it is the host's code: no tripwire, no gadget
refusals, its classes are not the code's, its allocations are not counted; proxy.c). Code the
tool calls back (a __str__ of the code's object, a key function, a finalizer the collector runs
during the tool) is the code again: interp_rearm (limits.c) arms every check for its duration,
and a refusal there ends the step even when the tool catches the error. A finalizer that runs
while an import executes a module body is the code too: the host frame that entered it bounds
the search for an import (provenance_reenter), so the gadget exemption of module bodies does not
cover it. Red-team findings of session 17; both gadget modes (docs/security.md, *Gadgets*).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor

GADGET_MSG = "Forbidden call of"
# a gadget that reaches module globals through attribute traversal
GADGET_CALL = "string.Formatter().format('{0.__init__.__globals__[_re]}', string.Template)"


def executor(imports, tools=None, **grants):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ex = LocalPythonExecutor(
            additional_authorized_imports=list(imports), isolation="none", timeout_seconds=10,
            **grants,
        )
    ex.send_tools(tools or {})
    return ex


def stringify(x):
    """A tool that renders its argument (host code calling the code's __str__)."""
    return "results for " + str(x)


def stringify_quietly(x):
    """The same, swallowing whatever the rendering raises."""
    try:
        return "results for " + str(x)
    except Exception:  # noqa: BLE001 - the point of the test
        return "results"


def garbage_with_finalizer(body):
    """Source of an unreachable cycle whose finalizer runs `body` (one line) when the
    collector frees it."""
    return ("class D:\n    def __del__(self):\n        " + body + "\n"
            "d = D()\nd.me = d\nd = None\n")


@pytest.fixture
def collecting_module(tmp_path, monkeypatch):
    """The name of an importable module whose body runs the collector."""
    (tmp_path / "st_collecting_mod.py").write_text("import gc\ngc.collect()\nVALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "st_collecting_mod"
    sys.modules.pop("st_collecting_mod", None)


def collect():
    """A tool that runs the collector (any tool that allocates may)."""
    import gc

    gc.collect()
    return "ok"


@pytest.mark.parametrize("tool", [stringify, stringify_quietly])
def test_code_a_tool_calls_back_has_the_gadget_refusals(tool):
    ex = executor(["string"], {"search": tool})
    code = (f"import string\nclass Q:\n    def __str__(self):\n        return {GADGET_CALL}\n"
            "search(Q())")
    with pytest.raises(InterpreterError, match=GADGET_MSG):
        ex(code)
    # the executor goes on, and the tool works with plain values
    assert ex("search(1)").output == "results for 1"


def test_code_a_tool_calls_back_has_the_tripwire(tmp_path):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("host data")
    ex = executor(["pathlib"], {"search": stringify_quietly},
                  readable_dirs=[str(tmp_path / "granted")])
    code = (f"import pathlib\nclass Q:\n    def __str__(self):\n"
            f"        return pathlib.Path({str(secret)!r}).read_text()\n"
            "search(Q())")
    with pytest.raises(InterpreterError, match="missing grant: readable_dirs"):
        ex(code)


def test_a_class_the_code_makes_in_a_tool_callback_is_the_codes():
    # its protocols are refused as for any class of the code
    ex = executor([], {"search": stringify_quietly})
    code = ("class Q:\n    def __str__(self):\n"
            "        class R:\n            def __reduce__(self):\n                return (print, ())\n"
            "        return 'q'\n"
            "search(Q())")
    with pytest.raises(InterpreterError, match="protocol"):
        ex(code)


def test_a_finalizer_run_during_a_tool_call_has_the_gadget_refusals():
    ex = executor(["string"], {"collect": collect})
    code = "import string\n" + garbage_with_finalizer(GADGET_CALL) + "collect()\n"
    with pytest.raises(InterpreterError, match=GADGET_MSG):
        ex(code)


def test_a_finalizer_run_during_an_import_has_the_gadget_refusals(collecting_module):
    # the code's finalizer runs below that module body, which must not make the gadget call
    # count as the import's
    ex = executor(["string", collecting_module])
    code = ("import string\n" + garbage_with_finalizer(GADGET_CALL)
            + f"import {collecting_module}\n")
    with pytest.raises(InterpreterError, match=GADGET_MSG):
        ex(code)


def test_imports_by_a_tool_callback_still_run_their_module_bodies(tmp_path, monkeypatch):
    # the boundary set when the code is entered does not hide the modules it imports itself
    (tmp_path / "st_plain_mod.py").write_text("import string\nVALUE = string.capwords('a b')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        ex = executor(["st_plain_mod"], {"search": stringify})
        code = ("class Q:\n    def __str__(self):\n        import st_plain_mod\n"
                "        return st_plain_mod.VALUE\nsearch(Q())")
        assert ex(code).output == "results for A B"
    finally:
        sys.modules.pop("st_plain_mod", None)


def test_a_finalizer_of_the_code_at_interpreter_exit_does_not_abort_the_host():
    code = textwrap.dedent("""\
        from smolagents_native import LocalPythonExecutor
        ex = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=10)
        ex.send_tools({})
        ex('''
        class D:
            def __del__(self):
                d = D()
                d.me = d
        d = D()
        d.me = d
        d = None
        def g():
            try:
                yield 1
            finally:
                held.append(2)
        held = []
        it = g()
        next(it)
        held.append(it)
        ''')
        print("step done")
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "step done" in r.stdout
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Fatal Python error" not in r.stderr


def test_a_finalizer_run_during_an_import_has_the_tripwire(tmp_path, collecting_module):
    # the tripwire is suspended while an import's module bodies run (they open files); a
    # finalizer of the code that the collector runs there is the code, armed again
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("host data")
    ex = executor(["pathlib", collecting_module], readable_dirs=[str(tmp_path / "granted")])
    code = ("import pathlib\nleak = []\n"
            + garbage_with_finalizer(f"leak.append(pathlib.Path({str(secret)!r}).read_text())")
            + f"import {collecting_module}\nleak\n")
    with pytest.raises(InterpreterError, match="missing grant: readable_dirs"):
        ex(code)
