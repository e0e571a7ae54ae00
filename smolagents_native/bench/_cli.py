"""Command line: ``python -m smolagents_native.bench [options]``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._report import print_report, write_json, write_plot
from ._runner import DEFAULT_ENGINES, ENGINE_NAMES, run_benchmark
from ._workloads import load_workloads


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m smolagents_native.bench",
        description="Time agent-style workloads under CPython exec, smolagents_native and "
                    "smolagents' LocalPythonExecutor; check that their printed outputs agree.",
    )
    p.add_argument("--workloads", metavar="NAME,...",
                   help="comma-separated names or substrings (default: all; see --list)")
    p.add_argument("--engines", metavar="ENGINE,...", default=None,
                   help=f"subset of {','.join(ENGINE_NAMES)} (default: "
                        f"{','.join(DEFAULT_ENGINES)}; restrictedpython and monty when "
                        "installed; native-process is opt-in)")
    p.add_argument("--repeat", type=int, metavar="N",
                   help="measured runs per engine and workload (default 5; quick: 1)")
    p.add_argument("--warmup", type=int, metavar="N",
                   help="unmeasured runs first (default 1; quick: 0)")
    p.add_argument("--quick", action="store_true",
                   help="smoke mode (under a minute): 1 run, no warm-up, smolagents cap 2s, 200-call steps")
    p.add_argument("--smolagents-cap", type=float, metavar="SECONDS",
                   help="kill smolagents when one run exceeds this and mark it capped "
                        "(default 30; quick: 2)")
    p.add_argument("--run-timeout", type=float, metavar="SECONDS",
                   help="the same for cpython and native, to survive a hang (default 300)")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help="an engine stops repeating once its measured runs add up to this "
                        "(default 60; at least one run is kept)")
    p.add_argument("--step-calls", type=int, metavar="N",
                   help="calls per timed batch of a step workload (default 2000; quick: 200)")
    p.add_argument("--no-memory", action="store_true", help="do not report peak memory")
    p.add_argument("--memory-method", choices=["rss", "tracemalloc"], default="rss",
                   help="rss (default): peak resident-set-size growth during the first run "
                        "(Linux VmHWM, reset first; ru_maxrss elsewhere); tracemalloc: peak of "
                        "one extra traced run")
    p.add_argument("--json", metavar="PATH", default="bench-results.json",
                   help="where to write the results (default ./bench-results.json; '-' for none)")
    p.add_argument("--plot", metavar="PATH.png", help="bar chart of the ratios (matplotlib)")
    p.add_argument("--plain", action="store_true", help="plain-text table even if rich exists")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if cpython or native did not run a workload cleanly (mismatch, "
                        "error, crash, timeout); smolagents' failures and all times never "
                        "affect the exit code")
    p.add_argument("--label", metavar="TEXT",
                   help="free text recorded in the header (e.g. which build this is)")
    p.add_argument("--list", action="store_true", help="list the workloads and exit")
    p.add_argument("--dir", metavar="DIR",
                   help="the workloads (with --traces, the traces) are DIR's *.py files "
                        "instead of the built-in ones: programs of your own, laid out as "
                        "the package's workloads/ and traces/ (docs/benchmarks.md, "
                        "*Your own programs*); --workloads / --traces then select among them")
    p.add_argument("--traces", metavar="NAME,...", nargs="?", const="",
                   help="agent traces instead of programs (traces/: steps of new source, state "
                        "carried between them): every trace, or those named (substrings); "
                        "engines cpython,native,smolagents and the installed peers "
                        "(native-process on request); with --instructions, counted by "
                        "callgrind (with --quick: long_steps and tiny_steps only); --list "
                        "with it lists the traces")
    g = p.add_argument_group(
        "instruction counts",
        "count instructions with valgrind's callgrind instead of timing (repeatable on a "
        "noisy machine); engines: cpython,native (default), cpython-cached, native-cached, "
        "restrictedpython, smolagents")
    g.add_argument("--instructions", action="store_true",
                   help="instruction-count mode; with --quick only CI's smoke workloads")
    g.add_argument("--baseline", metavar="PATH", nargs="?", const="default",
                   help="compare native/CPython instruction ratios with this file (default: "
                        "the repository's file for this CPython version); exit 1 on a "
                        "regression above --tolerance")
    g.add_argument("--tolerance", type=float, default=0.10, metavar="FRACTION",
                   help="allowed growth of a ratio over the baseline (default 0.10)")
    g.add_argument("--write-baseline", metavar="PATH", nargs="?", const="default",
                   help="write the counts as the new baseline (default: the repository's file "
                        "for this CPython version)")
    g.add_argument("--jobs", type=int, metavar="N",
                   help="callgrind processes at once (default: the number of cores)")
    return p


def _corpus_or_none(load: Any, directory: str | None) -> list[Any] | None:
    """`load(directory)`, or None after printing why it cannot be read (--list)."""
    try:
        return load(directory)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return None


def instructions_main(args: argparse.Namespace) -> int:
    from . import _instructions as ins  # noqa: PLC0415

    workloads = args.workloads
    if workloads is None and args.quick and args.dir is None:
        workloads = ",".join(ins.SMOKE_WORKLOADS)
    baseline = None
    if args.baseline:
        path = ins.default_baseline_path() if args.baseline == "default" else args.baseline
        try:
            with open(path, encoding="utf-8") as f:
                baseline = json.load(f)
        except OSError as e:
            print(f"error: cannot read the baseline: {e}", file=sys.stderr)
            return 2
    try:
        results = ins.run_instructions(
            workloads, engines=args.engines, jobs=args.jobs,
            progress=None if args.no_progress else sys.stderr, directory=args.dir)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"Python {results['python']}; {results['method']}")
    print(ins.format_table(results, baseline))
    if args.json and args.json != "-":
        write_json(results, args.json)
        print(f"Results written to {args.json}")
    if args.write_baseline:
        path = (ins.default_baseline_path() if args.write_baseline == "default"
                else args.write_baseline)
        write_json(results, path)
        print(f"Baseline written to {path}")
    if baseline is not None:
        problems = ins.compare_baseline(results, baseline, args.tolerance)
        if problems:
            print("instruction-count regressions:\n  " + "\n  ".join(problems),
                  file=sys.stderr)
            return 1
        print(f"No instruction-count ratio above its baseline by more than "
              f"{args.tolerance * 100:g}%.")
    return 0


def traces_main(args: argparse.Namespace) -> int:
    from ._report import write_json  # noqa: PLC0415
    from ._trace_report import instruction_table, print_trace_report  # noqa: PLC0415
    from ._trace_runner import run_traces  # noqa: PLC0415
    from ._traces import load_traces  # noqa: PLC0415

    names = args.traces or None
    if args.list:
        traces = _corpus_or_none(load_traces, args.dir)
        if traces is None:
            return 2
        for tr in traces:
            print(f"{tr.name:18s} {len(tr.steps)} steps x {tr.lines_per_step:4.1f} lines  "
                  f"{tr.description}")
        return 0
    if args.instructions:
        from . import _instructions as ins  # noqa: PLC0415
        from ._runner import _installed  # noqa: PLC0415
        from ._trace_runner import GOAL_TRACES  # noqa: PLC0415

        if names is None and args.quick and args.dir is None:
            names = ",".join(GOAL_TRACES)  # the two traces of the goals

        engines = args.engines or ",".join(
            ("cpython", "native", "smolagents", "restrictedpython")
            + (("monty",) if _installed("pydantic_monty") else ()))
        try:
            results = ins.run_trace_instructions(
                names, engines=engines, jobs=args.jobs,
                progress=None if args.no_progress else sys.stderr, directory=args.dir)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"Python {results['python']}; {results['method']}")
        print(instruction_table(results))
    else:
        try:
            results = run_traces(
                names, engines=args.engines, repeat=args.repeat, warmup=args.warmup,
                quick=args.quick, smolagents_cap=args.smolagents_cap,
                run_timeout=args.run_timeout, budget=args.budget,
                progress=False if args.no_progress else sys.stderr, directory=args.dir)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        if args.label:
            results["header"]["label"] = args.label
        print_trace_report(results)
    if args.json and args.json != "-":
        path = write_json(results, args.json)
        print(f"Results written to {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.traces is not None:
        return traces_main(args)
    if args.list:
        workloads = _corpus_or_none(load_workloads, args.dir)
        if workloads is None:
            return 2
        for wl in workloads:
            print(f"{wl.name:28s} {wl.description}")
        return 0
    if args.instructions:
        return instructions_main(args)
    try:
        results = run_benchmark(
            args.workloads,
            engines=args.engines or ",".join(DEFAULT_ENGINES),
            repeat=args.repeat,
            warmup=args.warmup,
            quick=args.quick,
            memory=None if args.no_memory else args.memory_method,
            smolagents_cap=args.smolagents_cap,
            run_timeout=args.run_timeout,
            budget=args.budget,
            step_calls=args.step_calls,
            progress=False if args.no_progress else sys.stderr,
            directory=args.dir,
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.label:
        results["header"]["label"] = args.label
    print_report(results, plain=args.plain)
    if args.json and args.json != "-":
        path = write_json(results, args.json)
        print(f"Results written to {path}")
    if args.plot:
        ok, message = write_plot(results, args.plot)
        print(message, file=sys.stdout if ok else sys.stderr)
    if args.strict:
        failed = [f"{p['workload']}/{p['engine']}: {p['status']}"
                  for p in results["summary"]["problems"]
                  if p["engine"] in ("cpython", "native") and p["status"] != "ok"]
        if failed:
            print("--strict: " + "; ".join(failed), file=sys.stderr)
            return 1
    return 0
