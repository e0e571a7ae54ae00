"""Agent traces (``--traces``): each engine runs whole traces (``traces/``), step after step
as new source on a new engine per run, in its own worker process (the `_Session` machinery of
the program workloads: engines alternating run by run, smolagents killed at its cap).

Figures per trace and engine, min and median over the measured runs:

* ``total``: a new engine (executor, globals dict, session) plus every step;
* ``step_mean``: the steps' sum divided by their number (creation not counted);
* ``first``: a new engine plus its first step;
* ``create``: the new engine alone;
* ``steps``: each step on its own.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from ._machine import header, load_average
from ._runner import (
    PEER_ENGINES,
    Options,
    Progress,
    _installed,
    _Session,
    geomean,
    mark_outputs,
    ratio_key,
    run_workload,
)
from ._traces import Trace, load_traces, select_traces

TRACE_ENGINES = ("cpython", "native", "smolagents", "restrictedpython", "monty",
                 "native-process")
DEFAULT_TRACE_ENGINES = ("cpython", "native", "smolagents") + \
    tuple(e for e, module in PEER_ENGINES.items() if _installed(module))
FIGURES = ("total", "step_mean", "first", "create")
# ratio pairs: every engine against CPython, smolagents against us
TRACE_PAIRS = (("native", "cpython"), ("smolagents", "native"), ("smolagents", "cpython"),
               ("restrictedpython", "cpython"), ("monty", "cpython"),
               ("native-process", "cpython"))
# The goals, per new step: (trace, pair, "<=" or ">=", bound).
GOALS = (("long_steps", ("native", "cpython"), "<=", 1.0),
         ("long_steps", ("smolagents", "native"), ">=", 10.0),
         ("tiny_steps", ("native", "cpython"), "<=", 1.0))
GOAL_TRACES = ("long_steps", "tiny_steps")
SCHEMA_VERSION = 1


class _TraceSession(_Session):
    """One worker process: one engine on one trace."""

    def __init__(self, trace: Trace, engine: str, opts: Options):
        super().__init__(trace, engine, opts)  # type: ignore[arg-type]
        self.result.update(create_times=[], step_times=[], outputs=None)

    def _spec(self) -> dict:
        return {"engine": self.engine, "mode": "trace", "steps": list(self.workload.steps),
                "imports": list(self.workload.imports), "memory": None}

    def run(self, phase: str) -> None:
        if not self._send(f"run {phase}"):
            self._next_event(1.0, "run")
            if self.active:
                self._fail("crashed", "worker stopped reading commands")
            return
        event = self._next_event(self.cap, "run")
        if event is None or event.get("event") != "run":
            return
        outputs = event.get("output")
        if outputs is not None and self.result["output"] is None:
            self.result["outputs"] = outputs
            # one string for the comparison: a line per step boundary
            self.result["output"] = "".join(f"--- step {i + 1}\n{out}"
                                            for i, out in enumerate(outputs))
        if phase == "measure":
            self.result["times"].append(event["seconds"])
            self.result["create_times"].append(event["create"])
            self.result["step_times"].append(event["steps"])
            self.spent += event["seconds"]
        else:
            self.result["warmup_times"].append(event["seconds"])

    def close(self) -> dict:
        r = super().close()
        r["figures"] = figures(r)
        return r


def figures(r: dict) -> dict[str, dict]:
    """min / median of each figure over the measured runs (seconds)."""
    def mm(values: list[float]) -> dict:
        if not values:
            return {"min": None, "median": None}
        return {"min": min(values), "median": statistics.median(values)}

    runs = [(c, s) for c, s in zip(r.get("create_times", []), r.get("step_times", []))
            if s]
    out = {
        "total": mm([c + sum(s) for c, s in runs]),
        "step_mean": mm([sum(s) / len(s) for _, s in runs]),
        "first": mm([c + s[0] for c, s in runs]),
        "create": mm([c for c, _ in runs]),
    }
    n = max((len(s) for _, s in runs), default=0)
    out["steps"] = [mm([s[i] for _, s in runs if len(s) > i]) for i in range(n)]
    return out


def compare_trace(entry: dict) -> None:
    """Mark engines whose printed output (step by step) differs from CPython's, and fill the
    ratios of each figure; a capped engine's total gets its lower bound ("> N")."""
    mark_outputs(entry)
    engines = entry["engines"]

    def ok(e: str) -> bool:
        return engines.get(e, {}).get("status") == "ok"

    ratios: dict[str, dict[str, float | None]] = {f: {} for f in FIGURES}
    ratios["steps"] = {}
    for a, b in TRACE_PAIRS:
        key = ratio_key(a, b)
        for f in FIGURES:
            fa = engines.get(a, {}).get("figures", {}).get(f, {}).get("min")
            fb = engines.get(b, {}).get("figures", {}).get(f, {}).get("min")
            ratios[f][key] = fa / fb if ok(a) and ok(b) and fa and fb else None
        if ok(a) and ok(b):
            sa = engines[a]["figures"]["steps"]
            sb = engines[b]["figures"]["steps"]
            ratios["steps"][key] = [x["min"] / y["min"] if x["min"] and y["min"] else None
                                    for x, y in zip(sa, sb)]
    entry["ratios"] = ratios
    entry["ratio_bounds"] = {
        ratio_key(a, b): engines[a]["capped_at"] / engines[b]["figures"]["total"]["min"]
        for a, b in TRACE_PAIRS
        if engines.get(a, {}).get("capped_at") and engines.get(a, {}).get("min") is None
        and ok(b) and (engines[b]["figures"]["total"]["min"] or 0) > 0
    }


