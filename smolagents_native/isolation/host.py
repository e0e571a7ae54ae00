"""The host side of `isolation="process"` (`smolagents_native.isolation` re-exports it).

`WorkerPool` owns a fork server (`isolation.worker`) and bounds the live workers;
`ProcessExecutor` (what `LocalPythonExecutor(..., isolation="process")` returns) owns one
worker, each in a sandbox of its own (`isolation.jail`: namespaces, an unprivileged uid, no
capabilities, seccomp, rlimits), proxies tool calls back to the host, keeps the variables of
the last completed step as encoded data, and replaces a worker that crashed, passed its
deadline or broke the protocol. docs/isolation.md explains the layers.
"""

from __future__ import annotations

import atexit
import collections
import copy
import inspect
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import types
import warnings
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from .. import observability as _obs
from .._budgets import BUDGETS
from .._engine import _BASE_IDS, _same_tools, _tools_snapshot
from .._mode import needs_process  # noqa: F401  (in __all__)
from ..errors import ExecutionTimeoutError, InterpreterError
from ..executor import (
    NESTED_STEP,
    CodeOutput,
    LocalPythonExecutor,
    PrintContainer,
    _get_ident,
)
from . import jail as _jail
from . import protocol as P
from . import wire as _wire
from . import worker as W
# the mode decision lives apart (in-process executors never import this module); re-exported


__all__ = ["ProcessExecutor", "WorkerPool", "default_pool", "needs_process", "run_many"]

GRACE_SECONDS = 0.5  # the host kills a worker this long after its step's deadline
# Bounds of the host's waits outside a step: a fork server's start (it imports the pool's
# preloaded modules), any other fork-server request, a new worker's set-up (its jail, INIT).
SERVER_START_SECONDS = 120.0
SERVER_REQUEST_SECONDS = 30.0
WORKER_START_SECONDS = 30.0
CONTROL_SECONDS = 60.0  # TOOLS / RESTORE requests
# Variables the fork server (never the code: the worker clears its environment) inherits so
# that a sanitizer build of the core loads in it.
_SANITIZER_ENV = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")
_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
DEFAULT_LIMITS = {
    # RLIMIT_AS: the 1 GiB step stack and numpy's arenas fit. AddressSanitizer reserves
    # terabytes of shadow address space: no address-space limit under it.
    "memory_bytes": None if _ASAN else 4 << 30,
    "open_files": 256,
    "file_bytes": 64 << 20,
    "cpu_seconds": 3600,
    # RLIMIT_NPROC: the worker's threads (it makes no process), each a pid of the host's.
    "processes": 512,
    # The worker's scratch (/tmp, its working directory and $HOME): a tmpfs of this size.
    "disk_bytes": _jail.DEFAULT_DISK_BYTES,
    # The largest frame the host reads from the worker (a step's report, a tool call).
    "frame_bytes": P.MAX_FRAME,
}
_RLIMIT_KEYS = ("memory_bytes", "open_files", "file_bytes", "cpu_seconds", "processes")
# The source-size budget's message (csrc/budget/budgets.def), as the worker's core words it.
_SOURCE_TOO_LONG = next(
    row[5] for row in BUDGETS if row[0] == "max_source_bytes").replace("%lld", "%d")
FALLBACKS = ("error", "warn", "allow")


# ---------------------------------------------------------------------------------------------
# Fork servers and pools.


