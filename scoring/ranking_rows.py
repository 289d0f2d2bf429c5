"""Per-query AP, RR@k and nDCG@k of many reranking queries at once: HUME's human rule.

Why: an export scores every annotator's reranking marks several times (their own score, the
aggregate, the noise ceiling against the others' consensus, the LLMs), and
:func:`scoring.metrics.mean_ranking_scores` validated and scored each query in its own Python
calls, some 80 µs a query; the 3 reranking subsets of a HUME-size export spent about a tenth of
its time there (issue 38). Here the queries of one length are stacked into arrays, validated
together and scored row by row in a few array operations.

Only HUME's rule is batched: scikit-learn's AP (:func:`scoring.kernels.average_precision_rows`,
the same float as its per-query kernel) with ``input_order`` ties for RR and nDCG. Each value is
the float the per-query functions of :mod:`scoring.metrics` give, bit for bit: the same
operations on the same numbers (1/rank; gains times the same discounts, summed along a row as a
1-D sum adds them; the same ideal DCG), which ``tests/scoring/test_ranking_rows.py`` checks on
random and tied marks. Anything the per-query path would refuse (a malformed or non-finite
query, relevance other than 0/1, lengths that differ) makes :func:`query_values` return None, so
that path runs and raises its own error.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import scoring.kernels as kernels
from scoring._lazy import LazyModule

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = LazyModule("numpy")

__all__ = ["dcg_discounts", "query_values"]


def dcg_discounts(n: int) -> NDArray[Any]:
    """The DCG discounts 1 / log2(rank + 1) of ranks 1 … n.

    Args:
        n: how many ranks.

    Returns:
        The discounts, best rank first.
    """
    discounts: NDArray[Any] = 1.0 / np.log2(np.arange(2, n + 2))
    return discounts


@cache
def _discounts(n: int) -> NDArray[Any]:
    """:func:`dcg_discounts` of ``n`` ranks, computed once (read-only)."""
    discounts = dcg_discounts(n)
    discounts.setflags(write=False)
    return discounts


@cache
def _ideal_dcg(n_relevant: int, k: int) -> float:
    """The ideal DCG@k of ``n_relevant`` relevant candidates, as the per-query nDCG sums it."""
    return float(dcg_discounts(min(n_relevant, k)).sum())


def _rows(rel: NDArray[Any], sc: NDArray[Any], k: int) -> NDArray[Any]:
    """(AP, RR@k, nDCG@k) of each row, shape (rows, 3).

    ``rel`` is validated 0/1 (ints) with a relevant candidate in every row, ``sc`` finite.
    """
    ap = kernels.average_precision_rows(rel, sc)
    order = np.argsort(-sc, axis=1, kind="stable")  # input order within ties
    ranked = np.take_along_axis(rel, order, axis=1)[:, :k]
    first = np.argmax(ranked == 1, axis=1)
    rr = np.where(ranked.any(axis=1), 1.0 / (first + 1.0), 0.0)
    dcg = np.sum(ranked * _discounts(ranked.shape[1]), axis=1)
    ideal = np.array([_ideal_dcg(r, k) for r in rel.sum(axis=1).tolist()])
    return np.stack([ap, rr, dcg / ideal], axis=1)


def query_values(
    items: Sequence[tuple[Hashable, Any]], k: int
) -> list[tuple[float, float, float] | None] | None:
    """Each query's (AP, RR@k, nDCG@k) by HUME's rule, None for one without a relevant candidate.

    Args:
        items: ``(query id, (relevance, scores))`` pairs, in order.
        k: the cut-off of RR and nDCG, a positive integer.

    Returns:
        One entry per query, in the given order; None where any query is not a clean pair of
        equal-length finite 1-D numbers with 0/1 relevance (the per-query path then decides).
    """
    by_length: dict[int, list[int]] = {}
    for j, (_, pair) in enumerate(items):
        # a tuple is a Sequence: the ABC check costs ~1 µs a query (issue 38)
        if (type(pair) is not tuple and not isinstance(pair, Sequence)) or len(pair) != 2:
            return None
        try:
            n, m = len(pair[0]), len(pair[1])
        except TypeError:
            return None
        if n != m or n == 0:
            return None
        by_length.setdefault(n, []).append(j)
    out: list[tuple[float, float, float] | None] = [None] * len(items)
    for rows in by_length.values():
        try:
            rel = np.asarray([items[j][1][0] for j in rows], dtype=float)
            sc = np.asarray([items[j][1][1] for j in rows], dtype=float)
        except (TypeError, ValueError):
            return None
        if rel.ndim != 2 or sc.shape != rel.shape:
            return None
        if not (np.all(np.isfinite(rel)) and np.all(np.isfinite(sc))):
            return None
        if not np.all((rel == 0) | (rel == 1)):
            return None
        has = np.any(rel == 1, axis=1)
        if not has.any():
            continue
        values = _rows(rel[has].astype(int), sc[has], k).tolist()
        for j, row in zip(np.asarray(rows)[has].tolist(), values, strict=True):
            out[j] = (row[0], row[1], row[2])
    return out
