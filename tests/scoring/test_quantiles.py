"""intervals.quantiles is np.quantile (linear method) to the last bit."""

from __future__ import annotations

import numpy as np

from scoring.intervals import quantiles


def test_quantiles_are_numpys() -> None:
    rng = np.random.default_rng(2)
    fixed = [[0.025, 0.975], [0.0, 1.0], [1e-12, 1 - 1e-16], [0.5, 0.5]]
    for t in range(3000):
        n = int(rng.integers(1, 2500))
        values = [
            rng.normal(size=n),
            rng.integers(0, 30, n) / 30,  # bootstrap accuracies: many ties
            rng.random(n) ** 3,
        ][t % 3]
        levels = fixed[t % 4] if t % 2 else rng.random(2).tolist()
        before = values.copy()
        want = np.quantile(values, levels)
        got = quantiles(values, levels)
        assert np.array_equal(np.asarray(got).view(np.int64), want.view(np.int64))
        assert all(type(x) is float for x in got)
        assert np.array_equal(values, before)  # the input is left as it was
