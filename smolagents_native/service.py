"""The sandbox service: `python -m smolagents_native serve` (docs/service.md).

An HTTP service (Starlette on uvicorn, the `[service]` extra) that hands out sessions, each a
process-mode executor (`isolation.ProcessExecutor`: its own sandboxed worker) configured as the
client asks within the operator's limits. Tools stay with the client: a step that calls one
suspends, the client gets the call in the step's response, runs it and posts the result, and
the step goes on. Values cross as the process mode's data-only encoding (`isolation.protocol.
encode_value`, base64 in JSON), never pickle, in both directions.

Layout: `ServiceConfig` (the operator's limits), `Session` / `StepRun` (one executor; one step
running on its own thread, its tool calls handed over through a queue), `SessionManager`
(sessions per token, idle expiry, readiness), `create_app` (the routes, authentication,
bounds, metrics, spans, logs) and `serve` (the command line).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import itertools
import json
import logging
import math
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .isolation import protocol as P
from . import observability as obs
from .errors import InterpreterError

LOGGER_NAME = "smolagents_native.service"
API = "/v1"
# The budgets a client may set for its session (each capped by the operator's maximum).
CLIENT_BUDGETS = ("timeout_seconds", "max_operations", "max_while_iterations",
                  "max_memory_bytes", "max_print_outputs_length")

log = logging.getLogger(LOGGER_NAME)


# ---------------------------------------------------------------------------------------------
# Values: the process mode's data-only encoding, base64 in JSON.


def encode(value: Any) -> str:
    """A value as the service sends it: data only (`isolation.protocol.encode_value`), base64."""
    return base64.b64encode(P.encode_value(value)).decode("ascii")


def decode(text: Any, deadline: float | None = None) -> Any:
    """The value of `encode(...)`'s text, read as untrusted data (no class is rebuilt beyond
    the data types of the wire format). ValueError when malformed."""
    if not isinstance(text, str):
        raise ValueError("a value is a base64 string")
    try:
        blob = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError("a value is a base64 string") from None
    try:
        return P.decode_value(blob, {}, deadline)
    except (P.ProtocolError, TimeoutError) as exc:
        raise ValueError(f"malformed value: {exc}") from None


def _encodable(value: Any) -> tuple[str | None, str]:
    """(encoded value or None, repr): a value the encoding cannot carry (a worker-only
    stand-in, an object of an unlisted class) comes as its repr only."""
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - the code's own __repr__
        text = f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    try:
        return encode(value), text[:10_000]
    except Exception:  # noqa: BLE001 - cannot cross: its repr stands in
        return None, text[:10_000]


# ---------------------------------------------------------------------------------------------
# Configuration.


@dataclass
class ServiceConfig:
    """What the operator allows. Every limit bounds what a client may ask for."""

    tokens: frozenset[str] = frozenset()
    max_sessions: int = 32
    sessions_per_token: int = 8
    idle_timeout: float = 600.0
    # a request's values take at most 64 times its size once decoded (isolation.protocol's bound)
    max_request_bytes: int = 4 << 20
    # imports a session may authorize: None, any; else these names (and "pkg.*" under them)
    allowed_imports: frozenset[str] | None = None
    max_timeout_seconds: float = 60.0
    default_timeout_seconds: float = 30.0
    max_operations: int | None = None  # None: the executor's default is the ceiling too
    max_memory_bytes: int | None = 1 << 30
    # how long a step waits for the client's answer to one tool call
    tool_timeout: float = 120.0
    body_seconds: float = 30.0  # how long a request's body may take to arrive
    pool_size: int | None = None  # the workers' pool: None, the package's shared one
    # directories a session may be granted (read or write) at or under; none by default
    grantable_dirs: frozenset[str] = frozenset()
    allow_network: bool = False  # whether a session may be granted the network

    def grants(self, spec: Any) -> dict[str, Any]:
        """The executor arguments of a session's `grants` ({"readable_dirs", "writable_dirs",
        "network"}), each within what the operator allows."""
        if spec is None:
            spec = {}
        if not isinstance(spec, dict) or set(spec) - {"readable_dirs", "writable_dirs",
                                                       "network"}:
            raise _ClientError(400, "bad_request",
                               "grants takes readable_dirs, writable_dirs and network")
        roots = [os.path.realpath(d) for d in self.grantable_dirs]
        out: dict[str, Any] = {}
        for key in ("readable_dirs", "writable_dirs"):
            dirs = spec.get(key) or []
            if not isinstance(dirs, list) or not all(isinstance(d, str) and d for d in dirs):
                raise _ClientError(400, "bad_request", f"{key} is a list of paths")
            for d in dirs:
                real = os.path.realpath(d)
                if not any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots):
                    raise _ClientError(403, "grant_refused",
                                       f"the operator does not allow granting {d!r}")
            out[key] = [os.path.realpath(d) for d in dirs]
        network = spec.get("network", False)
        if not isinstance(network, bool):
            raise _ClientError(400, "bad_request", "network is true or false")
        if network and not self.allow_network:
            raise _ClientError(403, "grant_refused", "the operator does not grant the network")
        # an executor given neither list grants no directory (not "everywhere")
        out.setdefault("readable_dirs", [])
        out["allow_network"] = network
        return out

    def check_imports(self, imports: list[str]) -> None:
        if self.allowed_imports is None:
            return
        for name in imports:
            base = name[:-2] if name.endswith(".*") else name
            if name == "*" or not any(base == a or base.startswith(a + ".")
                                      for a in self.allowed_imports):
                raise _ClientError(403, "import_refused",
                                   f"the operator does not allow authorizing {name!r}")


def _tool_specs(tools: Any) -> dict[str, str | None]:
    """A client's tools: identifier names to descriptions (or null)."""
    if not isinstance(tools, dict) or not all(
            isinstance(k, str) and k.isidentifier() and (d is None or isinstance(d, str))
            for k, d in tools.items()):
        raise _ClientError(400, "bad_request",
                           "tools maps identifier names to descriptions (or null)")
    return tools


