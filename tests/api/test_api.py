"""The Python-level contract: smolagents' LocalPythonExecutor API, state entries and messages."""

import ast
import os
import subprocess
import sys
import textwrap

import pytest

import smolagents_native
from smolagents_native import (
    BASE_BUILTIN_MODULES,
    BASE_PYTHON_TOOLS,
    DEFAULT_MAX_LEN_OUTPUT,
    MAX_EXECUTION_TIME_SECONDS,
    CodeOutput,
    ExecutionTimeoutError,
    FinalAnswerException,
    InterpreterError,
    LocalPythonExecutor,
    PrintContainer,
    evaluate_python_code,
)
from smolagents_native import executor as executor_module
from conftest import new_executor


def make_executor(tools=None, imports=(), **kwargs):
    ex = LocalPythonExecutor(list(imports), **kwargs)
    ex.send_tools(dict(tools or {}))
    return ex


def final_answer(answer):
    return answer


def parse_error_message(code):
    """The message smolagents builds for a SyntaxError."""
    try:
        ast.parse(code)
    except SyntaxError as e:
        return (
            f"Code parsing failed on line {e.lineno} due to: {type(e).__name__}: {str(e)}\n"
            f"{e.text}"
            f"{' ' * (e.offset or 0)}^"
        )
    raise AssertionError("code parses")


# --- constants and constructor -------------------------------------------------------------


def test_constants_match_smolagents_values():
    assert smolagents_native.DEFAULT_MAX_LEN_OUTPUT == 50000
    assert smolagents_native.MAX_OPERATIONS == 10000000
    assert smolagents_native.MAX_WHILE_ITERATIONS == 1000000
    assert smolagents_native.MAX_EXECUTION_TIME_SECONDS == 30
    assert BASE_BUILTIN_MODULES == [
        "collections", "datetime", "itertools", "math", "queue", "random",
        "re", "stat", "statistics", "time", "unicodedata",
    ]
    assert "os" in smolagents_native.DANGEROUS_MODULES
    assert "builtins.eval" in smolagents_native.DANGEROUS_FUNCTIONS
    assert {"print", "len", "sqrt", "ceil", "getattr"} <= set(BASE_PYTHON_TOOLS)


def test_constructor_defaults():
    ex = LocalPythonExecutor([])
    assert ex.state == {"__name__": "__main__"}
    assert ex.static_tools is None
    assert ex.custom_tools == {}
    assert ex.additional_functions == {}
    assert ex.additional_authorized_imports == []
    assert ex.max_print_outputs_length == DEFAULT_MAX_LEN_OUTPUT
    assert ex.timeout_seconds == MAX_EXECUTION_TIME_SECONDS
    assert sorted(ex.authorized_imports) == sorted(BASE_BUILTIN_MODULES)


def test_constructor_arguments():
    def helper():
        return 1

    ex = LocalPythonExecutor(
        ["unittest.*", "math", "json"],
        max_print_outputs_length=123,
        additional_functions={"helper": helper},
        timeout_seconds=None,
    )
    assert ex.additional_authorized_imports == ["unittest.*", "math", "json"]
    assert ex.max_print_outputs_length == 123
    assert ex.timeout_seconds is None
    assert ex.additional_functions == {"helper": helper}
    # deduplicated: base modules plus the additional ones, each once
    expected = set(BASE_BUILTIN_MODULES) | {"unittest.*", "json"}
    assert sorted(ex.authorized_imports) == sorted(expected)
    assert len(ex.authorized_imports) == len(set(ex.authorized_imports))


def test_constructor_positional_signature():
    ex = LocalPythonExecutor(["json"], 10, {"f": abs}, 5)
    assert (ex.max_print_outputs_length, ex.additional_functions, ex.timeout_seconds) == (
        10, {"f": abs}, 5,
    )


