"""In process, what the whole process shares stays the host's (issue 37, points 2 and 3).

Point 2: `random`'s module functions are a generator of the executor's own; `decimal`'s current
context is the executor's own while its code runs (the host's around tool calls and after the
step, whatever ended it); settings the host shares are refused with a message naming the scoped
form or process mode.

Point 3: a tool is host code: a subinterpreter, threads, `os.fork` and `gc.collect()` inside a
tool called from a step work as they do outside one (each in a subprocess, so that a fatal
error is a failed test, not a dead test run).
"""

from __future__ import annotations

import decimal
import os
import random
import subprocess
import sys
import textwrap
import warnings

import pytest

from smolagents_native import LocalPythonExecutor
from smolagents_native.errors import ExecutionTimeoutError, InterpreterError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def new(imports, **kw):
    return LocalPythonExecutor(list(imports), isolation="none", **kw)


# ------------------------------------------------------------------ random


def test_random_functions_are_the_executors_generator():
    random.seed(42)
    host = [random.random() for _ in range(3)]
    random.seed(42)
    ex = new(["random"])
    out = ex("import random\nrandom.seed(1)\n"
             "a = [random.random(), random.randint(0, 10 ** 9), random.choice('abcdefgh')]\n"
             "a").output
    ref = random.Random(1)
    assert out == [ref.random(), ref.randint(0, 10 ** 9), ref.choice("abcdefgh")]
    # the host's sequence went on as if no step had run
    assert [random.random() for _ in range(3)] == host


def test_a_loop_reading_random_functions_stays_on_the_executors_generator():
    """The methods given are remembered (per executor, by function) and a site may keep the
    one it read while random's dict is unchanged: a loop still draws from the executor's
    generator, two executors from their own, and a host that replaces random's hidden
    generator is not reached either."""
    random.seed(11)
    host = [random.random() for _ in range(3)]
    random.seed(11)
    a, b = new(["random"]), new(["random"])
    code = "import random\nrandom.seed(5)\n[random.randint(0, 99) for _ in range(200)]"
    ref = random.Random(5)
    expected = [ref.randint(0, 99) for _ in range(200)]
    assert a(code).output == expected
    assert b(code).output == expected
    assert a("[random.randint(0, 99) for _ in range(3)]").output == [
        ref.randint(0, 99) for _ in range(3)]
    assert [random.random() for _ in range(3)] == host
    saved = random._inst
    try:
        random._inst = random.Random(99)
        for name in ("random", "seed", "randint"):
            setattr(random, name, getattr(random._inst, name))
        state = random.getstate()
        out = a("random.seed(5)\n[random.randint(0, 99) for _ in range(5)]").output
        assert out == expected[:5]
        assert random.getstate() == state
    finally:
        random._inst = saved
        for name in ("random", "seed", "randint"):
            setattr(random, name, getattr(saved, name))


def test_an_executor_that_never_imports_decimal_switches_no_context():
    host = decimal.getcontext()
    ex = new(["math"])
    seen = []
    ex.send_tools({"probe": lambda: seen.append(decimal.getcontext()) or 1})
    assert ex("probe() + 1").output == 2
    assert seen == [host] and decimal.getcontext() is host


def test_every_way_to_name_a_random_function_gives_the_executors():
    random.seed(7)
    state = random.getstate()
    ex = new(["random"])
    out = ex("import random\nfrom random import seed, random as r, shuffle\n"
             "seed(3)\nx = [r(), getattr(random, 'random')()]\n"
             "random.seed(3)\nl = list(range(10))\nshuffle(l)\n"
             "(x, random.random(), l, random.getstate()[1][:3])").output
    ref = random.Random(3)
    assert out[0] == [ref.random(), ref.random()]
    ref.seed(3)
    l = list(range(10))
    ref.shuffle(l)
    assert out[2] == l
    assert out[1] == ref.random()
    assert out[3] == ref.getstate()[1][:3]
    assert random.getstate() == state


def test_the_generator_persists_across_steps_and_is_per_executor():
    ex = new(["random"])
    ex("import random\nrandom.seed(11)")
    second = ex("random.random()").output
    assert second == random.Random(11).random()
    # unseeded, two executors draw from generators seeded from the system
    a = new(["random"])("import random\n[random.getrandbits(64) for _ in range(4)]").output
    b = new(["random"])("import random\n[random.getrandbits(64) for _ in range(4)]").output
    assert a != b
    # the executor's generator is never the host's object
    with pytest.raises(InterpreterError, match="__self__"):
        ex("random.random.__self__")


