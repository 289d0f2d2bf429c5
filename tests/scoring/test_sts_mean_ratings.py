"""STS mean ratings: the table's row means are the per-item np.mean, bit for bit."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from scoring.aggregation.sts import _mean_ratings


def test_row_means_are_each_items_own_mean() -> None:
    rng = np.random.default_rng(11)
    for n_raters in range(1, 9):
        items = [f"p{i}" for i in range(200)]
        ratings: dict[str, dict[Hashable, float]] = {
            f"r{j}": {
                i: float(rng.choice([rng.random() * 5, round(rng.random() * 20) / 4]))
                for i in items
                if j == 0 or rng.random() < 0.9  # some items not rated by everyone
            }
            for j in range(n_raters)
        }
        got = _mean_ratings(items, ratings)
        assert list(got) == items
        for item in items:
            want = float(np.mean([r[item] for r in ratings.values() if item in r]))
            assert np.float64(got[item]).view(np.int64) == np.float64(want).view(np.int64)
            assert type(got[item]) is float


def test_one_annotator_score_is_the_pooled_computation() -> None:
    """Alone, an annotator's pooled score reuses their own correlation: the same numbers as
    the pooled lists give, -0.0 ratings and another order included."""
    from scoring import metrics
    from scoring.aggregation.sts import human_sts

    rng = np.random.default_rng(3)
    gold: dict[Hashable, float] = {f"p{i}": float(rng.random() * 5) for i in range(30)}
    for case in range(40):
        given: dict[Hashable, Any] = {i: float(round(rng.random() * 20) / 4) for i in gold}
        if case % 4 == 1:
            given["p3"] = -0.0
        if case % 4 == 2:
            given = dict(reversed(list(given.items())))
        s = human_sts(gold, {"a": given})
        items = [i for i in gold if i in given]
        means = [float(np.mean([given[i]])) for i in items]
        pooled = metrics.spearman([gold[i] for i in items], means)
        assert (s.value, s.details["pearson"]) == (pooled.value, pooled.details["pearson"])
        own = metrics.spearman([gold[i] for i in given], list(given.values()))
        assert s.per_rater["a"] == own.value


def test_one_annotators_means_are_np_means_signed_zeros_included() -> None:
    """Alone, an annotator's means skip the table: each is np.mean of their one rating, -0.0
    (which np.mean makes 0.0) included."""
    items = ["a", "b", "c", "d"]
    given: dict[Hashable, float] = {"a": -0.0, "b": 0.0, "c": 2.5, "d": -1.25}
    got = _mean_ratings(items, {"r": given})
    for item in items:
        want = np.mean(np.array([[given[item]]]), axis=1)[0]
        assert np.float64(got[item]).view(np.int64) == np.float64(want).view(np.int64)
        assert type(got[item]) is float
    assert np.copysign(1.0, got["a"]) == 1.0