def test_help_shows_the_constructors_arguments():
    # help(), IDEs and notebooks read inspect.signature: the real arguments, not (*args, **kwargs)
    import inspect

    from smolagents_native.isolation import ProcessExecutor

    init = inspect.signature(LocalPythonExecutor.__init__).parameters
    sig = inspect.signature(LocalPythonExecutor).parameters
    assert list(sig) == [n for n in init if n != "self"]
    assert all(sig[n].default == init[n].default for n in sig)
    assert "max_memory_bytes" in pydoc_text(LocalPythonExecutor)
    process = inspect.signature(ProcessExecutor).parameters
    assert not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in process.values())
    assert set(process) == set(sig) | {"pool", "worker_env", "cross_classes", "network",
                                       "granted_paths", "worker_limits", "grace_seconds",
                                       "isolation_fallback"}
    assert process["isolation"].default == "process"
    # What the signature shows binds as the constructor binds it.
    bound = inspect.signature(ProcessExecutor).bind(["json"], 10, max_memory_bytes=5)
    assert bound.arguments == {"additional_authorized_imports": ["json"],
                               "max_print_outputs_length": 10, "max_memory_bytes": 5}


def pydoc_text(obj: object) -> str:
    import pydoc

    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


@pytest.mark.parametrize(
    "code, line",
    [
        ("x = 1\nx / 0\n", 2),
        # the innermost statement the error left: inside the function, not the call
        ("def f(a):\n    b = a\n    return b[5]\n\nf([])\n", 3),
        ("for i in range(3):\n    if i == 2:\n        {}[i]\n", 3),
        # a statement spanning lines: its first line
        ("x = (1,\n     undefined_name)\n", 1),
        # an error caught earlier does not stand for a later one
        ("try:\n    1 / 0\nexcept ZeroDivisionError:\n    pass\ny = [][0]\n", 5),
        ("def g():\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        "
         "raise ValueError('x')\ng()\n", 5),
        # a lambda's error: the lambda's line (CPython's traceback ends there too)
        ("f = lambda: 1 / 0\n\nsorted([1, 2], key=lambda x: f())\n", 1),
        # host code between: the interpreted function's line
        ("def key(x):\n    return x['k']\n\nsorted([{}], key=key)\n", 2),
        # a parse error: the parser's line
        ("x = 1\ny = x +\n", 2),
    ],
)
def test_the_error_says_its_line(code, line):
    ex = new_executor()
    with pytest.raises(InterpreterError) as info:
        ex(code)
    assert info.value.lineno == line, str(info.value)


def test_an_exception_caught_is_released_as_under_cpython():
    # The error line's note holds the exception only while it propagates: once caught (or
    # swallowed by host code), the objects it holds die when CPython's would.
    code = (
        "import weakref\n"
        "class E(Exception):\n"
        "    def __init__(self, obj):\n"
        "        self.obj = obj\n"
        "class O:\n"
        "    pass\n"
        "o = O()\n"
        "try:\n"
        "    raise E(o)\n"
        "except E:\n"
        "    pass\n"
        "wr = weakref.ref(o)\n"
        "o = None\n"
        "r1 = wr() is None\n"
        "def g():\n"
        "    x = O()\n"
        "    w = weakref.ref(x)\n"
        "    try:\n"
        "        raise E(x)\n"
        "    except E:\n"
        "        pass\n"
        "    del x\n"
        "    return w() is None\n"
        "r2 = g()\n"
        "(r1, r2)\n"
    )
    scope: dict = {}
    exec(code, scope)
    assert new_executor(["weakref"])(code).output == (True, True) == (scope["r1"], scope["r2"])


def test_non_installed_authorized_module_is_refused():
    with pytest.raises(InterpreterError) as info:
        LocalPythonExecutor(["surely_not_an_installed_module_xyz"])
    assert str(info.value) == (
        "Non-installed authorized modules: surely_not_an_installed_module_xyz. "
        "Please install these modules or remove them from the authorized imports list."
    )