class _ClientError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# ---------------------------------------------------------------------------------------------
# Sessions and steps.


@dataclass
class _ToolCall:
    id: str
    name: str
    args: tuple
    kwargs: dict
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None


class _RemoteTool:
    """A session's tool: calling it (on the step's thread, for the worker) hands the call to
    the client and waits for the result it posts."""

    def __init__(self, session: Session, name: str, description: str | None):
        self.session, self.name = session, name
        self.__name__ = name
        self.__doc__ = description or f"The client's tool {name!r}."
        self.description = description

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        run = self.session.current
        if run is None:
            raise InterpreterError(f"tool {self.name!r} called outside a step")
        return run.call_tool(self.name, args, kwargs)


class StepRun:
    """One step of a session, on its own thread. Its events (a tool call, the end) go to the
    HTTP handler waiting for them through `events`."""

    def __init__(self, session: Session, code: str, context: Any):
        self.session, self.code, self.context = session, code, context
        self.events: queue.Queue = queue.Queue()
        self.calls: dict[str, _ToolCall] = {}
        self.pending: _ToolCall | None = None
        self._answer_lock = threading.Lock()  # one answer per call, even from two requests
        self.started = time.monotonic()
        self._ids = itertools.count(1)
        self.thread = threading.Thread(target=self._run, name=f"step-{session.id}",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        token = None
        if self.context is not None:
            from opentelemetry import context as otel_context

            token = otel_context.attach(self.context)
        try:
            out = self.session.executor(self.code)
            self.events.put(("done", out, None))
        except BaseException as exc:  # noqa: BLE001 - reported to the client
            self.events.put(("done", None, exc))
        finally:
            if token is not None:
                from opentelemetry import context as otel_context

                otel_context.detach(token)

    def call_tool(self, name: str, args: tuple, kwargs: dict) -> Any:
        call = _ToolCall(f"{self.session.id}.{next(self._ids)}", name, args, kwargs)
        self.calls[call.id] = call
        self.pending = call
        self.events.put(("call", call, None))
        if not call.done.wait(self.session.config.tool_timeout):
            with self._answer_lock:
                answered = self.pending is None  # an answer raced the timeout: take it
                self.pending = None
            if not answered:
                raise TimeoutError(f"the client did not answer the call of tool {name!r} "
                                   f"within {self.session.config.tool_timeout:g} s")
            call.done.wait()
        if call.error is not None:
            raise call.error
        return call.value

    def answer(self, call_id: str, value: Any, error: BaseException | None) -> None:
        with self._answer_lock:
            call = self.pending
            if call is None or call.id != call_id:
                raise _ClientError(409, "no_such_call", f"no tool call {call_id!r} is waiting")
            self.pending = None
        call.value, call.error = value, error
        call.done.set()

    def next_event(self, timeout: float) -> tuple | None:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None


class Session:
    def __init__(self, sid: str, token: str, executor: Any, config: ServiceConfig):
        self.id, self.token, self.executor, self.config = sid, token, executor, config
        self.lock = threading.Lock()  # one request at a time acts on a session
        self.current: StepRun | None = None
        self.last_used = time.monotonic()
        self.closed = False
        self.steps = 0

    def touch(self) -> None:
        self.last_used = time.monotonic()

    def state_changes(self) -> dict[str, Any]:
        """The variables the last step changed (encoded; a value that cannot cross as its
        repr) and the names it removed."""
        changed, removed = getattr(self.executor, "last_changes", ((), ()))
        state = self.executor.state
        updates = {}
        for name in changed:
            if name in state:
                value, text = _encodable(state[name])
                updates[name] = {"value": value, "repr": text}
        return {"updates": updates, "removed": [n for n in removed if n not in state]}

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            self.executor.close()


class SessionManager:
    def __init__(self, config: ServiceConfig, metrics: _Metrics | None = None):
        self.config = config
        self.metrics = metrics
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()
        self._ready: tuple[float, bool, str] = (0.0, False, "not probed")
        self._pool = None
        if config.pool_size is not None:
            from .isolation import WorkerPool

            self._pool = WorkerPool(size=config.pool_size)

    def create(self, token: str, spec: dict) -> Session:
        from .isolation import ProcessExecutor

        imports = spec.get("authorized_imports", [])
        if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
            raise _ClientError(400, "bad_request", "authorized_imports is a list of strings")
        self.config.check_imports(imports)
        kwargs = {**self._budgets(spec), **self.config.grants(spec.get("grants"))}
        tools = _tool_specs(spec.get("tools", {}))
        with self.lock:
            if len(self.sessions) >= self.config.max_sessions:
                raise _ClientError(429, "too_many_sessions",
                                   f"the service holds {self.config.max_sessions} sessions")
            mine = sum(1 for s in self.sessions.values() if s.token == token)
            if mine >= self.config.sessions_per_token:
                raise _ClientError(429, "too_many_sessions",
                                   f"this token holds {mine} sessions (the most allowed)")
            sid = secrets.token_urlsafe(12)
            self.sessions[sid] = placeholder = Session(sid, token, None, self.config)
        try:
            extra = {"pool": self._pool} if self._pool is not None else {}
            executor = ProcessExecutor(imports, **kwargs, **extra)
            session = Session(sid, token, executor, self.config)
            executor.send_tools({name: _RemoteTool(session, name, desc)
                                 for name, desc in tools.items()})
        except BaseException as exc:
            with self.lock:
                self.sessions.pop(sid, None)
            if self.metrics:
                self.metrics.sandbox_failures.inc()
            if isinstance(exc, (InterpreterError, ValueError, TypeError)):
                raise _ClientError(400 if not isinstance(exc, InterpreterError) else 503,
                                   "session_refused", str(exc)) from None
            raise
        with self.lock:
            if self.sessions.get(sid) is placeholder:
                self.sessions[sid] = session
        if self.metrics:
            self.metrics.sandbox_starts.inc()
            self.metrics.sessions.set(len(self.sessions))
        return session

    def _budgets(self, spec: dict) -> dict[str, Any]:
        c = self.config
        budgets = spec.get("budgets", {}) or {}
        if not isinstance(budgets, dict) or set(budgets) - set(CLIENT_BUDGETS):
            raise _ClientError(400, "bad_request",
                               f"budgets takes {', '.join(CLIENT_BUDGETS)}")
        for key, value in budgets.items():
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, float))
                                      or not math.isfinite(value) or value <= 0):
                raise _ClientError(400, "bad_request", f"{key} must be a positive number")
        timeout = budgets.get("timeout_seconds") or c.default_timeout_seconds
        kwargs: dict[str, Any] = {"timeout_seconds": min(float(timeout), c.max_timeout_seconds)}
        for key, ceiling in (("max_operations", c.max_operations),
                             ("max_memory_bytes", c.max_memory_bytes),
                             ("max_while_iterations", None),
                             ("max_print_outputs_length", None)):
            value = budgets.get(key)
            if value is not None:
                kwargs[key] = int(value) if ceiling is None else min(int(value), ceiling)
            elif ceiling is not None and key != "max_operations":
                kwargs[key] = ceiling
        if c.max_operations is not None and "max_operations" not in kwargs:
            kwargs["max_operations"] = c.max_operations
        return kwargs

    def get(self, token: str, sid: str) -> Session:
        with self.lock:
            session = self.sessions.get(sid)
        # another token's session is as absent as one that never was
        if session is None or session.executor is None or session.token != token:
            raise _ClientError(404, "no_such_session",
                               f"no session {sid!r} (closed, or expired after "
                               f"{self.config.idle_timeout:g} s idle)")
        return session

    def close(self, token: str, sid: str) -> None:
        session = self.get(token, sid)
        with self.lock:
            self.sessions.pop(sid, None)
            count = len(self.sessions)
        session.close()
        if self.metrics:
            self.metrics.sessions.set(count)

    def expire(self) -> int:
        """Close the sessions no request touched for the operator's idle timeout (one left
        with a step waiting for a tool result its client never posts included: closing the
        executor ends the step)."""
        now = time.monotonic()
        with self.lock:
            old = [s for s in self.sessions.values()
                   if s.executor is not None and now - s.last_used > self.config.idle_timeout]
            for s in old:
                self.sessions.pop(s.id, None)
            count = len(self.sessions)
        for s in old:
            s.close()
        if old and self.metrics:
            self.metrics.sessions.set(count)
        return len(old)

    def ready(self) -> tuple[bool, str]:
        """Whether a sandbox can start now: room for a session, and a probe (a process-mode
        executor started and run) that succeeded within the last 5 seconds."""
        with self.lock:
            if len(self.sessions) >= self.config.max_sessions:
                return False, "the service holds its most sessions"
        at, ok, why = self._ready
        if time.monotonic() - at < 5.0:
            return ok, why
        from .isolation import ProcessExecutor

        try:
            extra = {"pool": self._pool} if self._pool is not None else {}
            with ProcessExecutor([], timeout_seconds=10, **extra) as probe:
                probe.send_tools({})
                ok, why = probe("1 + 1").output == 2, "a sandbox started and ran a step"
        except Exception as exc:  # noqa: BLE001 - the reason is the answer
            ok, why = False, f"a sandbox cannot start: {type(exc).__name__}: {exc}"
            if self.metrics:
                self.metrics.sandbox_failures.inc()
        self._ready = (time.monotonic(), ok, why)
        return ok, why

    def shutdown(self) -> None:
        with self.lock:
            sessions = list(self.sessions.values())
            self.sessions.clear()
        for s in sessions:
            if s.executor is not None:
                s.close()
        if self._pool is not None:
            with contextlib.suppress(Exception):
                self._pool.close()


