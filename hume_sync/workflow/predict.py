"""`hume-sync predict`: every model's sealed answers for every instance, and its subset scores.

For each model (default: the packaged all-MiniLM-L6-v2) the study's subsets become
``ml_backend.model_procedure.SubsetJob``s, each carrying its type from ``hume_sync.task_types``
(whose model procedure answers as mteb does); each distinct text is embedded once per model and
encoding context into the content-addressed cache ``STUDY_DIR/cache/embeddings/embeddings.sqlite``
(committed chunk by chunk, so an interrupted run resumes where it stopped and a rerun or a new
subset embeds only new texts). Answers are stored as sealed predictions with ``model_version``
``emb:<name>``; a rerun that changes nothing writes nothing.

The model's mteb score on each subset (computed with gold, which only ``hume_sync`` may read) is
kept in the store's ``model_scores`` table (:mod:`hume_sync.store.model_scores`), with a digest
of the instances and gold it was computed on; ``Store.model_subset_scores`` reads them back for
export and flags scores whose instances changed since.

Each model's sealing commitment (:mod:`hume_sync.sealing`) is computed from its stored answers
once they are written, and recorded when it changed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync import sealing, task_types
from hume_sync.errors import PredictCommandError
from hume_sync.file_modes import private_dir, private_file
from hume_sync.store import (
    ModelScoreRecord,
    PredictionRecord,
    Store,
    instances_digest,
)
from hume_sync.study.model_view import ModelView, model_view

DEFAULT_MODELS: tuple[str, ...] = ("all-MiniLM-L6-v2",)
CACHE_DIR = Path("cache") / "embeddings"
CACHE_FILE = "embeddings.sqlite"
#: One JSON line per embedding-server request: inputs, tokens, cost, attempts.
SERVER_LOG = "server_requests.jsonl"


def cache_path(study_dir: str | Path) -> Path:
    """Where a study keeps its embedding cache."""
    return Path(study_dir) / CACHE_DIR / CACHE_FILE


def private_cache_path(study_dir: str | Path) -> Path:
    """The embedding cache file, created owner-only (0600 in 0700 folders) before first use."""
    path = cache_path(study_dir)
    private_dir(path.parent)
    return private_file(path, create=True)


# --------------------------------------------------------------------------- jobs


def model_views(store: Store, subsets: Sequence[str] | None = None) -> dict[str, ModelView]:
    """The study's subsets (all, or the named ones, with instances) as models see them."""
    wanted = set(subsets) if subsets is not None else None
    views = {
        sub.key: model_view(store, sub.key)
        for sub in store.subsets()
        if (wanted is None or sub.key in wanted) and store.instances(sub.key)
    }
    if wanted is not None:
        unknown = sorted(wanted - set(views))
        if unknown:
            raise PredictCommandError(f"no such subset(s) with instances: {', '.join(unknown)}")
    return views


def build_jobs(
    store: Store,
    subsets: Sequence[str] | None = None,
    *,
    views: Mapping[str, ModelView] | None = None,
) -> list[Any]:
    """The study's subsets (all, or the named ones) as ``SubsetJob``s, gold included.

    Jobs are built from :func:`hume_sync.study.model_view.model_view`: instances, items and
    train pool in the source's order under source ids (mteb's view), never the presentation order.
    """
    from ml_backend.model_procedure import SubsetJob

    if views is None:
        views = model_views(store, subsets)
    jobs = []
    for key, view in views.items():
        sub = store.subset(key)
        kind = task_types.of_subset(sub)
        jobs.append(
            SubsetJob(
                key=sub.key,
                task=kind,
                task_name=sub.task_name,
                hume_ids=tuple(i.hume_id for i in view.instances),
                contents=tuple(i.content for i in view.instances),
                train_pool=tuple({"text": t.text, "label": t.label} for t in view.train),
                settings=kind.model_job_settings(sub),
                gold=tuple(i.gold for i in view.instances),
            )
        )
    return jobs


# --------------------------------------------------------------------------- scores


def _score_record(record: Mapping[str, Any], instances: str, inputs: str) -> ModelScoreRecord:
    """The store's record of ``SubsetPrediction.score_record()`` with its two digests."""
    return ModelScoreRecord(
        model_version=record["model_version"],
        subset=record["subset"],
        task_type=record["task_type"],
        main_score_name=record["main_score_name"],
        main_score=record["main_score"],
        scores=record["scores"],
        method=record["method"],
        n_items=int(record["n_items"]),
        instances_sha256=instances,
        inputs_sha256=inputs,
    )


