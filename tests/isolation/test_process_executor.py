"""isolation="process": API, deadline backstop, crash recovery, rlimits, seccomp, environment,
tools in the host, values crossing the boundary, pools and their processes."""

from __future__ import annotations

import os
import time
import warnings

import pytest

from smolagents_native import (
    ExecutionTimeoutError,
    InterpreterError,
    LocalPythonExecutor,
    WorkerPool,
)
from smolagents_native.isolation import ProcessExecutor, needs_process


def test_same_results_errors_and_state(make_process_executor):
    ex = make_process_executor()
    assert isinstance(ex, LocalPythonExecutor) and ex.isolation == "process"
    out = ex("x = 6 * 7\nprint('x is', x)\nx + 1")
    assert (out.output, out.logs, out.is_final_answer) == (43, "x is 42\n", False)
    out = ex("items = [x, {'k': (1, 2.5)}, {3}]\nimport math\ndef f():\n    return x\nitems")
    assert out.output == [42, {"k": (1, 2.5)}, {3}]
    # Plain data is mirrored in the host; modules and functions live in the worker only.
    assert ex.state["x"] == 42 and ex.state["items"] == out.output
    assert "math" not in ex.state and "f" not in ex.state
    assert ex("f() + len(items)").output == 45  # ... and still work there
    with pytest.raises(InterpreterError) as info:
        ex("print('before')\n{}['missing']")
    assert "KeyError: 'missing'" in str(info.value)
    assert info.value.lineno == 2  # the line it failed on, as in process
    assert str(ex.state["_print_outputs"]) == "before\n"
    assert ex.state["_operations_count"]["counter"] > 0
    with pytest.raises(InterpreterError, match="Import of os is not allowed"):
        ex("import os")
    ex.send_variables({"given": [1, 2, 3]})
    assert ex("sum(given)").output == 6
    assert ex("del x\n1").output == 1 and "x" not in ex.state


def test_final_answer_and_tools_run_in_the_host(make_process_executor, tmp_path):
    host_only = tmp_path / "host-only.txt"
    host_only.write_text("only the host can read this")
    calls = []

    def read_note(suffix: str = "") -> str:
        calls.append(os.getpid())
        return host_only.read_text() + suffix

    def final_answer(answer):
        return {"answer": answer}

    def failing():
        raise ValueError("tool failed")

    ex = make_process_executor()
    ex.send_tools({"read_note": read_note, "final_answer": final_answer, "failing": failing})
    out = ex("note = read_note(suffix='!')\nprint(note)")
    assert out.logs == "only the host can read this!\n" and calls == [os.getpid()]
    assert ex("try:\n    failing()\nexcept ValueError as e:\n    r = str(e)\nr").output == (
        "tool failed"
    )
    with pytest.raises(InterpreterError, match="Forbidden|cannot|assign"):
        ex("read_note = 1")
    out = ex("final_answer(note.upper())")
    assert out.is_final_answer and out.output == {"answer": "ONLY THE HOST CAN READ THIS!"}
    # The file itself is not in the worker's view.
    ex2 = make_process_executor(["pathlib"])
    with pytest.raises(InterpreterError, match="FileNotFoundError|No such file"):
        ex2(f"import pathlib\npathlib.Path({str(host_only)!r}).read_text()")


def test_additional_functions_stay_in_the_host(make_process_executor):
    seen = []
    ex = make_process_executor(additional_functions={"record": lambda v: seen.append(v) or len(seen)})
    assert ex("record('a') + record('b')").output == 3
    assert seen == ["a", "b"]


