"""Answer study instances with an LLM, the way a human annotator would; store-agnostic.

:func:`annotate` turns instances (``{"hume_id", "content"}`` dicts or the study store's
``InstanceRow``) into one record per instance. Each instance costs one call, plus one reminder
call when the first reply cannot be used; every call goes through the cache first, so a rerun
with the same model, endpoint, prompt and settings makes no request at all.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from .cache import ReplyCache, cache_key
from .client import ChatBackend, Completion, LLMError, Message
from .parsing import ParseOutcome, parse_reply
from .prompts import PROMPT_VERSION, Prompt, TaskSpec, reminder_messages
from .task import LLMTask, build_prompt

log = logging.getLogger(__name__)

RecordStatus = Literal["ok", "parse_error", "invalid", "error"]
RECORD_STATUSES: tuple[str, ...] = ("ok", "parse_error", "invalid", "error")
DEFAULT_CONCURRENCY = 4

__all__ = [
    "DEFAULT_CONCURRENCY",
    "RECORD_STATUSES",
    "RecordStatus",
    "annotate",
    "model_version",
    "summarize",
]


def model_version(client: ChatBackend) -> str:
    """Name the ``model_version`` under which this backend's answers are stored.

    Args:
        client: the LLM backend.

    Returns:
        ``llm:<name>``.
    """
    return f"llm:{client.name}"


def _instance_fields(instance: Any) -> tuple[str, Mapping[str, Any]]:
    if isinstance(instance, Mapping):
        hume_id, content = instance.get("hume_id"), instance.get("content")
    else:
        hume_id, content = getattr(instance, "hume_id", None), getattr(instance, "content", None)
    if not isinstance(hume_id, str) or not hume_id:
        raise ValueError(f"instance without a string hume_id: {instance!r}"[:200])
    if not isinstance(content, Mapping):
        raise ValueError(f"instance {hume_id!r} has no content mapping")
    return hume_id, content


def _sum_usage(usages: Sequence[dict[str, Any] | None]) -> dict[str, int] | None:
    present = [u for u in usages if u]
    if not present:
        return None
    out: dict[str, int] = {}
    for usage in present:
        for key, value in usage.items():
            if isinstance(value, int) and not isinstance(value, bool):
                out[key] = out.get(key, 0) + value
    return out


class _Progress:
    """tqdm when installed, else a line on stderr about every tenth of the way."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.total, self.desc, self.done = total, desc, 0
        self._lock = threading.Lock()
        self._bar = None
        self._enabled = enabled and total > 0
        self._step = max(1, total // 10)
        self._t0 = time.perf_counter()
        if self._enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return
            self._bar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False)

    def update(self) -> None:
        with self._lock:
            self.done += 1
            if not self._enabled:
                return
            if self._bar is not None:
                self._bar.update(1)
            elif self.done % self._step == 0 or self.done == self.total:
                elapsed = time.perf_counter() - self._t0
                print(f"{self.desc}: {self.done}/{self.total} ({elapsed:.1f}s)", file=sys.stderr)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _Caller:
    """One backend + optional cache: a call either hits the cache or goes out and is stored."""

    def __init__(self, client: ChatBackend, cache: ReplyCache | None) -> None:
        self.client = client
        self.cache = cache
        self.settings = client.settings.as_dict()

    def __call__(self, messages: Sequence[Message], prompt: Prompt, name: str) -> Completion:
        rf = prompt.response_format(self.client.settings.response_format, name)
        key = None
        if self.cache is not None:
            key = cache_key(
                endpoint=self.client.endpoint,
                settings=self.settings,
                messages=messages,
                response_format=rf,
            )
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        completion = self.client.complete(messages, response_format=rf)
        if self.cache is not None and key is not None:
            self.cache.put(
                key, completion, model=self.client.settings.model, endpoint=self.client.endpoint
            )
        return completion


def _answer_one(
    caller: _Caller, task: LLMTask, spec: TaskSpec, hume_id: str, prompt: Prompt, reminder: bool
) -> dict[str, Any]:
    client = caller.client
    name = f"hume_{spec.task_type}"
    completions: list[Completion] = []
    outcome: ParseOutcome | None = None
    error: str | None = None
    status: RecordStatus
    try:
        first = caller(prompt.messages, prompt, name)
        completions.append(first)
        outcome = parse_reply(task, spec, prompt, first.text)
        if outcome.status != "ok" and reminder:
            log.info("%s: %s (%s); asking again", hume_id, outcome.status, outcome.error)
            again = reminder_messages(prompt, first.text, outcome.error or outcome.status)
            second = caller(again, prompt, name)
            completions.append(second)
            outcome = parse_reply(task, spec, prompt, second.text)
        status = outcome.status
        error = outcome.error
    except LLMError as exc:
        status, error = "error", str(exc)
    costs = [c.cost for c in completions if c.cost is not None]
    return {
        "hume_id": hume_id,
        "model_version": model_version(client),
        "task_type": spec.task_type,
        "status": status,
        "answer": outcome.answer if outcome is not None and status == "ok" else None,
        "raw": completions[-1].text if completions else None,
        "raw_replies": [c.text for c in completions],
        "error": error,
        "usage": _sum_usage([c.usage for c in completions]),
        "latency_s": round(sum(c.latency_s for c in completions), 6),
        "cost": sum(costs) if completions and len(costs) == len(completions) else None,
        "calls": len(completions),
        "http_attempts": sum(c.attempts for c in completions),
        "cached": bool(completions) and all(c.cached for c in completions),
        "finish_reason": completions[-1].finish_reason if completions else None,
        "served_model": completions[-1].served_model if completions else None,
        "settings": {**caller.settings, "prompt_version": PROMPT_VERSION, "reminder": reminder},
        "endpoint": client.endpoint,
    }


