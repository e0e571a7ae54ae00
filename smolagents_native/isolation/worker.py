"""The fork server and the worker loop of `isolation="process"` (docs/isolation.md).

The fork server is a fresh Python process started by `WorkerPool` (what `-I` does, without
its flags: no host environment, no user site, its working directory `/` off `sys.path`). It preloads the core and the modules the pool names,
makes itself undumpable and installs its own seccomp filter, then serves requests on the
inherited AF_UNIX socket:

  SPAWN  (the sandbox spec, `jail.sandbox_spec`; the worker's end of a socketpair attached
         as SCM_RIGHTS) -> forks the jail's init into a new pid namespace (a root host:
         `jail.init_direct`; it becomes the worker) or a supervisor (`jail.supervise`, which
         forks it), replies the child's pid
  STATUS pid -> waits (bounded) for it to end, replies how it ended
  KILL   pid -> SIGKILL (the worker, or its supervisor: the worker dies with it), replies how
         it ended
  PRELOAD names -> imports them (so that later workers start warm), replies the failures

The host is trusted by the fork server; the fork server never runs submitted code and never
sees an executor's configuration, variables or environment: those go to the worker over its
own channel (INIT), after the fork.

A worker (the jail's init, once `jail.build_jail` has built its jail; `worker_main`): reads
INIT, sets its resource limits (never above the host's) and applies the seccomp filter
(`confine`), builds an in-process `LocalPythonExecutor`, answers READY with the sandbox's
description, and serves RUN / TOOLS / RESTORE frames (`protocol`). Tools are stubs that send
a CALL frame and wait for the host's RESULT.
"""

from __future__ import annotations

import collections
import os
import pickle
import resource
import signal
import socket
import sys
import time
import types
from typing import Any, Callable

from ..errors import ExecutionTimeoutError, InterpreterError
from . import protocol as P

SPAWN = 20
KILL = 21
STATUS = 22
PRELOAD = 23
REPLY = 30

# The longest repr of a stand-in (a value the host cannot take), and the longest time making
# it may take (also bounded by what is left of the step's deadline).
STANDIN_CHARS = 10_000
STANDIN_SECONDS = 2.0


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        if signal.SIGRTMIN < sig <= signal.SIGRTMAX:
            return f"SIGRTMIN+{sig - signal.SIGRTMIN}"
        return f"signal {sig}"


def describe_status(status: int | None) -> str:
    if status is None:
        return "still running"
    if os.WIFSIGNALED(status):
        return f"killed by signal {_signal_name(os.WTERMSIG(status))}"
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        # 128 + a signal: a worker that ended on a signal's action as its namespace's init
        # (jail_end_on_signals), or a supervisor passing on how the worker ended
        if 128 < code <= 128 + signal.SIGRTMAX:
            return f"killed by signal {_signal_name(code - 128)}"
        return f"exited with status {code}"
    return f"ended (status {status})"


# ---------------------------------------------------------------------------------------------
# Worker (runs in the jail).

_RLIMITS = (
    ("memory_bytes", resource.RLIMIT_AS),
    ("open_files", resource.RLIMIT_NOFILE),
    ("file_bytes", resource.RLIMIT_FSIZE),
    ("cpu_seconds", resource.RLIMIT_CPU),
    ("processes", resource.RLIMIT_NPROC),  # threads: each one a pid of the host's
)
# Limits no worker needs above these (each the smaller of this and the host's own):
# real-time signals queued, POSIX message queues, locked memory, real-time priority, nice.
_FIXED_RLIMITS = (
    (resource.RLIMIT_SIGPENDING, 256),
    (resource.RLIMIT_MSGQUEUE, 0),
    (resource.RLIMIT_MEMLOCK, 64 << 10),
    (resource.RLIMIT_RTPRIO, 0),
    (resource.RLIMIT_NICE, 0),
)


def _set_limits(limits: dict[str, Any]) -> dict[str, int | None]:
    """Set the worker's rlimits: each the smaller of the requested value and the hard limit
    the host already holds (never raised: a hard limit cannot be raised without privilege).
    Returns the limits in force (None: unlimited)."""
    in_force: dict[str, int | None] = {}
    for name, res in _RLIMITS:
        want = limits.get(name)
        soft, hard = resource.getrlimit(res)
        if want is None:
            value = hard
        else:
            value = want if hard == resource.RLIM_INFINITY else min(want, hard)
        if res == resource.RLIMIT_CPU and value != resource.RLIM_INFINITY:
            # SIGXCPU at the soft limit, SIGKILL one second later
            resource.setrlimit(res, (value if hard == resource.RLIM_INFINITY or value < hard
                                     else max(value - 1, 0), value))
        else:
            resource.setrlimit(res, (value, value))
        in_force[name] = None if value == resource.RLIM_INFINITY else value
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for res, value in _FIXED_RLIMITS:
        hard = resource.getrlimit(res)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(res, (value, value))
    # Writing past RLIMIT_FSIZE fails with EFBIG instead of killing the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return in_force