def test_values_that_cannot_cross(make_process_executor):
    import pathlib

    from smolagents_native.isolation.protocol import WorkerValue

    ex = make_process_executor(["pathlib", "collections"])
    # Data crosses as data (a path is described as such) ...
    assert ex("import pathlib\npathlib.PurePosixPath('a')").output == pathlib.PurePosixPath("a")
    # ... a step's output that cannot cross is a stand-in holding its repr in the worker ...
    out = ex("import collections\ncollections.ChainMap({'k': 1})")
    assert isinstance(out.output, WorkerValue) and repr(out.output) == "ChainMap({'k': 1})"
    out = ex("import math\nmath")
    assert isinstance(out.output, WorkerValue) and "module 'math'" in str(out.output)
    # ... a final answer, a tool argument, a variable sent in get a clear error.
    ex.send_tools({"final_answer": lambda answer: answer, "echo": lambda v: v})
    with pytest.raises(InterpreterError, match="arguments of tool .final_answer. cannot cross the process boundary"):
        ex("def g():\n    pass\nfinal_answer(g)")
    with pytest.raises(InterpreterError, match="arguments of tool .echo. cannot cross.*ChainMap"):
        ex("echo(collections.ChainMap())")
    # A listed class crosses (as a pickle that meets the host's pre-pass).
    ex2 = make_process_executor(["collections"], cross_classes=["collections.ChainMap"])
    import collections

    assert ex2("import collections\ncollections.ChainMap({'k': 1})").output == (
        collections.ChainMap({"k": 1}))
    with pytest.raises(InterpreterError, match="cannot cross"):
        ex.send_variables({"fn": lambda: 1})


def test_regex_catastrophe_ends_at_deadline_and_state_survives(make_process_executor):
    ex = make_process_executor(["re"], timeout_seconds=1)
    ex("kept = 'still here'")
    start = time.monotonic()
    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 1 seconds"):
        ex("import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')")
    assert time.monotonic() - start < 2.0 + 1.0  # 2 s, plus slack for a loaded machine
    assert ex("kept").output == "still here"


def test_crashed_worker_is_reported_and_replaced(make_process_executor):
    # A fatal signal delivered to the worker (as a crash in C would be).
    ex = make_process_executor(["signal"])
    ex("before = [1, 2, 3]")
    first_pid = ex.worker_pid
    # under ASan (abort_on_error=1) its SEGV handler turns the crash into SIGABRT
    sig = "SIG(SEGV|ABRT)" if os.environ.get("SMOLAGENTS_NATIVE_SANITIZE") == "1" else "SIGSEGV"
    with pytest.raises(InterpreterError, match=f"killed by signal {sig}") as info:
        ex("import signal\nsignal.raise_signal(signal.SIGSEGV)")
    assert "new worker" in str(info.value)
    # The replacement starts when the executor is used next, with the variables.
    assert ex("before + [4]").output == [1, 2, 3, 4]
    assert ex.worker_pid != first_pid


def test_signals_the_code_sends_itself_end_the_worker_as_they_end_any_process(spawn_way):
    """The worker is its pid namespace's init, which the kernel does not end with a signal
    sent from inside the namespace at its default action: the worker's handler for every
    signal that ends a process ends it instead, with the status the host reads as that
    signal (jail_end_on_signals). A fault's signal, which the kernel forces, too; Python's own
    handlers (SIGINT) and what it ignores (SIGPIPE) are kept."""
    sanitized = os.environ.get("SMOLAGENTS_NATIVE_SANITIZE") == "1"
    with WorkerPool(size=1) as pool:
        ex = LocalPythonExecutor(["os", "signal", "ctypes", "threading"], isolation="process",
                                 pool=pool)
        ex.send_tools({})
        try:
            assert ex("import os\nos.getpid()").output == 1
            for send, name in [
                ("ctypes.CDLL(None).kill(os.getpid(), signal.SIGTERM)", "SIGTERM"),
                ("signal.pthread_kill(threading.get_ident(), signal.SIGHUP)", "SIGHUP"),
                ("signal.raise_signal(signal.SIGUSR1)", "SIGUSR1"),
                ("signal.raise_signal(signal.SIGXCPU)", "SIGXCPU"),
                ("signal.raise_signal(signal.SIGRTMIN + 3)", "SIGRTMIN\\+3"),
                ("ctypes.string_at(1)", "SIG(SEGV|ABRT)" if sanitized else "SIGSEGV"),
            ]:
                with pytest.raises(InterpreterError, match=f"killed by signal ({name})"):
                    ex(f"import ctypes, os, signal, threading\n{send}\n'still running'")
            # SIGALRM after a stand-in (whose repr ran under a SIGALRM of its own, then set the
            # action back)
            assert "Opaque object" in str(ex("class Opaque:\n    pass\nOpaque()").output)
            with pytest.raises(InterpreterError, match="killed by signal SIGALRM"):
                ex("import signal\nsignal.raise_signal(signal.SIGALRM)")
            # kept: Python's own action for SIGINT (its handler, or SIG_IGN when the host
            # started with SIGINT ignored), not the worker's: the step ends with
            # KeyboardInterrupt or goes on (on 3.10 it goes on, in process too), never with the
            # signal; and its SIG_IGN for SIGPIPE
            try:
                ex("import signal\nsignal.raise_signal(signal.SIGINT)")
            except InterpreterError as exc:
                assert "KeyboardInterrupt" in str(exc) and "killed by" not in str(exc), exc
            assert ex("import signal\nsignal.raise_signal(signal.SIGPIPE)\n'on'").output == "on"
            assert ex.sandbox["supervisor"] is (spawn_way == "supervisor")
        finally:
            ex.close()