def test_installed_module_is_looked_up_once_and_a_missing_one_every_time(tmp_path, monkeypatch):
    """The import check searches sys.path for a module once: found, it is remembered for the
    process; missing, it is searched again by the next executor, so installing it is seen."""
    name = f"snx_probe_{os.getpid()}_{id(tmp_path)}"
    calls: list = []
    real = executor_module.find_spec

    def counting(mod, *args):
        calls.append(mod)
        return real(mod, *args)

    monkeypatch.setattr(executor_module, "find_spec", counting)
    monkeypatch.syspath_prepend(str(tmp_path))
    for _ in range(2):
        with pytest.raises(InterpreterError, match=f"Non-installed authorized modules: {name}"):
            LocalPythonExecutor([f"{name}.sub"])
    assert calls.count(name) == 2
    (tmp_path / f"{name}.py").write_text("X = 1\n")
    import importlib  # noqa: PLC0415

    importlib.invalidate_caches()
    for _ in range(3):
        LocalPythonExecutor([name])
    assert calls.count(name) == 3  # the two misses, then one lookup for three executors


def test_wildcard_authorization_needs_no_module():
    LocalPythonExecutor(["*"])


# --- send_tools / send_variables -----------------------------------------------------------


def test_send_tools_composes_static_tools_like_smolagents():
    def my_tool(x):
        return x * 2

    def extra(x):
        return x + 1

    ex = LocalPythonExecutor([], additional_functions={"extra": extra})
    ex.send_tools({"my_tool": my_tool})
    assert ex.static_tools == {"my_tool": my_tool, **BASE_PYTHON_TOOLS, "extra": extra}
    out = ex("my_tool(20) + extra(1)")
    assert out.output == 42


def test_send_variables_updates_state():
    ex = make_executor()
    ex.send_variables({"x": 5, "y": [1, 2]})
    assert ex.state["x"] == 5
    assert ex("x + sum(y)").output == 8


def test_base_math_tools_are_available():
    ex = make_executor()
    assert ex("sqrt(16) + ceil(1.2) + floor(2.7)").output == 8.0


def test_call_returns_code_output():
    ex = make_executor()
    out = ex("1 + 1")
    assert isinstance(out, CodeOutput)
    assert out == CodeOutput(output=2, logs="", is_final_answer=False)


def test_last_statement_value():
    # the values smolagents gives for these statement kinds
    ex = make_executor()
    assert ex("a = 3").output == 3
    assert ex("a * 2").output == 6
    assert ex("a += 1").output == 4
    assert ex("p, q = 1, 2").output == (1, 2)
    assert ex("import math").output is None


def test_state_persists_across_calls():
    ex = make_executor()
    ex("x = 10\ndef double(v):\n    return 2 * v")
    ex("import math\ny = double(x)")
    out = ex("math.floor(y / 3)")
    assert out.output == 6
    assert ex.state["x"] == 10 and ex.state["y"] == 20


# --- print capture --------------------------------------------------------------------------


def test_print_capture_with_sep_and_end():
    ex = make_executor()
    out = ex("print('a', 1, sep='-', end='!')\nprint()\nprint('b', 'c')\nprint(*[1, 2], sep=', ')")
    assert out.logs == "a-1!\nb c\n1, 2\n"
    assert isinstance(ex.state["_print_outputs"], PrintContainer)
    assert str(ex.state["_print_outputs"]) == out.logs


def test_print_outputs_reset_each_step():
    ex = make_executor()
    assert ex("print('one')").logs == "one\n"
    assert ex("print('two')").logs == "two\n"
    assert ex("x = 1").logs == ""


def test_logs_are_truncated_like_smolagents():
    ex = make_executor(max_print_outputs_length=20)
    out = ex("print('x' * 30 + 'y' * 30)")
    text = "x" * 30 + "y" * 30 + "\n"
    expected = (
        text[:10]
        + "\n..._This content has been truncated to stay below 20 characters_...\n"
        + text[-10:]
    )
    assert out.logs == expected
    assert str(ex.state["_print_outputs"]) == expected


