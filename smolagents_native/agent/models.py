"""Model clients for :class:`smolagents_native.CodeAgent`.

A *model* is any callable that takes a list of chat messages
(``[{"role": "system" | "user" | "assistant", "content": str}, ...]``) and returns the reply
text. Two ship here:

- :class:`OpenAICompatibleModel`: a client for OpenAI-compatible ``/chat/completions``
  endpoints (OpenAI, vLLM, llama.cpp's server, Ollama, LiteLLM proxies, ...), written with the
  standard library only (:mod:`urllib`).
- :class:`ScriptedModel`: returns replies from a list, for tests and offline demos.
"""

from __future__ import annotations

import json
import os
import random
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = [
    "DEFAULT_API_BASE",
    "Message",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelResponseError",
    "OpenAICompatibleModel",
    "ScriptedModel",
]

Message = dict[str, str]

DEFAULT_API_BASE = "https://api.openai.com/v1"
ENV_API_BASE = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_MODEL = "SMOLAGENTS_NATIVE_MODEL"

# Statuses worth another try besides every 5xx: request timeout, conflict (a lock timeout
# for OpenAI), too early, rate limiting.
RETRY_STATUSES = frozenset({408, 409, 425, 429})


def _retryable(status: int) -> bool:
    return status >= 500 or status in RETRY_STATUSES


class ModelError(RuntimeError):
    """A model could not produce a reply."""


class ModelHTTPError(ModelError):
    """The endpoint answered with an HTTP error status.

    Attributes: ``status`` (int), ``url``, ``body`` (the response text, possibly cut) and
    ``detail`` (the error message found in an OpenAI-style JSON body, else None).
    """

    def __init__(self, status: int, reason: str, url: str, body: str, attempts: int = 1):
        self.status = status
        self.reason = reason
        self.url = url
        self.body = body
        self.attempts = attempts
        self.detail = _error_detail(body)
        message = f"HTTP {status} {reason} from {url}"
        if self.detail:
            message += f": {self.detail}"
        elif body:
            message += f": {body[:500]}"
        if status in (401, 403):
            message += f" (check the API key: pass api_key=... or set {ENV_API_KEY})"
        elif status == 404:
            message += " (check the base URL and the model name)"
        if attempts > 1:
            message += f" [after {attempts} attempts]"
        super().__init__(message)


class ModelConnectionError(ModelError):
    """The endpoint could not be reached, or did not answer in time, after all retries."""


class ModelResponseError(ModelError):
    """The endpoint answered 200 with a body that is not a chat completion."""