@pytest.mark.skipif(os.environ.get("SMOLAGENTS_NATIVE_SANITIZE", "0") not in ("", "0"),
                    reason="no address-space rlimit under AddressSanitizer")
def test_memory_bomb_ends_at_the_rlimit(make_process_executor):
    # the in-process memory budget off: this is the rlimit's test
    ex = make_process_executor(
        worker_limits={"memory_bytes": 2 << 30}, timeout_seconds=60, max_memory_bytes=None
    )
    with pytest.raises(InterpreterError) as info:
        ex("hog = []\nwhile True:\n    hog.append(bytearray(10**7))")
    assert "memory" in str(info.value).lower()
    assert ex("1 + 1").output == 2


@pytest.mark.skipif(os.environ.get("SMOLAGENTS_NATIVE_SANITIZE", "0") not in ("", "0"),
                    reason="no address-space rlimit under AddressSanitizer")
def test_memory_bomb_ends_at_the_budget_with_the_in_process_message(make_process_executor):
    """With the default budget (512 MiB) under a 2 GiB rlimit, the budget trips first: the
    step ends with the in-process message and the same worker goes on, although the step
    left half a gigabyte in `hog` (too much to copy to the host under the rlimit)."""
    from smolagents_native import _core

    if not _core.MEMORY_BUDGET:
        pytest.skip("allocator hooks unavailable (debug allocator below us)")
    code = "hog = []\nwhile True:\n    hog.append(bytearray(10**7))"
    with pytest.raises(InterpreterError) as in_process:
        LocalPythonExecutor([], isolation="none", timeout_seconds=60)(code)
    ex = make_process_executor(worker_limits={"memory_bytes": 2 << 30}, timeout_seconds=60)
    ex("before = [1, 2]")
    pid = ex.worker_pid
    with pytest.raises(InterpreterError) as info:
        ex(code)
    assert str(info.value) == str(in_process.value)
    assert "Memory budget exceeded" in str(info.value)
    assert ex.worker_pid == pid  # not killed, not replaced
    assert ex("del hog\nbefore + [3]").output == [1, 2, 3]
    assert "hog" not in ex.state and ex.state["before"] == [1, 2]


def test_the_source_budget_means_the_same_in_the_worker(make_process_executor):
    """max_source_bytes crosses to the worker with the other constructor arguments; the host
    checks it first (the source is not sent), the worker's core checks it again."""
    code = "x = 1\n" * 20  # 120 bytes
    with pytest.raises(InterpreterError) as in_process:
        LocalPythonExecutor([], isolation="none", max_source_bytes=100)(code)
    ex = make_process_executor(max_source_bytes=100)
    assert ex.budgets["max_source_bytes"] == 100
    with pytest.raises(InterpreterError) as host:
        ex(code)
    assert str(host.value) == str(in_process.value)
    assert "max_source_bytes" in str(host.value)
    ex._budget_copy["max_source_bytes"] = None  # the host's check off: the worker's answers
    with pytest.raises(InterpreterError) as worker:
        ex(code)
    assert str(worker.value) == str(in_process.value)
    assert ex("x = 1\nx + 1").output == 2


