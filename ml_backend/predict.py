"""Model answers for study subsets: embed once through the cache, then run MTEB's procedures.

Store-agnostic on purpose (``ml_backend`` never imports ``hume_sync``): the conductor turns its
subsets into :class:`SubsetJob` records and stores what :func:`predict_subsets` returns.

Per task type the answer kept for each instance is

- classification: the majority label over mteb's 10 logistic-regression experiments; the item
  score is its vote share;
- clustering: ``{item_id: "group_<k>"}`` (MiniBatchKMeans cluster k-1), the same shape as a
  human's answer;
- STS: the cosine similarity of the pair (the value mteb correlates with gold);
- reranking: ``{candidate_id: similarity}`` (the model's score of every candidate).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend import procedures as P
from ml_backend.embedding_cache import (
    DEFAULT_CHUNK_SIZE,
    EmbeddingCache,
    EncodeRequest,
    EnsureStats,
)
from ml_backend.encoders import Encoder
from scoring.errors import HumeError

TASK_TYPES = ("classification", "clustering", "sts", "reranking")
DEFAULT_SAMPLES_PER_LABEL = 8  # mteb's AbsTaskClassification.samples_per_label
#: Bump when a change here or in ``procedures`` changes answers: stored results are then redone.
#: 2: jobs in the source's order (``hume_sync.study.model_view``), no longer the presentation order.
PREDICT_VERSION = 2


class PredictError(HumeError, ValueError):
    """A subset cannot be predicted as given (missing train pool, bad content, ...)."""


@dataclass(frozen=True)
class SubsetJob:
    """One subset to answer: its instances in order and what the procedure needs.

    ``contents`` have the study-store shapes (classification ``{"text"}``, clustering
    ``{"items": [{"id", "text"}]}``, STS ``{"sentence1", "sentence2"}``, reranking
    ``{"query", "candidates": [{"id", "text"}]}``). ``gold`` (aligned with ``hume_ids``; for
    clustering one ``{item_id: label}`` per instance) is optional: without it answers are made
    but no score.
    """

    key: str
    task_type: str
    task_name: str
    hume_ids: tuple[str, ...]
    contents: tuple[Mapping[str, Any], ...]
    train_pool: tuple[Mapping[str, Any], ...] = ()
    samples_per_label: int | None = None
    n_groups: int | None = None
    score_range: tuple[float, float] | None = None
    gold: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if self.task_type not in TASK_TYPES:
            raise PredictError(f"{self.key}: unknown task type {self.task_type!r}")
        if len(self.hume_ids) != len(self.contents):
            raise PredictError(f"{self.key}: hume_ids and contents differ in length")
        if self.gold is not None and len(self.gold) != len(self.hume_ids):
            raise PredictError(f"{self.key}: gold and instances differ in length")


@dataclass(frozen=True)
class ItemPrediction:
    hume_id: str
    answer: Any
    score: float | None = None


@dataclass(frozen=True)
class SubsetPrediction:
    """A model's answers for one subset and, with gold, its mteb score there."""

    key: str
    task_type: str
    model_version: str
    items: tuple[ItemPrediction, ...]
    main_score_name: str
    main_score: float | None
    scores: dict[str, Any] | None
    method: str

    def score_record(self) -> dict[str, Any]:
        """JSON-friendly summary of the subset score (what the study store keeps)."""
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
    """Everything one model's run produced, with where the time went."""

    model_version: str
    predictions: list[SubsetPrediction] = field(default_factory=list)
    stats: EnsureStats = field(default_factory=EnsureStats)
    embed_seconds: float = 0.0
    score_seconds: float = 0.0


