"""The module contract of `smolagents.local_python_executor` (1.26), name by name, checked
against the real smolagents package: names, signatures, constants, class relationships, the
executor's attributes and the helpers' behaviour.

Skipped when smolagents is not installed (it is an optional dependency; CI installs it with the
`smolagents` extra).
"""

from __future__ import annotations

import dataclasses
import inspect
import random
import threading
import time
import types

import pytest

pytest.importorskip("smolagents")

from smolagents import local_python_executor as smol  # noqa: E402
from smolagents import utils as smol_utils  # noqa: E402

import smolagents_native  # noqa: E402
from smolagents_native import executor as ours  # noqa: E402

# Every public name of the contract (issue 4).
CONTRACT = [
    "LocalPythonExecutor",
    "evaluate_python_code",
    "CodeOutput",
    "PythonExecutor",
    "InterpreterError",
    "ExecutionTimeoutError",
    "FinalAnswerException",
    "PrintContainer",
    "BASE_BUILTIN_MODULES",
    "BASE_PYTHON_TOOLS",
    "DANGEROUS_MODULES",
    "DANGEROUS_FUNCTIONS",
    "MAX_OPERATIONS",
    "MAX_WHILE_ITERATIONS",
    "MAX_EXECUTION_TIME_SECONDS",
    "DEFAULT_MAX_LEN_OUTPUT",
    "check_import_authorized",
    "fix_final_answer_code",
    "timeout",
    "get_safe_module",
]
# smolagents' internal evaluators that its own tests import (shims in smolagents_native.compat).
INTERNAL_SHIMS = ["evaluate_boolop", "evaluate_condition", "evaluate_delete", "evaluate_subscript"]
FUNCTIONS = [
    "evaluate_python_code",
    "check_import_authorized",
    "fix_final_answer_code",
    "timeout",
    "get_safe_module",
    *INTERNAL_SHIMS,
]


def _shape(sig: inspect.Signature) -> list[tuple]:
    """Parameters without annotations (ours are strings: `from __future__ import annotations`)."""
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


@pytest.mark.parametrize("name", CONTRACT + INTERNAL_SHIMS)
def test_name_exists_in_both(name):
    assert hasattr(smol, name), f"smolagents.local_python_executor has no {name}: update CONTRACT"
    assert hasattr(ours, name)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_signatures_match(name):
    assert _shape(inspect.signature(getattr(ours, name))) == _shape(
        inspect.signature(getattr(smol, name))
    )


def test_executor_constructor_extends_smolagents_signature():
    theirs = _shape(inspect.signature(smol.LocalPythonExecutor.__init__))
    mine = _shape(inspect.signature(ours.LocalPythonExecutor.__init__))
    assert mine[: len(theirs)] == theirs
    # Our additions come after, optional, defaulting to "read the module global" (budgets) or
    # "derive from the authorized imports" (the tripwire's grants); the memory budget defaults
    # to 512 MiB, the source budget to 1 MiB (None: no limit).
    extra = mine[len(theirs):]
    assert [name for name, _, _ in extra] == [
        "max_operations", "max_while_iterations", "readable_dirs", "writable_dirs", "allow_network",
        "isolation", "max_memory_bytes", "max_source_bytes",
    ]
    assert all(default is None for _, _, default in extra[:-2])
    assert extra[-2][2] == 512 * 1024 * 1024
    assert extra[-1][2] == 1024 * 1024


@pytest.mark.parametrize("method", ["send_tools", "send_variables", "__call__"])
def test_executor_method_signatures_match(method):
    assert _shape(inspect.signature(getattr(ours.LocalPythonExecutor, method))) == _shape(
        inspect.signature(getattr(smol.LocalPythonExecutor, method))
    )


@pytest.mark.parametrize(
    "name",
    [
        "BASE_BUILTIN_MODULES",
        "DANGEROUS_MODULES",
        "DANGEROUS_FUNCTIONS",
        "MAX_OPERATIONS",
        "MAX_WHILE_ITERATIONS",
        "MAX_EXECUTION_TIME_SECONDS",
        "DEFAULT_MAX_LEN_OUTPUT",
        "ALLOWED_DUNDER_METHODS",
    ],
)
def test_constants_equal(name):
    assert getattr(ours, name) == getattr(smol, name)


def test_utils_constants_equal():
    assert ours.BASE_BUILTIN_MODULES == smol_utils.BASE_BUILTIN_MODULES
    assert ours.MAX_LENGTH_TRUNCATE_CONTENT == smol_utils.MAX_LENGTH_TRUNCATE_CONTENT
    for text in ["", "short", "x" * 50, "abcdefghij" * 7]:
        for limit in [10, 11, 50, 20000]:
            assert ours.truncate_content(text, limit) == smol_utils.truncate_content(text, limit)


