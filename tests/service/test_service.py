"""The sandbox service end to end: the real server (uvicorn, on loopback) and RemoteExecutor,
with smolagents' CodeAgent and this package's agent, tools called back in the client, errors,
timeouts, a worker crash, concurrent sessions, tokens, request bounds, probes, metrics and
spans (docs/service.md)."""

from __future__ import annotations

import base64
import http.client
import json
import threading
import time

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

from smolagents_native import ExecutionTimeoutError, InterpreterError  # noqa: E402
from smolagents_native import LocalPythonExecutor  # noqa: E402
from smolagents_native.remote import RemoteError, RemoteExecutor  # noqa: E402
from smolagents_native.service import ServiceConfig, create_app, encode, listen  # noqa: E402

TOKEN = "token-a-" + "x" * 20
OTHER = "token-b-" + "y" * 20


class Server:
    """The service on 127.0.0.1 in a thread of this process."""

    def __init__(self, config: ServiceConfig, keep_alive: float = 5.0):
        self.app = create_app(config)
        self.sock = listen("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning",
                                                    lifespan="on", access_log=False,
                                                    timeout_keep_alive=keep_alive))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.sock.close()

    def request(self, method: str, path: str, body: bytes | None = None,
                token: str | None = TOKEN, headers: dict | None = None) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        h = {"Content-Type": "application/json", **(headers or {})}
        if token:
            h["Authorization"] = f"Bearer {token}"
        conn.request(method, path, body, h)
        response = conn.getresponse()
        raw = response.read()
        conn.close()
        try:
            return response.status, json.loads(raw) if raw else {}
        except ValueError:
            return response.status, {"raw": raw.decode("utf-8", "replace")}


@pytest.fixture(scope="module")
def service():
    config = ServiceConfig(tokens=frozenset({TOKEN, OTHER}), max_sessions=12,
                           sessions_per_token=8, idle_timeout=300, max_request_bytes=1 << 20,
                           max_timeout_seconds=20, default_timeout_seconds=10,
                           tool_timeout=15, allowed_imports=frozenset(
                               {"math", "json", "collections", "os", "ctypes", "time"}))
    with Server(config) as server:
        yield server


def remote(service, imports=(), **kwargs) -> RemoteExecutor:
    ex = RemoteExecutor(service.url, TOKEN, list(imports), **kwargs)
    ex.send_tools({})
    return ex


# ---------------------------------------------------------------------------------------------
# Results, errors and state as from the local executors.


STEPS = [
    "x = 6 * 7\nprint('x is', x)\nx + 1",
    "items = [x, {'k': (1, 2.5)}, {3}, b'raw', None]\nimport math\ndef f():\n    return x\n"
    "items",
    "f() + len(items)",
    "print('before')\n{}['missing']",
    "del x\nmath.floor(2.5)",
    "final_answer(items[1])",
]


def run_all(ex) -> list:
    seen = []
    for code in STEPS:
        try:
            out = ex(code)
            seen.append(("ok", out.output, out.logs, out.is_final_answer))
        except InterpreterError as exc:
            seen.append(("error", str(exc), getattr(exc, "lineno", None),
                         str(ex.state["_print_outputs"])))
        seen.append(sorted(k for k in ex.state if not k.startswith("_")))
    return seen


def test_the_same_results_errors_and_state_as_local(service):
    local = LocalPythonExecutor([], isolation="process")
    rem = RemoteExecutor(service.url, TOKEN, [])
    for ex in (local, rem):
        ex.send_tools({"final_answer": lambda answer: answer})
    with local, rem:
        seen = run_all(rem)
        assert seen == run_all(local)
        assert seen[0] == ("ok", 43, "x is 42\n", False)
        assert seen[6][0] == "error" and seen[6][2] == 2  # KeyError, on line 2
        assert seen[-2] == ("ok", {"k": (1, 2.5)}, "", True)
        assert rem.state["items"][1:] == [{"k": (1, 2.5)}, {3}, b"raw", None]
        assert rem.state["_operations_count"]["counter"] > 0


