"""Tests of scoring.intervals: reference values, independent cross-checks, exact coverage,
bootstrap determinism and every BCa fallback path, and the sample-size planners.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.intervals import (
    WARN_ONE_ANNOTATOR,
    annotator_range,
    bootstrap,
    compare_to_interval,
    fisher_z,
    fisher_z_n_for_half_width,
    outside_interval,
    wilson,
    wilson_n_for_half_width,
)
from scoring.records import Interval

PROPS = settings(max_examples=50, deadline=None, derandomize=True)

# ------------------------------------------------------------------------------------------
# Wilson
# ------------------------------------------------------------------------------------------


def test_wilson_reference_45_of_50() -> None:
    ci = wilson(45, 50)
    assert wilson(0, 4).low == 0.0 and wilson(4, 4).high == 1.0
    assert (round(ci.low, 4), round(ci.high, 4)) == (0.7864, 0.9565)
    assert ci.estimate == 0.9 and ci.level == 0.95 and ci.method == "wilson"


@PROPS
@given(
    n=st.integers(1, 500),
    frac=st.floats(0, 1),
    level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_wilson_matches_scipy_and_contains_estimate(n: int, frac: float, level: float) -> None:
    k = round(frac * n)
    ci = wilson(k, n, level)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    assert ci.low == pytest.approx(ref.low, abs=1e-12)
    assert ci.high == pytest.approx(ref.high, abs=1e-12)
    assert 0.0 <= ci.low <= ci.estimate <= ci.high <= 1.0


def test_wilson_exact_coverage_is_close_to_nominal() -> None:
    # Exact coverage from the binomial distribution, no simulation: at 20-50 items and
    # accuracies HUME sees, Wilson stays within a couple of points of 95 %.
    for n in (20, 40, 50):
        for p in (0.5, 0.75, 0.9):
            k = np.arange(n + 1)
            covered = [wilson(int(j), n).contains(p) for j in k]
            coverage = float(np.sum(stats.binom.pmf(k, n, p)[covered]))
            assert 0.91 <= coverage <= 0.99, (n, p, coverage)


def test_wilson_rejects_bad_input() -> None:
    for args in [(1, 0), (6, 5), (-1, 5), (2.5, 5), (True, 5)]:
        with pytest.raises(InvalidInputError):
            wilson(*args)
    for level in (0, 1, 1.5, "95%"):
        with pytest.raises(InvalidInputError):
            wilson(3, 5, level)


# ------------------------------------------------------------------------------------------
# Fisher z
# ------------------------------------------------------------------------------------------


def test_fisher_z_reference() -> None:
    ci = fisher_z(0.5, 50)
    z = stats.norm.ppf(0.975)
    assert ci.low == pytest.approx(math.tanh(math.atanh(0.5) - z / math.sqrt(47)), abs=1e-12)
    assert ci.high == pytest.approx(math.tanh(math.atanh(0.5) + z / math.sqrt(47)), abs=1e-12)
    assert (round(ci.low, 4), round(ci.high, 4)) == (0.2575, 0.6833)
    assert ci.method == "fisher_z" and ci.details["se_z"] == pytest.approx(1 / math.sqrt(47))


def test_fisher_z_spearman_variances_are_named_and_wider() -> None:
    plain = fisher_z(0.6, 30)
    fieller = fisher_z(0.6, 30, variance="fieller")
    bw = fisher_z(0.6, 30, variance="bonett_wright")
    assert fieller.method == "fisher_z:fieller" and bw.method == "fisher_z:bonett_wright"
    assert fieller.details["se_z"] == pytest.approx(math.sqrt(1.06 / 27))
    assert bw.details["se_z"] == pytest.approx(math.sqrt((1 + 0.18) / 27))
    assert plain.half_width < fieller.half_width < bw.half_width
    with pytest.raises(InvalidInputError):
        fisher_z(0.6, 30, variance="pearson")


@PROPS
@given(rho=st.floats(-0.99, 0.99), n=st.integers(4, 200))
def test_fisher_z_properties(rho: float, n: int) -> None:
    ci = fisher_z(rho, n)
    assert -1.0 < ci.low <= ci.estimate <= ci.high < 1.0
    mirror = fisher_z(-rho, n)
    assert mirror.low == pytest.approx(-ci.high, abs=1e-12)
    assert fisher_z(rho, n + 10).half_width < ci.half_width


def test_fisher_z_degenerate_and_invalid() -> None:
    for n in (1, 2, 3):
        with pytest.raises(DegenerateInputError):
            fisher_z(0.5, n)
    for rho in (1.2, -1.01, math.nan, "x"):
        with pytest.raises(InvalidInputError):
            fisher_z(rho, 20)
    edge = fisher_z(1.0, 20)
    assert edge.low == edge.high == 1.0 and "warning" in edge.details


# ------------------------------------------------------------------------------------------
# Range across annotators
# ------------------------------------------------------------------------------------------


def test_annotator_range() -> None:
    ci = annotator_range({"a7e8": 0.4792, "fa66": 0.4375})
    assert (ci.low, ci.high) == (0.4375, 0.4792)
    assert ci.estimate == pytest.approx((0.4792 + 0.4375) / 2)
    assert ci.method == "annotator_range" and ci.details["warnings"] == []
    assert ci.details["per_annotator"] == {"a7e8": 0.4792, "fa66": 0.4375}
    # The human score may come from a majority vote and fall outside the per-annotator range.
    voted = annotator_range([0.4, 0.5], estimate=0.55)
    assert voted.estimate == 0.55 and voted.details["estimate_outside_range"] is True


def test_annotator_range_one_annotator_and_bad_input() -> None:
    one = annotator_range([0.8])
    assert one.low == one.high == one.estimate == 0.8 and one.half_width == 0.0
    assert one.details["warnings"] == [WARN_ONE_ANNOTATOR]
    for bad in ([], {}, [0.5, math.nan], ["x"]):
        with pytest.raises(InvalidInputError):
            annotator_range(bad)


# ------------------------------------------------------------------------------------------
# Bootstrap
# ------------------------------------------------------------------------------------------

SAMPLE = np.random.default_rng(42).normal(loc=1.0, size=40)


def test_bootstrap_is_deterministic_given_the_seed() -> None:
    a = bootstrap(SAMPLE, np.mean, n_resamples=500, seed=7)
    b = bootstrap(SAMPLE, np.mean, n_resamples=500, seed=7)
    c = bootstrap(SAMPLE, np.mean, n_resamples=500, seed=8)
    assert (a.low, a.high) == (b.low, b.high) and a.details == b.details
    assert (a.low, a.high) != (c.low, c.high)
    assert a.method == "bootstrap:bca" and "fallback_reason" not in a.details
    # A list of records resamples the same way as an array.
    as_list = bootstrap(list(SAMPLE), lambda s: float(np.mean(s)), n_resamples=500, seed=7)
    assert (as_list.low, as_list.high) == pytest.approx((a.low, a.high), abs=1e-12)


def test_bootstrap_draws_are_drawn_once_and_cannot_be_changed() -> None:
    """The resample indices are cached per (seed, n, resamples) (issue 38): they are the
    generator's draws, read-only, and a statistic that scribbles on its resample changes
    nothing for the next bootstrap with the same seed."""
    import scoring.intervals as iv

    draws = iv._draws(7, 40, 500)
    expected = np.random.default_rng(7).integers(0, 40, size=(500, 40))
    assert np.array_equal(draws, expected) and not draws.flags.writeable
    assert iv._draws(7, 40, 500) is draws
    with pytest.raises(ValueError):
        draws[0, 0] = 1

    data = SAMPLE.copy()

    def scribbling_mean(x: np.ndarray) -> float:
        value = float(np.mean(x))
        if x is not data:  # a resample is the statistic's own copy
            x[...] = 0.0
        return value

    first = bootstrap(data, scribbling_mean, n_resamples=500, seed=7)
    again = bootstrap(SAMPLE, np.mean, n_resamples=500, seed=7)
    assert (first.low, first.high) == (again.low, again.high)
    # the same interval as before the cache: the statistic over the generator's resamples
    boot = np.array([np.mean(SAMPLE[row]) for row in expected])
    assert again.details["bootstrap_se"] == float(np.std(boot, ddof=1))


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_contains_estimate_and_agrees_with_scipy(method: str) -> None:
    ours = bootstrap(SAMPLE, np.mean, n_resamples=3000, seed=1, method=method)
    assert ours.method == f"bootstrap:{method}"
    assert ours.estimate == pytest.approx(np.mean(SAMPLE))
    assert ours.low < ours.estimate < ours.high
    ref = stats.bootstrap(
        (SAMPLE,),
        np.mean,
        n_resamples=3000,
        method="BCa" if method == "bca" else "percentile",
        rng=np.random.default_rng(1),
    ).confidence_interval
    # Different random draws: only sampling noise apart (bootstrap SE of a bound ≈ 0.02).
    assert ours.low == pytest.approx(ref.low, abs=0.05)
    assert ours.high == pytest.approx(ref.high, abs=0.05)
    t = stats.t.interval(0.95, len(SAMPLE) - 1, loc=np.mean(SAMPLE), scale=stats.sem(SAMPLE))
    assert ours.low == pytest.approx(t[0], abs=0.06) and ours.high == pytest.approx(t[1], abs=0.06)


def test_bootstrap_over_paired_records_for_spearman() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=30)
    pairs = np.column_stack([x, x + rng.normal(scale=0.7, size=30)])

    def rho(p: np.ndarray) -> float:
        return float(stats.spearmanr(p[:, 0], p[:, 1]).statistic)

    ci = bootstrap(pairs, rho, n_resamples=400, seed=0)
    assert ci.low < ci.estimate < ci.high <= 1.0
    assert ci.details["n_items"] == 30


def test_bca_falls_back_when_all_resamples_are_equal() -> None:
    ci = bootstrap([1, 1, 1, 1, 1], lambda s: float(np.mean(s)), n_resamples=200)
    assert ci.method == "bootstrap:percentile"
    assert ci.details["fallback_reason"] == "all bootstrap resamples gave the same value"
    assert ci.low == ci.high == ci.estimate == 1.0


def test_bca_falls_back_when_bias_correction_is_infinite() -> None:
    # Number of distinct items: every resample (almost surely) has fewer than the full sample,
    # so no resample reaches the estimate and z0 = −∞.
    ci = bootstrap(list(range(20)), lambda s: float(len(set(s))), n_resamples=300, seed=3)
    assert ci.method == "bootstrap:percentile"
    assert "z0 infinite" in ci.details["fallback_reason"]
    assert ci.high < ci.estimate  # the percentile interval cannot reach the estimate here


def test_bca_falls_back_when_jackknife_has_zero_variance() -> None:
    # Two zeros: every leave-one-out minimum is 0, but some resamples miss both zeros.
    items = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    ci = bootstrap(items, lambda s: float(min(s)), n_resamples=500, seed=0)
    assert ci.method == "bootstrap:percentile"
    assert ci.details["fallback_reason"] == "the jackknife values have zero variance"
    assert ci.contains(ci.estimate)


def test_bca_falls_back_when_a_jackknife_value_is_not_finite() -> None:
    n = 12

    def stat(s: list[float]) -> float:
        return float(np.mean(s)) if len(s) == n else math.nan

    ci = bootstrap(list(range(n)), stat, n_resamples=300, seed=0)
    assert ci.method == "bootstrap:percentile"
    assert ci.details["fallback_reason"] == "a jackknife value is not finite"
    assert ci.details["requested_method"] == "bca"


def test_bootstrap_drops_non_finite_resamples_and_rejects_degenerate_input() -> None:
    items = [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]

    def stat(s: list[float]) -> float:
        return math.nan if len(set(s)) == 1 else float(np.mean(s))

    ci = bootstrap(items, stat, n_resamples=2000, seed=0, method="percentile")
    assert ci.details["n_resamples_dropped"] > 0
    with pytest.raises(DegenerateInputError):
        bootstrap([1.0], np.mean)
    with pytest.raises(DegenerateInputError):
        bootstrap([1.0, 2.0], lambda s: math.nan)
    with pytest.raises(InvalidInputError):
        bootstrap(SAMPLE, np.mean, method="studentized")
    with pytest.raises(InvalidInputError):
        bootstrap("abc", len)
    with pytest.raises(InvalidInputError):
        bootstrap(SAMPLE, np.mean, seed=-1)


# ------------------------------------------------------------------------------------------
# Vectorised bootstrap: the same resamples, the same numbers as one call per resample
# ------------------------------------------------------------------------------------------


def _loop_percentile(items: np.ndarray, stat, n_resamples: int, seed: int) -> tuple:
    """The percentile bootstrap written out directly: one draw, one statistic per row."""
    draws = np.random.default_rng(seed).integers(0, len(items), size=(n_resamples, len(items)))
    boot = np.array([stat(items[row]) for row in draws])
    boot = boot[np.isfinite(boot)]
    alpha = (1.0 - 0.95) / 2.0  # as the module computes it (not exactly 0.025)
    low, high = np.quantile(boot, [alpha, 1.0 - alpha])
    return float(low), float(high), float(np.std(boot, ddof=1))


def _same(a: Interval, b: Interval) -> None:
    assert (a.estimate, a.low, a.high, a.method) == (b.estimate, b.low, b.high, b.method)
    assert a.details == b.details


@pytest.mark.parametrize("n", [2, 3, 7, 25])
def test_vectorized_mean_equals_the_loop_and_a_direct_computation(n: int) -> None:
    items = np.random.default_rng(n).normal(size=n)
    hits = (items > 0).astype(float)  # accuracy: many ties with the estimate
    for data in (items, hits):
        for method in ("bca", "percentile"):
            loop = bootstrap(data, lambda x: float(np.mean(x)), n_resamples=300, seed=3,
                             method=method)  # fmt: skip
            vec = bootstrap(data, lambda x: np.mean(x, axis=-1), n_resamples=300, seed=3,
                            method=method, vectorized=True)  # fmt: skip
            _same(loop, vec)
        direct = _loop_percentile(data, np.mean, 300, 3)
        vec = bootstrap(data, lambda x: np.mean(x, axis=-1), n_resamples=300, seed=3,
                        method="percentile", vectorized=True)  # fmt: skip
        assert (vec.low, vec.high, vec.details["bootstrap_se"]) == direct


def test_vectorized_jackknife_is_the_leave_one_out_loop() -> None:
    # The BCa acceleration from the jackknife, written out: same z0, acceleration, levels.
    items = np.random.default_rng(9).exponential(size=15)
    vec = bootstrap(items, lambda x: np.mean(x, axis=-1), n_resamples=400, seed=1,
                    vectorized=True)  # fmt: skip
    jack = np.array([np.mean(np.delete(items, i)) for i in range(len(items))])
    d = jack.mean() - jack
    accel = float(np.sum(d**3)) / (6.0 * float(np.sum(d * d)) ** 1.5)
    assert vec.method == "bootstrap:bca"
    assert vec.details["acceleration"] == accel


def _rho_loop(x: np.ndarray) -> float:
    """The per-resample Spearman the export used before the vectorised bootstrap."""
    a, b = stats.rankdata(x[:, 0]), stats.rankdata(x[:, 1])
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorized_spearman_is_bit_identical_to_the_loop(seed: int) -> None:
    from scoring.kernels import spearman_of_resamples as _spearman_of_resamples

    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 6, size=12).astype(float)  # ties, as STS gold scores have
    pairs = np.column_stack([gold, np.round(gold + rng.normal(size=12)) / 2])
    # Every single resample: the same float, NaN where a column is constant.
    draws = rng.integers(0, 12, size=(200, 12))
    vec = _spearman_of_resamples(pairs[draws])
    loop = np.array([_rho_loop(pairs[row]) for row in draws])
    assert np.array_equal(vec, loop, equal_nan=True)
    assert np.array_equal(_spearman_of_resamples(np.array([[[1.0, 2.0], [1.0, 3.0]]])), [np.nan],
                          equal_nan=True)  # fmt: skip
    _same(
        bootstrap(pairs, _rho_loop, n_resamples=500, seed=seed),
        bootstrap(pairs, _spearman_of_resamples, n_resamples=500, seed=seed, vectorized=True),
    )


@pytest.mark.parametrize("raters", [1, 2, 3])
def test_vectorized_map_with_missing_queries_is_bit_identical(raters: int) -> None:
    rng = np.random.default_rng(raters)
    table = rng.uniform(size=(9, raters))
    table[rng.uniform(size=table.shape) < 0.3] = np.nan  # a rater skipped some queries
    table[0] = rng.uniform(size=raters)

    def map_loop(x: np.ndarray) -> float:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return float(np.nanmean(np.nanmean(x, axis=0)))

    def map_vec(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(np.nanmean(x, axis=-2), axis=-1)

    _same(
        bootstrap(table, map_loop, n_resamples=400, seed=5),
        bootstrap(table, map_vec, n_resamples=400, seed=5, vectorized=True),
    )


def test_vectorized_batches_give_the_same_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    import scoring.intervals as intervals_module

    items = np.random.default_rng(4).normal(size=(20, 2))

    def stat(x: np.ndarray) -> np.ndarray:
        return np.mean(x[..., 0] * x[..., 1], axis=-1)

    whole = bootstrap(items, stat, n_resamples=301, seed=2, vectorized=True)
    monkeypatch.setattr(intervals_module, "BATCH_VALUES", 7 * 20 * 2)  # 7 resamples a call
    calls: list[int] = []

    def counted(x: np.ndarray) -> np.ndarray:
        calls.append(len(x))
        return stat(x)

    _same(whole, bootstrap(items, counted, n_resamples=301, seed=2, vectorized=True))
    assert max(calls) == 7 and sum(calls) == 1 + 301 + 20  # estimate, resamples, jackknife


def test_vectorized_statistic_must_return_one_value_per_resample() -> None:
    with pytest.raises(InvalidInputError, match="one value per resample"):
        bootstrap(SAMPLE, np.mean, vectorized=True)  # a scalar for the whole stack
    with pytest.raises(InvalidInputError):
        bootstrap(SAMPLE, lambda x: np.mean(x, axis=-1), vectorized="yes")  # type: ignore[arg-type]
    # A list of records is resampled as an array.
    as_list = bootstrap(list(SAMPLE), lambda x: np.mean(x, axis=-1), n_resamples=200,
                        vectorized=True)  # fmt: skip
    _same(as_list, bootstrap(SAMPLE, np.mean, n_resamples=200))


def test_scipy_bootstrap_agrees_on_regular_data_and_fails_where_we_fall_back() -> None:
    # Why intervals.bootstrap is not scipy.stats.bootstrap (see its docstring): the same
    # generator draws the same resamples, so on regular data the two agree to rounding ...
    for method in ("bca", "percentile"):
        ours = bootstrap(SAMPLE, np.mean, n_resamples=3000, seed=1, method=method)
        ref = stats.bootstrap((SAMPLE,), np.mean, n_resamples=3000, rng=np.random.default_rng(1),
                              method="BCa" if method == "bca" else "percentile")  # fmt: skip
        assert ours.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
        assert ours.high == pytest.approx(ref.confidence_interval.high, abs=1e-12)
    # ... but a perfectly annotated subset (accuracy 20/20) has no BCa: scipy says NaN.
    hits = np.ones(20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = stats.bootstrap((hits,), np.mean, n_resamples=2000, rng=np.random.default_rng(0))
    assert math.isnan(ref.confidence_interval.low) and math.isnan(ref.confidence_interval.high)
    ours = bootstrap(hits, lambda x: np.mean(x, axis=-1), n_resamples=2000, vectorized=True)
    assert (ours.low, ours.high, ours.method) == (1.0, 1.0, "bootstrap:percentile")
    # And one Spearman resample with constant ratings makes scipy's whole interval NaN.
    from scoring.kernels import spearman_of_resamples as _spearman_of_resamples

    x, y = np.array([1.0] * 8 + [2.0, 3.0]), np.arange(10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = stats.bootstrap(
            (x, y),
            lambda a, b: stats.spearmanr(a, b).statistic,
            paired=True,
            vectorized=False,
            n_resamples=2000,
            rng=np.random.default_rng(0),
        )
    assert math.isnan(ref.confidence_interval.low)
    ours = bootstrap(np.column_stack([x, y]), _spearman_of_resamples, n_resamples=2000,
                     vectorized=True)  # fmt: skip
    assert ours.details["n_resamples_dropped"] > 0 and ours.low < ours.estimate < ours.high


# ------------------------------------------------------------------------------------------
# Reading a model score against an interval
# ------------------------------------------------------------------------------------------


def test_outside_and_compare() -> None:
    ci = Interval(estimate=0.8, low=0.7, high=0.9, level=0.95, method="wilson")
    assert compare_to_interval(0.95, ci) == "above" and outside_interval(0.95, ci)
    assert compare_to_interval(0.6, ci) == "below" and outside_interval(0.6, ci)
    for inside in (0.7, 0.8, 0.9):  # bounds are inside: only strictly outside counts
        assert compare_to_interval(inside, ci) == "inside" and not outside_interval(inside, ci)
    with pytest.raises(InvalidInputError):
        outside_interval(math.nan, ci)


def test_hume_example_model_against_human_accuracy() -> None:
    # 45/50 human accuracy: a model at 0.80 is inside, one at 0.98 is significantly better.
    ci = wilson(45, 50)
    assert compare_to_interval(0.80, ci) == "inside"
    assert compare_to_interval(0.98, ci) == "above"
    assert compare_to_interval(0.70, ci) == "below"


# ------------------------------------------------------------------------------------------
# Sample-size planning
# ------------------------------------------------------------------------------------------


def test_wilson_planner_closed_form_at_one_half() -> None:
    # At p = 0.5 the Wilson half-width is z / (2 sqrt(n + z²)): n ≥ (z / 2h)² − z².
    z = stats.norm.ppf(0.975)
    expected = math.ceil((z / 0.1) ** 2 - z**2)
    assert wilson_n_for_half_width(0.5, 0.05) == expected == 381
    assert wilson(190, 380).half_width > 0.05 >= wilson(191, 382).half_width


def test_fisher_planner_closed_form_at_zero() -> None:
    # At ρ = 0 the half-width is tanh(z / sqrt(n − 3)): n ≥ 3 + (z / atanh(h))².
    z = stats.norm.ppf(0.975)
    expected = math.ceil(3 + (z / math.atanh(0.1)) ** 2)
    assert fisher_z_n_for_half_width(0.0, 0.1) == expected == 385


@PROPS
@given(p=st.floats(0, 1), hw=st.floats(0.02, 0.3), rho=st.floats(-0.95, 0.95))
def test_planners_return_the_smallest_sufficient_n(p: float, hw: float, rho: float) -> None:
    z = stats.norm.ppf(0.975)

    def wilson_hw(n: int) -> float:
        return z * math.sqrt(p * (1 - p) * n + z * z / 4) / (n + z * z)

    n = wilson_n_for_half_width(p, hw)
    assert wilson_hw(n) <= hw and (n == 1 or wilson_hw(n - 1) > hw)

    m = fisher_z_n_for_half_width(rho, hw)
    assert fisher_z(rho, m).half_width <= hw
    assert m == 4 or fisher_z(rho, m - 1).half_width > hw
    assert fisher_z_n_for_half_width(rho, hw, variance="fieller") >= m


def test_planners_reject_bad_input() -> None:
    for args in [(1.2, 0.05), (0.5, 0.0), (0.5, 1.0), (-0.1, 0.05)]:
        with pytest.raises(InvalidInputError):
            wilson_n_for_half_width(*args)
    for args in [(1.0, 0.05), (0.5, -0.1)]:
        with pytest.raises(InvalidInputError):
            fisher_z_n_for_half_width(*args)
