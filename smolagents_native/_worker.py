"""The fork server and the worker loop of `isolation="process"` (docs/isolation.md).

`python -m smolagents_native._worker FD` runs the fork server: a fresh Python process started
by `WorkerPool` (under bubblewrap when installed: its own user, mount, pid and network
namespaces, the Python installation read-only, an empty private working directory, no host
environment). It preloads the core and the modules the pool names, then serves requests on
the inherited AF_UNIX socket FD:

  SPAWN  (pickled worker config, with the worker's end of a socketpair attached as SCM_RIGHTS)
         -> forks a worker, replies its pid
  KILL   pid -> SIGKILL and reap, replies how it ended
  STATUS pid -> waits (bounded) for it to end, replies how it ended

The host is trusted by the fork server; the fork server never runs submitted code itself.
A worker, after the fork: closes the control socket, sets its resource limits, applies the
seccomp filter (`_core.sandbox_apply`), builds an in-process `LocalPythonExecutor` from the
configuration the host forwarded, and serves RUN / VARS / TOOLS / RESTORE frames
(`_protocol`). Tools are stubs that send a CALL frame and wait for the host's RESULT.
"""

from __future__ import annotations

import os
import pickle
import resource
import signal
import socket
import sys
import time
from typing import Any

from . import _protocol as P
from .errors import ExecutionTimeoutError, InterpreterError

SPAWN = 20
KILL = 21
STATUS = 22
PRELOAD = 23
REPLY = 30


def describe_status(status: int | None) -> str:
    if status is None:
        return "still running"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"killed by signal {name}"
    if os.WIFEXITED(status):
        return f"exited with status {os.WEXITSTATUS(status)}"
    return f"ended (status {status})"


# ---------------------------------------------------------------------------------------------
# Worker (runs in the forked child).


