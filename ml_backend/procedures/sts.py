"""STS: mteb's ``AbsTaskSTS`` (cosine per pair, correlations against normalised gold)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ml_backend.procedures.common import ProcedureResult, pairwise_similarity

__all__ = ["STSResult", "sts"]


@dataclass(frozen=True)
class STSResult(ProcedureResult):
    """``answers``: cosine similarity per pair (float32 values, as mteb computes them)."""


def sts(
    embeddings1: np.ndarray,
    embeddings2: np.ndarray,
    gold: Sequence[float] | None = None,
    *,
    min_score: float = 0.0,
    max_score: float = 5.0,
    similarity: str = "cosine",
) -> STSResult:
    """Score STS as mteb does: cosine per pair, Pearson/Spearman against gold normalised to [0, 1].

    Mirrors ``AnySTSEvaluator`` + ``AbsTaskSTS._calculate_scores``: cosine is
    ``1 - sklearn.paired_cosine_distances`` in the embeddings' dtype (main score
    ``cosine_spearman``); Manhattan and Euclidean are negated distances; ``pearson``/``spearman``
    use the model's own ``similarity`` function, as mteb's ``similarity_pairwise``.

    Args:
        embeddings1: the first text of each pair, one row per pair.
        embeddings2: the second text of each pair, in the same order and shape.
        gold: the gold score per pair; None gives the answers without scores.
        min_score: the lowest score of the gold scale (maps to 0).
        max_score: the highest score of the gold scale (maps to 1).
        similarity: the model's own similarity function (``"cosine"``, ``"dot"``, ...), for the
            ``pearson``/``spearman`` scores.

    Returns:
        The cosine per pair as answers, and the correlations when ``gold`` is given.

    Raises:
        ValueError: when the two arrays differ in shape or ``gold`` in length.
    """
    from scipy.stats import pearsonr, spearmanr
    from sklearn.metrics.pairwise import (
        paired_cosine_distances,
        paired_euclidean_distances,
        paired_manhattan_distances,
    )

    e1, e2 = np.asarray(embeddings1), np.asarray(embeddings2)
    if e1.shape != e2.shape:
        raise ValueError("the two embedding arrays differ in shape")
    cosine = (1 - paired_cosine_distances(e1, e2)).tolist()
    scores = None
    if gold is not None:
        if len(gold) != len(cosine):
            raise ValueError("gold and embeddings differ in length")
        span = max_score - min_score
        normalized = [(float(x) - min_score) / span for x in gold]
        manhattan = (-paired_manhattan_distances(e1, e2)).tolist()
        euclidean = (-paired_euclidean_distances(e1, e2)).tolist()

        def corr(values: list[float]) -> tuple[float, float]:
            return float(pearsonr(normalized, values)[0]), float(spearmanr(normalized, values)[0])

        cos_p, cos_s = corr(cosine)
        man_p, man_s = corr(manhattan)
        euc_p, euc_s = corr(euclidean)
        own_p, own_s = corr(pairwise_similarity(e1, e2, similarity).tolist())
        scores = {
            "pearson": own_p,
            "spearman": own_s,
            "cosine_pearson": cos_p,
            "cosine_spearman": cos_s,
            "manhattan_pearson": man_p,
            "manhattan_spearman": man_s,
            "euclidean_pearson": euc_p,
            "euclidean_spearman": euc_s,
        }
    return STSResult(
        answers=cosine,
        scores=scores,
        main_score_name="cosine_spearman",
        method="mteb:cosine+spearman",
    )