def test_reset_starts_the_next_step_from_a_fresh_program_state(service):
    """RemoteExecutor.reset() (POST .../reset): the session's worker forgets the program's
    variables, functions and imports, as a local process-mode executor's reset() does; the
    tools stay."""
    local = LocalPythonExecutor([], isolation="process")
    rem = RemoteExecutor(service.url, TOKEN, [])
    rem.reset()  # no session yet: nothing to forget, no error
    for ex in (local, rem):
        ex.send_tools({"double": lambda v: 2 * v})
    with local, rem:
        for ex in (local, rem):
            ex("import math\ny = double(21)\ndef g():\n    return y")
            assert ex("g()").output == 42
            ex.reset()
            assert "y" not in ex.state
            with pytest.raises(InterpreterError, match="name 'y' is not defined"):
                ex("y")
            with pytest.raises(InterpreterError, match="name 'math' is not defined"):
                ex("math.pi")
            assert ex("double(4)").output == 8  # the tools stay
        other = remote(service)  # another session is not the reset one
        with other:
            other("z = 1")
            rem.reset()
            assert other("z").output == 1


def test_tools_run_in_the_client_and_their_errors_reach_the_code(service):
    calls = []

    def search(query: str, limit: int = 3) -> list:
        calls.append((query, limit, threading.get_ident()))
        return [f"{query}-{i}" for i in range(limit)]

    def broken(x):
        raise ValueError(f"bad {x}")

    with RemoteExecutor(service.url, TOKEN) as ex:
        ex.send_tools({"search": search, "broken": broken})
        out = ex("r = search('cats', limit=2)\nr + search('dogs')")
        assert out.output == ["cats-0", "cats-1", "dogs-0", "dogs-1", "dogs-2"]
        assert [c[:2] for c in calls] == [("cats", 2), ("dogs", 3)]
        assert all(c[2] == threading.get_ident() for c in calls)  # here, on the caller's thread
        out = ex("try:\n    broken(1)\nexcept ValueError as e:\n    caught = str(e)\ncaught")
        assert out.output == "bad 1"  # a built-in exception type, caught as itself
        with pytest.raises(InterpreterError, match="ValueError: bad 2"):
            ex("broken(2)")
        # tools given later are known to the session
        ex.send_tools({"search": search, "broken": broken, "twice": lambda v: 2 * v})
        assert ex("twice(21)").output == 42


def test_a_smolagents_code_agent_through_remote_executor(service):
    pytest.importorskip("smolagents")
    from compat.test_smolagents_agent import ERROR_TEXT, REPLIES, ScriptedChatModel, multiply
    from smolagents import CodeAgent
    from smolagents.memory import ActionStep

    model = ScriptedChatModel(REPLIES)
    executor = RemoteExecutor(service.url, TOKEN, [])
    agent = CodeAgent(tools=[multiply], model=model, executor=executor, verbosity_level=-1,
                      max_steps=6)
    assert agent.run("Multiply 6 by 7.") == "42 and [42, 1]"
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    first, failing, third, last = steps
    assert "Execution logs:\nproduct is 42\n" in first.observations
    assert failing.observations == "Execution logs:\nabout to fail\n"
    assert ERROR_TEXT in str(failing.error) and ERROR_TEXT in model.seen[2]
    assert "caught KeyError('missing')" in third.observations
    assert last.is_final_answer
    assert executor.state["product"] == 42 and executor.state["seen"] == [42, 1]
    executor.close()


def test_this_packages_agent_through_remote_executor(service):
    from smolagents_native.agent import CodeAgent
    from smolagents_native.models import ScriptedModel

    def lookup(city: str) -> int:
        """Population of a city."""
        return {"Paris": 2_100_000}[city]

    model = ScriptedModel(["```python\np = lookup('Paris')\nprint(p)\n```",
                           "```python\nfinal_answer(p // 1000)\n```"])
    with RemoteExecutor(service.url, TOKEN, []) as executor:
        result = CodeAgent([lookup], model, executor=executor).run("population in thousands")
    assert result.finished and result.final_answer == 2100
    assert result.steps[0].logs == "2100000\n"