def job_fingerprint(job: SubsetJob, encoder: Encoder) -> str:
    """sha256 of everything a subset's answers and score depend on, for skipping reruns.

    Model identity (name, revision, similarity), the job's inputs (instances, train pool,
    gold, settings) and :data:`PREDICT_VERSION`: equal fingerprints give equal results.
    """
    payload = {
        "version": PREDICT_VERSION,
        "model": [encoder.name, encoder.revision, _similarity(encoder)],
        "job": [
            job.key,
            job.task_type,
            job.task_name,
            list(job.hume_ids),
            list(job.contents),
            list(job.train_pool),
            job.samples_per_label,
            job.n_groups,
            list(job.score_range) if job.score_range else None,
            None if job.gold is None else list(job.gold),
        ],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- requests


def _train_union(job: SubsetJob) -> list[int]:
    """Indices of the train pool mteb embeds: the union of the experiments' samples."""
    if not job.train_pool:
        raise PredictError(
            f"{job.key}: classification needs a train pool (the study has no train items)"
        )
    labels = [str(r["label"]) for r in job.train_pool]
    spl = job.samples_per_label or DEFAULT_SAMPLES_PER_LABEL
    experiments = P.classification_train_indices(labels, spl)
    return sorted(set().union(*experiments))


def _field(job: SubsetJob, n: int, content: Mapping[str, Any], name: str) -> Any:
    if not isinstance(content, Mapping) or name not in content:
        raise PredictError(f"{job.key}: instance {job.hume_ids[n]!r} has no {name!r}")
    return content[name]


def encode_requests(job: SubsetJob) -> list[EncodeRequest]:
    """The texts of a subset grouped into encode requests as mteb groups them."""
    kw: dict[str, Any] = {"task_type": job.task_type, "task_name": job.task_name}
    if job.task_type == "classification":
        union = _train_union(job)
        train = tuple(str(job.train_pool[i]["text"]) for i in union)
        test = tuple(str(_field(job, n, c, "text")) for n, c in enumerate(job.contents))
        return [EncodeRequest(train, None, **kw), EncodeRequest(test, None, **kw)]
    if job.task_type == "clustering":
        return [
            EncodeRequest(tuple(str(it["text"]) for it in _field(job, n, c, "items")), None, **kw)
            for n, c in enumerate(job.contents)
        ]
    if job.task_type == "sts":
        s1 = tuple(str(_field(job, n, c, "sentence1")) for n, c in enumerate(job.contents))
        s2 = tuple(str(_field(job, n, c, "sentence2")) for n, c in enumerate(job.contents))
        return [EncodeRequest(s1, None, **kw), EncodeRequest(s2, None, **kw)]
    queries = tuple(P.query_text(c) for c in job.contents)
    docs = tuple(
        P.document_text(cand)
        for n, c in enumerate(job.contents)
        for cand in _field(job, n, c, "candidates")
    )
    return [EncodeRequest(queries, "query", **kw), EncodeRequest(docs, "passage", **kw)]


# --------------------------------------------------------------------------- procedures


def _similarity(encoder: Encoder) -> str:
    return str(getattr(encoder, "similarity_fn_name", None) or "cosine")


def _result_scores(result: P.ProcedureResult) -> dict[str, Any] | None:
    return result.to_dict()["scores"]


def _main(value: float | None) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def predict_job(job: SubsetJob, encoder: Encoder, cache: EmbeddingCache) -> SubsetPrediction:
    """Answer one subset from cached embeddings (call :meth:`EmbeddingCache.ensure` first)."""
    kw: dict[str, Any] = {"task_type": job.task_type, "task_name": job.task_name}

    def emb(texts: Sequence[str], role: Any = None) -> np.ndarray:
        return cache.lookup(encoder, texts, role=role, **kw)

    items: list[ItemPrediction]
    if job.task_type == "classification":
        union = _train_union(job)
        labels = [str(r["label"]) for r in job.train_pool]
        union_emb = emb([str(job.train_pool[i]["text"]) for i in union])
        train_rows = {i: union_emb[pos] for pos, i in enumerate(union)}
        test_emb = emb([str(c["text"]) for c in job.contents])
        cls = P.classify(
            train_rows,
            labels,
            test_emb,
            None if job.gold is None else [str(g) for g in job.gold],
            samples_per_label=job.samples_per_label or DEFAULT_SAMPLES_PER_LABEL,
        )
        items = [
            ItemPrediction(h, a, float(s))
            for h, a, s in zip(job.hume_ids, cls.answers, cls.confidences, strict=True)
        ]
        scores = _result_scores(cls)
        main_name, main, method = cls.main_score_name, cls.main_score, cls.method
    elif job.task_type == "clustering":
        items, v_measures, method = [], [], ""
        per_set: list[dict[str, Any] | None] = []
        for n, content in enumerate(job.contents):
            set_items = content["items"]
            gold_map = None if job.gold is None else job.gold[n]
            gold_labels = None if gold_map is None else [gold_map[it["id"]] for it in set_items]
            k = len(set(gold_labels)) if gold_labels is not None else job.n_groups
            if k is None:
                raise PredictError(f"{job.key}: clustering needs n_groups or gold")
            res = P.cluster(emb([str(it["text"]) for it in set_items]), gold_labels, n_clusters=k)
            answer = {
                str(it["id"]): f"group_{c + 1}"
                for it, c in zip(set_items, res.answers, strict=True)
            }
            items.append(ItemPrediction(job.hume_ids[n], answer, None))
            per_set.append(_result_scores(res))
            if res.main_score is not None:
                v_measures.append(float(res.main_score))
            method = res.method
        main_name = "v_measure"
        main = float(np.mean(v_measures)) if v_measures and job.gold is not None else None
        scores = None
        if job.gold is not None:
            scores = dict(per_set[0] or {}) if len(per_set) == 1 else {"v_measure": main}
            scores["v_measures"] = v_measures
    elif job.task_type == "sts":
        lo, hi = job.score_range or (0.0, 5.0)
        st = P.sts(
            emb([str(c["sentence1"]) for c in job.contents]),
            emb([str(c["sentence2"]) for c in job.contents]),
            None if job.gold is None else [float(g) for g in job.gold],
            min_score=lo,
            max_score=hi,
            similarity=_similarity(encoder),
        )
        items = [
            ItemPrediction(h, float(a), None) for h, a in zip(job.hume_ids, st.answers, strict=True)
        ]
        scores = _result_scores(st)
        main_name, main, method = st.main_score_name, st.main_score, st.method
    else:
        cand_ids = [[str(c["id"]) for c in content["candidates"]] for content in job.contents]
        q_emb = emb([P.query_text(c) for c in job.contents], role="query")
        c_emb = [
            emb([P.document_text(cand) for cand in content["candidates"]], role="passage")
            for content in job.contents
        ]
        gold = None
        if job.gold is not None:
            gold = [{str(k): int(v) for k, v in g.items()} for g in job.gold]
        rr = P.rerank(
            q_emb,
            c_emb,
            cand_ids,
            gold,
            query_ids=list(job.hume_ids),
            similarity=_similarity(encoder),
        )
        items = [
            ItemPrediction(h, {k: float(v) for k, v in a.items()}, None)
            for h, a in zip(job.hume_ids, rr.answers, strict=True)
        ]
        scores = _result_scores(rr)
        main_name, main, method = rr.main_score_name, rr.main_score, rr.method
    notes = protocol_notes(job, encoder)
    return SubsetPrediction(
        key=job.key,
        task_type=job.task_type,
        model_version=encoder.model_version,
        items=tuple(items),
        main_score_name=main_name,
        main_score=_main(main),
        scores=scores,
        method="; ".join([method, *notes]),
    )


def protocol_notes(job: SubsetJob, encoder: Encoder) -> list[str]:
    """How the encoder departs from mteb's protocol on this job (its ``protocol_note``), so that
    the score's ``method`` never presents such a number as mteb's."""
    note = getattr(encoder, "protocol_note", None)
    if not callable(note):
        return []
    roles = ("query", "passage") if job.task_type == "reranking" else (None,)
    found = [note(role=r, task_type=job.task_type, task_name=job.task_name) for r in roles]
    return list(dict.fromkeys(n for n in found if n))


class _Bar:
    """tqdm on stderr when it is a terminal; silent otherwise (tests, logs)."""

    def __init__(self, desc: str, enabled: bool) -> None:
        self.desc, self.enabled, self.bar = desc, enabled, None

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
    """One model over many subsets: embed every missing text once (resumable), then answer.

    The embedding step commits each chunk to the cache, so an interrupted run loses at most one
    chunk of work; nothing is returned (or stored by the caller) until every subset is answered.
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
