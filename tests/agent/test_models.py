"""Model clients: OpenAICompatibleModel against a stub server on 127.0.0.1, ScriptedModel."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from smolagents_native.agent import CodeAgent
from smolagents_native.models import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    OpenAICompatibleModel,
    ScriptedModel,
)

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def completion(text, usage=None):
    body = {
        "id": "c1",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return 200, {}, json.dumps(body)


class StubServer:
    """An OpenAI-style endpoint on 127.0.0.1 answering from a queue of scripted responses.

    Each queued response is (status, headers, body) or ("sleep", seconds, response). When the
    queue is empty it answers 503. Requests are recorded as (path, headers, json body).
    """

    def __init__(self):
        self.responses: list = []
        self.requests: list = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with stub.lock:
                    stub.requests.append((self.path, dict(self.headers), json.loads(raw or b"{}")))
                    response = stub.responses.pop(0) if stub.responses else (503, {}, "{}")
                if response[0] == "sleep":
                    time.sleep(response[1])
                    response = response[2]
                status, headers, body = response
                data = body.encode()
                try:
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SMOLAGENTS_NATIVE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    # The stub is local: never send its requests through a proxy configured outside.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def make_model(stub, **kwargs):
    kwargs.setdefault("timeout", 5)
    kwargs.setdefault("backoff", 0.01)
    model = OpenAICompatibleModel(
        kwargs.pop("model_id", "test-model"), api_base=stub.base, **kwargs
    )
    model.sleeps = []
    model._sleep = model.sleeps.append  # no real waiting
    return model


def test_request_and_reply(stub):
    stub.responses.append(completion("hello", usage={"total_tokens": 7}))
    model = make_model(
        stub,
        api_key="sk-test-123456",
        temperature=0.2,
        max_tokens=50,
        extra_body={"top_p": 0.9},
        headers={"X-Trace": "1"},
    )
    assert model(MESSAGES, stop_sequences=["Observation:"]) == "hello"
    assert model.last_usage == {"total_tokens": 7}
    ((path, headers, body),) = stub.requests
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-test-123456"
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Trace"] == "1"
    assert body == {
        "model": "test-model",
        "messages": MESSAGES,
        "temperature": 0.2,
        "max_tokens": 50,
        "stop": ["Observation:"],
        "top_p": 0.9,
    }


def test_no_key_no_authorization_header(stub):
    stub.responses.append(completion("ok"))
    make_model(stub)(MESSAGES)
    assert "Authorization" not in stub.requests[0][1]


def test_retry_500_then_200(stub):
    stub.responses += [(500, {}, '{"error": {"message": "overloaded"}}'), completion("second")]
    model = make_model(stub, max_retries=2)
    assert model(MESSAGES) == "second"
    assert len(stub.requests) == 2
    assert len(model.sleeps) == 1 and 0 < model.sleeps[0] <= 0.011  # first backoff: ~0.01 s


def test_retry_429_honours_retry_after(stub):
    stub.responses += [(429, {"Retry-After": "2"}, "{}"), completion("ok")]
    model = make_model(stub, max_retries=1)
    assert model(MESSAGES) == "ok"
    assert model.sleeps == [2.0]


def test_exponential_backoff_then_http_error(stub):
    stub.responses += [(502, {}, "bad gateway")] * 3
    model = make_model(stub, max_retries=2, backoff=0.5, max_backoff=0.8)
    with pytest.raises(ModelHTTPError) as info:
        model(MESSAGES)
    assert info.value.status == 502 and info.value.attempts == 3
    assert "HTTP 502" in str(info.value) and "bad gateway" in str(info.value)
    assert len(stub.requests) == 3
    assert 0.5 <= model.sleeps[0] <= 0.55 and model.sleeps[1] == 0.8  # doubled, then capped


def test_401_fails_at_once_with_clear_message(stub):
    stub.responses.append(
        (401, {}, json.dumps({"error": {"message": "Incorrect API key provided"}}))
    )
    model = make_model(stub, api_key="wrong-key-000000", max_retries=3)
    with pytest.raises(ModelHTTPError) as info:
        model(MESSAGES)
    error = info.value
    assert error.status == 401 and error.detail == "Incorrect API key provided"
    assert len(stub.requests) == 1 and model.sleeps == []
    message = str(error)
    assert message.startswith(f"HTTP 401 Unauthorized from {stub.base}/chat/completions")
    assert "Incorrect API key provided" in message and "OPENAI_API_KEY" in message
    assert "wrong-key" not in message


def test_connection_refused_retries_then_fails():
    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAICompatibleModel(
        "m", api_base=f"http://127.0.0.1:{port}/v1", max_retries=2, backoff=0.01, timeout=2
    )
    sleeps = []
    model._sleep = sleeps.append
    with pytest.raises(ModelConnectionError, match="after 3 attempt"):
        model(MESSAGES)
    assert len(sleeps) == 2


def test_timeout(stub):
    stub.responses.append(("sleep", 1.0, completion("late")))
    model = make_model(stub, timeout=0.2, max_retries=0)
    start = time.monotonic()
    with pytest.raises(ModelConnectionError, match="timed out"):
        model(MESSAGES)
    assert time.monotonic() - start < 1.0


def test_malformed_responses(stub):
    stub.responses += [(200, {}, "not json"), (200, {}, '{"choices": []}')]
    model = make_model(stub)
    with pytest.raises(ModelResponseError, match="not JSON"):
        model(MESSAGES)
    with pytest.raises(ModelResponseError, match="no choices"):
        model(MESSAGES)


def test_content_parts_and_null_content(stub):
    parts = {
        "choices": [
            {"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}
        ]
    }
    stub.responses += [
        (200, {}, json.dumps(parts)),
        (200, {}, json.dumps({"choices": [{"message": {"content": None}}]})),
    ]
    model = make_model(stub)
    assert model(MESSAGES) == "ab"
    assert model(MESSAGES) == ""


def test_configuration_from_environment(stub, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", stub.base + "/")
    monkeypatch.setenv("OPENAI_API_KEY", "env-key-abcdef")
    monkeypatch.setenv("SMOLAGENTS_NATIVE_MODEL", "env-model")
    stub.responses.append(completion("from env"))
    model = OpenAICompatibleModel()
    assert (model.model_id, model.api_base, model.api_key) == (
        "env-model",
        stub.base,
        "env-key-abcdef",
    )
    assert model(MESSAGES) == "from env"
    assert stub.requests[0][2]["model"] == "env-model"
    assert stub.requests[0][1]["Authorization"] == "Bearer env-key-abcdef"
    assert "env-key-abcdef" not in repr(model)


def test_configuration_errors():
    with pytest.raises(ValueError, match="SMOLAGENTS_NATIVE_MODEL"):
        OpenAICompatibleModel()
    with pytest.raises(ValueError, match="http"):
        OpenAICompatibleModel("m", api_base="ftp://example")
    assert OpenAICompatibleModel("m").api_base == "https://api.openai.com/v1"


def test_agent_over_http(stub):
    stub.responses += [
        completion("Thought: compute.\n```python\nx = sum(range(5))\nprint(x)\n```"),
        (503, {}, "{}"),  # retried transparently
        completion("Thought: answer.\n```python\nfinal_answer(x * 2)\n```"),
    ]
    result = CodeAgent([], make_model(stub, max_retries=1)).run("double the sum")
    assert result.finished and result.final_answer == 20
    assert len(stub.requests) == 3
    last_messages = stub.requests[2][2]["messages"]
    assert (
        last_messages[-1]["role"] == "user"
        and "Execution logs:\n10\n" in last_messages[-1]["content"]
    )


# ---------------------------------------------------------------------------------------------
# ScriptedModel


def test_scripted_model():
    model = ScriptedModel(["one", lambda messages: f"{len(messages)} messages"])
    assert model(MESSAGES) == "one"
    assert model(MESSAGES[:1]) == "1 messages"
    assert model.calls == [MESSAGES, MESSAGES[:1]]
    with pytest.raises(ModelError, match="no reply left"):
        model(MESSAGES)
    again = ScriptedModel(["same"], repeat_last=True)
    assert [again(MESSAGES) for _ in range(3)] == ["same"] * 3
    with pytest.raises(ValueError):
        ScriptedModel([])
