"""The %%sandbox magic through IPython's API, and the HTML/Markdown displays."""

from __future__ import annotations

import pytest

from smolagents_native import CodeOutput, InterpreterError
from smolagents_native.agent import CodeAgent
from smolagents_native.models import ScriptedModel
from smolagents_native.notebook import (
    code_output_html,
    code_output_markdown,
    run_result_html,
    run_result_markdown,
)

# Slow per operation, so the deadline (not the 10-million operation budget, which a fast
# machine reaches in well under a second on a bare loop) ends it.
SLOW_LOOP = "for i in range(10**6):\n    y = sorted(range(20000), reverse=True)\n"


@pytest.fixture(scope="module")
def ip():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    shell.run_line_magic("load_ext", "smolagents_native.notebook")
    return shell


@pytest.fixture
def shell(ip):
    ip.run_line_magic("sandbox", "--reset")
    return ip


def sandbox(shell, code, line=""):
    return shell.run_cell_magic("sandbox", line, code)


def test_cell_output_prints_and_persistence(shell, capsys):
    assert sandbox(shell, "x = 21\nprint('hello from the sandbox')\nx * 2") == 42
    assert capsys.readouterr().out == "hello from the sandbox\n"
    # Variables persist from cell to cell, apart from the notebook's own namespace.
    assert sandbox(shell, "def twice(v):\n    return v * 2\ntwice(x)") == 42
    assert sandbox(shell, "twice('ab')") == "abab"
    assert "x" not in shell.user_ns and "twice" not in shell.user_ns


def test_errors_are_shown_not_raised(shell, capsys):
    assert sandbox(shell, "print('partial')\nimport os") is None
    captured = capsys.readouterr()
    assert captured.out == "partial\n"
    assert captured.err.startswith("InterpreterError: Code execution failed at line 'import os'")
    assert "Import of os is not allowed" in captured.err
    # A syntax error, too.
    assert sandbox(shell, "def broken(:\n    pass") is None
    assert "Code parsing failed" in capsys.readouterr().err


def test_raise_option(shell):
    with pytest.raises(InterpreterError, match="NameError"):
        sandbox(shell, "undefined_name", "--raise")


def test_authorized_imports_keep_state(shell, capsys):
    sandbox(shell, "data = {'b': 2, 'a': 1}")
    assert (
        sandbox(shell, "import json\njson.dumps(data, sort_keys=True)", "--authorized-imports json")
        == '{"a": 1, "b": 2}'
    )
    # Later cells keep the authorization.
    assert sandbox(shell, "import json\njson.loads('[1]')") == [1]
    # A module that is not installed is reported, and nothing changes.
    assert sandbox(shell, "1", "--authorized-imports no_such_module_xyz") is None
    assert "no_such_module_xyz" in capsys.readouterr().err
    assert sandbox(shell, "data['a']") == 1


def test_reset(shell, capsys):
    sandbox(shell, "kept = 1", "--authorized-imports json")
    assert sandbox(shell, "kept") == 1
    assert sandbox(shell, "kept", "--reset") is None
    assert "NameError" in capsys.readouterr().err
    assert sandbox(shell, "import json") is None  # imports back to the defaults
    assert "Import of json is not allowed" in capsys.readouterr().err


def test_timeout_applies_to_one_cell(shell, capsys):
    assert sandbox(shell, SLOW_LOOP, "--timeout 0.3") is None
    assert "maximum execution time of 0.3 seconds" in capsys.readouterr().err
    magics = shell.magics_manager.registry["SandboxMagics"]
    assert magics.session.executor.timeout_seconds == 30


def test_final_answer(shell, capsys):
    assert sandbox(shell, "final_answer('done')") is None
    assert "Final answer: done" in capsys.readouterr().out


def test_run_cell_shows_result(shell, capsys):
    result = shell.run_cell("%%sandbox\nprint('p')\n6 * 7")
    assert result.success and result.result == 42
    out = capsys.readouterr().out
    assert "p\n" in out and "42" in out


def test_line_magic_usage(shell, capsys):
    assert shell.run_line_magic("sandbox", "") is None
    assert "Usage" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Displays


def test_code_output_displays_escape():
    out = CodeOutput(output="<script>alert(1)</script>", logs="a < b\n```\n", is_final_answer=True)
    page = code_output_html(out)
    assert "<script>" not in page and "&lt;script&gt;" in page and "a &lt; b" in page
    assert "Final answer" in page
    text = code_output_markdown(out)
    assert "````text\na < b\n```\n````" in text  # the fence outgrows the backticks inside


def test_run_result_displays():
    model = ScriptedModel(
        ["```python\nprint('<b>')\nvalue = 1 / 0\n```", "```python\nfinal_answer('<i>ok</i>')\n```"]
    )
    result = CodeAgent([], model).run("a <task>")
    page = run_result_html(result)
    assert result._repr_html_() == page
    assert "<b>" not in page.replace("<b>Task</b>", "").replace("<b>Step", "").replace(
        "<b>Final answer</b>", ""
    ).replace("<b>Finished", "")
    assert "a &lt;task&gt;" in page and "&lt;i&gt;ok&lt;/i&gt;" in page
    assert "ZeroDivisionError" in page and page.count("<details") == 2
    md = run_result_markdown(result)
    assert result._repr_markdown_() == md
    assert "Finished in 2 steps" in md and "#### Step 1: error" in md
    assert "```python\nprint('<b>')\nvalue = 1 / 0\n```" in md
    assert result.steps[0]._repr_html_().startswith("<details")
    assert result.steps[1]._repr_markdown_().startswith("#### Step 2: final answer")

    unfinished = CodeAgent([], ScriptedModel(["```python\nx = 1\n```"]), max_steps=1).run("t")
    assert "without a final answer" in run_result_markdown(unfinished)
    assert "max_steps=1" in run_result_html(unfinished)
