"""Instruction counts: the benchmark's measurement that holds on a noisy machine.

Wall-clock ratios move with the machine's load (a shared 2-core box can swing a ratio by 2x
between two runs); the number of instructions a run executes hardly moves at all. This mode
runs each engine's worker (the same `_worker.py` and protocol as the timed mode) under
valgrind's callgrind, twice:

    full: one warm-up run, then N runs                 -> I_full instructions in total
    base: one warm-up run, then N runs without their timed part ("run setup": the engine and
          the code are made, the step is not run)      -> I_base

and reports (I_full - I_base) / N per run (per call for step workloads): start-up, imports,
warm-up and engine creation cancel out. Both processes use PYTHONHASHSEED=0, so the counts
repeat to well under 1% (an engine that spawns processes, such as monty, is not measurable this
way and is left out).

`compare_baseline` checks native/CPython instruction ratios against a file kept in the
repository (`baselines/instructions-cpXY.json`, one per CPython version, since CPython's own
counts differ by version) and reports every workload whose ratio grew by more than the
tolerance (10% by default): CI's smoke run fails on those.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ._runner import WORKER, _worker_env
from ._workloads import Workload, load_workloads, select_workloads

# Engines that run in the worker process itself (callgrind counts that process only).
IN_PROCESS_ENGINES = ("cpython", "native", "cpython-cached", "native-cached",
                      "restrictedpython", "smolagents")
DEFAULT_ENGINES = ("cpython", "native")
# Pairs reported as ratios (ours / reference).
PAIRS = (("native", "cpython"), ("native-cached", "cpython-cached"))
# The workloads CI's smoke run counts: a spread of what agents write, each a few seconds
# under callgrind.
SMOKE_WORKLOADS = ("numeric_loop", "recursion_fib", "classes_methods", "generators",
                   "sort_key_lambda", "string_building", "comprehensions", "dict_counting",
                   "exceptions", "tiny")
BASELINE_DIR = Path(__file__).resolve().parent / "baselines"
STEP_CALLS = 200
_COLLECTED = re.compile(rb"Collected\s*:\s*(\d+)")


def valgrind_available() -> bool:
    return shutil.which("valgrind") is not None


def default_baseline_path() -> Path:
    return BASELINE_DIR / f"instructions-cp{sys.version_info[0]}{sys.version_info[1]}.json"


def _count(workload: Workload, engine: str, runs: int, timed: bool,
           timeout: float) -> tuple[int | None, str | None]:
    """Instructions of one worker process (warm-up + `runs` runs, timed or setup-only), or
    (None, reason)."""
    spec = {
        "engine": engine,
        "source": workload.source,
        "mode": workload.mode,
        "unique_source": workload.unique_source,
        "calls": STEP_CALLS if workload.mode == "step" else 1,
        "memory": None,
        "imports": list(workload.imports),
    }
    return _count_process(spec, "measure" if timed else "setup", runs, timeout)


def _count_process(spec: dict[str, Any], phase: str, runs: int,
                   timeout: float) -> tuple[int | None, str | None]:
    """Instructions of one worker process running `spec`: one warm-up run, then `runs` runs
    of `phase`; or (None, reason)."""
    commands = "run warmup\n" + f"run {phase}\n" * runs + "quit\n"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        cmd = ["valgrind", "--tool=callgrind", f"--log-file={log}",
               f"--callgrind-out-file={Path(tmp) / 'callgrind.out'}",
               sys.executable, str(WORKER), json.dumps(spec)]
        try:
            proc = subprocess.run(cmd, input=commands.encode(), capture_output=True,
                                  timeout=timeout, env=_worker_env())
        except subprocess.TimeoutExpired:
            return None, f"callgrind run exceeded {timeout:g}s"
        for line in proc.stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "error":
                return None, f"{event.get('type')}: {event.get('message')}"[:300]
        text = log.read_bytes() if log.exists() else b""
        m = _COLLECTED.search(text)
        if proc.returncode != 0 or m is None:
            tail = (text[-500:] or proc.stderr[-500:]).decode("utf-8", "replace")
            return None, f"valgrind exited with {proc.returncode}: {tail}"
        return int(m.group(1)), None


def count_workload(workload: Workload, engine: str, runs: int = 1,
                   timeout: float = 900.0) -> dict[str, Any]:
    """{"instructions": per run (per call for steps) or None, "error": reason or None}."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        full = pool.submit(_count, workload, engine, runs, True, timeout)
        base = pool.submit(_count, workload, engine, runs, False, timeout)
        (i_full, e_full), (i_base, e_base) = full.result(), base.result()
    if i_full is None or i_base is None:
        return {"instructions": None, "error": e_full or e_base}
    per = (i_full - i_base) / runs
    if workload.mode == "step":
        per /= STEP_CALLS
    return {"instructions": per, "error": None, "total": i_full, "base": i_base}


