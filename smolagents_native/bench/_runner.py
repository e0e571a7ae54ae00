"""Run workloads under each engine (one subprocess per workload and engine), collect timings,
outputs and memory, and summarise."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from ._machine import PACKAGE_DIR, header, load_average
from ._workloads import Workload, load_workloads, select_workloads

ENGINE_NAMES = ("cpython", "native", "smolagents", "native-process", "cpython-cached",
                "native-cached", "restrictedpython", "monty")
# Peers: other sandboxes, run when their package is installed (engine -> module).
PEER_ENGINES = {"restrictedpython": "RestrictedPython", "monty": "pydantic_monty"}
# Pairs whose time ratio the results carry (ratios[f"{a}_over_{b}"]): ours against CPython
# compiling each step and against CPython with a cached code object; smolagents against us;
# each peer against CPython.
RATIO_PAIRS = (("native", "cpython"), ("smolagents", "native"),
               ("native-cached", "cpython-cached"), ("restrictedpython", "cpython"),
               ("monty", "cpython"))


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


# What runs when no engine is named: native-process (isolation="process") is opt-in; peers
# run when installed.
DEFAULT_ENGINES = ("cpython", "native", "smolagents", "cpython-cached", "native-cached") + \
    tuple(e for e, module in PEER_ENGINES.items() if _installed(module))
WORKER = Path(__file__).resolve().parent / "_worker.py"
SCHEMA_VERSION = 1

# How long a worker may take to start (imports) before it is declared hung.
STARTUP_TIMEOUT = 120.0

MEMORY_METHODS = {
    "rss": "peak resident-set-size growth (KiB) during the first run, in a fresh process "
           "per engine and workload, from after imports and limit patches: Linux VmHWM "
           "(reset via /proc/self/clear_refs) minus VmRSS before; ru_maxrss growth elsewhere",
    "tracemalloc": "tracemalloc peak (KiB) of one extra run after the timed runs, in the "
                   "same per-engine process (only Python-allocator memory is seen)",
}


@dataclass
class Options:
    engines: tuple[str, ...] = DEFAULT_ENGINES
    repeat: int = 5
    warmup: int = 1
    quick: bool = False
    memory: str | None = "rss"  # "rss", "tracemalloc" or None
    smolagents_cap: float = 30.0  # seconds per run before smolagents is killed and marked
    run_timeout: float = 300.0  # the same for the other engines (a hang, not a comparison)
    budget: float = 60.0  # an engine stops repeating once its measured runs add up to this
    step_calls: int = 2000  # calls per timed batch of a step workload

    @classmethod
    def make(cls, *, quick: bool = False, **overrides: Any) -> Options:
        """Defaults, quick-mode defaults, then every override that is not None."""
        opts = cls(quick=quick)
        if quick:
            opts.repeat, opts.warmup = 1, 0
            # a 2 s cap: the capped programs count at their bound in the headline ("> N"),
            # and the smoke run stays under a minute
            opts.smolagents_cap, opts.budget, opts.step_calls = 2.0, 10.0, 200
        for key, value in overrides.items():
            if value is not None:
                setattr(opts, key, value)
        unknown = [e for e in opts.engines if e not in ENGINE_NAMES]
        if unknown:
            raise ValueError(f"unknown engine(s) {unknown}; choose from {list(ENGINE_NAMES)}")
        if opts.memory not in (None, "rss", "tracemalloc"):
            raise ValueError(f"unknown memory method {opts.memory!r}")
        opts.engines = tuple(e for e in ENGINE_NAMES if e in opts.engines)
        opts.repeat = max(1, int(opts.repeat))
        opts.warmup = max(0, int(opts.warmup))
        return opts


# ---------------------------------------------------------------------------------------------
# Progress on stderr.


class Progress:
    def __init__(self, total: int, stream: IO[str] | None):
        self.total = total
        self.done = 0
        self.stream = stream
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.t0 = time.perf_counter()

    def _write(self, text: str, final: bool) -> None:
        if self.stream is None:
            return
        if self.tty:
            self.stream.write("\r\x1b[K" + text + ("\n" if final else ""))
        elif final:
            self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, workload: str, engine: str, what: str) -> None:
        elapsed = time.perf_counter() - self.t0
        self._write(f"[{self.done + 1}/{self.total}] {workload} / {engine}: {what}  "
                    f"({elapsed:.0f}s)", final=False)

    def finished(self, workload: str, engine: str, result: dict) -> None:
        self.done += 1
        status = result["status"]
        if result.get("min") is not None:
            scale, unit = (1e6, "us/call") if result.get("per_call") else (1e3, "ms")
            status += f" min {result['min'] * scale:.3f} {unit}"
        if self.tty:
            return self.update(workload, engine, status)
        self._write(f"[{self.done}/{self.total}] {workload} / {engine}: {status}", final=True)

    def close(self) -> None:
        if self.tty and self.stream is not None:
            elapsed = time.perf_counter() - self.t0
            self._write(f"{self.done} runs done in {elapsed:.0f}s", final=True)


# ---------------------------------------------------------------------------------------------
# One engine on one workload.


class _Lines:
    """Line reader over a pipe with a deadline per line."""

    def __init__(self, pipe: IO[bytes]):
        self.fd = pipe.fileno()
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.fd, selectors.EVENT_READ)
        self.buf = b""
        self.eof = False

    def readline(self, timeout: float) -> bytes | None:
        """A line; b"" at end of file; None when `timeout` seconds pass first."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf and not self.eof:
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(min(left, 0.5)):
                if time.monotonic() >= deadline:
                    return None
                continue
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.eof = True
            self.buf += chunk
        if b"\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\n")
            return line
        line, self.buf = self.buf, b""
        return line

    def close(self) -> None:
        self.sel.close()


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(PACKAGE_DIR.parent)  # the directory holding smolagents_native/
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _new_result(engine: str, workload: Workload) -> dict:
    return {
        "engine": engine,
        "status": "ok",
        "per_call": workload.mode == "step",
        "times": [],
        "warmup_times": [],
        "min": None,
        "median": None,
        "runs": 0,
        "output": None,
        "memory_kib": None,
        "memory_detail": None,
        "error": None,
        "note": None,
        "wall_seconds": None,
    }


