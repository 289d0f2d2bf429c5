"""Clustering: mteb's ``AbsTaskClusteringLegacy`` (MiniBatchKMeans, V-measure) on one set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ml_backend.procedures.common import SEED, Label, ProcedureResult

KMEANS_BATCH_SIZE = 500  # ClusteringEvaluator(clustering_batch_size=500)

__all__ = ["KMEANS_BATCH_SIZE", "ClusteringResult", "cluster", "clustering_metrics"]


@dataclass(frozen=True)
class ClusteringResult(ProcedureResult):
    """``answers``: cluster id (0..K-1) per item, in input order.

    Attributes:
        n_clusters: K, the number of clusters asked of k-means.
    """

    n_clusters: int = 0


def cluster(
    embeddings: np.ndarray,
    gold_labels: Sequence[Label] | None = None,
    *,
    n_clusters: int | None = None,
    seed: int = SEED,
) -> ClusteringResult:
    """Cluster one set as mteb's (legacy) clustering does: MiniBatchKMeans, K = gold label count.

    Mirrors ``ClusteringEvaluator`` as ``AbsTaskClusteringLegacy`` (all HUME clustering tasks) runs
    it on a text set: ``MiniBatchKMeans(n_clusters=K, batch_size=500, n_init="auto",
    compute_labels=True, random_state=seed)`` fitted on the items in their given order (order
    matters), V-measure against gold. A set with one gold label scores 1.0 unclustered, as mteb.

    Args:
        embeddings: one row per item, in the order k-means sees them.
        gold_labels: the gold label per item; None gives the assignment without scores.
        n_clusters: K; None takes the number of distinct gold labels.
        seed: k-means' ``random_state``.

    Returns:
        The cluster id per item, the scores when ``gold_labels`` is given, and K.

    Raises:
        ValueError: when neither K nor gold labels are given, the gold labels differ in length
            from the embeddings, or K exceeds the number of items.
    """
    from sklearn.cluster import MiniBatchKMeans

    x = np.asarray(embeddings)
    if n_clusters is None:
        if gold_labels is None:
            raise ValueError("give n_clusters or gold_labels")
        n_clusters = len(set(gold_labels))
    if gold_labels is not None and len(gold_labels) != len(x):
        raise ValueError("gold_labels and embeddings differ in length")
    if n_clusters > len(x):
        raise ValueError(f"cannot make {n_clusters} clusters from {len(x)} items")
    if n_clusters <= 1:
        answers = [0] * len(x)
    else:
        model = MiniBatchKMeans(
            n_clusters=n_clusters,
            batch_size=KMEANS_BATCH_SIZE,
            n_init="auto",
            compute_labels=True,
            random_state=seed,
        )
        model.fit(x)
        answers = [int(c) for c in model.labels_.tolist()]
    scores = None
    if gold_labels is not None:
        scores = clustering_metrics(list(gold_labels), answers)
    return ClusteringResult(
        answers=answers,
        scores=scores,
        main_score_name="v_measure",
        method=f"mteb:minibatch_kmeans(k={n_clusters},batch_size={KMEANS_BATCH_SIZE},"
        f"n_init=auto,seed={seed})+v_measure",
        n_clusters=n_clusters,
    )


def clustering_metrics(gold: Sequence[Label], assignment: Sequence[int]) -> dict[str, float]:
    """Score an assignment: V-measure (mteb's main score), NMI, ARI and cluster accuracy.

    NMI, ARI and cluster accuracy are what mteb's non-text path adds.

    Args:
        gold: the gold label per item.
        assignment: the cluster id per item, in the same order.

    Returns:
        The scores by mteb's names; only ``v_measure`` (1.0) for a set with one gold label.
    """
    from scipy.optimize import linear_sum_assignment
    from sklearn import metrics

    if len(set(gold)) <= 1:  # AbsTaskClusteringLegacy: such a set is not clustered, v_measure 1.0
        return {"v_measure": 1.0}
    matrix = metrics.confusion_matrix([str(g) for g in gold], [str(a) for a in assignment])
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return {
        "v_measure": float(metrics.cluster.v_measure_score(gold, assignment)),
        "nmi": float(metrics.cluster.normalized_mutual_info_score(gold, assignment)),
        "ari": float(metrics.cluster.adjusted_rand_score(gold, assignment)),
        "cluster_accuracy": float(matrix[rows, cols].sum() / len(gold)),
    }