# --- final_answer -----------------------------------------------------------------------------


def test_final_answer_ends_the_step():
    ex = make_executor({"final_answer": final_answer})
    out = ex("print('before')\nfinal_answer(6 * 7)\nprint('after')")
    assert out.is_final_answer is True
    assert out.output == 42
    assert out.logs == "before\n"


def test_final_answer_returns_the_tool_result_and_accepts_keywords():
    def shouting_final_answer(answer):
        return str(answer).upper()

    ex = make_executor({"final_answer": shouting_final_answer})
    out = ex("final_answer(answer='done')")
    assert out == CodeOutput(output="DONE", logs="", is_final_answer=True)


def test_final_answer_inside_function_and_not_caught_by_except_exception():
    ex = make_executor({"final_answer": final_answer})
    code = textwrap.dedent(
        """
        def finish(v):
            try:
                final_answer(v)
            except Exception:
                print("swallowed")
            return "not reached"
        finish([1, 2])
        """
    )
    out = ex(code)
    assert out.is_final_answer and out.output == [1, 2]
    assert out.logs == ""


def test_final_answer_exception_class():
    assert issubclass(FinalAnswerException, BaseException)
    assert not issubclass(FinalAnswerException, Exception)
    assert FinalAnswerException(3).value == 3
    assert issubclass(InterpreterError, ValueError)
    assert issubclass(ExecutionTimeoutError, Exception)


# --- state entries after success and failure ----------------------------------------------


def test_state_entries_after_success():
    ex = make_executor()
    ex("total = 0\nfor i in range(10):\n    total += i\nprint(total)")
    assert str(ex.state["_print_outputs"]) == "45\n"
    count = ex.state["_operations_count"]
    assert isinstance(count, dict) and set(count) == {"counter"}
    assert isinstance(count["counter"], int) and count["counter"] > 0


def test_state_entries_after_failure_keep_prints():
    ex = make_executor()
    with pytest.raises(InterpreterError):
        ex("print('partial')\nx = 1\nraise ValueError('boom')")
    assert isinstance(ex.state["_print_outputs"], PrintContainer)
    assert str(ex.state["_print_outputs"]) == "partial\n"
    assert ex.state["_operations_count"]["counter"] > 0


def test_variables_kept_after_failing_step():
    ex = make_executor()
    ex("a = 1")
    with pytest.raises(InterpreterError):
        ex("b = 2\nc = undefined_name")
    assert ex.state["a"] == 1
    assert ex.state["b"] == 2
    assert "c" not in ex.state
    assert ex("a + b").output == 3


def test_code_cannot_forge_state_entries():
    ex = make_executor()
    ex("_print_outputs = 'forged'\n_operations_count = 0\nprint('real')")
    assert str(ex.state["_print_outputs"]) == "real\n"
    assert isinstance(ex.state["_operations_count"]["counter"], int)


# --- tools are protected, base names are not ----------------------------------------------


def test_tool_names_are_protected():
    def search(q):
        return q

    ex = make_executor({"search": search})
    with pytest.raises(InterpreterError) as info:
        ex("search = 3")
    assert "Cannot assign to name 'search': doing this would erase the existing tool!" in str(
        info.value
    )
    assert ex("search('q')").output == "q"


def test_additional_functions_are_protected():
    ex = LocalPythonExecutor([], additional_functions={"helper": lambda: 7})
    ex.send_tools({})
    with pytest.raises(InterpreterError, match="doing this would erase the existing tool"):
        ex("helper = None")
    assert ex("helper()").output == 7


def test_builtin_names_follow_cpython_and_can_be_shadowed():
    ex = make_executor()
    out = ex("sum = 5\nlist = [sum]\nlist")
    assert out.output == [5]


# --- error messages ---------------------------------------------------------------------------


def test_runtime_error_message():
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex("a = 1\nb = a / 0")
    assert str(info.value) == (
        "Code execution failed at line 'b = a / 0' due to: ZeroDivisionError: division by zero"
    )


