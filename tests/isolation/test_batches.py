"""Batches (docs/isolation.md, *Batches*): `reset()` starts a fresh program on the same
executor, and `run_many(share_sandbox=True)` runs a batch's programs one after another in a
worker per lane, each on a fresh interpreter state with an empty scratch directory."""

from __future__ import annotations

import os

import pytest

from smolagents_native import LocalPythonExecutor, WorkerPool
from smolagents_native.errors import ExecutionTimeoutError, InterpreterError

DEFINE = (
    "import math\n"
    "x = 41\n"
    "def f():\n    return x + 1\n"
    "class C:\n    pass\n"
    "f()"
)
NAMES = ("x", "f", "C", "math")


def _forgets(ex):
    assert ex(DEFINE).output == 42
    ex.reset()
    for name in NAMES:
        with pytest.raises(InterpreterError, match=f"name '{name}' is not defined"):
            ex(name)
        assert name not in ex.state
    assert ex("y = 2\ny * 21").output == 42  # usable after the reset


def test_reset_forgets_the_program_in_process():
    with LocalPythonExecutor([], isolation="none") as ex:
        ex.send_tools({"double": lambda v: v * 2})
        _forgets(ex)
        assert ex("double(21)").output == 42  # tools stay


def test_reset_forgets_the_program_in_its_worker(make_process_executor):
    ex = make_process_executor()
    ex.send_tools({"double": lambda v: v * 2})
    pid = ex.worker_pid
    _forgets(ex)
    assert ex("double(21)").output == 42  # tools stay, through the same worker
    assert ex.worker_pid == pid
    ex.send_variables({"given": [1, 2]})
    ex.reset()
    with pytest.raises(InterpreterError, match="name 'given' is not defined"):
        ex("given")


def test_reset_empties_the_scratch_directory_and_goes_back_to_it(make_process_executor):
    ex = make_process_executor(["os"])
    ex("import os\n"
       "os.makedirs('a/b/c')\n"
       "fd = os.open('a/b/c/f', os.O_CREAT | os.O_WRONLY)\nos.close(fd)\n"
       "fd = os.open('top', os.O_CREAT | os.O_WRONLY)\nos.close(fd)\n"
       "os.chmod('a/b', 0)\n"  # a directory the code locked: emptied all the same
       "os.symlink('/etc', 'link')\n"  # removed, never followed
       "os.chdir('a')")
    binds = ex.sandbox["read_only"] + ex.sandbox["writable"]
    points = {p.split("/")[2] for p in binds if p.startswith("/tmp/")}
    ex.reset()
    cwd, listing = ex("import os\n(os.getcwd(), os.listdir('/tmp'))").output
    assert cwd == "/tmp"
    assert sorted(name for name in listing if name not in points) == []
    assert ex("import os\nlen(os.listdir('/etc')) > 0").output  # the link's target untouched


def test_reset_leaves_the_binds_under_the_scratch_alone(make_process_executor, tmp_path):
    """A granted directory under /tmp is bound at its own path inside the scratch: a reset
    empties the scratch around it, never the host's directory."""
    granted = tmp_path / "out"
    granted.mkdir()
    granted.chmod(0o777)  # the worker writes as an unprivileged uid on a root host
    ex = make_process_executor(["os"], writable_dirs=[str(granted)])
    ex(f"import os\nfd = os.open({str(granted / 'kept.txt')!r}, os.O_CREAT | os.O_WRONLY)\n"
       "os.write(fd, b'result')\nos.close(fd)\n"
       "fd = os.open('/tmp/scratch-file', os.O_CREAT | os.O_WRONLY)\nos.close(fd)")
    pid = ex.worker_pid
    ex.reset()
    assert ex(f"import os\n('scratch-file' in os.listdir('/tmp'), "
              f"os.listdir({str(granted)!r}))").output == (False, ["kept.txt"])
    assert ex.worker_pid == pid  # made fresh in place, not by a new worker
    assert (granted / "kept.txt").read_bytes() == b"result"


def _impostor(ex):
    """Put a stand-in worker on `ex`'s channel that answers every request with FAIL, as a
    worker that cannot make its program fresh (a scratch it cannot empty) answers FRESH_RUN
    and RESET; returns the thread serving it. The real worker stays attached by its pidfd,
    so the host ending "the worker" ends it."""
    import socket
    import threading

    from smolagents_native.isolation import protocol as P

    host_end, fake_end = socket.socketpair()
    kinds = []

    def serve():
        channel = P.Channel(fake_end)
        try:
            kind, _data, seq = channel.recv(None)
        except Exception:  # noqa: BLE001 - the host closed it
            return
        kinds.append(kind)
        P.send(fake_end, P.FAIL, b"OSError: the scratch directory /tmp could not be emptied",
               seq)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ex._sock.close()
    ex._sock, ex._channel = host_end, P.Channel(host_end)
    return thread, kinds


