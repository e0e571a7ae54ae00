"""One benchmark engine on one workload, in its own process.

Run by the harness as a script (``python _worker.py SPEC_JSON``), never imported by it: the
process imports only what its engine needs, so its peak-memory reading is that engine's alone,
and the parent can kill it when a run goes over its time cap.

Commands, one per line on standard input: ``run warmup``, ``run measure`` (one run each),
``run setup`` (a run without its timed part: the engine and the code are made, nothing is
timed), ``tracemalloc`` (one extra run under tracemalloc), ``quit``. A trace (``"mode":
"trace"``, ``"steps": [source, ...]``) also takes ``run create`` (only the new engine) and
``run first`` (the new engine and its first step), for the instruction counts; its ``setup``
run makes the step sources only. The parent keeps one worker per
engine alive and sends runs round-robin, so a burst of load on the machine hits every engine
alike instead of one engine's whole series.

Events: one JSON object per line on the original standard output (the code's own prints are
captured by the engines, and anything else written to ``sys.stdout`` is discarded):

    {"event": "ready", "limits": {...}}                      after imports and limit patches
    {"event": "run", "phase": "warmup"|"measure", "seconds": s, "output": "..."}  per run
    {"event": "memory", "method": "rss"|"tracemalloc", "detail": ..., "kib": n}
    {"event": "error", "phase": ..., "type": "...", "message": "..."}   the engine raised
    {"event": "done"}

For a program workload a run is one step on a fresh engine (fresh globals / a new executor;
creating it is not timed). For a step workload a run is a batch of ``calls`` steps on one
engine, after one untimed step on it; ``seconds`` is the time per call.

For a trace a run is the whole trace on a new engine, as an agent runs it: the engine is
created (timed: ``create``), then each step runs as new source (timed one by one: ``steps``);
``seconds`` is their sum, ``output`` the list of each step's printed output. Every run appends
a comment unique to the run (``# run N``) to every step's source, so no cache keyed by source
text (ours is per executor, and each run makes a new one) can serve a step of a later run.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import io
import json
import os
import resource
import sys
import time
import traceback

# Run as a script: drop this directory from sys.path so its files shadow nothing.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)

# Large enough never to be reached, still counted: the engines keep their bookkeeping.
UNLIMITED = 10**15

_proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")


def emit(**event):
    _proto.write(json.dumps(event) + "\n")
    _proto.flush()


class CPythonEngine:
    """CPython `exec` of the source string (compiled on every call, as an agent step would
    be), a fresh globals dict per program run, `print` captured with redirect_stdout."""

    limits: dict = {}
    imports: tuple = ()  # modules authorized besides the base ones (the others' engines)

    def new(self):
        return {"__name__": "__main__", "__builtins__": builtins}

    def step(self, session, code):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(code, session)
        return buf.getvalue()


class _ExecutorEngine:
    module = ""
    imports: tuple = ()

    def __init__(self):
        mod = __import__(self.module, fromlist=["LocalPythonExecutor"])
        self.limits = {}
        for name in ("MAX_OPERATIONS", "MAX_WHILE_ITERATIONS"):
            if hasattr(mod, name):
                self.limits[name] = {"was": getattr(mod, name), "now": UNLIMITED}
                setattr(mod, name, UNLIMITED)
        self.limits["timeout_seconds"] = {"was": getattr(mod, "MAX_EXECUTION_TIME_SECONDS", None),
                                          "now": None}
        self.cls = mod.LocalPythonExecutor

    def new(self):
        ex = self.cls(additional_authorized_imports=list(self.imports), timeout_seconds=None)
        ex.send_tools({})
        return ex

    def step(self, session, code):
        return session(code).logs


class NativeEngine(_ExecutorEngine):
    """smolagents_native.LocalPythonExecutor; the shim reads its limit globals at call time."""

    module = "smolagents_native.executor"


class NativeProcessEngine(_ExecutorEngine):
    """smolagents_native.LocalPythonExecutor(isolation="process"): each step is a round trip
    to a sandboxed worker. The worker reads its own limit globals, so the budgets are passed
    as arguments; one executor (one worker) at a time."""

    module = "smolagents_native.executor"

    def __init__(self):
        super().__init__()
        self.session = None

    def release(self):
        """Close the previous executor's worker (before a trace's timed creation)."""
        if self.session is not None:
            self.session.close()
            self.session = None

    def new(self):
        self.release()
        self.session = self.cls(additional_authorized_imports=list(self.imports),
                                timeout_seconds=None,
                                max_operations=UNLIMITED, max_while_iterations=UNLIMITED,
                                isolation="process")
        self.session.send_tools({})
        return self.session


class CPythonCachedEngine(CPythonEngine):
    """CPython `exec` of a code object compiled once per source text: what an embedder that
    caches compiled steps pays (a step workload with a unique source per call compiles every
    call, as `cpython` does)."""

    def __init__(self):
        self.codes = {}

    def step(self, session, code):
        compiled = self.codes.get(code)
        if compiled is None:
            compiled = self.codes[code] = compile(code, "<step>", "exec")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compiled, session)
        return buf.getvalue()


class NativeCachedEngine(NativeEngine):
    """smolagents_native with its lowering cache: one executor for the whole series, its
    state replaced by fresh globals for each program run, so a repeated source is lowered
    once (the `native` engine makes a new executor, hence lowers, for every run)."""

    def __init__(self):
        super().__init__()
        self.executor = None

    def new(self):
        if self.executor is None:
            self.executor = super().new()
        else:
            self.executor.state = {"__name__": "__main__"}
        return self.executor


# The modules smolagents authorizes by default (BASE_BUILTIN_MODULES): what the other engines
# may import in these workloads, and what a RestrictedPython user would allow.
BASE_MODULES = ("collections", "datetime", "itertools", "math", "queue", "random", "re",
                "stat", "statistics", "time", "unicodedata")


class RestrictedPythonEngine:
    """RestrictedPython (`compile_restricted` of each step, then `exec`) with the guards its
    documentation has a user write: safe + limited + utility builtins, `safer_getattr`,
    guarded item access / iteration / unpacking, the full write guard, in-place operators,
    a print collector, and an import hook allowing the same base modules. Programs it refuses
    are reported as errors."""

    limits: dict = {}
    imports: tuple = ()

    def __init__(self):
        import operator  # noqa: PLC0415

        from RestrictedPython import (  # noqa: PLC0415
            compile_restricted,
            limited_builtins,
            safe_builtins,
            utility_builtins,
        )
        from RestrictedPython.Eval import (  # noqa: PLC0415
            default_guarded_getitem,
            default_guarded_getiter,
        )
        from RestrictedPython.Guards import (  # noqa: PLC0415
            full_write_guard,
            guarded_iter_unpack_sequence,
            guarded_unpack_sequence,
            safer_getattr,
        )

        self.compile = compile_restricted
        inplace = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
                   "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod,
                   "**=": operator.ipow, "<<=": operator.ilshift, ">>=": operator.irshift,
                   "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
                   "@=": operator.imatmul}

        def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
            top = name.split(".")[0]
            if level != 0 or (top not in BASE_MODULES and top not in self.imports):
                raise ImportError(f"import of {name!r} is not allowed")
            return __import__(name, globals, locals, fromlist, level)

        b = dict(safe_builtins)
        b.update(limited_builtins)
        b.update(utility_builtins)
        # common builtins RestrictedPython leaves to the user, as a user would add them
        for name in ("sum", "min", "max", "enumerate", "map", "filter", "any", "all", "dict",
                     "sorted", "zip",
                     "list", "set", "iter", "next", "reversed", "object", "hasattr",
                     "frozenset", "isinstance", "type", "super", "staticmethod",
                     "classmethod", "property"):
            b.setdefault(name, getattr(builtins, name))
        b["getattr"] = safer_getattr
        b["__import__"] = guarded_import
        self.base = {
            "__builtins__": b,
            "__metaclass__": type,
            "__name__": "__main__",
            "_getattr_": safer_getattr,
            "_getitem_": default_guarded_getitem,
            "_getiter_": default_guarded_getiter,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_write_": full_write_guard,
            "_inplacevar_": lambda op, x, y: inplace[op](x, y),
            "_apply_": lambda f, *a, **kw: f(*a, **kw),
        }

    def new(self):
        return dict(self.base)

    def step(self, session, code):
        out = io.StringIO()

        class Printer:
            def __init__(self, _getattr=None):
                pass

            def _call_print(self, *objects, **kwargs):
                kwargs.setdefault("file", out)
                print(*objects, **kwargs)

            def __call__(self):
                return out.getvalue()

        session["_print_"] = Printer
        exec(self.compile(code, "<step>", "exec"), session)
        return out.getvalue()


class MontyEngine:
    """pydantic-monty: a pool of `monty` worker processes; a run is one REPL session checked
    out of the pool (not timed) and fed the step (a round trip to the worker). Workloads that
    import a module Monty does not provide are reported as errors."""

    limits: dict = {}
    imports: tuple = ()

    def __init__(self):
        import pydantic_monty  # noqa: PLC0415

        self.pool = pydantic_monty.Monty()
        self.pool.__enter__()
        self.session = None

    def release(self):
        """Return the previous session (before a trace's timed creation)."""
        if self.session is not None:
            self.session.__exit__(None, None, None)
            self.session = None

    def new(self):
        self.release()
        self.session = self.pool.checkout()
        self.session.__enter__()
        return self.session

    def step(self, session, code):
        out = []
        session.feed_run(code, print_callback=lambda _stream, text: out.append(text))
        return "".join(out)


class SmolagentsEngine(_ExecutorEngine):
    """smolagents' own LocalPythonExecutor; its limit globals are read at call time too."""

    module = "smolagents.local_python_executor"


ENGINES = {"cpython": CPythonEngine, "native": NativeEngine, "smolagents": SmolagentsEngine,
           "native-process": NativeProcessEngine, "cpython-cached": CPythonCachedEngine,
           "native-cached": NativeCachedEngine, "restrictedpython": RestrictedPythonEngine,
           "monty": MontyEngine}


def maxrss_kib() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss // 1024 if sys.platform == "darwin" else rss  # bytes on macOS, KiB on Linux


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


class PeakRSS:
    """Peak resident set size growth over a region.

    Linux: the peak (VmHWM) is reset to the current RSS through /proc/self/clear_refs, so the
    reading is VmHWM after minus VmRSS before. Otherwise ru_maxrss after minus before; note
    that on Linux ru_maxrss starts at the spawning process's peak (it survives execve), which
    hides growth below that, hence the reset when possible."""

    def start(self) -> None:
        self.method = "ru_maxrss"
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
            base = _status_kib("VmRSS")
            if base is not None and _status_kib("VmHWM") is not None:
                self.method, self.base = "VmHWM", base
                return
        except OSError:
            pass
        self.base = maxrss_kib()

    def growth_kib(self) -> int:
        peak = _status_kib("VmHWM") if self.method == "VmHWM" else maxrss_kib()
        return max(0, (peak or 0) - self.base)


def main() -> int:
    spec = json.loads(sys.argv[1])
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115  # stray writes must not corrupt the protocol
    engine = None
    for attempt in range(3):
        try:
            engine = ENGINES[spec["engine"]]()
            break
        except ImportError as e:  # not installed, or an extension being rebuilt right now
            error = e
            if spec["engine"] != "native" or attempt == 2:
                break
            time.sleep(2.0)
        except Exception as e:
            error = e
            break
    if engine is None:
        emit(event="error", phase="import", type=type(error).__name__,
             message=str(error)[:2000])
        return 0
    engine.imports = tuple(spec.get("imports") or ())
    if spec["mode"] == "trace":
        return trace_main(engine, spec)
    source = spec["source"]
    step_mode = spec["mode"] == "step"
    calls = max(1, int(spec.get("calls", 1)))
    unique = bool(spec.get("unique_source"))
    memory = spec.get("memory")  # None, "rss" or "tracemalloc"
    counter = [0]

    def code_for_call():
        if not unique:
            return source
        counter[0] += 1
        return f"{source}# call {counter[0]}\n"

    def one_run(timed=True):
        """Return (seconds, output of the run's first step). With timed=False, everything a
        run does except its timed part (the instruction-count mode subtracts such runs)."""
        gc.collect()
        if step_mode:
            session = engine.new()
            engine.step(session, code_for_call())  # the executor's first step: not timed
            codes = [code_for_call() for _ in range(calls)]
            if not timed:
                return 0.0, None
            step = engine.step
            t0 = time.perf_counter()
            first = step(session, codes[0])
            for code in codes[1:]:
                step(session, code)
            return (time.perf_counter() - t0) / calls, first
        session = engine.new()
        code = code_for_call()
        if not timed:
            return 0.0, None
        t0 = time.perf_counter()
        out = engine.step(session, code)
        return time.perf_counter() - t0, out

    emit(event="ready", limits=engine.limits, pid=os.getpid())
    gc.collect()
    peak = PeakRSS()
    if memory == "rss":
        peak.start()
    first = True
    while True:
        command = sys.stdin.readline().split()
        if not command or command[0] == "quit":
            break
        if command[0] == "run":
            phase = command[1] if len(command) > 1 else "measure"
            try:
                seconds, output = one_run(timed=phase != "setup")
            except BaseException as e:  # report, never crash: the harness marks the engine
                msg = str(e) or traceback.format_exc(limit=3)
                emit(event="error", phase=phase, type=type(e).__name__, message=msg[:2000])
                return 0
            if first and memory == "rss":
                emit(event="memory", method="rss", detail=peak.method, kib=peak.growth_kib())
            emit(event="run", phase=phase, seconds=seconds, output=output if first else None)
            first = first and phase == "setup"
        elif command[0] == "tracemalloc":
            import tracemalloc  # noqa: PLC0415

            gc.collect()
            tracemalloc.start()
            try:
                one_run()
                traced_peak = tracemalloc.get_traced_memory()[1]
            except BaseException as e:
                emit(event="error", phase="tracemalloc", type=type(e).__name__,
                     message=str(e)[:2000])
                return 0
            finally:
                tracemalloc.stop()
            emit(event="memory", method="tracemalloc", detail="tracemalloc",
                 kib=traced_peak // 1024)
    emit(event="done")
    return 0


def trace_main(engine, spec) -> int:
    """The command loop for a trace (see the module's docstring)."""
    steps = spec["steps"]
    counter = [0]
    where = [0]  # the step running (1-based; 0: creating the engine)

    def one_run(phase):
        counter[0] += 1
        where[0] = 0
        tag = f"# run {counter[0]}\n"  # unique per run: no source-keyed cache can hit
        codes = [step + tag for step in steps]
        release = getattr(engine, "release", None)
        if release is not None:
            release()  # the previous run's session ends outside the timed part
        gc.collect()
        if phase == "setup":
            return 0.0, None, [], None
        perf = time.perf_counter
        t0 = perf()
        session = engine.new()
        create = perf() - t0
        if phase == "create":
            return create, create, [], None
        if phase == "first":
            codes = codes[:1]
        times, outputs = [], []
        step = engine.step
        for i, code in enumerate(codes):
            where[0] = i + 1
            t0 = perf()
            out = step(session, code)
            times.append(perf() - t0)
            outputs.append(out)
        return create + sum(times), create, times, outputs

    emit(event="ready", limits=engine.limits, pid=os.getpid())
    first = True
    while True:
        command = sys.stdin.readline().split()
        if not command or command[0] == "quit":
            break
        if command[0] == "run":
            phase = command[1] if len(command) > 1 else "measure"
            try:
                seconds, create, times, outputs = one_run(phase)
            except BaseException as e:  # report, never crash: the harness marks the engine
                msg = str(e) or traceback.format_exc(limit=3)
                where_text = f"step {where[0]}" if where[0] else "creating the engine"
                emit(event="error", phase=phase, type=type(e).__name__,
                     message=f"{where_text}: {msg}"[:2000], step=where[0])
                return 0
            keep = first and outputs is not None and phase in ("warmup", "measure")
            emit(event="run", phase=phase, seconds=seconds, create=create, steps=times,
                 output=outputs if keep else None)
            first = first and not keep
    emit(event="done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
