"""The sandbox service's cost (docs/service.md): a remote step's round trip on loopback against
the local process-mode step, a step with one tool call, and steps per second with N sessions
served concurrently from N client threads.

    python scripts/bench_service.py [--steps 300] [--sessions 1,4,8,16]

Starts the real server (uvicorn) on 127.0.0.1 in this process; needs the [service] extra.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvicorn  # noqa: E402

from _timing import median_us  # noqa: E402  (this directory)

from smolagents_native import LocalPythonExecutor  # noqa: E402
from smolagents_native.remote import RemoteExecutor  # noqa: E402
from smolagents_native.service import ServiceConfig, create_app, listen  # noqa: E402

TOKEN = "bench-token-" + "b" * 20



def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--sessions", default="1,4,8,16")
    p.add_argument("--in-process", action="store_true",
                   help="the server in this process (default: its own, as in use)")
    args = p.parse_args()
    levels = [int(x) for x in args.sessions.split(",")]
    url, stop = (start_in_process if args.in_process else start_process)(max(levels) + 2)
    try:
        tools = {"final_answer": lambda a: a, "echo": lambda v: v}
        local = LocalPythonExecutor([], isolation="process")
        local.send_tools(tools)
        remote = RemoteExecutor(url, TOKEN, [])
        remote.send_tools(tools)
        with local, remote:
            for label, code in (("tiny step (x = 1)", "x = 1"),
                                ("step with one tool call", "y = echo(41) + 1")):
                lo = median_us(local, code, args.steps)
                re = median_us(remote, code, args.steps)
                print(f"{label:26s} local process {lo:8.1f} us   remote {re:8.1f} us   "
                      f"(+{re - lo:.0f} us, {re / lo:.1f}x)")
        for n in levels:
            executors = [RemoteExecutor(url, TOKEN, []) for _ in range(n)]
            for ex in executors:
                ex.send_tools({})
                ex("x = 1")
            per = max(20, args.steps // n)
            barrier = threading.Barrier(n + 1)

            def client(ex, per=per, barrier=barrier):
                barrier.wait()
                for _ in range(per):
                    ex("x = x + 1")

            threads = [threading.Thread(target=client, args=(ex,)) for ex in executors]
            for t in threads:
                t.start()
            barrier.wait()
            t0 = time.perf_counter()
            for t in threads:
                t.join()
            took = time.perf_counter() - t0
            for ex in executors:
                ex.close()
            print(f"{n:3d} concurrent sessions: {n * per / took:8.0f} steps/s "
                  f"({n * per} steps in {took:.2f} s)")
    finally:
        stop()
    return 0


def start_in_process(sessions: int):
    config = ServiceConfig(tokens=frozenset({TOKEN}), max_sessions=sessions,
                           sessions_per_token=sessions)
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning",
                                           access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)

    def stop():
        server.should_exit = True
        thread.join(30)

    return f"http://127.0.0.1:{sock.getsockname()[1]}", stop


def start_process(sessions: int):
    """`python -m smolagents_native serve` as its own process (the client here, as in use)."""
    probe = listen("127.0.0.1", 0)
    port = probe.getsockname()[1]
    probe.close()
    env = {**os.environ, "SMOLAGENTS_NATIVE_SERVICE_TOKENS": TOKEN,
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "smolagents_native", "serve", "--port", str(port),
         "--max-sessions", str(sessions), "--sessions-per-token", str(sessions),
         "--log-level", "warning"], env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise SystemExit("the service did not start") from None
            time.sleep(0.05)

    def stop():
        proc.terminate()
        proc.wait(30)

    return url, stop


if __name__ == "__main__":
    sys.exit(main())
