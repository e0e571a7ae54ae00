"""`RemoteExecutor`: a smolagents `PythonExecutor` whose steps run in a session of the sandbox
service (`python -m smolagents_native serve`, docs/service.md).

`CodeAgent(executor=RemoteExecutor(url, token, [...]))`, or `CodeAgent(tools, model,
executor=...)` of this package: results, errors and `state` as from the local executors. Tools
stay here: a step that calls one comes back as a tool call, which this object runs and answers,
and the step goes on. Values cross as the process mode's data-only encoding (never pickle).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from .errors import ExecutionTimeoutError, InterpreterError
from .executor import CodeOutput, PrintContainer, PythonExecutor
from .service import API, decode, encode

_SKIPPED = ("_print_outputs", "_operations_count")
IDLE_RECONNECT = 2.0  # seconds


class RemoteError(InterpreterError):
    """The service refused a request, or could not be reached."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.code = status, code


class RemoteExecutor(PythonExecutor):  # type: ignore[misc,valid-type]
    """A code executor in a session of the sandbox service at `url`.

    Args:
        url: the service's base URL (``http://host:port``).
        token: a bearer token the operator gave (docs/service.md).
        additional_authorized_imports: as for LocalPythonExecutor (within what the operator
            allows; a refused one fails the session's creation with RemoteError).
        timeout_seconds, max_operations, max_while_iterations, max_memory_bytes,
        max_print_outputs_length: the session's budgets (capped by the operator's).
        request_timeout: seconds to wait for one HTTP answer beyond the step's own timeout.
        readable_dirs, writable_dirs, allow_network: what the session is granted (within the
            directories the operator makes grantable; the network only if it allows it).

    The session is created at the first `send_tools`, `send_variables` or step, and ended by
    `close()` (or the service's idle timeout).
    """

    def __init__(
        self,
        url: str,
        token: str,
        additional_authorized_imports: list[str] | None = None,
        *,
        timeout_seconds: float | None = None,
        max_operations: int | None = None,
        max_while_iterations: int | None = None,
        max_memory_bytes: int | None = None,
        max_print_outputs_length: int | None = None,
        request_timeout: float = 30.0,
        readable_dirs: list[str] | None = None,
        writable_dirs: list[str] | None = None,
        allow_network: bool = False,
    ):
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"url must be http(s)://host[:port], not {url!r}")
        self.url = url.rstrip("/")
        self._parsed = parsed
        self._token = token
        self.additional_authorized_imports = list(additional_authorized_imports or [])
        self.authorized_imports: list[str] = list(self.additional_authorized_imports)
        self.timeout_seconds = timeout_seconds
        self.budgets = {k: v for k, v in {
            "timeout_seconds": timeout_seconds, "max_operations": max_operations,
            "max_while_iterations": max_while_iterations, "max_memory_bytes": max_memory_bytes,
            "max_print_outputs_length": max_print_outputs_length}.items() if v is not None}
        self.request_timeout = request_timeout
        # directories and network the session asks for (within the operator's grantable ones)
        self.grants: dict[str, Any] = {"readable_dirs": list(readable_dirs or []),
                                       "writable_dirs": list(writable_dirs or []),
                                       "network": bool(allow_network)}
        self.state: dict[str, Any] = {}
        self.custom_tools: dict[str, Callable] = {}
        self._tools: dict[str, Callable] = {}
        self._session: str | None = None
        self._conn: http.client.HTTPConnection | None = None
        self._used = 0.0
        self._lock = threading.Lock()

    # -- HTTP

    def _connection(self) -> http.client.HTTPConnection:
        # A connection idle for a while may have been closed by the server (uvicorn keeps one
        # 5 s by default) or a proxy: a step's request is not repeated when that shows (it
        # could run twice), so one idle past IDLE_RECONNECT is replaced before it is used.
        if self._conn is not None and time.monotonic() - self._used > IDLE_RECONNECT:
            self._drop_connection()
        self._used = time.monotonic()
        if self._conn is None:
            cls = (http.client.HTTPSConnection if self._parsed.scheme == "https"
                   else http.client.HTTPConnection)
            self._conn = cls(self._parsed.hostname, self._parsed.port,
                             timeout=self._wait_seconds())
            self._conn.connect()
            # a request is small and answered at once: no Nagle delay (40 ms per request
            # against the peer's delayed ACK)
            self._conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._conn

    def _wait_seconds(self) -> float:
        return (self.timeout_seconds or 60.0) + self.request_timeout

    def _request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self._token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        _inject_trace_context(headers)
        for attempt in (0, 1):  # a kept-alive connection the server closed: once more
            conn = self._connection()
            try:
                conn.request(method, self._parsed.path.rstrip("/") + path, data, headers)
                response = conn.getresponse()
                raw = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError,
                    ConnectionResetError) as exc:
                self._drop_connection()
                if attempt or (method != "GET" and path.endswith(("/steps", "/calls"))):
                    raise RemoteError(f"the service closed the connection: {exc}") from None
            except OSError as exc:
                self._drop_connection()
                raise RemoteError(f"cannot reach the service at {self.url}: {exc}") from None
        if response.status == 204 or not raw:
            return response.status, None
        try:
            payload = json.loads(raw)
        except ValueError:
            raise RemoteError(f"the service answered {response.status} with non-JSON",
                              response.status) from None
        if response.status >= 400:
            err = payload.get("error", {}) if isinstance(payload, dict) else {}
            raise RemoteError(f"{err.get('message', 'request failed')} (HTTP {response.status})",
                              response.status, err.get("code"))
        return response.status, payload

    def _drop_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    # -- session

    def _ensure_session(self) -> str:
        if self._session is None:
            _, body = self._request("POST", f"{API}/sessions", {
                "authorized_imports": self.additional_authorized_imports,
                "budgets": self.budgets,
                "tools": {name: _description(tool) for name, tool in self._tools.items()},
                "grants": self.grants,
            })
            self._session = body["session"]
            self.authorized_imports = body["budgets"]["authorized_imports"]
            self.timeout_seconds = body["budgets"]["timeout_seconds"]
        return self._session

    def send_tools(self, tools: dict[str, Any]) -> None:
        with self._lock:
            self._tools = {**dict(tools), **self.custom_tools}
            if self._session is None:
                self._ensure_session()
            else:
                self._request("POST", f"{API}/sessions/{self._session}/tools", {
                    "tools": {n: _description(t) for n, t in self._tools.items()}})

    def send_variables(self, variables: dict[str, Any]) -> None:
        with self._lock:
            sid = self._ensure_session()
            try:
                encoded = {name: encode(value) for name, value in variables.items()}
            except Exception as exc:
                raise InterpreterError(f"a variable cannot cross to the service: {exc}") from None
            self._request("POST", f"{API}/sessions/{sid}/variables", {"variables": encoded})
            self.state.update(variables)

    def reset(self) -> None:
        """Forget the program's state (variables, functions, imports) before the next step,
        as `ProcessExecutor.reset()` does: the session's worker renews it (tools, grants and
        budgets stay). Without a session yet, there is nothing to forget."""
        with self._lock:
            if self._session is not None:
                self._request("POST", f"{API}/sessions/{self._session}/reset", {})
            self.state.clear()

    # -- steps

    def __call__(self, code_action: str) -> CodeOutput:
        with self._lock:
            sid = self._ensure_session()
            _, body = self._request("POST", f"{API}/sessions/{sid}/steps", {"code": code_action})
            while body.get("status") == "tool_call":
                body = self._answer(sid, body["call"])
            return self._finish(body)

    def _answer(self, sid: str, call: dict) -> dict:
        name = call.get("name")
        tool = self._tools.get(name)
        answer: dict[str, Any] = {"call": call.get("id")}
        try:
            if tool is None:
                raise NameError(f"no tool named {name!r}")
            args, kwargs = decode(call["args"]), decode(call["kwargs"])
            value = tool(*args, **kwargs)
            try:
                answer["value"] = encode(value)
            except Exception as exc:  # noqa: BLE001 - the code gets it as the tool's error
                raise TypeError(f"the result of tool {name!r}, of type "
                                f"{type(value).__name__}, cannot cross to the service: "
                                f"{exc}") from None
        except Exception as exc:  # noqa: BLE001 - the tool's error reaches the code
            answer["error"] = {"type": type(exc).__name__, "message": str(exc)}
        return self._request("POST", f"{API}/sessions/{sid}/calls", answer)[1]

    def _finish(self, body: dict) -> CodeOutput:
        for name in body.get("removed", ()):
            self.state.pop(name, None)
        for name, item in body.get("updates", {}).items():
            if item.get("value") is not None:
                self.state[name] = decode(item["value"])
            else:  # lives in the worker only
                self.state.pop(name, None)
        self.state["_print_outputs"] = PrintContainer(body.get("logs", ""))
        self.state["_operations_count"] = {"counter": body.get("operations", 0)}
        error = body.get("error")
        if error is not None:
            cls = ExecutionTimeoutError if error.get("type") == "ExecutionTimeoutError" \
                else InterpreterError
            exc = cls(error.get("message", ""))
            if isinstance(error.get("lineno"), int):
                exc.lineno = error["lineno"]
            raise exc
        output: Any
        if body.get("output") is not None:
            output = decode(body["output"])
        else:  # a value that lives in the worker only: its repr, made there
            output = _WorkerRepr(body.get("output_repr", ""))
        return CodeOutput(output=output, logs=body.get("logs", ""),
                          is_final_answer=bool(body.get("is_final_answer")))

    def variables(self, *names: str) -> dict[str, Any]:
        """The session's variables (all, or `names`) as the service holds them."""
        with self._lock:
            sid = self._ensure_session()
            query = urllib.parse.urlencode([("name", n) for n in names])
            _, body = self._request("GET", f"{API}/sessions/{sid}/variables"
                                    + (f"?{query}" if query else ""))
        return {name: decode(item["value"]) if item.get("value") is not None
                else _WorkerRepr(item.get("repr", ""))
                for name, item in body["variables"].items()}

    def close(self) -> None:
        """End the session (its sandbox) and the connection."""
        with self._lock:
            if self._session is not None:
                try:
                    self._request("DELETE", f"{API}/sessions/{self._session}")
                except RemoteError:
                    pass
                self._session = None
            self._drop_connection()

    def cleanup(self) -> None:  # smolagents' CodeAgent calls it when done
        self.close()

    def __enter__(self) -> RemoteExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # No request from a finalizer (it could wait on the network at any allocation, or at
        # shutdown): the connection goes, the service ends the session after its idle timeout.
        try:
            self._drop_connection()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


class _WorkerRepr(str):
    """A value that cannot leave the sandbox, shown by its repr (made there)."""

    def __repr__(self) -> str:
        return str(self)


def _description(tool: Any) -> str | None:
    text = getattr(tool, "description", None)
    if not isinstance(text, str):
        text = getattr(tool, "__doc__", None)
    return text[:2000] if isinstance(text, str) else None


def _inject_trace_context(headers: dict[str, str]) -> None:
    """The caller's trace context as `traceparent`, so the service's spans continue it."""
    from . import observability as obs

    if obs.tracing_available() and obs._tracer() is not None:
        from opentelemetry.propagate import inject

        inject(headers)

