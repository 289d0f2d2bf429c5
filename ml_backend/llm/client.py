"""One chat client for every OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, proxies).

Why our own retry loop instead of the ``openai`` package's: the policy must be bounded,
testable with tiny delays, and must never retry a 4xx other than 429 (a bad request stays bad).
The API key is read from an environment variable whose *name* is configurable; the key itself
is never accepted as an argument, shown in a repr, logged, or put into an exception message
(errors are rebuilt from status codes and redacted bodies, without exception chaining). It lives
only in the ``openai`` client (which sends it) and in a private field used for redaction.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from scoring.errors import HumeError

log = logging.getLogger(__name__)

#: How structured output is asked for. ``json_schema``: OpenAI's strict schema (OpenAI, vLLM,
#: Ollama, llama.cpp's own llama-server); ``json_object_schema``: ``{"type": "json_object",
#: "schema": ...}``, the form llama-cpp-python's server (0.3.x) understands (it rejects
#: ``json_schema``); ``json_object``: any JSON object; ``none``: the prompt alone.
ResponseFormatMode = Literal["json_schema", "json_object_schema", "json_object", "none"]
RESPONSE_FORMAT_MODES: tuple[str, ...] = (
    "json_schema",
    "json_object_schema",
    "json_object",
    "none",
)
Message = dict[str, str]

#: Sent when the key variable is unset: local servers (llama.cpp, vLLM, Ollama) ignore the key,
#: and the ``openai`` package refuses to start without one. A real provider answers 401.
NO_KEY_PLACEHOLDER = "no-key"

__all__ = [
    "NO_KEY_PLACEHOLDER",
    "RESPONSE_FORMAT_MODES",
    "ChatBackend",
    "Completion",
    "GenerationSettings",
    "LLMError",
    "Message",
    "OpenAICompatibleClient",
    "ResponseFormatMode",
    "RetryPolicy",
    "public_endpoint",
]


class LLMError(HumeError, RuntimeError):
    """A call failed for good (after retries where retrying makes sense).

    The message never holds the API key.

    Args:
        kind: one of "rate_limit", "server", "timeout", "connection", "client", "unknown"
            ("local" for an in-process model).
        message: what failed, one line, redacted.
        status_code: the HTTP status when there was one.
        attempts: how many requests were sent, retries included.
    """

    def __init__(
        self, kind: str, message: str, *, status_code: int | None = None, attempts: int = 1
    ) -> None:
        """Keep the kind, status and attempts beside the message, for records."""
        self.kind = kind
        self.status_code = status_code
        self.attempts = attempts
        super().__init__(message)


@dataclass(frozen=True)
class GenerationSettings:
    """Everything that changes what the model answers: recorded with every answer, in its cache key.

    Attributes:
        model: the model's name at the endpoint.
        temperature: the sampling temperature (0: greedy).
        max_tokens: the most tokens a reply may have; None leaves it to the endpoint.
        seed: the sampling seed, where the endpoint takes one.
        top_p: nucleus sampling's cut, when set.
        response_format: how structured output is asked for (:data:`RESPONSE_FORMAT_MODES`).
    """

    model: str
    temperature: float = 0.0
    max_tokens: int | None = 512
    seed: int | None = 0
    top_p: float | None = None
    response_format: ResponseFormatMode = "json_schema"

    def __post_init__(self) -> None:
        """Refuse an unknown ``response_format`` mode."""
        if self.response_format not in RESPONSE_FORMAT_MODES:
            raise ValueError(
                f"response_format must be one of {RESPONSE_FORMAT_MODES}, "
                f"got {self.response_format!r}"
            )

    def as_dict(self) -> dict[str, Any]:
        """Copy the settings as a dict, as records and the cache key hold them.

        Returns:
            The fields by name.
        """
        return asdict(self)


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff (with jitter) on 429, 5xx, timeouts and connection errors.

    Attributes:
        max_retries: how many retries after the first request.
        base_delay_s: the wait before the first retry, doubled for each next one.
        max_delay_s: the longest wait, Retry-After included.
        jitter: the largest fraction added at random to a wait.
    """

    max_retries: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.1

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Give the seconds to wait before retry number ``attempt``; honours Retry-After.

        Args:
            attempt: the retry's number, from 1.
            retry_after: the server's Retry-After in seconds, when it sent one.

        Returns:
            The wait, capped at :attr:`max_delay_s` before the jitter.
        """
        wait = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        if retry_after is not None:
            wait = min(self.max_delay_s, max(wait, retry_after))
        return wait * (1 + random.uniform(0, self.jitter))


@dataclass
class Completion:
    """One model reply and what it cost.

    Attributes:
        text: the reply's text.
        usage: the token counts the endpoint reported.
        latency_s: wall time of the request that got it.
        cost: the cost, when the endpoint reports one (never guessed).
        finish_reason: why generation stopped (``"stop"``, ``"length"``).
        served_model: the model the endpoint says answered.
        attempts: how many requests it took (0 for a cached reply).
        cached: whether it came from the reply cache.
    """

    text: str
    usage: dict[str, Any] | None = None
    latency_s: float = 0.0
    cost: float | None = None
    finish_reason: str | None = None
    served_model: str | None = None
    attempts: int = 1
    cached: bool = False

    def to_cache(self) -> dict[str, Any]:
        """Copy the reply as the cache stores it (without attempts and the cached flag).

        Returns:
            The JSON-friendly fields.
        """
        return {
            "text": self.text,
            "usage": self.usage,
            "latency_s": self.latency_s,
            "cost": self.cost,
            "finish_reason": self.finish_reason,
            "served_model": self.served_model,
        }

    @classmethod
    def from_cache(cls, data: Mapping[str, Any]) -> Completion:
        """Rebuild a reply from the cache, marked cached with no request sent.

        Args:
            data: what :meth:`to_cache` stored.

        Returns:
            The reply, with ``attempts`` 0 and ``cached`` True.
        """
        return cls(
            text=data["text"],
            usage=data.get("usage"),
            latency_s=float(data.get("latency_s") or 0.0),
            cost=data.get("cost"),
            finish_reason=data.get("finish_reason"),
            served_model=data.get("served_model"),
            attempts=0,
            cached=True,
        )


@runtime_checkable
class ChatBackend(Protocol):
    """What :func:`ml_backend.llm.annotate` needs from a model: one chat completion at a time."""

    name: str
    endpoint: str
    settings: GenerationSettings

    def complete(
        self, messages: Sequence[Message], *, response_format: dict[str, Any] | None = None
    ) -> Completion:
        """Answer ``messages`` with one chat completion.

        Args:
            messages: the chat messages, in order.
            response_format: the ``response_format`` request field, or None for none.

        Returns:
            The reply.

        Raises:
            LLMError: when no answer could be had.
        """
        ...


def public_endpoint(base_url: str) -> str:
    """Give the endpoint as recorded: no user/password part, no query string (they can hold keys).

    Args:
        base_url: the endpoint's base URL as configured.

    Returns:
        Scheme, host, port and path, without a trailing slash.
    """
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _usage_dict(usage: Any) -> dict[str, Any] | None:
    if usage is None:
        return None
    data = usage.model_dump() if hasattr(usage, "model_dump") else dict(usage)
    return {k: v for k, v in data.items() if v is not None}


def _cost_of(response: Any, usage: dict[str, Any] | None) -> float | None:
    """Read the cost if the endpoint reports it; OpenAI itself does not, and we do not guess.

    OpenRouter-style endpoints put it in ``usage.cost`` or a top-level ``cost``.
    """
    for value in ((usage or {}).get("cost"), getattr(response, "cost", None)):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


class OpenAICompatibleClient:
    """Chat completions over the ``openai`` package against any compatible ``base_url``.

    The key comes from ``os.environ[api_key_env]`` (default ``OPENAI_API_KEY``) when the client
    is built. Thread-safe: one instance serves the whole worker pool.

    Args:
        model: the model's name at the endpoint.
        base_url: the endpoint's base URL.
        api_key_env: the name of the environment variable holding the key (never the key);
            unset, :data:`NO_KEY_PLACEHOLDER` is sent.
        name: the annotator's name in records; None takes ``model``.
        temperature: see :class:`GenerationSettings`.
        max_tokens: see :class:`GenerationSettings`.
        seed: see :class:`GenerationSettings`.
        top_p: see :class:`GenerationSettings`.
        response_format: see :class:`GenerationSettings`.
        timeout_s: seconds one request may take.
        retry: the retry policy; None takes :class:`RetryPolicy`'s defaults.
        http_client: an ``httpx.Client`` to route through a proxy or, in tests, an
            ``httpx.MockTransport``.
        sleep: how to wait between retries (tests pass a recorder).

    Raises:
        ValueError: when ``api_key_env`` is not a variable name, or ``response_format`` unknown.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key_env: str = "OPENAI_API_KEY",
        name: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = 512,
        seed: int | None = 0,
        top_p: float | None = None,
        response_format: ResponseFormatMode = "json_schema",
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        http_client: Any = None,
        sleep: Any = time.sleep,
    ) -> None:
        """Build the ``openai`` client with the key read now; nothing is sent yet."""
        import openai  # imported here: the package is only needed by this backend

        if not api_key_env or not isinstance(api_key_env, str):
            raise ValueError("api_key_env must name an environment variable")
        self.name = name or model
        self.endpoint = public_endpoint(base_url)
        self.api_key_env = api_key_env
        self.settings = GenerationSettings(
            model=model,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            top_p=top_p,
            response_format=response_format,
        )
        self.retry = retry or RetryPolicy()
        self.timeout_s = timeout_s
        self._sleep = sleep
        key = os.environ.get(api_key_env)
        if not key:
            log.info("environment variable %s is not set; sending no API key", api_key_env)
        # Kept only for redaction (a server might echo it in an error body); never shown.
        self._secret = key or None
        self._client = openai.OpenAI(
            api_key=key or NO_KEY_PLACEHOLDER,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=http_client,
        )
        self._openai = openai
        self._lock = threading.Lock()
        self.http_calls = 0  # requests sent, retries included (tests check cache hits with it)

    def __repr__(self) -> str:
        """Name the client by its endpoint, model and key variable (never the key)."""
        return (
            f"OpenAICompatibleClient(name={self.name!r}, endpoint={self.endpoint!r}, "
            f"model={self.settings.model!r}, api_key_env={self.api_key_env!r})"
        )

    def _redact(self, text: str) -> str:
        if self._secret and self._secret in text:
            text = text.replace(self._secret, "***")
        return text

    def _request_kwargs(
        self, messages: Sequence[Message], response_format: dict[str, Any] | None
    ) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": [dict(m) for m in messages],
            "temperature": s.temperature,
        }
        if s.max_tokens is not None:
            kwargs["max_tokens"] = s.max_tokens
        if s.seed is not None:
            kwargs["seed"] = s.seed
        if s.top_p is not None:
            kwargs["top_p"] = s.top_p
        if response_format is not None and s.response_format != "none":
            kwargs["response_format"] = response_format
        return kwargs

    def _classify(self, exc: Exception) -> tuple[str, int | None, float | None, bool]:
        """(kind, status, retry_after, retryable) of an ``openai`` exception."""
        o = self._openai
        if isinstance(exc, o.APITimeoutError):
            return "timeout", None, None, True
        if isinstance(exc, o.APIConnectionError):
            return "connection", None, None, True
        if isinstance(exc, o.APIStatusError):
            status = exc.status_code
            retry_after = None
            header = exc.response.headers.get("retry-after") if exc.response else None
            if header:
                try:
                    retry_after = float(header)
                except ValueError:
                    retry_after = None
            if status == 429:
                return "rate_limit", status, retry_after, True
            if status >= 500:
                return "server", status, retry_after, True
            return "client", status, None, False
        return "unknown", None, None, False

    def _error_message(self, exc: Exception, kind: str, status: int | None) -> str:
        detail = ""
        if isinstance(exc, self._openai.APIStatusError):
            body = exc.body
            if isinstance(body, Mapping):
                body = body.get("message") or body.get("error") or body
            detail = str(body)[:300] if body is not None else ""
        where = f"{self.endpoint} ({self.settings.model})"
        head = f"HTTP {status}" if status is not None else kind
        if "response_format" in detail:
            detail += (
                f" [response_format={self.settings.response_format!r} was refused: try "
                "'json_object_schema' (llama-cpp-python), 'json_object' or 'none']"
            )
        return self._redact(f"{head} from {where}" + (f": {detail}" if detail else ""))

    def complete(
        self, messages: Sequence[Message], *, response_format: dict[str, Any] | None = None
    ) -> Completion:
        """Get one chat completion, retried with backoff on transient failures.

        A 4xx other than 429 is never retried: a bad request stays bad.

        Args:
            messages: the chat messages, in order.
            response_format: the ``response_format`` request field; not sent when the settings'
                mode is ``"none"``.

        Returns:
            The reply, with its usage, latency, cost (when reported) and number of attempts.

        Raises:
            LLMError: when the request fails for good or the reply has no choices.
        """
        kwargs = self._request_kwargs(messages, response_format)
        attempt = 0
        while True:
            attempt += 1
            with self._lock:
                self.http_calls += 1
            started = time.perf_counter()
            failure: tuple[str, int | None, float | None, bool, str] | None = None
            try:
                response = self._client.chat.completions.create(**kwargs)
            except self._openai.OpenAIError as exc:
                kind, status, retry_after, retryable = self._classify(exc)
                failure = (
                    kind,
                    status,
                    retry_after,
                    retryable,
                    self._error_message(exc, kind, status),
                )
            # Handled outside the except block: the LLMError must not carry the openai exception
            # as its __context__ (its request object holds the Authorization header).
            if failure is not None:
                kind, status, retry_after, retryable, message = failure
                if retryable and attempt <= self.retry.max_retries:
                    wait = self.retry.delay(attempt, retry_after)
                    log.warning(
                        "%s; retry %d/%d in %.2fs", message, attempt, self.retry.max_retries, wait
                    )
                    self._sleep(wait)
                    continue
                raise LLMError(kind, message, status_code=status, attempts=attempt)
            latency = time.perf_counter() - started
            choice = response.choices[0] if response.choices else None
            if choice is None:
                raise LLMError(
                    "unknown", f"no choices in the reply from {self.endpoint}", attempts=attempt
                )
            usage = _usage_dict(getattr(response, "usage", None))
            return Completion(
                text=choice.message.content or "",
                usage=usage,
                latency_s=latency,
                cost=_cost_of(response, usage),
                finish_reason=choice.finish_reason,
                served_model=getattr(response, "model", None),
                attempts=attempt,
            )