@pytest.mark.parametrize("then", ["step", "send_variables"])
def test_a_reset_the_worker_cannot_make_gives_the_program_a_new_worker(
        make_process_executor, then):
    from smolagents_native.isolation import protocol as P

    ex = make_process_executor()
    ex("x = 1")
    pid = ex.worker_pid
    ex.reset()
    thread, kinds = _impostor(ex)
    if then == "step":
        assert ex("'x' in dir()").output is False  # run by a new worker, once
        assert kinds == [P.FRESH_RUN]
    else:
        ex.send_variables({"given": 3})
        assert kinds == [P.RESET]
        assert ex("(given, 'x' in dir())").output == (3, False)
    thread.join(5)
    assert ex.worker_pid != pid


def test_reset_of_a_closed_executor_is_refused(make_process_executor):
    ex = make_process_executor()
    ex.close()
    with pytest.raises(InterpreterError, match="closed"):
        ex.reset()


PROGRAMS = [f"v = {i}\nseen = 'v0' in dir()\nv0 = v\n(v * 2, seen)" for i in range(24)]


@pytest.mark.parametrize("share", [False, True], ids=["sandbox-per-program", "shared-sandbox"])
def test_run_many_runs_each_program_on_a_fresh_state(share):
    with WorkerPool(size=2) as pool:
        results = pool.run_many(PROGRAMS + ["1/0", "sum(range(10**12))", "v0"],
                                share_sandbox=share, timeout_seconds=1)
        assert [r.output for r in results[:24]] == [(i * 2, False) for i in range(24)]
        assert isinstance(results[24], InterpreterError)
        assert isinstance(results[25], ExecutionTimeoutError)
        # the program after a timeout (a C call: its worker killed) runs, on a fresh state
        assert isinstance(results[26], InterpreterError) and "v0" in str(results[26])


STARTED = ("import os\nfd = os.open('/proc/self/stat', os.O_RDONLY)\n"
           "text = os.read(fd, 4096)\nos.close(fd)\ntext.rsplit(b')', 1)[1].split()[19]")


def test_shared_sandbox_runs_a_lane_in_one_worker_and_tools_stay():
    with WorkerPool(size=2) as pool:
        codes = [STARTED] * 12 + ["lookup(3)"]
        results = pool.run_many(codes, tools={"lookup": lambda k: k * 10}, share_sandbox=True,
                                additional_authorized_imports=["os"])
    assert results[12].output == 30
    # The worker processes' start times (every worker is the same pid in its namespace):
    # one worker per lane, so at most two.
    assert len({r.output for r in results[:12]}) <= 2, results


def test_shared_sandbox_programs_do_not_see_each_others_files():
    code = ("import os\nbefore = sorted(n for n in os.listdir('.') if n.startswith('p-'))\n"
            "fd = os.open('p-%d', os.O_CREAT | os.O_WRONLY)\nos.close(fd)\nbefore")
    with WorkerPool(size=1) as pool:
        results = pool.run_many([code % i for i in range(5)], share_sandbox=True,
                                additional_authorized_imports=["os"])
    assert [r.output for r in results] == [[]] * 5
    assert not any(os.path.exists(f"p-{i}") for i in range(5))  # not the host's files


# -- the batch path: programs sent a window ahead of the lane's worker, lanes kept ----------

def _worker_start(results):
    return {r.output for r in results if not isinstance(r, Exception)}


def test_a_lane_runs_tool_calls_between_programs_sent_ahead():
    # One lane: every program after the first is sent while an earlier one runs, so the tool
    # results reach the worker behind programs it has not started.
    calls = []

    def lookup(k):
        calls.append(k)
        return k * 10

    codes = [f"a = lookup({i})\nb = lookup(a)\n(a, b, 'a' in dir())" for i in range(12)]
    with WorkerPool(size=1) as pool:
        results = pool.run_many(codes, tools={"lookup": lookup}, share_sandbox=True)
    assert [r.output for r in results] == [(i * 10, i * 100, True) for i in range(12)]
    assert calls == [k for i in range(12) for k in (i, i * 10)]  # each once, in order


def test_programs_sent_after_one_that_ends_its_worker_run_once_in_the_next():
    with WorkerPool(size=1) as pool:
        codes = ["seen = 'n' in dir()\nn = 1\nseen", "sum(range(10**12))",
                 *[f"seen = 'n' in dir()\nn = {i}\n(seen, {i})" for i in range(6)]]
        results = pool.run_many(codes, share_sandbox=True, timeout_seconds=1)
    assert results[0].output is False
    assert isinstance(results[1], ExecutionTimeoutError)
    assert [r.output for r in results[2:]] == [(False, i) for i in range(6)]


def test_a_worker_that_dies_mid_batch_fails_its_program_only():
    import signal

    def end_the_sandbox():  # a host tool that kills the lane's jail (the pool has one)
        server = pool._server.proc.pid
        for task in os.listdir(f"/proc/{server}/task"):
            with open(f"/proc/{server}/task/{task}/children") as f:
                for pid in f.read().split():
                    os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.2)

    import time

    codes = ["1", "end_the_sandbox()\n'not reached'", *[f"x = {i}\nx * 2" for i in range(5)]]
    with WorkerPool(size=1) as pool:
        results = pool.run_many(codes, tools={"end_the_sandbox": end_the_sandbox},
                                share_sandbox=True)
    assert results[0].output == 1
    assert isinstance(results[1], InterpreterError) and "died" in str(results[1]), results[1]
    assert [r.output for r in results[2:]] == [i * 2 for i in range(5)]