def test_steps_far_apart_outlive_the_servers_keep_alive(monkeypatch):
    # An agent waits for its model between steps, longer than the server keeps an idle
    # connection: the next step must not fail on the closed connection (nor run twice).
    from smolagents_native import remote as remote_module

    config = ServiceConfig(tokens=frozenset({TOKEN}))
    with Server(config, keep_alive=0.5) as server, remote(server) as ex:
        ex("n = 0")
        # Reusing the stale connection (what the replacement avoids): the step is not sent
        # again, the caller is told.
        monkeypatch.setattr(remote_module, "IDLE_RECONNECT", 10.0)
        time.sleep(1.0)
        with pytest.raises(RemoteError, match="closed the connection"):
            ex("n += 1")
        assert ex("n").output == 0  # it did not run
        monkeypatch.setattr(remote_module, "IDLE_RECONNECT", 0.1)
        for _ in range(2):
            time.sleep(1.0)
            ex("n += 1")
        assert ex("n").output == 2  # each ran once


def test_a_timeout_and_a_parse_error_end_the_step_and_the_session_goes_on(service):
    with remote(service, ["time"], timeout_seconds=1) as ex:
        start = time.monotonic()
        with pytest.raises(ExecutionTimeoutError):
            ex("import time\nwhile True:\n    time.sleep(0.01)")
        assert time.monotonic() - start < 10
        with pytest.raises(InterpreterError, match="SyntaxError") as info:
            ex("x = (\n")
        assert info.value.lineno == 1
        with pytest.raises(InterpreterError) as info:
            ex("def f():\n    return 1 / 0\n\nf()")
        assert info.value.lineno == 2  # the innermost line, across the service too
        assert ex("1 + 1").output == 2


def test_a_worker_crash_is_reported_and_touches_no_other_session(service):
    with remote(service, ["os"]) as victim, remote(service) as bystander:
        bystander("kept = 41")
        victim("x = 1")
        with pytest.raises(InterpreterError):
            victim("import os\nos.kill(os.getpid(), 9)")
        assert victim("1 + 1").output == 2  # a new worker took over
        assert bystander("kept + 1").output == 42


