"""Embedding models behind any OpenAI-compatible ``/v1/embeddings`` server, mteb's way.

The server may be vLLM, TEI, Infinity or a hosted API; mteb's prompts and instructions are
applied before the text is sent.

Why this shape: a remote model is put *beneath* mteb's own wrapper for the model
(:func:`ml_backend.mteb_models.load_wrapper`), in the place of the local weights. The wrapper
builds the task's instruction and picks the query/passage prompt exactly as in-process; the
remote model receives the final strings (``prompt + text``, as sentence-transformers would form
them) and sends those. The embedding cache sits around the wrapper as for in-process models, so
a rerun after a failure resumes where the last committed chunk ended.

Requests: texts are grouped by an *estimated* token count (a character proxy: UTF-8 bytes / 4,
rounded up, plus 2 for special tokens; the server's tokenizer is not known here) up to
``max_batch_tokens`` and ``max_batch_inputs`` per request, sent ``concurrency`` at a time. 429,
5xx, timeouts and refused connections are retried with exponential backoff (embedding requests
are idempotent, so a retry is always safe); other 4xx answers and vectors of the wrong size are
not retried. Either way the failure is one line naming the endpoint and what went wrong. Every
request is logged as a JSON line (inputs, estimated and reported tokens, cost, attempts).

The API key comes from the environment variable ``api_key_env`` names; it is sent as a bearer
token and never logged or shown (the endpoint is recorded without credentials or query string).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ml_backend.encoder_base import ModelLoadError, _one_line
from ml_backend.llm.client import public_endpoint
from ml_backend.mteb_models import (
    MtebModelEncoder,
    TextModelBeneath,
    load_plain_wrapper,
    load_wrapper,
    model_meta,
)
from scoring.errors import HumeError

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})

__all__ = [
    "RETRY_STATUS",
    "EmbeddingServerError",
    "RemoteEmbeddingModel",
    "ServerSettings",
    "Usage",
    "batches_by_tokens",
    "estimate_tokens",
    "load_openai_encoder",
]


class EmbeddingServerError(HumeError, RuntimeError):
    """The embedding server failed for good; ``str(err)`` is one line, with no secret in it."""


def estimate_tokens(text: str) -> int:
    """Estimate a text's tokens by a character proxy (see the module docstring).

    Args:
        text: the final string sent.

    Returns:
        UTF-8 bytes / 4, rounded up, plus 2 for special tokens.
    """
    return math.ceil(len(text.encode("utf-8")) / 4) + 2


@dataclass
class ServerSettings:
    """Where and how to reach the server.

    Attributes:
        base_url: the server's base URL (``http://`` or ``https://``), ``/embeddings`` added.
        model: the model's name at the server.
        api_key_env: the name of the environment variable holding the key (never the key).
        max_batch_tokens: estimated tokens per request, at most (a longer text goes alone).
        max_batch_inputs: texts per request, at most.
        concurrency: requests in flight at once.
        timeout_s: seconds one request may take.
        retries: retries of a request after the first attempt.
        backoff_s: the wait before the first retry, doubled for each next one (unless the
            server sends Retry-After).
        price_per_mtok: USD per million tokens, for the log's cost; None logs no cost.
        log_path: where each request is logged as a JSON line; None logs nothing.
        dimensions: the vector size expected (checked); None takes the first answer's.
    """

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    max_batch_tokens: int = 8192
    max_batch_inputs: int = 128
    concurrency: int = 4
    timeout_s: float = 60.0
    retries: int = 4
    backoff_s: float = 0.5
    price_per_mtok: float | None = None
    log_path: Path | None = None
    dimensions: int | None = None

    def __post_init__(self) -> None:
        """Refuse a base URL that is not http(s) and budgets below 1, as a load error."""
        if not self.base_url.startswith(("http://", "https://")):
            raise ModelLoadError(self.model, f"--emb-base-url {self.base_url!r} is not an URL")
        for name in ("max_batch_tokens", "max_batch_inputs", "concurrency"):
            if getattr(self, name) < 1:
                raise ModelLoadError(self.model, f"{name} must be at least 1")

    @property
    def endpoint(self) -> str:
        """The endpoint as recorded: without credentials or query string.

        Returns:
            See :func:`ml_backend.llm.client.public_endpoint`.
        """
        return public_endpoint(self.base_url)


@dataclass
class Usage:
    """What the server was asked for so far (for the log's summary and the benchmark).

    Attributes:
        requests: requests answered.
        retries: retries made.
        inputs: texts embedded.
        tokens: tokens the server reported.
        estimated_tokens: tokens estimated by :func:`estimate_tokens`.
        cost_usd: the cost at ``price_per_mtok`` (reported tokens, else estimated).
        lock: guards the counts across request threads.
    """

    requests: int = 0
    retries: int = 0
    inputs: int = 0
    tokens: int = 0
    estimated_tokens: int = 0
    cost_usd: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


def batches_by_tokens(
    texts: Sequence[str], max_tokens: int, max_inputs: int
) -> list[tuple[int, int]]:
    """Split ``texts`` into runs in order, each within both budgets.

    A text over the token budget goes alone: the server truncates or refuses it, as it would in
    any batch.

    Args:
        texts: the texts to send.
        max_tokens: estimated tokens per run, at most.
        max_inputs: texts per run, at most.

    Returns:
        ``(start, end)`` of each run.
    """
    runs, start, tokens = [], 0, 0
    for i, text in enumerate(texts):
        cost = estimate_tokens(text)
        if i > start and (tokens + cost > max_tokens or i - start >= max_inputs):
            runs.append((start, i))
            start, tokens = i, 0
        tokens += cost
    if start < len(texts):
        runs.append((start, len(texts)))
    return runs


class RemoteEmbeddingModel(TextModelBeneath):
    """A model on an OpenAI-compatible server, in the place of local weights beneath mteb's wrapper.

    :meth:`embed` sends the final strings.

    Args:
        settings: where and how to reach the server.
        *args: the wrapper's loader arguments (see :class:`TextModelBeneath`).
        **kwargs: likewise.
    """

    def __init__(self, settings: ServerSettings, *args: Any, **kwargs: Any) -> None:
        """Read the key from the environment now; nothing is sent yet."""
        super().__init__(*args, **kwargs)
        self.settings = settings
        self.usage = Usage()
        self.dimension: int | None = settings.dimensions
        self._log_lock = threading.Lock()
        self._key = os.environ.get(settings.api_key_env) or None

    def get_embedding_dimension(self) -> int | None:
        """Give the vector size, as sentence-transformers models do.

        Returns:
            The expected or first seen size; None before any answer when none was given.
        """
        return self.dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        """Send the final strings in token-budgeted requests, ``concurrency`` at a time.

        Args:
            texts: the strings, prompts already applied.

        Returns:
            One float32 row per string, in order.

        Raises:
            EmbeddingServerError: when a request fails for good or the answer is malformed.
        """
        s = self.settings
        runs = batches_by_tokens(texts, s.max_batch_tokens, s.max_batch_inputs)
        with ThreadPoolExecutor(max_workers=min(s.concurrency, max(1, len(runs)))) as pool:
            parts = list(pool.map(lambda run: self._request(texts[run[0] : run[1]]), runs))
        return np.concatenate(parts) if parts else np.zeros((0, self.dimension or 0), np.float32)

    def _fail(self, what: str) -> EmbeddingServerError:
        return EmbeddingServerError(
            f"embedding server {self.settings.endpoint} (model {self.settings.model!r}): {what}"
        )

    def _request(self, texts: list[str]) -> np.ndarray:
        import httpx

        s = self.settings
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        body = {"model": s.model, "input": texts, "encoding_format": "float"}
        url = s.base_url.rstrip("/") + "/embeddings"
        started = time.perf_counter()
        for attempt in range(1, s.retries + 2):
            last = attempt == s.retries + 1
            try:
                resp = httpx.post(url, json=body, headers=headers, timeout=s.timeout_s)
            except httpx.TimeoutException:
                problem, wait = f"no answer within {s.timeout_s:g} s", None
            except httpx.TransportError as exc:
                problem, wait = f"unreachable ({type(exc).__name__})", None
            else:
                if resp.status_code == 200:
                    return self._accept(texts, resp, attempt, time.perf_counter() - started)
                problem = f"HTTP {resp.status_code}"
                if resp.status_code not in RETRY_STATUS:
                    raise self._fail(f"{problem} ({_short(resp.text)})")
                wait = _retry_after(resp)
            if last:
                raise self._fail(f"{problem} after {attempt} attempt(s)")
            with self.usage.lock:
                self.usage.retries += 1
            time.sleep(wait if wait is not None else s.backoff_s * 2 ** (attempt - 1))
        raise AssertionError("unreachable")  # pragma: no cover

    def _accept(self, texts: list[str], resp: Any, attempts: int, seconds: float) -> np.ndarray:
        try:
            payload = resp.json()
            rows = sorted(payload["data"], key=lambda d: d["index"])
            vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except Exception as exc:
            raise self._fail(f"the answer is not an embeddings list ({_one_line(exc)})") from None
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise self._fail(f"{len(texts)} text(s) sent, {vectors.shape[0]} vector(s) returned")
        with self.usage.lock:
            if self.dimension is None:
                self.dimension = int(vectors.shape[1])
            if vectors.shape[1] != self.dimension:
                raise self._fail(
                    f"vectors of size {vectors.shape[1]} returned, {self.dimension} expected"
                )
        usage = payload.get("usage") or {}
        estimated = sum(estimate_tokens(t) for t in texts)
        tokens = int(usage.get("prompt_tokens") or usage.get("total_tokens") or 0)
        price = self.settings.price_per_mtok
        cost = (tokens or estimated) * price / 1e6 if price is not None else None
        with self.usage.lock:
            self.usage.requests += 1
            self.usage.inputs += len(texts)
            self.usage.tokens += tokens
            self.usage.estimated_tokens += estimated
            self.usage.cost_usd += cost or 0.0
        self._log(
            {
                "endpoint": self.settings.endpoint,
                "model": self.settings.model,
                "inputs": len(texts),
                "estimated_tokens": estimated,
                "tokens": tokens or None,
                "cost_usd": cost,
                "attempts": attempts,
                "seconds": round(seconds, 4),
            }
        )
        return vectors

    def _log(self, record: dict[str, Any]) -> None:
        path = self.settings.log_path
        if path is None:
            return
        line = json.dumps({"time": time.time(), **record}) + "\n"
        with self._log_lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(line)


def _retry_after(resp: Any) -> float | None:
    try:
        return min(60.0, float(resp.headers.get("retry-after")))
    except (TypeError, ValueError):
        return None


def _short(text: str) -> str:
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else "no body"
    return first[:120]


def load_openai_encoder(
    settings: ServerSettings, *, batch_size: int | None = None
) -> MtebModelEncoder:
    """Put the served model beneath mteb's wrapper for it (its prompts and instructions).

    When mteb does not know the name, beneath a plain sentence-transformers wrapper (text as is).

    Args:
        settings: where and how to reach the server.
        batch_size: texts per wrapper call, hence per cache call; None takes enough for
            ``concurrency`` full requests, so that requests really are in flight together.

    Returns:
        The encoder, its ``remote`` attribute the model on the server (for its usage).

    Raises:
        ModelLoadError: when mteb's loader fails.
    """
    if batch_size is None:
        batch_size = settings.max_batch_inputs * settings.concurrency
    remote: list[RemoteEmbeddingModel] = []

    def beneath(*args: Any, **kwargs: Any) -> RemoteEmbeddingModel:
        remote.append(RemoteEmbeddingModel(settings, *args, **kwargs))
        return remote[-1]

    meta = model_meta(settings.model)
    if meta is not None:
        wrapper = load_wrapper(meta, beneath=beneath)
    else:
        wrapper = load_plain_wrapper(settings.model, beneath=beneath)
    encoder = MtebModelEncoder(
        wrapper,
        name=settings.model,
        revision=f"openai@{settings.endpoint}",
        batch_size=batch_size,
        placement=(
            f"server {settings.endpoint} (<= {settings.max_batch_tokens} estimated tokens and "
            f"{settings.max_batch_inputs} texts a request, {settings.concurrency} at a time)"
        ),
        meta=meta,
        version_prefix="emb:openai:",
    )
    encoder.remote = remote[0] if remote else None  # type: ignore[attr-defined]
    return encoder