def test_a_tool_calling_its_own_executor_is_refused_as_in_process(make_process_executor):
    """The step lock of LocalPythonExecutor.__call__ applies: a nested step on the same
    thread is an InterpreterError (it would otherwise interleave frames on the channel)."""
    ex = make_process_executor()
    ex.send_tools({"again": lambda: ex("1")})
    with pytest.raises(InterpreterError, match="already running a step"):
        ex("again()")
    assert ex("2 + 2").output == 4


def test_process_steps_are_observed_like_in_process_steps(make_process_executor):
    from smolagents_native import observability as obs

    ex = make_process_executor()
    out, error, metrics = obs.measure(ex, "x = 2\nprint('hi')\nx * 21", step=3)
    assert error is None and out.output == 42 and out.logs == "hi\n"
    assert metrics.step == 3 and metrics.operations and metrics.logs_size == 3
    assert metrics.output_size and metrics.error_type is None
    out, error, metrics = obs.measure(ex, "import os")
    assert out is None and isinstance(error, InterpreterError)
    assert metrics.error_type == "InterpreterError" and metrics.imports == ["os"]


def test_seccomp_refuses_exec_sockets_and_processes(make_process_executor):
    """Calls the in-process policy lets through (the modules are authorized) reach the kernel,
    which refuses them: EPERM from the filter, not a policy message."""
    eperm = "PermissionError: [Errno 1] Operation not permitted"
    ex = make_process_executor(["subprocess", "socket"])
    for code in (
        "import subprocess\nsubprocess.run(['/bin/true'])",  # fork + execve
        "import socket\nsocket.socket()",
        "import socket\nsocket.socketpair(socket.AF_INET)",
    ):
        with pytest.raises(InterpreterError) as info:
            ex(code)
        assert eperm in str(info.value), code
    # A connected AF_UNIX pair reaches nothing outside the worker (asyncio's self-pipe).
    assert ex("import socket\na, b = socket.socketpair()\na.send(b'x')\nb.recv(1)").output == b"x"
    # Granting the network lifts the socket filter (and the namespace).
    net = make_process_executor(["socket"], allow_network=True)
    assert net("import socket\ns = socket.socket()\ns.close()\n'ok'").output == "ok"


def test_filter_directly():
    """The filter on its own, in a forked child: threads still work, the rest is refused."""
    import socket
    import threading

    from smolagents_native import _core

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        results = []
        try:
            _core.sandbox_apply()
            for attempt in (
                lambda: socket.socket(),
                lambda: os.execv("/bin/true", ["true"]),
                lambda: os.fork(),
            ):
                try:
                    attempt()
                    results.append("allowed")
                except PermissionError:
                    results.append("refused")
            t = threading.Thread(target=lambda: results.append("thread"))
            t.start()
            t.join()
        finally:
            os.write(write, ",".join(results).encode())
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 1000).decode() == "refused,refused,refused,thread"
    os.close(read)


def test_host_environment_is_invisible(make_process_executor, monkeypatch):
    monkeypatch.setenv("SMOLAGENTS_NATIVE_HOST_SECRET", "hunter2-host-secret")
    ex = make_process_executor(["os"], worker_env={"GIVEN": "yes"})
    out = ex(
        "import os\n"
        "seen = dict(os.environ)\n"
        "procs = []\n"
        "for entry in os.listdir('/proc'):\n"
        "    if entry.isdigit():\n"
        "        try:\n"
        "            fd = os.open('/proc/' + entry + '/environ', os.O_RDONLY)\n"
        "            procs.append(os.read(fd, 1 << 20))\n"
        "            os.close(fd)\n"
        "        except OSError:\n"
        "            pass\n"
        "(seen, procs, os.getcwd())"
    )
    seen, procs, cwd = out.output
    assert seen.get("GIVEN") == "yes"
    assert "SMOLAGENTS_NATIVE_HOST_SECRET" not in seen
    assert all(b"hunter2-host-secret" not in blob for blob in procs)
    assert cwd != os.getcwd()