def _status_fields() -> dict[str, str]:
    try:
        with open("/proc/self/status") as f:
            return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    except OSError:
        return {}


def _describe_sandbox(jail: dict[str, Any], spec: dict[str, Any],
                      limits: dict[str, int | None], seccomp: str | None) -> dict[str, Any]:
    """What the worker reports of the layers actually in force (executor.sandbox)."""
    status = _status_fields()
    host_uid = None
    try:
        with open("/proc/self/uid_map") as f:
            fields = f.read().split()
        if len(fields) >= 3 and jail["user_namespace"]:
            host_uid = int(fields[1])
    except (OSError, ValueError):
        pass
    if host_uid is None:
        host_uid = os.getuid()
    namespaces = []
    if jail["user_namespace"]:
        namespaces.append("user")
    if jail["namespaces"]:
        namespaces += ["mount", "pid", "ipc", "uts", "cgroup"]
        if not spec["network"]:
            namespaces.append("net")
    caps = {k: int(status.get(f"Cap{k[:3].capitalize()}", "0") or "0", 16)
            for k in ("effective", "permitted", "inheritable", "bounding", "ambient")}
    return {
        "uid": os.getuid(),
        "gid": os.getgid(),
        "host_uid": host_uid,
        "pid": os.getpid(),
        "namespaces": namespaces,
        "capabilities": caps,
        "securebits": jail.get("securebits"),
        "no_new_privs": status.get("NoNewPrivs", "0").strip() == "1",
        "seccomp": seccomp,
        "network": spec["network"],
        "root": jail["view"]["root"],
        "proc": jail["view"]["proc"],
        "scratch": jail["view"]["scratch"],
        "disk_bytes": spec["disk_bytes"] if jail["view"]["scratch"] else None,
        "read_only": [b[0] for b in spec["binds"] if not b[1]],
        "writable": [b[0] for b in spec["binds"] if b[1]],
        "limits": limits,
        "missing": [tuple(m) for m in jail["missing"]],
        # a supervisor in the host's pid namespace holds the jail (False: the jail's init is
        # the fork server's own child, as a root host's fork server makes it)
        "supervisor": jail["supervisor"],
        "library_code": "bounded by the kernel" if _kernel_bounded() else
        "bounded by the policy (the kernel sandbox is incomplete)",
    }


def _kernel_bounded() -> bool:
    from .. import _core

    return bool(_core.kernel_bounded())


class _Deadline(Exception):
    pass


def _describe(value: Any, seconds: float) -> str:
    """The repr of a value that stays in the worker (for the host's stand-in), at most
    STANDIN_CHARS long and made within `seconds` (a SIGALRM interrupts Python code; C code
    that ignores it is ended by the host's deadline, since the step has not answered yet)."""

    def alarm(signum: int, frame: Any) -> None:
        raise _Deadline()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        text = repr(value)
    except _Deadline:
        text = f"<{type(value).__name__} object: its repr took longer than {seconds:.3g} s>"
    except Exception:  # noqa: BLE001 - any failing repr
        text = f"<{type(value).__name__} object>"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if os.getpid() == 1 and previous is signal.SIG_DFL:
            # Python's SIG_DFL is the kernel's: as its namespace's init, the worker's own
            # action for SIGALRM again (confine)
            from .. import _core

            _core.jail_end_on_signals()
    return text if len(text) <= STANDIN_CHARS else text[:STANDIN_CHARS] + "..."


_ATOMS = frozenset({int, float, complex, str, bytes, bool, type(None)})
# The executor's own entries of `state`, which the report carries apart (logs, operations)
_UNREPORTED = frozenset({"_print_outputs", "_operations_count"})


_FLAT = frozenset({list, tuple, set, frozenset})
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE
INERT_ITEMS = 100_000  # a larger container is not looked through (counted as not inert)


