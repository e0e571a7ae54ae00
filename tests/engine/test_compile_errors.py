"""SyntaxErrors of CPython's compile stage are ours too, with CPython's message and line.

The core parses a source once (csrc/front/lower.c, lower_program): the lowering repeats the common
compile-stage checks and runs CPython's compiler only for sources holding a construct whose
other checks it leaves to it, or that it refuses. Each snippet below is refused by CPython's
symbol table or code generator (not by its parser) on some supported version; on the running
version we must refuse exactly what CPython refuses, with its message and line, and run what it
accepts. The control snippets are near misses that CPython accepts.
"""

from __future__ import annotations

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor

COMPILE_STAGE = [
    # symbol table: global / nonlocal
    "def f(x):\n    global x\n",
    "def f(x):\n    nonlocal x\n",
    "def f():\n    x = 1\n    global x\n",
    "def f():\n    print(x)\n    global x\n",
    "def f():\n    x: int = 1\n    global x\n",
    "def f():\n    global x\n    x: int = 1\n",
    "def f():\n    def g():\n        nonlocal y\n    return g\n",
    "nonlocal x\n",
    "def f():\n    global x\n    for x in range(3):\n        pass\n    nonlocal x\n",
    # parameters
    "def f(a, a):\n    pass\n",
    "def f(a, *, a):\n    pass\n",
    "def f(a, *a):\n    pass\n",
    "lambda a, a: 0\n",
    # placement
    "return 1\n",
    "class C:\n    return 1\n",
    "yield 1\n",
    "class C:\n    yield 1\n",
    "x = [(yield i) for i in range(3)]\n",
    "def f():\n    return [(yield i) for i in range(3)]\n",
    "break\n",
    "continue\n",
    "for i in range(3):\n    pass\nelse:\n    break\n",
    "while True:\n    def f():\n        break\n",
    "for i in range(3):\n    class C:\n        continue\n",
    "def f():\n    from math import *\n",
    "await x\n",
    "def f():\n    await x\n",
    # walrus in comprehensions
    "[i := 0 for i in range(3)]\n",
    "[j for i in range(3) for j in range(3) if (i := 1)]\n",
    "[x for x in (y := [1, 2])]\n",
    "class C:\n    [(z := i) for i in range(3)]\n",
    "[[(j := k) for k in range(2)] for j in range(2)]\n",
    # starred expressions
    "x = *a\n",
    "a, *b, *c = 1, 2, 3\n",
    "*a = [1]\n",
    "print((*a))\n",
    "return *a\n",
    "def f():\n    return *a\n",
    "*a, b\n" * 1,
    "x = " + ", ".join(f"a{i}" for i in range(300)) + ", *r = range(400)\n",
    # except clauses
    "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
    # keyword arguments
    "f(a=1, a=2)\n",
    "f(1, b=2, c=3, b=4)\n",
    "class C(B, a=1, a=2):\n    pass\n",
    # __debug__ and __future__
    "__debug__ = 1\n",
    "def f(__debug__):\n    pass\n",
    "f(__debug__=1)\n",
    "x.__debug__ = 1\n",
    "import __debug__\n",
    "from __future__ import braces\n",
    "x = 1\nfrom __future__ import annotations\n",
    "from __future__ import nonexistent_feature\n",
    # match statements
    "match x:\n    case a:\n        pass\n    case b:\n        pass\n",
    "match x:\n    case _:\n        pass\n    case 1:\n        pass\n",
    "match x:\n    case [a, a]:\n        pass\n",
    "match x:\n    case [a] | [b]:\n        pass\n",
    "match x:\n    case C(a=1, a=2):\n        pass\n",
    "match x:\n    case {f(): 1}:\n        pass\n",
    "match x:\n    case {1: a, 1: b}:\n        pass\n",
    "match x:\n    case [*a, *b]:\n        pass\n",
    "match x:\n    case a | b:\n        pass\n",
    # nesting
    "".join("    " * i + f"for i{i} in range(1):\n" for i in range(21)) + "    " * 21 + "pass\n",
    "".join("    " * i + "while True:\n" for i in range(25)) + "    " * 25 + "break\n",
    "".join("    " * i + "with a:\n" for i in range(22)) + "    " * 22 + "pass\n",
    "".join("    " * i + "try:\n" + "    " * i + "    pass\n" + "    " * i + "finally:\n"
            for i in range(0, 1)) + "    pass\n",
    "def f():\n    with " + ", ".join(["a"] * 21) + ":\n        pass\n",
    "for i in x:\n    with " + ", ".join(["a"] * 20) + ":\n        pass\n",
    # except* bodies
    "for x in [1]:\n    y = 42\n    try:\n        pass\n    except* ValueError:\n        break\n",
    "for x in [1]:\n    try:\n        pass\n    except* ValueError:\n        continue\n",
    "def f():\n    try:\n        pass\n    except* ValueError:\n        return 1\n",
    # annotations
    "def f(x: (yield)):\n    pass\n",
    "from __future__ import annotations\ndef f(x: (yield)):\n    pass\n",
    "from __future__ import annotations\nx: (y := 1) = 2\n",
    # async (refused by the policy; CPython's compile-stage error must come first)
    "async def f():\n    yield 1\n    return 2\n",
    "async def f():\n    nonlocal x\n",
    "def f():\n    async with x:\n        pass\n",
    "def f():\n    async for i in x:\n        pass\n",
    "def f():\n    return [i async for i in x]\n",
]

