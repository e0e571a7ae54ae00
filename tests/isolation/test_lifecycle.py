"""Process mode's lifecycle under faults: pool slots, close() during a step, forked hosts,
bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor, WorkerPool


def test_a_pool_slot_waits_for_a_free_worker_up_to_pool_timeout():
    with WorkerPool(size=1) as pool:
        first = LocalPythonExecutor([], isolation="process", pool=pool)
        got: list = []

        def second() -> None:
            ex = LocalPythonExecutor([], isolation="process", pool=pool)
            got.append(ex("'second'").output)
            ex.close()

        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.5)
        assert got == [] and t.is_alive()  # waiting, not refused
        first.close()
        t.join(30)
        assert got == ["second"]
    with WorkerPool(size=1, pool_timeout=0.3) as pool:
        held = LocalPythonExecutor([], isolation="process", pool=pool)
        start = time.monotonic()
        with pytest.raises(InterpreterError, match=r"no free worker in the pool \(size 1\)"):
            LocalPythonExecutor([], isolation="process", pool=pool)
        assert 0.25 < time.monotonic() - start < 5
        held.close()


def test_close_from_another_thread_ends_a_running_step_at_once(make_process_executor):
    ex = make_process_executor(["time"], timeout_seconds=60)
    errors: list = []

    def run() -> None:
        try:
            ex("import time\ntime.sleep(8)")
        except InterpreterError as exc:
            errors.append(str(exc))

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.5)
    start = time.monotonic()
    ex.close()
    t.join(10)
    assert not t.is_alive() and time.monotonic() - start < 3
    assert errors and "closed while this step ran" in errors[0]
    with pytest.raises(InterpreterError, match="closed"):
        ex("1")


def test_a_forked_child_of_the_host_leaves_the_pool_alone(make_process_executor):
    """A child of the host (os.fork, multiprocessing's fork start method) has copies of the
    executors and pools; its exit (closing them, collecting them, atexit) must not end the
    parent's workers or fork server."""
    ex = make_process_executor()
    ex("v = 1")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            import atexit
            import gc

            ex.close()
            ex._collect()
            ex._pool.close()
            atexit._run_exitfuncs()
            gc.collect()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert ex("v + 1").output == 2
    other = make_process_executor()
    assert other("'still works'").output == "still works"


@pytest.mark.parametrize("code", [b"1 + 1", 42, None])
def test_code_that_is_not_a_str_is_a_type_error(make_process_executor, code):
    ex = make_process_executor()
    with pytest.raises(TypeError, match="code must be a str"):
        ex(code)
    assert ex("1 + 1").output == 2


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pids: set[int]) -> list[int]:
    alive = []
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(p)
        except OSError:
            pass
    return alive