def test_a_host_function_drawing_from_the_hosts_generator_is_withheld():
    ex = new(["statistics", "random"])
    state = random.getstate()
    with pytest.raises(InterpreterError, match=r"NormalDist\.samples.*random\.gauss"):
        ex("import statistics\nstatistics.NormalDist(0, 1).samples(3)")
    assert random.getstate() == state
    # the remedy works
    assert len(ex("import random\n[random.gauss(0, 1) for _ in range(3)]").output) == 3


# ------------------------------------------------------------------ decimal


def test_decimal_context_is_the_executors_and_persists():
    host = decimal.getcontext()
    host_repr = repr(host)
    ex = new(["decimal"])
    assert ex("import decimal\ndecimal.getcontext().prec = 5\n"
              "str(decimal.Decimal(1) / 7)").output == "0.14286"
    assert decimal.getcontext() is host and repr(host) == host_repr
    assert str(decimal.Decimal(1) / 7) == "0.1428571428571428571428571429"
    # the next step: the code's setting is still there
    assert ex("str(decimal.Decimal(2) / 3)").output == "0.66667"
    # setcontext is the code's too
    ex("decimal.setcontext(decimal.Context(prec=3, traps=[decimal.Inexact]))")
    assert decimal.getcontext() is host and not host.traps[decimal.Inexact]
    with pytest.raises(InterpreterError, match="Inexact"):
        ex("decimal.Decimal(1) / 3")
    # a new executor starts from a default context, not from another executor's
    assert new(["decimal"])("import decimal\ndecimal.getcontext().prec").output == 28


def test_localcontext_works_and_an_abort_inside_it_leaves_the_host_context():
    host = decimal.getcontext()
    host_repr = repr(host)
    ex = new(["decimal"], timeout_seconds=0.5)
    out = ex("import decimal\nwith decimal.localcontext() as c:\n    c.prec = 4\n"
             "    a = str(decimal.Decimal(1) / 3)\n"
             "(a, decimal.getcontext().prec)").output
    assert out == ("0.3333", 28)
    # the step's budgets end it (the deadline, or the loop's iteration bound first)
    with pytest.raises((ExecutionTimeoutError, InterpreterError)):
        ex("with decimal.localcontext() as c:\n    c.prec = 2\n    while True:\n        pass")
    assert decimal.getcontext() is host and repr(host) == host_repr
    with pytest.raises(InterpreterError):
        ex("with decimal.localcontext() as c:\n    c.prec = 2\n    1 / 0")
    assert decimal.getcontext() is host and repr(host) == host_repr


def test_a_tool_computes_with_the_hosts_context_and_callbacks_with_the_codes():
    seen = []

    def tool(callback=None):
        seen.append(decimal.getcontext().prec)
        if callback is not None:
            seen.append(callback())
            seen.append(decimal.getcontext().prec)
        return str(decimal.Decimal(1) / 3)

    ex = new(["decimal"])
    ex.send_tools({"tool": tool})
    out = ex("import decimal\ndecimal.getcontext().prec = 6\n"
             "r = tool(lambda: decimal.getcontext().prec)\n"
             "(r, decimal.getcontext().prec)").output
    assert out == ("0.3333333333333333333333333333", 6)
    assert seen == [28, 6, 28]


def test_a_hook_after_the_step_runs_with_the_executors_context():
    host = decimal.getcontext()
    ex = new(["decimal"])
    ex("import decimal\ndecimal.getcontext().prec = 9\n"
       "def f():\n    decimal.getcontext().prec = 12\n    return str(decimal.Decimal(1) / 3)")
    f = ex.state["f"]
    assert f() == "0.333333333333"
    assert decimal.getcontext() is host and host.prec == 28
    assert ex("decimal.getcontext().prec").output == 12