# Near misses that CPython accepts: they must run (or fail at run time, as CPython does).
CONTROL = [
    "def f(a, b):\n    return a + b\nprint(f(1, 2))\n",
    "for i in range(3):\n    if i:\n        break\nelse:\n    pass\n",
    "for i in range(3):\n    try:\n        pass\n    finally:\n        continue\n",
    "a, *b = [1, 2, 3]\nprint(a, b)\n",
    "print(*[1, 2], *(3,))\n",
    "x = [*range(3), *range(2)]\ny = (*x, 1)\nz = {*x}\nprint(x, y, z)\n",
    "class B: pass\nbases = (B,)\nclass C(*bases): pass\nprint(C.__mro__[1] is B)\n",
    "def f(**kw):\n    return sorted(kw)\nprint(f(a=1, b=2, **{'c': 3}))\n",
    "try:\n    1 / 0\nexcept ZeroDivisionError:\n    pass\nexcept:\n    pass\n",
    "print([y for x in range(3) if (y := x * 2)])\n",
    "def g():\n    yield 1\n    return 2\nprint(list(g()))\n",
    "x = 0\ndef f():\n    global x\n    x = 1\nf()\nprint(x)\n",
    "def f():\n    y = 1\n    def g():\n        nonlocal y\n        y = 2\n    g()\n    return y\nprint(f())\n",
    "print(__debug__)\n",
    "s = '__debug__ __future__'\nprint(s)\n",
    "match [1, 2]:\n    case [a, b]:\n        print(a + b)\n",
    "".join("    " * i + "if True:\n" for i in range(30)) + "    " * 30 + "print('deep')\n",
]


def _cpython(src: str) -> SyntaxError | None:
    try:
        compile(src, "<string>", "exec", dont_inherit=True)
    except SyntaxError as e:
        return e
    return None


def _executor() -> LocalPythonExecutor:
    ex = LocalPythonExecutor(["math"])
    ex.send_tools({})
    return ex


@pytest.mark.parametrize("src", COMPILE_STAGE, ids=lambda s: s.splitlines()[0][:40])
def test_compile_stage_error_is_cpythons(src):
    expected = _cpython(src)
    ex = _executor()
    if expected is None:
        # not an error on this CPython version: whatever we do, it is not a SyntaxError
        try:
            ex(src)
        except InterpreterError as e:
            assert "SyntaxError" not in str(e), str(e)
        return
    with pytest.raises(InterpreterError) as info:
        ex(src)
    msg = str(info.value)
    assert "SyntaxError" in msg, msg
    assert expected.msg in msg, (expected.msg, msg)
    assert f"line {expected.lineno}" in msg, (expected.lineno, msg)
    # the same source again (now from the executor's cache of lowered programs: not cached)
    with pytest.raises(InterpreterError, match="SyntaxError"):
        ex(src)


@pytest.mark.parametrize("src", CONTROL, ids=lambda s: s.splitlines()[0][:40])
def test_near_misses_run_as_in_cpython(src, capsys):
    assert _cpython(src) is None
    exec(compile(src, "<string>", "exec", dont_inherit=True), {"__name__": "__main__"})
    expected = capsys.readouterr().out
    out = _executor()(src)
    assert out.logs == expected