def _set_limits(limits: dict[str, Any]) -> None:
    def lim(res: int, value: int | None) -> None:
        if value is None:
            return
        resource.setrlimit(res, (value, value))

    lim(resource.RLIMIT_AS, limits.get("memory_bytes"))
    lim(resource.RLIMIT_NOFILE, limits.get("open_files"))
    lim(resource.RLIMIT_FSIZE, limits.get("file_bytes"))
    lim(resource.RLIMIT_CORE, 0)
    cpu = limits.get("cpu_seconds")
    if cpu is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    # Writing past RLIMIT_FSIZE fails with EFBIG instead of killing the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _describe(value: Any) -> str:
    """The repr of a value that stays in the worker (for the host's stand-in)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 10_000 else text[:10_000] + "..."


def _fingerprint(data: bytes | None) -> bytes | None:
    """What the worker keeps of a value it reported, to tell whether it changed: the tagged
    value itself when small, a digest of it when large (not a second copy of a big value)."""
    if data is None or len(data) <= 4096:
        return data
    import hashlib

    return b"#" + hashlib.blake2b(data, digest_size=32).digest()


class _Worker:
    def __init__(self, sock: socket.socket, config: dict[str, Any]):
        self.sock = sock
        self.channel = P.Channel(sock)
        self.config = config
        self.memory_bytes = config["limits"].get("memory_bytes")
        self.last: dict[str, bytes | None] = {}
        self.last_obj: dict[str, Any] = {}
        self.executor: Any = None
        self.last_output: Any = None

    def stub(self, name: str) -> Any:
        sock, channel = self.sock, self.channel

        def tool(*args: Any, **kwargs: Any) -> Any:
            try:
                payload = P.encode_call(name, args, kwargs)
            except Exception as exc:
                raise TypeError(
                    f"the arguments of tool {name!r} cannot cross the process boundary: {exc}"
                ) from None
            P.send(sock, P.CALL, payload)
            # SPIN_SECONDS: poll before sleeping (0 by default: measured slower here)
            kind, data = channel.recv(None, P.SPIN_SECONDS)
            if kind != P.RESULT or not data:
                raise P.ProtocolError(f"unexpected frame {kind} during a tool call")
            value = P.decode_value(memoryview(data)[1:], None)
            if data[0]:
                return value
            raise value

        tool.__name__ = name
        tool.__qualname__ = name
        return tool

    def build(self) -> None:
        import warnings

        from .executor import LocalPythonExecutor

        kwargs = dict(self.config["executor_kwargs"])
        kwargs["additional_functions"] = {
            name: self.stub(name) for name in self.config["function_names"]
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.executor = LocalPythonExecutor(**kwargs, isolation="none")
        for name, value in self.config.get("attributes", {}).items():
            setattr(self.executor, name, value)
        self.executor._sync()

    def sync_state(self) -> tuple[dict[str, bytes | None], list[str]]:
        """The variables that changed since the last report, each as a tagged value (None:
        this value cannot cross), and the names that disappeared."""
        state = self.executor.state
        updates: dict[str, bytes | None] = {}
        immutable = (int, float, str, bytes, bool, type(None))
        last, last_obj = self.last, self.last_obj
        for name, value in state.items():
            if name in ("_print_outputs", "_operations_count"):
                continue
            if type(value) in immutable and last_obj.get(name, self) is value:
                continue
            try:
                data: bytes | None = P.encode_value(value)
            except Exception:  # MemoryError included: the value stays in the worker
                data = None
            mark = _fingerprint(data)
            if name not in last or last[name] != mark:
                updates[name] = data
                last[name] = mark
            last_obj[name] = value
        removed = [name for name in last if name not in state]
        for name in removed:
            del last[name]
            last_obj.pop(name, None)
        return updates, removed

    def run(self, code: str) -> list[bytes]:
        """Run one step; return the DONE payload's parts."""
        status, output, is_final = 0, b"", False
        self.last_output = None
        executor = self.executor
        try:
            # The executor's step without its lock (one thread here) and without its
            # observability wrapper (the host observes the step); its core is brought up to
            # date (`_sync`) when the host changes the tools, not at every step.
            value, is_final = executor._run_code(code)
            self.last_output = value
            is_final = bool(is_final)
            try:
                output = P.encode_value(value)
            except Exception as exc:
                if is_final:
                    status = 1
                    text = (
                        f"The final answer, a value of type {type(value).__name__}, "
                        f"cannot cross the process boundary: {exc}"
                    )
                else:  # the host gets a stand-in holding the value's repr
                    status, text = P.STANDIN, _describe(value)
                output = text.encode("utf-8", "surrogatepass")
        except ExecutionTimeoutError as exc:
            status, output = 2, str(exc).encode("utf-8", "surrogatepass")
        except InterpreterError as exc:
            status, output = 1, self._error_text(str(exc))
        except MemoryError as exc:
            status, output = 1, self._error_text(f"MemoryError: {exc}")
        except BaseException as exc:  # anything else: reported, the worker stays usable
            status, output = 3, self._error_text(f"{type(exc).__name__}: {exc}")
        state = self.executor.state
        prints = state.get("_print_outputs")
        logs = str(prints) if prints is not None else ""
        ops = state.get("_operations_count", {}).get("counter", 0)
        try:
            updates, removed = self.sync_state()
            return P.encode_done(status, output, is_final, logs, ops, updates, removed)
        except MemoryError:
            # The step left more than the worker can copy: report the step, keep the worker.
            # Nothing is sent for its variables (they stay in the worker); every name the
            # host may hold is marked stale, so the next report sends them all again (and
            # still reports the ones deleted meanwhile).
            self.last = dict.fromkeys(self.last, b"!stale")
            self.last_obj.clear()
            return P.encode_done(status, output, is_final, logs, ops, {}, [])

    def _error_text(self, text: str) -> bytes:
        if "MemoryError" in text and self.memory_bytes:
            text += (
                f" (the worker's memory limit, RLIMIT_AS = {self.memory_bytes} bytes, "
                "was reached)"
            )
        return text.encode("utf-8", "surrogatepass")

    def serve(self) -> None:
        sock, channel = self.sock, self.channel
        while True:
            try:
                kind, data = channel.recv()
            except P.ProtocolError:
                return
            if kind == P.RUN:
                code = str(data, "utf-8", "surrogatepass")
                del data
                P.send(sock, P.DONE, self.run(code))
                continue
            try:
                if kind == P.VARS:  # (unused by the host: RESTORE carries variables)
                    self.executor.send_variables(pickle.loads(data))
                elif kind == P.RESTORE:
                    saved = pickle.loads(data)
                    self.executor.state.update(
                        {name: P.decode_value(blob, None) for name, blob in saved.items()}
                    )
                    self.last.update({name: _fingerprint(blob) for name, blob in saved.items()})
                elif kind == P.DESCRIBE:
                    P.send(sock, P.OK, P.dumps(_describe(self.last_output)))
                    continue
                elif kind == P.TOOLS:
                    names = pickle.loads(data)
                    self.executor.send_tools({name: self.stub(name) for name in names})
                    self.executor._sync()
                else:
                    raise P.ProtocolError(f"unknown frame kind {kind}")
            except Exception as exc:
                P.send(sock, P.FAIL, P.dumps(f"{type(exc).__name__}: {exc}"))
            else:
                P.send(sock, P.OK, b"")