def summarise_traces(entries: list[dict], engines: tuple[str, ...]) -> dict:
    """Geomeans over the traces per figure and pair. The total's never leaves a trace out: a
    capped engine counts at its bound ("at_least", "n_all"); traces an engine failed for
    another reason are named ("missed")."""
    geomeans: dict[str, dict] = {f: {} for f in FIGURES}
    for a, b in TRACE_PAIRS:
        if a not in engines or b not in engines:
            continue
        key = ratio_key(a, b)
        for f in FIGURES:
            rs = [e["ratios"][f][key] for e in entries if e["ratios"][f].get(key)]
            bounds = ([e["ratio_bounds"][key] for e in entries if key in e["ratio_bounds"]]
                      if f == "total" else [])
            missed = {e["name"]: e["engines"][a]["status"] for e in entries
                      if e["engines"].get(b, {}).get("status") == "ok"
                      and e["engines"].get(a, {}).get("status") not in (None, "ok")
                      and not (f == "total" and key in e["ratio_bounds"])}
            if rs or bounds or missed:
                geomeans[f][key] = {"geomean": geomean(rs), "n": len(rs),
                                    "at_least": geomean(rs + bounds),
                                    "n_all": len(rs) + len(bounds), "bounds": len(bounds),
                                    "missed": missed}
    goals = []
    by_name = {e["name"]: e for e in entries}
    for trace, (a, b), op, bound in GOALS:
        e = by_name.get(trace)
        if e is None or a not in engines or b not in engines:
            continue
        r = e["ratios"]["step_mean"].get(ratio_key(a, b))
        met = None if r is None else (r <= bound if op == "<=" else r >= bound)
        goals.append({"trace": trace, "pair": f"{a}/{b}", "figure": "step_mean",
                      "goal": f"{op} {bound:g}x", "ratio": r, "met": met})
    problems = []
    for e in entries:
        for name, r in e["engines"].items():
            if r["status"] != "ok" or r.get("note"):
                problems.append({"workload": e["name"], "engine": name, "status": r["status"],
                                 "message": r.get("error") or r.get("note")})
    return {"geomeans": geomeans, "goals": goals, "problems": problems}


def run_traces(
    traces: list[str] | str | None = None,
    *,
    engines: list[str] | tuple[str, ...] | str | None = None,
    repeat: int | None = None,
    warmup: int | None = None,
    quick: bool = False,
    smolagents_cap: float | None = None,
    run_timeout: float | None = None,
    budget: float | None = None,
    progress: IO[str] | None | bool = None,
    directory: str | Path | None = None,
) -> dict[str, Any]:
    """Run the traces under each engine and return the results (the JSON document): the
    built-in traces, or those of `directory`."""
    if isinstance(engines, str):
        engines = [e.strip() for e in engines.split(",") if e.strip()]
    engines = tuple(engines or DEFAULT_TRACE_ENGINES)
    bad = [e for e in engines if e not in TRACE_ENGINES]
    if bad:
        raise ValueError(f"engine(s) {bad} do not run traces; choose from {list(TRACE_ENGINES)}")
    if repeat is None:
        repeat = 3 if quick else 10
    opts = Options.make(quick=quick, engines=engines, repeat=repeat, warmup=warmup,
                        smolagents_cap=smolagents_cap, run_timeout=run_timeout, budget=budget)
    opts.memory = None
    selected = select_traces(load_traces(directory), traces)
    head = header()
    stream = sys.stderr if progress is None or progress is True else (progress or None)
    prog = Progress(len(selected) * len(opts.engines), stream)
    entries = [dict(tr.to_dict(), engines={}) for tr in selected]
    # native-process after all the others, not in turn with them: a sandbox's end and the next
    # one's start (forks, teardown) go on in other processes after its run, and would land in
    # the next engine's runs on a machine with few cores
    groups = ([e for e in opts.engines if e != "native-process"],
              [e for e in opts.engines if e == "native-process"])
    try:
        for group in groups:
            for tr, entry in zip(selected, entries):
                if group:
                    entry["engines"].update(run_workload(
                        tr, group, opts, prog,  # type: ignore[arg-type]
                        session_class=_TraceSession))
        for entry in entries:
            compare_trace(entry)
    finally:
        prog.close()
    head["machine"]["load_average_at_end"] = load_average()
    return {
        "schema": SCHEMA_VERSION,
        "kind": "traces",
        "header": head,
        "options": asdict(opts),
        "imports": list(dict.fromkeys(m for tr in selected for m in tr.imports)),
        "timing": ("a run is the whole trace on a new engine (a globals dict, a new "
                   "LocalPythonExecutor with send_tools({}), a RestrictedPython globals dict, "
                   "a Monty session checked out of its pool), each step timed on its own as new "
                   "source (a comment unique to the run is appended to every step); min and "
                   "median over the measured runs, after warm-up runs, one process per engine, "
                   "the engines alternating run by run. total = new engine + all steps; "
                   "step_mean = the steps' sum / their number; first = new engine + first step"),
        "traces": entries,
        "summary": summarise_traces(entries, opts.engines),
    }