# --------------------------------------------------------------------------- predict


@dataclass
class ModelSummary:
    """What ``predict`` did for one model."""

    model_version: str
    subsets: int = 0
    skipped: int = 0  # subsets whose stored result was still valid
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    scores_written: int = 0
    texts: int = 0
    embedded: int = 0
    cached: int = 0
    encode_calls: int = 0
    seconds: float = 0.0
    main_scores: dict[str, float | None] = field(default_factory=dict)
    #: Per subset, what the main score is: the type's reader name and mteb's key, e.g.
    #: ``Spearman ρ (cosine_spearman)``.
    main_score_names: dict[str, str] = field(default_factory=dict)

    def score_lines(self) -> list[str]:
        """One line per subset: the model, the subset, the score with its metric's name."""
        out = []
        for key, score in self.main_scores.items():
            shown = "n/a (no gold)" if score is None else f"{score:.4f}"
            name = self.main_score_names.get(key, "main score")
            out.append(f"  {self.model_version:<45} {key:<50} {name} {shown}")
        return out


@dataclass
class PredictSummary:
    models: list[ModelSummary] = field(default_factory=list)
    #: Per model, the commitment to its sealed answers (to publish before annotation opens).
    commitments: list[sealing.Commitment] = field(default_factory=list)

    @property
    def predictions_added(self) -> int:
        """New predictions stored by this run, over all models."""
        return sum(m.added for m in self.models)


#: Answers and scores closer than this count as unchanged: embedding the same texts in other
#: encode batches (e.g. after the cache was deleted) moves cosines by ~1e-8, which is not a change.
ANSWER_TOLERANCE = 1e-6


def same_answer(a: Any, b: Any, tol: float = ANSWER_TOLERANCE) -> bool:
    """Equal answers, numbers within ``tol`` (labels, ids and group names must match exactly)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(float(a) - float(b)) <= tol
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_answer(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_answer(x, y, tol) for x, y in zip(a, b, strict=True))
    return a == b


def _check_changes(
    store: Store, records: Sequence[PredictionRecord], model_version: str
) -> tuple[list[PredictionRecord], int, list[str]]:
    """Split records into new/changed vs unchanged; list the changed hume_ids.

    An unchanged record keeps the stored row (and its sealed flag) as it is.
    """
    existing = {p.hume_id: p for p in store.predictions(model_version=model_version)}
    todo: list[PredictionRecord] = []
    unchanged, changed = 0, []
    for rec in records:
        old = existing.get(rec.hume_id)
        if (
            old is not None
            and same_answer(old.answer, rec.answer)
            and same_answer(old.score, rec.score)
        ):
            unchanged += 1
            continue
        if old is not None:
            changed.append(rec.hume_id)
        todo.append(rec)
    return todo, unchanged, changed


def predict_study(
    study_dir: str | Path,
    store: Store,
    models: Sequence[str] = DEFAULT_MODELS,
    *,
    encoders: Sequence[Any] | None = None,
    subsets: Sequence[str] | None = None,
    chunk_size: int | None = None,
    replace: bool = False,
    progress: bool = True,
    loading: Mapping[str, Any] | None = None,
) -> PredictSummary:
    """Predict every subset with every model and store sealed answers and subset scores.

    ``encoders`` (objects of the ``ml_backend.encoders.Encoder`` protocol) replace loading
    ``models`` by name (tests, benchmarks). The study is checked, then all models are loaded
    before any work, so an unknown model fails at once with a one-line ``ModelLoadError``.
    A stored prediction that would change (new model revision under the same name, changed
    data) is refused unless ``replace``; changes below ``ANSWER_TOLERANCE`` are not changes.
    ``loading``: ``load_encoder``'s ``device``, ``batch_size`` and ``server`` settings.
    """
    from ml_backend.embedding_cache import DEFAULT_CHUNK_SIZE, EmbeddingCache
    from ml_backend.encoders import load_encoder
    from ml_backend.predict import PredictError

    try:
        views = model_views(store, subsets)
        jobs = build_jobs(store, views=views)
    except PredictError as exc:
        raise PredictCommandError(str(exc)) from None
    if not jobs:
        raise PredictCommandError(f"{store.path}: the study has no instances; run 'init' first")
    if encoders is None:
        if not models:
            raise PredictCommandError("no model given")
        encoders = [load_encoder(m, **_loading(study_dir, loading)) for m in dict.fromkeys(models)]
    digests = {job.key: instances_digest(store, job.key) for job in jobs}
    summary = PredictSummary()
    with EmbeddingCache(private_cache_path(study_dir)) as cache:
        for encoder in encoders:
            summary.models.append(
                _predict_model(
                    store,
                    cache,
                    encoder,
                    jobs,
                    views,
                    digests,
                    chunk_size=chunk_size or DEFAULT_CHUNK_SIZE,
                    replace=replace,
                    progress=progress,
                )
            )
            revision, prompt = sealing.encoder_identity(encoder)
            summary.commitments.append(
                sealing.record_commitment(
                    store, encoder.model_version, revision=revision, prompt=prompt
                )
            )
    return summary


def _loading(study_dir: str | Path, loading: Mapping[str, Any] | None) -> dict[str, Any]:
    """``load_encoder`` keywords; an embedding server's requests are logged in the cache dir."""
    out = {k: v for k, v in (loading or {}).items() if v is not None}
    server = {k: v for k, v in dict(out.get("server") or {}).items() if v is not None}
    if server.get("base_url"):
        server.setdefault("log_path", Path(study_dir) / CACHE_DIR / SERVER_LOG)
    out["server"] = server
    return out