def test_secure_default_and_explicit_opt_out():
    assert needs_process(["numpy"]) == ["numpy"]
    assert needs_process(["math", "json", "collections.abc"]) == []
    assert needs_process(["os", "*"]) == ["os", "*"]
    with LocalPythonExecutor([]) as ex:
        assert type(ex) is LocalPythonExecutor and ex.isolation == "none"
    pytest.importorskip("numpy")  # an authorized module must be installed
    with pytest.warns(RuntimeWarning, match="isolation='none'"):
        ex = LocalPythonExecutor(["numpy"], isolation="none")
    assert type(ex) is LocalPythonExecutor
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with LocalPythonExecutor(["numpy"]) as ex:
            assert isinstance(ex, ProcessExecutor)
    with pytest.raises(ValueError):
        LocalPythonExecutor([], isolation="thread")

    class Custom(LocalPythonExecutor):
        pass

    with pytest.raises(TypeError, match="isolation='process'"):
        Custom([], isolation="process")


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


def test_pool_shared_closed_and_no_leaked_processes(spawn_way):
    with WorkerPool(size=2) as pool:
        a = LocalPythonExecutor([], isolation="process", pool=pool)
        b = LocalPythonExecutor([], isolation="process", pool=pool)
        a("v = 'a'")
        b("v = 'b'")
        assert (a("v").output, b("v").output) == ("a", "b")
        server = pool._server
        procs = {server.proc.pid} | _descendants(server.proc.pid)
        # the fork server, and per worker: its supervisor and the worker (the jail's init);
        # or (a root host's) the worker alone
        assert len(procs) == 1 + 2 * (2 if spawn_way == "supervisor" else 1)
        a.close()
        with pytest.raises(InterpreterError, match="closed"):
            a("1")
        b.close()
        b.close()  # idempotent
    assert server.proc.poll() is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in procs):
        time.sleep(0.05)
    alive = []
    for p in procs:
        try:
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(p)
        except OSError:
            pass
    assert alive == []


def test_run_many_local(pool):
    results = pool.run_many([f"{i} * 2" for i in range(10)] + ["1/0"])
    assert [r.output for r in results[:10]] == [i * 2 for i in range(10)]
    assert isinstance(results[10], InterpreterError)


def test_granted_directory_is_the_only_host_directory(make_process_executor, tmp_path):
    granted = tmp_path / "granted"
    granted.mkdir()
    granted.chmod(0o777)  # the worker writes as an unprivileged uid (65534 on a root host)
    (granted / "in.txt").write_text("given")
    (tmp_path / "beside.txt").write_text("not given")
    ex = make_process_executor(["os"], granted_paths=[str(granted)])
    code = (
        "import os\n"
        f"fd = os.open({str(granted / 'in.txt')!r}, os.O_RDONLY)\n"
        "data = os.read(fd, 100)\n"
        "os.close(fd)\n"
        f"fd = os.open({str(granted / 'out.txt')!r}, os.O_WRONLY | os.O_CREAT)\n"
        "os.write(fd, b'written')\n"
        "os.close(fd)\n"
        "try:\n"
        f"    os.stat({str(tmp_path / 'beside.txt')!r})\n"
        "    beside = True\n"
        "except OSError:\n"
        "    beside = False\n"
        "(data, beside)"
    )
    assert ex(code).output == (b"given", False)
    assert (granted / "out.txt").read_bytes() == b"written"


def test_network_is_refused_unless_granted(make_process_executor):
    ex = make_process_executor(["socket"])
    with pytest.raises(InterpreterError, match="PermissionError|Operation not permitted|Forbidden"):
        ex("import socket\nsocket.socket()")


