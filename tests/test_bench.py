"""The benchmark harness (smolagents_native.bench): corpus, API, command line, JSON shape.

Smoke tests only: quick mode on a few workloads. No assertion here depends on a timing.
The two runs of all three engines are marked no_sanitizer (slow under ASan, and the
sanitizer run of .ci/run deselects them); the rest use the CPython engine only.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from smolagents_native.bench import (
    DEFAULT_ENGINES,
    Options,
    Workload,
    load_workloads,
    print_report,
    run_benchmark,
    select_workloads,
)
from smolagents_native.bench import _instructions
from smolagents_native.bench._runner import RATIO_PAIRS, compare, ratio_key, run_engine

BASE_MODULES = {"collections", "datetime", "itertools", "math", "queue", "random", "re",
                "stat", "statistics", "time", "unicodedata"}
STATUSES = {"ok", "mismatch", "error", "capped", "timeout", "crashed", "unavailable"}
REPO_ROOT = Path(__file__).resolve().parent.parent


def _exec(source: str) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(source, {"__name__": "__main__"})
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# The corpus.


def test_corpus_shape():
    workloads = load_workloads()
    programs = [w for w in workloads if w.mode == "program"]
    steps = {w.name: w for w in workloads if w.mode == "step"}
    assert len(programs) >= 20
    assert set(steps) == {"tiny", "tiny_uncached"}
    assert steps["tiny_uncached"].unique_source and not steps["tiny"].unique_source
    names = {w.name for w in programs}
    for required in ("numeric_loop", "recursion_fib", "generators", "prime_sieve",
                     "matrix_multiply", "closures", "exceptions"):
        assert required in names
    for w in workloads:
        assert w.description, f"{w.name}: header comment missing"


@pytest.mark.parametrize("workload", [w for w in load_workloads() if w.mode == "program"],
                         ids=lambda w: w.name)
def test_workload_is_plain_deterministic_python(workload):
    tree = ast.parse(workload.source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            mods = {(node.module or "").split(".")[0]}
        else:
            continue
        assert mods <= BASE_MODULES, f"{workload.name} imports {mods - BASE_MODULES}"
    first = _exec(workload.source)
    assert first.strip(), "a workload prints something"
    assert len(first) < 2000, "and something small"
    assert _exec(workload.source) == first, "output must not vary between runs"


def test_select_workloads():
    workloads = load_workloads()
    picked = [w.name for w in select_workloads(workloads, "tiny,numeric_loop")]
    assert picked == ["numeric_loop", "tiny", "tiny_uncached"]
    assert select_workloads(workloads, None) == workloads
    with pytest.raises(ValueError, match="no workload matches"):
        select_workloads(workloads, "no-such-workload")


def test_options():
    quick = Options.make(quick=True)
    assert (quick.repeat, quick.warmup) == (1, 0)
    assert Options.make(quick=True, repeat=3).repeat == 3
    with pytest.raises(ValueError):
        Options.make(engines=("cpython", "pypy"))


# ---------------------------------------------------------------------------------------------
# The harness through its Python API.


def _check_result_shape(results: dict, names: list[str], engines: tuple[str, ...]) -> None:
    assert results["schema"] == 1
    head = results["header"]
    for key in ("date", "machine", "python", "smolagents_version", "smolagents_native_version",
                "git_commit"):
        assert key in head
    assert {"cpu", "cores", "platform"} <= set(head["machine"])
    assert head["python"]["version"]
    assert {"engines", "repeat", "warmup", "quick", "memory", "smolagents_cap"} \
        <= set(results["options"])
    assert "limits" in results and "memory_method" in results and "timing" in results
    assert [w["name"] for w in results["workloads"]] == names
    for entry in results["workloads"]:
        assert {"name", "description", "mode", "engines", "ratios", "outputs_agree",
                "reference"} <= set(entry)
        assert set(entry["ratios"]) == {ratio_key(a, b) for a, b in RATIO_PAIRS}
        assert set(entry["engines"]) == set(engines)
        for r in entry["engines"].values():
            assert {"status", "min", "median", "times", "runs", "output", "memory_kib",
                    "error"} <= set(r)
            assert r["status"] in STATUSES
            if r["status"] in ("ok", "mismatch"):
                assert r["min"] is not None and r["min"] <= r["median"]
                assert len(r["times"]) == r["runs"] >= 1
        cpython = entry["engines"].get("cpython")
        if cpython is not None:
            assert cpython["status"] == "ok", cpython["error"]
    summary = results["summary"]
    for key in ("geomean_native_over_cpython", "geomean_smolagents_over_native",
                "worst_native_over_cpython", "steps_us_per_call", "memory_kib", "problems"):
        assert key in summary
    json.dumps(results)  # serialisable as is


@pytest.mark.no_sanitizer
def test_api_quick_run():
    results = run_benchmark(["tiny", "fstring_report"], quick=True, progress=False,
                            smolagents_cap=5.0)
    names = ["fstring_report", "tiny", "tiny_uncached"]
    _check_result_shape(results, names, DEFAULT_ENGINES)
    entries = {e["name"]: e for e in results["workloads"]}
    assert entries["tiny"]["engines"]["cpython"]["output"] == "3\n"
    fstring = entries["fstring_report"]
    assert fstring["engines"]["cpython"]["output"] == _exec(
        next(w for w in load_workloads() if w.name == "fstring_report").source)
    assert set(results["summary"]["steps_us_per_call"]) == {"tiny", "tiny_uncached"}
    assert results["options"]["quick"] is True
    out = io.StringIO()
    print_report(results, stream=out, plain=True)
    assert "tiny" in out.getvalue() and "fstring_report" in out.getvalue()


def test_engine_subset_and_no_memory():
    results = run_benchmark("tiny", engines="cpython", quick=True, memory=False,
                            progress=False, step_calls=20)
    _check_result_shape(results, ["tiny", "tiny_uncached"], ("cpython",))
    assert results["memory_method"] is None
    assert all(e["engines"]["cpython"]["memory_kib"] is None for e in results["workloads"])


def _fake(source: str, name: str = "fake") -> Workload:
    return Workload(name, Path(name + ".py"), source, "test workload")


def test_hang_is_killed_and_reported():
    opts = Options.make(quick=True, engines=("cpython",), run_timeout=1.0, memory=None)
    result = run_engine(_fake("while True:\n    pass\n"), "cpython", opts)
    assert result["status"] == "timeout"
    assert result["min"] is None


def test_worker_death_is_reported():
    opts = Options.make(quick=True, engines=("cpython",), memory=None)
    result = run_engine(_fake("import os\nos._exit(3)\n"), "cpython", opts)
    assert result["status"] == "crashed"
    assert "code 3" in result["error"]


def test_raising_workload_is_an_error_not_a_crash():
    opts = Options.make(quick=True, engines=("cpython",), memory=None)
    result = run_engine(_fake("print(1)\nraise ValueError('boom')\n"), "cpython", opts)
    assert result["status"] == "error"
    assert "ValueError: boom" in result["error"]


def test_mismatch_is_marked():
    def res(output, seconds):
        return {"status": "ok", "output": output, "min": seconds, "median": seconds,
                "error": None}

    entry = {"engines": {"cpython": res("1\n", 1.0), "native": res("2\n", 2.0),
                         "smolagents": res("1\n", 8.0)}}
    compare(entry)
    assert entry["engines"]["native"]["status"] == "mismatch"
    assert "line 1" in entry["engines"]["native"]["error"]
    assert entry["engines"]["smolagents"]["status"] == "ok"
    assert entry["outputs_agree"] is False
    assert entry["ratios"]["native_over_cpython"] == 2.0
    assert entry["ratios"]["smolagents_over_native"] == 4.0
    assert entry["ratios"]["monty_over_cpython"] is None  # did not run


def test_a_capped_peer_counts_as_a_lower_bound_in_the_headline():
    # The headline never leaves out a program a peer could not finish: smolagents stopped at
    # its 5 s cap on a program native ran in 0.01 s is "> 500x" there, and the geomean over
    # all programs is a lower bound ("> N"), next to the geomean of the finished ones.
    from smolagents_native.bench._report import summary_lines, table_rows
    from smolagents_native.bench._runner import summarise

    def res(seconds):
        return {"status": "ok", "output": "1\n", "min": seconds, "median": seconds,
                "error": None, "runs": 1}

    capped = {"status": "capped", "output": None, "min": None, "error": "a run exceeded 5s",
              "capped_at": 5.0}
    entries = []
    refused = {"status": "error", "output": None, "min": None,
               "error": "InterpreterError: Yield is not supported"}
    for name, smol in (("fast", res(0.4)), ("slow1", capped), ("slow2", dict(capped)),
                       ("gen", refused)):
        entry = {"name": name, "mode": "program", "engines": {
            "cpython": res(0.01), "native": res(0.01), "smolagents": smol}}
        compare(entry)
        entries.append(entry)
    assert entries[1]["ratios"]["smolagents_over_native"] is None
    assert entries[1]["ratio_bounds"]["smolagents_over_native"] == pytest.approx(500)
    opts = Options.make(quick=True, engines=("cpython", "native", "smolagents"), memory=None)
    summary = summarise(entries, opts)
    g = summary["geomeans"]["smolagents_over_native"]
    assert (g["n"], g["n_all"], g["bounds"]) == (1, 3, 2)
    assert g["geomean"] == pytest.approx(40)
    assert g["at_least"] == pytest.approx((40 * 500 * 500) ** (1 / 3))
    results = {"summary": summary, "options": {"smolagents_cap": 5.0, "repeat": 1,
                                               "engines": ["cpython", "native", "smolagents"]},
               "workloads": entries}
    head, rows = table_rows(results)
    column = head.index("smolagents/native")
    assert [row[column] for row in rows] == ["40.0x", "> 500x", "> 500x", "-"]
    line = next(x for x in summary_lines(results) if x.startswith("Geomean smolagents/native"))
    assert "> 215" in line and "over 3 programs" in line and "40.0x over the 1" in line
    assert "cap of 5 s" in line and "not counted: gen (error)" in line


# ---------------------------------------------------------------------------------------------
# The command line.


@pytest.mark.no_sanitizer
def test_cli_quick(tmp_path):
    out_json = tmp_path / "results.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    proc = subprocess.run(
        [sys.executable, "-m", "smolagents_native.bench", "--quick", "--workloads",
         "tiny,datetime_schedule", "--smolagents-cap", "5", "--json", str(out_json), "--plain",
         "--strict"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]  # --strict: cpython and native ran cleanly
    assert "datetime_schedule" in proc.stdout and "tiny_uncached" in proc.stdout
    assert "Machine:" in proc.stdout
    assert "[" in proc.stderr  # the progress indicator
    results = json.loads(out_json.read_text())
    _check_result_shape(results, ["datetime_schedule", "tiny", "tiny_uncached"], DEFAULT_ENGINES)


def test_cli_rejects_unknown_workload(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    proc = subprocess.run(
        [sys.executable, "-m", "smolagents_native.bench", "--workloads", "nope", "--json", "-"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert "no workload matches" in proc.stderr


@pytest.mark.no_sanitizer
def test_native_process_engine():
    """The fourth engine: the executor with isolation="process" (opt-in)."""
    results = run_benchmark("tiny", engines="cpython,native-process", quick=True,
                            progress=False, memory=False)
    for entry in results["workloads"]:
        assert entry["engines"]["native-process"]["status"] == "ok", entry
        assert entry["engines"]["native-process"]["output"] == \
            entry["engines"]["cpython"]["output"]


# ---------------------------------------------------------------------------------------------
# Cached engines and peers.


def test_cached_engines_agree_with_cpython():
    results = run_benchmark("closures", engines="cpython,cpython-cached,native-cached",
                            quick=True, memory=False, progress=False, repeat=2)
    entry = results["workloads"][0]
    for name in ("cpython-cached", "native-cached"):
        assert entry["engines"][name]["status"] == "ok", entry["engines"][name]["error"]
        assert entry["engines"][name]["runs"] == 2  # a second run on the cached engine
    assert entry["ratios"]["native_cached_over_cpython_cached"] is not None
    assert "native_cached_over_cpython_cached" in results["summary"]["geomeans"]


@pytest.mark.parametrize("engine,module", [("restrictedpython", "RestrictedPython"),
                                           ("monty", "pydantic_monty")])
def test_peer_engine_when_installed(engine, module):
    pytest.importorskip(module)
    results = run_benchmark("tiny,datetime_schedule", engines=f"cpython,{engine}", quick=True,
                            memory=False, progress=False, step_calls=20)
    entries = {e["name"]: e for e in results["workloads"]}
    # the tiny step runs everywhere; a program the peer refuses is an error, never a crash
    assert entries["tiny"]["engines"][engine]["status"] == "ok"
    for e in entries.values():
        assert e["engines"][engine]["status"] in ("ok", "error", "mismatch")


def test_peer_engine_absent_is_unavailable(monkeypatch, tmp_path):
    # a peer whose package cannot be imported is reported as unavailable, not raised
    fake = tmp_path / "RestrictedPython"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('RestrictedPython is not here')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    opts = Options.make(quick=True, engines=("restrictedpython",), memory=None)
    result = run_engine(_fake("print(1)\n"), "restrictedpython", opts)
    assert result["status"] == "unavailable"
    assert "RestrictedPython is not here" in result["error"]


# ---------------------------------------------------------------------------------------------
# Instruction counts.


def _fake_results(ratio):
    return {"workloads": {"w": {"mode": "program", "ratios": {"native/cpython": ratio},
                                "engines": {"native": {"instructions": 1.0, "error": None}}}}}


def test_baseline_comparison():
    base = _fake_results(2.0)
    assert _instructions.compare_baseline(_fake_results(2.19), base) == []
    problems = _instructions.compare_baseline(_fake_results(2.21), base)
    assert len(problems) == 1 and "+10.5%" in problems[0]
    assert _instructions.compare_baseline(_fake_results(2.21), base, tolerance=0.2) == []
    assert _instructions.compare_baseline(_fake_results(5.0), {"workloads": {}}) == []


def test_repository_baseline_covers_the_smoke_workloads():
    path = _instructions.default_baseline_path()
    if not path.exists():
        pytest.skip(f"no instruction baseline for this CPython version ({path.name})")
    baseline = json.loads(path.read_text())
    smoke = {w.name for w in select_workloads(load_workloads(),
                                              list(_instructions.SMOKE_WORKLOADS))}
    assert smoke <= set(baseline["workloads"])
    for name in smoke:
        assert "native/cpython" in baseline["workloads"][name]["ratios"]


@pytest.mark.no_sanitizer
@pytest.mark.skipif(not _instructions.valgrind_available(), reason="needs valgrind")
def test_instruction_counts_are_repeatable():
    wl = next(w for w in load_workloads() if w.name == "tiny")
    first = _instructions.count_workload(wl, "cpython")
    second = _instructions.count_workload(wl, "cpython")
    assert first["error"] is None, first["error"]
    assert first["instructions"] > 1000  # a step is thousands of instructions
    assert abs(first["instructions"] - second["instructions"]) < 0.01 * first["instructions"]


# ---------------------------------------------------------------------------------------------
# Agent traces (--traces).


def _trace_outputs_cpython(trace) -> list[str]:
    g = {"__name__": "__main__"}
    outs = []
    for step in trace.steps:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(step, "<step>", "exec"), g)
        outs.append(buf.getvalue())
    return outs


def test_trace_corpus_shape():
    from smolagents_native.bench._traces import load_traces

    traces = {t.name: t for t in load_traces()}
    assert len(traces) >= 8
    assert {"tiny_steps", "long_steps"} <= set(traces)
    for t in traces.values():
        assert t.description, f"{t.name}: header comment missing"
        assert 4 <= len(t.steps) <= 8, t.name
        for step in t.steps:
            ast.parse(step)  # each step is a program of its own
            if t.name != "tiny_steps":
                assert 5 <= len(step.strip().splitlines()) <= 40, (t.name, step)
    assert all(len(s.strip().splitlines()) == 1 for s in traces["tiny_steps"].steps)
    assert 25 <= traces["long_steps"].lines_per_step <= 35
    # later steps use what earlier ones defined: no step but the first runs on its own
    for t in traces.values():
        with pytest.raises(NameError):
            exec(compile(t.steps[-1], "<step>", "exec"), {"__name__": "__main__"})


def test_traces_run_under_cpython_and_native_alike():
    from smolagents_native import LocalPythonExecutor
    from smolagents_native.bench._traces import TRACE_IMPORTS, load_traces

    for trace in load_traces():
        expected = _trace_outputs_cpython(trace)
        assert all(isinstance(o, str) for o in expected)
        assert any(o.strip() for o in expected), trace.name
        assert _trace_outputs_cpython(trace) == expected, f"{trace.name} is not deterministic"
        ex = LocalPythonExecutor(list(TRACE_IMPORTS), timeout_seconds=None)
        ex.send_tools({})
        got = [ex(step).logs for step in trace.steps]
        assert got == expected, trace.name


def test_trace_parsing():
    from smolagents_native.bench._traces import parse_trace, select_traces

    t = parse_trace("t", "# what it is\n# %% step\nx = 1\n\n# %% step\nprint(x)\n")
    assert t.description == "what it is"
    assert t.steps == ("x = 1\n", "print(x)\n")
    with pytest.raises(ValueError):
        parse_trace("bad", "x = 1\n")
    assert [s.name for s in select_traces([t], "t")] == ["t"]
    with pytest.raises(ValueError, match="no trace matches"):
        select_traces([t], "nope")


def test_trace_capped_peer_counts_at_its_bound():
    from smolagents_native.bench._trace_runner import compare_trace, summarise_traces

    def res(total, out="--- step 1\n1\n"):
        figs = {"total": {"min": total, "median": total},
                "step_mean": {"min": total / 2, "median": total / 2},
                "first": {"min": total / 2, "median": total / 2},
                "create": {"min": 0.0, "median": 0.0},
                "steps": [{"min": total / 2, "median": total / 2}] * 2}
        return {"status": "ok", "output": out, "min": total, "median": total, "error": None,
                "figures": figs}

    capped = {"status": "capped", "output": None, "min": None, "error": "a run exceeded 2s",
              "capped_at": 2.0, "figures": {}}
    entries = []
    for name, smol in (("a", res(0.4)), ("b", capped)):
        entry = {"name": name, "engines": {"cpython": res(0.01), "native": res(0.02),
                                           "smolagents": smol}}
        compare_trace(entry)
        entries.append(entry)
    assert entries[0]["ratios"]["total"]["native_over_cpython"] == pytest.approx(2.0)
    assert entries[1]["ratio_bounds"]["smolagents_over_native"] == pytest.approx(100)
    summary = summarise_traces(entries, ("cpython", "native", "smolagents"))
    g = summary["geomeans"]["total"]["smolagents_over_native"]
    assert (g["n"], g["n_all"], g["bounds"]) == (1, 2, 1)
    assert g["at_least"] == pytest.approx((20 * 100) ** 0.5)
    # a mismatch is marked
    entry = {"name": "m", "engines": {"cpython": res(0.01), "native": res(0.01, "--- step 1\n2\n")}}
    compare_trace(entry)
    assert entry["engines"]["native"]["status"] == "mismatch"


@pytest.mark.no_sanitizer
def test_cli_traces_quick(tmp_path):
    out_json = tmp_path / "traces.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    proc = subprocess.run(
        [sys.executable, "-m", "smolagents_native.bench", "--traces", "tiny_steps,sales",
         "--quick", "--engines", "cpython,native,smolagents", "--smolagents-cap", "10",
         "--json", str(out_json)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "sales_report" in out and "tiny_steps" in out
    assert "native/CPython" in out and "smolagents/native" in out
    assert "tiny_steps, step by step" in out and "goal" in out
    results = json.loads(out_json.read_text())
    assert results["kind"] == "traces"
    assert {"header", "options", "timing", "traces", "summary", "imports"} <= set(results)
    assert [t["name"] for t in results["traces"]] == ["sales_report", "tiny_steps"]
    for t in results["traces"]:
        assert {"name", "steps", "step_lines", "engines", "ratios", "ratio_bounds",
                "outputs_agree"} <= set(t)
        assert t["outputs_agree"] is True
        for name in ("cpython", "native", "smolagents"):
            r = t["engines"][name]
            assert r["status"] == "ok", r["error"]
            assert len(r["outputs"]) == t["steps"]
            assert {"total", "step_mean", "first", "create", "steps"} <= set(r["figures"])
            assert len(r["figures"]["steps"]) == t["steps"]
            assert len(r["step_times"]) == len(r["times"]) == r["runs"] >= 1
        for figure in ("total", "step_mean", "first"):
            assert t["ratios"][figure]["native_over_cpython"] is not None
            assert t["ratios"][figure]["smolagents_over_native"] is not None
    summary = results["summary"]
    assert "native_over_cpython" in summary["geomeans"]["total"]
    assert {g["trace"] for g in summary["goals"]} == {"tiny_steps"}


def test_trace_worker_phases():
    # the worker's trace runs: measure (whole trace), create, first, setup; outputs per step
    from smolagents_native.bench._runner import WORKER, _worker_env
    from smolagents_native.bench._traces import load_traces

    trace = next(t for t in load_traces() if t.name == "tiny_steps")
    spec = {"engine": "cpython", "mode": "trace", "steps": list(trace.steps), "imports": [],
            "memory": None}
    proc = subprocess.run([sys.executable, str(WORKER), json.dumps(spec)],
                          input="run measure\nrun create\nrun first\nrun setup\nquit\n",
                          capture_output=True, text=True, timeout=120, env=_worker_env())
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    runs = [e for e in events if e["event"] == "run"]
    assert [e["phase"] for e in runs] == ["measure", "create", "first", "setup"]
    assert runs[0]["output"] == _trace_outputs_cpython(trace)
    assert len(runs[0]["steps"]) == len(trace.steps)
    assert len(runs[2]["steps"]) == 1 and runs[1]["steps"] == [] and runs[3]["steps"] == []


# ---------------------------------------------------------------------------------------------
# Programs of one's own (--dir): the benchmark on material the project did not write.

_OWN_PROGRAMS = {
    "records.py": "# Records through json, as an agent cleaning data.\n# bench-imports: json\n"
                  "import json\n"
                  "rows = [json.dumps({'i': i, 'sq': i * i}) for i in range(300)]\n"
                  "print(sum(json.loads(r)['sq'] for r in rows))\n",
    "plain.py": "# A plain loop.\nprint(sum(i % 7 for i in range(3000)))\n",
    "step.py": "# A step.\n# bench-mode: step\ny = [1, 2, 3]\n",
    "_helper.py": "raise SystemExit('a file starting with _ is not a workload')\n",
}
_OWN_TRACE = ("# A trace of my own.\n# bench-imports: textwrap, heapq\n"
              "# %% step\nimport textwrap, heapq\nrows = textwrap.wrap('a b c d e f g', 3)\n"
              "print(len(rows))\n"
              "# %% step\nprint(heapq.nsmallest(2, rows))\n")


def _own_dir(tmp_path: Path) -> Path:
    d = tmp_path / "mine"
    d.mkdir()
    for name, text in _OWN_PROGRAMS.items():
        (d / name).write_text(text)
    return d


def test_workloads_and_traces_load_from_a_directory(tmp_path):
    from smolagents_native.bench._traces import TRACE_IMPORTS, load_traces

    wls = {w.name: w for w in load_workloads(_own_dir(tmp_path))}
    assert list(wls) == ["plain", "records", "step", "step_uncached"]  # programs, then steps
    assert wls["records"].imports == ("json",) and wls["plain"].imports == ()
    assert wls["records"].description == "Records through json, as an agent cleaning data."
    assert (wls["step"].mode, wls["step_uncached"].unique_source) == ("step", True)
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "mine.py").write_text(_OWN_TRACE)
    (trace,) = load_traces(tmp_path / "traces")
    assert trace.description == "A trace of my own."
    assert len(trace.steps) == 2
    assert trace.imports == TRACE_IMPORTS + ("textwrap", "heapq")
    with pytest.raises(ValueError, match="does not exist"):
        load_workloads(tmp_path / "absent")
    with pytest.raises(ValueError, match="not a directory"):
        load_workloads(tmp_path / "traces" / "mine.py")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no workload files"):
        load_workloads(tmp_path / "empty")
    with pytest.raises(ValueError, match="no trace files"):
        load_traces(tmp_path / "empty")


def test_a_workloads_imports_reach_every_engines_worker(tmp_path, monkeypatch):
    """What the header authorizes is in the spec each worker gets (timed and counted)."""
    seen = []
    monkeypatch.setattr(_instructions, "_count_process",
                        lambda spec, phase, runs, timeout: (seen.append(spec), (1000, None))[1])
    monkeypatch.setattr(_instructions, "valgrind_available", lambda: True)
    _instructions.run_instructions("records", engines=("cpython", "native"),
                                   directory=_own_dir(tmp_path))
    assert seen and all(s["imports"] == ["json"] for s in seen)
    assert {s["engine"] for s in seen} == {"cpython", "native"}


def test_cli_runs_a_directory_of_programs(tmp_path):
    out_json = tmp_path / "results.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    mine = _own_dir(tmp_path)
    listed = subprocess.run(
        [sys.executable, "-m", "smolagents_native.bench", "--dir", str(mine), "--list"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == \
        ["plain", "records", "step", "step_uncached"]
    proc = subprocess.run(
        [sys.executable, "-m", "smolagents_native.bench", "--dir", str(mine), "--quick",
         "--engines", "cpython,native", "--workloads", "records,plain", "--json",
         str(out_json), "--plain", "--strict", "--no-memory"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]  # --strict: both ran, outputs agree
    results = json.loads(out_json.read_text())
    entries = {e["name"]: e for e in results["workloads"]}
    assert set(entries) == {"records", "plain"}
    assert entries["records"]["engines"]["native"]["output"] == \
        _exec(_OWN_PROGRAMS["records.py"])
    missing = subprocess.run(
        [sys.executable, "-m", "smolagents_native.bench", "--dir", str(tmp_path / "nope"),
         "--json", "-"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_traces_of_a_directory_run_with_their_imports(tmp_path):
    from smolagents_native.bench._trace_runner import run_traces

    (tmp_path / "mine.py").write_text(_OWN_TRACE)
    results = run_traces(engines="cpython,native", quick=True, repeat=1, progress=False,
                         directory=tmp_path)
    (trace,) = results["traces"]
    assert trace["name"] == "mine" and trace["outputs_agree"] is True
    assert trace["engines"]["native"]["status"] == "ok", trace["engines"]["native"]["error"]
    assert {"textwrap", "heapq", "json"} <= set(results["imports"])
