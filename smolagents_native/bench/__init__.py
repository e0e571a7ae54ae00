"""Benchmark of smolagents_native against CPython ``exec`` and smolagents' executor.

Run ``python -m smolagents_native.bench --help``. From Python::

    from smolagents_native.bench import run_benchmark, print_report
    results = run_benchmark(["tiny", "numeric_loop"], quick=True)
    print_report(results)

Each workload is a plain Python file in ``workloads/``; each engine runs each workload in its
own subprocess (so a slow smolagents run can be killed at its cap, a crash of the C core is
reported rather than fatal, and peak memory is per engine). Times are never asserted anywhere.
"""

from ._cli import main
from ._report import print_report, write_json, write_plot
from ._runner import DEFAULT_ENGINES, ENGINE_NAMES, Options, run_benchmark
from ._workloads import Workload, load_workloads, select_workloads

__all__ = [
    "DEFAULT_ENGINES",
    "ENGINE_NAMES",
    "Options",
    "Workload",
    "load_workloads",
    "main",
    "print_report",
    "run_benchmark",
    "select_workloads",
    "write_json",
    "write_plot",
]