def test_base_python_tools():
    assert list(ours.BASE_PYTHON_TOOLS) == list(smol.BASE_PYTHON_TOOLS)
    # Same objects, except smolagents' own wrappers of print and getattr (ours are the real
    # builtins; the C core supplies guarded versions).
    differ = {k for k, v in smol.BASE_PYTHON_TOOLS.items() if v is not ours.BASE_PYTHON_TOOLS[k]}
    assert differ == {"print", "getattr"}


def test_package_reexports():
    for name in smolagents_native.__all__:
        assert getattr(smolagents_native, name) is not None
    assert smolagents_native.LocalPythonExecutor is ours.LocalPythonExecutor
    assert smolagents_native.evaluate_python_code is ours.evaluate_python_code


# --- classes --------------------------------------------------------------------------------


def test_class_relationships():
    assert ours.PythonExecutor is smol.PythonExecutor
    assert issubclass(ours.LocalPythonExecutor, smol.PythonExecutor)
    assert issubclass(ours.CodeOutput, smol.CodeOutput)
    assert issubclass(ours.PrintContainer, smol.PrintContainer)
    assert issubclass(ours.InterpreterError, smol.InterpreterError)
    assert issubclass(ours.InterpreterError, ValueError)
    assert issubclass(ours.ExecutionTimeoutError, smol.ExecutionTimeoutError)
    assert issubclass(ours.FinalAnswerException, smol.FinalAnswerException)
    assert issubclass(ours.FinalAnswerException, BaseException)
    assert not issubclass(ours.FinalAnswerException, Exception)
    assert ours.FinalAnswerException("v").value == "v"


def test_code_output_fields():
    assert [f.name for f in dataclasses.fields(ours.CodeOutput)] == [
        f.name for f in dataclasses.fields(smol.CodeOutput)
    ]
    out = ours.CodeOutput(output=1, logs="x", is_final_answer=False)
    assert out == ours.CodeOutput(1, "x", False)
    assert "<" in out._repr_html_() and isinstance(out._repr_markdown_(), str)


def test_print_container_behaves_like_smolagents():
    a, b = ours.PrintContainer(), smol.PrintContainer()
    for pc in (a, b):
        pc.append("Hello")
        pc += 5
    assert (a.value, str(a), repr(a), len(a)) == (b.value, str(b), repr(b), len(b))


def test_executor_attributes_match_smolagents():
    def helper():
        return 1

    kwargs = dict(
        max_print_outputs_length=123, additional_functions={"helper": helper}, timeout_seconds=7
    )
    mine = ours.LocalPythonExecutor(["json", "unittest.*"], **kwargs)
    theirs = smol.LocalPythonExecutor(["json", "unittest.*"], **kwargs)
    public = {k for k in vars(theirs) if not k.startswith("_")}
    assert public <= set(vars(mine))
    for name in public - {"authorized_imports"}:
        assert getattr(mine, name) == getattr(theirs, name), name
    # smolagents goes through a set (order varies from run to run); ours is stable.
    assert sorted(mine.authorized_imports) == sorted(theirs.authorized_imports)
    assert mine.authorized_imports[: len(ours.BASE_BUILTIN_MODULES)] == ours.BASE_BUILTIN_MODULES

    default = ours.LocalPythonExecutor([])
    assert default.max_print_outputs_length == ours.DEFAULT_MAX_LEN_OUTPUT
    assert default.timeout_seconds == ours.MAX_EXECUTION_TIME_SECONDS
    assert default.static_tools is None and default.custom_tools == {}
    assert default.state == {"__name__": "__main__"}
    assert bool(default)  # truthy, like smolagents' (agents test `if executor:`)


def test_send_tools_and_send_variables():
    def helper():
        return 1

    def tool(x):
        return x

    mine = ours.LocalPythonExecutor([], additional_functions={"helper": helper})
    theirs = smol.LocalPythonExecutor([], additional_functions={"helper": helper})
    for ex in (mine, theirs):
        ex.send_tools({"tool": tool, "print": tool})
        ex.send_variables({"v": 41})
    assert list(mine.static_tools) == list(theirs.static_tools)
    assert mine.static_tools["tool"] is tool and mine.static_tools["helper"] is helper
    # The base tools come after the agent's tools, so they win (as in smolagents).
    assert mine.static_tools["print"] is ours.BASE_PYTHON_TOOLS["print"]
    assert mine.state["v"] == theirs.state["v"] == 41
    out = mine("v + tool(1) + helper()")
    assert isinstance(out, smol.CodeOutput) and out.output == 43