def test_runtime_error_in_compound_statement_names_the_top_level_statement():
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex("for i in range(3):\n    d = {}\n    d['k']")
    assert str(info.value) == (
        "Code execution failed at line 'for i in range(3):\n    d = {}\n    d['k']' "
        "due to: KeyError: 'k'"
    )


def test_runtime_error_keeps_user_exception_as_cause():
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex("int('x')")
    assert isinstance(info.value.__cause__, ValueError)


@pytest.mark.parametrize(
    "code",
    [
        # an exception whose __str__ raises
        "class E(Exception):\n    def __str__(self):\n        raise ValueError('no')\nraise E()",
        # a KeyError whose key's repr raises
        "class K:\n    def __repr__(self):\n        raise ValueError('no')\n{}[K()]",
    ],
)
def test_runtime_error_whose_message_cannot_be_made_is_still_an_interpreter_error(code):
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex(code)
    assert str(info.value).endswith("<exception str() failed>"), str(info.value)
    assert ex("1 + 1").output == 2


def test_runtime_error_whose_key_repr_recurses_deeply():
    # found by the fuzzer: a KeyError whose key's repr recurses 5000 levels deep. Whether
    # CPython can make that message depends on the version (3.13 raised the C recursion limit
    # to 10000), so the expected wording is what the host itself makes of the same key.
    import itertools

    key = ()
    for _ in range(5000):
        key = itertools.repeat(key)
    try:
        expected = "KeyError: " + str(KeyError(key))
    except RecursionError:
        expected = "<exception str() failed>"
    del key
    ex = make_executor(imports=["itertools"])
    with pytest.raises(InterpreterError) as info:
        ex("import itertools\nc = ()\nfor i in range(5000):\n    c = itertools.repeat(c)\n{}[c]")
    assert str(info.value).endswith(expected), str(info.value)[-200:]
    assert ex("1 + 1").output == 2


def test_user_code_catches_python_exceptions():
    ex = make_executor()
    out = ex("d = {}\ntry:\n    d['x']\nexcept KeyError as e:\n    r = repr(e)\nr")
    assert out.output == "KeyError('x')"


@pytest.mark.parametrize(
    "code", ["x = (1,\n", "def f(:\n    pass", "x = 1\nx +", "if True:\nprint(1)"]
)
def test_parse_error_message(code):
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex(code)
    assert str(info.value) == parse_error_message(code)


def test_unauthorized_import_message():
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex("import os")
    assert str(info.value) == (
        "Code execution failed at line 'import os' due to: InterpreterError: "
        f"Import of os is not allowed. Authorized imports are: {str(ex.authorized_imports)}"
    )


def test_unauthorized_import_from_message():
    ex = make_executor()
    with pytest.raises(InterpreterError) as info:
        ex("from subprocess import run")
    assert str(info.value) == (
        "Code execution failed at line 'from subprocess import run' due to: InterpreterError: "
        f"Import from subprocess is not allowed. Authorized imports are: "
        f"{str(ex.authorized_imports)}"
    )


def test_additional_authorized_import_works():
    ex = make_executor(imports=["json"])
    assert ex("import json\njson.dumps([1])").output == "[1]"


def test_timeout_message(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 10**12)
    monkeypatch.setattr(executor_module, "MAX_WHILE_ITERATIONS", 10**12)
    ex = make_executor(timeout_seconds=1)
    with pytest.raises(ExecutionTimeoutError) as info:
        ex("n = 0\nwhile True:\n    n += 1")
    assert str(info.value) == "Code execution exceeded the maximum execution time of 1 seconds"
    assert ex.state["n"] > 0


# --- evaluate_python_code -----------------------------------------------------------------