def run_instructions(workloads: list[str] | str | None = None,
                     engines: tuple[str, ...] | list[str] | str | None = None,
                     runs: int = 1, jobs: int | None = None,
                     progress: Any = None, directory: Any = None) -> dict[str, Any]:
    """Instruction counts per workload and engine, with the ratios of PAIRS (the built-in
    workloads, or those of `directory`)."""
    if not valgrind_available():
        raise ValueError("the instruction-count mode needs valgrind (callgrind) on PATH")
    if isinstance(engines, str):
        engines = [e.strip() for e in engines.split(",") if e.strip()]
    engines = tuple(engines or DEFAULT_ENGINES)
    bad = [e for e in engines if e not in IN_PROCESS_ENGINES]
    if bad:
        raise ValueError(f"engine(s) {bad} cannot be counted (they run code in other "
                         f"processes); choose from {list(IN_PROCESS_ENGINES)}")
    selected = select_workloads(load_workloads(directory), workloads)
    tasks = [(wl, e) for wl in selected for e in engines]
    jobs = max(1, (jobs or os.cpu_count() or 2) // 2)  # each task runs two processes
    results: dict[str, dict[str, Any]] = {wl.name: {"mode": wl.mode, "engines": {}}
                                          for wl in selected}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(count_workload, wl, e, runs): (wl, e) for wl, e in tasks}
        for done, fut in enumerate(futures, 1):
            wl, e = futures[fut]
            results[wl.name]["engines"][e] = fut.result()
            if progress:
                progress.write(f"[{done}/{len(tasks)}] {wl.name} / {e}\n")
                progress.flush()
    for entry in results.values():
        entry["ratios"] = {}
        for a, b in PAIRS:
            ia = entry["engines"].get(a, {}).get("instructions")
            ib = entry["engines"].get(b, {}).get("instructions")
            if ia and ib and ib > 0:
                entry["ratios"][f"{a}/{b}"] = ia / ib
    return {
        "python": sys.version.split()[0],
        "method": "callgrind: (warm-up + N runs) minus (warm-up + N setup-only runs), per run "
                  f"(per call over {STEP_CALLS} calls for step workloads); PYTHONHASHSEED=0",
        "runs": runs,
        "engines": list(engines),
        "workloads": results,
    }


def compare_baseline(results: dict[str, Any], baseline: dict[str, Any],
                     tolerance: float = 0.10) -> list[str]:
    """Regressions: workloads whose native/CPython instruction ratio exceeds the baseline's by
    more than `tolerance` (relative). Workloads missing on either side are not compared."""
    problems = []
    for name, entry in results["workloads"].items():
        base = baseline.get("workloads", {}).get(name, {}).get("ratios", {})
        for pair, ratio in entry["ratios"].items():
            ref = base.get(pair)
            if ref and ratio > ref * (1 + tolerance):
                problems.append(f"{name}: {pair} {ratio:.3f} vs baseline {ref:.3f} "
                                f"(+{(ratio / ref - 1) * 100:.1f}%, limit +{tolerance * 100:g}%)")
        for e, r in entry["engines"].items():
            if r.get("error"):
                problems.append(f"{name} / {e}: could not be counted: {r['error']}")
    return problems