def _inert(value: Any) -> bool:
    """A value through which code cannot reach another of its values, and whose release runs
    no code: an immutable atom; a module (the code cannot store into one: docs/security.md);
    a builtin function not bound to an object; a static (non-heap) type such as `list`; a
    list, tuple, set, frozenset or dict (exact types) of at most INERT_ITEMS atoms."""
    kind = type(value)
    if kind in _ATOMS or kind is types.ModuleType:
        return True
    if kind in _FLAT:
        return (sys.getrefcount(value) <= _ONE_REFERENCE and len(value) <= INERT_ITEMS
                and all(type(item) in _ATOMS for item in value))
    if kind is dict:
        return (sys.getrefcount(value) <= _ONE_REFERENCE and len(value) <= INERT_ITEMS
                and all(type(k) in _ATOMS and type(v) in _ATOMS for k, v in value.items()))
    if kind is types.BuiltinFunctionType:
        owner = value.__self__
        return owner is None or type(owner) is types.ModuleType
    return kind is type and not value.__flags__ & _HEAPTYPE


def _references_of_a_held_value() -> int:
    """What `sys.getrefcount` says in `_inert` of a container that only a state dict holds
    (as `sync_state` calls it: the dict, its loop's variable, the argument), measured by the
    same calls, so that it holds on every CPython version."""
    state = {"v": []}
    for name in ("v",):
        value = state[name]
        return _count_in_inert(value)
    return 0


def _count_in_inert(value: Any) -> int:
    return sys.getrefcount(value)


_ONE_REFERENCE = _references_of_a_held_value()


def _fingerprint(data: bytes | None) -> bytes | None:
    """What the worker keeps of a value it reported, to tell whether it changed: the tagged
    value itself when small, a digest of it when large (not a second copy of a big value)."""
    if data is None or len(data) <= 4096:
        return data
    import hashlib

    return b"#" + hashlib.blake2b(data, digest_size=32).digest()


