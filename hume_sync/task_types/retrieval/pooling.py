"""Building a retrieval subset's pools at ``init``, through the study's embedding cache.

Why at ``init`` (in the type's sampling), not at ``setup`` or ``predict``: the pool *is* the
instance. ``setup`` imports the stored instances into Label Studio and must not change them,
and ``predict`` answers stored instances (its digest of them flags a later change as a
different study); so the documents people will grade are fixed where every other type fixes
its candidates, when the subset is sampled. The systems are run as ``predict`` runs them: the
same encoders (:func:`ml_backend.encoders.load_encoder`), mteb's roles and encoding context,
and the study's own embedding cache, so the corpus embedded for pooling is what ``predict``
finds there. Nothing a system returns is stored beside the instance but the counts of
:meth:`~ml_backend.procedures.retrieval.PoolResult.summary` (which system found a document is
never shown, and never kept per document).

:func:`pooling_context` lets tests and benchmarks say which encoders to run instead of loading
the spec's models by name, and which cache to use; ``init`` names the study's own cache
(:mod:`hume_sync.study.context`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hume_sync.file_modes import private_dir, private_file
from hume_sync.study.context import embedding_cache_path
from ml_backend.procedures import retrieval as P

#: Documents whose embeddings are read from the cache (and searched) at a time.
SEARCH_CHUNK = 8192
#: The encoding context of a retrieval text (the prompt table's key: mteb's type name).
TASK_TYPE = "Retrieval"


@dataclass(frozen=True)
class _Context:
    cache_path: Path | None = None
    encoders: tuple[Any, ...] | None = None


_CONTEXT: ContextVar[_Context | None] = ContextVar("retrieval_pooling", default=None)


def _current() -> _Context:
    return _CONTEXT.get() or _Context()


@contextmanager
def pooling_context(
    cache_path: str | Path | None = None, encoders: Sequence[Any] | None = None
) -> Iterator[None]:
    """Pool inside the block with this cache file and these encoders.

    Args:
        cache_path: the embedding cache file; None keeps the outer one, else the study's
            (:func:`hume_sync.study.context.embedding_cache_path`, set by ``init``), else a
            throw-away cache.
        encoders: run these instead of loading ``pool_models`` by name (tests, benchmarks).
    """
    outer = _current()
    token = _CONTEXT.set(
        _Context(
            Path(cache_path) if cache_path is not None else outer.cache_path,
            tuple(encoders) if encoders is not None else outer.encoders,
        )
    )
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def _encoders(names: Sequence[str]) -> tuple[Any, ...]:
    given = _current().encoders
    if given is not None:
        return given
    from ml_backend.encoders import load_encoder

    return tuple(load_encoder(n) for n in names)


@contextmanager
def _cache() -> Iterator[Any]:
    from ml_backend.embedding_cache import EmbeddingCache

    path = _current().cache_path or embedding_cache_path()
    if path is not None:
        private_dir(path.parent)  # owner-only, as predict makes the study's cache
        private_file(path, create=True)
        with EmbeddingCache(path) as cache:
            yield cache
        return
    with tempfile.TemporaryDirectory() as tmp, EmbeddingCache(Path(tmp) / "pool.sqlite") as cache:
        yield cache


def dense_runs(
    encoder: Any,
    cache: Any,
    queries: Sequence[str],
    docs: Mapping[str, str],
    depth: int,
    *,
    chunk: int = SEARCH_CHUNK,
    task_name: str | None = None,
) -> list[dict[str, float]]:
    """One embedding model's top ``depth`` of the whole corpus for each query.

    The corpus is embedded in the cache's committed chunks (``ensure``; a rerun embeds nothing)
    and searched chunk by chunk (:func:`ml_backend.procedures.retrieval.exact_top_k`), so memory
    holds one chunk of embeddings, never the corpus's.

    Args:
        encoder: the model.
        cache: the embedding cache.
        queries: the query texts as models read them.
        docs: per document id, its text, in corpus order.
        depth: how many documents per query.
        chunk: documents read from the cache per search step.
        task_name: the task's name, as ``predict`` encodes it (a model with a prompt per task
            reads it with that prompt, as mteb runs it, and ``predict`` finds it cached).

    Returns:
        Per query, ``{doc_id: similarity}`` of its top ``depth``.
    """
    from ml_backend.embedding_cache import EncodeRequest

    ids, texts = list(docs), list(docs.values())
    cache.ensure(
        encoder,
        [
            EncodeRequest(tuple(queries), "query", task_type=TASK_TYPE, task_name=task_name),
            EncodeRequest(tuple(texts), "passage", task_type=TASK_TYPE, task_name=task_name),
        ],
    )
    q = cache.lookup(encoder, list(queries), role="query", task_type=TASK_TYPE, task_name=task_name)

    def chunks() -> Iterator[tuple[list[str], Any]]:
        for start in range(0, len(ids), chunk):
            part = texts[start : start + chunk]
            yield (
                ids[start : start + chunk],
                cache.lookup(
                    encoder, part, role="passage", task_type=TASK_TYPE, task_name=task_name
                ),
            )

    similarity = str(getattr(encoder, "similarity_fn_name", None) or "cosine")
    return P.exact_top_k(q, chunks(), depth, similarity)


def build_pools(
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    docs: Mapping[str, str],
    *,
    depth: int,
    models: Sequence[str],
    bm25: bool,
    language: str | None = "en",
    task_name: str | None = None,
) -> P.PoolResult:
    """Pool each query: every system's top ``depth`` of the whole corpus, plus its relevant docs.

    Args:
        queries: per query id, its text as models read it.
        qrels: per query id, the judged grade per document.
        docs: per document id, its text, in corpus order.
        depth: d.
        models: the embedding models to pool (unless :func:`pooling_context` gives encoders).
        bm25: whether BM25 is pooled too.
        language: the subset's language (BM25's stop words are English only).
        task_name: the task's name, the encoding context ``predict`` uses (:func:`dense_runs`).

    Returns:
        The pools, with each system's contribution.
    """
    qids = list(queries)
    texts = [queries[q] for q in qids]
    runs: dict[str, dict[str, dict[str, float]]] = {}
    encoders = _encoders(models)
    if encoders:
        with _cache() as cache:
            for encoder in encoders:
                found = dense_runs(encoder, cache, texts, docs, depth, task_name=task_name)
                runs[encoder.model_version] = dict(zip(qids, found, strict=True))
    if bm25:
        lang = "en" if (language or "en").split("_")[0].split("-")[0] in ("en", "eng") else ""
        found = P.bm25_top_k(list(docs), list(docs.values()), texts, depth, language=lang)
        runs[P.BM25] = dict(zip(qids, found, strict=True))
    return P.merge_pools(runs, {q: qrels[q] for q in qids}, depth)
