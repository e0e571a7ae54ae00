"""`isolation="process"`: the executor's steps run in a sandboxed worker process.

`WorkerPool` owns fork servers (`python -m smolagents_native._worker`, one per sandbox
profile: network granted or not, granted directories); `ProcessExecutor` (what
`LocalPythonExecutor(..., isolation="process")` returns) owns one forked worker, proxies tool
calls back to the host, keeps the variables of the last completed step as pickled data, and
replaces a worker that crashed or passed its deadline. docs/isolation.md explains the layers.
"""

from __future__ import annotations

import atexit
import inspect
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from . import _protocol as P
# the mode decision lives apart (in-process executors never import this module); re-exported
from ._isolation_mode import _STDLIB, _STDLIB_PROCESS, needs_process, resolve_isolation  # noqa: F401
from . import _worker as W
from . import observability as _obs
from .errors import ExecutionTimeoutError, InterpreterError
from .executor import (
    CodeOutput,
    LocalPythonExecutor,
    PrintContainer,
    _BASE_IDS,
    _same_tools,
    _tools_snapshot,
)


__all__ = ["ProcessExecutor", "WorkerPool", "default_pool", "needs_process", "run_many"]

GRACE_SECONDS = 0.5  # the host kills a worker this long after its step's deadline
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
}


# ---------------------------------------------------------------------------------------------
# Fork servers and pools.


def _bwrap() -> str | None:
    return shutil.which("bwrap")


