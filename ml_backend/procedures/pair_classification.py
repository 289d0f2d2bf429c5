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

__all__ = [
    "DEFAULT_MAIN_SCORE",
    "METRICS",
    "MTEB_TYPE",
    "SCORE_FUNCTIONS",
    "PairClassificationResult",
    "best_f1_threshold",
    "check_gold",
    "compute_metrics",
    "decision",
    "gold_free_threshold",
    "metric_values",
    "pair_classify",
    "pair_distances",
    "pair_texts",
    "run_pair_classification",
]


@dataclass(frozen=True)
class PairClassificationResult(ProcedureResult):
    """``answers``: cosine similarity per pair (what mteb's ``cosine_*`` metrics rank).

    Attributes:
        distances: the five per-pair scores mteb's evaluator returns (its prediction file).
        thresholds: with gold, mteb's best-accuracy and best-F1 threshold per score function
            (``cosine_accuracy_threshold`` ...).
        labels: with gold, each pair's decision (1/0) at the cosine best-accuracy threshold, so
            that ``mean(labels == gold)`` is ``cosine_accuracy``; None without gold (the
            threshold needs it).
    """

    distances: dict[str, list[float]] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    labels: list[int] | None = None


def pair_distances(
    embeddings1: np.ndarray, embeddings2: np.ndarray, similarity: str = "cosine"
) -> dict[str, list[float]]:
    """Compute the five per-pair scores as ``PairClassificationEvaluator.__call__`` does.

    Pass embeddings in the encoder's dtype (float32): every score is computed in it, as mteb does.

    Args:
        embeddings1: the first text of each pair, one row per pair (2-D).
        embeddings2: the second text of each pair, in the same order and shape.
        similarity: the model's own similarity function (mteb calls the model's
            ``similarity_pairwise``; for sentence-transformers models that is
            :func:`ml_backend.procedures.common.pairwise_similarity`).

    Returns:
        Per score name (``cosine_scores``, ``manhattan_distances``, ...), one value per pair.

    Raises:
        ValueError: when the arrays are not 2-D and alike, or hold no pair.
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
    """Find the best F1 over thresholds, as mteb's ``_find_best_f1_and_threshold``.

    Args:
        scores: one score per pair.
        labels: the gold 0/1 label per pair.
        high_score_more_similar: whether a higher score means "more similar" (False for a
            distance).

    Returns:
        ``(best F1, its precision, its recall, threshold)``; a threshold never splits tied scores.
    """
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
    """Score one score function (``_compute_metrics_values``), with its two thresholds.

    Args:
        scores: one score per pair.
        labels: the gold 0/1 label per pair.
        high_score_more_similar: whether a higher score means "more similar" (False for a
            distance).

    Returns:
        The metrics of :data:`METRICS`, and the best-accuracy and best-F1 thresholds.
    """
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
    """Read gold labels as mteb does (int64), after checking they are 0/1 with both present.

    mteb would silently score other values; a study must not (a label 2 or a missing class
    means the source was read wrongly).

    Args:
        gold: the gold label per pair.

    Returns:
        The labels as an int64 array.

    Raises:
        ValueError: for a label other than 0 or 1 (booleans included), or only one of them.
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
    """Compute mteb's scores (``_compute_metrics``) and the thresholds behind them.

    Args:
        distances: the five per-pair scores, as :func:`pair_distances` returns them.
        gold: the gold 0/1 label per pair.

    Returns:
        The scores (``<fn>_<metric>`` and ``max_<metric>``) and the thresholds
        (``<fn>_accuracy_threshold``, ``<fn>_f1_threshold``).

    Raises:
        ValueError: for bad gold (see :func:`check_gold`) or a score list of another length.
    """
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
    """Classify pairs as mteb does, on ready embeddings: answers and, with gold, its scores.

    Args:
        embeddings1: the first text of each pair, one row per pair.
        embeddings2: the second text of each pair, in the same order and shape.
        gold: the gold 0/1 label per pair; None gives answers without scores or decisions.
        similarity: the model's own similarity function.
        main_score: the score mteb reports as the task's main score.

    Returns:
        The cosine per pair, with the five scores, and with gold mteb's scores, thresholds and
        the decisions at the cosine best-accuracy threshold.

    Raises:
        ValueError: for bad embeddings or gold, or an unknown ``main_score``.
    """
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
    """Split pairs into their two columns of texts, each embedded in one encode call (as mteb).

    Args:
        contents: the instances' contents (``sentence1``, ``sentence2``).

    Returns:
        The first texts and the second texts, in the instances' order.
    """
    return [str(c["sentence1"]) for c in contents], [str(c["sentence2"]) for c in contents]


def run_pair_classification(
    encoder: Encoder,
    contents: Sequence[Mapping[str, Any]],
    gold: Sequence[Any] | None = None,
    *,
    task_name: str | None = None,
    main_score: str = DEFAULT_MAIN_SCORE,
) -> PairClassificationResult:
    """Embed pairs as mteb does and score them.

    Args:
        encoder: the embedding model.
        contents: the instances' contents (``sentence1``, ``sentence2``).
        gold: the gold 0/1 label per pair; None gives answers without scores.
        task_name: the mteb task's name, for the encoder's prompt table.
        main_score: the score mteb reports as the task's main score.

    Returns:
        What :func:`pair_classify` returns on the two columns' embeddings.
    """
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
    """Decide one pair at a threshold as mteb's accuracy counts it.

    The inequality is strict: a threshold is always a midpoint between two different scores, so
    no pair sits on it.

    Args:
        score: the pair's score.
        threshold: the cut.
        high_score_more_similar: whether a higher score means "more similar" (False for a
            distance).

    Returns:
        1 when the pair is on the "similar" side of the cut, else 0.
    """
    return int(score > threshold) if high_score_more_similar else int(score < threshold)


def gold_free_threshold(cosines: Sequence[float]) -> float:
    """Give the cut used for decisions when no gold is given: the median cosine of the subset.

    A study samples pairs balanced between the two labels (the type's study rules), so calling the
    upper half Yes is the decision rule that matches the design without looking at gold.

    Args:
        cosines: the cosine per pair of the subset.

    Returns:
        Their median.
    """
    return float(np.median(np.asarray(cosines, dtype=float)))
