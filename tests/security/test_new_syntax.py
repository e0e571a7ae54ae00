"""Attacks through the syntax of newer CPython versions (docs/compatibility.md, per version).

Every new construct goes through the same policy as the old ones: the dunders that 3.12-3.14
added (`__value__`, `__annotate__`, `__bound__`, ...) are not readable, except the reviewed
plain ones (`__type_params__` of the code's own definitions, `__static_attributes__`,
`__firstlineno__`: docs/security.md), a `type` alias's lazy value runs as interpreted code
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
py315 = pytest.mark.skipif(sys.version_info < (3, 15), reason="CPython 3.15 syntax")

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
def test_generic_functions_and_classes_run():
    """PEP 695 on def and class: the type parameters are CPython's objects, readable through
    __type_params__ of the code's own definitions; the full comparison with CPython is
    tests/programs/262_generic_functions_classes.py."""
    ex = new_executor()
    out = ex(
        "def first[T](xs: list[T]) -> T:\n    return xs[0]\n"
        "class Box[T]:\n    def __init__(self, v: T):\n        self.v = v\n"
        "    def get[U](self, f) -> U:\n        return f(self.v)\n"
        "(first([5]), Box(2).get(str), first.__qualname__, Box.get.__qualname__,"
        " [p.__name__ for p in first.__type_params__ + Box.__type_params__],"
        " str(Box.__orig_bases__[0]))"
    ).output
    assert out == (5, "2", "first", "Box.get", ["T", "T"], "typing.Generic[T]")


GENERIC_ATTACKS = [
    # the lazily evaluated parts stay out of reach, as for aliases
    "f.__type_params__[0].__bound__",
    "C.__type_params__[0].__constraints__",
    "getattr(f.__type_params__[0], '__bound__')",
    # __type_params__ only of the code's own definitions; never written
    "import json\njson.dumps.__type_params__",
    "import collections\ncollections.OrderedDict.__type_params__",
    "f.__type_params__ = ()",
    "C.__type_params__ = ()",
    "C.__orig_bases__[0].__origin__.__subclasses__()",
    "f.__globals__",
]


@py312
@pytest.mark.parametrize("attack", GENERIC_ATTACKS)
def test_generic_definitions_lead_nowhere(attack):
    ex = new_executor(["json", "collections"])
    ex("def f[T: int](x: T) -> T:\n    return x\nclass C[T: (int, str)]:\n    pass\n")
    refused(ex, attack, match=REFUSAL + "|Forbidden function|not allowed")


@py312
@pytest.mark.parametrize(
    "bound",
    [
        "().__class__.__base__.__subclasses__()",
        "__import__('os').system('echo pwned')",
        "open('/etc/passwd').read()",
    ],
)
def test_lazy_bounds_of_generic_definitions_run_under_the_policy(bound):
    """A bound is lazy (as in CPython): evaluating it, even from the host after the step, runs
    interpreted code under the policy; the helper that made the TypeVar gives it nothing."""
    ex = new_executor()
    ex(f"def f[T: {bound}](): pass\nclass C[U: {bound}]:\n    pass\n")
    for tv in (ex.state["f"].__type_params__[0], ex.state["C"].__type_params__[0]):
        with pytest.raises((InterpreterError, NameError)) as info:
            tv.__bound__
        assert "pwned" not in str(info.value)
    assert ex("1 + 1").output == 2


@py312
def test_annotation_scope_names_are_not_variables():
    """The annotation scope binds its type parameters and its internal names (`.type_params`,
    `.d0`) in a scope of its own: nothing reaches the step's variables or state."""
    ex = new_executor()
    ex("def f[T](x=1, *, k=2): return T\nclass C[U](dict): pass\nT_seen = f()\n")
    assert sorted(k for k in ex.state if not k.startswith("_")) == ["C", "T_seen", "f"]
    with pytest.raises(InterpreterError, match="NameError|not defined"):
        ex("U")


