"""Loops over `range(...)` that the evaluator counts in C (csrc/eval/eval_stmt.c, `LoopSource`) behave
as the same loops over an iterator.

What CPython itself shows is checked by tests/programs/260_for_range_counting.py. What a
comprehension's hidden `.0` (its first iterator) shows differs between CPython versions: 3.12+
inlines list, set and dict comprehensions (PEP 709; docs/compatibility.md), while the executor
keeps 3.11's layout on every version. So here a counted comprehension is compared with the same
comprehension over a list or over the range's iterator, which are never counted: `dir()` lists
`.0` in both, and a zero-argument `super()` inside one raises the same error in both.
"""

from __future__ import annotations

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor


def run(code: str):
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    try:
        return ("ok", ex(code).output)
    except InterpreterError as e:
        return ("error", str(e))


@pytest.mark.parametrize(
    "template",
    [
        "[sorted(dir()) for i in {src}]",
        "{{i: sorted(dir()) for i in {src}}}",
        "{{len(dir()) for i in {src}}}",
        "[sorted(dir()) for i in {src} for j in [1]]",
        "def f():\n    return [sorted(dir()) for i in {src}]\nf()",
        "class C:\n    names = [sorted(dir()) for i in {src}]\nC.names",
    ],
)
def test_a_counted_comprehension_lists_its_first_iterator(template):
    counted = run(template.format(src="range(1)"))
    listed = run(template.format(src="[0]"))
    assert counted[0] == "ok", counted
    assert counted == listed


def test_dir_in_a_counted_comprehension_lists_dot_zero():
    assert run("[sorted(dir()) for i in range(1)]") == ("ok", [[".0", "i"]])


def test_zero_argument_super_in_a_counted_comprehension():
    code = (
        "class A:\n    def f(self):\n        return 'A'\n"
        "class B(A):\n    def f(self):\n        try:\n"
        "            return [super().f() for i in {src}]\n"
        "        except Exception as e:\n"
        "            return type(e).__name__ + ': ' + str(e)\n"
        "B().f()"
    )
    # uncounted: the same range's iterator, made by the code (3.13 names its type)
    counted = run(code.format(src="range(1)"))
    iterated = run(code.format(src="iter(range(1))"))
    assert counted == iterated
    assert counted[1].startswith("TypeError: super(type, obj)"), counted