def test_restricted_unpickler_never_resolves_unlisted_globals():
    import pickle
    import pathlib

    from smolagents_native.isolation import protocol as P

    assert P.loads_restricted(pickle.dumps({"a": [1, (2.5, b"x")], "s": {3}}), {}) == {
        "a": [1, (2.5, b"x")], "s": {3}}
    for hostile in (os.system, ProcessExecutor):
        with pytest.raises(pickle.UnpicklingError, match="may not cross"):
            P.loads_restricted(pickle.dumps(hostile), {})
    with pytest.raises(pickle.UnpicklingError, match="REDUCE of pathlib.*PosixPath"):
        P.loads_restricted(pickle.dumps(pathlib.Path("x")), {})
    # A hand-written pickle calling os.system is refused before anything is called.
    with pytest.raises(pickle.UnpicklingError, match="REDUCE of posix.system"):
        P.loads_restricted(b"cposix\nsystem\n(S'true'\ntR.", {})
    allowed = {P.class_key(pathlib.PurePosixPath): pathlib.PurePosixPath}
    assert P.loads_restricted(pickle.dumps(pathlib.PurePosixPath("a")), allowed) == (
        pathlib.PurePosixPath("a"))


def _socket_fds(ex):
    return ex(
        "import os, stat\n"
        "def is_socket(fd):\n"
        "    try:\n"
        "        return stat.S_ISSOCK(os.fstat(fd).st_mode)\n"
        "    except OSError:\n"
        "        return False\n"
        "[fd for fd in range(3, 64) if is_socket(fd)]"
    ).output


def test_forged_frames_from_the_worker_cross_only_as_data(make_process_executor):
    """Code that writes its own frame on the channel (os authorized) gets no more than data:
    a frame out of turn replaces the worker; one in turn (the right sequence number) is
    followed by the real report, which is bytes after the step's report: replaced too; and
    its pickle would meet the pre-pass, never the unpickler."""
    from smolagents_native.isolation import protocol as P

    from smolagents_native import _core

    forged_output = b"cposix\nsystem\n(S'touch /tmp/forged'\ntR."
    forged_value = _core.wire_dumps(object(), lambda obj: (P.PICKLE_EXT, forged_output))
    envelope = b"".join(P.encode_done(0, forged_value, True, "", 0, {}, []))
    ex = make_process_executor(["os"])
    fds = _socket_fds(ex)
    assert len(fds) == 1  # the channel to the host is the worker's only socket
    frame = P.HEADER.pack(len(envelope), P.DONE, ex._seq - 7) + envelope
    with pytest.raises(InterpreterError, match="broke the protocol.*during step"):
        ex(f"import os\nos.write({fds[0]}, {frame!r})\n'real'")
    assert ex("1 + 1").output == 2  # a new worker took over
    # In turn (the next RUN's number, read from the host here: the code cannot know it):
    # the host takes the forged report for the step's, refuses its pickle, and the real
    # report that follows is caught as bytes after the report, now or at the next step.
    fds = _socket_fds(ex)
    frame = P.HEADER.pack(len(envelope), P.DONE, ex._seq + 1) + envelope
    with pytest.raises(InterpreterError, match="REDUCE of posix.system|broke the protocol|sent a value the host refuses"):
        ex(f"import os\nos.write({fds[0]}, {frame!r})\n'real'")
    try:
        ex("1 + 1")
    except InterpreterError as exc:
        assert "broke the protocol" in str(exc)
    assert ex("2 + 2").output == 4
    assert not os.path.exists("/tmp/forged")
    with pytest.raises(__import__("pickle").UnpicklingError, match="REDUCE of posix.system"):
        P.decode_value(forged_value, {("collections", "ChainMap"): object})


def test_collection_during_a_fork_server_request_does_not_deadlock(make_process_executor):
    """The collector may run inside any allocation, including inside a fork-server request
    (the audit hook of its sendmsg) on the thread that holds the server's lock. Collecting
    another executor of that server then must not ask the server anything."""
    import threading

    keep = make_process_executor()
    keep("1")
    doomed = make_process_executor()
    doomed("2")
    assert doomed._server is keep._server
    done = threading.Event()

    def collect_while_locked():
        with keep._server.lock:  # as inside request(), when the collector runs
            doomed.__del__()
        done.set()

    t = threading.Thread(target=collect_while_locked, daemon=True)
    t.start()
    t.join(10)
    assert done.is_set(), "collecting an executor deadlocked on the fork server's lock"
    assert keep("3").output == 3  # the server and the other executor still work