class _ForkServer:
    """One `smolagents_native.isolation.worker` process and its control socket. It forks
    the process that holds each worker's sandbox (on a root host the worker itself, its
    jail's init; else a supervisor); the worker's sandbox is built per worker from the spec of
    the SPAWN request, so one fork server serves every sandbox profile of its pool."""

    def __init__(self, preload: tuple[str, ...]):
        self.preloaded: set[str] = set(preload)
        self.owner = os.getpid()  # a forked child of the host has a copy: never its to end
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.dead = False
        host_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.control = host_end
        # the spin before a receive (P.SPIN_SECONDS) is the host's, for its workers too
        options = {"preload": list(preload), "spin": P.SPIN_SECONDS,
                   "supervised": _jail.SUPERVISED}
        # The worker imports this very package (the host's copy, wherever it is: an editable
        # checkout, an unpacked sdist, site-packages), loaded from its own directory: the
        # directory around it is never put on sys.path (a worker granted it could plant
        # modules there that the fork server would import). What `-I` would do is done here
        # instead, so that the code's `sys.flags` are a plain interpreter's as CPython shows
        # them (isolated, ignore_environment, no_user_site, safe_path all off): the environment
        # is this one, with no PYTHON* variable but the sanitizer's; the user's site
        # directory is a path that does not exist (PYTHONUSERBASE); the bootstrap removes the
        # working directory `-c` puts first on sys.path before it imports anything. A UTF-8
        # locale (LANG=C.UTF-8, the worker's too): under the C locale CPython would turn on
        # its UTF-8 mode (PEP 540), a flag a host's interpreter does not usually show.
        cmd = [
            _python(), "-c", _BOOTSTRAP,
            _PACKAGE_DIR, str(server_end.fileno()), P.dumps(options).hex(),
        ]
        try:
            self.proc = subprocess.Popen(
                cmd,
                pass_fds=(server_end.fileno(),),
                cwd="/",
                env={"PATH": "/usr/bin:/bin", "PYTHONUSERBASE": _NO_USER_BASE,
                     "LANG": "C.UTF-8",
                     **{k: os.environ[k] for k in _SANITIZER_ENV if k in os.environ}},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            server_end.close()
            self.control.close()
            raise InterpreterError(
                f"the sandbox fork server could not start ({cmd[0]}): {exc}") from None
        server_end.close()
        try:
            info = self._exchange(None, SERVER_START_SECONDS)
        except InterpreterError as exc:
            raise InterpreterError(f"the sandbox fork server did not start: {exc}") from None
        self.pid = info["pid"]
        self.hardened = info["hardened"]
        # From now on the fork server's stderr is not read: drain it so it never blocks.
        threading.Thread(target=_drain, args=(self.proc.stderr,), daemon=True).start()

    def _exchange(self, frame: tuple[bytes, int | None] | None, timeout: float) -> Any:
        """Send `frame` (bytes, fd to attach) and read the reply within `timeout` seconds;
        a fork server that does not answer in time is killed (InterpreterError)."""
        sock = self.control
        try:
            if frame is not None:
                data, fd = frame
                sock.settimeout(timeout)
                if fd is None:
                    sock.sendall(data)
                else:
                    socket.send_fds(sock, [data], [fd])
            sock.settimeout(timeout)
            _kind, payload = P.recv(sock)
            return P.decode_value(payload, {})  # data only (the wire), no pickle
        except (OSError, P.ProtocolError, EOFError, ValueError) as exc:
            why = "did not answer in time" if isinstance(exc, socket.timeout) else str(exc)
            detail = self._kill()
            raise InterpreterError(f"the sandbox fork server {why}{detail}") from None

    def request(self, kind: int, value: Any, fd: int | None = None,
                timeout: float | None = None) -> Any:
        """Send a request, return its reply; within `timeout` seconds (None: the module's
        SERVER_REQUEST_SECONDS, read now) or the fork server is killed (InterpreterError)."""
        if timeout is None:
            timeout = SERVER_REQUEST_SECONDS
        payload = P.dumps(value)
        frame = P.HEADER.pack(len(payload), kind, 0) + payload
        with self.lock:
            if self.dead:
                raise InterpreterError("the sandbox fork server has ended")
            return self._exchange((frame, fd), timeout)

    def spawn(self, spec: dict[str, Any]) -> tuple[socket.socket, int]:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = self.request(W.SPAWN, spec, worker_end.fileno())
        except BaseException:
            host_end.close()
            raise
        finally:
            worker_end.close()
        return host_end, pid

    def alive(self) -> bool:
        return not self.dead and self.proc is not None and self.proc.poll() is None

    def _kill(self) -> str:
        """End the fork server now; return what it said on stderr, if anything."""
        self.dead = True
        try:
            self.control.close()
        except OSError:
            pass
        detail = ""
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            stderr = self.proc.stderr
            if stderr is not None:
                try:
                    os.set_blocking(stderr.fileno(), False)
                    text = (stderr.read() or b"").decode(errors="replace").strip()
                except (OSError, ValueError):
                    text = ""
                if text:
                    detail = ": " + text.splitlines()[-1][:500]
        return detail

    def close(self) -> None:
        """End the fork server (it kills its workers when its control channel closes). In a
        forked child of the host, only close this process's copy of the channel."""
        self.dead = True
        try:
            self.control.close()
        except OSError:
            pass
        if self.proc is not None and os.getpid() == self.owner:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# smolagents_native/, the package this subpackage is in.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The fork server's first lines: this package from its directory (argv[1]), then worker.main.
# A user base that does not exist: no user site-packages directory (and no .pth file of it)
# for the fork server, without -s (which the code would see in sys.flags).
_NO_USER_BASE = "/nonexistent/smolagents-native-no-user-site"
_BOOTSTRAP = (
    "import sys\n"
    "if sys.path and sys.path[0] in ('', '/'):\n"
    "    del sys.path[0]\n"
    "import importlib.util as u\n"
    "d = sys.argv.pop(1)\n"
    "s = u.spec_from_file_location('smolagents_native', d + '/__init__.py',"
    " submodule_search_locations=[d])\n"
    "m = u.module_from_spec(s)\n"
    "sys.modules['smolagents_native'] = m\n"
    "s.loader.exec_module(m)\n"
    "from smolagents_native.isolation.worker import main\n"
    "sys.exit(main(sys.argv))\n"
)


def _python() -> str:
    """The interpreter the fork server runs: the host's own, by an absolute path (a host
    started as `../venv/bin/python` has a relative argv[0]; the fork server's working
    directory is `/`)."""
    exe = sys.executable or ""
    if not exe or not os.path.isabs(exe):
        exe = os.path.abspath(exe) if exe else ""
    if not exe or not os.access(exe, os.X_OK):
        raise InterpreterError(
            f"process isolation needs the host's Python interpreter (sys.executable is "
            f"{sys.executable!r})")
    return exe


def _drain(stream: Any) -> None:
    try:
        while stream.read(65536):
            pass
    except (OSError, ValueError):
        pass


_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


class _Closing:
    """A context manager whose exit, and garbage collection, call `close()` (idempotent)."""

    def __enter__(self):  # noqa: ANN204  (returns the subclass)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._collect()
        except Exception:
            pass

    def _collect(self) -> None:
        """What garbage collection does: `close()` unless a subclass needs less. The collector
        may run inside any allocation, including one made while this thread holds a lock
        that `close()` would take."""
        self.close()


class WorkerPool(_Closing):
    """A fork server shared by process-mode executors, and a bound on their workers.

    Args:
        size: how many workers may be alive at once (an executor created beyond it waits
            for one to close, up to `pool_timeout`; `run_many` runs this many programs at a
            time). None: no bound (the default pool's setting; `run_many` then uses the
            number of CPUs).
        backend: "local" (fork servers on this machine) or "ray" (workers are Ray actors,
            for `run_many`; see `smolagents_native.isolation.ray`).
        preload: modules the fork server imports once, so forked workers start warm.
        pool_timeout: how long a new executor waits for a free slot (seconds; None: as long
            as it takes). Past it: InterpreterError("no free worker in the pool ...").
    """

    def __init__(
        self,
        size: int | None = 4,
        backend: str = "local",
        preload: Iterable[str] = (),
        pool_timeout: float | None = None,
        **ray_options: Any,
    ):
        if size is not None and size < 1:
            raise ValueError("size must be at least 1")
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', not {backend!r}")
        self.size = size
        self.backend = backend
        self.preload = tuple(preload)
        self.pool_timeout = pool_timeout
        self._server: _ForkServer | None = None
        self._lock = threading.Lock()
        # Modules workers imported under their authorized names: preloaded by the fork server
        # for the workers forked after (`learn`, `warm`).
        self._learned: dict[str, None] = {}
        self._slots = threading.BoundedSemaphore(size) if size is not None else None
        # Executors of `run_many(share_sandbox=True)` lanes, idle between batches, with the
        # configuration they were made for (`_lane_executor`, `_keep_lane`).
        self._idle_lanes: list[tuple[dict[str, Any], Any]] = []
        self._closed = False
        self._ray: Any = None
        if backend == "ray":
            from .ray import RayBackend

            self._ray = RayBackend(size or os.cpu_count() or 2, **ray_options)
        _POOLS.add(self)

    def server(self, preload: Iterable[str] = ()) -> _ForkServer:
        """The pool's fork server, started (or restarted, if it ended) when needed, with
        `preload` imported in it (so that workers forked from it start warm)."""
        if self._closed:
            raise InterpreterError("this WorkerPool is closed")
        preload = tuple(dict.fromkeys((*self.preload, *preload)))
        with self._lock:
            server = self._server
            if server is not None and not server.alive():
                server.close()
                server = None
            if server is None:
                server = _ForkServer(preload)
                self._server = server
        missing = [name for name in preload if name not in server.preloaded]
        if missing:
            server.request(W.PRELOAD, missing, timeout=SERVER_START_SECONDS)
            server.preloaded.update(missing)
        return server

    def learn(self, modules: Iterable[str], authorized: Iterable[str]) -> None:
        """Remember modules a worker reported importing, for the workers forked later. Only
        names the executor's own authorization covers by name (never through "*": a worker
        may lie, and the fork server imports outside the sandbox), well-formed, and at most
        MAX_LEARNED in all."""
        from ..executor import check_import_authorized

        named = [a for a in authorized if a != "*" and not a.startswith("*")]
        for name in modules:
            if (len(self._learned) < MAX_LEARNED and isinstance(name, str)
                    and _MODULE_NAME.fullmatch(name) and _learnable(name)
                    and check_import_authorized(name, named)):
                self._learned.setdefault(name, None)

    def warm(self, preload: Iterable[str]) -> list[str]:
        """What the fork server should have imported for an executor that authorizes
        `preload` (its `_preload_names`): those, and what workers of this pool imported under
        the same packages."""
        tops = {name.split(".")[0] for name in preload}
        return [*preload, *(m for m in self._learned if m.split(".")[0] in tops)]

    def acquire(self, timeout: float | None = None) -> None:
        """Take a worker slot, waiting up to `timeout` seconds (None: the pool's
        `pool_timeout`; both None: as long as it takes)."""
        if self._slots is None:
            return
        if timeout is None:
            timeout = self.pool_timeout
        if self._slots.acquire(blocking=False):
            return
        self._end_idle_lanes()  # workers a batch left for the next one give way
        if not self._slots.acquire(timeout=timeout):
            raise InterpreterError(
                f"no free worker in the pool (size {self.size}) within {timeout} s")

    def release(self) -> None:
        if self._slots is None:
            return
        try:
            self._slots.release()
        except ValueError:
            pass

    def run_many(
        self, codes: Iterable[str], tools: dict[str, Callable] | None = None,
        *, share_sandbox: bool = False, **executor_kwargs: Any,
    ) -> list[Any]:
        """Run each program on a fresh interpreter state given `tools` (`send_tools`);
        return, in order, a CodeOutput or the exception (InterpreterError,
        ExecutionTimeoutError) each one ended with.

        share_sandbox=False (the default): each program in a sandbox of its own (a new
        worker). True: each of the pool's lanes keeps one worker and runs its programs there
        one after another, each on a fresh interpreter state with the scratch directory
        emptied (`reset`), as Monty's pool runs programs; the programs of one batch then
        share a process (its imported modules, what libraries keep process-wide), never
        with the host or another executor (docs/isolation.md, *Batches*). A program that
        ends its worker (a timeout, a crash) gets the next program a new one.

        On the Ray backend the tools are serialized by Ray (cloudpickle) and run in the
        actor's process on its node, outside the sandbox, as tools run in the host on the
        local backend."""
        codes = list(codes)
        for code in codes:
            if not isinstance(code, str):
                raise TypeError(f"each program must be a str, not {type(code).__name__}")
        executor_kwargs.setdefault("additional_authorized_imports", [])
        if self._ray is not None:
            return self._ray.run_many(codes, executor_kwargs, tools, share_sandbox)
        results: list[Any] = [None] * len(codes)
        work = iter(enumerate(codes))
        lock = threading.Lock()

        def take() -> tuple[int, str] | None:
            with lock:
                return next(work, None)

        def give(index: int, result: Any) -> None:
            results[index] = result

        def lane() -> None:
            if share_sandbox:
                return shared_lane()
            while (item := take()) is not None:
                try:
                    executor = LocalPythonExecutor(
                        **executor_kwargs, isolation="process", pool=self)
                except InterpreterError as exc:  # as the program's step would have ended
                    give(item[0], exc)
                    continue
                try:
                    executor.send_tools(dict(tools or {}))
                    give(item[0], run_program(executor, item[1]))
                finally:
                    executor.close()

        def shared_lane() -> None:
            while True:
                try:
                    executor = self._lane_executor(executor_kwargs, tools)
                except InterpreterError as exc:
                    if (item := take()) is None:
                        return
                    give(item[0], exc)
                    continue
                try:
                    if _obs.quiet():
                        # The lane's programs sent a window ahead of its worker.
                        executor._run_batch(take, give)
                    else:  # each program observed on its own
                        while (item := take()) is not None:
                            executor.reset()
                            give(item[0], run_program(executor, item[1]))
                except BaseException:
                    executor.close()
                    raise
                self._keep_lane(executor_kwargs, executor)
                return

        failures: list[BaseException] = []

        def lane_thread() -> None:
            try:
                lane()
            except BaseException as exc:  # noqa: BLE001 - raised in the caller, below
                failures.append(exc)

        lanes = max(1, min(self.size or os.cpu_count() or 2, len(codes)))
        threads = [threading.Thread(target=lane_thread, name=f"run_many-{i}", daemon=True)
                   for i in range(lanes - 1)]
        for thread in threads:
            thread.start()
        try:
            lane()  # the calling thread is a lane too
        finally:
            for thread in threads:
                thread.join()
        if failures:  # what ended another lane (a bad keyword argument...) reaches the caller
            raise failures[0]
        return results

    # -- batch lanes kept between batches ---------------------------------------------------

    def _lane_executor(self, kwargs: dict[str, Any], tools: dict[str, Callable] | None) -> Any:
        """An executor for a lane of `run_many(share_sandbox=True)`: an idle one a batch with
        the same configuration left (its worker up, each program made fresh anyway), or a
        new one."""
        executor = None
        with self._lock:
            for i, (key, idle) in enumerate(self._idle_lanes):
                if _same_config(key, kwargs):
                    executor = idle
                    del self._idle_lanes[i]
                    break
        if executor is None:
            executor = LocalPythonExecutor(**kwargs, isolation="process", pool=self)
        try:
            executor._check_idle_worker()
            executor.reset()
            executor.send_tools(dict(tools or {}))
        except BaseException:
            executor.close()
            raise
        return executor

    def _keep_lane(self, kwargs: dict[str, Any], executor: Any) -> None:
        """Keep a lane's executor, idle, for the next batch with the same configuration (it
        holds its slot; `acquire` ends idle lanes before it waits for one)."""
        try:
            key = copy.deepcopy(kwargs)
        except Exception:  # noqa: BLE001 - a configuration that cannot be kept: not kept
            key = None
        old = []
        with self._lock:
            if key is not None and not self._closed and not executor._closed:
                self._idle_lanes.append((key, executor))
                executor = None
                keep = self.size or os.cpu_count() or 2
                old, self._idle_lanes = self._idle_lanes[:-keep], self._idle_lanes[-keep:]
        for _, idle in old:
            idle.close()
        if executor is not None:
            executor.close()

    def _end_idle_lanes(self) -> None:
        with self._lock:
            idle, self._idle_lanes = self._idle_lanes, []
        for _, executor in idle:
            executor.close()

    def close(self) -> None:
        self._closed = True
        self._end_idle_lanes()
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.close()
        if self._ray is not None:
            self._ray.close()
            self._ray = None



_DEFAULT_POOL: WorkerPool | None = None
_DEFAULT_LOCK = threading.Lock()


def default_pool() -> WorkerPool:
    """The pool executors use when given none (created on first use, closed at exit)."""
    global _DEFAULT_POOL
    with _DEFAULT_LOCK:
        if _DEFAULT_POOL is None or _DEFAULT_POOL._closed:
            _DEFAULT_POOL = WorkerPool(size=None)
        return _DEFAULT_POOL


@atexit.register
def _close_pools() -> None:
    for pool in list(_POOLS):
        pool.close()


def run_many(
    codes: Iterable[str], pool: WorkerPool | None = None,
    tools: dict[str, Callable] | None = None, *, share_sandbox: bool = False,
    **executor_kwargs: Any,
) -> list[Any]:
    """`pool.run_many(codes, tools, ...)` on `pool` or the default pool."""
    return (pool or default_pool()).run_many(
        codes, tools, share_sandbox=share_sandbox, **executor_kwargs)


def _timed_out(timeout: Any, why: str = "") -> ExecutionTimeoutError:
    """A step's timeout, in smolagents' words."""
    return ExecutionTimeoutError(
        f"Code execution exceeded the maximum execution time of {timeout} seconds{why}")


def _same_config(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two executors' keyword arguments are equal (an argument whose comparison
    fails or is not a plain truth value: not equal)."""
    try:
        return bool(a.keys() == b.keys() and all(a[k] == b[k] for k in a))
    except Exception:  # noqa: BLE001 - e.g. an array's ambiguous truth value
        return False


def run_program(executor: LocalPythonExecutor, code: str) -> Any:
    """One program of a batch: its CodeOutput, or the error it ended with."""
    try:
        return executor(code)
    except (InterpreterError, ExecutionTimeoutError) as exc:
        return exc


# ---------------------------------------------------------------------------------------------
# The executor.

_INIT_PARAMS = None


def _sandbox_profile(
    config: dict[str, Any], network: bool, granted_paths: Iterable[str]
) -> tuple[bool, tuple[tuple[str, bool], ...]]:
    """(network granted?, ((directory, writable), ...)) of the worker's namespaces: the one
    place where the executor's grants become the sandbox's view. Reads the process-mode
    options and, when the executor has them, its own grant arguments (`allow_network`,
    `readable_dirs`, `writable_dirs`), which also cross to the worker's in-process policy."""
    net = bool(network) or bool(config.get("allow_network"))
    paths: dict[str, bool] = {}
    for path in config.get("readable_dirs") or ():
        paths.setdefault(os.path.abspath(path), False)
    for path in (*granted_paths, *(config.get("writable_dirs") or ())):
        paths[os.path.abspath(path)] = True
    return net, tuple(sorted(paths.items()))


class _ToolRunner:
    """A thread that runs host tool calls for one executor, so that the thread waiting for
    the worker can stop waiting at the step's deadline. One call at a time; a call that
    outlives its deadline keeps this runner busy (it is then left to finish and its result
    discarded, and the executor makes a new runner). `stop()` ends the thread: at once when
    idle, else when its call returns (the executor stops its runner when it closes, and a
    runner it leaves to a late tool)."""

    def __init__(self) -> None:
        self.idle = True
        self._stopping = False
        self._job: Callable[[], Any] | None = None
        self._context: Any = None
        self._result: tuple[Any, bool] | None = None
        self._ready = threading.Event()
        self._done = threading.Event()
        thread = threading.Thread(target=self._loop, name="smolagents_native-tool", daemon=True)
        thread.start()
        self.ident = thread.ident

    def _loop(self) -> None:
        while True:
            self._ready.wait()
            self._ready.clear()
            job, context = self._job, self._context
            self._job = self._context = None
            if job is None:  # stop()
                return
            try:
                result: tuple[Any, bool] = (context.run(job), True)
            except BaseException as exc:  # the tool's error, for the code
                result = (exc, False)
            self._result = result
            self.idle = True
            self._done.set()
            del job, context, result
            if self._stopping:
                return

    def stop(self) -> None:
        self._stopping = True
        self._ready.set()

    def run(self, job: Callable[[], Any], deadline: float) -> tuple[Any, bool] | None:
        """The job's (value, returned?), or None when the deadline passed first."""
        import contextvars

        self.idle = False
        self._done.clear()
        self._job, self._context = job, contextvars.copy_context()
        self._ready.set()
        if not self._done.wait(max(deadline - time.monotonic(), 0)):
            return None
        result, self._result = self._result, None
        return result


MAX_LEARNED = 512
_MODULE_NAME = __import__("re").compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


_NOT_LEARNED = frozenset({"test", "tests", "testing", "conftest", "setup"})


def _learnable(name: str) -> bool:
    """A module a worker reported that the fork server may import for later workers: public
    parts only (never a `__main__` entry point or a private module, which the package
    imports itself when it needs it), never a test suite."""
    return not any(part.startswith("_") or part in _NOT_LEARNED for part in name.split("."))


def _preload_names(authorized: Iterable[str]) -> list[str]:
    """The modules a fork server imports so that an executor's workers start warm: each
    authorized name ("pkg.sub" itself), and for a wildcard ("pkg.*") the package and its
    submodules the host has imported already. Nothing for "*"."""
    out: dict[str, None] = {}
    loaded = list(sys.modules)
    for entry in authorized:
        if entry == "*" or entry.startswith("*"):
            continue
        if entry.endswith(".*"):
            package = entry[:-2]
            out.setdefault(package, None)
            prefix = package + "."
            for name in loaded:
                if name.startswith(prefix) and _MODULE_NAME.fullmatch(name):
                    out.setdefault(name, None)
        elif "*" not in entry:
            out.setdefault(entry, None)
    return list(out)


def _import_dirs() -> list[str]:
    """The directories the host and its fork servers import from (real paths): sys.path,
    the working directory for its empty entry, and this package."""
    out = {_PACKAGE_DIR}
    for entry in sys.path:
        out.add(entry or os.getcwd())
    return [os.path.realpath(p) for p in out if isinstance(p, str)]


def _check_writable(paths: tuple[tuple[str, bool], ...]) -> None:
    """Refuse a writable grant the worker could turn against the host:

    - one that holds a directory the host or a fork server imports from (sys.path, this
      package): a worker could plant a module there that the host would run, outside any
      sandbox;
    - on a root host, one the worker cannot write (it writes as uid 65534): every write
      there would fail with EACCES; say so now, with the remedy, rather than at the first
      write. (A host that is not root: its worker writes as the host's own uid.)"""
    imports = _import_dirs()
    for path, writable in paths:
        if not writable:
            continue
        real = os.path.realpath(path)
        inside = [d for d in imports
                  if d == real or d.startswith(real.rstrip("/") + "/")]
        if inside:
            raise ValueError(
                f"the writable directory {path!r} holds {inside[0]!r}, where the host imports "
                "modules from: a worker could plant a module there that the host would run; "
                "grant a directory of its own (or read-only)")
    if os.geteuid() != 0:
        return
    for path, writable in paths:
        if not writable:
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue  # absent: it is not bound (the worker sees no such directory)
        if st.st_uid == _jail.WORKER_UID or st.st_mode & 0o002 or (
            st.st_gid == _jail.WORKER_GID and st.st_mode & 0o020
        ):
            continue
        try:
            if os.getxattr(path, "system.posix_acl_access"):
                continue  # an ACL may grant it; the kernel decides
        except OSError:
            pass
        raise ValueError(
            f"the writable directory {path!r} (owner uid {st.st_uid}, mode "
            f"{st.st_mode & 0o7777:04o}) cannot be written by the sandbox worker, which runs "
            f"as uid {_jail.WORKER_UID} on this root host: `chown {_jail.WORKER_UID} {path}`, "
            "make it world-writable, or grant it read-only (readable_dirs)")


def _init_parameters() -> list[inspect.Parameter]:
    """LocalPythonExecutor.__init__'s parameters (read once): every one of them crosses to
    the worker, so a new executor argument needs no code here."""
    global _INIT_PARAMS
    if _INIT_PARAMS is None:
        sig = inspect.signature(LocalPythonExecutor.__init__)
        _INIT_PARAMS = [
            p
            for name, p in sig.parameters.items()
            if name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        ]
    return _INIT_PARAMS


class ProcessExecutor(_Closing, LocalPythonExecutor):
    """LocalPythonExecutor whose steps run in a sandboxed worker process.

    Process-mode options (besides every LocalPythonExecutor argument, all forwarded):
        pool: the WorkerPool to take a worker from (default: a shared pool).
        worker_env: environment variables the worker sees (none of the host's by default).
        cross_classes: classes (or "module.qualname" strings) whose instances may cross from
            the worker into the host, besides builtin data types.
        network: grant the network (no seccomp socket filter, the host's network namespace;
            also granted by the executor's own `allow_network` when it has it).
        granted_paths: directories bound read-write into the worker's file-system view
            (besides the executor's own `readable_dirs` / `writable_dirs` when it has them).
        worker_limits: overrides of the worker's limits (memory_bytes, open_files,
            file_bytes, cpu_seconds, processes (its threads): rlimits, never above the
            host's own; disk_bytes: the size of its scratch tmpfs; frame_bytes: the largest
            frame the host reads).
        grace_seconds: how long past a step's deadline the host waits before killing.
        isolation_fallback: what to do when a layer of the sandbox is unavailable on this
            host (no user namespaces, seccomp...): "error" (the default: the executor does
            not start, and the error names the layer, the kernel's message and the remedy),
            "warn" (start with the layers there are, with a RuntimeWarning naming what is
            missing) or "allow" (the same, silently). `sandbox` tells what is in force.
    """

    _process_capable = True

    def __init__(
        self,
        *args: Any,
        isolation: str | None = "process",
        pool: WorkerPool | None = None,
        worker_env: dict[str, str] | None = None,
        cross_classes: Iterable[Any] = (),
        network: bool = False,
        granted_paths: Iterable[str] = (),
        worker_limits: dict[str, int | None] | None = None,
        grace_seconds: float = GRACE_SECONDS,
        isolation_fallback: str = "error",
        **kwargs: Any,
    ):
        # Bind the arguments against LocalPythonExecutor's signature: the whole configuration,
        # in one dict, whatever arguments the executor grows.
        bound = inspect.signature(LocalPythonExecutor.__init__).bind(None, *args, **kwargs)
        bound.apply_defaults()
        config = {p.name: bound.arguments[p.name] for p in _init_parameters()
                  if p.name in bound.arguments and p.name != "isolation"}
        self._functions: dict[str, Callable] = dict(config.pop("additional_functions") or {})
        self._closed = True
        self._sock: socket.socket | None = None
        self._channel: P.Channel | None = None
        self._pidfd: int | None = None
        self._pool_acquired = False
        self.last_changes: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self._owner = os.getpid()  # a forked child of the host never ends this worker
        super().__init__(*args, **kwargs, isolation="process")
        if isolation_fallback not in FALLBACKS:
            raise ValueError(
                f"isolation_fallback must be one of {FALLBACKS}, not {isolation_fallback!r}")
        unknown = set(worker_limits or ()) - set(DEFAULT_LIMITS)
        if unknown:
            raise ValueError(f"unknown worker_limits: {', '.join(sorted(unknown))} "
                             f"(known: {', '.join(DEFAULT_LIMITS)})")
        self.isolation = "process"
        self._executor_kwargs = config
        self._pool = pool or default_pool()
        self._env = dict(worker_env or {})
        self._allowed: dict[tuple[str, str], Any] = {}
        for entry in cross_classes:
            key = P.class_key(entry)
            if isinstance(entry, str):
                import importlib

                obj: Any = importlib.import_module(key[0])
                for part in key[1].split("."):
                    obj = getattr(obj, part)
            else:
                obj = entry
            self._allowed[key] = obj
            # pickle names a class by where it is defined, which may not be where the host
            # named it ("pathlib.PurePosixPath" is pathlib._local.PurePosixPath from 3.13)
            if isinstance(getattr(obj, "__module__", None), str) and isinstance(
                getattr(obj, "__qualname__", None), str
            ):
                self._allowed.setdefault(P.class_key(obj), obj)
        network, paths = _sandbox_profile(config, network, granted_paths)
        _check_writable(paths)
        self._limits = {**DEFAULT_LIMITS, **(worker_limits or {})}
        self._fallback = isolation_fallback
        self._spec = _jail.sandbox_spec(
            network, paths, self._limits["disk_bytes"],
            {k: self._limits[k] for k in _RLIMIT_KEYS}, isolation_fallback)
        self._grace = float(grace_seconds)
        self._saved: dict[str, bytes] = {}
        self._fresh = False  # reset() asked for a fresh program: the next RUN is a FRESH_RUN
        self._sent_budgets: tuple[Any, Any, Any] | None = None
        self._tool_names: list[str] | None = None
        self._synced_static: list[Any] | None = None  # _tools_snapshot
        self._tools: dict[str, Callable] = dict(self._functions)
        # Sequence numbers start at a random value: code that can count its steps cannot
        # tell the number of the next request (forging a reply in turn needs the worker's
        # memory, and then the reply is only the code's own result).
        self._seq = secrets.randbits(32)
        self._tool_runner: _ToolRunner | None = None
        self._sandbox: Any = None
        self._warned = False
        self._lock = threading.RLock()
        self._pool.acquire()
        self._pool_acquired = True
        self._closed = False
        try:
            self._preload = _preload_names(self.authorized_imports)
            self._server = self._pool.server(self._pool.warm(self._preload))
            self._start()
        except BaseException:
            self.close()
            raise

    # -- worker lifecycle ------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        return {
            "executor_kwargs": self._executor_kwargs,
            # The budgets are this executor's (its copy of the module's constants, made when
            # it was created), never the worker's own defaults: a budget means the same in
            # both modes.
            "budgets": dict(self._budget_copy),
            "budget_attributes": self._sent_budgets,
            "function_names": list(self._functions),
            "env": self._env,
            "cross_classes": sorted(self._allowed),
            "preload_packages": self._preload,
        }

    def _budget_attributes(self) -> tuple[Any, Any, Any]:
        return (self.timeout_seconds, self.max_operations, self.max_while_iterations)

    def _sync_budgets(self) -> None:
        """Give the worker the budget attributes the host changed since it last had them (in
        process they apply from the next step: so they do here)."""
        now = self._budget_attributes()
        if now != self._sent_budgets:
            self._request(P.BUDGETS, P.dumps(now))
            self._sent_budgets = now

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFFFFFFFF
        return self._seq

    def _start(self) -> None:
        """Start a worker: SPAWN from the fork server, then INIT on its own channel, READY
        back (or why its sandbox could not be set up), then the variables and tools."""
        self._server = self._pool.server(self._pool.warm(self._preload))
        # A new worker: fresh by birth, given the budget attributes as they are now (INIT).
        self._fresh = False
        self._sent_budgets = self._budget_attributes()
        sock, pid = self._server.spawn(self._spec)
        self._sock, self._pid = sock, pid
        self._channel = P.Channel(sock, self._limits["frame_bytes"] or P.MAX_FRAME)
        try:
            self._pidfd = os.pidfd_open(pid)
        except (OSError, AttributeError):  # gone already (reported below), or no pidfd
            self._pidfd = None
        seq = self._next_seq()
        try:
            try:
                P.send(sock, P.INIT, P.dumps(self._config()), seq,
                       time.monotonic() + WORKER_START_SECONDS)
            except OSError as exc:
                # The sandbox may have failed and said why before the INIT arrived.
                sent_error: OSError | None = exc
            else:
                sent_error = None
            kind, data, rseq = self._channel.recv(time.monotonic() + WORKER_START_SECONDS)
            if sent_error is not None and kind != P.SETUP_FAIL:
                raise sent_error
        except (OSError, P.ProtocolError, P.ChannelTimeout) as exc:
            how = self._end_worker()
            why = "did not answer in time" if isinstance(exc, P.ChannelTimeout) else str(exc)
            raise InterpreterError(f"The sandbox worker did not start ({how}): {why}") from None
        if kind == P.SETUP_FAIL:
            self._end_worker()
            raise InterpreterError(str(data, "utf-8", "replace"))
        if kind == P.FAIL and rseq == seq:
            self._end_worker()
            raise InterpreterError(
                f"the worker could not build the executor: {str(data, 'utf-8', 'replace')}")
        if kind != P.READY or rseq != seq:
            self._end_worker()
            raise InterpreterError(f"The sandbox worker did not start: frame {kind} out of turn")
        try:
            sandbox = P.decode_value(data, {})  # data only (the wire), no pickle
        except Exception as exc:
            self._end_worker()
            raise InterpreterError(f"The sandbox worker did not start: {exc}") from None
        self._sandbox = sandbox
        missing = sandbox.get("missing") if isinstance(sandbox, dict) else None
        if missing and self._fallback == "warn" and not self._warned:
            self._warned = True
            warnings.warn(
                "the process sandbox runs without: " + "; ".join(
                    f"{layer} ({message}; remedy: {_jail.REMEDIES.get(layer, '')})"
                    for layer, message in missing),
                RuntimeWarning, stacklevel=5)
        if self._saved:
            self._request(P.RESTORE, P.dumps(self._saved))
        if self._tool_names is not None:
            self._request(P.TOOLS, P.dumps(self._tool_names))

    def _end_worker(self, ask: bool = True) -> str:
        """Kill the current worker (the process that holds it, by pidfd: no fork-server round
        trip; the worker dies with it) and return how it ended, as the fork server saw it
        (`ask`; else "closed" at once: the fork server reaps it by itself)."""
        sock, self._sock = self._sock, None
        self._channel = None
        pidfd, self._pidfd = self._pidfd, None
        if sock is not None:
            sock.close()
        if pidfd is not None:
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
            os.close(pidfd)
        if not ask:
            return "closed"
        try:
            status = self._server.request(W.STATUS, self._pid)
        except Exception:
            return "lost"
        return W.describe_status(status)

    def _worker_died(self) -> str:
        """How the worker ended, when its channel closed by itself: asked of the fork server
        (which waits a moment for it) before the process that holds it is killed."""
        sock, self._sock = self._sock, None
        self._channel = None
        if sock is not None:
            sock.close()
        try:
            status = self._server.request(W.STATUS, self._pid)
            how = W.describe_status(status)
        except Exception:
            how = "lost"
        self._end_worker()
        return how

    def _ensure_worker(self) -> None:
        """A worker ended by a deadline, a crash or a protocol error is replaced when the
        executor is used next, not within the failed step (whose end is bounded by its
        deadline plus the grace)."""
        if self._sock is None:
            self._start()

    def _request(self, kind: int, payload: bytes) -> bytes:
        """Send a control frame; return the OK frame's payload. A worker that does not answer
        within CONTROL_SECONDS, or answers out of turn, is killed (InterpreterError) and
        replaced at the next use."""
        assert self._sock is not None and self._channel is not None
        seq = self._next_seq()
        try:
            # the send and the answer each within CONTROL_SECONDS (a worker that stops
            # reading cannot hold the host in the send either)
            P.send(self._sock, kind, payload, seq, time.monotonic() + CONTROL_SECONDS)
            rkind, data, rseq = self._channel.recv(time.monotonic() + CONTROL_SECONDS)
            if rkind not in (P.OK, P.FAIL) or rseq != seq:
                raise P.ProtocolError(f"frame kind {rkind} out of turn")
        except (OSError, P.ProtocolError, P.ChannelTimeout) as exc:
            how = self._end_worker()
            raise InterpreterError(f"The sandbox worker did not answer ({how}): {exc}") from None
        if rkind == P.FAIL:
            raise InterpreterError(str(data, "utf-8", "replace"))
        return data

    @property
    def sandbox(self) -> types.MappingProxyType:
        """The layers in force in the current worker, as it reported them (read-only):
        namespaces, uid (inside and on the host), capabilities, securebits, no_new_privs,
        seccomp, the file-system view, the limits in force, the scratch size, and `missing`:
        the layers the host's `isolation_fallback` let it go without."""
        with self._lock:
            if not self._closed:
                self._ensure_worker()
            return types.MappingProxyType(dict(self._sandbox or {}))

    # -- the executor API ------------------------------------------------------------------

    # The step itself goes through LocalPythonExecutor.__call__ / _step: the same step lock
    # (one step at a time, a nested step refused), the same observability wrapper. Only the
    # two hooks below differ.

    def _prepare_step(self) -> None:
        # the common case, nothing to do: a worker, the tools it has (what _sync_tools
        # tests first); a closed executor is refused by _run_code
        synced = self._synced_static
        if (synced is not None and self._sock is not None
                and _same_tools(self.static_tools or {}, synced)):
            return
        with self._lock:
            if self._closed:
                raise InterpreterError("this executor is closed")
            self._ensure_worker()
            self._sync_tools()

    def _run_code(self, code_action: str) -> tuple[Any, bool]:
        if not isinstance(code_action, str):
            raise TypeError(
                f"code must be a str, not {type(code_action).__name__}")
        source = code_action.encode("utf-8", "surrogatepass")
        limit = self._budget_copy.get("max_source_bytes")
        if limit is not None and len(source) > limit:
            # the worker's own check, made here: the source is not sent
            self._set_logs("", 0)
            raise InterpreterError(_SOURCE_TOO_LONG % limit)
        with self._lock:
            if self._closed:
                raise InterpreterError("this executor is closed")
            timeout = self.timeout_seconds
            deadline = None if timeout is None else time.monotonic() + timeout + self._grace
            self._ensure_worker()
            fresh, self._fresh = self._fresh, False
            self._sync_budgets()
            sock, channel = self._sock, self._channel
            assert sock is not None and channel is not None
            seq = self._next_seq()
            try:
                P.send(sock, P.FRESH_RUN if fresh else P.RUN, source, seq, deadline)
                while True:
                    # spin, then sleep (P.SPIN_SECONDS): a tiny step's report, a tool
                    # call, find the host awake
                    kind, data, rseq = channel.recv(deadline, P.SPIN_SECONDS)
                    if rseq != seq:
                        raise P.ProtocolError(f"a frame of step {rseq} during step {seq}")
                    if kind == P.DONE:
                        break
                    if kind == P.FAIL and fresh:
                        # The worker could not make the program fresh (its scratch could
                        # not be emptied...) and did not run it: a new worker, fresh by
                        # birth, runs it; the used one is never used again.
                        fresh = False
                        self._end_worker()
                        self._ensure_worker()
                        sock, channel = self._sock, self._channel
                        assert sock is not None and channel is not None
                        seq = self._next_seq()
                        P.send(sock, P.RUN, source, seq, deadline)
                        continue
                    if kind != P.CALL:
                        raise P.ProtocolError(f"unexpected frame kind {kind}")
                    # The tool runs within the step's deadline, as in process (a tool
                    # that outlives it ends the step; _call_tool).
                    self._serve_tool_call(sock, data, seq, deadline)
                if channel.pending():
                    raise P.ProtocolError("bytes arrived after the step's report")
            except P.ChannelTimeout:
                self._end_worker()
                self._set_logs("", 0)
                raise _timed_out(timeout) from None
            except (P.ProtocolError, OSError) as exc:
                if self._closed:  # close() from another thread killed the worker
                    self._end_worker()
                    self._set_logs("", 0)
                    raise InterpreterError(
                        "The executor was closed while this step ran: its worker was stopped"
                    ) from None
                what = self._channel_failed(exc)
                self._set_logs("", 0)
                raise InterpreterError(
                    f"{what} [{exc}]. A new worker takes over at the next step, with the "
                    "variables of the last completed step."
                ) from None
            except BaseException:
                # Interrupted in the host (KeyboardInterrupt...): the worker's late reply
                # would be read as the answer to the next request. Stop it.
                self._end_worker()
                raise
            return self._finish(data, deadline)

    def _run_batch(self, take: Callable[[], tuple[int, str] | None],
                   give: Callable[[int, Any], None]) -> None:
        """Run the programs `take()` hands out ((index, code), None when there are no more)
        in this executor's worker, each on a fresh program state (as `reset()` then a step)
        and give each one's CodeOutput or the error it ended with (InterpreterError,
        ExecutionTimeoutError) to `give(index, result)`, what `run_many(share_sandbox=True)`
        returns for it. The programs go as BATCH_RUN frames, a window of them ahead of the
        worker; their reports carry no variables (the state stays fresh: no program of a
        batch leaves the executor anything). A program whose worker ends (its deadline, a
        crash) ends as the step would; the programs sent after it, which the worker never
        started, run in the next worker. Each program's host deadline (the backstop) counts
        from the report of the one before it, or from its sending."""
        me = _get_ident()
        if self._step_thread == me or self._tool_thread == me:
            raise InterpreterError(NESTED_STEP)
        with self._step_lock:
            self._step_thread = me
            try:
                self.reset()
                self._batch(take, give)
            finally:
                self._step_thread = None
                with self._lock:
                    self._forget_program()

    def _batch(self, take: Callable[[], tuple[int, str] | None],
               give: Callable[[int, Any], None]) -> None:
        limit = self._budget_copy.get("max_source_bytes")
        queue: collections.deque[tuple[int, bytes]] = collections.deque()  # to send
        # sent, not yet reported: (index, source, seq, made fresh first)
        sent: collections.deque[tuple[int, bytes, int, bool]] = collections.deque()
        more = True
        started = 0.0  # when the oldest program sent began, as the host sees it
        timeout = self.timeout_seconds
        while True:
            if not queue and more and len(sent) < P.BATCH_WINDOW:
                item = take()
                if item is None:
                    more = False
                else:
                    index, code = item
                    source = code.encode("utf-8", "surrogatepass")
                    if limit is not None and len(source) > limit:
                        give(index, InterpreterError(_SOURCE_TOO_LONG % limit))
                    else:
                        queue.append((index, source))
                    continue
            if not queue and not sent:
                return
            with self._lock:
                if self._closed:
                    error = InterpreterError("this executor is closed")
                    for index, *_ in (*sent, *queue):  # noqa: B007
                        give(index, error)
                    sent.clear()
                    queue.clear()
                    while (item := take()) is not None:
                        give(item[0], error)
                    return
                if self._sock is None:  # a new worker: what was sent and not run goes again
                    assert not sent
                    try:
                        self._start()
                        self._sync_tools()
                    except InterpreterError as exc:  # the step would have ended so
                        give(queue.popleft()[0], exc)
                        continue
                self._sync_budgets()
                timeout = self.timeout_seconds
                sock, channel = self._sock, self._channel
                assert sock is not None and channel is not None
                try:
                    ahead = sum(len(source) for _, source, _, _ in sent)
                    # what is sent ahead fits in the socket's buffer; bounded all the same
                    limit_at = None if timeout is None else (
                        time.monotonic() + timeout + self._grace)
                    while queue and len(sent) < P.BATCH_WINDOW and (
                            not sent or ahead + len(queue[0][1]) <= P.BATCH_WINDOW_BYTES):
                        index, source = queue.popleft()
                        seq = self._next_seq()
                        fresh, self._fresh = self._fresh, True  # the next is made fresh
                        if not sent:
                            started = time.monotonic()
                        sent.append((index, source, seq, fresh))
                        ahead += len(source)
                        P.send(sock, P.BATCH_RUN, [b"\x01" if fresh else b"\x00", source],
                               seq, limit_at)
                    index, _, seq, fresh = sent[0]
                    deadline = None if timeout is None else started + timeout + self._grace
                    # no spin: the next programs are already in the worker's socket, and
                    # a lane's thread polling would take CPU time from the other lanes
                    kind, data, rseq = channel.recv(deadline)
                    if rseq != seq:
                        raise P.ProtocolError(f"a frame of step {rseq} during step {seq}")
                    if kind == P.CALL:
                        self._serve_tool_call(sock, data, seq, deadline)
                        continue
                    if kind == P.FAIL and fresh:
                        # The worker could not make the program fresh and did not run it
                        # (nor, as far as the host will see, those sent after it): a new
                        # worker, fresh by birth, runs them.
                        self._end_worker()
                        self._requeue(sent, queue)
                        continue
                    if kind != P.DONE:
                        raise P.ProtocolError(f"unexpected frame kind {kind}")
                    if len(sent) == 1 and channel.pending():
                        raise P.ProtocolError("bytes arrived after the step's report")
                    sent.popleft()
                    started = time.monotonic()
                except P.ChannelTimeout:
                    self._end_worker()
                    give(sent.popleft()[0], _timed_out(timeout))
                    self._requeue(sent, queue)
                    continue
                except (P.ProtocolError, OSError) as exc:
                    if self._closed:
                        self._end_worker()
                        continue  # the closed branch above answers them all
                    what = self._channel_failed(exc)
                    if sent:
                        give(sent.popleft()[0], InterpreterError(
                            f"{what} [{exc}]. A new worker takes over at the next step."))
                    self._requeue(sent, queue)
                    continue
                except BaseException:
                    self._end_worker()
                    raise
                try:
                    status, output, is_final, logs, _, _, _, imported, lineno = \
                        P.decode_done(data)
                    if imported:
                        self._pool.learn(imported, self.authorized_imports)
                    value, is_final = self._outcome(status, output, is_final, lineno, deadline)
                    result: Any = CodeOutput(value, logs, is_final)
                except P.ProtocolError as exc:
                    result = self._malformed_report(exc)
                except (InterpreterError, ExecutionTimeoutError) as exc:
                    result = exc
                if self._sock is None:  # the report ended the worker (_malformed...)
                    self._requeue(sent, queue)
            give(index, result)

    def _check_idle_worker(self) -> None:
        """Before a kept lane's next batch: a worker that ended while idle (the pidfd of
        `worker_pid` readable), or that sent something unasked, is replaced now, not found dead
        by the next program."""
        with self._lock:
            if self._closed or self._sock is None or self._channel is None:
                return
            pidfd = self._pidfd
            ended = pidfd is not None and bool(select.select([pidfd], [], [], 0)[0])
            if ended or self._channel.pending():
                self._end_worker()

    def _channel_failed(self, exc: BaseException) -> str:
        """End the worker whose channel failed during a step (`exc`: the channel closed, or
        the worker broke the protocol) and say how, for the step's error."""
        if isinstance(exc, (BrokenPipeError, ConnectionResetError)) or (
            isinstance(exc, P.ProtocolError) and "closed the channel" in str(exc)
        ):
            how = self._worker_died()
            return f"The sandbox worker process died ({how}) while running this step"
        how = self._end_worker()
        return ("The sandbox worker broke the protocol and was stopped "
                f"({how}) while running this step")

    @staticmethod
    def _requeue(sent: Any, queue: Any) -> None:
        """Programs sent to a worker that ended before it ran them: first in line again, in
        their order, for the next worker."""
        queue.extendleft(reversed([(index, source) for index, source, _, _ in sent]))
        sent.clear()

    def _serve_tool_call(
        self, sock: socket.socket, data: Any, seq: int, deadline: float | None
    ) -> None:
        name = "?"
        try:
            name, args, kwargs = P.decode_call(data, self._allowed, deadline)
            tool = self._tools.get(name)
            if tool is None:
                raise NameError(f"no tool named {name!r}")
            value, ok = self._call_tool(name, tool, args, kwargs, deadline)
        except (P.ChannelTimeout, KeyboardInterrupt, P.ProtocolError):
            raise
        except TimeoutError:  # decoding the arguments passed the deadline
            raise P.ChannelTimeout() from None
        except BaseException as exc:  # the tool's error reaches the code, as in-process
            value, ok = exc, False
        try:
            payload = P.encode_for_worker(value)
        except Exception as exc:
            what = "result" if ok else "exception"
            ok = False
            payload = P.encode_for_worker(TypeError(
                f"the {what} of tool {name!r}, of type {type(value).__name__}, cannot "
                f"cross the process boundary: {exc}"))
        P.send(sock, P.RESULT, [b"\x01" if ok else b"\x00", payload], seq, deadline)

    def _call_tool(self, name: str, tool: Callable, args: tuple, kwargs: dict,
                   deadline: float | None) -> tuple[Any, bool]:
        """(value, returned?) of one host tool call. Without a deadline the tool runs on this
        thread. With one it runs on the executor's tool thread while this one waits until
        the deadline: past it, ChannelTimeout (the step ends with ExecutionTimeoutError at
        deadline + grace; the tool is left to finish on its thread, its result discarded).
        A KeyboardInterrupt, in the tool or in the wait, reaches the caller as such."""
        if deadline is None:
            try:
                return _obs.call_tool(name, tool, args, kwargs), True
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                return exc, False
        runner = self._tool_runner
        if runner is None or not runner.idle:
            runner = self._tool_runner = _ToolRunner()
        self._tool_thread = runner.ident
        try:
            outcome = runner.run(lambda: _obs.call_tool(name, tool, args, kwargs), deadline)
        finally:
            self._tool_thread = None
        if outcome is None:
            self._tool_runner = None  # busy with the late tool: the next call gets another
            runner.stop()  # and this one ends when the late tool returns
            raise P.ChannelTimeout()
        value, ok = outcome
        if not ok and isinstance(value, KeyboardInterrupt):
            raise value
        return value, ok

    def _set_logs(self, logs: str, ops: int) -> None:
        self.state["_print_outputs"] = PrintContainer(logs)
        self.state["_operations_count"] = {"counter": ops}

    def _finish(self, data: Any, deadline: float | None) -> tuple[Any, bool]:
        try:
            (status, output, is_final, logs, ops, updates, removed, imported,
             lineno) = P.decode_done(data)
        except P.ProtocolError as exc:
            self._set_logs("", 0)
            raise self._malformed_report(exc) from None
        if updates or removed or imported:
            self._apply_changes(updates, removed, imported, deadline)
        # The names the step changed or removed, for a caller that forwards `state`
        # (service.py): what the worker reported, nothing re-encoded here.
        self.last_changes = (tuple(updates), tuple(removed))
        self._set_logs(logs, ops)
        return self._outcome(status, output, is_final, lineno, deadline)

    def _apply_changes(self, updates: dict[str, Any], removed: list[str], imported: list[str],
                       deadline: float | None) -> None:
        """A step's report's changes to `state`: the values it updated, the names it
        removed, and the modules it imported (for the pool's preload)."""
        if imported:
            self._pool.learn(imported, self.authorized_imports)
        state, saved, allowed = self.state, self._saved, self._allowed
        for name in removed:
            state.pop(name, None)
            saved.pop(name, None)
        for name, blob in updates.items():
            if blob is not None:
                try:
                    state[name] = P.decode_value(blob, allowed, deadline)
                    saved[name] = bytes(blob)
                    continue
                except TimeoutError:
                    self._decode_timeout()
                except _wire.Unavailable:  # its library is not installed here
                    pass
                except Exception as exc:  # noqa: BLE001 - malformed, or refused
                    self._malformed(exc)
            # Lives in the worker only (a module, a function, an unlisted class).
            state.pop(name, None)
            saved.pop(name, None)

    def _outcome(self, status: int, output: Any, is_final: bool, lineno: int,
                 deadline: float | None) -> tuple[Any, bool]:
        """The step's (value, is_final) from its report, or the error it ended with."""
        allowed = self._allowed
        if status == P.STANDIN:  # the worker could not encode it: its repr, made there
            return P.WorkerValue(output), False
        if status == 2:
            raise ExecutionTimeoutError(output)
        if status:
            error = InterpreterError(output)
            if lineno:
                error.lineno = lineno  # as in process (the worker's InterpreterError.lineno)
            raise error
        try:
            value = P.decode_value(output, allowed, deadline)
        except TimeoutError:
            self._decode_timeout()
        except _wire.Unavailable as exc:
            if is_final:
                raise InterpreterError(
                    f"The final answer cannot cross the process boundary: {exc}"
                ) from None
            value = P.WorkerValue(f"<a value the host cannot build: {exc}>")
        except Exception as exc:  # noqa: BLE001 - malformed, or refused
            self._malformed(exc)
        return value, is_final

    def _malformed_report(self, exc: BaseException) -> InterpreterError:
        """A report that is not a DONE record: the worker is stopped; the step's error."""
        self._end_worker()
        return InterpreterError(
            f"The sandbox worker sent a malformed report and was stopped [{exc}]")

    def _malformed(self, exc: BaseException) -> None:
        """The step's report holds a value no worker of ours sends (malformed, or a pickle
        the host refuses, which the worker checks before sending): the worker is stopped."""
        self._end_worker()
        raise InterpreterError(
            f"The sandbox worker sent a value the host refuses and was stopped [{exc}]. A new "
            "worker takes over at the next step, with the variables of the last completed "
            "step.") from None

    def _decode_timeout(self) -> None:
        """Decoding the step's report passed the deadline: the worker is stopped (what it
        sent may be built to take long) and the step ends as a timeout."""
        self._end_worker()
        raise _timed_out(self.timeout_seconds, " (reading the step's report)") from None

    def _sync_tools(self) -> None:
        static = self.static_tools or {}
        if self._synced_static is not None and _same_tools(static, self._synced_static):
            return  # the common case: nothing changed since last step
        names = []
        tools = dict(self._functions)
        for name, value in static.items():
            base = _BASE_IDS.get(name)
            if base is not None and id(value) in base:
                continue
            if name in self._functions and value is self._functions[name]:
                continue
            names.append(name)
            tools[name] = value
        self._tools = tools
        if names != self._tool_names:
            self._request(P.TOOLS, P.dumps(names))
            self._tool_names = names
        self._synced_static = _tools_snapshot(static)

    def send_variables(self, variables: dict[str, Any]) -> None:
        with self._lock:
            blobs = {}
            for name, value in variables.items():
                try:
                    blobs[name] = P.encode_for_worker(value)
                except Exception as exc:
                    raise InterpreterError(
                        f"variable {name!r} of type {type(value).__name__} cannot cross the "
                        f"process boundary: {exc}"
                    ) from None
            self._ensure_worker()
            if self._fresh:  # reset() before: the program is made fresh first, then given
                self._fresh = False
                try:
                    self._request(P.RESET, b"")
                except InterpreterError:
                    # Not made fresh: a new worker, fresh by birth, takes the variables.
                    self._end_worker()
                    self._ensure_worker()
            self._request(P.RESTORE, P.dumps(blobs))
            self._saved.update(blobs)
            self.state.update(variables)

    def reset(self) -> None:
        # No round trip: the next step goes as FRESH_RUN, which makes the worker's program
        # fresh before it runs the code (a new worker is fresh already: `_start`).
        with self._lock:
            if self._closed:
                raise InterpreterError("this executor is closed")
            self._forget_program()

    def _forget_program(self) -> None:
        """A fresh program from the next step on (under the executor's lock): no state here,
        nothing to restore in a new worker, the next step sent to be made fresh."""
        self.state = {"__name__": "__main__"}
        self._saved.clear()
        self.last_changes = ((), ())
        self._fresh = True

    def send_tools(self, tools: dict[str, Any]) -> None:
        super().send_tools(tools)
        with self._lock:
            if not self._closed:
                self._ensure_worker()
                self._sync_tools()

    # -- lifetime --------------------------------------------------------------------------

    @property
    def worker_pid(self) -> int:
        """The host pid of the process that holds the worker's sandbox: on a root host the
        worker itself (the jail's init, pid 1 of the sandbox's pid namespace), on any other the
        supervisor that forked it (`sandbox["supervisor"]`). Killing it ends the worker."""
        return self._pid

    def _forked_copy(self) -> bool:
        """Whether this object is a copy in a forked child of the host that made it."""
        return getattr(self, "_owner", os.getpid()) != os.getpid()

    def _collect(self) -> None:
        # Never ask the fork server (its request lock may be held by this very thread: the
        # collector runs inside allocations). Killing worker_pid ends the worker; the
        # slot goes back.
        if getattr(self, "_closed", True) and not getattr(self, "_pool_acquired", False):
            return
        self._closed = True
        sock, self._sock = getattr(self, "_sock", None), None
        self._channel = None
        pidfd, self._pidfd = getattr(self, "_pidfd", None), None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
        if pidfd is not None:
            if not self._forked_copy():
                try:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.close(pidfd)
            except OSError:
                pass
        if getattr(self, "_pool_acquired", False):
            self._pool_acquired = False
            self._pool.release()

    def close(self) -> None:
        """End the worker now (a step running in another thread ends with an error) and
        give the pool slot back."""
        runner, self._tool_runner = getattr(self, "_tool_runner", None), None
        if runner is not None:
            runner.stop()  # its thread ends now, or when a late tool returns
        if getattr(self, "_closed", True) and not getattr(self, "_pool_acquired", False):
            return
        if self._forked_copy():
            self._collect()  # this process's copies of the descriptors only
            return
        self._closed = True
        # Kill first, without the executor's lock (a running step holds it): the step's
        # receive then sees the channel close.
        pidfd = getattr(self, "_pidfd", None)
        if pidfd is not None:
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
        with getattr(self, "_lock", threading.RLock()):
            if self._sock is not None or self._pidfd is not None:
                try:
                    # how it ended is nobody's question now: no round trip to the fork
                    # server, which would wait for the jail to be gone
                    self._end_worker(ask=False)
                except Exception:
                    pass
            if self._pool_acquired:
                self._pool_acquired = False
                self._pool.release()


def _process_executor_signature() -> inspect.Signature:
    """ProcessExecutor's whole signature for `help()` and IDEs: LocalPythonExecutor's arguments
    (which `__init__` takes as `*args, **kwargs` and binds itself) and its own keywords."""
    own = inspect.signature(ProcessExecutor.__init__)
    base = [p.name for p in _init_parameters()]
    cut = base.index("isolation")  # *args binds positionally up to it: the rest by keyword
    params = [own.parameters["self"], *_init_parameters()[:cut]]
    params += [p.replace(kind=p.KEYWORD_ONLY) for p in _init_parameters()[cut + 1:]]
    params += [p for p in own.parameters.values() if p.kind is p.KEYWORD_ONLY]
    return own.replace(parameters=params)


ProcessExecutor.__init__.__signature__ = _process_executor_signature()  # type: ignore[attr-defined]
