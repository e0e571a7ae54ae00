"""A compromised worker, for the boundary tests: the sandbox a fork server builds for a worker
(`jail.supervise`, `jail.build_jail`, `worker.confine`: the same functions, the same spec),
with plain `exec` of the attacker's code in place of the worker's interpreter. Nothing of the
interpreter's policy applies: what the code reaches here is what the kernel layers let any
code reach, the model of an attacker who found a way out of the policy (or who was given
`ctypes`).

`run_compromised(code, ...)` starts a stand-in fork server (a fresh `python -I`, hardened as
the real one is), which forks the jail's processes as the real one does (`worker._spawn`: on
a root host the jail's init itself unless `supervised`, else a supervisor); the payload runs
in the worker and leaves what it found in the dict `result`, which comes back as the return
value (with "error" set when the payload raised).
"""

from __future__ import annotations

import os
import pickle
import socket
import subprocess
import sys
import time
from typing import Any

from smolagents_native.isolation import jail as _jail
from smolagents_native.isolation import protocol as P

_STANDIN = r"""
import os, pickle, sys, traceback
import importlib.util as u
d = sys.argv[1]  # the package itself, loaded from its directory (as the fork server does)
s = u.spec_from_file_location("smolagents_native", d + "/__init__.py",
                              submodule_search_locations=[d])
m = u.module_from_spec(s)
sys.modules["smolagents_native"] = m
s.loader.exec_module(m)
from smolagents_native import _core
from smolagents_native.isolation import jail as _jail
from smolagents_native.isolation import worker
from smolagents_native.isolation import protocol as P

channel_fd = int(sys.argv[2])
spec, code, env, supervised = pickle.loads(bytes.fromhex(sys.stdin.readline()))
os.chdir("/")
_core.sandbox_apply_forkserver()


def payload_main(fd, spec, jail):
    limits, seccomp = worker.confine(spec, jail, env)
    scope = {"result": {}, "jail": jail, "limits": limits, "seccomp": seccomp}
    try:
        exec(compile(code, "<payload>", "exec"), scope)
    except BaseException as exc:
        scope["result"]["error"] = f"{type(exc).__name__}: {exc}"
    data = pickle.dumps(scope["result"])
    P.send_frame(fd, P.DONE, 0, data)


worker.worker_main = payload_main
direct = worker._direct_init({"supervised": supervised})
pid, ask = worker._spawn(None, spec, channel_fd, direct)
if ask is not None:
    worker._answer_map(pid, *ask)  # the init's request for its uid map, or its end
_, status = os.waitpid(pid, 0)
print(status)
"""


def run_compromised(
    code: str, *, network: bool = False, paths: tuple = (), disk_bytes: int | None = None,
    limits: dict[str, Any] | None = None, fallback: str = "error", env: dict | None = None,
    timeout: float = 60.0, supervised: bool = False,
) -> dict[str, Any]:
    """Run `code` in a compromised worker; return its `result` dict. `supervised`: a
    supervisor forks the jail's init even on a root host (the way any other host does)."""
    from smolagents_native import isolation

    rlimits = {k: isolation.DEFAULT_LIMITS[k] for k in isolation._RLIMIT_KEYS}
    spec = _jail.sandbox_spec(network, tuple(paths), disk_bytes,
                              {**rlimits, **(limits or {})}, fallback)
    host_end, worker_end = socket.socketpair()
    package = os.path.dirname(os.path.dirname(os.path.abspath(_jail.__file__)))
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", _STANDIN, package, str(worker_end.fileno())],
        pass_fds=(worker_end.fileno(),), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin", **{
            k: os.environ[k] for k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                       "PYTHONMALLOC") if k in os.environ}},
        cwd="/", start_new_session=True,
    )
    worker_end.close()
    try:
        proc.stdin.write(pickle.dumps((spec, code, env or {}, supervised)).hex().encode()
                         + b"\n")
        proc.stdin.close()
        channel = P.Channel(host_end)
        kind, data, _seq = channel.recv(time.monotonic() + timeout)
        if kind == P.SETUP_FAIL:
            raise RuntimeError(str(data, "utf-8", "replace"))
        assert kind == P.DONE, kind
        return pickle.loads(data)
    finally:
        host_end.close()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
