"""Model answers for study subsets: embed once through the cache, then run MTEB's procedures.

Store-agnostic on purpose (``ml_backend`` never imports ``hume_sync``): the conductor turns its
subsets into :class:`SubsetJob` records and stores what :func:`predict_subsets` returns.

Type-blind on purpose too: each job carries its task type as an object implementing
:class:`~ml_backend.model_procedure.ModelProcedure`, which says which texts mteb embeds in which
encode calls and what answers and scores follow from the embeddings (the shape of an answer,
e.g. a label, ``{item_id: "group_<k>"}``, a similarity, ``{candidate_id: similarity}``, is the
type's own). This module only embeds, looks up, and records.

Texts are grouped into encode requests exactly as mteb groups them (same roles and task
context), but embedded through :class:`~ml_backend.embedding_cache.EmbeddingCache`, which embeds
each distinct text once per model and context across all subsets.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend.embedding_cache import (
    DEFAULT_CHUNK_SIZE,
    EmbeddingCache,
    EncodeRequest,
    EnsureStats,
)
from ml_backend.encoders import Encoder, Role
from ml_backend.model_procedure import PredictError, SubsetJob

#: Bump when a change here or in ``procedures`` changes answers: stored results are then redone.
#: 2: jobs in the source's order (``hume_sync.study.model_view``), no longer the presentation order.
PREDICT_VERSION = 2

__all__ = [
    "FINGERPRINT_SETTINGS",
    "PREDICT_VERSION",
    "ItemPrediction",
    "PredictError",
    "PredictRun",
    "SubsetJob",
    "SubsetPrediction",
    "encode_requests",
    "job_fingerprint",
    "predict_job",
    "predict_subsets",
    "protocol_notes",
]


@dataclass(frozen=True)
class ItemPrediction:
    """A model's answer for one instance, as the study store keeps it.

    Attributes:
        hume_id: the instance's id.
        answer: the answer, in the type's model answer shape.
        score: an optional item score (a vote share, a cosine); None where the type has none.
    """

    hume_id: str
    answer: Any
    score: float | None = None


@dataclass(frozen=True)
class SubsetPrediction:
    """A model's answers for one subset and, with gold, its mteb score there.

    Attributes:
        key: the subset's key.
        task_type: the subset's task type name.
        model_version: the model's ``emb:…`` version the answers are stored under.
        items: the answer per instance, in the job's order.
        main_score_name: which of ``scores`` mteb reports as ``main_score``.
        main_score: that score; None without gold (or when it is NaN).
        scores: mteb's scores by their names; None without gold.
        method: how the answers were computed, with the path and any departure from mteb.
    """

    key: str
    task_type: str
    model_version: str
    items: tuple[ItemPrediction, ...]
    main_score_name: str
    main_score: float | None
    scores: dict[str, Any] | None
    method: str

    def score_record(self) -> dict[str, Any]:
        """Summarise the subset score as JSON-friendly data (what the study store keeps).

        Returns:
            The model version, subset, type, scores, method and number of items.
        """
        return {
            "model_version": self.model_version,
            "subset": self.key,
            "task_type": self.task_type,
            "main_score_name": self.main_score_name,
            "main_score": self.main_score,
            "scores": self.scores,
            "method": self.method,
            "n_items": len(self.items),
        }


@dataclass
class PredictRun:
    """Everything one model's run produced, with where the time went.

    Attributes:
        model_version: the model's version.
        predictions: one per job, in the jobs' order.
        stats: what the embedding step found cached and embedded.
        embed_seconds: wall time of the embedding step.
        score_seconds: wall time of answering and scoring from the embeddings.
    """

    model_version: str
    predictions: list[SubsetPrediction] = field(default_factory=list)
    stats: EnsureStats = field(default_factory=EnsureStats)
    embed_seconds: float = 0.0
    score_seconds: float = 0.0


#: Settings that had a place of their own in the fingerprint before jobs carried ``settings``;
#: they keep it, so that a store's fingerprints (and its predict skips) survive the change. Any
#: other setting a type adds goes in one sorted mapping after them.
FINGERPRINT_SETTINGS: tuple[str, ...] = ("samples_per_label", "n_groups", "score_range")


def _fingerprint_value(value: Any) -> Any:
    """A setting as the fingerprint writes it (a range as a list; an empty one as none)."""
    if isinstance(value, tuple | list):
        return list(value) or None
    return value


def job_fingerprint(job: SubsetJob, encoder: Encoder) -> str:
    """Hash everything a subset's answers and score depend on, for skipping reruns.

    Model identity (name, revision, similarity), the job's inputs (type, instances, train pool,
    gold, settings) and :data:`PREDICT_VERSION`: equal fingerprints give equal results.

    Args:
        job: the subset.
        encoder: the model that answers it.

    Returns:
        The sha256 hex digest.
    """
    payload = {
        "version": PREDICT_VERSION,
        "model": [encoder.name, encoder.revision, _similarity(encoder)],
        "job": [
            job.key,
            job.task.name,
            job.task_name,
            list(job.hume_ids),
            list(job.contents),
            list(job.train_pool),
            *(_fingerprint_value(job.settings.get(key)) for key in FINGERPRINT_SETTINGS),
            None if job.gold is None else list(job.gold),
        ],
    }
    others = {k: v for k, v in job.settings.items() if k not in FINGERPRINT_SETTINGS}
    if others:
        payload["settings"] = {k: _fingerprint_value(v) for k, v in sorted(others.items())}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- requests


def _context(job: SubsetJob) -> dict[str, Any]:
    """Give the encoding context of a job's texts: mteb's type name and the task's name.

    They are what a model's prompt table is keyed by.
    """
    return {"task_type": job.task.mteb_type, "task_name": job.task_name}


def encode_requests(job: SubsetJob) -> list[EncodeRequest]:
    """Group the texts of a subset into encode requests as mteb groups them.

    Args:
        job: the subset.

    Returns:
        One request per encode call, with its role and the task's context.

    Raises:
        PredictError: when an instance lacks what the type needs.
    """
    return [
        EncodeRequest(group.texts, group.role, **_context(job))
        for group in job.task.model_encode_groups(job)
    ]


# --------------------------------------------------------------------------- procedures


def _similarity(encoder: Encoder) -> str:
    return str(getattr(encoder, "similarity_fn_name", None) or "cosine")


def _main(value: float | None) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def predict_job(job: SubsetJob, encoder: Encoder, cache: EmbeddingCache) -> SubsetPrediction:
    """Answer one subset from cached embeddings (call :meth:`EmbeddingCache.ensure` first).

    Args:
        job: the subset.
        encoder: the model; its texts' embeddings must already be in ``cache``.
        cache: the embedding cache.

    Returns:
        The answers and, with gold, mteb's scores, the method naming how they were made.

    Raises:
        PredictError: when the job's content cannot be answered.
        EmbeddingCacheError: when a text's embedding is not in the cache.
    """
    context = _context(job)

    def embeddings(texts: Sequence[str], role: Role | None = None) -> np.ndarray:
        return cache.lookup(encoder, texts, role=role, **context)

    out = job.task.model_answers(job, embeddings, _similarity(encoder))
    items = tuple(
        ItemPrediction(h, a, s)
        for h, a, s in zip(job.hume_ids, out.answers, out.item_scores, strict=True)
    )
    notes = protocol_notes(job, encoder)
    return SubsetPrediction(
        key=job.key,
        task_type=job.task.name,
        model_version=encoder.model_version,
        items=items,
        main_score_name=out.main_score_name,
        main_score=_main(out.main_score),
        scores=out.scores,
        method="; ".join([out.method, *notes]),
    )


def protocol_notes(job: SubsetJob, encoder: Encoder) -> list[str]:
    """Say which path made the embeddings and how the encoder departs from mteb's protocol.

    So the score's ``method`` never presents such a number as mteb's.

    Args:
        job: the subset.
        encoder: the model; its ``method_note`` (mteb's wrapper, device or server) and
            ``protocol_note`` are read when it has them.

    Returns:
        The path's note, then each distinct departure on this job's roles.
    """
    path = getattr(encoder, "method_note", None)
    which = [path()] if callable(path) else []  # which path made the embeddings
    note = getattr(encoder, "protocol_note", None)
    if not callable(note):
        return which
    roles = dict.fromkeys(group.role for group in job.task.model_encode_groups(job))
    found = [note(role=r, **_context(job)) for r in roles]
    return which + list(dict.fromkeys(n for n in found if n))


class _Bar:
    """tqdm on stderr when it is a terminal; silent otherwise (tests, logs)."""

    def __init__(self, desc: str, enabled: bool) -> None:
        self.desc, self.enabled = desc, enabled
        self.bar: Any = None  # a tqdm bar once planned

    def plan(self, total: int) -> None:
        if not self.enabled or total == 0:
            return
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm ships with sentence-transformers
            return
        self.bar = tqdm(
            total=total, desc=self.desc, unit="text", file=sys.stderr, leave=False, disable=None
        )

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def predict_subsets(
    encoder: Encoder,
    jobs: Sequence[SubsetJob],
    cache: EmbeddingCache,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool = True,
) -> PredictRun:
    """Run one model over many subsets: embed every missing text once (resumable), then answer.

    The embedding step commits each chunk to the cache, so an interrupted run loses at most one
    chunk of work; nothing is returned (or stored by the caller) until every subset is answered.

    Args:
        encoder: the model.
        jobs: the subsets, in the order their predictions are returned.
        cache: the embedding cache.
        chunk_size: how many texts are embedded and committed at a time.
        progress: whether to show a progress bar (only when stderr is a terminal).

    Returns:
        The predictions, the cache's statistics and the time spent embedding and scoring.
    """
    run = PredictRun(model_version=encoder.model_version)
    requests = [req for job in jobs for req in encode_requests(job)]
    bar = _Bar(f"embedding with {encoder.name}", progress)
    started = time.perf_counter()
    try:
        run.stats = cache.ensure(
            encoder, requests, chunk_size=chunk_size, on_plan=bar.plan, on_progress=bar.update
        )
    finally:
        bar.close()
    run.embed_seconds = time.perf_counter() - started
    started = time.perf_counter()
    run.predictions = [predict_job(job, encoder, cache) for job in jobs]
    run.score_seconds = time.perf_counter() - started
    return run