def test_evaluate_python_code_mutates_callers_state():
    state = {"x": 2}
    result = evaluate_python_code("y = x * 21\nprint(y)\ny", state=state)
    assert result == (42, False)
    assert state["y"] == 42
    assert str(state["_print_outputs"]) == "42\n"
    assert state["_operations_count"]["counter"] > 0


def test_evaluate_python_code_static_and_custom_tools():
    static = {"tool": lambda: 1, **BASE_PYTHON_TOOLS}
    custom = {"helper": lambda: 2}
    state = {}
    assert evaluate_python_code("tool() + helper()", static, custom, state) == (3, False)
    with pytest.raises(InterpreterError, match="Cannot assign to name 'tool'"):
        evaluate_python_code("tool = 0", static, custom, state)
    # custom tools can be rebound
    assert evaluate_python_code("helper = 5\nhelper", static, custom, state) == (5, False)


def test_evaluate_python_code_final_answer():
    state = {}
    result = evaluate_python_code(
        "final_answer('x')", static_tools={"final_answer": final_answer}, state=state
    )
    assert result == ("x", True)


def test_evaluate_python_code_authorized_imports_and_truncation():
    state = {}
    with pytest.raises(InterpreterError, match="Import of json is not allowed"):
        evaluate_python_code("import json", state=state)
    assert evaluate_python_code("import json", state=state, authorized_imports=["json"]) == (
        None,
        False,
    )
    evaluate_python_code("print('a' * 100)", state=state, max_print_outputs_length=10)
    assert "truncated to stay below 10 characters" in str(state["_print_outputs"])


def test_evaluate_python_code_is_reentrant_and_thread_safe():
    def inner():
        return evaluate_python_code("print('in')\n5", state={})[0]

    state = {}
    result = evaluate_python_code(
        "print('out')\nr = inner()\nprint('after')\nr", {"inner": inner}, state=state
    )
    assert result == (5, False)
    assert str(state["_print_outputs"]) == "out\nafter\n"

    import threading

    errors = []

    def worker(n):
        try:
            for i in range(50):
                st = {}
                out = evaluate_python_code(f"print({n})\n{n} * {i}", state=st)
                assert out == (n * i, False) and str(st["_print_outputs"]) == f"{n}\n"
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_evaluate_python_code_keeps_no_reference_to_tools():
    import gc
    import weakref

    class Tool:
        def __call__(self):
            return 1

    tool = Tool()
    ref = weakref.ref(tool)
    assert evaluate_python_code("t()", {"t": tool}, state={}) == (1, False)
    del tool
    gc.collect()
    assert ref() is None


# --- PrintContainer -------------------------------------------------------------------------


def test_print_container_behaviour():
    pc = PrintContainer()
    assert pc.value == "" and len(pc) == 0
    assert pc.append("ab") is pc
    pc += 12
    assert str(pc) == "ab12" and len(pc) == 4
    assert repr(pc) == "PrintContainer(ab12)"


# --- compatibility with the real smolagents package ------------------------------------------


def test_classes_subclass_smolagents_when_installed():
    smol = pytest.importorskip("smolagents.local_python_executor")
    assert issubclass(InterpreterError, smol.InterpreterError)
    assert issubclass(FinalAnswerException, smol.FinalAnswerException)
    assert issubclass(ExecutionTimeoutError, smol.ExecutionTimeoutError)
    assert isinstance(LocalPythonExecutor([]), smol.PythonExecutor)
    assert isinstance(CodeOutput(1, "", False), smol.CodeOutput)
    assert isinstance(PrintContainer(), smol.PrintContainer)


def test_smolagents_final_answer_tool():
    default_tools = pytest.importorskip("smolagents.default_tools")
    ex = make_executor({"final_answer": default_tools.FinalAnswerTool()})
    out = ex("final_answer(41 + 1)")
    assert out.is_final_answer and out.output == 42


def test_smolagents_final_answer_exception_raised_by_a_tool_ends_the_step():
    smol = pytest.importorskip("smolagents.local_python_executor")

    def stop(v):
        raise smol.FinalAnswerException(v)

    ex = make_executor({"stop": stop})
    assert ex("stop('v')") == CodeOutput(output="v", logs="", is_final_answer=True)