@py312
@pytest.mark.parametrize(
    "code, message",
    [
        ("def f[T, T](): pass", "duplicate type parameter 'T'"),
        ("class C[T, T]: pass", "duplicate type parameter 'T'"),
        ("def f[T](): nonlocal T", "nonlocal binding not allowed for type parameter 'T'"),
    ],
)
def test_generic_definition_errors_are_cpythons(code, message):
    ex = new_executor()
    with pytest.raises(InterpreterError, match="SyntaxError") as info:
        ex(code)
    assert message in str(info.value)
    with pytest.raises(SyntaxError, match=message):
        compile(code, "<s>", "exec")


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
        "X.__type_params__[0].__default__",
        "X.__type_params__[0].has_default()",
        "f.__type_params__[0].__default__",
        "C.__static_attributes__ = ()",
        "C.__firstlineno__ = 0",
    ],
)
def test_313_dunders_are_refused(attack):
    ex = new_executor()
    ex(
        "class C:\n    def __init__(self):\n        self.a = 1\ntype X[T = int] = list[T]\n"
        "def f[T = int](): pass\n"
    )
    refused(ex, attack, match=REFUSAL)


@py313
def test_313_class_attributes_are_plain_data():
    """__firstlineno__ (an int) and __static_attributes__ (a tuple of names) are readable, as
    __slots__ is: plain data (docs/security.md)."""
    ex = new_executor(["json"])
    out = ex(
        "import json\n\nclass C:\n    def __init__(self):\n        self.a = 1\n"
        "(C.__firstlineno__, C.__static_attributes__, C().__static_attributes__,"
        " json.JSONDecoder.__firstlineno__ > 0)",
    )
    assert out.output == (3, ("a",), ("a",), True)


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
        "C.__annotate_func__",
        "vars(C)['__annotate_func__'](1)",
        "getattr(f, '__annotate__')",
        # a class whose own dict could make type's __annotations__ getter run host code
        "class D:\n    __annotate_func__ = print\n",
        "class D:\n    __annotate__ = print\n",
        "class D:\n    __annotations__ = classmethod(print)\nD.__annotations__",
        "class D:\n    a: int\nD.__annotations_cache__ = classmethod(print)\nD.__annotations__",
    ],
)
def test_314_annotation_dunders_are_refused(attack):
    ex = new_executor()
    ex("def f(x: int) -> str:\n    return x\nclass C:\n    a: int\n")
    refused(ex, attack, match=REFUSAL)


@py314
def test_314_own_class_annotations_are_readable():
    """A class the code made reads its own deferred annotations (annotate.c), evaluated
    by the interpreter, under the policy."""
    ex = new_executor()
    out = ex("class C:\n    a: int\n    b: Later\nLater = str\nC.__annotations__")
    assert out.output == {"a": int, "b": str}
    refused(ex, "class E:\n    a: ().__class__.__base__.__subclasses__()\nE.__annotations__",
            match=REFUSAL)


@py314
def test_314_a_forward_reference_leads_nowhere():
    """dataclasses hands the code annotationlib.ForwardRef objects for names not defined yet:
    evaluating one, or one the code makes, is host code compiling a string, which the
    tripwire refuses during a step."""
    ex = new_executor(["dataclasses"])
    ex("from dataclasses import dataclass, fields\n"
       "@dataclass\nclass A:\n    x: Undefined\nref = fields(A)[0].type\n")
    for attack in (
        "ref.evaluate()",
        "type(ref)(\"__import__('os').getcwd()\").evaluate(globals={})",
        "type(ref)(\"().__class__.__base__\").evaluate()",
        "ref.__forward_code__",
    ):
        refused(ex, attack, match=REFUSAL + "|Undefined|tripwire|not allowed")


@py314
def test_template_strings_are_cpythons_objects():
    """PEP 750: the Template and Interpolation types are CPython's own (string.templatelib's);
    tests/programs/267_template_strings.py compares with CPython."""
    import string.templatelib as tl

    ex = new_executor()
    out = ex("a = 1\nb = t'x{a!r:>3}y'\n(b.strings, b.values, b.interpolations[0].format_spec)")
    assert out.output == (("x", "y"), (1,), ">3")
    assert isinstance(ex.state["b"], tl.Template)
    assert isinstance(ex.state["b"].interpolations[0], tl.Interpolation)


@py314
@pytest.mark.parametrize(
    "attack",
    [
        "type(t'').__subclasses__()",
        "t'{a}'.interpolations[0].__class__.__subclasses__()",
        "type(t'').__dict__",
        "t'{a}'.__reduce__()",
        "t'{a}'.interpolations[0].__reduce_ex__(2)",
        "type(t'{a}'.interpolations[0]).__init__.__globals__",
        "t'{a}'.interpolations[0].value.__class__.__base__.__subclasses__()",
    ],
)
def test_template_strings_lead_nowhere(attack):
    ex = new_executor()
    ex("a = 1\n")
    refused(ex, attack, match=REFUSAL + "|Forbidden function|not allowed")


