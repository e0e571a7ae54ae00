"""The one host-call entry point (docs/security.md, "Host-call entry point"; csrc/guard/hostcall.c).

A source scan: every raw call, iteration or C loop over an object of the code's choosing in the
evaluator files is either in csrc/guard/hostcall.c / csrc/guard/deadline.c or listed below with the reason
it is not a host call (or is bounded otherwise). A new raw call fails this test until it is
routed through the entry point or reviewed and added here.

Then behaviour: the entry point applies the call gate, wraps iterator arguments, gates results,
for every way interpreted code calls host code (calls, *args calls, decorators, `with`, `yield
from`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import new_executor, refused

CSRC = Path(__file__).resolve().parents[2] / "csrc" / "eval"
EVALUATOR = ["eval_expr.c", "eval_stmt.c", "eval_match.c", "function.c", "generator.c"]
RAW = re.compile(
    r"\b(PyObject_(?:Call\w*|Vectorcall\w*|GetIter)|PyIter_Next|PySequence_(?:Tuple|List|Contains)"
    r"|PyDict_(?:Update|Merge\w*)|tp_iternext|loop_iter_next|deadline_next_orig)\s*\("
)

# (file, fragment of the line) -> why it is not a host call or is bounded without the entry point.
ALLOWED = {
    ("eval_expr.c", "PyObject *x = PyIter_Next(it);"): "unpacking: `it` came from hostcall_getiter",
    ("eval_expr.c", "PyObject *extra = PyIter_Next(it);"): "unpacking: from hostcall_getiter",
    ("eval_expr.c", "PyObject *rest = PySequence_List(it);"): "starred target: from hostcall_getiter",
    ("eval_expr.c", "while ((x = PyIter_Next(iter)) != NULL)"): "list display star: hostcall_getiter",
    ("eval_expr.c", "while ((x = PyIter_Next(it)) != NULL)"): (
        "set display or comprehension star (display_unpack): hostcall_getiter"
    ),
    ("eval_expr.c", "PyObject_Vectorcall(st->interpolation_type, args, 4, NULL)"): (
        "t-string: CPython's string.templatelib.Interpolation type (stores, formats nothing)"
    ),
    ("eval_expr.c", "PyObject_Call(st->template_type, parts, NULL)"): (
        "t-string: CPython's string.templatelib.Template type over str and Interpolation parts"
    ),
    ("eval_expr.c", "PyDict_Update(d, m)"): "{**m}: a mapping's keys are finite; values gated",
    ("eval_expr.c", "PyObject_Vectorcall(superobj, args, 2, NULL)"): "super(cls, obj): the builtin type",
    ("eval_expr.c", "res = PyObject_Call(func, args, kw);"): "interpreted function (direct_call)",
    ("eval_stmt.c", "ls->it = PyObject_GetIter(src);"): (
        "loop source of a for statement or comprehension: each item charged"
    ),
    ("eval_stmt.c", "ls->next = deadline_next_orig(Py_TYPE(ls->it));"): (
        "loop source: a deadline source's own next, each item charged"
    ),
    ("eval_stmt.c", "PyObject_CallMethodOneArg(exc, name, type)"): "except*: ExceptionGroup.split",
    ("eval_expr.c", "iter = PyObject_GetIter(keys);"): "f(**m): the mapping's keys, materialized",
    ("eval_expr.c", "while ((key = PyIter_Next(iter)) != NULL)"): "f(**m): materialized keys",
    ("eval_expr.c", "l = src != NULL ? PySequence_List(src) : NULL;"): "f(*it): hostcall_getiter",
    ("eval_stmt.c", 'PyObject_CallMethod(e, "derive", "O", kept)'): "except*: builtin ExceptionGroup",
    ("eval_stmt.c", "PyObject_CallFunction(PyExc_BaseExceptionGroup"): "except*: builtin type",
    ("eval_stmt.c", "exc = PyObject_CallNoArgs(v);"): "`raise Cls`: exception class (BaseException)",
    ("eval_stmt.c", "cause = PyObject_CallNoArgs(c);"): "`from Cls`: exception class",
    ("eval_stmt.c", "names = PySequence_List(all);"): "from m import *: an authorized module's __all__",
    ("eval_stmt.c", "PyObject_CallOneArg(PyExc_AssertionError, m)"): "assert: builtin type",
    ("eval_expr.c", "PySequence_Contains(names, nm) == 0 &&"): (
        "dir() without arguments in a function: our own list of the frame's names (str)"
    ),
    ("eval_match.c", "it = PyObject_GetIter(subject);"): "sequence pattern: a Sequence, charged",
    ("eval_match.c", "w = PyIter_Next(it);"): "sequence pattern: a Sequence (len known)",
    ("eval_match.c", "rest = PySequence_List(it);"): "sequence pattern: a Sequence (len known)",
    ("eval_match.c", "PyDict_Update(rest, subject)"): "mapping pattern **rest: a Mapping",
    ("eval_match.c", "PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type)"): "object(): sentinel",
    ("eval_match.c", "PyObject *v = PyObject_Vectorcall(get, args, 2, NULL);"): "Mapping.get: protocol",
    ("function.c", "res = PyObject_CallOneArg(fn, src->it);"): (
        "generator expression: an interpreted generator function"
    ),
    ("function.c", "PyObject *res = PyObject_Vectorcall(func, args, nargsf, kwnames);"): (
        "function_call_direct: an interpreted callable (a bound method, another interpreter's "
        "function), through its own entry checks"
    ),
    ("function.c", 'PyObject_CallMethod(textwrap, "dedent"'): "__source__: our own use of textwrap",
    ("function.c", 'PyObject_CallMethod(ast, "parse"'): "__source__: our own use of ast",
    ("function.c", 'PyObject_CallMethod(ast, "unparse"'): "__source__: our own use of ast",
    ("function.c", "PyObject_CallOneArg(meth, bases)"): "class: __mro_entries__ (typing generics)",
    ("function.c", "PyObject *d = one ? PyObject_CallOneArg(a, one) : NULL;"): (
        "__annotations__ (3.14): only an annotate object of ours (annotate.c), which calls "
        "the code's own annotation scope, or our builtin __annotate__"
    ),
    ("function.c", "PyDict_Update(kw, v);"): "class keywords **m: a mapping",
    ("function.c", "ns = PyObject_VectorcallDict(prep, pargs, 2, kw);"): "class: __prepare__",
    ("function.c", "cls = PyObject_VectorcallDict(meta, margs, 3, kw);"): "class: the metaclass",
    ("generator.c", "PyObject_CallOneArg(PyExc_StopIteration, value)"): "builtin type",
    ("generator.c", "deadline_next_orig(Py_TYPE(it)), it);"): (
        "genexp loop: a deadline source's own next, each item charged"
    ),
    ("generator.c", "PyObject *it = PyObject_GetIter(src);"): "genexp inner loop: charged",
    ("generator.c", "iter = PyObject_GetIter(iterable);"): "yield from: each item charged",
    ("generator.c", "ret = PyObject_CallNoArgs(meth);"): "close() of a subiterator (gated method)",
    ("generator.c", "ret = PyObject_CallFunctionObjArgs("): "throw() of a subiterator (gated method)",
    ("generator.c", "PyObject_CallFinalizerFromDealloc"): "our generator's own finalizer",
    ("generator.c", "*presult = Py_TYPE(iter)->tp_iternext(iter);"): "yield from: each item charged",
    ("generator.c", "PyObject *item = loop_iter_next("): "genexp / flat for loop: each item charged",
    ("function.c", "PyObject *it = PyObject_GetIter(v);"): (
        "async generator expression `(*x for ...)`: each item charged and checked"
    ),
    ("function.c", "while (rc == 0 && (x = PyIter_Next(it)) != NULL) {"): (
        "async generator expression `(*x for ...)`: each item charged and checked"
    ),
    ("generator.c", "PyObject *hooks = PyObject_CallNoArgs(get);"): (
        "async generator: sys.get_asyncgen_hooks (a builtin of sys), as CPython reads them"
    ),
    ("generator.c", "PyObject *r = PyObject_CallOneArg(firstiter, (PyObject *)gen);"): (
        "async generator: the event loop's firstiter hook, host code the host installed "
        "(the tripwire refuses sys.set_asyncgen_hooks to the code in process)"
    ),
    ("generator.c", "PyObject *r = PyObject_CallOneArg(gen->ag_finalizer, self);"): (
        "async generator: the event loop's finalizer hook at collection (as firstiter)"
    ),
}


def raw_calls():
    found = []
    for name in EVALUATOR:
        for lineno, line in enumerate((CSRC / name).read_text().splitlines(), 1):
            stripped = line.strip()
            if re.match(r"(/\*|\*(\s|/|$)|//)", stripped):
                continue  # a comment
            if RAW.search(line):
                found.append((name, lineno, stripped))
    return found


def test_no_raw_host_call_outside_the_entry_point():
    unknown = [
        f"{name}:{lineno}: {text}"
        for name, lineno, text in raw_calls()
        if not any(f == name and frag in text for (f, frag) in ALLOWED)
    ]
    assert not unknown, (
        "raw calls in the evaluator: route them through csrc/guard/hostcall.c or review them and add "
        "them to ALLOWED with a reason:\n" + "\n".join(unknown)
    )


def test_allowlist_has_no_stale_entries():
    lines = raw_calls()
    stale = [k for k in ALLOWED if not any(n == k[0] and k[1] in t for n, _, t in lines)]
    assert not stale, f"ALLOWED entries that match nothing: {stale}"


def test_scan_sees_a_raw_call(tmp_path):
    """The scan itself works: a call the list does not know is reported."""
    assert RAW.search("    PyObject *r = PyObject_CallOneArg(host, x);")
    assert RAW.search("    r = PyObject_Vectorcall(f, a, n, NULL);")
    assert RAW.search("    x = loop_iter_next(next, it);")
    assert not any(f == "eval_expr.c" and frag in "PyObject_CallOneArg(host, x)" for f, frag in ALLOWED)


def test_entry_point_is_used_by_call_sites():
    src = {n: (CSRC / n).read_text() for n in EVALUATOR}
    assert "hostcall_vectorcall(" in src["eval_expr.c"]
    assert "hostcall_call(" in src["eval_expr.c"]
    assert src["eval_stmt.c"].count("hostcall_callv(") >= 4  # enter, exit x2, decorators
    assert "hostcall_callv(" in src["generator.c"]


# Behaviour: each route applies the gates.


@pytest.mark.parametrize(
    "code",
    [
        # decorator: a refused host callable
        "import os\n@os.system\ndef f(): pass",
        # with: a host context manager's __enter__ result is gated
        "import threading\nwith threading.Lock() as l:\n    pass",
        # *args call of a refused callable
        "import os\nos.system(*['echo hi'])",
    ],
)
def test_routes_apply_the_gates(code, canary):
    ex = new_executor(imports=["threading", "sys", "os"])
    refused(ex, code)


def test_iterator_arguments_are_wrapped_for_any_host_function():
    ex = new_executor(imports=["itertools", "statistics", "heapq"], timeout=1)
    for code in [
        "import heapq, itertools\nheapq.nlargest(3, itertools.count())",
        "import itertools\ndict.fromkeys(itertools.cycle('ab'))",
        "import itertools\nf = lambda: 0\nmin(iter(f, 1))",
        "import itertools\nsorted(itertools.chain.from_iterable(itertools.repeat([1])))",
    ]:
        refused(
            ex,
            code,
            match="maximum execution time|too large|Memory budget|max number of operations",
            timeout_ok=True,
        )


def test_legitimate_iterator_use_unchanged():
    ex = new_executor(imports=["itertools"])
    out = ex(
        "import itertools\n"
        "a = list(itertools.islice(itertools.count(5), 3))\n"
        "b = list(zip('abc', itertools.cycle([0, 1])))\n"
        "c = list(itertools.repeat(7, 3))\n"
        "it = iter([1, 2, 3])\n"
        "d = (type(it).__name__, next(it), isinstance(map(abs, []), map), repr(zip()) [:4])\n"
        "src = iter([3, 2, 1, 0])\n"
        "e = list(iter(lambda: next(src), 0))\n"
        "f = 2 in itertools.count()\n"
        "g = sum(itertools.islice(itertools.count(), 10))\n"
        "h = [*itertools.islice(itertools.repeat('x'), 2)]\n"
        "(a, b, c, d, e, f, g, h)"
    )
    assert out.output == (
        [5, 6, 7],
        [("a", 0), ("b", 1), ("c", 0)],
        [7, 7, 7],
        ("list_iterator", 1, True, "<zip"),
        [3, 2, 1],
        True,
        45,
        ["x", "x"],
    )


@pytest.mark.parametrize(
    "call, message",
    [
        ("s.zfill(n)", "padding"),
        ("str.zfill(s, n)", "padding"),
        ("str.center(s, n)", "padding"),
        ("s.ljust(n, '*')", "padding"),
        ("bytes.rjust(b, n)", "padding"),
        ("list.extend(l, m)", "result of this call would be too large"),
        ("l.extend(m)", "result of this call would be too large"),
    ],
)
def test_method_descriptors_get_the_checks_of_the_bound_method(call, message):
    """A method call passes its object unbound (the evaluator loads `s.zfill` as the
    descriptor str.zfill plus `s`), and code may call a descriptor itself (`str.zfill(s, n)`):
    the entry point's pre-checks take the object from the first argument, so both forms are
    refused by the size check, before any allocation, as the bound method is -- also at a
    call site warmed by harmless calls."""
    ex = new_executor()
    setup = "s, b, n = 'x', b'x', 10**9\nl = [1]\nm = range(10**8)\n"
    warm = call.replace("n)", "3)").replace("n, ", "3, ").replace("(l, m)", "(l, [])")
    warm = warm.replace("(m)", "([])")
    ex(setup + f"for _ in range(3):\n    r = {warm}")
    refused(ex, setup + f"for i in range(2):\n    r = {call}", match=message)
    # a wrong first argument is the descriptor's own TypeError, not a crash of a check
    if call.startswith(("str.", "bytes.", "list.")):
        refused(ex, call.split("(")[0] + "(5, 3)", match="TypeError|requires|descriptor")
