"""The extension uses only the public C API of the CPython it was built for (issue 10).

Every symbol the built module imports from libpython must be declared in that version's public
headers (Include/ and Include/cpython/, never Include/internal/). Names with a leading
underscore that public macros and inline functions expand to (`_Py_Dealloc`, `_Py_NoneStruct`,
...) pass the same way: they are declared there. A private function called directly
(`_PyObject_GetMethod`, `_PyType_Lookup`, ...) is not in the allowed list below and fails.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import smolagents_native._core as core

# underscore names that public headers' macros or inline functions expand to
MACRO_EXPANSIONS = {
    "_Py_Dealloc", "_Py_NoneStruct", "_Py_TrueStruct", "_Py_FalseStruct", "_Py_NotImplementedStruct",
    "_Py_EllipsisObject", "_PyObject_New", "_PyObject_GC_New", "_PyObject_NewVar",
    "_PyObject_GC_NewVar", "_PyTrash_begin", "_PyTrash_end", "_PyTrash_cond",
    "_PyTrash_thread_deposit_object", "_PyTrash_thread_destroy_chain", "_Py_FatalErrorFunc",
    "_PyArg_ParseTupleAndKeywords_SizeT", "_PyObject_CallFunction_SizeT",
    "_PyObject_CallMethod_SizeT", "_Py_BuildValue_SizeT", "_PyObject_MakeTpCall",
    "_Py_CheckFunctionResult", "_PyThreadState_UncheckedGet", "_Py_IncRef", "_Py_DecRef",
    "_Py_RefTotal", "_Py_NegativeRefcount", "_PyErr_BadInternalCall", "_Py_Dealloc",
    "_PyUnicode_Ready", "_Py_HashSecret", "_PyLong_Zero", "_PyLong_One",
    # PyWeakref_Check / PyWeakref_CheckRef / PyWeakref_CheckProxy (weakrefobject.h)
    "_PyWeakref_RefType", "_PyWeakref_ProxyType", "_PyWeakref_CallableProxyType",
}


def _imported_symbols(path: Path) -> list[str]:
    out = subprocess.run(["nm", "-D", "--undefined-only", str(path)], capture_output=True, text=True, check=True)
    names = [line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.strip()]
    return sorted(n for n in names if re.match(r"_?Py|_?_Py", n))


def _public_header_text() -> str:
    inc = Path(sysconfig.get_paths()["include"])
    parts = []
    for h in sorted(inc.rglob("*.h")):
        if "internal" in h.relative_to(inc).parts:
            continue
        parts.append(h.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_only_public_c_api_is_imported():
    so = Path(core.__file__)
    headers = _public_header_text()
    problems = []
    for name in _imported_symbols(so):
        if name.startswith("_") and name not in MACRO_EXPANSIONS:
            problems.append(f"{name}: private (not a macro expansion of the public API)")
        elif not re.search(rf"\b{re.escape(name)}\b", headers):
            problems.append(f"{name}: not declared in the public headers of {sys.version.split()[0]}")
    assert not problems, "\n".join(problems)


def test_free_threaded_build_is_refused():
    """setup.py and compat.h refuse Py_GIL_DISABLED with a clear message."""
    root = Path(__file__).resolve().parents[2]
    setup = (root / "setup.py").read_text(encoding="utf-8")
    compat = (root / "csrc" / "base" / "compat.h").read_text(encoding="utf-8")
    assert "Py_GIL_DISABLED" in setup and "free-threaded" in setup
    assert re.search(r"#ifdef Py_GIL_DISABLED\s*\n#error \"[^\"]*free-threaded", compat)


def test_node_table_matches_running_version():
    """Node classes the running ast lacks are skipped, those it has are all handled."""
    import ast

    kinds = set(core.NODE_KINDS) | set(core.REFUSED_NODES)
    for name in ("TypeAlias", "TypeVar", "ParamSpec", "TypeVarTuple", "TryStar", "TemplateStr", "Interpolation"):
        assert (name in kinds) == hasattr(ast, name), name


def test_global_lookup_cache_follows_every_change(make_executor):
    """The global-name caches (PEP 509 version tags up to 3.11, a dict watcher from 3.12) must
    see every change of globals and builtins, including a new state dict between steps."""
    ex = make_executor()
    ex("x = 1\ndef f():\n    return x\nseen = [f()]")
    ex("x = 2\nseen.append(f())")
    ex("del x\ntry:\n    f()\nexcept NameError as e:\n    seen.append(str(e))")
    ex("x = 'back'\nseen.append(f())\nfor i in range(3):\n    x = i\n    seen.append(f())")
    assert ex.state["seen"] == [1, 2, "name 'x' is not defined", "back", 0, 1, 2]
    # a shadowing global of a builtin, then its removal
    out = ex("r = []\ndef g():\n    return len([1, 2])\nr.append(g())\nlen = lambda s: -1\nr.append(g())\n"
             "del len\nr.append(g())\nr").output
    assert out == [2, -1, 2]
    # a fresh state dict for the same executor and program text
    f_old = ex.state["f"]
    ex.state = {**ex.state, "x": "new state"}
    assert ex("f()").output == 2  # f's globals are the dict it was defined in
    assert ex("x").output == "new state"
    assert f_old() == 2