def test_large_and_over_long_programs_in_a_batch():
    from smolagents_native.isolation import protocol as P

    big = "x = 0\n" + "x += 1\n" * (P.BATCH_WINDOW_BYTES // 7 + 10) + "x"
    codes = ["1", big, "2", big, "3"]
    with WorkerPool(size=1) as pool:
        results = pool.run_many(codes, share_sandbox=True)
        assert [r.output for r in results] == [1, big.count("+= 1"), 2, big.count("+= 1"), 3]
        limited = pool.run_many(["1", "x = '" + "a" * 200 + "'", "3"], share_sandbox=True,
                                max_source_bytes=100)
    assert limited[0].output == 1 and limited[2].output == 3
    assert isinstance(limited[1], InterpreterError) and "100" in str(limited[1])


def test_errors_and_outputs_of_a_batch_match_one_step_each(make_process_executor):
    codes = ["print('a')\n1/0", "print('b')\nfinal_answer(7)", "[1, 2]", "def f(): pass\nf",
             "x = undefined_name", "print('c', end='')"]
    with WorkerPool(size=1) as pool:
        batch = pool.run_many(codes, share_sandbox=True)
    ex = make_process_executor()
    for code, got in zip(codes, batch):
        ex.reset()
        try:
            want = ex(code)
        except InterpreterError as exc:
            assert type(got) is type(exc) and str(got) == str(exc)
            continue
        assert (type(got.output), got.logs, got.is_final_answer) == (
            type(want.output), want.logs, want.is_final_answer)
        if not hasattr(want.output, "text"):  # a stand-in's text names no address
            assert got.output == want.output


def test_a_pool_keeps_its_lanes_for_the_next_batch_and_gives_them_way():
    with WorkerPool(size=1, pool_timeout=5) as pool:
        opts = dict(share_sandbox=True, additional_authorized_imports=["os"])
        first = pool.run_many([STARTED, "import os\nopen('left', 'w').close()"], **opts)
        second = pool.run_many([STARTED, "import os\nos.listdir('.')"], **opts)
        assert _worker_start(first[:1]) == _worker_start(second[:1])  # the same worker
        assert 'left' not in second[1].output  # made fresh: the scratch emptied (binds stay)
        # Another configuration: a new lane (the kept one ends to free the only slot).
        other = pool.run_many([STARTED], share_sandbox=True, timeout_seconds=7,
                              additional_authorized_imports=["os"])
        assert _worker_start(other) != _worker_start(first[:1])
        # An executor of the pool takes the slot the idle lane held, without waiting.
        ex = LocalPythonExecutor([], isolation="process", pool=pool)
        try:
            assert ex("1 + 1").output == 2
        finally:
            ex.close()


def test_a_kept_lane_whose_worker_ended_while_idle_is_replaced():
    import select
    import signal

    with WorkerPool(size=1) as pool:
        pool.run_many(["1"], share_sandbox=True)
        (_, executor), = pool._idle_lanes
        os.kill(executor.worker_pid, signal.SIGKILL)
        assert select.select([executor._pidfd], [], [], 10)[0]  # it has ended
        results = pool.run_many(["2", "3"], share_sandbox=True)
    assert [r.output for r in results] == [2, 3]


def test_run_many_refuses_a_program_that_is_not_a_str():
    with WorkerPool(size=1) as pool, pytest.raises(TypeError, match="str"):
        pool.run_many(["1", b"2"], share_sandbox=True)


def test_an_observed_batch_logs_one_record_per_program(capture_log):
    records = capture_log()
    with WorkerPool(size=1) as pool:
        results = pool.run_many([f"{i} * 3" for i in range(4)], share_sandbox=True)
    assert [r.output for r in results] == [0, 3, 6, 9]
    logged = [r for r in records() if r["logger"] == "smolagents_native.executor"]
    assert len(logged) == 4


@pytest.mark.parametrize("share", [False, True], ids=["sandbox-per-program", "shared-sandbox"])
def test_what_ends_another_lane_reaches_the_caller(share):
    # A lane other than the caller's ends with an error: the caller gets it (not a list
    # holding None for that lane's programs).
    import threading
    from collections.abc import Mapping

    class ToolsOnlyTheCallerReads(Mapping):  # each lane reads the tools when it starts
        def __getitem__(self, key):
            raise KeyError(key)

        def __len__(self):  # not empty: `tools or {}` reads it
            return 1

        def __iter__(self):
            if threading.current_thread() is not threading.main_thread():
                raise RuntimeError("this lane cannot start")
            return iter(())

    with WorkerPool(size=2) as pool, pytest.raises(RuntimeError, match="cannot start"):
        pool.run_many([str(i) for i in range(6)], tools=ToolsOnlyTheCallerReads(),
                      share_sandbox=share)