@pytest.mark.parametrize(
    "code",
    [
        "x = 3\nprint(x * 2)\nx + 1",
        "import math\nr = [math.floor(v / 2) for v in range(5)]\nprint(r)\nr",
        "d = {'a': 1}\nd['b'] = 2\nsorted(d.items())",
        "s = 'abc'\nprint(s.upper(), len(s))",
    ],
)
def test_same_code_output_as_smolagents(code):
    smol = pytest.importorskip("smolagents.local_python_executor")
    theirs = smol.LocalPythonExecutor([])
    theirs.send_tools({})
    ours = make_executor()
    expected = theirs(code)
    got = ours(code)
    assert (got.output, got.logs, got.is_final_answer) == (
        expected.output,
        expected.logs,
        expected.is_final_answer,
    )
    assert str(ours.state["_print_outputs"]) == str(theirs.state["_print_outputs"])


def test_drop_in_for_smolagents_code_agent():
    """A smolagents CodeAgent runs its steps through our executor."""
    agents = pytest.importorskip("smolagents")
    models = pytest.importorskip("smolagents.models")

    replies = [
        "Thought: compute\n<code>\nx = sum([i * i for i in range(4)])\nprint('x is', x)\n</code>",
        "Thought: done\n<code>\nfinal_answer(x * 2)\n</code>",
    ]

    class ScriptedModel(models.Model):
        def __init__(self):
            super().__init__(model_id="scripted")

        def generate(self, messages, stop_sequences=None, response_format=None,
                     tools_to_call_from=None, **kwargs):
            return models.ChatMessage(role=models.MessageRole.ASSISTANT, content=replies.pop(0))

    ex = LocalPythonExecutor([])
    agent = agents.CodeAgent(tools=[], model=ScriptedModel(), executor=ex, verbosity_level=0)
    assert agent.run("compute") == 28
    observations = [getattr(step, "observations", None) for step in agent.memory.steps]
    assert "Execution logs:\nx is 14\n" in observations[1]
    assert ex.state["x"] == 14