def _readonly_roots() -> list[str]:
    """Directories the worker must read: the Python installation, the package, site-packages."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.add(os.path.dirname(os.path.abspath(__file__)))  # this package (editable installs)
    for entry in sys.path:  # site directories, not the host's working directory
        if entry and os.path.isabs(entry) and os.path.exists(entry) and (
            os.path.basename(entry) in ("site-packages", "dist-packages")
            or entry.endswith(".zip")
        ):
            roots.add(entry)
    exe = os.path.realpath(sys.executable)
    roots.add(os.path.dirname(os.path.dirname(exe)))
    out = []
    for root in sorted(roots, key=len):
        if any(root == r or root.startswith(r.rstrip("/") + "/") for r in out):
            continue
        out.append(root)
    return out


class _ForkServer:
    """One `python -m smolagents_native._worker` process and its control socket."""

    def __init__(
        self, network: bool, paths: tuple[tuple[str, bool], ...], preload: tuple[str, ...]
    ):
        self.network = network
        self.preloaded: set[str] = set()
        self.lock = threading.Lock()
        self.workdir = tempfile.mkdtemp(prefix="smolagents-native-worker-")
        self.proc: subprocess.Popen | None = None
        host_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.control = host_end
        options = {"preload": list(preload), "unshare_network": False}
        bwrap = _bwrap()
        if not bwrap:
            options["unshare_network"] = not network
        # The worker imports this very package (the host's copy, wherever it is: an editable
        # checkout, an unpacked sdist, site-packages), isolated from the environment (-I).
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        base = [
            sys.executable, "-I", "-c",
            "import sys; sys.path.insert(0, sys.argv.pop(1)); "
            "from smolagents_native._worker import main; sys.exit(main(sys.argv))",
            pkg_parent, str(server_end.fileno()), P.dumps(options).hex(),
        ]
        if bwrap:
            cmd = [
                bwrap, "--unshare-all", "--die-with-parent", "--new-session",
                "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                "--ro-bind", "/usr", "/usr",
            ]
            for name in _SANITIZER_ENV:
                if name in os.environ:
                    cmd += ["--setenv", name, os.environ[name]]
            if network:
                cmd.append("--share-net")
            for link in ("bin", "lib", "lib64", "sbin"):
                target = os.path.join("/", link)
                if os.path.islink(target):
                    cmd += ["--symlink", os.readlink(target), target]
                elif os.path.isdir(target):
                    cmd += ["--ro-bind", target, target]
            roots = [r for r in _readonly_roots() if not r.startswith("/usr/")]
            # a root under /tmp (a checkout, a venv or an unpacked sdist there) is bound after
            # the private /tmp below, which would hide it
            under_tmp = [r for r in roots if r == "/tmp" or r.startswith("/tmp/")]
            for root in roots:
                if root not in under_tmp:
                    cmd += ["--ro-bind", root, root]
            if network:
                for f in ("/etc/resolv.conf", "/etc/hosts", "/etc/ssl", "/etc/nsswitch.conf"):
                    if os.path.exists(f):
                        cmd += ["--ro-bind", f, f]
            cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
            for root in under_tmp:
                cmd += ["--ro-bind", root, root]
            for path, writable in paths:  # after /tmp: a granted directory may be under it
                cmd += ["--bind" if writable else "--ro-bind", path, path]
            cmd += ["--bind", self.workdir, "/work-dir", "--chdir", "/work-dir", "--", *base]
            self.layers = ["bubblewrap: user, mount, pid, ipc, uts and network namespaces"]
        else:
            cmd = base
            self.layers = ["no bubblewrap: network namespace only (unshare)"]
        try:
            self.proc = subprocess.Popen(
                cmd,
                pass_fds=(server_end.fileno(),),
                cwd=self.workdir,
                env={} if bwrap else {
                    "PATH": "/usr/bin:/bin",
                    **{k: os.environ[k] for k in _SANITIZER_ENV if k in os.environ},
                },
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            server_end.close()
        self.control.settimeout(120)
        try:
            kind, data = P.recv(self.control)
        except Exception as exc:
            self.close()
            raise InterpreterError(f"the sandbox fork server did not start: {exc}") from None
        self.pid_inside = P.loads_restricted(data, {})

    def request(self, kind: int, value: Any, fd: int | None = None) -> Any:
        payload = P.dumps(value)
        frame = P.HEADER.pack(len(payload), kind) + payload
        with self.lock:
            if fd is None:
                self.control.sendall(frame)
            else:
                socket.send_fds(self.control, [frame], [fd])
            _kind, data = P.recv(self.control)
        return P.loads_restricted(data, {})

    def spawn(self, config: dict[str, Any]) -> tuple[socket.socket, int]:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = self.request(W.SPAWN, config, worker_end.fileno())
        except BaseException:
            host_end.close()
            raise
        finally:
            worker_end.close()
        return host_end, pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        """End the fork server (it kills its workers when its control channel closes)."""
        try:
            self.control.close()
        except OSError:
            pass
        if self.proc is not None:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


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
    """Fork servers shared by process-mode executors.

    Args:
        size: how many workers may be alive at once (executors beyond it wait for one to
            close; `run_many` runs this many programs at a time). None: no bound (the
            default pool's setting; `run_many` then uses the number of CPUs).
        backend: "local" (fork servers on this machine) or "ray" (workers are Ray actors,
            for `run_many`; see `smolagents_native.ray_backend`).
        preload: modules the fork server imports once, so forked workers start warm.
    """

    def __init__(
        self,
        size: int | None = 4,
        backend: str = "local",
        preload: Iterable[str] = (),
        **ray_options: Any,
    ):
        if size is not None and size < 1:
            raise ValueError("size must be at least 1")
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', not {backend!r}")
        self.size = size
        self.backend = backend
        self.preload = tuple(preload)
        self._servers: dict[tuple[bool, tuple[str, ...]], _ForkServer] = {}
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size) if size is not None else None
        self._closed = False
        self._ray: Any = None
        if backend == "ray":
            from .ray_backend import RayBackend

            self._ray = RayBackend(size or os.cpu_count() or 2, **ray_options)
        _POOLS.add(self)

    def server(
        self, network: bool, paths: tuple[tuple[str, bool], ...], preload: Iterable[str]
    ) -> _ForkServer:
        """The fork server of this sandbox profile, started if needed, with `preload`
        imported in it (so that workers forked from it start warm)."""
        if self._closed:
            raise InterpreterError("this WorkerPool is closed")
        key = (network, paths)
        preload = tuple(dict.fromkeys((*self.preload, *preload)))
        with self._lock:
            server = self._servers.get(key)
            if server is not None and not server.alive():
                server.close()
                server = None
            if server is None:
                server = _ForkServer(network, paths, preload)
                server.preloaded.update(preload)
                self._servers[key] = server
        missing = [name for name in preload if name not in server.preloaded]
        if missing:
            server.request(W.PRELOAD, missing)
            server.preloaded.update(missing)
        return server

    def acquire(self, timeout: float | None = None) -> None:
        if self._slots is None:
            return
        if not self._slots.acquire(timeout=timeout if timeout is not None else -1):
            raise InterpreterError(f"no free worker in the pool (size {self.size})")

    def release(self) -> None:
        if self._slots is None:
            return
        try:
            self._slots.release()
        except ValueError:
            pass

    def run_many(
        self, codes: Iterable[str], tools: dict[str, Callable] | None = None,
        **executor_kwargs: Any,
    ) -> list[Any]:
        """Run each program in a fresh executor given `tools` (`send_tools`); return, in
        order, a CodeOutput or the exception (InterpreterError, ExecutionTimeoutError) each
        one ended with. On the Ray backend the tools are serialized by Ray (cloudpickle)
        and run in the actor's process on its node, outside the sandbox, as tools run in the
        host on the local backend."""
        codes = list(codes)
        executor_kwargs.setdefault("additional_authorized_imports", [])
        if self._ray is not None:
            return self._ray.run_many(codes, executor_kwargs, tools)
        from concurrent.futures import ThreadPoolExecutor

        def one(code: str) -> Any:
            with LocalPythonExecutor(**executor_kwargs, isolation="process", pool=self) as ex:
                ex.send_tools(dict(tools or {}))
                try:
                    return ex(code)
                except (InterpreterError, ExecutionTimeoutError) as exc:
                    return exc

        with ThreadPoolExecutor(self.size or os.cpu_count() or 2) as threads:
            return list(threads.map(one, codes))

    def close(self) -> None:
        self._closed = True
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
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
    tools: dict[str, Callable] | None = None, **executor_kwargs: Any,
) -> list[Any]:
    """`pool.run_many(codes, tools, ...)` on `pool` or the default pool."""
    return (pool or default_pool()).run_many(codes, tools, **executor_kwargs)


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
        worker_limits: overrides of the worker's rlimits (memory_bytes, open_files,
            file_bytes, cpu_seconds).
        grace_seconds: how long past a step's deadline the host waits before killing.
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
        self._pool_acquired = False
        super().__init__(*args, **kwargs, isolation="process")
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
        self._network, self._paths = _sandbox_profile(config, network, granted_paths)
        self._limits = {**DEFAULT_LIMITS, **(worker_limits or {})}
        self._grace = float(grace_seconds)
        self._saved: dict[str, bytes] = {}
        self._tool_names: list[str] | None = None
        self._synced_static: list[Any] | None = None  # _tools_snapshot
        self._tools: dict[str, Callable] = dict(self._functions)
        self._lock = threading.RLock()
        self._pool.acquire()
        self._pool_acquired = True
        self._closed = False
        try:
            self._server = self._pool.server(
                self._network, self._paths, [m.split(".")[0] for m in self.authorized_imports
                                             if m != "*" and not m.startswith("*")]
            )
            self._start()
        except BaseException:
            self.close()
            raise

    # -- worker lifecycle ------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        return {
            "executor_kwargs": self._executor_kwargs,
            "function_names": list(self._functions),
            "env": self._env,
            "limits": self._limits,
            "network": self._network,
        }

    def _start(self) -> None:
        self._sock, self._pid = self._server.spawn(self._config())
        self._channel = P.Channel(self._sock)
        if self._saved:
            self._request(P.RESTORE, P.dumps(self._saved))
        if self._tool_names is not None:
            self._request(P.TOOLS, P.dumps(self._tool_names))

    def _end_worker(self, kill: bool) -> str:
        """Stop the current worker; return how it ended."""
        sock, self._sock = self._sock, None
        self._channel = None
        if sock is not None:
            sock.close()
        try:
            status = self._server.request(W.KILL if kill else W.STATUS, self._pid)
        except Exception:
            return "lost"
        return W.describe_status(status)

    def _replace(self, kill: bool) -> str:
        how = self._end_worker(kill)
        if not self._server.alive():
            self._server = self._pool.server(self._network, self._paths, ())
        self._start()
        return how

    def _request(self, kind: int, payload: bytes) -> bytes:
        """Send a control frame; return the OK frame's payload. A worker that does not answer
        within a minute, or answers out of turn, is replaced (InterpreterError)."""
        assert self._sock is not None and self._channel is not None
        try:
            P.send(self._sock, kind, payload)
            rkind, data = self._channel.recv(time.monotonic() + 60)
            if rkind not in (P.OK, P.FAIL):
                raise P.ProtocolError(f"unexpected frame kind {rkind}")
        except (OSError, P.ProtocolError, P.ChannelTimeout) as exc:
            how = self._replace(kill=True)
            raise InterpreterError(f"The sandbox worker did not answer ({how}): {exc}") from None
        if rkind == P.FAIL:
            raise InterpreterError(P.loads_restricted(data, {}))
        return data

    # -- the executor API ------------------------------------------------------------------

    # The step itself goes through LocalPythonExecutor.__call__ / _step: the same step lock
    # (one step at a time, a nested step refused), the same observability wrapper. Only the
    # two hooks below differ.

    def _prepare_step(self) -> None:
        with self._lock:
            if self._closed:
                raise InterpreterError("this executor is closed")
            self._sync_tools()

    def _run_code(self, code_action: str) -> tuple[Any, bool]:
        with self._lock:
            if self._closed:
                raise InterpreterError("this executor is closed")
            timeout = self.timeout_seconds
            deadline = None if timeout is None else time.monotonic() + timeout + self._grace
            sock, channel = self._sock, self._channel
            assert sock is not None and channel is not None
            try:
                P.send(sock, P.RUN, code_action.encode("utf-8", "surrogatepass"))
                while True:
                    # SPIN_SECONDS: poll before sleeping (0 by default: measured slower here)
                    kind, data = channel.recv(deadline, P.SPIN_SECONDS)
                    if kind == P.DONE:
                        break
                    if kind != P.CALL:
                        raise P.ProtocolError(f"unexpected frame kind {kind}")
                    started = time.monotonic()
                    self._serve_tool_call(sock, data)
                    if deadline is not None:  # tool time is the host's, not the step's
                        deadline += time.monotonic() - started
            except P.ChannelTimeout:
                self._replace(kill=True)
                self._set_logs("", 0)
                raise ExecutionTimeoutError(
                    f"Code execution exceeded the maximum execution time of {timeout} seconds"
                ) from None
            except (P.ProtocolError, OSError) as exc:
                how = self._replace(kill=False)
                self._set_logs("", 0)
                raise InterpreterError(
                    f"The sandbox worker process died ({how}) while running this step "
                    f"[{exc}]. A new worker was started with the variables of the last "
                    "completed step."
                ) from None
            except BaseException:
                # Interrupted in the host (KeyboardInterrupt...): the worker's late reply
                # would be read as the answer to the next request. Replace it.
                self._replace(kill=True)
                raise
            return self._finish(data)

    def _serve_tool_call(self, sock: socket.socket, data: Any) -> None:
        name = "?"
        try:
            name, args, kwargs = P.decode_call(data, self._allowed)
            tool = self._tools.get(name)
            if tool is None:
                raise NameError(f"no tool named {name!r}")
            value = _obs.call_tool(name, tool, args, kwargs)
            ok = True
        except BaseException as exc:  # the tool's error reaches the code, as in-process
            value, ok = exc, False
        try:
            payload = P.encode_value(value)
        except Exception as exc:
            what = "result" if ok else "exception"
            ok = False
            payload = P.encode_value(TypeError(
                f"the {what} of tool {name!r}, of type {type(value).__name__}, cannot "
                f"cross the process boundary: {exc}"))
        P.send(sock, P.RESULT, [b"\x01" if ok else b"\x00", payload])

    def _set_logs(self, logs: str, ops: int) -> None:
        self.state["_print_outputs"] = PrintContainer(logs)
        self.state["_operations_count"] = {"counter": ops}

    def _finish(self, data: Any) -> tuple[Any, bool]:
        status, output, is_final, logs, ops, updates, removed = P.decode_done(data)
        state, saved, allowed = self.state, self._saved, self._allowed
        for name in removed:
            state.pop(name, None)
            saved.pop(name, None)
        for name, blob in updates.items():
            if blob is not None:
                try:
                    state[name] = P.decode_value(blob, allowed)
                    saved[name] = bytes(blob)
                    continue
                except Exception:
                    pass
            # Lives in the worker only (a module, a function, an unlisted class).
            state.pop(name, None)
            saved.pop(name, None)
        self._set_logs(logs, ops)
        if status == P.STANDIN:  # the worker could not pickle it: a stand-in
            return P.WorkerValue(output), False
        if status == 2:
            raise ExecutionTimeoutError(output)
        if status:
            raise InterpreterError(output)
        try:
            value = P.decode_value(output, allowed)
        except Exception as exc:
            if is_final:
                raise InterpreterError(
                    f"The final answer cannot cross the process boundary: {exc}"
                ) from None
            try:
                text = P.loads_restricted(self._request(P.DESCRIBE, b""), {})
            except Exception:
                text = f"<a value the host does not accept: {exc}>"
            value = P.WorkerValue(text)
        return value, is_final

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
                    blobs[name] = P.encode_value(value)
                except Exception as exc:
                    raise InterpreterError(
                        f"variable {name!r} of type {type(value).__name__} cannot cross the "
                        f"process boundary: {exc}"
                    ) from None
            self._request(P.RESTORE, P.dumps(blobs))
            self._saved.update(blobs)
            self.state.update(variables)

    def send_tools(self, tools: dict[str, Any]) -> None:
        super().send_tools(tools)
        with self._lock:
            if not self._closed:
                self._sync_tools()

    # -- lifetime --------------------------------------------------------------------------

    @property
    def worker_pid(self) -> int:
        """The worker's pid as the fork server sees it (its own pid namespace)."""
        return self._pid

    def _collect(self) -> None:
        # Never ask the fork server (_end_worker's STATUS request takes its lock, which this
        # very thread may hold: the collector runs inside allocations, e.g. in the audit hook
        # of a request's sendmsg). Closing the socket ends the worker; the slot goes back.
        if getattr(self, "_closed", True) and not getattr(self, "_pool_acquired", False):
            return
        self._closed = True
        sock, self._sock = getattr(self, "_sock", None), None
        self._channel = None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
        if getattr(self, "_pool_acquired", False):
            self._pool_acquired = False
            self._pool.release()

    def close(self) -> None:
        with getattr(self, "_lock", threading.RLock()):
            if getattr(self, "_closed", True) and not getattr(self, "_pool_acquired", False):
                return
            self._closed = True
            if self._sock is not None:
                try:
                    self._end_worker(kill=False)
                except Exception:
                    pass
            if self._pool_acquired:
                self._pool_acquired = False
                self._pool.release()