def format_table(results: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    engines = results["engines"]
    pairs = [f"{a}/{b}" for a, b in PAIRS if a in engines and b in engines]
    head = ["workload"] + [f"{e} (M instr)" for e in engines] + pairs
    if baseline:
        head += [f"{p} baseline" for p in pairs]
    rows = []
    for name, entry in results["workloads"].items():
        row = [name + (" (per call)" if entry["mode"] == "step" else "")]
        for e in engines:
            r = entry["engines"].get(e, {})
            i = r.get("instructions")
            row.append(f"{i / 1e6:.3f}" if i is not None else "error")
        row += [f"{entry['ratios'][p]:.2f}x" if p in entry["ratios"] else "-" for p in pairs]
        if baseline:
            b = baseline.get("workloads", {}).get(name, {}).get("ratios", {})
            row += [f"{b[p]:.2f}x" if p in b else "-" for p in pairs]
        rows.append(row)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))) for r in [head, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for a, b in PAIRS:
        rs = [e["ratios"][f"{a}/{b}"] for e in results["workloads"].values()
              if f"{a}/{b}" in e["ratios"] and e["mode"] == "program"]
        if rs:
            from ._runner import geomean  # noqa: PLC0415

            lines.append(f"Geomean {a}/{b} instructions: {geomean(rs):.2f}x over {len(rs)} "
                         "programs")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Agent traces (``--traces --instructions``).

# Four processes per trace and engine, each a warm-up run of the whole trace then N runs of:
TRACE_PHASES = ("measure", "setup", "create", "first")


def count_trace(trace: Any, engine: str, runs: int = 1, timeout: float = 1800.0,
                pool: ThreadPoolExecutor | None = None) -> dict[str, Any]:
    """The trace's instruction figures under `engine`, per run: ``total`` (a new engine and
    every step), ``create`` (the new engine), ``first`` (the new engine and its first step),
    ``step_mean`` ((total - create) / steps), from four worker processes (the whole trace /
    nothing but the sources / the new engine only / the new engine and the first step, each
    after one warm-up run of the whole trace) by difference with the second."""
    spec = {"engine": engine, "mode": "trace", "steps": list(trace.steps),
            "imports": list(trace.imports), "memory": None}
    own = pool is None
    pool = pool or ThreadPoolExecutor(max_workers=2)
    try:
        futures = {ph: pool.submit(_count_process, spec, ph, runs, timeout)
                   for ph in TRACE_PHASES}
        counts = {ph: f.result() for ph, f in futures.items()}
    finally:
        if own:
            pool.shutdown()
    errors = [e for _, e in counts.values() if e]
    if errors:
        return {"total": None, "step_mean": None, "first": None, "create": None,
                "error": errors[0]}
    i = {ph: c for ph, (c, _) in counts.items()}
    base = i["setup"]
    create = (i["create"] - base) / runs
    total = (i["measure"] - base) / runs
    return {"total": total, "create": create, "first": (i["first"] - base) / runs,
            "step_mean": (total - create) / len(trace.steps), "error": None,
            "processes": i}


def run_trace_instructions(traces: list[str] | str | None = None,
                           engines: tuple[str, ...] | list[str] | str | None = None,
                           runs: int = 1, jobs: int | None = None,
                           progress: Any = None, directory: Any = None) -> dict[str, Any]:
    """Instruction figures per trace and engine (engines running in their worker process
    only: cpython, native, smolagents, restrictedpython), with the traces' ratio pairs (the
    built-in traces, or those of `directory`)."""
    from ._runner import geomean, ratio_key  # noqa: PLC0415
    from ._trace_runner import GOALS, TRACE_PAIRS  # noqa: PLC0415
    from ._traces import load_traces, select_traces  # noqa: PLC0415

    if not valgrind_available():
        raise ValueError("the instruction-count mode needs valgrind (callgrind) on PATH")
    if isinstance(engines, str):
        engines = [e.strip() for e in engines.split(",") if e.strip()]
    engines = tuple(engines or ("cpython", "native", "smolagents", "restrictedpython"))
    counted = ("cpython", "native", "smolagents", "restrictedpython")
    bad = [e for e in engines if e not in counted + ("monty", "native-process")]
    if bad:
        raise ValueError(f"engine(s) {bad} do not run traces")
    selected = select_traces(load_traces(directory), traces)
    results: dict[str, dict[str, Any]] = {tr.name: {"steps": len(tr.steps), "engines": {}}
                                          for tr in selected}
    for tr in selected:
        for e in engines:
            if e not in counted:  # they run the code in other processes
                results[tr.name]["engines"][e] = {
                    "unavailable": True,
                    "error": None,
                    "reason": "runs the code in other processes (a worker pool, a "
                              "sandbox); callgrind counts the worker's own"}
    tasks = [(tr, e) for tr in selected for e in engines if e in counted]
    workers = max(1, jobs or os.cpu_count() or 2)
    with ThreadPoolExecutor(max_workers=workers) as procs, \
            ThreadPoolExecutor(max_workers=max(1, workers // 2)) as outer:
        futures = {outer.submit(count_trace, tr, e, runs, pool=procs): (tr, e)
                   for tr, e in tasks}
        for done, fut in enumerate(futures, 1):
            tr, e = futures[fut]
            results[tr.name]["engines"][e] = fut.result()
            if progress:
                progress.write(f"[{done}/{len(tasks)}] {tr.name} / {e}\n")
                progress.flush()
    figures = ("total", "step_mean", "first", "create")
    for entry in results.values():
        entry["ratios"] = {f: {} for f in figures}
        for a, b in TRACE_PAIRS:
            for f in figures:
                ia = entry["engines"].get(a, {}).get(f)
                ib = entry["engines"].get(b, {}).get(f)
                if ia and ib and ib > 0:
                    entry["ratios"][f][ratio_key(a, b)] = ia / ib
    geomeans: dict[str, dict[str, Any]] = {f: {} for f in figures}
    for a, b in TRACE_PAIRS:
        if a not in engines or b not in engines or a not in counted or b not in counted:
            continue
        key = ratio_key(a, b)
        for f in figures:
            rs = [e["ratios"][f][key] for e in results.values() if key in e["ratios"][f]]
            missed = {n: "error" for n, e in results.items()
                      if key not in e["ratios"][f] and e["engines"].get(a, {}).get("error")}
            geomeans[f][key] = {"geomean": geomean(rs), "n": len(rs), "missed": missed}
    goals = []
    for trace, (a, b), op, bound in GOALS:
        entry = results.get(trace)
        if entry is None:
            continue
        r = entry["ratios"]["step_mean"].get(ratio_key(a, b))
        if r is None and (a not in engines or b not in engines):
            continue
        met = None if r is None else (r <= bound if op == "<=" else r >= bound)
        goals.append({"trace": trace, "pair": f"{a}/{b}", "figure": "step_mean",
                      "goal": f"{op} {bound:g}x", "ratio": r, "met": met})
    return {
        "kind": "trace-instructions",
        "python": sys.version.split()[0],
        "method": "callgrind, four worker processes per trace and engine, each one warm-up "
                  "run of the whole trace then N runs of: the whole trace (new engine + every "
                  "step) / only the step sources (base) / the new engine only / the new engine "
                  "+ its first step; figures per run by difference with the base; step_mean = "
                  "(total - new engine) / steps; every run's steps are new source (a comment "
                  "unique to the run); PYTHONHASHSEED=0",
        "runs": runs,
        "engines": list(engines),
        "imports": list(dict.fromkeys(m for tr in selected for m in tr.imports)),
        "traces": results,
        "summary": {"geomeans": geomeans, "goals": goals},
    }