def test_every_process_of_a_sandbox_dies_with_its_parent(spawn_way):
    import signal

    with WorkerPool(size=4) as pool:
        a = LocalPythonExecutor([], isolation="process", pool=pool)
        b = LocalPythonExecutor([], isolation="process", pool=pool)
        a("x = 'a'")
        b("x = 'b'")
        assert a.sandbox["supervisor"] is (spawn_way == "supervisor")
        # Killing the process that holds one sandbox (its supervisor, or the jail's init, which
        # is the worker) ends the jail and the worker, nothing else.
        jail = _descendants(a.worker_pid) | {a.worker_pid}
        # the supervisor and the worker (the jail's init); or the worker alone
        per_sandbox = 2 if spawn_way == "supervisor" else 1
        assert len(jail) == per_sandbox
        os.kill(a.worker_pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(jail) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive(jail) == []
        assert b("x").output == "b"
        with pytest.raises(InterpreterError, match="died"):
            a("x")
        assert a("x = 'a2'\nx").output == "a2"  # a new worker took over
        # Killing the fork server ends every sandbox it made.
        server = pool._server
        everything = _descendants(server.proc.pid)
        assert len(everything) == 2 * per_sandbox
        server.proc.kill()
        deadline = time.monotonic() + 10
        while _alive(everything) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive(everything) == []
        # ... and the executors start over with a new one.
        with pytest.raises(InterpreterError):
            b("x")
        assert b("x").output == "b"
        a.close()
        b.close()


def test_a_host_tool_is_bounded_by_the_step_deadline(make_process_executor):
    release = threading.Event()
    finished: list = []

    def slow_lookup(q):
        release.wait(6)
        finished.append(q)
        return q

    ex = make_process_executor(timeout_seconds=1)
    ex.send_tools({"slow_lookup": slow_lookup, "quick": lambda v: v * 2})
    start = time.monotonic()
    from smolagents_native import ExecutionTimeoutError

    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 1 seconds"):
        ex("slow_lookup('late')")
    assert time.monotonic() - start < 1 + 0.5 + 2
    assert finished == []  # still running on its thread: left to finish, result discarded
    assert ex("quick(21)").output == 42  # a new worker, a new tool thread
    release.set()


def test_ctrl_c_during_a_tool_call_reaches_the_caller(make_process_executor):
    import signal

    def interrupted():
        raise KeyboardInterrupt

    def slow():
        time.sleep(3)
        return 1

    ex = make_process_executor(timeout_seconds=30)
    ex.send_tools({"interrupted": interrupted, "slow": slow})
    with pytest.raises(KeyboardInterrupt):
        ex("interrupted()")
    main = threading.main_thread().ident
    timer = threading.Timer(0.5, signal.pthread_kill, (main, signal.SIGINT))  # Ctrl-C
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        ex("slow()")
    assert time.monotonic() - start < 2.5
    assert ex("'after'").output == "after"
    ex_none = make_process_executor(timeout_seconds=None)  # no deadline: the tool runs here
    ex_none.send_tools({"interrupted": interrupted})
    with pytest.raises(KeyboardInterrupt):
        ex_none("interrupted()")
    assert ex_none("1").output == 1


def test_a_fork_server_that_does_not_answer_is_killed_and_restarted(monkeypatch):
    """Every host wait on the fork server is bounded: stopped (as a worker could no longer
    do it: it is out of their reach), it is killed when a request times out, and the next
    executor gets a new one."""
    import signal

    from smolagents_native.isolation import host

    monkeypatch.setattr(host, "SERVER_REQUEST_SECONDS", 1.0)
    with WorkerPool(size=2) as pool:
        first = LocalPythonExecutor([], isolation="process", pool=pool)
        server = pool._server
        os.kill(server.proc.pid, signal.SIGSTOP)
        start = time.monotonic()
        with pytest.raises(InterpreterError, match="fork server did not answer in time"):
            LocalPythonExecutor([], isolation="process", pool=pool)
        assert time.monotonic() - start < 1.0 + 5
        assert server.proc.poll() is not None  # killed
        second = LocalPythonExecutor([], isolation="process", pool=pool)
        assert second("6 * 7").output == 42 and pool._server is not server
        first.close()
        second.close()


def test_a_root_fork_server_forks_each_jail_init_into_a_pid_namespace_then_returns():
    """A root host's fork server makes each sandbox's pid namespace itself (the jail's init is
    its child, pid 1 there) and goes back to its own after each fork: its next child, and the
    fork server itself, are never in a sandbox's namespace. Any other host: a supervisor."""
    with WorkerPool(size=3) as pool:
        exs = [LocalPythonExecutor([], isolation="process", pool=pool) for _ in range(3)]
        try:
            for ex in exs:
                ex("1")
            if os.geteuid() != 0:
                assert all(ex.sandbox["supervisor"] for ex in exs)
                return
            assert not any(ex.sandbox["supervisor"] for ex in exs)
            server = pool._server.proc.pid
            own = os.readlink(f"/proc/{server}/ns/pid")
            assert os.readlink(f"/proc/{server}/ns/pid_for_children") == own
            spaces = [os.readlink(f"/proc/{ex.worker_pid}/ns/pid") for ex in exs]
            assert len(set(spaces)) == 3 and own not in spaces
            for ex in exs:
                # the worker is pid 1 of its namespace (its jail's init), alone there
                status = _read_status(ex.worker_pid)
                assert status["NSpid"].split()[-1] == "1"
                assert _descendants(ex.worker_pid) == set()
        finally:
            for ex in exs:
                ex.close()


def _read_status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def test_closed_executors_leave_no_zombie_while_the_fork_server_waits(spawn_way):
    """close() does not wait for the fork server (no round trip): the fork server reaps
    each child as it ends, with no request from the host to wake it."""
    with WorkerPool(size=2) as pool:
        for _ in range(4):
            ex = LocalPythonExecutor([], isolation="process", pool=pool)
            ex("1")
            ex.close()
        server = pool._server.proc.pid
        deadline = time.monotonic() + 10
        while _descendants(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _descendants(server) == set()  # not even a zombie


def test_a_worker_forked_from_the_prepared_image_asks_nothing_again_on_its_first_step():
    """The fork server computes once what every worker's first step would (the main thread's
    stack extent, which glibc reads from /proc/self/maps; the installation's real paths):
    a process forked from that thread inherits them. Fails if the image is not prepared."""
    code = textwrap.dedent("""
        import os
        from smolagents_native import _core, LocalPythonExecutor
        if os.environ.get("PREPARE") == "1":
            _core.fork_image_prepare()
        pid = os.fork()
        if pid == 0:
            before = _core.stack_bound_queries()
            ok = LocalPythonExecutor([])("x = 1 + 1\\nx").output == 2
            os._exit(0 if ok and _core.stack_bound_queries() == before else 3)
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    """)
    for prepare, expected in (("1", "0"), ("0", "3")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PREPARE": prepare}, timeout=60)
        assert out.stdout.strip() == expected, (prepare, out.stdout, out.stderr)

