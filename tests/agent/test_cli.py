"""The command line, `python -m smolagents_native`, run as a subprocess on the in-place build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import smolagents_native
from test_models import StubServer, completion

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, stdin=None, env_extra=None, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SMOLAGENTS_NATIVE_MODEL"):
        env.pop(name, None)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "smolagents_native", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


# Slow per operation, so the deadline (not the 10-million operation budget, which a fast
# machine reaches in well under a second on a bare loop) ends it.
SLOW_LOOP = "for i in range(10**6):\n    y = sorted(range(20000), reverse=True)\n"


@pytest.fixture
def script(tmp_path):
    def write(code, name="script.py"):
        path = tmp_path / name
        path.write_text(code, encoding="utf-8")
        return path

    return write


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["agent", "--help"]])
def test_help(args):
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: python -m smolagents_native")
    if args == ["--help"]:
        for command in ("run", "bench", "agent"):
            assert command in proc.stdout
    if args[0] == "run":
        assert "--authorized-imports" in proc.stdout and "--max-operations" in proc.stdout


def test_no_command_is_a_usage_error():
    proc = cli()
    assert proc.returncode == 2 and "usage:" in proc.stderr


def test_run_prints_logs_and_output(script):
    proc = cli("run", script("print('hello')\nvalues = [3, 1, 2]\nsorted(values)\n"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello\n[1, 2, 3]\n"
    assert proc.stderr == ""


def test_run_final_answer(script):
    proc = cli("run", script("final_answer(6 * 7)"))
    assert proc.returncode == 0 and proc.stdout == "Final answer: 42\n"


def test_run_error_exit_status_and_stderr(script):
    path = script("print('before')\n{}['missing']\nprint('after')\n")
    proc = cli("run", path)
    assert proc.returncode == 1
    assert proc.stdout == "before\n"  # prints made before the failure are kept
    assert proc.stderr == (
        f'  File "{path}", line 2\n'
        "    {}['missing']\n"
        "InterpreterError: Code execution failed at line "
        "'{}['missing']' due to: KeyError: 'missing'\n"
    )


def test_run_error_names_the_innermost_line(script):
    # The line the error arose on (inside the function), not the top-level call's.
    code = "def f(x):\n    y = x + 1\n    return y / 0\n\nfor i in range(3):\n    f(i)\n"
    path = script(code)
    proc = cli("run", path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f'  File "{path}", line 3\n    return y / 0\n')
    assert "ZeroDivisionError" in proc.stderr
    # An error caught and another raised later: the later one's line.
    code = "try:\n    1 / 0\nexcept ZeroDivisionError:\n    pass\n[][1]\n"
    proc = cli("run", script(code, "second.py"), "--json")
    assert json.loads(proc.stdout)["error_line"] == 5
    # From stdin
    proc = cli("run", "-", stdin="x = 1\nundefined_name\n")
    assert proc.stderr.startswith('  File "<stdin>", line 2\n    undefined_name\n')


def test_run_syntax_error_names_the_file(script):
    path = script("x = 1\ny = x +\n")
    proc = cli("run", path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f'  File "{path}", line 2\n')
    assert f"SyntaxError: invalid syntax ({path}, line 2)" in proc.stderr
    assert "<unknown>" not in proc.stderr


def test_bad_option_shows_its_commands_usage(script):
    proc = cli("run", "--bogus", script("1"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: python -m smolagents_native run ")
    assert "run: error: unrecognized arguments: --bogus" in proc.stderr
    proc = cli("agent", "--demo", "--no-such-flag")
    assert proc.returncode == 2
    assert "usage: python -m smolagents_native agent " in proc.stderr


def test_the_console_script_calls_itself_by_its_name(script):
    # Installed as `smolagents-native`, the messages say so (not `python -m ...`).
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.argv[0] = '/usr/local/bin/smolagents-native'\n"
         "from smolagents_native.__main__ import main; sys.exit(main())",
         "run", "--bogus", str(script("1"))],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: smolagents-native run ")


def test_run_authorized_imports(script):
    code = script("import json\nprint(json.dumps([1]))")
    refused = cli("run", code)
    assert refused.returncode == 1 and "Import of json is not allowed" in refused.stderr
    allowed = cli("run", code, "--authorized-imports", "json", "csv")
    assert allowed.returncode == 0 and allowed.stdout == "[1]\n"


def test_run_max_operations(script):
    proc = cli(
        "run",
        script("total = 0\nfor i in range(10**9):\n    total += i\n"),
        "--max-operations",
        "1000",
    )
    assert proc.returncode == 1
    assert "max number of operations of 1000" in proc.stderr


def test_run_timeout(script):
    proc = cli("run", script(SLOW_LOOP), "--timeout", "0.3")
    assert proc.returncode == 1
    assert "maximum execution time of 0.3 seconds" in proc.stderr


def test_run_from_stdin_with_json():
    proc = cli("run", "-", "--json", stdin="print('x')\n{'a': 1}\n")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["output"] == "{'a': 1}" and data["logs"] == "x\n"
    assert data["error"] is None and data["operations"] > 0 and data["duration"] >= 0


def test_run_missing_file(tmp_path):
    proc = cli("run", tmp_path / "nope.py")
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_run_bad_arguments(script):
    proc = cli("run", script("1"), "--timeout", "-1")
    assert proc.returncode == 2 and "positive" in proc.stderr


def test_run_log_json(script):
    proc = cli("run", script("import math\nprint(math.pi)"), "--log-json")
    assert proc.returncode == 0
    (line,) = proc.stderr.splitlines()
    record = json.loads(line)
    assert record["logger"] == "smolagents_native.executor"
    assert record["imports"] == ["math"] and record["operations"] > 0
    assert record["error_type"] is None and record["output_size"] == 0


def test_agent_demo():
    proc = cli("agent", "--demo")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("Task: ")
    for n in (1, 2, 3):
        assert f"\nStep {n}\n" in out
    assert "Step 4" not in out
    # Step 1 fails, step 2 corrects it, step 3 answers.
    step1 = out.split("\nStep 1\n")[1].split("\nStep 2\n")[0]
    assert "Error: Code execution failed" in step1 and "unexpected keyword argument 'name'" in step1
    assert "Paris: 2,102,650" in out
    assert "Final answer: 3.1" in out
    assert out.rstrip().splitlines()[-1].startswith("Final answer after 3 steps")


def test_agent_demo_quiet():
    proc = cli("agent", "--demo", "--quiet")
    assert proc.returncode == 0 and proc.stdout == "3.1\n"


def test_agent_task_against_endpoint():
    with StubServer() as stub:
        stub.responses += [
            completion("Thought: add.\n```python\nprint(2 + 2)\n```"),
            completion("Thought: done.\n```python\nfinal_answer('four')\n```"),
        ]
        proc = cli(
            "agent",
            "--task",
            "2+2 in words",
            "--model",
            "stub-model",
            "--api-base",
            stub.base,
            "--max-steps",
            "4",
            "--log-json",
            env_extra={"OPENAI_API_KEY": "sk-cli-key"},
        )
    assert proc.returncode == 0, proc.stderr
    assert "Final answer after 2 steps" in proc.stdout and "four" in proc.stdout
    body = stub.requests[0][2]
    assert body["model"] == "stub-model" and body["messages"][1]["content"] == "Task: 2+2 in words"
    assert stub.requests[0][1]["Authorization"] == "Bearer sk-cli-key"
    steps = [json.loads(line) for line in proc.stderr.splitlines()]
    assert [r["step"] for r in steps if "step" in r] == [1, 2]


def test_agent_task_out_of_steps():
    with StubServer() as stub:
        stub.responses += [completion("```python\nx = 1\n```")] * 2
        proc = cli(
            "agent",
            "--task",
            "t",
            "--model",
            "m",
            "--api-base",
            stub.base,
            "--max-steps",
            "2",
            "--quiet",
        )
    assert proc.returncode == 1 and "max_steps" in proc.stderr


def test_agent_task_http_error():
    with StubServer() as stub:
        stub.responses.append((401, {}, json.dumps({"error": {"message": "bad key"}})))
        proc = cli("agent", "--task", "t", "--model", "m", "--api-base", stub.base)
    assert proc.returncode == 1
    assert "HTTP 401" in proc.stderr and "bad key" in proc.stderr


def test_agent_task_without_model():
    proc = cli("agent", "--task", "t")
    assert proc.returncode == 2 and "SMOLAGENTS_NATIVE_MODEL" in proc.stderr


def test_agent_needs_demo_or_task():
    proc = cli("agent")
    assert proc.returncode == 2 and "--demo" in proc.stderr


# `bench` forwards its arguments; tested in-process with a stand-in module.


def test_bench_forwards_argv(monkeypatch):
    from smolagents_native import __main__ as cli_main

    seen = []
    fake = types.ModuleType("smolagents_native.bench")
    fake.main = lambda argv: seen.append(argv) or 3
    monkeypatch.setitem(sys.modules, "smolagents_native.bench", fake)
    # `from . import bench` prefers the package attribute once the real
    # module was imported (e.g. by tests/test_bench.py)
    monkeypatch.setattr(smolagents_native, "bench", fake, raising=False)
    assert cli_main.main(["bench", "--help", "--repeat", "2"]) == 3
    assert seen == [["--help", "--repeat", "2"]]


def test_bench_missing(monkeypatch, capsys):
    from smolagents_native import __main__ as cli_main

    monkeypatch.setitem(sys.modules, "smolagents_native.bench", None)
    monkeypatch.delattr(smolagents_native, "bench", raising=False)
    assert cli_main.main(["bench"]) == 2
    assert "not available" in capsys.readouterr().err