def test_decimal_loaded_during_the_step_is_switched_from_then_on():
    # fractions imports decimal; a step that imports decimal first finds it loaded by then
    code = textwrap.dedent("""
        import sys, decimal
        assert 'decimal' in sys.modules
        del sys.modules['decimal']
        del sys.modules['_decimal']
        sys.modules.pop('_pydecimal', None)
        sys.modules.pop('fractions', None)
        from smolagents_native import LocalPythonExecutor
        ex = LocalPythonExecutor(['decimal'], isolation='none')
        print(ex('import decimal\\ndecimal.getcontext().prec = 4\\n1').output)
        import decimal as d2
        print(d2.getcontext().prec)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "28"]


@pytest.mark.parametrize("code, remedy", [
    ("decimal.DefaultContext.prec = 3", r"decimal\.localcontext"),
    ("decimal.BasicContext", r"decimal\.localcontext"),
    ("from decimal import ExtendedContext", r"decimal\.localcontext"),
])
def test_decimal_templates_are_refused_naming_the_scoped_form(code, remedy):
    ex = new(["decimal"])
    with pytest.raises(InterpreterError, match=remedy):
        ex("import decimal\n" + code)
    assert decimal.DefaultContext.prec == 28


@pytest.mark.parametrize("imports, code, remedy", [
    (["time"], "import time\ntime.tzset()", r"datetime\.timezone.*isolation='process'"),
    (["contextlib"], "import contextlib\nwith contextlib.redirect_stdout(None):\n    pass",
     r"isolation='process'"),
    (["copy"], "import copy\ncopy.dispatch_table", r"__deepcopy__.*isolation='process'"),
    (["abc", "collections"], "import abc, collections\ncollections.UserDict.register(dict)",
     r"subclass the ABC"),
])
def test_process_wide_settings_are_refused_naming_the_alternative(imports, code, remedy):
    ex = new(imports)
    with pytest.raises(InterpreterError, match="in process"):
        ex(code)
    with pytest.raises(InterpreterError, match=remedy):
        ex(code)


def test_modules_without_a_scoped_form_in_process_select_process_mode():
    # logging.disable, warnings.simplefilter, locale.setlocale, faulthandler...: no module of
    # the table; authorizing one selects process mode, where its settings are the worker's.
    from smolagents_native._mode import resolve_isolation

    for m in ("logging", "warnings", "locale", "faulthandler", "atexit", "gc", "posixpath",
              "ntpath", "zipfile", "tarfile", "fileinput"):
        assert resolve_isolation(None, [m]) == "process", m
    with pytest.warns(RuntimeWarning, match="in-process table"):
        new(["warnings"])


def test_the_scoped_forms_work_in_process():
    ex = new(["decimal", "contextlib", "random"])
    out = ex("import decimal, contextlib, random\n"
             "with decimal.localcontext(decimal.Context(prec=3)):\n"
             "    a = str(decimal.Decimal(2) / 3)\n"
             "with contextlib.suppress(ZeroDivisionError):\n    1 / 0\n"
             "g = random.Random(5)\n"
             "(a, g.random() == random.Random(5).random())").output
    assert out == ("0.667", True)


# ------------------------------------------------------- tools are the host's code

TOOL_SCRIPT = """
import gc, os, sys, threading, warnings
sys.path.insert(0, {root!r})
from smolagents_native import LocalPythonExecutor

def subinterpreter():
    try:
        import _testcapi
        return _testcapi.run_in_subinterp("import json, decimal\\nx = json.dumps([1])\\n")
    except ImportError:
        pass
    try:
        import _interpreters as xi
    except ImportError:
        import _xxsubinterpreters as xi
    i = xi.create()
    try:
        r = xi.run_string(i, "import json\\nx = json.dumps([1])\\n")
        return 0 if r is None else r
    finally:
        xi.destroy(i)

def threads():
    out = []
    def work(n):
        import json
        out.append(sum(json.loads(json.dumps(list(range(n))))))
        gc.collect()
    ts = [threading.Thread(target=work, args=(1000,)) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sorted(out)

def fork():
    pid = os.fork()
    if pid == 0:
        import json, decimal
        gc.collect()
        os._exit(7 if json.loads("[7]")[0] == 7 else 1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

def collect():
    return gc.collect() >= 0

TOOLS = {{"subinterpreter": subinterpreter, "threads": threads, "fork": fork,
          "collect": collect}}
which = {which!r}
ex = LocalPythonExecutor(["decimal"], isolation="none")
ex.send_tools({{which: TOOLS[which]}})
program = (
    "import decimal\\n"
    "class Node:\\n"
    "    def __del__(self):\\n"
    "        pass\\n"
    "a = Node(); b = Node(); a.other = b; b.other = a\\n"
    "del a, b\\n"
    "def gen():\\n"
    "    yield {which}()\\n"
    "    yield {which}()\\n"
    "decimal.getcontext().prec = 5\\n"
    "[{which}(), list(gen()), sorted([2, 1], key=lambda v: v + len(str({which}())))]\\n"
)
print("RESULT", repr(ex(program).output))
print("AGAIN", repr(ex("{which}()").output))
gc.collect()
"""


@pytest.mark.parametrize("which, expect", [
    ("subinterpreter", 0),
    ("threads", [499500] * 4),
    ("fork", 7),
    ("collect", True),
])
def test_a_tool_may_do_what_host_code_does(which, expect):
    script = TOOL_SCRIPT.format(root=ROOT, which=which)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Fatal Python error" not in proc.stderr
    lines = dict(ln.split(" ", 1) for ln in proc.stdout.splitlines()
                 if ln.startswith(("RESULT", "AGAIN")))
    assert lines["RESULT"] == repr([expect, [expect, expect], [1, 2]])
    assert lines["AGAIN"] == repr(expect)


SUBINTERP_SCRIPT = """
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {root!r})
from smolagents_native import LocalPythonExecutor
ex = LocalPythonExecutor(["*"], isolation="none")
ex.state = state = {{}}
def step(src):
    try:
        ex(src)
        return "ok"
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
print("STEP", step({src!r}))
print("HOOK", step("def f():\\n    " + {src!r}.replace("\\n", "\\n    ")))
try:
    state["f"]()
    print("CALL ok")
except Exception as e:
    print("CALL", type(e).__name__ + ": " + str(e))
print("AGAIN", ex("1 + 1").output)
"""


@pytest.mark.parametrize("how", ["testcapi", "interpreters"])
def test_a_subinterpreter_started_on_the_steps_thread_ends_the_step(how, tmp_path):
    """The thread's arming is per OS thread: the process-wide hooks see a new interpreter
    on the step's thread. They leave it alone (none of the executor's objects may enter it:
    a refusal there was a fatal error of the whole process, and refusing the creation's
    audit event crashes 3.12's _xxsubinterpreters.create) and the step ends with an error,
    in a step and in a hook the host calls; `run_string` on the new one is never reached."""
    mark = tmp_path / "escaped"
    payload = f"open({str(mark)!r}, 'w').write('x')"
    if how == "testcapi":
        pytest.importorskip("_testcapi")
        src = f"import _testcapi\n_testcapi.run_in_subinterp({payload!r})"
    else:
        mod = next((m for m in ("_interpreters", "_xxsubinterpreters")
                    if __import__("importlib").util.find_spec(m)), None)
        if mod is None:
            pytest.skip("no low-level subinterpreter module")
        src = f"import {mod} as xi\nxi.run_string(xi.create(), {payload!r})"
    script = SUBINTERP_SCRIPT.format(root=ROOT, src=src)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Fatal Python error" not in proc.stderr
    lines = dict(ln.split(" ", 1) for ln in proc.stdout.splitlines()
                 if ln.startswith(("STEP", "HOOK", "CALL", "AGAIN")))
    why = "a subinterpreter ran on the step's thread"
    assert why in lines["STEP"] and lines["STEP"].startswith("InterpreterError")
    assert lines["HOOK"] == "ok"
    assert why in lines["CALL"] and lines["CALL"].startswith("InterpreterError")
    assert lines["AGAIN"] == "2"
    if how == "interpreters":
        assert not mark.exists()  # the subinterpreter was made, never given the source


def test_a_generator_resumed_by_the_host_with_an_exception_keeps_it():
    # the window the host's resumption opens installs the executor's decimal context with an
    # exception pending (the one thrown in, GeneratorExit at close or collection): it must be
    # the one raised in the generator (a lost one crashed the evaluator); in a subprocess
    code = textwrap.dedent("""
        import decimal, gc
        from smolagents_native import LocalPythonExecutor
        ex = LocalPythonExecutor(['decimal'], isolation='none')
        ex('import decimal\\n'
           'def gen():\\n'
           '    while True:\\n'
           '        try:\\n'
           '            yield decimal.getcontext().prec\\n'
           '        except ValueError as e:\\n'
           '            yield "caught " + str(e)\\n'
           'decimal.getcontext().prec = 7\\n'
           'g = gen()\\nh = gen()\\nnext(h)\\n1')
        g = ex.state['g']
        print(next(g), decimal.getcontext().prec)
        print(g.throw(ValueError('boom')))
        g.close()
        del ex.state['h']
        gc.collect()
        print('done', decimal.getcontext().prec)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split("\n")[:3] == ["7 28", "caught boom", "done 28"]
