"""Pair classification: a model scored exactly as mteb 2.x scores ``PairClassification``.

Mirrors ``mteb._evaluators.pair_classification_evaluator.PairClassificationEvaluator`` and
``mteb.abstasks.pair_classification.AbsTaskPairClassification._compute_metrics``, so that a
model's answers shown to a study and its score on the study's pairs are the numbers mteb itself
reports (``tests/hume_sync/task_types/test_pair_classification_model.py`` runs mteb's own task
class on the same pairs and compares every metric):

* each column of texts is embedded in its own encode call, without a query/passage role;
* five pair scores: the model's own similarity (``similarity``), cosine
  (``1 - sklearn.paired_cosine_distances``), Manhattan and Euclidean *distances* (lower = more
  similar) and the dot product (``np.dot`` per pair);
* per score: the best accuracy over thresholds, the best F1 (with its precision and recall),
  and scikit-learn's average precision (distances negated); a threshold never splits tied scores;
* ``max_<metric>``: the best of the five for each metric. mteb's main score is ``max_ap`` for
  almost every pair-classification task (``max_accuracy`` for a few, e.g. LegalBenchPC).

Two caveats a report must carry: mteb picks the accuracy and F1 thresholds *on the evaluation
pairs themselves* (an oracle threshold), and ``max_*`` picks the best similarity function after
seeing gold. Both flatter the model compared with a human, who answers each pair without either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend.encoders import Encoder
from ml_backend.procedures.common import ProcedureResult, pairwise_similarity
from scoring.aggregation.pair_classification import best_accuracy_threshold

#: mteb's metric names per pair score (``_compute_metrics_values``), in mteb's order.
METRICS: tuple[str, ...] = ("accuracy", "f1", "precision", "recall", "ap")
#: The pair scores in mteb's order, and whether a higher value means "more similar".
SCORE_FUNCTIONS: tuple[tuple[str, str, bool], ...] = (
    ("similarity", "similarity_scores", True),
    ("cosine", "cosine_scores", True),
    ("manhattan", "manhattan_distances", False),
    ("euclidean", "euclidean_distances", False),
    ("dot", "dot_scores", True),
)
#: mteb's main score for most ``PairClassification`` tasks.
DEFAULT_MAIN_SCORE = "max_ap"
#: mteb's task type name, passed to the encoder (its prompt tables are keyed by it).
MTEB_TYPE = "PairClassification"


@dataclass(frozen=True)
class PairClassificationResult(ProcedureResult):
    """``answers``: cosine similarity per pair (what mteb's ``cosine_*`` metrics rank).

    ``distances``: the five per-pair scores mteb's evaluator returns (its prediction file).
    ``thresholds``: with gold, mteb's best-accuracy and best-F1 threshold per score function
    (``cosine_accuracy_threshold`` ...). ``labels``: with gold, each pair's decision (1/0) at the
    cosine best-accuracy threshold, so that ``mean(labels == gold)`` is ``cosine_accuracy``;
    None without gold (the threshold needs it).
    """

    distances: dict[str, list[float]] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    labels: list[int] | None = None


def pair_distances(
    embeddings1: np.ndarray, embeddings2: np.ndarray, similarity: str = "cosine"
) -> dict[str, list[float]]:
    """The five per-pair scores, computed as ``PairClassificationEvaluator.__call__`` does.

    ``similarity`` is the model's own similarity function (mteb calls the model's
    ``similarity_pairwise``; for sentence-transformers models that is
    :func:`ml_backend.procedures.common.pairwise_similarity`). Pass embeddings in the encoder's
    dtype (float32): every score is computed in it, as mteb does.
    """
    from sklearn.metrics.pairwise import (
        paired_cosine_distances,
        paired_euclidean_distances,
        paired_manhattan_distances,
    )

    e1, e2 = np.asarray(embeddings1), np.asarray(embeddings2)
    if e1.ndim != 2 or e1.shape != e2.shape:
        raise ValueError(
            f"the two embedding arrays must be 2-D and alike, got {e1.shape}, {e2.shape}"
        )
    if len(e1) == 0:
        raise ValueError("no pairs to score")
    cosine = 1 - paired_cosine_distances(e1, e2)
    manhattan = paired_manhattan_distances(e1, e2)
    euclidean = paired_euclidean_distances(e1, e2)
    own = pairwise_similarity(e1, e2, similarity)
    # np.dot per pair, not a vectorised sum: the same BLAS call as mteb, so the same bits.
    dot = np.asarray([np.dot(e1[i], e2[i]) for i in range(len(e1))])
    return {
        "cosine_scores": cosine.tolist(),
        "euclidean_distances": euclidean.tolist(),
        "manhattan_distances": manhattan.tolist(),
        "similarity_scores": np.asarray(own).tolist(),
        "dot_scores": dot.tolist(),
    }


def best_f1_threshold(
    scores: Sequence[float], labels: np.ndarray, high_score_more_similar: bool
) -> tuple[float, float, float, float]:
    """(best F1, its precision, its recall, threshold) as ``_find_best_f1_and_threshold``."""
    rows = sorted(
        zip(scores, labels, strict=True), key=lambda x: x[0], reverse=high_score_more_similar
    )
    best_f1 = best_precision = best_recall = 0.0
    threshold = 0.0
    ncorrect = 0
    total_num_duplicates = sum(labels)
    for i, (score, label) in enumerate(rows[:-1]):
        if label == 1:
            ncorrect += 1
        if score == rows[i + 1][0]:
            continue
        if ncorrect > 0:
            precision = ncorrect / (i + 1)
            recall = ncorrect / total_num_duplicates
            f1 = 2 * precision * recall / (precision + recall)
            if f1 > best_f1:
                best_f1 = f1
                best_precision = precision
                best_recall = recall
                threshold = (rows[i][0] + rows[i + 1][0]) / 2
    return best_f1, best_precision, best_recall, threshold


def metric_values(
    scores: Sequence[float], labels: np.ndarray, high_score_more_similar: bool
) -> tuple[dict[str, float], dict[str, float]]:
    """One score function's metrics (``_compute_metrics_values``) and its two thresholds."""
    from sklearn.metrics import average_precision_score

    acc, acc_threshold = best_accuracy_threshold(scores, labels, high_score_more_similar)
    f1, precision, recall, f1_threshold = best_f1_threshold(scores, labels, high_score_more_similar)
    ap = average_precision_score(labels, np.array(scores) * (1 if high_score_more_similar else -1))
    values = {
        "accuracy": float(acc),
        "f1": float(f1),
        "precision": float(precision),
        "recall": float(recall),
        "ap": float(ap),
    }
    return values, {"accuracy_threshold": float(acc_threshold), "f1_threshold": float(f1_threshold)}