def annotate(
    instances: Iterable[Any],
    task: LLMTask,
    *,
    client: ChatBackend,
    cache: ReplyCache | str | Path | None = None,
    language: str | None = None,
    instructions: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    reminder: bool = True,
    progress: bool = True,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    **params: Any,
) -> list[dict[str, Any]]:
    """Annotate instances with an LLM: one record per instance, in input order.

    Every prompt is built before any call is made, so bad content fails early; failed calls
    become ``status="error"`` records.

    Args:
        instances: ``{"hume_id", "content"}`` dicts or the study store's ``InstanceRow``.
        task: the task type object (from the registry: an :class:`LLMTask`, never a name).
        client: the LLM backend.
        cache: a :class:`ReplyCache` or a directory for one (closed at the end); None calls
            the backend every time.
        language: the subset's language code.
        instructions: the study's own instructions when they differ from the defaults.
        concurrency: how many instances are answered at once (worker threads).
        reminder: whether an unusable first reply gets one retry saying what was wrong.
        progress: whether to show progress on stderr.
        on_record: called (from the worker threads) with each record as soon as it is ready,
            e.g. to store results incrementally.
        **params: the type's own subset parameters (:attr:`LLMTask.llm_parameters`, e.g.
            ``labels`` for classification, ``n_groups`` for clustering).

    Returns:
        One record per instance: its status, answer, raw replies, usage, latency, cost and the
        settings that made it.

    Raises:
        TypeError: when ``task`` is a name rather than a task type object.
        ValueError: for a ``concurrency`` below 1, a parameter the type does not read, or bad
            instance content (before any call is made).
    """
    if isinstance(task, str):
        raise TypeError(f"annotate() takes a task type object, not its name {task!r}")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    spec = task.llm_spec(language=language, instructions=instructions, **params)
    jobs: list[tuple[str, Prompt]] = []
    for instance in instances:
        hume_id, content = _instance_fields(instance)
        jobs.append((hume_id, build_prompt(task, spec, content)))
    own_cache = cache is not None and not isinstance(cache, ReplyCache)
    reply_cache = cache if cache is None or isinstance(cache, ReplyCache) else ReplyCache(cache)
    caller = _Caller(client, reply_cache)
    bar = _Progress(len(jobs), f"{model_version(client)} {spec.task_type}", progress)
    records: list[dict[str, Any] | None] = [None] * len(jobs)

    def work(index: int) -> None:
        hume_id, prompt = jobs[index]
        record = _answer_one(caller, task, spec, hume_id, prompt, reminder)
        records[index] = record
        if on_record is not None:
            on_record(record)
        bar.update()

    try:
        if concurrency == 1 or len(jobs) <= 1:
            for i in range(len(jobs)):
                work(i)
        else:
            with ThreadPoolExecutor(max_workers=min(concurrency, len(jobs))) as pool:
                for future in [pool.submit(work, i) for i in range(len(jobs))]:
                    future.result()
    finally:
        bar.close()
        if own_cache and reply_cache is not None:
            reply_cache.close()
    return [r for r in records if r is not None]


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Summarise records for reports: counts per status, rates and total latency and tokens.

    Args:
        records: the records :func:`annotate` returned.

    Returns:
        ``n``, ``counts`` per status, ``ok_rate``, ``parse_rate`` (replies that could be read),
        ``latency_s`` and ``total_tokens``.
    """
    counts = {s: 0 for s in RECORD_STATUSES}
    for r in records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    n = len(records)
    tokens = sum((r.get("usage") or {}).get("total_tokens", 0) for r in records)
    return {
        "n": n,
        "counts": counts,
        "ok_rate": counts["ok"] / n if n else None,
        "parse_rate": (n - counts["parse_error"] - counts["error"]) / n if n else None,
        "latency_s": sum(r.get("latency_s") or 0.0 for r in records),
        "total_tokens": tokens,
    }