def test_call_returns_code_output_with_logs():
    ex = ours.LocalPythonExecutor([])
    ex.send_tools({})
    out = ex("print('a', 1)\nx = 2\nx * 3")
    assert (out.output, out.logs, out.is_final_answer) == (6, "a 1\n", False)
    assert str(ex.state["_print_outputs"]) == "a 1\n"
    assert isinstance(ex.state["_print_outputs"], smol.PrintContainer)
    assert isinstance(ex.state["_operations_count"]["counter"], int)


def test_logs_truncated_like_smolagents():
    code = "for i in range(300):\n    print(i)"
    mine = ours.LocalPythonExecutor([], max_print_outputs_length=100)
    theirs = smol.LocalPythonExecutor([], max_print_outputs_length=100)
    for ex in (mine, theirs):
        ex.send_tools({})
    assert mine(code).logs == theirs(code).logs


# --- evaluate_python_code -----------------------------------------------------------------------


def test_evaluate_python_code_mutates_the_callers_state():
    state = {"y": 1}
    assert ours.evaluate_python_code("x = y + 1\nprint(x)\nx", state=state) == (2, False)
    assert state["x"] == 2 and str(state["_print_outputs"]) == "2\n"
    assert state["_operations_count"]["counter"] > 0


@pytest.mark.parametrize(
    "code",
    ["print('before')\n1/0", "print('before')\nimport os", "x = (", "print('before')\nundefined"],
)
def test_state_entries_present_after_a_failed_step(code):
    state = {}
    with pytest.raises(smol.InterpreterError):
        ours.evaluate_python_code(code, state=state)
    assert isinstance(state["_print_outputs"], smol.PrintContainer)
    assert isinstance(state["_operations_count"], dict)
    if "before" in code:
        assert str(state["_print_outputs"]) == "before\n"


def test_final_answer_raises_final_answer_exception_with_the_tools_value():
    calls = []

    def final_answer(answer):
        calls.append(answer)
        return {"wrapped": answer}

    state = {}
    result = ours.evaluate_python_code(
        "try:\n    final_answer(7)\nexcept Exception:\n    pass\nprint('never')",
        {"final_answer": final_answer},
        state=state,
    )
    assert result == ({"wrapped": 7}, True)
    assert calls == [7] and str(state["_print_outputs"]) == ""

    ex = ours.LocalPythonExecutor([])
    ex.send_tools({"final_answer": final_answer})
    out = ex("final_answer(answer='done')")
    assert (out.output, out.is_final_answer) == ({"wrapped": "done"}, True)


def test_limits_are_read_at_call_time(monkeypatch):
    loop = "x = 0\nfor i in range(1000):\n    x += i"
    ours.evaluate_python_code(loop, state={})
    monkeypatch.setattr(ours, "MAX_OPERATIONS", 100)
    with pytest.raises(smol.InterpreterError, match="Reached the max number of operations of 100"):
        ours.evaluate_python_code(loop, state={})
    ex = ours.LocalPythonExecutor([])
    ex.send_tools({})
    with pytest.raises(smol.InterpreterError, match="max number of operations of 100"):
        ex(loop)
    monkeypatch.undo()

    monkeypatch.setattr(ours, "MAX_WHILE_ITERATIONS", 10)
    with pytest.raises(smol.InterpreterError, match="Maximum number of 10 iterations in While"):
        ours.evaluate_python_code("i = 0\nwhile i < 50:\n    i += 1", state={})


def test_executor_budgets_override_the_module_globals(monkeypatch):
    monkeypatch.setattr(ours, "MAX_OPERATIONS", 50)
    ex = ours.LocalPythonExecutor([], max_operations=100_000, max_while_iterations=5)
    ex.send_tools({})
    assert ex("sum(i for i in range(1000))").output == 499500
    with pytest.raises(smol.InterpreterError, match="Maximum number of 5 iterations"):
        ex("i = 0\nwhile i < 50:\n    i += 1")
    assert (ex.max_operations, ex.max_while_iterations) == (100_000, 5)


def test_timeout_error_message_and_class():
    ex = ours.LocalPythonExecutor(
        [], timeout_seconds=1, max_operations=10**12, max_while_iterations=10**12
    )
    ex.send_tools({})
    start = time.monotonic()
    with pytest.raises(smol.ExecutionTimeoutError) as info:
        ex("while True:\n    pass")
    assert time.monotonic() - start < 10
    assert str(info.value) == "Code execution exceeded the maximum execution time of 1 seconds"