def test_works_without_smolagents_installed():
    """With smolagents unimportable, the package falls back to its own base classes."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["smolagents"] = None  # make `import smolagents` fail
        from smolagents_native import (
            LocalPythonExecutor, InterpreterError, FinalAnswerException, ExecutionTimeoutError)
        # smolagents' bases (ValueError, BaseException, Exception), through a private
        # placeholder class that smolagents' own class would replace
        for cls, base in ((InterpreterError, ValueError), (FinalAnswerException, BaseException),
                          (ExecutionTimeoutError, Exception)):
            assert cls.__mro__[2] is base, cls.__mro__
            assert not any(c.__module__.startswith("smolagents.") for c in cls.__mro__)
        assert not issubclass(FinalAnswerException, Exception)
        ex = LocalPythonExecutor([])
        ex.send_tools({"final_answer": lambda a: a})
        out = ex("print('hi')\\nfinal_answer(5)")
        assert (out.output, out.logs, out.is_final_answer) == (5, "hi\\n", True), out
        try:
            ex("1/0")
        except InterpreterError as e:
            assert "ZeroDivisionError" in str(e)
        else:
            raise AssertionError("no error")
        print("ok")
        """
    )
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(smolagents_native.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_tools_changed_in_place_between_steps_are_seen_even_when_equal():
    """Before each step the executor compares its tools with the snapshot it gave the core by
    identity (`_core.same_entries`), so a tool replaced in place is used at the next step,
    even by an object that compares equal to the one it replaces."""
    from smolagents_native import _core

    class Tool:
        def __init__(self, n):
            self.n = n

        def __call__(self):
            return self.n

        def __eq__(self, other):
            return isinstance(other, Tool)

        __hash__ = object.__hash__

    ex = LocalPythonExecutor(additional_authorized_imports=[])
    ex.send_tools({"t": Tool(1)})
    assert ex("t()").output == 1
    ex.static_tools["t"] = Tool(2)
    assert ex("t()").output == 2
    ex.custom_tools["c"] = Tool(3)
    assert ex("c()").output == 3
    ex.custom_tools["c"] = Tool(4)
    assert ex("c()").output == 4
    d = {"a": 1, "b": []}
    assert _core.same_entries(d, dict(d))
    assert not _core.same_entries(d, {"b": d["b"], "a": 1})  # another order
    assert not _core.same_entries(d, {"a": 1, "b": []})  # an equal, distinct value
    assert not _core.same_entries(d, {"a": 1})
    with pytest.raises(TypeError):
        _core.same_entries(d, [])


def _tool_mutations():
    a, b = (lambda: 1), (lambda: 2)
    return [
        ("replace", lambda d: d.__setitem__("a", b)),
        ("insert", lambda d: d.__setitem__("z", a)),
        ("delete", lambda d: d.__delitem__("a")),
        ("pop", lambda d: d.pop("b")),
        ("clear", lambda d: d.clear()),
        ("update", lambda d: d.update(a=b)),
        ("setdefault", lambda d: d.setdefault("new", a)),
        ("popitem", lambda d: d.popitem()),
    ], a, b


@pytest.mark.parametrize("kind", [m[0] for m in _tool_mutations()[0]])
def test_tools_snapshot_misses_no_change_in_place(kind):
    """The executor's test before every step (`_core.same_tools`) first compares the
    dict's `entries_token` with the one it took: equal tokens on the same dict promise that
    nothing changed. Any change in place must therefore fail the test, however it is made;
    a fresh dict with the same entries passes (and becomes the snapshot's object)."""
    from smolagents_native import _core
    from smolagents_native.executor import _tools_snapshot

    mutations, a, b = _tool_mutations()
    mutate = dict(mutations)[kind]
    d = {"a": a, "b": b}
    snap = _tools_snapshot(d)
    assert _core.same_tools(d, snap) and _core.same_tools(d, snap)  # twice: token path
    mutate(d)
    assert not _core.same_tools(d, snap)
    assert not _core.same_tools(d, snap)  # still different at the next step
    fresh = {"a": a, "b": b}
    snap = _tools_snapshot(d)
    assert not _core.same_tools(fresh, snap) or fresh == d
    snap = _tools_snapshot({"a": a, "b": b})
    assert _core.same_tools(fresh, snap) and snap[0] is fresh
    # a token says nothing about another dict, and nothing for non-dicts
    assert _core.entries_token([]) is None


def test_tools_changed_through_every_path_are_used_at_the_next_step():
    """End to end: each in-place change of `static_tools` / `custom_tools` between steps
    reaches the core, also after many unchanged steps (where the token path is taken)."""
    ex = LocalPythonExecutor(additional_authorized_imports=[])
    ex.send_tools({"t": lambda: 1})
    for _ in range(3):
        assert ex("t()").output == 1
    ex.static_tools["t"] = lambda: 2
    assert ex("t()").output == 2
    del ex.static_tools["t"]
    with pytest.raises(InterpreterError):
        ex("t()")
    ex.static_tools.update(t=lambda: 3)
    assert ex("t()").output == 3
    ex.custom_tools = None
    assert ex("t()").output == 3
    ex.custom_tools = {"c": lambda: 4}
    assert ex("c()").output == 4
    ex.custom_tools.clear()
    with pytest.raises(InterpreterError):
        ex("c()")


@pytest.mark.parametrize("code", [b"1 + 1", 42, None])
def test_code_that_is_not_a_str_is_a_type_error(code):
    """In process as in process mode (tests/isolation/test_lifecycle.py)."""
    ex = LocalPythonExecutor([])
    with pytest.raises(TypeError, match="str"):
        ex(code)
    assert ex("1 + 1").output == 2
