"""Retrieval: mteb's ``AbsTaskRetrieval`` on a pool, and the pooling that makes the pool.

People cannot read a corpus of 10⁴–10⁶ documents, so a retrieval study shows each query the
TREC-style pool of what several systems retrieve from the whole corpus (each system's top d)
plus every document qrels judge relevant. This module holds the maths of both halves, on ready
embeddings (the backend's cache computes them once per distinct text):

- :func:`exact_top_k`: a dense model's top k over the whole corpus, by chunked exact search
  (the corpus arrives in chunks, so memory holds one chunk's similarities, never an all-pairs
  matrix); :func:`bm25_top_k`: the lexical baseline (the ``bm25s`` package, which mteb's own
  ``bm25s`` model runs); :func:`merge_pools`: the union, with which system found what.
- :func:`evaluate`: mteb's retrieval scores (pytrec_eval, mteb's measures and rounding) of a
  run against qrels, plus judged@k and, with ``judged_only``, the condensed score (unjudged
  documents removed first, Sakai 2007), which pooled judging needs and mteb does not report;
  :func:`score_pool`: a model's answers and scores within each query's pool (mteb's evaluation
  with the pool given as ``top_ranked``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend.procedures.common import (
    ProcedureResult,
    candidate_similarities,
    similarity_matrix,
)
from scoring.aggregation.retrieval import DEFAULT_MAIN, main_metric, trec_measure

#: ``AbsTaskRetrieval.k_values``: the cut-offs mteb reports.
RETRIEVAL_K_VALUES = (1, 3, 5, 10, 20, 100, 1000)
#: The system name of the lexical baseline in a pool's bookkeeping.
BM25 = "bm25"

__all__ = [
    "BM25",
    "RETRIEVAL_K_VALUES",
    "Pool",
    "PoolResult",
    "bm25_top_k",
    "document_text",
    "evaluate",
    "exact_top_k",
    "merge_pools",
    "query_text",
    "score_pool",
    "with_cut_off",
]


def with_cut_off(k_values: Sequence[int], main: str) -> tuple[int, ...]:
    """Give mteb's cut-offs and the main score's, so that the main score is among the scores.

    Why: a task's main score may cut where mteb's default ``k_values`` do not (LIMIT's
    recall@2); the cut-offs are left as they are (and so the stored scores' keys) otherwise.

    Args:
        k_values: the cut-offs.
        main: the main score (:func:`scoring.aggregation.retrieval.main_metric`).

    Returns:
        The cut-offs, the main score's added in order where missing.

    Raises:
        InvalidInputError: for a main score no ranking gives.
    """
    _, k = main_metric(main)
    return tuple(k_values) if k in k_values else tuple(sorted({*k_values, k}))


def query_text(instance: Mapping[str, Any]) -> str:
    """Give the query as mteb feeds it: text, then `` instruction`` when the instance has one.

    Args:
        instance: the query's content (``query``, optional ``instruction``).

    Returns:
        The model's input for the query.
    """
    text = str(instance["query"])
    instruction = instance.get("instruction")
    return f"{text} {instruction}" if instruction else text


def document_text(doc: Mapping[str, Any]) -> str:
    """Give a document as mteb feeds it: ``title text`` or text, stripped.

    Args:
        doc: the document (``text``, optional ``title``).

    Returns:
        The model's input for the document.
    """
    title = doc.get("title") or ""
    text = str(doc.get("text") or "")
    return f"{title} {text}".strip() if title else text.strip()


def exact_top_k(
    query_embeddings: np.ndarray,
    corpus_chunks: Iterable[tuple[Sequence[str], np.ndarray]],
    k: int,
    similarity: str = "cosine",
) -> list[dict[str, float]]:
    """Give each query's k most similar documents of the whole corpus, by exact search.

    The corpus arrives in chunks (ids and their embeddings), so that memory holds one chunk's
    ``n_queries × chunk`` similarities and the running top k, never the corpus × queries matrix;
    this is how mteb's ``SearchEncoderWrapper`` searches too.

    Args:
        query_embeddings: one row per query.
        corpus_chunks: the corpus as ``(ids, embeddings)`` chunks, in corpus order.
        k: how many documents to keep per query.
        similarity: the model's similarity function.

    Returns:
        Per query, ``{doc_id: similarity}`` of its top k (fewer when the corpus is smaller).

    Raises:
        ValueError: when k is below 1 or a similarity is NaN.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    q = np.asarray(query_embeddings)
    best_scores = np.full((len(q), 0), -np.inf)
    best_ids = np.empty((len(q), 0), dtype=object)
    for ids, emb in corpus_chunks:
        if len(ids) == 0:
            continue
        sims = np.asarray(similarity_matrix(q, np.asarray(emb), similarity), dtype=float)
        if np.isnan(sims).any():
            raise ValueError("NaN similarity in the corpus search")
        chunk_ids = np.empty(len(ids), dtype=object)
        chunk_ids[:] = list(ids)
        scores = np.concatenate([best_scores, sims], axis=1)
        cand = np.concatenate([best_ids, np.broadcast_to(chunk_ids, sims.shape)], axis=1)
        if scores.shape[1] > k:
            keep = np.argpartition(-scores, k - 1, axis=1)[:, :k]
            scores = np.take_along_axis(scores, keep, axis=1)
            cand = np.take_along_axis(cand, keep, axis=1)
        best_scores, best_ids = scores, cand
    return [
        {str(d): float(s) for d, s in zip(best_ids[i], best_scores[i], strict=True)}
        for i in range(len(q))
    ]


def bm25_top_k(
    doc_ids: Sequence[str],
    doc_texts: Sequence[str],
    queries: Sequence[str],
    k: int,
    *,
    language: str = "en",
) -> list[dict[str, float]]:
    """Give each query's k best documents by BM25 (the ``bm25s`` package's defaults).

    Args:
        doc_ids: the corpus ids.
        doc_texts: the corpus texts, aligned with ``doc_ids``.
        queries: the query texts.
        k: how many documents to keep per query.
        language: the stop-word list ``bm25s`` uses (``"en"``; anything else: none).

    Returns:
        Per query, ``{doc_id: bm25 score}`` of its top k with a positive score (a document that
        shares no term with the query is no retrieval).
    """
    import bm25s

    if not queries or not doc_ids:
        return [{} for _ in queries]
    stopwords = "en" if language == "en" else None
    retriever = bm25s.BM25()
    corpus_tokens = bm25s.tokenize(list(doc_texts), stopwords=stopwords, show_progress=False)
    retriever.index(corpus_tokens, show_progress=False)
    # Queries as token strings, looked up in the corpus's vocabulary (ids of their own would
    # name other words); a word the corpus lacks matches nothing.
    tokens = bm25s.tokenize(
        list(queries), stopwords=stopwords, return_ids=False, show_progress=False
    )
    n = min(k, len(doc_ids))
    docs, scores = retriever.retrieve(tokens, k=n, show_progress=False, n_threads=1)
    return [
        {str(doc_ids[int(d)]): float(s) for d, s in zip(docs[i], scores[i], strict=True) if s > 0}
        for i in range(len(queries))
    ]


@dataclass(frozen=True)
class Pool:
    """One query's pool: its documents and, for the bookkeeping only, who found each.

    Attributes:
        docs: the pooled document ids, sorted (the caller shuffles them for people).
        found_by: per document, the systems whose top d held it (``"qrels"`` for a judged
            relevant document no system found).
    """

    docs: tuple[str, ...]
    found_by: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class PoolResult:
    """The pools of a set of queries, and what each system contributed.

    Attributes:
        pools: per query id, its pool.
        depth: d, the depth each system was pooled to.
        contributed: per system, documents of the pools it retrieved (summed over queries).
        unique: per system, documents only it retrieved.
    """

    pools: Mapping[str, Pool]
    depth: int
    contributed: Mapping[str, int] = field(default_factory=dict)
    unique: Mapping[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Give the record a study keeps: sizes and each system's share (no per-doc trail).

        Returns:
            ``depth``, ``queries``, ``pool_size`` (total, min, max, mean), ``contributed`` and
            ``unique`` per system.
        """
        sizes = [len(p.docs) for p in self.pools.values()]
        return {
            "depth": self.depth,
            "queries": len(sizes),
            "pool_size": {
                "total": sum(sizes),
                "min": min(sizes, default=0),
                "max": max(sizes, default=0),
                "mean": round(sum(sizes) / len(sizes), 3) if sizes else 0.0,
            },
            "contributed": dict(self.contributed),
            "unique": dict(self.unique),
        }


def merge_pools(
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    qrels: Mapping[str, Mapping[str, int]],
    depth: int,
) -> PoolResult:
    """Pool each query: the union of every system's top ``depth`` and its judged relevant docs.

    Args:
        runs: per system, per query id, ``{doc_id: score}`` (at least its top ``depth``).
        qrels: per query id, the judged grade per document (> 0: relevant).
        depth: d, how deep each system's ranking is pooled.

    Returns:
        The pools and what each system contributed.

    Raises:
        ValueError: when depth is below 1.
    """
    if depth < 1:
        raise ValueError(f"pool depth must be at least 1, got {depth}")
    systems = sorted(runs)
    contributed = dict.fromkeys([*systems, "qrels"], 0)
    unique = dict.fromkeys([*systems, "qrels"], 0)
    pools: dict[str, Pool] = {}
    for qid, judged in qrels.items():
        found: dict[str, list[str]] = {}
        for system in systems:
            ranked = sorted(
                runs[system].get(qid, {}).items(), key=lambda kv: (kv[1], kv[0]), reverse=True
            )
            for doc, _ in ranked[:depth]:
                found.setdefault(doc, []).append(system)
        for doc, grade in judged.items():
            if grade > 0 and doc not in found:
                found[doc] = ["qrels"]
        for who in found.values():
            for system in who:
                contributed[system] += 1
            if len(who) == 1:
                unique[who[0]] += 1
        pools[qid] = Pool(tuple(sorted(found)), {d: tuple(w) for d, w in sorted(found.items())})
    return PoolResult(pools, depth, contributed, unique)


def _measures(ks: Sequence[int]) -> set[str]:
    joined = ",".join(str(k) for k in ks)
    return {f"{m}.{joined}" for m in ("map_cut", "ndcg_cut", "recall", "P", "success")}


def evaluate(
    results: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    k_values: Sequence[int] = RETRIEVAL_K_VALUES,
    *,
    judged_only: bool = False,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Score a run as mteb's retrieval evaluator does, plus judged@k.

    pytrec_eval with mteb's measures, averaged over the queries and rounded to 5 decimals as
    mteb reports them; MRR@k from the ranking (score descending, ties by id descending, as
    trec_eval breaks them). ``judged_at_k``: the share of the top k that qrels judge (any grade).
    With ``judged_only`` the unjudged documents are removed from each ranking first (the
    condensed score; pytrec_eval's ``judged_docs_only_flag``).

    Args:
        results: per query id, the system's score per document.
        qrels: per query id, the judged grade per document; queries without one are not scored.
        k_values: the cut-offs.
        judged_only: score the condensed list (unjudged documents removed).

    Returns:
        The averaged scores by mteb's names (and ``judged_at_k``), and per query
        ``ndcg_at_10``, ``ap`` (MAP@1000), ``rr_at_10`` and ``judged_at_10``.

    Raises:
        ValueError: when no query of ``results`` has qrels.
    """
    import pytrec_eval

    ks = [int(k) for k in k_values]
    qrels_int = {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    runs = {
        str(q): {str(d): float(s) for d, s in docs.items()}
        for q, docs in results.items()
        if str(q) in qrels_int
    }
    if not runs:
        raise ValueError("no query of the run has qrels")
    if judged_only:
        runs = {q: {d: s for d, s in docs.items() if d in qrels_int[q]} for q, docs in runs.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_int, _measures(ks), judged_docs_only_flag=False
    )
    per_trec = evaluator.evaluate(runs)
    n = len(runs)
    scores: dict[str, float] = {}
    for name, trec in (
        ("ndcg_at", "ndcg_cut_"),
        ("map_at", "map_cut_"),
        ("recall_at", "recall_"),
        ("precision_at", "P_"),
        ("hit_rate_at", "success_"),
    ):
        for k in ks:
            total = sum(per_trec.get(q, {}).get(f"{trec}{k}", 0.0) for q in runs)
            scores[f"{name}_{k}"] = round(total / n, 5)
    per_query: dict[str, dict[str, float]] = {}
    totals_rr = dict.fromkeys(ks, 0.0)
    totals_judged = dict.fromkeys(ks, 0.0)
    for q, docs in runs.items():
        ranking = [d for d, _ in sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
        judged = qrels_int[q]
        rr = {
            k: next((1.0 / (r + 1) for r, d in enumerate(ranking[:k]) if judged.get(d, 0) > 0), 0.0)
            for k in ks
        }
        jk = {k: sum(d in judged for d in ranking[:k]) / k for k in ks}
        for k in ks:
            totals_rr[k] += rr[k]
            totals_judged[k] += jk[k]
        per_query[q] = {
            "ndcg_at_10": float(per_trec.get(q, {}).get("ndcg_cut_10", 0.0)),
            "ap": float(per_trec.get(q, {}).get("map_cut_1000", 0.0)),
            "rr_at_10": next(
                (1.0 / (r + 1) for r, d in enumerate(ranking[:10]) if judged.get(d, 0) > 0), 0.0
            ),
            "judged_at_10": sum(d in judged for d in ranking[:10]) / 10,
        }
    for k in ks:
        scores[f"mrr_at_{k}"] = totals_rr[k] / n
        scores[f"judged_at_{k}"] = totals_judged[k] / n
    return scores, per_query


def score_pool(
    query_embeddings: np.ndarray,
    candidate_embeddings: Sequence[np.ndarray],
    candidate_ids: Sequence[Sequence[str]],
    gold: Sequence[Mapping[str, int]] | None = None,
    *,
    query_ids: Sequence[str] | None = None,
    k_values: Sequence[int] = RETRIEVAL_K_VALUES,
    similarity: str = "cosine",
    main_score: str = DEFAULT_MAIN,
) -> ProcedureResult:
    """Rank each query's pool by the model's similarity and score it as mteb does.

    This is mteb's evaluation with the pool given as ``top_ranked`` (each query ranks only its
    own candidates); queries without a relevant judged document are answered but not scored
    (mteb's ``_filter_queries_without_positives``). ``scores`` hold mteb's names, the judged@k
    shares, and the condensed scores under ``condensed_*``.

    Args:
        query_embeddings: one row per query.
        candidate_embeddings: per query, one row per pooled document.
        candidate_ids: per query, the document ids in the rows' order.
        gold: per query, the judged grade per document (unjudged ones absent); None gives
            answers without scores.
        query_ids: the query ids; None numbers them from 0.
        k_values: the cut-offs (the main score's is added where missing).
        similarity: the model's similarity function.
        main_score: the subset's main score (mteb's name; nDCG@10 unless its task names
            another).

    Returns:
        Per query ``{doc_id: similarity}``, and with gold the scores (main: ``main_score``).

    Raises:
        ValueError: when the inputs differ in length or a similarity is NaN.
        InvalidInputError: for a main score no ranking gives.
    """
    k_values = with_cut_off(k_values, main_score)
    qids, answers = candidate_similarities(
        query_embeddings, candidate_embeddings, candidate_ids, query_ids, similarity
    )
    scores: dict[str, Any] | None = None
    if gold is not None:
        if len(gold) != len(qids):
            raise ValueError("gold and queries differ in length")
        qrels = {
            qid: {str(d): int(g) for d, g in gd.items()}
            for qid, gd in zip(qids, gold, strict=True)
            if any(int(g) > 0 for g in gd.values())
        }
        if qrels:
            run = {qid: answers[i] for i, qid in enumerate(qids) if qid in qrels}
            scores, _ = evaluate(run, qrels, k_values)
            condensed, _ = evaluate(run, qrels, k_values, judged_only=True)
            scores.update(
                {
                    f"condensed_{k}": v
                    for k, v in condensed.items()
                    if not k.startswith("judged_at_")
                }
            )
    return ProcedureResult(
        answers=answers,
        scores=scores,
        main_score_name=main_score,
        method=f"mteb:{similarity}+top_ranked(pool)+{trec_measure(main_score)}",
    )
