"""Robustness: deep recursion and deeply nested sources end in an error, never a crash.

Each case runs in a fresh executor; the assertion is that the step either
succeeds or raises InterpreterError (a RecursionError that user code can catch
is also fine), and that the executor still works afterwards.
"""

import sys

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor


def fresh():
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    return ex


def run_or_interpreter_error(ex, code):
    try:
        return ex(code)
    except InterpreterError as e:
        return e


def still_works(ex):
    out = ex("y = 40 + 2\ny")
    assert out.output == 42


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_interpreted_recursion_is_an_error(depth):
    ex = fresh()
    code = f"def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nf({depth})"
    err = run_or_interpreter_error(ex, code)
    assert isinstance(err, InterpreterError)
    assert "RecursionError" in str(err)
    still_works(ex)


def test_recursion_error_is_catchable_like_cpython():
    ex = fresh()
    code = (
        "def f(n):\n    return f(n + 1)\n"
        "try:\n    f(0)\nexcept RecursionError as e:\n    msg = str(e)\n"
        "msg"
    )
    out = ex(code)
    assert "maximum recursion depth exceeded" in out.output
    still_works(ex)


def test_mutual_recursion_through_host_code():
    # interpreted __repr__ called by the host's repr() of a list, recursing
    ex = fresh()
    code = (
        "class R:\n"
        "    def __repr__(self):\n"
        "        return repr([self])\n"
        "repr(R())"
    )
    err = run_or_interpreter_error(ex, code)
    assert isinstance(err, InterpreterError)
    assert "RecursionError" in str(err)
    still_works(ex)


def test_recursion_through_sorted_key():
    ex = fresh()
    code = "def k(x):\n    return sorted([x], key=k)\nk(1)"
    err = run_or_interpreter_error(ex, code)
    assert isinstance(err, InterpreterError)
    still_works(ex)


NESTED_SOURCES = {
    "parentheses": lambda n: "x = " + "(" * n + "1" + ")" * n,
    "lists": lambda n: "x = " + "[" * n + "]" * n,
    "unary_minus": lambda n: "x = " + "-" * n + "1",
    "not": lambda n: "x = " + "not " * n + "True",
    "binop_chain": lambda n: "x = " + "+".join(["1"] * n),
    "attribute_chain": lambda n: "x = 1\ny = x" + ".real" * n,
    "call_chain": lambda n: "def f():\n    return f\ny = f" + "()" * n,
    "lambdas": lambda n: "x = " + "lambda: " * n + "1",
    "subscripts": lambda n: "x = [0]\ny = x" + "[0]" * n,
    "conditional": lambda n: "x = " + "1 if True else " * n + "0",
    "dict": lambda n: "x = " + "{1: " * n + "1" + "}" * n,
    "fstring": lambda n: "x = 1\ny = " + "f'{" * min(n, 100) + "x" + "}'" * min(n, 100),
    "comparison_chain": lambda n: "x = " + " < ".join(["1"] * n),
    "boolop_chain": lambda n: "x = " + " and ".join(["True"] * n),
}


@pytest.mark.parametrize("shape", sorted(NESTED_SOURCES))
@pytest.mark.parametrize("depth", [1_000, 10_000])
def test_deeply_nested_source_never_crashes(shape, depth):
    ex = fresh()
    code = NESTED_SOURCES[shape](depth)
    run_or_interpreter_error(ex, code)
    still_works(ex)


def test_deeply_nested_blocks():
    # CPython's parser caps indentation at 100 levels; just below the cap
    code = ""
    for i in range(99):
        code += " " * i + "if True:\n"
    code += " " * 99 + "x = 1\n"
    ex = fresh()
    run_or_interpreter_error(ex, code)
    still_works(ex)


def test_deep_data_built_at_runtime():
    # a 200,000-deep nested tuple built by a loop, then printed by the host
    ex = fresh()
    code = "t = ()\nfor i in range(200000):\n    t = (t,)\nprint(len(repr(t)) > 0)"
    run_or_interpreter_error(ex, code)
    still_works(ex)


def test_failing_step_keeps_state_and_prints():
    ex = fresh()
    ex("a = 1")
    with pytest.raises(InterpreterError):
        ex("b = 2\nprint('before')\nraise ValueError('boom')\nc = 3")
    assert ex.state["a"] == 1
    assert ex.state["b"] == 2
    assert "c" not in ex.state
    assert "before" in str(ex.state["_print_outputs"])


CROSS_STACK = """
import sys
from smolagents_native import LocalPythonExecutor
sys.setrecursionlimit(10**6)
B = LocalPythonExecutor([]); B.send_tools({})
deep = B("def deep(n):\\n    return 0 if n == 0 else 1 + deep(n - 1)\\ndeep").output
# a variable, not a tool: tools reach the code as opaque proxies, i.e. host calls, which run
# on the step's large stack (tests/engine/test_stacks.py); a variable is called in place
A = LocalPythonExecutor([]); A.send_tools({}); A.send_variables({"deep": deep})
gen = A("def g(n):\\n    try:\\n        yield deep(n)\\n    except RecursionError:\\n"
        "        yield 'RecursionError'\\ng").output
B.send_tools({"run_in_a": lambda n: next(gen(n))})
for n in [100, 10**6]:
    print(B(f"run_in_a({n})").output)
"""


def test_running_interpreter_called_on_another_interpreters_generator_stack():
    # B is running; its function recurses on A's generator stack: the bound
    # that applies is that stack's, found through the thread's current bounds
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, "-c", CROSS_STACK], capture_output=True,
                          text=True, cwd=root, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["100", "RecursionError"]


EXCEPTION_GROUP_SUBCLASSES = {
    # split() returning a non-tuple crashes CPython 3.11 to 3.13 (gh-128049); 3.14 raises
    "split_not_tuple": ("def split(self, *a):\n        return 42",
                        "TypeError: BadGroup.split must return a tuple, not int"),
    "split_short": ("def split(self, *a):\n        return (None,)",
                    "TypeError: BadGroup.split must return a 2-tuple, got tuple of size 1"),
    # CPython reads the C field; a property is honoured here, and anything but a tuple refused
    "exceptions_not_tuple": ("@property\n    def exceptions(self):\n        return [ValueError()]",
                             "TypeError: BadGroup.exceptions must be a tuple, not list"),
    "derive_not_group": ("def derive(self, excs):\n        return 7",
                         "TypeError: derive must return an instance of BaseExceptionGroup"),
}


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is 3.11+")
@pytest.mark.parametrize("name", sorted(EXCEPTION_GROUP_SUBCLASSES))
def test_except_star_survives_hostile_exception_group_subclasses(name):
    """An ExceptionGroup subclass whose split(), exceptions or derive() returns the wrong
    type ends in a TypeError, never a crash of the host."""
    method, expected = EXCEPTION_GROUP_SUBCLASSES[name]
    src = (
        f"class BadGroup(ExceptionGroup):\n    {method}\n"
        "try:\n"
        "    try:\n"
        "        raise BadGroup('eg', [ValueError(1), TypeError(2), ExceptionGroup('in', [KeyError(3)])])\n"
        "    except* ValueError:\n"
        "        raise\n"
        "    except* KeyError:\n"
        "        pass\n"
        "except TypeError as e:\n"
        "    r = f'{type(e).__name__}: {e}'\n"
        "r"
    )
    ex = fresh()
    assert ex(src).output == expected
    assert ex("1 + 1").output == 2