def _predict_model(
    store: Store,
    cache: Any,
    encoder: Any,
    jobs: Sequence[Any],
    views: Mapping[str, ModelView],
    digests: dict[str, str],
    *,
    chunk_size: int,
    replace: bool,
    progress: bool,
) -> ModelSummary:
    """One model: skip subsets whose inputs are unchanged since their stored result, redo the
    rest (embedding through the cache), store predictions and scores.

    Answers come back keyed by source item ids (the model's view) and are stored under the ids
    annotators see, like human answers and gold."""
    from ml_backend.embedding_cache import EmbeddingCacheError
    from ml_backend.encoders import model_facts
    from ml_backend.predict import PredictError, PredictRun, job_fingerprint, predict_subsets

    started = time.perf_counter()
    mv = encoder.model_version
    records_by_subset = {r.subset: r for r in store.model_score_records(mv)}
    stored = {p.hume_id for p in store.predictions(model_version=mv)}
    fingerprints = {job.key: job_fingerprint(job, encoder) for job in jobs}
    pending, done, up_to_date = [], {}, 0
    names: dict[str, str] = {}
    for job in jobs:
        rec = records_by_subset.get(job.key)
        if (
            rec is not None
            and rec.inputs_sha256 == fingerprints[job.key]
            and all(h in stored for h in job.hume_ids)
        ):
            done[job.key] = rec.main_score
            names[job.key] = rec.main_score_name or job.task.score_mteb_main_name
            up_to_date += len(job.hume_ids)
        else:
            pending.append(job)
    run = PredictRun(model_version=mv)
    if pending:
        try:
            run = predict_subsets(encoder, pending, cache, chunk_size=chunk_size, progress=progress)
        except (PredictError, EmbeddingCacheError) as exc:
            raise PredictCommandError(str(exc)) from None
    records = [
        PredictionRecord(
            item.hume_id, mv, views[sp.key].shown_answer(item.hume_id, item.answer), item.score
        )
        for sp in run.predictions
        for item in sp.items
    ]
    todo, unchanged, changed = _check_changes(store, records, mv)
    if changed and not replace:
        raise PredictCommandError(
            f"{len(changed)} stored prediction(s) of {mv} would change (first: {changed[0]}); "
            "the model or the data changed since the last run: pass --replace to overwrite them"
        )
    counts = store.add_predictions(todo, replace=replace) if todo else None
    written = store.set_model_scores(
        _score_record(sp.score_record(), digests[sp.key], fingerprints[sp.key])
        for sp in run.predictions
    )
    if facts := model_facts(encoder):  # for the report's model columns (no mteb import there)
        store.set_model_facts(mv, facts)
    main_scores = {**done, **{sp.key: sp.main_score for sp in run.predictions}}
    names.update({sp.key: sp.main_score_name for sp in run.predictions})
    return ModelSummary(
        model_version=mv,
        subsets=len(jobs),
        skipped=len(done),
        added=counts.added if counts else 0,
        replaced=counts.replaced if counts else 0,
        unchanged=up_to_date + unchanged + (counts.unchanged if counts else 0),
        scores_written=written,
        texts=run.stats.requested,
        embedded=run.stats.computed,
        cached=run.stats.cached,
        encode_calls=run.stats.encode_calls,
        seconds=time.perf_counter() - started,
        main_scores={job.key: main_scores.get(job.key) for job in jobs},
        main_score_names={
            job.key: f"{job.task.score_main_label} ({names.get(job.key) or '?'})" for job in jobs
        },
    )