def test_non_installed_authorized_modules_message_matches():
    with pytest.raises(smol.InterpreterError) as theirs:
        smol.LocalPythonExecutor(["math", "no_such_module_xyz.*"])
    with pytest.raises(smol.InterpreterError) as mine:
        ours.LocalPythonExecutor(["math", "no_such_module_xyz.*"])
    assert str(mine.value) == str(theirs.value)


# --- helpers ------------------------------------------------------------------------------------


def test_check_import_authorized_agrees_with_smolagents():
    rng = random.Random(4)
    parts = ["a", "b", "c", "*"]
    for _ in range(3000):
        entries = [
            ".".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))
            for _ in range(rng.randint(0, 3))
        ]
        name = ".".join(rng.choice(parts[:3]) for _ in range(rng.randint(1, 3)))
        assert ours.check_import_authorized(name, entries) == smol.check_import_authorized(
            name, entries
        ), (name, entries)


@pytest.mark.parametrize(
    "code",
    [
        "final_answer = 3.21\nfinal_answer(final_answer)",
        "x = final_answer(5)\nfinal_answer = x + 1\nfinal_answer(final_answer)",
        "def func():\n    final_answer = 42\n    return final_answer(final_answer)",
        "final_answer(5)  # a call",
        "obj.final_answer = 5\nfinal_answer(obj.final_answer)",
        "final_answer=3.21;final_answer(final_answer)",
        "my_final_answer = 1\nfinal_answer(my_final_answer)",
        "final_answer_2 = 1\nfinal_answer = 2\nfinal_answer (final_answer_2)",
        "if final_answer == 3:\n    final_answer(final_answer)",
        "final_answer  =  'x'\nprint(final_answer)\nfinal_answer(final_answer)",
        "final_answer = 1",
        "",
    ],
)
def test_fix_final_answer_code_agrees_with_smolagents(code):
    assert ours.fix_final_answer_code(code) == smol.fix_final_answer_code(code)


def test_timeout_decorator():
    @ours.timeout(2)
    def quick(x):
        return x * 2

    assert quick(21) == 42
    assert quick.__name__ == "quick"

    @ours.timeout(0.2)
    def slow():
        time.sleep(1)

    with pytest.raises(smol.ExecutionTimeoutError, match="maximum execution time of 0.2 seconds"):
        slow()

    @ours.timeout(2)
    def fails():
        raise KeyError("k")

    with pytest.raises(KeyError):
        fails()

    # Usable from any thread.
    errors = []

    def worker():
        try:
            assert quick(1) == 2
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert errors == []


def test_get_safe_module_agrees_with_smolagents():
    import collections

    for module in (collections, random):
        mine = ours.get_safe_module(module, [])
        theirs = smol.get_safe_module(module, [])
        assert isinstance(mine, types.ModuleType) and mine is not module
        assert mine.__name__ == module.__name__
        assert set(vars(mine)) == set(vars(theirs))
    obj = object()
    assert ours.get_safe_module(obj, []) is obj

    class Lazy(types.ModuleType):
        def __getattr__(self, name):
            if name == "lazy":
                raise ImportError("lazy import failure")
            raise AttributeError(name)

        def __dir__(self):
            return [*super().__dir__(), "lazy"]

    copy = ours.get_safe_module(Lazy("fake"), [])
    assert not hasattr(copy, "lazy")


def test_internal_evaluator_shims():
    import ast

    state = {"a": 0, "b": 2, "d": {"k": 1}, "l": [1, 2, 3]}
    node = ast.parse("a or b").body[0].value
    assert ours.evaluate_boolop(node, state, {}, {}, []) == 2
    node = ast.parse("a < b < 3", mode="eval").body
    assert ours.evaluate_condition(node, state, {}, {}, []) is True
    node = ast.parse("l[1:]").body[0].value
    assert ours.evaluate_subscript(node, state, {}, {}, []) == [2, 3]
    with pytest.raises(smol.InterpreterError, match=r"Could not index \{'k': 1\} with 'x': Key"):
        ours.evaluate_subscript(ast.parse("d['x']").body[0].value, state, {}, {}, [])
    ours.evaluate_delete(ast.parse("del d['k'], a").body[0], state, {}, {}, [])
    assert state["d"] == {} and "a" not in state and "_print_outputs" not in state
    with pytest.raises(smol.InterpreterError, match="Cannot delete name 'zz': name is not defined"):
        ours.evaluate_delete(ast.parse("del zz").body[0], state, {}, {}, [])
    # The policy applies: these are not a way around the sandbox.
    with pytest.raises(smol.InterpreterError, match="Forbidden access to dunder attribute"):
        node = ast.parse("a or ().__class__.__subclasses__").body[0].value
        ours.evaluate_boolop(node, {"a": 0}, {}, {}, [])