# ---------------------------------------------------------------------------------------------
# Metrics (prometheus_client, one registry per app).


class _Metrics:
    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        ns = "smolagents_native"
        self.sessions = Gauge(f"{ns}_sessions", "Sessions open", registry=self.registry)
        self.steps = Counter(f"{ns}_steps", "Steps run (ended)", registry=self.registry)
        self.step_duration = Histogram(
            f"{ns}_step_duration_seconds", "Step duration, tool calls included",
            registry=self.registry,
            buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120))
        self.errors = Counter(f"{ns}_step_errors", "Steps that failed, by error type",
                              ["error_type"], registry=self.registry)
        self.tool_calls = Counter(f"{ns}_tool_calls", "Tool calls handed to clients",
                                  registry=self.registry)
        self.sandbox_starts = Counter(f"{ns}_sandbox_starts", "Sandboxes started",
                                      registry=self.registry)
        self.sandbox_failures = Counter(f"{ns}_sandbox_failures", "Sandboxes that failed to start",
                                        registry=self.registry)
        self.requests = Counter(f"{ns}_requests", "HTTP requests, by route and status",
                                ["route", "status"], registry=self.registry)

    def render(self) -> tuple[bytes, str]:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


# ---------------------------------------------------------------------------------------------
# The application.


def tool_error(err: dict) -> BaseException:
    """The exception a client's tool raised, as the code sees it: a built-in exception type
    (ValueError, KeyError...) rebuilt with its message, any other as a RuntimeError naming
    the type. No class of the client is rebuilt from its name beyond the built-ins."""
    import builtins

    name = str(err.get("type", "Exception"))[:200]
    message = str(err.get("message", ""))[:10_000]
    cls = getattr(builtins, name, None) if name.isidentifier() else None
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:  # noqa: BLE001 - a built-in that wants other arguments
            pass
    return RuntimeError(f"{name}: {message}")


