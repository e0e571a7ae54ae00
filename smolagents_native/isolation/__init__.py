"""`isolation="process"`: the executor's steps run in a sandboxed worker process.

`WorkerPool` owns a fork server and bounds the live workers; `ProcessExecutor` (what
`LocalPythonExecutor(..., isolation="process")` returns) owns one worker, each in a sandbox of
its own. docs/isolation.md explains the layers. This package is built on the executor
(`smolagents_native.executor`, `_engine`), never the reverse:

    host.py      the host side: WorkerPool and its fork servers, ProcessExecutor, run_many
    worker.py    the fork server and the worker loop (`python -c` bootstrap in host.py)
    jail.py      the worker's sandbox (namespaces, uid, capabilities, mounts)
    protocol.py  the frames between host and worker; wire.py, the values they carry
    ray.py       WorkerPool(backend="ray")

The mode choice itself (`needs_process`, `resolve_isolation`) is the base module
`smolagents_native._mode`, which the executor reads without importing this package.
"""

from .._mode import IN_PROCESS_MODULES, in_process, needs_process, resolve_isolation  # noqa: F401

# What `smolagents_native.isolation` exposed when it was one module. The constants are copies:
# a host that tunes one sets it on `smolagents_native.isolation.host`.
from .host import (  # noqa: F401
    CONTROL_SECONDS,
    DEFAULT_LIMITS,
    FALLBACKS,
    GRACE_SECONDS,
    MAX_LEARNED,
    SERVER_REQUEST_SECONDS,
    SERVER_START_SECONDS,
    WORKER_START_SECONDS,
    ProcessExecutor,
    WorkerPool,
    _ForkServer,
    _RLIMIT_KEYS,
    default_pool,
    run_many,
    run_program,
)

__all__ = ["ProcessExecutor", "WorkerPool", "default_pool", "needs_process", "run_many"]