class _Session:
    """One worker process: one engine on one workload."""

    def __init__(self, workload: Workload, engine: str, opts: Options):
        self.workload = workload
        self.engine = engine
        self.opts = opts
        self.result = _new_result(engine, workload)
        self.cap = opts.smolagents_cap if engine == "smolagents" else opts.run_timeout
        self.active = True
        self.spent = 0.0  # seconds of measured runs so far
        self.t0 = time.perf_counter()
        spec = self._spec()
        self.err = tempfile.TemporaryFile()  # noqa: SIM115  # closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), json.dumps(spec)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
            env=_worker_env(),
        )
        self.lines = _Lines(self.proc.stdout)

    def _spec(self) -> dict:
        """What the worker runs (its command-line argument)."""
        workload, opts = self.workload, self.opts
        return {
            "engine": self.engine,
            "source": workload.source,
            "mode": workload.mode,
            "unique_source": workload.unique_source,
            "calls": opts.step_calls if workload.mode == "step" else 1,
            "memory": opts.memory,
            "imports": list(workload.imports),
        }

    # -- reading events

    def _fail(self, status: str, error: str) -> None:
        self.result.update(status=status, error=error)
        self.active = False

    def _next_event(self, timeout: float, what: str) -> dict | None:
        """The next event, or None after marking the session failed (timeout, death)."""
        while True:
            line = self.lines.readline(timeout)
            if line is None:
                self.proc.kill()
                if what == "start":
                    self._fail("timeout", f"worker did not start in {timeout:.0f}s")
                elif self.result["times"]:
                    self.result["note"] = (f"stopped after {len(self.result['times'])} "
                                           f"measured run(s): a run exceeded {timeout:g}s")
                    self.active = False
                else:
                    self._fail("capped" if self.engine == "smolagents" else "timeout",
                               f"a run exceeded {timeout:g}s; killed")
                    # a run takes longer than this: ratios against it are lower bounds
                    self.result["capped_at"] = timeout
                return None
            if line == b"":
                self.proc.wait()
                self.err.seek(0)
                tail = self.err.read().decode("utf-8", "replace")[-1500:]
                self._fail("crashed", f"worker exited with code {self.proc.returncode}: {tail}")
                return None
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "memory":
                self.result["memory_kib"] = event["kib"]
                self.result["memory_detail"] = event.get("detail") or event.get("method")
                if what == "tracemalloc":
                    return event
                continue
            if kind == "error":
                self._fail("unavailable" if event.get("phase") == "import" else "error",
                           f"{event.get('type')}: {event.get('message')}")
                return None
            return event

    def _send(self, command: str) -> bool:
        try:
            self.proc.stdin.write((command + "\n").encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    # -- steps

    def wait_ready(self) -> None:
        event = self._next_event(STARTUP_TIMEOUT, "start")
        if event is not None and event.get("event") == "ready" and event.get("limits"):
            self.result["limits"] = event["limits"]

    def run(self, phase: str) -> None:
        if not self._send(f"run {phase}"):
            self._next_event(1.0, "run")  # collect the reason (error / death)
            if self.active:
                self._fail("crashed", "worker stopped reading commands")
            return
        event = self._next_event(self.cap, "run")
        if event is None or event.get("event") != "run":
            return
        if event.get("output") is not None and self.result["output"] is None:
            self.result["output"] = event["output"]
        if phase == "measure":
            self.result["times"].append(event["seconds"])
            calls = self.opts.step_calls if self.workload.mode == "step" else 1
            self.spent += event["seconds"] * calls
        else:
            self.result["warmup_times"].append(event["seconds"])

    def trace_memory(self) -> None:
        if self._send("tracemalloc"):
            self._next_event(self.cap, "tracemalloc")

    def close(self) -> dict:
        if self.proc.poll() is None:
            self._send("quit")
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.lines.close()
        self.proc.stdout.close()
        self.err.close()
        r = self.result
        if r["status"] in ("ok", "capped", "timeout") and r["times"]:
            r["status"] = "ok"  # a cap after some measured runs keeps them (see note)
            r["min"] = min(r["times"])
            r["median"] = statistics.median(r["times"])
            r["runs"] = len(r["times"])
        elif r["status"] == "ok":
            r.update(status="error", error=r["error"] or "no measured run")
        r["wall_seconds"] = round(time.perf_counter() - self.t0, 3)
        return r


def run_workload(workload: Workload, engines: tuple[str, ...] | list[str], opts: Options,
                 progress: Progress | None = None,
                 session_class: type[_Session] | None = None) -> dict[str, dict]:
    """Run `workload` under each engine, one worker process per engine, alternating the
    engines run by run (warm-ups first). Never raises for engine failures: they are reported
    in the results. `session_class`: a _Session subclass (the traces' runner)."""
    sessions: list[_Session] = []
    try:
        for engine in engines:
            sessions.append((session_class or _Session)(workload, engine, opts))
        for s in sessions:
            if progress is not None:
                progress.update(workload.name, s.engine, "starting")
            s.wait_ready()
        phases = ["warmup"] * opts.warmup + ["measure"] * opts.repeat
        for i, phase in enumerate(phases):
            for s in sessions:
                if not s.active:
                    continue
                if phase == "measure" and s.result["times"] and s.spent > opts.budget:
                    continue  # over its time budget: keep the runs it has
                if progress is not None:
                    progress.update(workload.name, s.engine, f"{phase} run {i + 1}/{len(phases)}")
                s.run(phase)
        if opts.memory == "tracemalloc":
            for s in sessions:
                if s.active:
                    if progress is not None:
                        progress.update(workload.name, s.engine, "tracemalloc run")
                    s.trace_memory()
    finally:
        results = {}
        for s in sessions:
            results[s.engine] = s.close()
            if progress is not None:
                progress.finished(workload.name, s.engine, results[s.engine])
    return results


def run_engine(workload: Workload, engine: str, opts: Options,
               progress: Progress | None = None) -> dict:
    """Run `workload` under one engine (see run_workload)."""
    return run_workload(workload, (engine,), opts, progress)[engine]


# ---------------------------------------------------------------------------------------------
# Comparison and summary.


def _first_difference(expected: str, got: str) -> str:
    exp_lines, got_lines = expected.splitlines(), got.splitlines()
    for i in range(max(len(exp_lines), len(got_lines))):
        a = exp_lines[i] if i < len(exp_lines) else "<missing>"
        b = got_lines[i] if i < len(got_lines) else "<missing>"
        if a != b:
            return f"line {i + 1}: expected {a[:200]!r}, got {b[:200]!r}"
    return "outputs differ only in trailing newlines"


def _ratio(a: dict | None, b: dict | None) -> float | None:
    if not a or not b or a.get("min") is None or b.get("min") is None or b["min"] <= 0:
        return None
    return a["min"] / b["min"]


def mark_outputs(entry: dict) -> None:
    """Set entry["reference"] (CPython when it ran, else the first engine that did) and
    entry["outputs_agree"], and mark every engine whose output differs from the reference's
    as a mismatch (programs and traces alike)."""
    engines = entry["engines"]
    ran = [name for name in ENGINE_NAMES if engines.get(name, {}).get("status") == "ok"]
    reference = "cpython" if "cpython" in ran else (ran[0] if ran else None)
    entry["reference"] = reference
    agree = None
    if reference is not None:
        expected = engines[reference]["output"] or ""
        agree = True
        for name in ran:
            if name == reference:
                continue
            got = engines[name]["output"] or ""
            if got != expected:
                engines[name]["status"] = "mismatch"
                engines[name]["error"] = f"output differs from {reference}: " + \
                    _first_difference(expected, got)
                agree = False
    entry["outputs_agree"] = agree


def compare(entry: dict) -> None:
    """Mark engines whose output differs from the reference (mark_outputs) and fill the
    ratios."""
    mark_outputs(entry)
    engines = entry["engines"]
    entry["ratios"] = {
        ratio_key(a, b): _ratio(engines.get(a), engines.get(b)) for a, b in RATIO_PAIRS
    }
    # An engine stopped at its cap before one run ended took longer than the cap: against an
    # engine that ran, the ratio is at least cap / that engine's time (shown as "> N x").
    entry["ratio_bounds"] = {
        ratio_key(a, b): engines[a]["capped_at"] / engines[b]["min"]
        for a, b in RATIO_PAIRS
        if engines.get(a, {}).get("capped_at") and engines.get(a, {}).get("min") is None
        and engines.get(b, {}).get("status") == "ok" and (engines[b].get("min") or 0) > 0
    }


def ratio_key(a: str, b: str) -> str:
    return f"{a.replace('-', '_')}_over_{b.replace('-', '_')}"


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _both_ok(entry: dict, a: str, b: str) -> bool:
    return all(entry["engines"].get(e, {}).get("status") == "ok" for e in (a, b))


def summarise(entries: list[dict], opts: Options) -> dict:
    programs = [e for e in entries if e["mode"] == "program"]
    nc = [(e["name"], e["ratios"]["native_over_cpython"]) for e in programs
          if _both_ok(e, "native", "cpython")]
    sn = [(e["name"], e["ratios"]["smolagents_over_native"]) for e in programs
          if _both_ok(e, "smolagents", "native")]
    geomeans = {}
    for a, b in RATIO_PAIRS:
        key = ratio_key(a, b)
        rs = [e["ratios"][key] for e in programs if _both_ok(e, a, b)]
        bounds = [e["ratio_bounds"][key] for e in programs
                  if key in e.get("ratio_bounds", {})]
        # programs the first engine did not finish for another reason (refused, crashed,
        # printed something else) while the second ran: named next to the headline
        missed = {e["name"]: e["engines"][a]["status"] for e in programs
                  if e["engines"].get(b, {}).get("status") == "ok"
                  and e["engines"].get(a, {}).get("status") not in (None, "ok", "unavailable")
                  and key not in e.get("ratio_bounds", {})}
        if rs or bounds:
            # "geomean"/"n": the programs both finished; "at_least"/"n_all": with the capped
            # ones counted at their bound, a lower bound of the geomean over all of them
            geomeans[key] = {"geomean": geomean(rs), "n": len(rs),
                             "at_least": geomean(rs + bounds), "n_all": len(rs) + len(bounds),
                             "bounds": len(bounds), "missed": missed}
    summary: dict[str, Any] = {
        "geomeans": geomeans,
        "geomean_native_over_cpython": geomean([r for _, r in nc]),
        "geomean_native_over_cpython_n": len(nc),
        "geomean_smolagents_over_native": geomean([r for _, r in sn]),
        "geomean_smolagents_over_native_n": len(sn),
        "worst_native_over_cpython": None,
        "best_native_over_cpython": None,
        "steps_us_per_call": {},
        "memory_kib": {},
        "problems": [],
    }
    if nc:
        worst = max(nc, key=lambda kv: kv[1])
        best = min(nc, key=lambda kv: kv[1])
        summary["worst_native_over_cpython"] = {"workload": worst[0], "ratio": worst[1]}
        summary["best_native_over_cpython"] = {"workload": best[0], "ratio": best[1]}
    for e in entries:
        if e["mode"] == "step":
            summary["steps_us_per_call"][e["name"]] = {
                name: (r["min"] * 1e6 if r.get("min") is not None else None)
                for name, r in e["engines"].items()
            }
    for engine in opts.engines:
        kib = [e["engines"][engine]["memory_kib"] for e in programs
               if e["engines"].get(engine, {}).get("memory_kib") is not None]
        if kib:
            summary["memory_kib"][engine] = {"median": statistics.median(kib), "max": max(kib),
                                             "sum": sum(kib)}
    for e in entries:
        for name, r in e["engines"].items():
            if r["status"] != "ok" or r.get("note"):
                summary["problems"].append({"workload": e["name"], "engine": name,
                                            "status": r["status"],
                                            "message": r.get("error") or r.get("note")})
    return summary


def _limits_report(entries: list[dict]) -> dict:
    limits: dict[str, Any] = {}
    for e in entries:
        for name, r in e["engines"].items():
            if r.get("limits") and name not in limits:
                limits[name] = r["limits"]
    return limits


def run_benchmark(
    workloads: list[str] | str | None = None,
    *,
    engines: list[str] | tuple[str, ...] | str | None = None,
    repeat: int | None = None,
    warmup: int | None = None,
    quick: bool = False,
    memory: str | None | bool = True,
    smolagents_cap: float | None = None,
    run_timeout: float | None = None,
    budget: float | None = None,
    step_calls: int | None = None,
    progress: IO[str] | None | bool = None,
    directory: str | Path | None = None,
) -> dict:
    """Run the benchmark and return its results (the JSON document).

    `workloads`: names or substrings (list or comma-separated), None for all, of the
    built-in corpus or of `directory` (its ``*.py`` files, laid out as ``workloads/``). `engines`:
    subset of ENGINE_NAMES (default DEFAULT_ENGINES). `memory`: True/"rss", "tracemalloc", or
    False/None to skip. `progress`: a stream for the progress line (default: stderr; False:
    none). Engine failures are reported in the result, never raised; a bad option raises
    ValueError.
    """
    if isinstance(engines, str):
        engines = [e.strip() for e in engines.split(",") if e.strip()]
    if memory is True:
        memory = "rss"
    elif memory is False:
        memory = None
    opts = Options.make(
        quick=quick, engines=tuple(engines) if engines else None, repeat=repeat,
        warmup=warmup, smolagents_cap=smolagents_cap, run_timeout=run_timeout, budget=budget,
        step_calls=step_calls,
    )
    if memory not in (None, "rss", "tracemalloc"):
        raise ValueError(f"unknown memory method {memory!r}")
    opts.memory = memory
    selected = select_workloads(load_workloads(directory), workloads)
    head = header()
    stream = sys.stderr if progress is None or progress is True else (progress or None)
    prog = Progress(len(selected) * len(opts.engines), stream)
    entries = []
    try:
        for wl in selected:
            entry = wl.to_dict()
            entry["engines"] = {}
            entry["engines"] = run_workload(wl, opts.engines, opts, prog)
            compare(entry)
            entries.append(entry)
    finally:
        prog.close()
    head["machine"]["load_average_at_end"] = load_average()
    return {
        "schema": SCHEMA_VERSION,
        "header": head,
        "options": asdict(opts),
        "limits": _limits_report(entries),
        "memory_method": MEMORY_METHODS.get(opts.memory) if opts.memory else None,
        "timing": ("each timed run is one step on a fresh engine: CPython exec of the source "
                   "string (compile included), or a new LocalPythonExecutor (creation not "
                   "timed) called once; min and median over the measured runs, after warm-up "
                   "runs; one process per engine, the engines alternating run by run. Step "
                   "workloads: time per call over a batch of calls on one engine, after one "
                   "untimed call."),
        "workloads": entries,
        "summary": summarise(entries, opts),
    }