def _error_detail(body: str) -> str | None:
    """The ``error.message`` (or ``error`` / ``detail`` / ``message``) of a JSON error body."""
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        if isinstance(message, str) and message:
            return message
    for key in ("error", "detail", "message"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _redact(key: str | None) -> str:
    if not key:
        return "None"
    return f"'{key[:3]}...'" if len(key) > 8 else "'...'"


class OpenAICompatibleModel:
    """Client for an OpenAI-compatible chat-completions endpoint.

    Each call sends ``POST {api_base}/chat/completions``.

    Args:
        model_id: the model name sent as ``model``; default: ``$SMOLAGENTS_NATIVE_MODEL``.
        api_base: the base URL, up to and including the version (``https://host/v1``); default:
            ``$OPENAI_BASE_URL``, else ``https://api.openai.com/v1``.
        api_key: sent as ``Authorization: Bearer ...``; default: ``$OPENAI_API_KEY``. Without a
            key no ``Authorization`` header is sent (local servers rarely need one).
        timeout: seconds to wait for each HTTP attempt.
        max_retries: further attempts after a 5xx, 408, 409, 425 or 429 status, a connection
            error or a timeout (0: no retry). Other statuses (400, 401, 403, 404, ...) fail at once.
        backoff: first delay between attempts, in seconds; doubled at each retry (with up to
            10% random jitter), capped by `max_backoff`. A ``Retry-After`` header in seconds is
            honoured within that cap.
        temperature, max_tokens, stop: sent when not None.
        extra_body: more JSON fields merged into each request (e.g. ``{"top_p": 0.9}``).
        headers: more HTTP headers.

    Calling the model with a list of messages returns the text of the first choice. Errors:
    :class:`ModelHTTPError`, :class:`ModelConnectionError`, :class:`ModelResponseError` (all
    :class:`ModelError`). ``last_usage`` holds the ``usage`` object of the last response.
    """

    def __init__(
        self,
        model_id: str | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ):
        model_id = model_id or os.environ.get(ENV_MODEL)
        if not model_id:
            raise ValueError(f"No model given: pass model_id=... (or --model) or set {ENV_MODEL}")
        self.model_id = model_id
        self.api_base = (api_base or os.environ.get(ENV_API_BASE) or DEFAULT_API_BASE).rstrip("/")
        if not self.api_base.startswith(("http://", "https://")):
            raise ValueError(f"api_base must be an http:// or https:// URL, got {self.api_base!r}")
        self.api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stop = list(stop) if stop else None
        self.extra_body = dict(extra_body or {})
        self.headers = dict(headers or {})
        self.last_usage: dict[str, Any] | None = None
        self.last_response_model: str | None = None  # the "model" of the last response
        self._sleep: Callable[[float], None] = time.sleep  # replaceable in tests

    @property
    def url(self) -> str:
        return f"{self.api_base}/chat/completions"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_id={self.model_id!r}, api_base={self.api_base!r}, "
            f"api_key={_redact(self.api_key)})"
        )

    def _payload(self, messages: Sequence[Message], stop: Sequence[str] | None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        }
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        stop = list(stop) if stop else self.stop
        if stop:
            payload["stop"] = stop
        payload.update(self.extra_body)
        return payload

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        delay = min(self.backoff * (2**attempt), self.max_backoff)
        delay += delay * 0.1 * random.random()
        if retry_after:
            try:
                delay = max(delay, float(retry_after))
            except ValueError:  # an HTTP date: keep our own delay
                pass
        return max(0.0, min(delay, self.max_backoff))

    def __call__(
        self, messages: Sequence[Message], stop_sequences: Sequence[str] | None = None
    ) -> str:
        body = json.dumps(self._payload(messages, stop_sequences)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        headers.update(self.headers)
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as exc:
                text = _read_error_body(exc)
                if _retryable(exc.code) and attempt + 1 < attempts:
                    self._sleep(
                        self._delay(
                            attempt, exc.headers.get("Retry-After") if exc.headers else None
                        )
                    )
                    continue
                raise ModelHTTPError(
                    exc.code, exc.reason or "", self.url, text, attempt + 1
                ) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
                if attempt + 1 < attempts:
                    self._sleep(self._delay(attempt, None))
                    continue
                reason = getattr(exc, "reason", exc)
                kind = "timed out" if _is_timeout(exc) else "failed"
                raise ModelConnectionError(
                    f"Request to {self.url} {kind} after {attempts} attempt(s): {reason}"
                ) from exc
            return self._parse(raw)
        raise AssertionError("unreachable")  # pragma: no cover

    def _parse(self, raw: bytes) -> str:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise ModelResponseError(
                f"Response from {self.url} is not JSON: {raw[:200]!r}"
            ) from None
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            detail = _error_detail(json.dumps(data)) if isinstance(data, dict) else None
            raise ModelResponseError(
                f"Response from {self.url} has no choices[0].message"
                + (f": {detail}" if detail else f": {str(data)[:200]}")
            ) from None
        self.last_usage = data.get("usage") if isinstance(data, dict) else None
        model = data.get("model") if isinstance(data, dict) else None
        self.last_response_model = model if isinstance(model, str) else None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise ModelResponseError(
                f"Response from {self.url} has non-text content: {content!r:.200}"
            )
        return content


def _read_error_body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read(65536).decode("utf-8", "replace")
    except Exception:
        return ""
    finally:
        exc.close()


def _is_timeout(exc: BaseException) -> bool:
    reason = getattr(exc, "reason", None)
    return isinstance(exc, (socket.timeout, TimeoutError)) or isinstance(
        reason, (socket.timeout, TimeoutError)
    )


Reply = str | Callable[[list], str]


class ScriptedModel:
    """A model that returns prepared replies in order, for tests and offline demos.

    Each reply is a string, or a callable taking the messages and returning a string (to
    answer according to what the agent sent). ``calls`` records the messages received at each
    call (copies). Once the replies are used up, a call raises :class:`ModelError`, or repeats
    the last reply when ``repeat_last=True``.
    """

    def __init__(self, replies: Iterable[Reply], *, repeat_last: bool = False):
        self.replies: list[Reply] = list(replies)
        if not self.replies:
            raise ValueError("ScriptedModel needs at least one reply")
        self.repeat_last = repeat_last
        self.calls: list[list[Message]] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.replies)} replies, {len(self.calls)} used)"

    def __call__(self, messages: Sequence[Message], **kwargs: Any) -> str:
        index = len(self.calls)
        self.calls.append([dict(m) for m in messages])
        if index >= len(self.replies):
            if not self.repeat_last:
                raise ModelError(
                    f"ScriptedModel has no reply left: all {len(self.replies)} were used"
                )
            index = len(self.replies) - 1
        reply = self.replies[index]
        return reply(list(messages)) if callable(reply) else reply