@py314
def test_template_string_format_specs_are_bounded():
    """A format spec is evaluated when the template is made (an f-string): its size is
    bounded like any string the code builds."""
    ex = new_executor()
    with pytest.raises(InterpreterError):
        ex("a = 1\nb = t'{a:{\"0\" * 10**10}}'\n")
    assert ex("1 + 1").output == 2


@py315
def test_lazy_import_applies_the_policy_at_the_first_use():
    """PEP 810: `lazy import m` binds a lazy_import object and imports nothing; the import
    happens at the name's first use, under the policy of the executor whose code uses it."""
    ex = new_executor()
    ex("lazy import os\nlazy import statistics\n")
    assert type(ex.state["os"]).__name__ == "lazy_import"
    assert repr(ex.state["os"]) == "<lazy_import 'os'>"
    with pytest.raises(InterpreterError, match="Import of os is not allowed"):
        ex("os.getcwd()")
    with pytest.raises(InterpreterError, match="Import of os is not allowed"):
        ex("def f():\n    return os.sep\nf()")
    assert type(ex.state["os"]).__name__ == "lazy_import"  # still unresolved
    assert ex("statistics.mean([2, 4])").output == 3
    assert type(ex.state["statistics"]).__name__ == "module"
    # authorized: resolved like an eager import
    ex2 = new_executor(["os", "os.path"])
    assert ex2("lazy import os.path as p\np.join('a', 'b')").output == "a/b"


@py315
@pytest.mark.parametrize(
    "attack",
    [
        "lazy import os\ntype(os).__subclasses__()",
        "lazy import os\nos.__class__.__dict__",
        "lazy import os\nos.__reduce__()",
        "lazy from os import system\nsystem('echo pwned')",
        "lazy import subprocess\nsubprocess.run(['true'])",
    ],
)
def test_lazy_imports_lead_nowhere(attack):
    ex = new_executor()
    refused(ex, attack, match=REFUSAL + "|Forbidden function|not allowed")


@py315
@pytest.mark.parametrize(
    "code, message",
    [
        ("def f():\n    lazy import json", "lazy import not allowed inside functions"),
        ("class C:\n    lazy import json", "lazy import not allowed inside classes"),
        ("try:\n    lazy import json\nexcept ImportError:\n    pass",
         "lazy import not allowed inside try/except blocks"),
        ("lazy from math import *", "lazy from ... import * is not allowed"),
    ],
)
def test_lazy_import_errors_are_cpythons(code, message):
    ex = new_executor()
    with pytest.raises(InterpreterError, match="SyntaxError") as info:
        ex(code)
    assert message in str(info.value)


@py315
def test_unpacking_comprehensions_are_bounded():
    """PEP 798: `[*x for x in xs]` extends its result as a display does: the same size and
    iteration bounds apply."""
    ex = new_executor()
    with pytest.raises(InterpreterError):
        ex("[*range(10**6) for _ in range(10**4)]")
    with pytest.raises(InterpreterError):
        ex("list((*iter(int, 1) for _ in range(1)))")
    assert ex("1 + 1").output == 2


@py312
def test_a_metaclass_never_gets_the_class_dict_cell():
    """CPython hands type.__new__ the `__classdictcell__` of a class whose annotation scopes
    read its names; a metaclass of the code's would find it in the namespace, and in it the
    class's own dict, writable (past the checks on class attributes). Ours points the cell
    at the class's dict itself after the class is made: the namespace never holds it."""
    ex = new_executor()
    out = ex(
        "seen = []\n"
        "class Meta(type):\n"
        "    def __new__(m, name, bases, ns):\n"
        "        seen.extend(ns)\n"
        "        return type(name, bases, dict(ns))\n"
        "class C(metaclass=Meta):\n"
        "    B = int\n"
        "    type A = B\n"
        "    def f[T](self) -> B: pass\n"
        "    x: B\n"
        "[k for k in seen if 'classdict' in k]"
    )
    assert out.output == []
