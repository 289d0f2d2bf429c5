"""LLM annotators in a study: `hume-sync predict STUDY_DIR --llm MODEL --llm-base-url URL`.

Every instance of every subset is given to the LLM with the instructions, label set and scale the
human annotators had (:mod:`ml_backend.llm`). Answers are stored as sealed predictions under
``llm:<name>``; an answer that failed (``parse_error``, ``invalid``, ``error``) is stored with no
answer, so it counts as a failure in the report and is never replaced by a default label. The
full record of every call (raw text, usage, latency, cost, settings, endpoint) is appended to
``STUDY_DIR/llm/<name>.jsonl``; replies are cached in ``STUDY_DIR/cache/llm`` so that a rerun
costs nothing. Once every subset is stored, the LLM's sealing commitment
(:mod:`hume_sync.sealing`) is computed over its answers and its prompt (:func:`prompt_record`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hume_sync import sealing, task_types
from hume_sync.file_modes import open_private_append, private_dir, private_file
from hume_sync.progress import say
from hume_sync.rules.names import llm_file_name
from hume_sync.store import PredictionRecord, Store
from scoring.safe_paths import confined

if TYPE_CHECKING:
    from ml_backend.llm import OpenAICompatibleClient
    from ml_backend.llm.client import ResponseFormatMode


@dataclass
class LLMSummary:
    model_version: str
    statuses: Counter = field(default_factory=Counter)
    stored: int = 0
    log: Path | None = None
    commitment: sealing.Commitment | None = None


#: Where the LLM's requests go when neither ``--llm-base-url`` nor ``$OPENAI_BASE_URL`` says.
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def llm_client(
    model: str,
    *,
    base_url: str | None,
    api_key_env: str,
    name: str | None,
    temperature: float,
    max_tokens: int,
    response_format: ResponseFormatMode,
) -> OpenAICompatibleClient:
    """The OpenAI-compatible client the ``--llm-*`` options describe (the key is read from the
    environment variable they name, never from the command line)."""
    import os

    from ml_backend.llm import OpenAICompatibleClient

    return OpenAICompatibleClient(
        model,
        base_url=base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
        api_key_env=api_key_env,
        name=name,
        temperature=temperature,
        max_tokens=max_tokens,
        response_format=response_format,
    )


def _subset_spec(sub: Any) -> tuple[Any, dict[str, Any]]:
    """The subset's type and what its LLM prompts are built from: what the humans were shown."""
    task_type = task_types.get(sub.task_type)
    return task_type, {
        **task_type.llm_params(sub.config),  # the type's own: what its interface shows
        "language": sub.language,
        "instructions": sub.config.get("instructions"),
    }


def prompt_record(store: Store, client: Any) -> dict[str, Any]:
    """What an LLM's commitment holds as its prompt: the prompt version, the generation settings
    and the SHA-256 of every message it was sent (canonical JSON of ``[hume_id, messages,
    schema]`` per instance, in hume_id order), built as :func:`ml_backend.llm.annotate` builds
    them; the endpoint and key are left out (where it ran, not what it was asked)."""
    from ml_backend.llm import PROMPT_VERSION
    from ml_backend.llm.task import build_prompt

    prompts: list[list[Any]] = []  # [hume_id, messages, schema]
    for sub in store.subsets():
        task_type, kwargs = _subset_spec(sub)
        spec = task_type.llm_spec(**kwargs)
        for inst in store.instances(sub.key):
            prompt = build_prompt(task_type, spec, inst.content)
            prompts.append([inst.hume_id, list(prompt.messages), prompt.schema])
    prompts.sort(key=lambda p: p[0])
    text = sealing.canonical_json(prompts).encode("utf-8")
    return {
        "prompt_version": PROMPT_VERSION,
        "settings": client.settings.as_dict(),
        "messages_sha256": hashlib.sha256(text).hexdigest(),
    }


def predict_llm(
    study_dir: str | Path,
    store: Store,
    client: Any,
    *,
    concurrency: int = 4,
    progress: bool = True,
) -> LLMSummary:
    """Annotate the whole study with one LLM backend (see module docstring)."""
    from ml_backend.llm import ReplyCache, annotate, model_version
    from ml_backend.llm.cache import CACHE_FILE as REPLY_CACHE_FILE

    study = Path(study_dir)
    mv = model_version(client)
    log = confined(private_dir(study / "llm"), f"{llm_file_name(mv)}.jsonl")
    cache_dir = private_dir(study / "cache" / "llm")
    private_file(cache_dir / REPLY_CACHE_FILE, create=True)  # answers: owner-only from the start
    cache = ReplyCache(cache_dir)
    summary = LLMSummary(model_version=mv, log=log)
    for sub in store.subsets():
        instances = store.instances(sub.key)
        task_type, kwargs = _subset_spec(sub)
        records = annotate(
            instances,
            task_type,
            client=client,
            cache=cache,
            **kwargs,
            concurrency=concurrency,
            progress=progress,
        )
        with open_private_append(log) as fh:
            for rec in records:
                fh.write(
                    json.dumps({"subset": sub.key, **rec}, ensure_ascii=False, default=str) + "\n"
                )
        summary.statuses.update(r["status"] for r in records)
        counts = store.add_predictions(
            [
                PredictionRecord(
                    r["hume_id"], mv, r["answer"] if r["status"] == "ok" else None, None
                )
                for r in records
            ],
            replace=True,  # a rerun after a fix of the prompt or parser may change answers
        )
        summary.stored += counts.added + counts.replaced
        say(
            f"  {sub.key}: "
            + ", ".join(
                f"{k} {v}" for k, v in sorted(Counter(r["status"] for r in records).items())
            )
        )
    summary.commitment = sealing.record_commitment(
        store, mv, revision=None, prompt=prompt_record(store, client)
    )
    return summary