def check_gold(gold: Sequence[Any]) -> np.ndarray:
    """Gold labels as mteb reads them (int64), after checking they are 0/1 with both present.

    mteb would silently score other values; a study must not (a label 2 or a missing class
    means the source was read wrongly).
    """
    values = list(gold)
    if any(isinstance(g, bool) or g not in (0, 1) for g in values):
        bad = [g for g in values if isinstance(g, bool) or g not in (0, 1)][:5]
        raise ValueError(f"pair labels must be 0 or 1, got {bad!r}")
    labels = np.asarray(values, dtype=np.int64)
    if labels.min() == labels.max():
        raise ValueError(f"gold has only label {int(labels[0])}: AP and F1 are undefined")
    return labels


def compute_metrics(
    distances: Mapping[str, Sequence[float]], gold: Sequence[Any]
) -> tuple[dict[str, float], dict[str, float]]:
    """mteb's scores (``_compute_metrics``: ``<fn>_<metric>`` and ``max_<metric>``) and the
    thresholds behind them (``<fn>_accuracy_threshold``, ``<fn>_f1_threshold``)."""
    labels = check_gold(gold)
    scores: dict[str, float] = {}
    thresholds: dict[str, float] = {}
    best: dict[str, list[float]] = {m: [] for m in METRICS}
    for short_name, key, higher in SCORE_FUNCTIONS:
        if len(distances[key]) != len(labels):
            raise ValueError(f"{key}: {len(distances[key])} scores for {len(labels)} labels")
        values, cuts = metric_values(distances[key], labels, higher)
        for metric, value in values.items():
            scores[f"{short_name}_{metric}"] = value
            best[metric].append(value)
        for name, cut in cuts.items():
            thresholds[f"{short_name}_{name}"] = cut
    for metric in METRICS:
        scores[f"max_{metric}"] = max(best[metric])
    return scores, thresholds


def pair_classify(
    embeddings1: np.ndarray,
    embeddings2: np.ndarray,
    gold: Sequence[Any] | None = None,
    *,
    similarity: str = "cosine",
    main_score: str = DEFAULT_MAIN_SCORE,
) -> PairClassificationResult:
    """mteb's pair classification on ready embeddings; answers and, with gold, its scores."""
    distances = pair_distances(embeddings1, embeddings2, similarity)
    scores: dict[str, Any] | None = None
    thresholds: dict[str, float] = {}
    labels: list[int] | None = None
    if gold is not None:
        scores, thresholds = compute_metrics(distances, gold)
        if main_score not in scores:
            raise ValueError(f"unknown main score {main_score!r}; expected one of {list(scores)}")
        cut = thresholds["cosine_accuracy_threshold"]
        labels = [int(s > cut) for s in distances["cosine_scores"]]
    return PairClassificationResult(
        answers=list(distances["cosine_scores"]),
        scores=scores,
        main_score_name=main_score,
        method=f"mteb:pair_classification(best_threshold_on_eval_pairs;main={main_score})",
        distances=distances,
        thresholds=thresholds,
        labels=labels,
    )


def pair_texts(contents: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """The two columns of texts, each embedded in one encode call (as mteb's evaluator)."""
    return [str(c["sentence1"]) for c in contents], [str(c["sentence2"]) for c in contents]


def run_pair_classification(
    encoder: Encoder,
    contents: Sequence[Mapping[str, Any]],
    gold: Sequence[Any] | None = None,
    *,
    task_name: str | None = None,
    main_score: str = DEFAULT_MAIN_SCORE,
) -> PairClassificationResult:
    """Embed ``contents`` ({"sentence1", "sentence2"}) as mteb does and score them."""
    first, second = pair_texts(contents)
    kw: dict[str, Any] = {"role": None, "task_type": MTEB_TYPE, "task_name": task_name}
    e1 = encoder.encode(first, **kw)
    e2 = encoder.encode(second, **kw)
    return pair_classify(
        e1,
        e2,
        gold,
        similarity=getattr(encoder, "similarity_fn_name", None) or "cosine",
        main_score=main_score,
    )


def decision(score: float, threshold: float, *, high_score_more_similar: bool = True) -> int:
    """The 1/0 decision mteb's accuracy counts for one pair at a threshold (strict inequality:
    a threshold is always a midpoint between two different scores, so no pair sits on it)."""
    return int(score > threshold) if high_score_more_similar else int(score < threshold)


def gold_free_threshold(cosines: Sequence[float]) -> float:
    """The cut used for decisions when no gold is given: the median cosine of the subset.

    A study samples pairs balanced between the two labels (the type's study rules), so calling the
    upper half Yes is the decision rule that matches the design without looking at gold.
    """
    return float(np.median(np.asarray(cosines, dtype=float)))
