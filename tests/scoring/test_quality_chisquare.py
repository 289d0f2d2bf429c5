"""quality.chisquare is scipy.stats.chisquare, statistic and p-value to the bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from scoring.quality import chisquare


def test_chisquare_is_scipys() -> None:
    rng = np.random.default_rng(4)
    for _ in range(500):
        k = int(rng.integers(2, 12))
        observed = rng.integers(0, 40, k).tolist()
        if not sum(observed):
            observed[0] = 1
        weights = rng.random(k) + 0.05
        expected = (weights / weights.sum() * sum(observed)).tolist()
        want = stats.chisquare(observed, expected)
        got = chisquare(observed, expected)
        assert got == (float(want.statistic), float(want.pvalue))
        assert all(type(x) is float for x in got)


def test_sums_that_disagree_are_refused_as_scipy_refuses_them() -> None:
    with pytest.raises(ValueError, match="sum of the observed frequencies must agree") as ours:
        chisquare([5, 5], [5, 6])
    with pytest.raises(ValueError) as theirs:
        stats.chisquare([5, 5], [5, 6])
    assert str(ours.value) == str(theirs.value)