def _error_body(exc: BaseException) -> dict[str, Any]:
    body = {"type": type(exc).__name__, "message": str(exc)}
    lineno = getattr(exc, "lineno", None)
    if isinstance(lineno, int):
        body["lineno"] = lineno
    return body


def create_app(config: ServiceConfig) -> Any:
    """The ASGI application (Starlette) serving `config`."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route
    from starlette.concurrency import run_in_threadpool

    if not config.tokens:
        raise ValueError("the service needs at least one token (docs/service.md)")
    metrics = _Metrics()
    manager = SessionManager(config, metrics)
    tokens = frozenset(config.tokens)

    def token_of(request: Request) -> str:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or not any(secrets.compare_digest(value, t)
                                                 for t in tokens):
            raise _ClientError(401, "unauthorized", "a valid bearer token is required")
        return value

    async def body_of(request: Request) -> dict:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit()
                                   or int(length) > config.max_request_bytes):
            raise _ClientError(413, "too_large",
                               f"requests are at most {config.max_request_bytes} bytes")
        import anyio

        data = bytearray()
        # a body trickled in slowly holds a connection, not a thread: bounded in time too
        with anyio.move_on_after(config.body_seconds) as scope:
            async for chunk in request.stream():
                data += chunk
                if len(data) > config.max_request_bytes:
                    raise _ClientError(413, "too_large",
                                       f"requests are at most {config.max_request_bytes} bytes")
        if scope.cancelled_caught:
            raise _ClientError(408, "too_slow",
                               f"the request body did not arrive within {config.body_seconds:g} s")
        try:
            body = json.loads(data or b"{}")
        except (ValueError, RecursionError):
            raise _ClientError(400, "bad_request", "the body is not JSON (or nests too deep)") \
                from None
        if not isinstance(body, dict):
            raise _ClientError(400, "bad_request", "the body is a JSON object")
        return body

    def endpoint(route: str, handler: Any) -> Any:
        async def run(request: Request) -> Response:
            start = time.perf_counter()
            status = 500
            try:
                response = await handler(request)
                status = response.status_code
                return response
            except _ClientError as exc:
                status = exc.status
                return JSONResponse({"error": {"code": exc.code, "message": exc.message}},
                                    status_code=exc.status)
            except Exception as exc:  # noqa: BLE001 - a bug here is a 500, logged
                log.exception("request failed: %s %s", request.method, route)
                return JSONResponse({"error": {"code": "internal",
                                               "message": f"{type(exc).__name__}: {exc}"}},
                                    status_code=500)
            finally:
                metrics.requests.labels(route, str(status)).inc()
                log.info("%s %s %d", request.method, route, status, extra={
                    obs.METRICS_ATTR: {"route": route, "status": status,
                                       "duration": time.perf_counter() - start}})
        return run

    async def session_request(request: Request) -> tuple[Session, dict]:
        """The session a request names (its token's) and the request's body."""
        session = manager.get(token_of(request), request.path_params["sid"])
        return session, await body_of(request)

    def trace_context(request: Request) -> Any:
        if not obs.tracing_available() or "traceparent" not in request.headers:
            return None
        from opentelemetry.propagate import extract

        return extract(dict(request.headers))

    async def wait_step(session: Session, run: StepRun) -> Response:
        """The step's next event as the response: a tool call, or its end."""
        limit = (session.executor.timeout_seconds or config.max_timeout_seconds) + 10.0
        event = await run_in_threadpool(run.next_event, limit + config.tool_timeout)
        if event is None:  # the executor's own deadline should have ended it long before
            session.current = None
            manager.close(session.token, session.id)
            raise _ClientError(504, "step_lost", "the step did not end; the session is closed")
        kind, payload, error = event
        session.touch()
        if kind == "call":
            metrics.tool_calls.inc()
            try:
                args, kwargs = encode(payload.args), encode(payload.kwargs)
            except Exception as exc:  # noqa: BLE001 - answered to the code as the tool's error
                run.answer(payload.id, None, TypeError(
                    f"the arguments of tool {payload.name!r} cannot cross to the client: {exc}"))
                return await wait_step(session, run)
            return JSONResponse({"status": "tool_call", "call": {
                "id": payload.id, "name": payload.name, "args": args, "kwargs": kwargs}})
        session.current = None
        session.steps += 1
        duration = time.monotonic() - run.started
        metrics.steps.inc()
        metrics.step_duration.observe(duration)
        body: dict[str, Any] = {"status": "done", "duration": duration,
                                **session.state_changes()}
        state = session.executor.state
        body["logs"] = str(state.get("_print_outputs", ""))
        body["operations"] = state.get("_operations_count", {}).get("counter", 0)
        if error is not None:
            metrics.errors.labels(type(error).__name__).inc()
            body["error"] = _error_body(error)
        else:
            value, text = _encodable(payload.output)
            body.update(output=value, output_repr=text,
                        is_final_answer=bool(payload.is_final_answer))
        return JSONResponse(body)

    # -- routes

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        ok, why = await run_in_threadpool(manager.ready)
        return JSONResponse({"ready": ok, "reason": why}, status_code=200 if ok else 503)

    async def metrics_route(request: Request) -> Response:
        data, content_type = metrics.render()
        return Response(data, media_type=content_type)

    async def create_session(request: Request) -> Response:
        token = token_of(request)
        spec = await body_of(request)
        session = await run_in_threadpool(manager.create, token, spec)
        return JSONResponse({"session": session.id, "budgets": {
            "timeout_seconds": session.executor.timeout_seconds,
            "authorized_imports": list(session.executor.authorized_imports)}},
            status_code=201)

    async def delete_session(request: Request) -> Response:
        token = token_of(request)
        await run_in_threadpool(manager.close, token, request.path_params["sid"])
        return Response(status_code=204)

    async def run_step(request: Request) -> Response:
        session, body = await session_request(request)
        code = body.get("code")
        if not isinstance(code, str):
            raise _ClientError(400, "bad_request", "code is a string")
        with session.lock:
            last = session.current
            if last is not None and not last.thread.is_alive() and last.pending is None:
                session.current = None  # ended while its client was gone: nobody read it
            if session.current is not None:
                raise _ClientError(409, "busy", "a step of this session is running")
            run = session.current = StepRun(session, code, trace_context(request))
            session.touch()
        run.start()
        return await wait_step(session, run)

    async def answer_call(request: Request) -> Response:
        session, body = await session_request(request)
        run = session.current
        if run is None:
            raise _ClientError(409, "no_step", "no step of this session is running")
        call_id = body.get("call")
        if not isinstance(call_id, str):
            raise _ClientError(400, "bad_request", "call is the id of the tool call answered")
        if "error" in body:
            err = body["error"]
            if not isinstance(err, dict):
                raise _ClientError(400, "bad_request", "error is {type, message}")
            error: BaseException | None = tool_error(err)
            value = None
        else:
            try:
                value = decode(body.get("value"))
            except ValueError as exc:
                raise _ClientError(400, "bad_value", str(exc)) from None
            error = None
        run.answer(call_id, value, error)
        return await wait_step(session, run)

    async def put_tools(request: Request) -> Response:
        session, body = await session_request(request)
        tools = _tool_specs(body.get("tools"))
        if session.current is not None:
            raise _ClientError(409, "busy", "a step of this session is running")
        await run_in_threadpool(session.executor.send_tools, {
            name: _RemoteTool(session, name, desc) for name, desc in tools.items()})
        session.touch()
        return Response(status_code=204)

    async def put_variables(request: Request) -> Response:
        session, body = await session_request(request)
        variables = body.get("variables")
        if not isinstance(variables, dict):
            raise _ClientError(400, "bad_request", "variables maps names to values")
        try:
            values = {str(k): decode(v) for k, v in variables.items()}
        except ValueError as exc:
            raise _ClientError(400, "bad_value", str(exc)) from None
        if session.current is not None:
            raise _ClientError(409, "busy", "a step of this session is running")
        try:
            await run_in_threadpool(session.executor.send_variables, values)
        except InterpreterError as exc:
            raise _ClientError(400, "bad_value", str(exc)) from None
        session.touch()
        return Response(status_code=204)

    async def reset_session(request: Request) -> Response:
        """A fresh program state for the session's next step (ProcessExecutor.reset): its
        variables, functions and imports forgotten, the worker's scratch directory emptied
        (or a new worker); tools, grants and budgets stay."""
        session, _body = await session_request(request)
        if session.current is not None:
            raise _ClientError(409, "busy", "a step of this session is running")
        await run_in_threadpool(session.executor.reset)
        session.touch()
        return Response(status_code=204)

    async def get_variables(request: Request) -> Response:
        token = token_of(request)
        session = manager.get(token, request.path_params["sid"])
        names = request.query_params.getlist("name")
        state = session.executor.state
        out = {}
        for name in names or [n for n in state if n not in ("_print_outputs",
                                                              "_operations_count")]:
            if name in state:
                value, text = _encodable(state[name])
                out[name] = {"value": value, "repr": text}
        session.touch()
        return JSONResponse({"variables": out})

    async def expire_loop() -> None:
        import anyio

        while True:
            await anyio.sleep(min(30.0, max(0.5, config.idle_timeout / 4)))
            await run_in_threadpool(manager.expire)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        import anyio

        async with anyio.create_task_group() as group:
            group.start_soon(expire_loop)
            try:
                yield
            finally:
                group.cancel_scope.cancel()
                await run_in_threadpool(manager.shutdown)

    routes = [
        Route("/healthz", endpoint("/healthz", healthz), methods=["GET"]),
        Route("/readyz", endpoint("/readyz", readyz), methods=["GET"]),
        Route("/metrics", endpoint("/metrics", metrics_route), methods=["GET"]),
        Route(f"{API}/sessions", endpoint("/sessions", create_session), methods=["POST"]),
        Route(f"{API}/sessions/{{sid}}", endpoint("/sessions/{sid}", delete_session),
              methods=["DELETE"]),
        Route(f"{API}/sessions/{{sid}}/steps", endpoint("/steps", run_step), methods=["POST"]),
        Route(f"{API}/sessions/{{sid}}/calls", endpoint("/calls", answer_call),
              methods=["POST"]),
        Route(f"{API}/sessions/{{sid}}/variables", endpoint("/variables", put_variables),
              methods=["POST"]),
        Route(f"{API}/sessions/{{sid}}/tools", endpoint("/tools", put_tools),
              methods=["POST"]),
        Route(f"{API}/sessions/{{sid}}/reset", endpoint("/reset", reset_session),
              methods=["POST"]),
        Route(f"{API}/sessions/{{sid}}/variables", endpoint("/variables", get_variables),
              methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.manager = manager
    app.state.metrics = metrics
    return app


# ---------------------------------------------------------------------------------------------
# The command line: python -m smolagents_native serve.


def read_tokens(path: str | None, env: str = "SMOLAGENTS_NATIVE_SERVICE_TOKENS") -> frozenset:
    """Tokens from a file (one per line, '#' comments) or the environment (comma-separated)."""
    lines: Iterable[str]
    if path:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        lines = os.environ.get(env, "").split(",")
    tokens = frozenset(t.strip() for t in lines if t.strip() and not t.strip().startswith("#"))
    if any(len(t) < 16 for t in tokens):
        raise ValueError("every token must be at least 16 characters")
    return tokens


def listen(host: str = "127.0.0.1", port: int = 8765, backlog: int = 256) -> socket.socket:
    """The service's listening socket. TCP_NODELAY is set here and inherited by every
    connection: a response leaves in two writes (head, body), and without it the second
    waits for the client's delayed ACK, 40 ms per request on Linux."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


def serve(config: ServiceConfig, host: str = "127.0.0.1", port: int = 8765,
          log_level: str = "info") -> None:
    """Run the service until interrupted (uvicorn, JSON log lines on stderr)."""
    import uvicorn

    obs.configure_logging(log_level.upper(), json=True)
    sock = listen(host, port)
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level=log_level,
                                           access_log=False, timeout_graceful_shutdown=10,
                                           timeout_keep_alive=30))
    log.info("serving on %s:%d", host, sock.getsockname()[1])
    server.run(sockets=[sock])
