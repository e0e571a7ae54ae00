"""`import smolagents_native` stays light: smolagents and other heavy packages load only when
the host uses them, and our classes still become smolagents' subclasses when it does
(smolagents_native/_smolbridge.py). Times are never asserted; the modules loaded are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import smolagents_native

ROOT = Path(smolagents_native.__file__).resolve().parent.parent
HEAVY = ("smolagents", "opentelemetry", "IPython", "rich", "huggingface_hub", "jinja2",
         "numpy", "pandas", "requests", "httpx")


def run(script: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_module():
    out = run(
        f"""
        import json, sys
        import smolagents_native
        heavy = {HEAVY!r}
        print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules
                                  if m.split('.')[0] in heavy}})))
        """
    )
    assert out == []


def test_a_step_loads_no_heavy_module_either():
    out = run(
        f"""
        import json, sys
        from smolagents_native import LocalPythonExecutor, evaluate_python_code
        ex = LocalPythonExecutor([])
        ex.send_tools({{"final_answer": lambda x: x}})
        ex("print(1)\\nfinal_answer(2)")
        evaluate_python_code("1 + 1")
        heavy = {HEAVY!r}
        print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules
                                  if m.split('.')[0] in heavy}})))
        """
    )
    assert out == []


def check_relationships_script(import_smolagents_first: bool) -> str:
    first = "import smolagents" if import_smolagents_first else "pass"
    return f"""
        import json
        {first}
        import smolagents_native as sn
        ex = sn.LocalPythonExecutor([])  # made before smolagents may be loaded
        ex.send_tools({{"final_answer": lambda x: x}})
        out_before = ex("final_answer(1)")
        import smolagents
        from smolagents import local_python_executor as smol
        from smolagents_native import executor as ours
        out_after = ex("final_answer(2)")
        try:
            ex("1 / 0")
        except smol.InterpreterError as e:
            caught = isinstance(e, sn.InterpreterError)
        print(json.dumps([
            isinstance(ex, smol.PythonExecutor),
            issubclass(sn.LocalPythonExecutor, smol.PythonExecutor),
            ours.PythonExecutor is smol.PythonExecutor,
            sn.PythonExecutor is smol.PythonExecutor,
            isinstance(out_before, smol.CodeOutput),
            isinstance(out_after, smol.CodeOutput),
            issubclass(sn.PrintContainer, smol.PrintContainer),
            issubclass(sn.InterpreterError, smol.InterpreterError),
            issubclass(sn.FinalAnswerException, smol.FinalAnswerException),
            issubclass(sn.ExecutionTimeoutError, smol.ExecutionTimeoutError),
            not issubclass(sn.FinalAnswerException, Exception),
            caught,
            out_after.output == 2,
        ]))
        """


@pytest.mark.parametrize("first", [False, True], ids=["smolagents-later", "smolagents-first"])
def test_classes_are_smolagents_subclasses_once_it_loads(first):
    pytest.importorskip("smolagents")
    out = run(check_relationships_script(first))
    assert out == [True] * len(out), out


def test_smolagents_executor_check_accepts_ours_when_loaded_later():
    # smolagents' CodeAgent checks its executor; built before smolagents was imported.
    pytest.importorskip("smolagents")
    out = run(
        """
        import json
        import smolagents_native as sn
        ex = sn.LocalPythonExecutor([])
        from smolagents import agents, models
        class Model(models.Model):
            def __init__(self):
                super().__init__(model_id="scripted")
            def generate(self, messages, **kw):
                return models.ChatMessage(
                    role=models.MessageRole.ASSISTANT,
                    content="Thought: go\\n<code>\\nfinal_answer(6 * 7)\\n</code>")
        agent = agents.CodeAgent(tools=[], model=Model(), executor=ex, verbosity_level=0)
        print(json.dumps([agent.run("answer") == 42]))
        """
    )
    assert out == [True]


def test_an_in_process_executor_loads_none_of_the_process_machinery():
    """Creating an executor (and running a step) in process mode "none" imports neither
    smolagents_native.isolation nor what it needs (subprocess, socket, pickle, tempfile...):
    about 2 MiB of resident memory for a mode the host did not ask for."""
    machinery = ("smolagents_native.isolation", "subprocess", "socket", "pickle", "tempfile",
                 "bz2", "lzma", "selectors")
    out = run(
        f"""
        import json, sys
        machinery = {machinery!r}
        before = {{m for m in machinery if m in sys.modules}}
        from smolagents_native import LocalPythonExecutor
        ex = LocalPythonExecutor(["math", "json"])
        ex.send_tools({{}})
        ex("import math\\nprint(math.sqrt(4))")
        print(json.dumps(sorted(m for m in machinery if m in sys.modules and m not in before)))
        """
    )
    assert out == []
