"""PEP 649 / 749 (CPython 3.14+): annotations are evaluated when they are read.

What holds (csrc/eval/annotate.c, csrc/front/lower.c's lower_annotate): a `def` or a class body never
evaluates its annotations; `__annotations__` evaluates them on first read, in an annotation
scope that sees the enclosing function's variables as they are then and, in a class body, the
class's names; host code (annotationlib, dataclasses, typing, functools) gets CPython's
formats (VALUE, FORWARDREF, STRING) from `__annotate__`. tests/programs/269 compares the
code's own reads with CPython; the attacks are in tests/security/test_new_syntax.py.
"""

from __future__ import annotations

import sys

import pytest

from smolagents_native import InterpreterError
from conftest import new_executor

pytestmark = pytest.mark.skipif(sys.version_info < (3, 14), reason="PEP 649 is CPython 3.14's")


def run(src, imports=()):
    ex = new_executor(list(imports))
    return ex, ex(src).output


def test_forward_references_in_a_dataclass():
    _, out = run(
        "from dataclasses import dataclass, fields\n"
        "@dataclass\n"
        "class Node:\n"
        "    value: int\n"
        "    next: Node | None = None\n"
        "    tag: Missing = 'x'\n"
        "n = Node(1, Node(2))\n"
        "(n.next.value, [f.name for f in fields(Node)], repr(fields(Node)[2].type))",
        ["dataclasses"],
    )
    assert out == (2, ["value", "next", "tag"], "ForwardRef('Missing', is_class=True, owner=<class '__main__.Node'>)")


def test_host_formats_from_annotationlib():
    import annotationlib as al

    ex, _ = run(
        "def f(a: int, b: Later, *c: 'quoted', **d: list[int]) -> Later2: pass\n"
        "class C:\n"
        "    T = int\n"
        "    x: T\n"
        "    y: Nope\n"
    )
    f, C = ex.state["f"], ex.state["C"]
    with pytest.raises(NameError):
        al.get_annotations(f)
    fr = al.get_annotations(f, format=al.Format.FORWARDREF)
    assert fr["a"] is int and fr["d"] == list[int] and fr["c"] == "quoted"
    assert isinstance(fr["b"], al.ForwardRef) and fr["b"].__forward_arg__ == "Later"
    assert al.get_annotations(f, format=al.Format.STRING) == {
        "a": "int", "b": "Later", "c": "quoted", "d": "list[int]", "return": "Later2",
    }
    cr = al.get_annotations(C, format=al.Format.FORWARDREF)
    assert cr["x"] is int and cr["y"].__forward_arg__ == "Nope"
    assert al.get_annotations(C, format=al.Format.STRING) == {"x": "T", "y": "Nope"}
    ex("Later = str\nLater2 = bytes\nNope = float")
    assert al.get_annotations(f)["b"] is str
    assert al.get_annotations(C) == {"x": int, "y": float}


def test_typing_functools_and_wraps():
    _, out = run(
        "import typing, functools\n"
        "@functools.singledispatch\n"
        "def show(x): return 'any'\n"
        "@show.register\n"
        "def _(x: int): return 'int'\n"
        "def deco(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def w(*a): return fn(*a)\n"
        "    return w\n"
        "@deco\n"
        "def g(a: Fwd) -> int: return a\n"
        "class Fwd: pass\n"
        "(show(1), show('s'), typing.get_type_hints(g), g.__annotations__)",
        ["typing", "functools"],
    )
    assert out[0:2] == ("int", "any")
    hints, ann = out[2], out[3]
    assert hints["return"] is int and hints["a"].__name__ == "Fwd" and ann == hints


def test_annotations_run_under_the_budgets_and_the_policy():
    ex = new_executor()
    ex("def f(x: ().__class__.__base__.__subclasses__()): pass\n"
       "def g(x: [i for i in range(10**9)]): pass\n")
    with pytest.raises(InterpreterError, match="dunder"):
        ex("f.__annotations__")
    import annotationlib as al

    for fn in ("f", "g"):
        with pytest.raises(InterpreterError):
            al.get_annotations(ex.state[fn], format=al.Format.FORWARDREF)
    assert ex("1 + 1").output == 2  # still usable


def test_a_class_name_is_seen_by_annotations_of_its_body_and_methods():
    _, out = run(
        "def make():\n"
        "    T = 'outer'\n"
        "    class C:\n"
        "        T = int\n"
        "        a: T\n"
        "        def m(self, v: T) -> U: pass\n"
        "        U = bytes\n"
        "    return C\n"
        "C = make()\n"
        "(C.__annotations__, C.m.__annotations__)"
    )
    assert out == ({"a": int}, {"v": int, "return": bytes})


def test_a_generic_method_sees_the_class_body():
    ex, out = run(
        "class C:\n"
        "    B = int\n"
        "    def m[T](self, x: T) -> B: pass\n"
        "C.m.__annotations__['return']"
    )
    assert out is int and ex.state["C"].m.__annotations__["x"] is ex.state["C"].m.__type_params__[0]
