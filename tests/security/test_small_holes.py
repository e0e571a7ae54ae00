"""The smaller holes of issue 9 (part J; seen classes 8, 9, 11): dir() without arguments lists
the code's own names, a NUL byte is refused as CPython refuses it, super().__init_subclass__
works, classes made with type(...) / namedtuple / Enum(...) accept attribute assignment."""

from __future__ import annotations

import pytest
from conftest import new_executor, refused

from smolagents_native import InterpreterError

# class 8: dir() must never list the host's frame
DIR_CASES = [
    ("a = 1\nb = 2\nd = dir()\n[n for n in d if n in ('a', 'b', 'ex', 'self', 'code', 'state')]", ["a", "b"]),
    ("def f(x, y=1):\n    z = 3\n    return dir()\nf(0)", ["x", "y", "z"]),
    ("def f():\n    w = 1\n    def g():\n        return dir()\n    return g()\nf()", []),
    ("def f():\n    w = 1\n    def g():\n        w\n        return dir()\n    return g()\nf()", ["w"]),
    ("class C:\n    k = 1\n    names = dir()\n[n for n in C.names if not n.startswith('__')]", ["k"]),
    ("import functools\nfunctools.partial(dir)()", []),
    ("list(map(lambda f: f(), [dir]))[0][:0]", []),
    ("sorted(dir(1))[:2]", ["__abs__", "__add__"]),
]


@pytest.mark.parametrize("i", range(len(DIR_CASES)))
def test_dir_lists_the_codes_names(i):
    code, expected = DIR_CASES[i]
    ex = new_executor(imports=["functools"])
    out = ex(code).output
    assert out == expected
    for host in ("max_print_outputs_length", "timeout_seconds", "interp", "static_tools"):
        assert host not in repr(out)


# class 9: a NUL byte
NUL = [
    "x = 1\x00\nx = 2\nx",
    "\x00",
    "x = 1\n# \x00 comment\nx",
    "s = '\x00'\ns",
    "print('a')\x00print('b')",
]


@pytest.mark.parametrize("i", range(len(NUL)))
def test_nul_byte_is_refused_as_cpython_does(i):
    ex = new_executor()
    # SyntaxError from 3.11.?/3.12, ValueError before: the executor names CPython's own
    with pytest.raises((SyntaxError, ValueError), match="null bytes") as cpython:
        compile(NUL[i], "<string>", "exec")
    err = refused(ex, NUL[i], match="Code parsing failed")
    assert f"{cpython.type.__name__}: source code string cannot contain null bytes" in str(err)
    assert "nested too deeply" not in str(err)
    assert ex.state.get("x") is None


def test_escaped_nul_is_fine():
    ex = new_executor()
    assert ex("s = '\\x00'\nlen(s)").output == 1


# class 11: over-blocking
LEGIT = [
    ("class Base:\n    def __init_subclass__(cls, **kw):\n        super().__init_subclass__(**kw)\n"
     "        cls.registered = True\nclass C(Base):\n    pass\nC.registered", True),
    ("class Base:\n    subclasses = []\n    def __init_subclass__(cls, /, name=None, **kw):\n"
     "        super().__init_subclass__(**kw)\n        Base.subclasses.append(name)\n"
     "class C(Base, name='c'):\n    pass\nBase.subclasses", ["c"]),
    ("X = type('X', (), {'a': 1})\nX.b = 2\ndel X.a\n(hasattr(X, 'a'), X.b)", (False, 2)),
    ("from collections import namedtuple\nP = namedtuple('P', ['x'])\nP.__doc__\nP.unit = 'm'\nP.unit", "m"),
    ("from enum import Enum\nE = Enum('E', ['A'])\nE.label = 'l'\nE.label", "l"),
    ("from enum import IntFlag\nclass F(IntFlag):\n    R = 4\n    W = 2\nF.extra = 1\n(F.R | F.W).value", 6),
]


@pytest.mark.parametrize("i", range(len(LEGIT)))
def test_no_over_blocking(i):
    code, expected = LEGIT[i]
    ex = new_executor(imports=["enum"])
    assert ex(code).output == expected


def test_init_subclass_stays_refused_elsewhere():
    ex = new_executor()
    refused(ex, "class A:\n    pass\nA.__init_subclass__", match="dunder")
    refused(ex, "class A:\n    pass\nsuper(A, A).__init_subclass__ = 1", match="dunder")
    with pytest.raises(InterpreterError):
        ex("int.__init_subclass__")


# class 8, attacks: other ways to list or reach the host's frame end in InterpreterError
FRAME_PAYLOADS = [
    "locals()",
    "vars()",
    "globals()",
    "dir.__self__",
    "import inspect\ninspect.currentframe()",
    "import inspect\ninspect.stack()",
    "import sys\nsys._getframe(1).f_locals",
    "import functools\nfunctools.partial(dir)().append(1)\ndir.__call__",
]


@pytest.mark.parametrize("i", range(len(FRAME_PAYLOADS)))
def test_host_frame_is_not_listed(i):
    ex = new_executor(imports=["inspect", "sys", "functools"])
    err = refused(ex, FRAME_PAYLOADS[i])
    for host in ("max_print_outputs_length", "static_tools", "custom_tools"):
        assert host not in str(err)
