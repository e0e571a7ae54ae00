"""Annotation scopes in a class body see the class's names (PEP 695, 3.12+; PEP 649, 3.14+).

CPython's annotation scopes (a type alias's value, a type parameter's bound, constraints and
default, a generic definition's annotations, bases and keywords, and on 3.14 deferred
annotations) read a name of the enclosing class body first (`__classdict__`), then the
enclosing functions' and the globals. Each test runs the same source under CPython and as an
executor step and compares what host code reads from the results (the code itself may not
read `__value__`, `__bound__`... : docs/security.md).
"""

from __future__ import annotations

import sys

import pytest

from conftest import new_executor

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 is CPython 3.12's")


def both(src):
    """The namespace CPython's exec makes, and the executor's state, for `src`."""
    ns = {}
    exec(compile(src, "<test>", "exec", dont_inherit=True), ns)
    ex = new_executor()
    ex(src)
    return ns, ex.state


SRC = """
class C:
    B = int
    type A = list[B]
    def m[T: B, U: (B, str)](self, x: T) -> B: pass
    class K[V: B](dict[str, B]): pass
    type Z = Nope
def f():
    q = 1
    class D:
        q = 2
        type A = q
        def g[T](self) -> q: pass
    return D
"""


def reads(ns):
    C = ns["C"]
    m = C.m.__type_params__
    D = ns["f"]()
    out = [C.A.__value__, m[0].__bound__, m[1].__constraints__, C.m.__annotations__["return"],
           C.K.__type_params__[0].__bound__, C.K.__orig_bases__[0], D.A.__value__,
           D.g.__annotations__["return"]]
    try:
        C.Z.__value__
    except NameError as e:
        out.append(str(e))
    return out


def test_class_names_in_annotation_scopes_as_cpython():
    cpython, ours = both(SRC)
    assert reads(ours) == reads(cpython)
    assert reads(ours)[:4] == [list[int], int, (int, str), int]


@pytest.mark.skipif(sys.version_info < (3, 13), reason="PEP 696 defaults are CPython 3.13's")
def test_a_type_parameter_default_sees_the_class():
    src = "class C:\n    B = bytes\n    def m[T = B](self): pass\n"
    cpython, ours = both(src)
    default = ours["C"].m.__type_params__[0].__default__
    assert default is cpython["C"].m.__type_params__[0].__default__ is bytes


def test_the_class_dict_is_read_when_the_scope_runs():
    """After the class is made, its dict (not the namespace the body filled) is what the
    annotation scope reads: a class attribute set later is seen, as in CPython."""
    src = "class C:\n    type A = B\nC.B = float\n"
    cpython, ours = both(src)
    assert ours["C"].A.__value__ is cpython["C"].A.__value__ is float