def _worker_main(sock: socket.socket, config: dict[str, Any]) -> None:
    # Nothing of the host's but the channel: stdin/stdout are already /dev/null; stderr is the
    # host's, kept by the fork server for its own diagnostics only.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 2)
    os.close(devnull)
    os.environ.clear()
    os.environ.update(config.get("env", {}))
    _set_limits(config["limits"])
    from . import _core

    _core.sandbox_apply(network=bool(config.get("network")))
    worker = _Worker(sock, config)
    worker.build()
    worker.serve()


# ---------------------------------------------------------------------------------------------
# Fork server.


def _recv_request(control: socket.socket) -> tuple[int, bytes, list[int]]:
    msg, fds, _flags, _addr = socket.recv_fds(control, P.HEADER.size, 1)
    if not msg:
        raise P.ProtocolError("host closed the control channel")
    if len(msg) < P.HEADER.size:
        msg += P._recv_exact(control, P.HEADER.size - len(msg))
    length, kind = P.HEADER.unpack(msg)
    return kind, P._recv_exact(control, length) if length else b"", list(fds)


def _wait(pid: int, timeout: float) -> int | None:
    end = time.monotonic() + timeout
    delay = 0.0005
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        if time.monotonic() >= end:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def serve_forks(control: socket.socket) -> None:
    children: set[int] = set()
    ended: dict[int, int] = {}
    try:
        while True:
            try:
                kind, data, fds = _recv_request(control)
            except (P.ProtocolError, OSError):
                return
            # Reap what ended on its own (closed executors), keep the status for STATUS.
            for pid in list(children):
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    children.discard(pid)
                    continue
                if done:
                    children.discard(pid)
                    ended[pid] = status
            if len(ended) > 1024:
                ended.clear()
            if kind == SPAWN:
                config = pickle.loads(data)
                fd = fds[0]
                pid = os.fork()
                if pid == 0:
                    code = 0
                    try:
                        control.close()
                        sock = socket.socket(fileno=fd)
                        _worker_main(sock, config)
                    except BaseException:
                        code = 70
                    finally:
                        os._exit(code)
                os.close(fd)
                children.add(pid)
                P.send(control, REPLY, P.dumps(pid))
            elif kind in (KILL, STATUS):
                pid = pickle.loads(data)
                if pid in ended:
                    status: int | None = ended.pop(pid)
                elif pid in children:
                    if kind == KILL:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                        status = _wait(pid, 10.0)
                    else:
                        status = _wait(pid, 2.0)
                        if status is None:  # did not end by itself: end it
                            os.kill(pid, signal.SIGKILL)
                            _wait(pid, 10.0)
                    if status is not None:
                        children.discard(pid)
                else:
                    status = None
                P.send(control, REPLY, P.dumps(status))
            elif kind == PRELOAD:
                import gc
                import importlib

                failed = []
                for name in pickle.loads(data):
                    try:
                        importlib.import_module(name)
                    except BaseException:
                        failed.append(name)
                gc.freeze()
                P.send(control, REPLY, P.dumps(failed))
            else:
                for fd in fds:
                    os.close(fd)
                P.send(control, REPLY, P.dumps(None))
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    options = pickle.loads(bytes.fromhex(argv[2])) if len(argv) > 2 else {}
    if options.get("unshare_network"):
        from . import _core

        try:
            _core.sandbox_unshare_network()
        except OSError:
            pass  # reported by the host as the missing layer (docs/isolation.md)
    # Preload: the core, the executor, and the modules the pool names.
    import importlib

    from . import _core  # noqa: F401
    from . import executor  # noqa: F401
    from . import isolation  # noqa: F401  (LocalPythonExecutor.__new__ reads it)

    # The standard-library modules a host usually has loaded (smolagents' DANGEROUS_MODULES):
    # code that looks them up in sys.modules finds them, and meets the policy, as in process.
    for name in (*executor.DANGEROUS_MODULES, *options.get("preload", ())):
        try:
            importlib.import_module(name)
        except BaseException:
            pass
    # What is loaded now is shared with every worker: keep the collector from walking (and
    # so copying) those pages in each child.
    import gc

    gc.collect()
    gc.freeze()
    P.send(control, REPLY, P.dumps(os.getpid()))
    serve_forks(control)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
