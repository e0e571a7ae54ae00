"""Batch throughput (docs/benchmarks.md, *Batches*): programs per second for a batch of short
programs, each on a fresh state, as RL rollouts and evaluations run them.

    python scripts/bench_batches.py [--programs 200] [--lanes 2] [--rounds 3]

Engines: `cpython` (exec of each program, compiled, fresh globals, one thread), `native` (a new
in-process executor per program, one thread), `process-shared` (`WorkerPool(size=lanes)
.run_many(share_sandbox=True)`: a worker per lane, each program on a fresh interpreter state),
`process-fresh` (`run_many()`: a new sandbox per program; `process-fresh-supervised`: the
same with a supervisor per sandbox even on a root host, as any other host has it), and `monty` (pydantic-monty's pool, a
session checked out per program, `lanes` threads) when installed. Every engine must print the
same outputs; the best of `rounds` rounds is reported, after one warm-up round (fork servers and
pools started). Every round's programs are new sources (a comment naming the round).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from smolagents_native import LocalPythonExecutor, WorkerPool  # noqa: E402

TEMPLATE = """\
data = [{i}, {i} + 3, 7, {i} * 2, 11]
def score(v):
    return v * v - 3 * v
total = 0
for v in data:
    if v % 2:
        total += score(v)
ranked = sorted(data, key=lambda v: -v)
print(total, ranked[0], len(set(data)))
"""


def programs(n: int, tag: str = "") -> list[str]:
    """`n` programs; `tag` (a comment line) makes every round's sources new, so that no
    cache keyed by source (our executors' lowering cache, kept with a lane's worker between
    batches, or any engine's) serves a round what an earlier one ran."""
    return [TEMPLATE.format(i=i) + tag for i in range(n)]


def run_cpython(codes: list[str], lanes: int) -> list[str]:
    out = []
    for code in codes:
        buf = io.StringIO()
        with redirect_stdout(buf):
            exec(compile(code, "<program>", "exec"), {"__name__": "__main__"})
        out.append(buf.getvalue())
    return out


def run_native(codes: list[str], lanes: int) -> list[str]:
    out = []
    for code in codes:
        ex = LocalPythonExecutor([], isolation="none")
        ex.send_tools({})
        out.append(ex(code).logs)
    return out


def make_process(share: bool, supervised: bool = False):
    from smolagents_native.isolation import jail

    pools: dict[int, WorkerPool] = {}

    def run(codes: list[str], lanes: int) -> list[str]:
        jail.SUPERVISED = supervised  # read when the pool's fork server starts
        pool = pools.get(lanes) or pools.setdefault(lanes, WorkerPool(size=lanes))
        return [r.logs for r in pool.run_many(codes, share_sandbox=share)]

    run.pools = pools  # type: ignore[attr-defined]
    return run


def make_monty():
    import pydantic_monty

    pool = pydantic_monty.Monty()
    pool.__enter__()

    def one(code: str) -> str:
        out: list[str] = []
        with pool.checkout() as session:
            session.feed_run(code, print_callback=lambda _stream, text: out.append(text))
        return "".join(out)

    def run(codes: list[str], lanes: int) -> list[str]:
        with ThreadPoolExecutor(lanes) as threads:
            return list(threads.map(one, codes))

    return run


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--programs", type=int, default=200)
    p.add_argument("--lanes", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--engines", default="cpython,native,process-shared,process-fresh,monty")
    args = p.parse_args()
    rounds = [programs(args.programs, f"# round {r}\n") for r in range(args.rounds + 1)]
    codes = rounds[0]
    makers = {"cpython": lambda: run_cpython, "native": lambda: run_native,
              "process-shared": lambda: make_process(True),
              "process-fresh": lambda: make_process(False),
              "process-fresh-supervised": lambda: make_process(False, supervised=True),
              "monty": make_monty}
    expected = run_cpython(codes, 1)
    print(f"{args.programs} programs, {args.lanes} lanes, {os.cpu_count()} CPUs, best of "
          f"{args.rounds} rounds; Python {sys.version.split()[0]}")
    print(f"{'engine':16} {'programs/s':>11} {'ms/program':>11}")
    for name in args.engines.split(","):
        try:
            run = makers[name]()
        except ImportError as exc:
            print(f"{name:16} {'-':>11} {'-':>11}  ({exc})")
            continue
        run(codes[: max(args.lanes * 4, 8)], args.lanes)  # warm-up: pools, fork servers
        best = float("inf")
        for r in range(1, args.rounds + 1):
            t0 = time.perf_counter()
            got = run(rounds[r], args.lanes)
            best = min(best, time.perf_counter() - t0)
            if got != expected:
                bad = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
                print(f"{name}: program {bad} printed {got[bad]!r}, CPython {expected[bad]!r}")
                return 1
        print(f"{name:16} {args.programs / best:11.0f} {best / args.programs * 1e3:11.3f}")
        for pool in getattr(run, "pools", {}).values():
            pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
