"""STS's Spearman of rank codes from draw counts (scoring.spearman_counts): the floats of the
gathered kernel bit for bit, in the resamples, the jackknife and the full sample; both near
``scipy.stats.spearmanr``, the library reference (scipy divides by the two deviations in the
other order, so it may differ in the last bit); and the gathered way where the form cannot
promise those floats."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr

from scoring import intervals, kernels
from scoring.score_memo import shared_scores
from scoring.spearman_counts import spearman_of_code_counts


def _counts(draws: Any, n: int) -> Any:
    """counts[r, i] = how often item i is in resample r."""
    rows = np.arange(len(draws))[:, None] * n
    return np.bincount((rows + draws).ravel(), minlength=len(draws) * n).reshape(-1, n) * 1.0


def _pairs(seed: int, n: int) -> Any:
    rng = np.random.default_rng(seed)
    # few rating levels, so ties and (for small n) constant resamples occur
    return np.column_stack([rng.integers(0, 26, n) / 5, rng.integers(0, 4, n) / 2])


@pytest.mark.parametrize("seed", range(6))
def test_counts_form_is_the_gathered_kernel_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    codes = kernels.rank_codes(_pairs(seed, n))
    for rows in (1, 7, 299, 300, 2000):  # both ways of taking the running totals
        draws = rng.integers(0, n, size=(rows, n))
        gathered = kernels.spearman_of_codes(codes[draws])
        counted = spearman_of_code_counts(codes, _counts(draws, n))
        assert counted is not None
        assert gathered.tobytes() == counted.tobytes()
    jack = intervals._leave_one_out(np.arange(n), n)
    counted = spearman_of_code_counts(codes, 1.0 - np.eye(n))
    assert counted is not None
    assert kernels.spearman_of_codes(codes[jack]).tobytes() == counted.tobytes()
    whole = spearman_of_code_counts(codes, np.ones((1, n)))
    assert whole is not None
    assert whole.tobytes() == kernels.spearman_of_codes(codes[None]).tobytes()


def test_counts_form_is_scipys_spearman_and_nan_where_constant() -> None:
    pairs = _pairs(11, 8)
    codes = kernels.rank_codes(pairs)
    draws = np.random.default_rng(0).integers(0, 8, size=(500, 8))
    values = spearman_of_code_counts(codes, _counts(draws, 8))
    assert values is not None
    reference = []
    for row in draws:
        x, y = pairs[row, 0], pairs[row, 1]
        constant = (x == x[0]).all() or (y == y[0]).all()
        reference.append(np.nan if constant else spearmanr(x, y).statistic)
    assert np.isnan(reference).sum() > 0  # the case is exercised
    np.testing.assert_allclose(values, reference, rtol=0, atol=1e-15)
    assert np.array_equal(np.isnan(values), np.isnan(reference))


def test_bootstrap_takes_the_counts_form_and_gives_the_gathered_interval() -> None:
    """The marked statistic goes the counts way; the interval is the gathered one's, bit for
    bit, BCa's jackknife included."""
    assert kernels.counts_form_of(kernels.spearman_of_codes) is not None
    codes = kernels.rank_codes(_pairs(5, 40))

    @intervals.vectorized
    def gathered(x: Any) -> Any:
        return kernels.spearman_of_codes(x)

    one = intervals.bootstrap(codes, kernels.spearman_of_codes, seed=3, vectorized=True)
    other = intervals.bootstrap(codes, gathered, seed=3, vectorized=True)
    assert one == other
    assert one.method == "bootstrap:bca"


def test_read_only_counts_keep_their_values() -> None:
    """Within one subset's evaluation, the bootstrap's cached draw counts (read-only) keep their
    values (the panel's mean annotator asks again), read-only too, and so do the full sample's;
    other writable counts, and any call outside the block, are computed afresh."""
    codes = kernels.rank_codes(_pairs(2, 30))
    counts = intervals._draw_counts(7, 30, 2000)
    with shared_scores():
        first = spearman_of_code_counts(codes, counts)
        again = spearman_of_code_counts(codes, counts)
        assert first is not None and again is first and not first.flags.writeable
        fresh = spearman_of_code_counts(codes, counts.copy())
        assert fresh is not None and fresh is not first and fresh.tobytes() == first.tobytes()
        whole = spearman_of_code_counts(codes, np.ones((1, 30)))  # the full sample: kept too
        assert whole is not None and spearman_of_code_counts(codes, np.ones((1, 30))) is whole
        assert whole.tobytes() == kernels.spearman_of_codes(codes[None]).tobytes()
        twice = spearman_of_code_counts(codes, np.full((1, 30), 2.0))  # not the full sample
        assert twice is not None and twice is not whole
    outside = spearman_of_code_counts(codes, counts)
    assert outside is not None and outside is not first and outside.tobytes() == first.tobytes()


def test_records_or_counts_it_cannot_take_go_the_gathered_way() -> None:
    codes = kernels.rank_codes(_pairs(1, 10))
    counts = np.ones((3, 10))
    assert spearman_of_code_counts(codes.astype(float), counts) is None
    assert spearman_of_code_counts(codes[:, :1], counts) is None
    assert spearman_of_code_counts(codes, counts[:, :9]) is None
    assert spearman_of_code_counts(codes, counts * 0.5) is None
    assert spearman_of_code_counts(codes, np.full((3, 10), np.nan)) is None
    assert spearman_of_code_counts(codes, np.full((1, 10), 2.0**20)) is None  # sums past 2**53


def test_work_arrays_kept_between_calls_change_no_value() -> None:
    """Two subsets' records of one size, taken in turn on writable counts of one shape (so the
    same work arrays serve both): each time the gathered kernel's floats."""
    draws = np.random.default_rng(4).integers(0, 40, size=(2000, 40))
    counts = _counts(draws, 40)
    one, other = (kernels.rank_codes(_pairs(seed, 40)) for seed in (20, 21))
    for codes in (one, other, one, other):
        counted = spearman_of_code_counts(codes, counts)
        assert counted is not None
        assert counted.tobytes() == kernels.spearman_of_codes(codes[draws]).tobytes()
