"""scoring.rank_small against the NumPy kernels it stands in for (bit for bit) and scipy's
``spearmanr`` / ``kendalltau`` (the references, to 1e-12), on short vectors with ties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from scoring import kernels
from scoring.agreement._clustering_sts import _kendall, _spearman
from scoring.rank_small import MAX_SMALL, kendall_tau_b_small, spearman_rho_small

# marks on a small scale, so that ties are common; halves and large values for rounding
_values = st.one_of(
    st.integers(0, 3).map(float),
    st.sampled_from([0.5, 1.5, 1e9, -2.25, 1e-7]),
    st.floats(-100, 100, allow_nan=False),
)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[list[float], list[float]]:
    n = draw(st.integers(2, MAX_SMALL))
    x = draw(st.lists(_values, min_size=n, max_size=n))
    y = draw(st.lists(_values, min_size=n, max_size=n))
    return x, y


@settings(max_examples=400, deadline=None)
@given(_pairs())
def test_same_bits_as_the_kernels(pair: tuple[list[float], list[float]]) -> None:
    x, y = pair
    ax, ay = np.array(x), np.array(y)
    constant = len(set(x)) == 1 or len(set(y)) == 1
    tau = kendall_tau_b_small(x, y)
    expected_tau = kernels.kendall_tau_b(ax, ay)
    assert (math.isnan(tau) and math.isnan(expected_tau)) or tau == expected_tau
    if constant:
        assert math.isnan(_spearman(x, y)) and math.isnan(_kendall(x, y))
        return
    rho = spearman_rho_small(x, y)
    assert rho == kernels.spearman(ax, ay)[0]
    assert _spearman(x, y) == rho and _kendall(x, y) == tau


def test_worked_example_and_scipy() -> None:
    """x = (1, 2, 2, 3), y = (1, 3, 2, 4): ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4), centred
    (−1.5, 0, 0, 1.5) and (−1.5, 0.5, −0.5, 1.5); Σab = 4.5, Σa² = 4.5, Σb² = 5, so
    ρ = 4.5 / sqrt(4.5 · 5) = 0.9486…; τ-b: of 6 pairs, 5 concordant, 0 discordant, 1 tied in
    x only: 5 / sqrt(5 · 6) = 0.9128…"""
    x, y = [1.0, 2.0, 2.0, 3.0], [1.0, 3.0, 2.0, 4.0]
    assert spearman_rho_small(x, y) == pytest.approx(4.5 / math.sqrt(4.5 * 5), abs=1e-15)
    assert kendall_tau_b_small(x, y) == pytest.approx(5 / math.sqrt(30), abs=1e-15)
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(3, MAX_SMALL + 1))
        a, b = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        if len(set(a)) == 1 or len(set(b)) == 1:
            continue
        assert spearman_rho_small(a.tolist(), b.tolist()) == pytest.approx(
            stats.spearmanr(a.tolist(), b.tolist()).statistic, abs=1e-12
        )
        assert kendall_tau_b_small(a.tolist(), b.tolist()) == pytest.approx(
            stats.kendalltau(a.tolist(), b.tolist()).statistic, abs=1e-12
        )


def test_long_or_non_finite_vectors_go_to_the_kernels() -> None:
    """Past MAX_SMALL values (or with a NaN) the NumPy kernels answer, as before."""
    rng = np.random.default_rng(1)
    x, y = rng.random(MAX_SMALL + 5), rng.random(MAX_SMALL + 5)
    assert _spearman(list(x), list(y)) == kernels.spearman(x, y)[0]
    assert _kendall(list(x), list(y)) == kernels.kendall_tau_b(x, y)
