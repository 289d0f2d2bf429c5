"""STS mean ratings: the table's row means are the per-item np.mean, bit for bit."""

from __future__ import annotations

from collections.abc import Hashable

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
