"""Attacks through the syntax of newer CPython versions (docs/compatibility.md, per version).

Every new construct goes through the same policy as the old ones: the dunders that 3.12-3.14
added (`__type_params__`, `__value__`, `__annotate__`, `__static_attributes__`,
`__firstlineno__`, ...) are not readable, a `type` alias's lazy value runs as interpreted code
under the policy and the budgets whoever asks for it (the host included), and a construct the
interpreter does not implement is refused by name with its line.
"""

from __future__ import annotations

import sys

import pytest

from smolagents_native import ExecutionTimeoutError, InterpreterError
from conftest import REFUSAL, new_executor, refused

py312 = pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 syntax: CPython 3.12+")
py313 = pytest.mark.skipif(sys.version_info < (3, 13), reason="PEP 696 syntax: CPython 3.13+")
py314 = pytest.mark.skipif(sys.version_info < (3, 14), reason="CPython 3.14 syntax")

DUNDER = "Forbidden access to dunder attribute"

ALIAS_DUNDERS = [
    "X.__value__",
    "X.__type_params__",
    "X.__parameters__",
    "X.__module__ = 'os'",
    "getattr(X, '__value__')",
    "getattr(X, '__' + 'value__')",
    "vars(X)",
    "type(X).__dict__",
    "type(X).__value__.__get__(X)",
    "L.__type_params__[0].__bound__",
    "L[int].__origin__.__value__",
    "X.__reduce__()",
]


@py312
@pytest.mark.parametrize("attack", ALIAS_DUNDERS)
def test_type_alias_dunders_are_refused(attack):
    ex = new_executor()
    ex("type X = int\ntype L[T: str] = list[T]\n")
    refused(ex, attack, match=REFUSAL + "|Forbidden function|not allowed")


@py312
@pytest.mark.parametrize(
    "value",
    [
        "().__class__.__base__.__subclasses__()",
        "__import__('os').system('echo pwned')",
        "open('/etc/passwd').read()",
        "[x for x in iter(int, 1)]",
    ],
)
def test_lazy_alias_value_runs_under_the_policy_when_the_host_asks(value):
    """The value is lazy (as in CPython): defining it is harmless; evaluating it, even from the
    host after the step, runs interpreted code with the same policy and budgets."""
    ex = new_executor(timeout=3)
    ex(f"type X = {value}\n")
    alias = ex.state["X"]
    # a policy or budget refusal, or the NameError of a builtin the sandbox does not have
    with pytest.raises((InterpreterError, ExecutionTimeoutError, NameError)) as info:
        alias.__value__
    assert "pwned" not in str(info.value)
    # the executor still works
    assert ex("1 + 1").output == 2


@py312
def test_lazy_bound_and_constraints_run_under_the_policy():
    ex = new_executor()
    # (__class__ and __base__ are reviewed reads since the dunder allowlist: the refusal is at
    # __subclasses__)
    ex("type A[T: ().__class__.__base__.__subclasses__, U: (int, __import__('os'))] = T\n")
    t, u = ex.state["A"].__type_params__
    with pytest.raises(InterpreterError):
        t.__bound__
    with pytest.raises(NameError):  # __import__ is not a builtin of the sandbox
        u.__constraints__


@py312
@pytest.mark.parametrize(
    "code, what, line",
    [
        ("a = 1\ndef f[T](x: T) -> T:\n    return x\n", "type parameters on a function", 2),
        ("a = 1\nb = 2\nclass C[T]:\n    pass\n", "type parameters on a class", 3),
        ("def outer():\n    def inner[**P](): pass\n", "type parameters on a function", 2),
    ],
)
def test_generic_functions_and_classes_are_refused_by_name_and_line(code, what, line):
    ex = new_executor()
    err = refused(ex, code, match=what)
    assert f"line {line}" in str(err)
    assert "nested too deeply" not in str(err)


@py312
def test_type_alias_binding_obeys_the_name_rules():
    """`type NAME = ...` binds NAME like an assignment: the same names are protected."""
    ex = new_executor()
    for name in ("final_answer", "print"):
        try:
            ex(f"{name} = 1")
        except InterpreterError as e:
            plain = str(e)
        else:
            plain = None
        ex2 = new_executor()
        try:
            ex2(f"type {name} = int")
        except InterpreterError as e:
            alias = str(e)
        else:
            alias = None
        assert (plain is None) == (alias is None), (name, plain, alias)


@py312
def test_alias_names_never_reach_the_helper_source_unparsed():
    """The helper that builds the alias is generated from identifiers the parser produced;
    odd but valid identifiers (soft keywords, non-ASCII, NFKC forms) stay identifiers."""
    ex = new_executor()
    out = ex(
        "type match = int\ntype case = str\ntype _ = bytes\ntype ｆｏｏ = float\n"
        "type Ω[α, *β, **γ] = dict[α, γ]\n"
        "type _sn_thunks[_sn_thunks_] = list[_sn_thunks_]\n"
        "[match.__name__, case.__name__, _.__name__, foo.__name__, Ω.__name__,"
        " str(_sn_thunks[int])]"
    ).output
    # 3.15's alias subscription names the module, as for a class
    sub = "_sn_thunks[int]" if sys.version_info < (3, 15) else "__main__._sn_thunks[int]"
    assert out == ["match", "case", "_", "foo", "Ω", sub]


@py313
@pytest.mark.parametrize(
    "attack",
    [
        "C.__static_attributes__",
        "C.__firstlineno__",
        "getattr(C, '__static_attributes__')",
        "X.__type_params__[0].__default__",
        "X.__type_params__[0].has_default()",
    ],
)
def test_313_dunders_are_refused(attack):
    ex = new_executor()
    ex("class C:\n    def __init__(self):\n        self.a = 1\ntype X[T = int] = list[T]\n")
    refused(ex, attack, match=REFUSAL)


@py313
def test_lazy_default_runs_under_the_policy():
    ex = new_executor()
    ex("type X[T = ().__class__.__base__.__subclasses__()] = T\n")
    (t,) = ex.state["X"].__type_params__
    with pytest.raises(InterpreterError):
        t.__default__


@py314
@pytest.mark.parametrize(
    "attack",
    [
        "f.__annotate__",
        "f.__annotate__(1)",
        "C.__annotate__",
        "C.__annotations__",
        "getattr(f, '__annotate__')",
    ],
)
def test_314_annotation_dunders_are_refused(attack):
    ex = new_executor()
    ex("def f(x: int) -> str:\n    return x\nclass C:\n    a: int\n")
    refused(ex, attack, match=REFUSAL)


@py314
def test_template_strings_are_refused_by_name_and_line():
    ex = new_executor()
    err = refused(ex, "a = 1\nb = t'{a}'\n", match="template string")
    assert "line 2" in str(err)
