"""Round trips of `isolation="process"`: `python -m smolagents_native.bench.roundtrip`.

Prints, for one worker of a fresh WorkerPool: the tiny step round trip (`x`), the tool-call
round trip (a step making N calls of a host tool that returns its argument, divided by N), and
the time to get a new worker from a warm fork server (executor creation to its first step
done). Medians of several rounds; times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time


def measure(steps: int = 2000, calls: int = 2000, workers: int = 20, rounds: int = 5) -> dict:
    from smolagents_native import LocalPythonExecutor, WorkerPool

    out: dict[str, float] = {}
    with WorkerPool(size=2) as pool:
        ex = LocalPythonExecutor([], isolation="process", pool=pool, timeout_seconds=None)
        ex.send_tools({"echo": lambda value: value})
        ex("x = 1")
        for _ in range(200):
            ex("x")
        per_step = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(steps):
                ex("x")
            per_step.append((time.perf_counter() - t0) / steps)
        code = f"for i in range({calls}):\n    echo(i)"
        ex(code)
        base = f"for i in range({calls}):\n    i"
        ex(base)
        per_call = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            ex(code)
            t1 = time.perf_counter()
            ex(base)  # the same loop without the tool call, subtracted
            t2 = time.perf_counter()
            per_call.append(((t1 - t0) - (t2 - t1)) / calls)
        ex.close()
        LocalPythonExecutor([], isolation="process", pool=pool).close()  # server warm
        per_worker = []
        for _ in range(workers):
            t0 = time.perf_counter()
            fresh = LocalPythonExecutor([], isolation="process", pool=pool)
            fresh("1")
            per_worker.append(time.perf_counter() - t0)
            fresh.close()
    out["step_us"] = statistics.median(per_step) * 1e6
    out["tool_call_us"] = statistics.median(per_call) * 1e6
    out["new_worker_ms"] = statistics.median(per_worker) * 1e3
    return out


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m smolagents_native.bench.roundtrip")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = p.parse_args()
    numbers = measure(300, 300, 5, 3) if args.quick else measure()
    if args.json:
        print(json.dumps(numbers))
    else:
        print(f"tiny step round trip: {numbers['step_us']:8.1f} us   (target <= 100 us)")
        print(f"tool call round trip: {numbers['tool_call_us']:8.1f} us   (target <= 50 us)")
        print(f"new worker (fork):    {numbers['new_worker_ms']:8.2f} ms   (target <= 50 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
