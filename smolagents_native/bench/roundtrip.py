"""Round trips of `isolation="process"`: `python -m smolagents_native.bench.roundtrip`.

Prints, for one worker of a fresh WorkerPool, the min / median / p90 of:

* the tiny step round trip: `ex("x")`, each call timed on its own, back to back (as a batch,
  an evaluation loop, a notebook cell of steps), then each after a 5 ms pause (as an agent's
  step after the model's answer: both processes asleep);
* the tool-call round trip: one step calls a host tool `echo(i)` N times in a loop; the tool
  takes a timestamp on each call, and the interval between two consecutive calls is one round
  trip (worker -> host -> worker) plus one iteration of the loop, whose cost (measured by the
  same loop without the call, in the worker) is subtracted;
* a new worker from a warm fork server: executor creation to its first step done;
* with `--first-step IMPORTS CODE`: a new executor's first step (creation included) against
  its second, after one executor has warmed the pool (a data agent's step, e.g. `scipy.*`).

Times are printed, never asserted. The machine's load changes them a lot: compare runs made
at the same time, and look at the spread, not one number.
"""

from __future__ import annotations

import argparse
import json
import time


def _summary(samples: list[float], scale: float) -> dict[str, float]:
    xs = sorted(samples)
    n = len(xs)
    return {
        "min": xs[0] * scale,
        "median": xs[n // 2] * scale,
        "p90": xs[min(n - 1, int(n * 0.9))] * scale,
        "n": n,
    }


def measure(steps: int = 5000, calls: int = 5000, workers: int = 20, spin: float | None = None,
            timeout: float | None = 30,
            first_step: tuple[list[str], str] | None = None) -> dict[str, dict[str, float]]:
    from smolagents_native import LocalPythonExecutor, WorkerPool
    from smolagents_native.isolation import protocol as P

    if spin is not None:
        P.SPIN_SECONDS = spin
    out: dict[str, dict[str, float]] = {}
    with WorkerPool(size=2) as pool:
        stamps: list[float] = []
        clock = time.perf_counter

        def echo(value):
            stamps.append(clock())
            return value

        ex = LocalPythonExecutor([], isolation="process", pool=pool, timeout_seconds=timeout)
        ex.send_tools({"echo": echo})
        ex("x = 1")
        for _ in range(500):
            ex("x")

        def tiny_steps(n: int, pause: float) -> list[float]:
            """`ex("x")` n times, each timed on its own, after `pause` seconds of sleep."""
            times = []
            for _ in range(n):
                if pause:
                    time.sleep(pause)
                t0 = clock()
                ex("x")
                times.append(clock() - t0)
            return times

        out["step_us"] = _summary(tiny_steps(steps, 0.0), 1e6)
        # An agent's step comes after the model's answer: both sides asleep (their spins
        # over), the machine's idle CPUs halted. The same step after a pause of 5 ms.
        out["step_after_pause_us"] = _summary(tiny_steps(max(steps // 10, 50), 0.005), 1e6)

        code = f"for i in range({calls}):\n    echo(i)"
        ex(code)
        base = f"for i in range({calls}):\n    i"
        loop = []
        for _ in range(5):
            t0 = clock()
            ex(base)
            t1 = clock()
            ex("0")
            t2 = clock()
            loop.append(((t1 - t0) - (t2 - t1)) / calls)  # per iteration, step cost removed
        loop_cost = max(sorted(loop)[len(loop) // 2], 0.0)
        stamps.clear()
        ex(code)
        per_call = [b - a - loop_cost for a, b in zip(stamps, stamps[1:])]
        out["tool_call_us"] = _summary(per_call, 1e6)
        ex.close()

        LocalPythonExecutor([], isolation="process", pool=pool).close()  # server warm
        per_worker = []
        for _ in range(workers):
            t0 = clock()
            fresh = LocalPythonExecutor([], isolation="process", pool=pool)
            fresh("1")
            per_worker.append(clock() - t0)
            fresh.close()
        out["new_worker_ms"] = _summary(per_worker, 1e3)
        if first_step is not None:
            imports, code = first_step
            # A data agent's new executor: its first step against its later steps. The
            # first executor warms the pool (what its steps import is preloaded for the next).
            warm = LocalPythonExecutor(list(imports), isolation="process", pool=pool,
                                       timeout_seconds=timeout)
            warm(code)
            warm.close()
            firsts, laters = [], []
            for _ in range(max(workers // 4, 3)):
                t0 = clock()
                fresh = LocalPythonExecutor(list(imports), isolation="process", pool=pool,
                                            timeout_seconds=timeout)
                fresh(code)
                t1 = clock()
                fresh(code)
                t2 = clock()
                fresh.close()
                firsts.append(t1 - t0)
                laters.append(t2 - t1)
            out["first_step_ms"] = _summary(firsts, 1e3)
            out["later_step_ms"] = _summary(laters, 1e3)
    return out


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m smolagents_native.bench.roundtrip")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    p.add_argument("--spin", type=float, default=None, metavar="SECONDS",
                   help="poll this long before blocking on each receive (default: "
                   "isolation.protocol.SPIN_SECONDS)")
    p.add_argument("--timeout", type=float, default=30, metavar="SECONDS",
                   help="the executor's timeout_seconds (default 30, the executor's default; "
                   "0: none)")
    p.add_argument("--first-step", nargs=2, metavar=("IMPORTS", "CODE"), default=None,
                   help="also time a new executor's first step against its second: IMPORTS "
                   "comma-separated (e.g. 'scipy.*'), CODE a step (e.g. 'from scipy import "
                   "stats; stats.norm.cdf(0)')")
    args = p.parse_args()
    timeout = args.timeout or None
    first = None
    if args.first_step:
        first = ([m for m in args.first_step[0].split(",") if m], args.first_step[1])
    numbers = (measure(500, 500, 5, args.spin, timeout, first) if args.quick
               else measure(spin=args.spin, timeout=timeout, first_step=first))
    if args.json:
        print(json.dumps(numbers))
        return 0
    rows = (
        ("tiny step round trip", "step_us", "us", "<= 30 us"),
        ("tiny step, 5 ms pause", "step_after_pause_us", "us", "-"),
        ("tool call round trip", "tool_call_us", "us", "<= 50 us"),
        ("new worker (fork)", "new_worker_ms", "ms", "<= 50 ms"),
    )
    if first:
        rows += (("first step, new exec.", "first_step_ms", "ms", "~ later + fork"),
                 ("later step", "later_step_ms", "ms", "-"))
    for label, key, unit, target in rows:
        s = numbers[key]
        print(f"{label:22s} min {s['min']:8.1f}  median {s['median']:8.1f}  "
              f"p90 {s['p90']:8.1f} {unit}   (n={s['n']}, target median {target})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