def test_asyncio_runs_in_a_worker(make_process_executor):
    """asyncio in a worker: its event loop's AF_UNIX self-pipe passes the kernel filter, and the
    code's coroutines run under it (tests/engine/test_coroutines.py: the same program in process)."""
    ex = make_process_executor(["asyncio"])
    program = (
        "import asyncio\n"
        "async def work(i):\n"
        "    await asyncio.sleep(0.002 * (3 - i))\n"
        "    return i * i\n"
        "async def main():\n"
        "    squares = await asyncio.gather(*(work(i) for i in range(3)))\n"
        "    return squares, await asyncio.wait_for(asyncio.create_task(work(5)), timeout=5)\n"
        "asyncio.run(main())"
    )
    assert ex(program).output == ([0, 1, 4], 25)


@pytest.mark.parametrize(
    "authorized, code, expected",
    [
        (["random.*"], "import random\nrandom._inst.random() < 1", True),
        (["enum.*"], "from enum import _EnumDict\nissubclass(_EnumDict, dict)", True),
    ],
)
def test_private_names_of_wholesale_modules_in_a_worker(make_process_executor, authorized,
                                                         code, expected):
    """In a worker, whose kernel is the boundary, private names of a module authorized
    wholesale are readable (tests/engine/test_imports_policy.py: refused in the host's process)."""
    assert make_process_executor(authorized)(code).output == expected


def test_print_to_sys_stdout_is_in_the_logs(make_process_executor):
    """`sys` authorized (process mode): print(..., file=sys.stdout) is the step's logs, as
    print() without a file; another file (sys.stderr) is not."""
    ex = make_process_executor(["sys"])
    out = ex('import sys\nprint("a", file=sys.stdout)\nprint("b", file=sys.stderr)\nprint("c")')
    assert out.logs == "a\nc\n"


def test_the_workers_interpreter_is_started_as_a_plain_one(make_process_executor):
    """The fork server gets what `python -I` gives (no PYTHON* variable of the host's, no
    user site directory, its working directory off sys.path) without the flags: the code's
    `sys.flags` are a plain interpreter's, as CPython shows them (monty's import__sys), and
    its locale is UTF-8 without the UTF-8 mode."""
    ex = make_process_executor(["sys", "site", "locale"])
    out = ex(
        "import sys, site, locale\n"
        "f = sys.flags\n"
        "(f.isolated, f.ignore_environment, f.no_user_site, bool(getattr(f, 'safe_path', 0)),\n"
        " f.utf8_mode, locale.getpreferredencoding().lower().replace('-', ''),\n"
        " [p for p in sys.path if p in ('', '/') or p.startswith('/nonexistent')],\n"
        " any('/.local/' in p for p in sys.path))"
    ).output
    import subprocess
    import sys

    # UTF-8 mode is a plain interpreter's default from 3.15 (PEP 686): as this one shows it
    plain = subprocess.run([sys.executable, "-c", "import sys; print(sys.flags.utf8_mode)"],
                           env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                           capture_output=True, text=True, check=True).stdout.strip()
    assert out == (0, 0, 0, False, int(plain), "utf8", [], False)


def test_closing_ends_the_tool_thread(make_process_executor):
    # Tool calls with a deadline run on the executor's tool thread; closing the executor ends
    # it (a service closes thousands of executors: a thread each was left behind).
    import threading

    def tool_threads():
        return [t for t in threading.enumerate() if t.name == "smolagents_native-tool"]

    before = len(tool_threads())
    ex = make_process_executor(timeout_seconds=10)
    ex.send_tools({"echo": lambda v: v})
    assert ex("echo(41) + 1").output == 42
    assert len(tool_threads()) == before + 1
    ex.close()
    deadline = time.monotonic() + 10
    while len(tool_threads()) > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(tool_threads()) == before
