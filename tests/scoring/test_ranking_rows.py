"""scoring.ranking_rows gives the per-query metrics of scoring.metrics, bit for bit."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest

import scoring.metrics as metrics
from scoring import ranking_rows
from scoring.errors import InvalidInputError


def _one_by_one(queries: dict[Any, Any], k: int) -> list[tuple[float, float, float] | None]:
    out: list[tuple[float, float, float] | None] = []
    for rel, sc in queries.values():
        if not any(r == 1 for r in rel):
            out.append(None)
            continue
        out.append(
            (
                metrics.average_precision(rel, sc, method="sklearn").value,
                metrics.mrr_at_k(rel, sc, k=k, ties="input_order").value,
                metrics.ndcg_at_k(rel, sc, k=k, ties="input_order").value,
            )
        )
    return out


@pytest.mark.parametrize("k", [1, 3, 10])
def test_every_query_as_the_per_query_functions_give_it(k: int) -> None:
    rng = np.random.default_rng(5)
    queries: dict[Any, Any] = {}
    for q in range(300):
        n = int(rng.integers(1, 14))
        rel = rng.integers(0, 2, n).tolist()
        kind = q % 4
        if kind == 0:  # binary marks: HUME's case, all ties
            sc = rng.integers(0, 2, n).tolist()
        elif kind == 1:  # vote shares
            sc = (rng.integers(0, 4, n) / 3).tolist()
        elif kind == 2:  # many distinct levels (the per-row AP)
            sc = rng.normal(size=n).tolist()
        else:  # signed zeros tie
            sc = rng.choice([0.0, -0.0, 1.0], n).tolist()
        queries[f"q{q}"] = (rel, sc)
    got = ranking_rows.query_values(list(queries.items()), k)
    want = _one_by_one(queries, k)
    assert got is not None and len(got) == len(want)
    assert sum(w is None for w in want) > 0  # some queries have no relevant candidate
    for g, w in zip(got, want, strict=True):
        assert g == w  # exact floats, not approx
        assert g is None or all(type(v) is float for v in g)


def test_mean_ranking_scores_unchanged_by_the_batch() -> None:
    """The batched rule and the per-query measures give the same Scores, details included."""
    queries: dict[Hashable, Any] = {
        "a": ([1, 0, 0, 1], [1, 1, 0, 0]),
        "b": ([0, 0, 0], [1, 0, 1]),
        "c": ([0, 1, 0, 0, 0, 1, 1], [0, 1, 1, 0, 0, 0, 1]),
        "d": ([1], [0]),
    }
    for skip in (True, False):
        batched = metrics.mean_ranking_scores(queries, "sklearn", 3, "input_order", skip)
        by_query = metrics._mean_over_queries(
            queries,
            {
                "map:sklearn": lambda r, s: metrics._ap_value(r, s, "sklearn"),
                "mrr@3:input_order": lambda r, s: metrics._rr_value(r, s, 3, "input_order"),
                "ndcg@3:input_order": lambda r, s: metrics._ndcg_value(r, s, 3, "input_order"),
            },
            skip,
        )
        for x, y in zip(batched, by_query, strict=True):
            assert (x.value, x.method, x.n_items, x.details) == (
                y.value,
                y.method,
                y.n_items,
                y.details,
            )
    assert batched[0].details["no_relevant_queries"] == ["b"]


@pytest.mark.parametrize(
    ("queries", "message"),
    [
        ({"q": ([1, 2], [1, 0])}, "queries\\['q'\\]: relevance: expected binary"),
        ({"q": ([1, 0], [1, float("nan")])}, "queries\\['q'\\]: scores: contains NaN"),
        ({"q": ([1, 0], [1])}, "queries\\['q'\\]: length mismatch"),
        ({"q": ([1, 0],)}, "queries\\['q'\\]: expected a \\(relevance, scores\\) pair"),
        ({"q": ([], [])}, "queries\\['q'\\]: relevance: expected at least 1"),
    ],
)
def test_bad_queries_get_the_per_query_error(queries: dict[Hashable, Any], message: str) -> None:
    assert ranking_rows.query_values(list(queries.items()), 10) is None
    with pytest.raises(InvalidInputError, match=message):
        metrics.mean_ranking_scores(
            {"ok": ([1, 0], [1, 0]), **queries}, "sklearn", 10, "input_order"
        )