class _Worker:
    def __init__(self, sock: socket.socket, config: dict[str, Any], limits: dict[str, Any]):
        self.sock = sock
        self.channel = P.Channel(sock)
        self.config = config
        self.memory_bytes = limits.get("memory_bytes")
        self.last: dict[str, bytes | None] = {}
        self.last_obj: dict[str, Any] = {}
        # Whether each reported name's value was inert (`_inert`) when last reported, and
        # whether the next report must look at every name (`sync_state`).
        self.inert: dict[str, bool] = {}
        self.scan_all = True
        self.collected = 0  # objects the garbage collector freed during the step
        import gc

        gc.callbacks.append(self.on_gc)
        self.executor: Any = None
        self.seq = 0  # the RUN being served (tool calls carry it)
        # BATCH_RUN frames that arrived while a tool call waited for its result (`stub`)
        self.queued: collections.deque[tuple[int, Any, int]] = collections.deque()
        # The classes the host takes as pickles (cross_classes): a value that needs another
        # class is refused here, so the host gets its stand-in text, made in the step.
        self.cross = frozenset(tuple(k) for k in config.get("cross_classes", ()))
        # The encoding the host will accept, or an exception saying why not.
        self.encode: Callable[[Any], bytes] = P.value_encoder(self.cross)
        # The top-level packages the code may import (not for "*"): the modules a step
        # imports under them are reported, so that the pool's fork server preloads them.
        self.packages = frozenset(
            m.split(".")[0] for m in config.get("preload_packages", ()))
        self.modules_seen = set(sys.modules)
        self.scratch: str | None = None  # the scratch directory (worker_main), None: none
        self.home = os.getcwd()  # the directory a program starts in (the jail's chdir)

    def stub(self, name: str) -> Any:
        sock, channel, worker = self.sock, self.channel, self

        def tool(*args: Any, **kwargs: Any) -> Any:
            try:
                payload = P.encode_call(name, args, kwargs, worker.cross)
            except Exception as exc:
                raise TypeError(
                    f"the arguments of tool {name!r} cannot cross the process boundary: {exc}"
                ) from None
            seq = worker.seq
            P.send(sock, P.CALL, payload, seq)
            while True:
                # spin, then sleep (P.SPIN_SECONDS): a quick tool's result finds the
                # worker awake
                kind, data, rseq = channel.recv(None, P.SPIN_SECONDS)
                if kind != P.BATCH_RUN:
                    break
                # The batch's next programs, sent ahead of this one's tool result: run
                # after this one.
                if len(worker.queued) >= P.BATCH_WINDOW:
                    raise P.ProtocolError("more programs sent ahead than a batch's window")
                worker.queued.append((kind, data, rseq))
            if kind != P.RESULT or rseq != seq or not data:
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

        from .. import executor
        from ..executor import LocalPythonExecutor

        kwargs = dict(self.config["executor_kwargs"])
        # The host checked that the authorized modules are installed (with its sys.path);
        # a module it can import and the worker cannot fails at the import, not here.
        executor._INSTALLED.update(
            m.split(".")[0] for m in kwargs.get("additional_authorized_imports") or ())
        kwargs["additional_functions"] = {
            name: self.stub(name) for name in self.config["function_names"]
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.executor = LocalPythonExecutor(**kwargs, isolation="none")
        # The host executor's budgets, not this process's module constants.
        self.executor._budget_copy = dict(self.config["budgets"])
        self.set_budgets(self.config["budget_attributes"])
        self.executor._sync()

    def set_budgets(self, attributes: Any) -> None:
        executor = self.executor
        (executor.timeout_seconds, executor.max_operations,
         executor.max_while_iterations) = attributes

    def reset(self) -> None:
        """A fresh program (FRESH_RUN, `ProcessExecutor.reset`): the executor's state anew
        (no variables, functions, classes or imported names of the programs before; the same
        tools, budgets and grants), the working directory the jail set, the scratch directory
        emptied. What stays: the process, its imported modules and what libraries keep
        process-wide (docs/isolation.md, *Batches*)."""
        self.executor.reset()
        self.last.clear()
        self.inert.clear()
        self.scan_all = True
        self.last_obj.clear()
        os.chdir(self.home)
        if self.scratch:
            _empty_directory(self.scratch)

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and (info.get("collected") or info.get("uncollectable")):
            self.collected += 1

    def names_to_report(self, state: dict[str, Any]) -> Any:
        """The names whose values the step may have changed: every name, unless the step's
        accesses show fewer (docs/isolation.md, *State*). The interpreter names the globals
        the step read, wrote or deleted by name (its functions' included). If each of those
        was bound, before the step, to an inert value (`_inert`) or to nothing, the step
        reached none of the code's other values and released nothing that runs code: what
        it built came from inert values and new objects, so the names it did not touch kept
        their values. Otherwise (or if an access went unnoted, or the garbage collector
        freed objects during the step, whose finalizers may have run): every name."""
        if self.scan_all or self.collected:
            return state
        touched = self.executor._interp.touched_names()
        if touched is None:
            return state
        inert, last = self.inert, self.last
        for name in touched:
            if not inert.get(name, name not in last):
                return state
        names = [name for name in touched if name in state]
        names += [name for name in state if name not in last and name not in touched]
        return names

    def sync_state(self) -> tuple[dict[str, bytes | None], list[str]]:
        """The variables that changed since the last report, each as a tagged value (None:
        this value cannot cross), and the names that disappeared."""
        state = self.executor.state
        updates: dict[str, bytes | None] = {}
        last, last_obj, inert = self.last, self.last_obj, self.inert
        for name in self.names_to_report(state):
            if name in _UNREPORTED:
                continue
            value = state[name]
            inert[name] = _inert(value)
            if type(value) in _ATOMS and last_obj.get(name, self) is value:
                continue
            try:
                data: bytes | None = self.encode(value)
            except Exception:  # MemoryError included: the value stays in the worker
                data = None
            mark = _fingerprint(data)
            if name not in last or last[name] != mark:
                updates[name] = data
                last[name] = mark
            if type(value) in _ATOMS:
                last_obj[name] = value
            else:  # never held here: a value the code drops is released when it drops it
                last_obj.pop(name, None)
        removed = [name for name in last if name not in state]
        for name in removed:
            del last[name]
            last_obj.pop(name, None)
            inert.pop(name, None)
        self.scan_all = False
        return updates, removed

    def run(self, code: str, report: bool = True) -> list[bytes]:
        """Run one step; return the DONE payload's parts. `report=False` (a program of a
        batch, BATCH_RUN): no variables reported; the next report looks at every name."""
        status, output, is_final, lineno = 0, b"", False, 0
        executor = self.executor
        started = time.monotonic()
        self.collected = 0
        try:
            # The executor's step without its lock (one thread here) and without its
            # observability wrapper (the host observes the step); its core is brought up to
            # date (`_sync`) when the host changes the tools, not at every step.
            value, is_final = executor._run_code(code)
            is_final = bool(is_final)
            try:
                output = self.encode(value)
            except Exception as exc:
                if is_final:
                    status = 1
                    text = (
                        f"The final answer, a value of type {type(value).__name__}, "
                        f"cannot cross the process boundary: {exc}"
                    )
                else:  # the host gets a stand-in holding the value's repr, made now
                    timeout = executor.timeout_seconds
                    left = STANDIN_SECONDS if timeout is None else min(
                        STANDIN_SECONDS, timeout - (time.monotonic() - started))
                    status, text = P.STANDIN, _describe(value, left)
                output = text.encode("utf-8", "surrogatepass")
        except ExecutionTimeoutError as exc:
            status, output = 2, str(exc).encode("utf-8", "surrogatepass")
        except InterpreterError as exc:
            status, output = 1, self._error_text(str(exc))
            lineno = getattr(exc, "lineno", 0)
        except MemoryError as exc:
            status, output = 1, self._error_text(f"MemoryError: {exc}")
        except BaseException as exc:  # anything else: reported, the worker stays usable
            status, output = 3, self._error_text(f"{type(exc).__name__}: {exc}")
        state = self.executor.state
        prints = state.get("_print_outputs")
        logs = str(prints) if prints is not None else ""
        ops = state.get("_operations_count", {}).get("counter", 0)
        try:
            if report:
                updates, removed = self.sync_state()
            else:
                updates, removed = {}, []
                self.last.clear()
                self.last_obj.clear()
                self.inert.clear()
                self.scan_all = True
            return P.encode_done(status, output, is_final, logs, ops, updates, removed,
                                 self.imported(), lineno)
        except MemoryError:
            # The step left more than the worker can copy: report the step, keep the worker.
            # Nothing is sent for its variables (they stay in the worker); every name the
            # host may hold is marked stale, so the next report sends them all again (and
            # still reports the ones deleted meanwhile).
            self.last = dict.fromkeys(self.last, b"!stale")
            self.last_obj.clear()
            self.scan_all = True
            return P.encode_done(status, output, is_final, logs, ops, {}, [], (), lineno)

    def imported(self) -> list[str]:
        """The modules under the authorized packages imported since the last report."""
        modules = sys.modules
        if len(modules) == len(self.modules_seen) or not self.packages:
            return []
        new = [name for name in modules if name not in self.modules_seen]
        self.modules_seen.update(new)
        return [name for name in new if name.split(".")[0] in self.packages][:256]

    def _error_text(self, text: str) -> bytes:
        if "MemoryError" in text and self.memory_bytes:
            text += (
                f" (the worker's memory limit, RLIMIT_AS = {self.memory_bytes} bytes, "
                "was reached)"
            )
        return text.encode("utf-8", "surrogatepass")

    def serve(self) -> None:
        sock, channel = self.sock, self.channel
        spin = P.SPIN_SECONDS
        while True:
            try:
                # spin, then sleep (P.SPIN_SECONDS): a step sent at once after the last
                # finds the worker awake; not in a batch, whose next programs the host sends
                # ahead (a lane's worker polling would take CPU time from the others)
                kind, data, seq = (self.queued.popleft() if self.queued
                                   else channel.recv(None, spin))
            except P.ProtocolError:
                return
            spin = 0.0 if kind == P.BATCH_RUN else P.SPIN_SECONDS
            if kind == P.RUN or kind == P.FRESH_RUN:
                code = str(data, "utf-8", "surrogatepass")
                del data
                self.seq = seq
                if kind == P.FRESH_RUN:
                    try:
                        self.reset()
                    except Exception as exc:  # the host runs the code in a new worker
                        P.send(sock, P.FAIL, f"{type(exc).__name__}: {exc}".encode(
                            "utf-8", "surrogatepass"), seq)
                        continue
                P.send(sock, P.DONE, self.run(code), seq)
                continue
            if kind == P.BATCH_RUN and data:
                fresh = data[0]
                code = str(memoryview(data)[1:], "utf-8", "surrogatepass")
                del data
                self.seq = seq
                if fresh:
                    try:
                        self.reset()
                    except Exception as exc:  # the host runs it in a new worker
                        P.send(sock, P.FAIL, f"{type(exc).__name__}: {exc}".encode(
                            "utf-8", "surrogatepass"), seq)
                        continue
                P.send(sock, P.DONE, self.run(code, report=False), seq)
                continue
            try:
                if kind == P.RESTORE:
                    saved = P.loads_trusted(data)
                    values = {}
                    for name, blob in saved.items():
                        try:
                            values[name] = P.decode_value(blob, None)
                        except Exception as exc:  # e.g. a class only the host can import
                            raise TypeError(
                                f"variable {name!r} cannot cross the process boundary: the "
                                f"worker cannot rebuild it ({type(exc).__name__}: {exc})"
                            ) from None
                    self.executor.state.update(values)
                    self.last.update({name: _fingerprint(blob) for name, blob in saved.items()})
                    self.scan_all = True  # values given, not reached by a step's names
                elif kind == P.RESET:
                    self.reset()
                elif kind == P.BUDGETS:
                    self.set_budgets(P.loads_trusted(data))
                elif kind == P.TOOLS:
                    names = P.loads_trusted(data)
                    self.executor.send_tools({name: self.stub(name) for name in names})
                    self.executor._sync()
                    self.scan_all = True  # its interpreter may be new (touched_names)
                else:
                    raise P.ProtocolError(f"unknown frame kind {kind}")
            except Exception as exc:
                P.send(sock, P.FAIL, f"{type(exc).__name__}: {exc}".encode(
                    "utf-8", "surrogatepass"), seq)
            else:
                P.send(sock, P.OK, b"", seq)


def _empty_directory(path: str) -> None:
    """Remove what the code left under `path` (the scratch, before the next program of a
    shared sandbox), without recursion (the code may have nested directories deeply). What
    lies on another file system is never entered or removed: the read-only binds of the
    host's directories under /tmp (a checkout or a virtual environment there) and granted
    directories, and the directories the jail made to hold them. A directory the code made
    unreadable or unwritable is given back its permissions first. Raises OSError if
    something of the code's stays."""
    device = os.lstat(path).st_dev
    holds_mounts: set[str] = set()  # directories with a mount point below: kept
    _open_up(path)
    stack = [(path, False)]
    while stack:
        directory, listed = stack.pop()
        if listed:
            if directory != path and directory not in holds_mounts:
                os.rmdir(directory)
            continue
        stack.append((directory, True))
        with os.scandir(directory) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                if info.st_dev != device:  # a mount point: not the code's
                    parent = directory
                    while parent not in holds_mounts and parent != path:
                        holds_mounts.add(parent)
                        parent = os.path.dirname(parent)
                    continue
                if entry.is_dir(follow_symlinks=False):
                    _open_up(entry.path)
                    stack.append((entry.path, False))
                else:
                    os.unlink(entry.path)


def _open_up(directory: str) -> None:
    """Give the worker back its rights on a directory the code made unreadable (a directory
    the jail made, not the worker's, stays as it is: the worker may list it already)."""
    try:
        os.chmod(directory, 0o700)
    except PermissionError:
        pass


def confine(spec: dict[str, Any], jail: dict[str, Any],
            env: dict[str, str]) -> tuple[dict[str, int | None], str | None]:
    """The worker's last layers, after the jail (`jail.build_jail`) and before any code:
    stderr to /dev/null, the environment (only `env` besides HOME, TMPDIR, PATH and LANG), the
    rlimits, the signals' actions, the seccomp filter. Returns (the limits in force, the
    seccomp mode or None)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 2)
    os.close(devnull)
    scratch = jail["view"]["scratch"]
    os.environ.clear()
    os.environ.update({"HOME": scratch or "/", "TMPDIR": scratch or "/tmp",
                       "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    os.environ.update(env)
    limits = _set_limits(spec["limits"])
    from .. import _core

    if os.getpid() == 1:
        # The init of its pid namespace (the worker is its jail's init): the kernel would
        # drop a signal it sends itself at the default action; end on it as any process does.
        _core.jail_end_on_signals()
    try:
        _core.sandbox_apply(network=bool(spec["network"]))
    except OSError as exc:
        if spec["fallback"] == "error":
            from .jail import LayerUnavailable

            raise LayerUnavailable("seccomp", str(exc)) from None
        jail["missing"].append(["seccomp", str(exc)])
        return limits, None
    return limits, "filter"


def worker_main(channel_fd: int, spec: dict[str, Any], jail: dict[str, Any]) -> None:
    """The worker after its jail is built: INIT, its last layers (`confine`), READY, then
    serve until the host closes the channel."""
    sock = socket.socket(fileno=channel_fd)
    channel = P.Channel(sock)
    kind, data, seq = channel.recv()
    if kind != P.INIT:
        raise P.ProtocolError(f"expected INIT, got frame kind {kind}")
    config = P.loads_trusted(data)
    del data
    limits, seccomp = confine(spec, jail, config.get("env", {}))
    from .. import _core

    # This process is the code's own: what the whole process shares (the settings the
    # in-process table withholds from its modules) is not the host's here.
    _core.worker_process()
    # The two tiers (docs/isolation.md): with every layer in force, what library code does
    # for the code is the kernel's to bound; the code's own actions stay the policy's.
    if seccomp and not jail["missing"]:
        _core.sandbox_enter_worker_mode()
    worker = _Worker(sock, config, limits)
    worker.channel = channel
    worker.scratch = jail["view"]["scratch"]
    try:
        worker.build()
    except Exception as exc:  # a bad configuration: the host raises it as its own error
        P.send(sock, P.FAIL, f"{type(exc).__name__}: {exc}".encode("utf-8", "replace"), seq)
        return
    P.send(sock, P.READY, P.encode_value(_describe_sandbox(jail, spec, limits, seccomp)), seq)
    worker.serve()


# ---------------------------------------------------------------------------------------------
# Fork server.


def _recv_request(control: socket.socket) -> tuple[int, bytes, list[int]]:
    msg, fds, _flags, _addr = socket.recv_fds(control, P.HEADER.size, 4)
    if not msg:
        raise P.ProtocolError("host closed the control channel")
    if len(msg) < P.HEADER.size:
        msg += P._recv_exact(control, P.HEADER.size - len(msg))
    length, kind, _seq = P.HEADER.unpack(msg)
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


class _DirectInit:
    """What a root fork server needs to fork each jail's init straight into a new pid
    namespace (`_spawn`): its own pid namespace, to return to after each fork, and a pipe
    whose write end only it holds (an init reads EOF on it once the fork server has gone)."""

    def __init__(self) -> None:
        self.pidns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self.life_r, self.life_w = os.pipe()


def _answer_map(pid: int, ask_r: int, ack_w: int) -> None:
    """An init's request on `ask_r` (or its end): once it has entered its user namespace,
    write its map as a supervisor would (root outside: 65534 inside is kuid 65534), then say
    so on `ack_w`. The caller closes both."""
    from . import jail as _jail

    try:
        if os.read(ask_r, 1) == b"M":
            try:
                _jail._map_ids(str(pid), _jail.WORKER_UID, _jail.WORKER_GID)
                ok = b"1"
            except OSError:
                ok = b"0"
            os.write(ack_w, ok)
    except OSError:
        pass


def _direct_init(options: dict[str, Any]) -> _DirectInit | None:
    """A root fork server forks each jail's init itself, one process fewer per worker than
    a supervisor (docs/isolation.md, *The layers*); any other, or when the host asks for
    the supervisor (`jail.SUPERVISED`), forks a supervisor."""
    if os.geteuid() != 0 or options.get("supervised"):
        return None
    try:
        return _DirectInit()
    except OSError:
        return None


def _spawn(control: socket.socket | None, spec: dict[str, Any], channel_fd: int,
           direct: _DirectInit | None = None) -> tuple[int, tuple[int, int] | None]:
    """Fork the jail's init for one worker (`direct`: a root fork server, when the kernel
    lets it make the pid namespace), else a supervisor. Returns its pid and, for an init,
    the pipe ends its request for a uid map comes on and is answered on (`_answer_map`)."""
    from .. import _core
    from . import jail as _jail

    server = os.getpid()
    life_w = direct.life_w if direct is not None else -1  # the fork server's alone
    if direct is not None:
        ask_r, ask_w = os.pipe()  # init -> fork server: "map my ids"
        ack_r, ack_w = os.pipe()  # fork server -> init: done
        pipes = (ask_r, ask_w, ack_r, ack_w)
        try:
            _core.jail_unshare(_core.JAIL_CLONE_NEWPID)  # for the next child only
        except OSError:
            for fd in pipes:
                os.close(fd)
            direct = None  # the supervisor then creates it, or says why it cannot
    pid = -1
    try:
        pid = os.fork()
    except BaseException:
        if direct is not None:
            for fd in pipes:
                os.close(fd)
        raise
    finally:
        if pid != 0 and direct is not None:
            try:
                _core.jail_setns(direct.pidns, _core.JAIL_CLONE_NEWPID)
            except BaseException:
                # Later children would share this namespace: end, the host restarts it.
                os._exit(70)
    if pid == 0:
        try:
            if control is not None:
                control.close()
            if life_w >= 0:
                os.close(life_w)
            if direct is not None:
                os.close(ask_r)
                os.close(ack_w)
                _jail.init_direct(spec, channel_fd, direct.life_r, ask_w, ack_r)
            else:
                _jail.supervise(spec, channel_fd, server)
        except BaseException as exc:  # noqa: BLE001 - reported to the host, then exit
            try:
                P.send_frame(channel_fd, P.SETUP_FAIL, 0,
                             f"the process sandbox could not be set up: "
                             f"{type(exc).__name__}: {exc}".encode(errors="replace"))
            except BaseException:  # noqa: BLE001
                pass
        finally:
            os._exit(70)
    os.close(channel_fd)
    if direct is None:
        return pid, None
    os.close(ask_w)
    os.close(ack_r)
    return pid, (ask_r, ack_w)


def serve_forks(control: socket.socket, direct: _DirectInit | None = None) -> None:
    import select

    children: set[int] = set()
    ended: dict[int, int] = {}
    # What each child is watched by: a pidfd of it (readable when it ends: reaped then), and
    # (an init a root fork server forked) the read end of its request for a uid map, with
    # the write end of the answer; fd -> (pid, that write end, or None for the pidfd).
    watched: dict[int, tuple[int, int | None]] = {}
    unwatched: set[int] = set()  # children without a pidfd (Linux before 5.3)
    poller = select.poll()
    poller.register(control, select.POLLIN)

    def watch(fd: int, pid: int, ack_w: int | None) -> None:
        watched[fd] = (pid, ack_w)
        poller.register(fd, select.POLLIN)

    def unwatch(fd: int) -> None:
        _pid, ack_w = watched.pop(fd)
        poller.unregister(fd)
        os.close(fd)
        if ack_w is not None:
            os.close(ack_w)

    def reap(pid: int) -> None:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, None
        if not done:
            return
        children.discard(pid)
        unwatched.discard(pid)
        if status is not None:
            ended[pid] = status
        # its pidfd, and a request it left, which is not answered (its pid may be reused)
        for fd in [fd for fd, (owner, _ack_w) in watched.items() if owner == pid]:
            unwatch(fd)

    try:
        while True:
            # The host's requests, the children that ended (closed executors: kept for
            # STATUS) and (a root fork server) its inits' requests for a map.
            ready = {fd for fd, _ in poller.poll()}
            for fd in sorted(ready & watched.keys(), key=lambda fd: watched[fd][1] is None):
                if fd not in watched:  # gone with its child, reaped just before
                    continue
                pid, ack_w = watched[fd]
                if ack_w is None:
                    reap(pid)
                else:
                    _answer_map(pid, fd, ack_w)
                    unwatch(fd)
            if len(ended) > 1024:
                ended.clear()
            if control.fileno() not in ready:
                continue
            try:
                kind, data, fds = _recv_request(control)
            except (P.ProtocolError, OSError):
                return
            for pid in list(unwatched):
                reap(pid)
            if kind == SPAWN and len(fds) == 1:
                pid, ask = _spawn(control, pickle.loads(data), fds[0], direct)
                children.add(pid)
                try:
                    watch(os.pidfd_open(pid), pid, None)
                except OSError:  # no pidfds (before Linux 5.3): reaped at each request
                    unwatched.add(pid)
                if ask is not None:
                    watch(ask[0], pid, ask[1])
                P.send(control, REPLY, P.encode_value(pid))
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
                    reap(pid)  # the bookkeeping of a child _wait reaped (or one still there)
                else:
                    status = None
                P.send(control, REPLY, P.encode_value(status))
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
                P.send(control, REPLY, P.encode_value(failed))
            else:
                for fd in fds:
                    os.close(fd)
                P.send(control, REPLY, P.encode_value(None))
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
    os.chdir("/")
    spin = options.get("spin")
    if type(spin) in (int, float) and 0 <= spin <= 0.01:
        P.SPIN_SECONDS = float(spin)  # the host's (its workers are forked from here)
    # Preload: the core, the executor, and the modules the pool names.
    import importlib

    from .. import _core
    from .. import executor  # noqa: F401
    from .. import isolation  # noqa: F401  (LocalPythonExecutor.__new__ may return its class)
    from . import jail as _jail  # noqa: F401

    # The standard-library modules a host usually has loaded (smolagents' DANGEROUS_MODULES):
    # code that looks them up in sys.modules finds them, and meets the policy, as in process.
    for name in (*executor.DANGEROUS_MODULES, *options.get("preload", ())):
        try:
            importlib.import_module(name)
        except BaseException:
            pass
    # Not dumpable (no process of its uid opens its memory), and a filter of its own.
    hardened = "seccomp filter, not dumpable"
    try:
        _core.sandbox_apply_forkserver()
    except OSError as exc:
        hardened = f"not hardened: {exc}"
    # What every worker would compute on its first step (the installation's real paths, this
    # thread's stack extent from /proc/self/maps): computed once here, inherited by each.
    try:
        _core.fork_image_prepare()
    except Exception:  # noqa: BLE001 - each worker then computes them itself
        pass
    # What is loaded now is shared with every worker: keep the collector from walking (and
    # so copying) those pages in each child.
    import gc

    gc.collect()
    gc.freeze()
    direct = _direct_init(options)
    P.send(control, REPLY, P.encode_value({"pid": os.getpid(), "hardened": hardened}))
    serve_forks(control, direct)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
