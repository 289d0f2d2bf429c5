"""Reranking: mteb's ``AbsTaskRetrieval`` with candidates (similarity, trec-style MAP@1000).

:func:`query_text` and :func:`document_text` are how mteb turns a reranking instance into
model input; :func:`rerank` scores ready embeddings of them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend.procedures.common import ProcedureResult, candidate_similarities

RETRIEVAL_K_VALUES = (1, 3, 5, 10, 20, 100, 1000)  # AbsTaskRetrieval.k_values

__all__ = [
    "RETRIEVAL_K_VALUES",
    "RerankingResult",
    "document_text",
    "query_text",
    "rerank",
    "retrieval_metrics",
]


@dataclass(frozen=True)
class RerankingResult(ProcedureResult):
    """``answers``: per query, ``{candidate_id: cosine}`` (the model's similarity).

    Attributes:
        rankings: per query, the candidate ids best first (ties by id descending, as trec_eval
            and mteb break them).
        query_ids: the query ids, in input order.
        per_query: per scored query, AP (trec and sklearn), RR@k and nDCG@10.
    """

    rankings: list[list[str]] = field(default_factory=list)
    query_ids: list[str] = field(default_factory=list)
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)


def _ranking(doc_scores: Mapping[str, float]) -> list[str]:
    """Ids best first; ties by id descending (trec_eval, and mteb's ``mrr`` since #5092)."""
    return [d for d, _ in sorted(doc_scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def retrieval_metrics(
    results: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    k_values: Sequence[int] = RETRIEVAL_K_VALUES,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Compute mteb's retrieval scores (``calculate_retrieval_scores``) plus exact and sklearn MAP.

    pytrec_eval gives ``map_cut``/``ndcg_cut``/``recall``/``P``/``success`` per query, averaged and
    rounded to 5 decimals as mteb reports them (``map_at_1000`` is the HUME main score); MRR@k uses
    mteb's own loop, unrounded. ``map`` is the unrounded trec MAP@1000 and ``map_sklearn`` the
    mean scikit-learn average precision (mteb v1's reranking score).

    Args:
        results: per query id, the model's score per candidate id.
        qrels: per query id, the gold relevance per candidate id (> 0: relevant); a query
            without qrels is not scored.
        k_values: the cut-offs of the ``*_at_k`` scores.

    Returns:
        The averaged scores by mteb's names, and the per-query scores.
    """
    import pytrec_eval
    from sklearn.metrics import average_precision_score

    ks = [int(k) for k in k_values]
    joined = ",".join(str(k) for k in ks)
    measures = {
        f"map_cut.{joined}",
        f"ndcg_cut.{joined}",
        f"recall.{joined}",
        f"P.{joined}",
        f"success.{joined}",
    }
    qrels_int = {q: {d: int(r) for d, r in docs.items()} for q, docs in qrels.items()}
    runs = {q: {d: float(s) for d, s in docs.items()} for q, docs in results.items()}
    per_query_trec = pytrec_eval.RelevanceEvaluator(qrels_int, measures).evaluate(runs)
    n = len(per_query_trec)
    scores: dict[str, float] = {}
    for name, trec in (
        ("ndcg_at", "ndcg_cut_"),
        ("map_at", "map_cut_"),
        ("recall_at", "recall_"),
        ("precision_at", "P_"),
        ("hit_rate_at", "success_"),
    ):
        for k in ks:
            total = sum(per_query_trec[q][f"{trec}{k}"] for q in per_query_trec)
            scores[f"{name}_{k}"] = round(total / n, 5)
    per_query: dict[str, dict[str, float]] = {}
    for q, docs in runs.items():
        if q not in qrels_int:
            continue
        ranking = _ranking(docs)
        relevant = {d for d, r in qrels_int[q].items() if r > 0}
        rr = {k: 0.0 for k in ks}
        for k in ks:
            for rank, d in enumerate(ranking[:k]):
                if d in relevant:
                    rr[k] = 1.0 / (rank + 1)
                    break
        ids = list(docs)
        y_true = [1 if qrels_int[q].get(d, 0) > 0 else 0 for d in ids]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ap_sk = float(average_precision_score(y_true, [docs[d] for d in ids]))
        per_query[q] = {
            "ap": float(per_query_trec[q]["map_cut_1000"]) if q in per_query_trec else 0.0,
            "ap_sklearn": 0.0 if math.isnan(ap_sk) else ap_sk,
            **{f"rr_at_{k}": rr[k] for k in ks},
            "ndcg_at_10": float(per_query_trec.get(q, {}).get("ndcg_cut_10", 0.0)),
        }
    for k in ks:
        scores[f"mrr_at_{k}"] = sum(p[f"rr_at_{k}"] for p in per_query.values()) / len(per_query)
    scores["map"] = sum(p["ap"] for p in per_query.values()) / len(per_query)
    scores["map_sklearn"] = sum(p["ap_sklearn"] for p in per_query.values()) / len(per_query)
    scores["accuracy"] = scores["recall_at_1"]
    return scores, per_query


def rerank(
    query_embeddings: np.ndarray,
    candidate_embeddings: Sequence[np.ndarray],
    candidate_ids: Sequence[Sequence[str]],
    gold: Sequence[Mapping[str, int]] | None = None,
    *,
    query_ids: Sequence[str] | None = None,
    k_values: Sequence[int] = RETRIEVAL_K_VALUES,
    similarity: str = "cosine",
) -> RerankingResult:
    """Rerank as mteb does: similarity(query, each candidate), then trec-style MAP@1000 and more.

    Mirrors ``SearchEncoderWrapper`` with ``top_ranked`` (``rerank_top_ranked_documents``: the
    model's similarity, one query against its candidates) and ``AbsTaskRetrieval._evaluate_subset``:
    queries whose gold is empty are dropped from the score
    (``_filter_queries_without_positives``), still answered.

    Args:
        query_embeddings: one row per query.
        candidate_embeddings: per query, one row per candidate.
        candidate_ids: per query, the candidate ids in the rows' order.
        gold: per query, the relevance per candidate id; None gives answers without scores.
        query_ids: the query ids; None numbers the queries from 0.
        k_values: the cut-offs of the ``*_at_k`` scores.
        similarity: the model's own similarity function (mteb calls ``model.similarity``);
            cosine for almost every model.

    Returns:
        The score per candidate and the ranking per query, with mteb's scores when gold is given.

    Raises:
        ValueError: when the inputs differ in length or a similarity is NaN.
    """
    qids, answers = candidate_similarities(
        query_embeddings, candidate_embeddings, candidate_ids, query_ids, similarity
    )
    rankings = [_ranking(doc_scores) for doc_scores in answers]
    scores: dict[str, float] | None = None
    per_query: dict[str, dict[str, float]] = {}
    if gold is not None:
        if len(gold) != len(qids):
            raise ValueError("gold and queries differ in length")
        qrels = {
            qid: {str(d): int(r) for d, r in g.items()}
            for qid, g in zip(qids, gold, strict=True)
            if len(g) > 0
        }
        if qrels:
            runs = {qid: answers[i] for i, qid in enumerate(qids) if qid in qrels}
            scores, per_query = retrieval_metrics(runs, qrels, k_values)
    return RerankingResult(
        answers=answers,
        scores=scores,
        main_score_name="map_at_1000",
        method=f"mteb:{similarity}+trec_eval(map_cut.1000)",
        rankings=rankings,
        query_ids=qids,
        per_query=per_query,
    )


def query_text(instance: Mapping[str, Any]) -> str:
    """Give the query as mteb feeds it: text, then `` instruction`` when the instance has one.

    Args:
        instance: the reranking instance's content (``query``, optional ``instruction``).

    Returns:
        The model's input for the query.
    """
    text = str(instance["query"])
    instruction = instance.get("instruction")
    return text + " " + str(instruction) if instruction is not None else text


def document_text(candidate: Mapping[str, Any]) -> str:
    """Give a candidate as mteb feeds it (``_corpus_to_dict``): ``title text`` or text, stripped.

    Args:
        candidate: the candidate record (``text``, optional ``title``).

    Returns:
        The model's input for the candidate.
    """
    title = candidate.get("title") or ""
    text = str(candidate.get("text") or "")
    return (title + " " + text).strip() if len(title) > 0 else text.strip()