def test_concurrent_sessions_from_threads(service):
    results: dict[int, object] = {}

    def agent(i: int) -> None:
        try:
            with remote(service) as ex:
                ex.send_variables({"seed": i})
                for _ in range(5):
                    ex("seed = seed * 2 + 1")
                results[i] = ex("seed").output
        except Exception as exc:  # noqa: BLE001 - reported below
            results[i] = exc

    threads = [threading.Thread(target=agent, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    expected = {}
    for i in range(6):
        v = i
        for _ in range(5):
            v = v * 2 + 1
        expected[i] = v
    assert results == expected


# ---------------------------------------------------------------------------------------------
# Tokens, bounds, operator limits.


def test_tokens_are_required_and_sessions_are_their_tokens(service):
    status, body = service.request("POST", "/v1/sessions", b"{}", token=None)
    assert status == 401 and body["error"]["code"] == "unauthorized"
    status, _ = service.request("POST", "/v1/sessions", b"{}", token="wrong-" + "z" * 20)
    assert status == 401
    status, body = service.request("POST", "/v1/sessions", b"{}")
    assert status == 201
    sid = body["session"]
    code = json.dumps({"code": "1"}).encode()
    status, _ = service.request("POST", f"/v1/sessions/{sid}/steps", code, token=OTHER)
    assert status == 404  # another token's session does not exist for it
    status, body = service.request("POST", f"/v1/sessions/{sid}/steps", code)
    assert status == 200 and body["status"] == "done"
    status, _ = service.request("DELETE", f"/v1/sessions/{sid}", token=OTHER)
    assert status == 404
    status, _ = service.request("DELETE", f"/v1/sessions/{sid}")
    assert status == 204
    with pytest.raises(RemoteError) as info:
        RemoteExecutor(service.url, "wrong-" + "z" * 20)("1")
    assert info.value.status == 401


def test_oversized_and_malformed_requests_are_refused(service):
    status, body = service.request("POST", "/v1/sessions", b"{}")
    sid = body["session"]
    big = json.dumps({"code": "x = '" + "a" * (2 << 20) + "'"}).encode()
    status, body = service.request("POST", f"/v1/sessions/{sid}/steps", big)
    assert status == 413 and body["error"]["code"] == "too_large"
    for bad in (b"not json", b"[1, 2]", json.dumps({"code": 5}).encode()):
        status, body = service.request("POST", f"/v1/sessions/{sid}/steps", bad)
        assert status == 400, (bad, body)
    # a value that is not the data encoding: refused, never unpickled
    forged = base64.b64encode(b"\x80\x04cos\nsystem\n.").decode()
    status, body = service.request("POST", f"/v1/sessions/{sid}/variables",
                                   json.dumps({"variables": {"v": forged}}).encode())
    assert status == 400 and body["error"]["code"] == "bad_value"
    status, body = service.request("POST", f"/v1/sessions/{sid}/variables",
                                   json.dumps({"variables": {"v": encode([1, 2])}}).encode())
    assert status == 204
    status, body = service.request("POST", f"/v1/sessions/{sid}/steps",
                                   json.dumps({"code": "sum(v)"}).encode())
    assert body["output_repr"] == "3"
    service.request("DELETE", f"/v1/sessions/{sid}")


def test_a_body_that_trickles_in_is_cut_off():
    import socket

    config = ServiceConfig(tokens=frozenset({TOKEN}), body_seconds=0.5)
    with Server(config) as server:
        conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        conn.sendall(f"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}"
                     "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
                     .encode())
        start = time.monotonic()
        reply = conn.recv(4096).decode()
        assert reply.startswith("HTTP/1.1 408") and time.monotonic() - start < 5
        conn.close()
        assert server.request("GET", "/healthz", token=None)[0] == 200


def test_the_raw_protocol_one_answer_per_call(service):
    def post(path, body):
        return service.request("POST", path, json.dumps(body).encode())

    status, body = post("/v1/sessions", {"tools": {"t": "doubles"}})
    sid = body["session"]
    status, first = post(f"/v1/sessions/{sid}/steps", {"code": "t(1) + t(2)"})
    assert first["status"] == "tool_call" and first["call"]["name"] == "t"
    from smolagents_native.service import decode

    assert decode(first["call"]["args"]) == (1,) and decode(first["call"]["kwargs"]) == {}
    status, body = post(f"/v1/sessions/{sid}/steps", {"code": "1"})
    assert status == 409  # a step is running
    status, second = post(f"/v1/sessions/{sid}/calls",
                          {"call": first["call"]["id"], "value": encode(2)})
    assert second["status"] == "tool_call" and decode(second["call"]["args"]) == (2,)
    status, body = post(f"/v1/sessions/{sid}/calls",  # the same answer again
                        {"call": first["call"]["id"], "value": encode(2)})
    assert status == 409 and body["error"]["code"] == "no_such_call"
    status, done = post(f"/v1/sessions/{sid}/calls",
                        {"call": second["call"]["id"], "value": encode(4)})
    assert done["status"] == "done" and decode(done["output"]) == 6
    status, body = post(f"/v1/sessions/{sid}/calls", {"call": "x", "value": encode(1)})
    assert status == 409 and body["error"]["code"] == "no_step"
    service.request("DELETE", f"/v1/sessions/{sid}")


def test_the_operators_limits_bound_what_a_client_asks(service):
    with pytest.raises(RemoteError, match="does not allow authorizing 'subprocess'") as info:
        RemoteExecutor(service.url, TOKEN, ["subprocess"]).send_tools({})
    assert info.value.status == 403
    with pytest.raises(RemoteError):
        RemoteExecutor(service.url, TOKEN, ["*"]).send_tools({})
    with remote(service, timeout_seconds=1000) as ex:
        assert ex.timeout_seconds == 20  # the operator's maximum


def test_grants_within_what_the_operator_allows(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "data.txt").write_text("forty-two")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("hidden")
    config = ServiceConfig(tokens=frozenset({TOKEN}), grantable_dirs=frozenset({str(shared)}))
    with Server(config) as server:
        with RemoteExecutor(server.url, TOKEN, ["pathlib"], readable_dirs=[str(shared)]) as ex:
            ex.send_tools({})
            out = ex(f"import pathlib\npathlib.Path({str(shared / 'data.txt')!r}).read_text()")
            assert out.output == "forty-two"
            with pytest.raises(InterpreterError):
                ex(f"pathlib.Path({str(secret / 'key.txt')!r}).read_text()")
        for grants, what in (({"readable_dirs": [str(secret)]}, "granting"),
                             ({"writable_dirs": [str(shared / ".." / "secret")]}, "granting"),
                             ({"network": True}, "network")):
            ex = RemoteExecutor(server.url, TOKEN, ["pathlib"])
            ex.grants.update(grants)
            with pytest.raises(RemoteError, match=what) as info:
                ex.send_tools({})
            assert info.value.status == 403


def test_sessions_per_token_are_bounded():
    config = ServiceConfig(tokens=frozenset({TOKEN}), max_sessions=3, sessions_per_token=2)
    with Server(config) as server:
        a, b = remote(server), remote(server)
        with pytest.raises(RemoteError) as info:
            remote(server)
        assert info.value.status == 429
        status, body = server.request("GET", "/readyz", token=None)
        assert status == 200 and body["ready"]
        c = RemoteExecutor(server.url, OTHER)
        with pytest.raises(RemoteError):
            c.send_tools({})  # not a token of this service
        a.close()
        assert remote(server)("1").output == 1
        b.close()


# ---------------------------------------------------------------------------------------------
# Probes, metrics, spans.


def test_probes_and_metrics(service):
    status, body = service.request("GET", "/healthz", token=None)
    assert status == 200 and body == {"status": "ok"}
    status, body = service.request("GET", "/readyz", token=None)
    assert status == 200 and body["ready"] is True
    with remote(service) as ex:
        ex("1")
        with pytest.raises(InterpreterError):
            ex("undefined_name")
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    for name in ("smolagents_native_sessions ", "smolagents_native_steps_total",
                 "smolagents_native_step_duration_seconds_bucket",
                 'smolagents_native_step_errors_total{error_type="InterpreterError"}',
                 "smolagents_native_sandbox_starts_total"):
        assert name in text, name


def test_readyz_says_when_sandboxes_cannot_start(monkeypatch):
    from smolagents_native import isolation

    config = ServiceConfig(tokens=frozenset({TOKEN}))
    with Server(config) as server:
        def broken(*args, **kwargs):
            raise InterpreterError("The sandbox worker did not start (test): no namespaces")

        monkeypatch.setattr(isolation.ProcessExecutor, "_ensure_worker", broken)
        status, body = server.request("GET", "/readyz", token=None)
        assert status == 503 and body["ready"] is False
        assert "cannot start" in body["reason"]
        with pytest.raises(RemoteError) as info:
            remote(server)("1")
        assert info.value.status == 503
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        assert "smolagents_native_sandbox_failures_total 2.0" in text


def test_spans_continue_the_clients_trace(service):
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from smolagents_native import observability as obs

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    obs.set_tracer_provider(provider)
    try:
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span("client work") as parent, remote(service) as ex:
            ex("1 + 1")
        trace_id = parent.get_span_context().trace_id
    finally:
        obs.set_tracer_provider(None)
    spans = exporter.get_finished_spans()
    executes = [s for s in spans if s.name == "smolagents_native.execute"]
    # the server (same process here, same provider) made its execute span in the client's trace
    assert executes and all(s.context.trace_id == trace_id for s in executes)


# ---------------------------------------------------------------------------------------------
# The command line.


def test_serve_from_the_command_line(tmp_path):
    import os
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("SMOLAGENTS_NATIVE_SERVICE_TOKENS", None)
    refused = subprocess.run([sys.executable, "-m", "smolagents_native", "serve"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "no token" in refused.stderr
    short = tmp_path / "short"
    short.write_text("abc\n")
    refused = subprocess.run([sys.executable, "-m", "smolagents_native", "serve",
                              "--token-file", str(short)], env=env, capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 2 and "at least 16 characters" in refused.stderr

    tokens = tmp_path / "tokens"
    tokens.write_text(f"# the service's tokens\n{TOKEN}\n")
    probe = listen("127.0.0.1", 0)
    port = probe.getsockname()[1]
    probe.close()
    proc = subprocess.Popen([sys.executable, "-m", "smolagents_native", "serve", "--port",
                             str(port), "--token-file", str(tokens)], env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
                    assert json.loads(r.read()) == {"status": "ok"}
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "did not start"
                time.sleep(0.1)
        with RemoteExecutor(url, TOKEN) as ex:
            ex.send_tools({})
            assert ex("sum(range(10))").output == 45
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    # JSON log lines on stderr: one per request at least
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert any(r.get("logger") == "smolagents_native.service" for r in records), err[-2000:]
