"""scoring.kernels against the library functions they stand for, and the one-pass scoring paths
against the single calls they replace.

Each kernel repeats its library's floating-point steps, so on random and edge cases (ties,
one class, one item, empty, constant input) it must agree to 1e-12 and, with the pinned library
versions, to the last bit: the report's numbers did not change when the export stopped calling
scikit-learn and scipy.stats per annotator.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from scoring import agreement, intervals, kernels, metrics
from scoring.agreement._krippendorff import _delta2
from scoring.errors import InvalidInputError
from scoring.records import Agreement

TOL = 1e-12


def _same(ours: float, ref: float) -> None:
    """Within 1e-12 and, as the kernels repeat the libraries' steps, the same float."""
    ref = float(ref)
    if math.isnan(ref):
        assert math.isnan(ours)
        return
    assert ours == pytest.approx(ref, abs=TOL, rel=0)
    assert ours == ref, f"{ours!r} != {ref!r} (within 1e-12, not bit for bit)"


def _label_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(14)
    cases: list[tuple[np.ndarray, np.ndarray]] = [
        (np.array(["a"]), np.array(["a"])),  # single item
        (np.array(["a"]), np.array(["b"])),  # single item, wrong
        (np.array(["x"] * 6), np.array(["x"] * 6)),  # all one class, both sides
        (np.array(["x"] * 6), np.array(["x", "y", "x", "z", "x", "x"])),  # gold one class
        (np.array(["x", "y", "z", "w"]), np.array(["q"] * 4)),  # pred one class, unseen
        (np.arange(7), np.arange(7)),  # every item its own class
        (np.array([0, 1, 1, 0, 2]), np.array([2.0, 1.0, 1.0, 0.0, 2.0])),  # int vs float
    ]
    for trial in range(250):
        n = int(rng.integers(1, 60))
        k = int(rng.integers(1, 7))
        alphabet = np.array(list("abcdefg"))[:k] if trial % 2 else np.arange(k)
        gold = rng.choice(alphabet, n)
        pred = gold.copy() if trial % 5 == 0 else rng.choice(alphabet, n)
        cases.append((gold, pred))
    return cases


LABEL_CASES = _label_cases()


@pytest.mark.parametrize("case", range(len(LABEL_CASES)))
def test_classification_scores_are_sklearns(case: int) -> None:
    gold, pred = LABEL_CASES[case]
    ours = kernels.classification_scores(gold, pred)
    _same(ours["accuracy"], skm.accuracy_score(gold, pred))
    for avg, suffix in (("macro", ""), ("weighted", "_weighted")):
        kw: dict[str, Any] = {"average": avg, "zero_division": 0.0}
        _same(ours["f1" + suffix], skm.f1_score(gold, pred, **kw))
        _same(ours["precision" + suffix], skm.precision_score(gold, pred, **kw))
        _same(ours["recall" + suffix], skm.recall_score(gold, pred, **kw))


@pytest.mark.parametrize("case", range(len(LABEL_CASES)))
def test_clustering_scores_are_sklearns(case: int) -> None:
    gold, pred = LABEL_CASES[case]
    ours = kernels.clustering_scores(gold, pred)
    _same(ours["v_measure"], skm.v_measure_score(gold, pred))
    _same(ours["homogeneity"], skm.homogeneity_score(gold, pred))
    _same(ours["completeness"], skm.completeness_score(gold, pred))
    _same(ours["ari"], skm.adjusted_rand_score(gold, pred))
    _same(ours["ami"], skm.adjusted_mutual_info_score(gold, pred))


def test_expected_mutual_information_on_larger_tables() -> None:
    """Hundreds of items: the EMI sum runs over thousands of terms in scikit-learn's order."""
    rng = np.random.default_rng(3)
    for n, k in ((120, 4), (300, 9), (500, 3)):
        gold = rng.integers(0, k, n)
        pred = np.where(rng.random(n) < 0.6, gold, rng.integers(0, k + 2, n))
        _same(
            kernels.clustering_scores(gold, pred)["ami"], skm.adjusted_mutual_info_score(gold, pred)
        )


def test_entropy_of_nothing_and_of_one_class() -> None:
    assert kernels.entropy(np.array([], dtype=int)) == 1.0  # sklearn's convention
    assert kernels.entropy(np.array(["a", "a"])) == 0.0
    _same(kernels.entropy(np.array([0, 1])), math.log(2))


def _ranking_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    cases = [
        (np.array([1]), np.array([0.0])),  # single item
        (np.array([1, 1, 1]), np.array([0.0, 1.0, 0.0])),  # all relevant
        (np.array([0, 1, 0, 1]), np.array([1.0, 1.0, 1.0, 1.0])),  # one tie group
        (np.array([0, 0, 0, 1]), np.array([3.0, 2.0, 1.0, 0.0])),  # relevant last
        (np.array([1, 0, 1, 0, 0, 1, 0]), np.array([1, 0, 1, 1, 0, 0, 0], dtype=float)),
    ]
    for trial in range(300):
        n = int(rng.integers(1, 40))
        rel = rng.integers(0, 2, n)
        rel[rng.integers(0, n)] = 1
        levels = int(rng.integers(1, 5))
        scores = rng.integers(0, levels, n).astype(float) if trial % 2 else rng.random(n)
        cases.append((rel, scores))
    return cases


RANKING_CASES = _ranking_cases()


def test_average_precision_is_sklearns() -> None:
    for rel, scores in RANKING_CASES:
        _same(kernels.average_precision(rel, scores), skm.average_precision_score(rel, scores))


def test_average_precision_without_a_relevant_item_is_sklearns() -> None:
    """Recall is set to 1 everywhere, as scikit-learn does (with its warning)."""
    rel, scores = np.zeros(4, dtype=int), np.array([0.3, 0.1, 0.3, 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = skm.average_precision_score(rel, scores)
    _same(kernels.average_precision(rel, scores), ref)


def _pair_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    cases = [
        (np.array([1.0, 2.0]), np.array([3.0, 5.0])),  # n = 2: rho = 1, p undefined
        (np.array([1.0, 2.0]), np.array([5.0, 3.0])),
        (np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])),
        (np.array([0.0, 0.0, 1.0, 1.0]), np.array([1.0, 1.0, 0.0, 0.0])),  # perfect negative
        (np.array([2.0, 2.0, 2.0]), np.array([1.0, 2.0, 3.0])),  # constant: NaN
        (np.array([1.0, 2.0, 3.0]), np.array([4.0, 4.0, 4.0])),  # constant: NaN
    ]
    for trial in range(300):
        n = int(rng.integers(2, 50))
        x = rng.integers(0, 6, n).astype(float) if trial % 2 else rng.normal(size=n)
        y = rng.integers(0, 3, n).astype(float) if trial % 3 else rng.normal(size=n) * 1e3
        cases.append((x, y))
    return cases


PAIR_CASES = _pair_cases()


def _quiet(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input
        return fn()


def test_spearman_is_scipys() -> None:
    for x, y in PAIR_CASES:
        ref = _quiet(lambda x=x, y=y: stats.spearmanr(x, y))
        rho, p = kernels.spearman(x, y)
        _same(rho, ref.statistic)
        _same(p, ref.pvalue)


def test_pearson_is_scipys() -> None:
    for x, y in PAIR_CASES:
        ref = _quiet(lambda x=x, y=y: stats.pearsonr(x, y))
        r, p = kernels.pearson(x, y)
        _same(r, ref.statistic)
        _same(p, ref.pvalue)


def test_kendall_tau_b_is_scipys() -> None:
    for x, y in PAIR_CASES:
        ref = _quiet(lambda x=x, y=y: stats.kendalltau(x, y))
        _same(kernels.kendall_tau_b(x, y), ref.statistic)


def test_correlations_of_nothing_or_one_pair_are_undefined() -> None:
    empty = np.array([], dtype=float)
    assert math.isnan(kernels.kendall_tau_b(empty, empty))
    assert all(math.isnan(v) for v in kernels.spearman(empty, empty))
    assert all(math.isnan(v) for v in kernels.spearman(np.array([1.0]), np.array([2.0])))
    assert math.isnan(_quiet(lambda: stats.kendalltau(empty, empty)).statistic)


def _spearman_numpy_steps(x: Any, y: Any) -> float:
    """The kernel's NumPy steps (np.corrcoef's), which it takes past SPEARMAN_IN_PYTHON."""
    ranks = np.stack([kernels.average_ranks(x), kernels.average_ranks(y)])
    centred = ranks - ranks.mean(axis=1, keepdims=True)
    c = np.dot(centred, centred.T) * np.true_divide(1, len(x) - 1)
    sd = np.sqrt(np.diag(c))
    c /= sd[:, None]
    c /= sd[None, :]
    return float(np.clip(c, -1, 1)[1, 0])


@pytest.mark.parametrize("n", [2, 3, 9, 40, kernels.SPEARMAN_IN_PYTHON, 300])
def test_spearman_in_python_is_the_numpy_steps_and_scipys(n: int) -> None:
    """Up to SPEARMAN_IN_PYTHON values ρ is counted in Python: the same float as the NumPy
    steps (ties, -0.0 and negative values included), and scipy's spearmanr, the reference,
    within its own rounding (it divides by the deviations in the other order)."""
    rng = np.random.default_rng(n)
    for _ in range(20):
        x = rng.integers(-5, 6, n) / 2.0
        y = rng.random(n) if n % 2 else rng.integers(0, 4, n) * 1.0
        x[0] = -0.0
        if (x == x[0]).all() or (y == y[0]).all():
            continue
        rho, p = kernels.spearman(x, y)
        assert rho == _spearman_numpy_steps(x, y)
        ref = stats.spearmanr(x.tolist(), y.tolist())
        assert rho == pytest.approx(ref.statistic, abs=1e-15)
        if n > 2:
            assert p == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)


def test_average_ranks_are_scipys() -> None:
    for x, _ in PAIR_CASES:
        assert np.array_equal(kernels.average_ranks(x), stats.rankdata(x))


# --------------------------------------------------------------------------------------------
# What the metrics module adds around the kernels
# --------------------------------------------------------------------------------------------


def test_accuracy_refuses_fractional_class_labels() -> None:
    """sklearn refused "continuous" targets with a ValueError; now a one-line typed error."""
    with pytest.raises(InvalidInputError, match=r"pred: class labels .* got 0\.5"):
        metrics.accuracy([0, 1, 1], [0.0, 0.5, 1.0])
    with pytest.raises(InvalidInputError, match="gold: class labels"):
        metrics.accuracy([0.0, float("inf")], [0, 1])
    assert metrics.accuracy([0.0, 1.0, 2.0], [0, 1, 1]).value == pytest.approx(2 / 3)


def test_metrics_scores_keep_their_detail_keys_in_order() -> None:
    """scores.json lists details in this order: the report's bytes depend on it."""
    acc = metrics.accuracy(["a", "b", "b"], ["a", "b", "a"])
    assert list(acc.details) == [
        "f1", "f1_weighted", "precision", "precision_weighted", "recall", "recall_weighted"
    ]  # fmt: skip
    assert list(metrics.v_measure([0, 0, 1], [1, 1, 0]).details) == [
        "ari", "ami", "homogeneity", "completeness"
    ]  # fmt: skip


# --------------------------------------------------------------------------------------------
# One-pass paths equal the single calls
# --------------------------------------------------------------------------------------------


def _queries(seed: int) -> dict[str, tuple[list[int], list[float]]]:
    rng = np.random.default_rng(seed)
    out = {}
    for q in range(12):
        n = int(rng.integers(2, 9))
        rel = [int(v) for v in rng.integers(0, 2, n)]
        rel[int(rng.integers(0, n))] = 1
        if q == 3:
            rel = [0] * n  # no relevant candidate: skipped, or scored 0
        out[f"q{q}"] = (rel, [float(v) for v in rng.integers(0, 2, n)])
    return out


@pytest.mark.parametrize("ap_method", metrics.AP_METHODS)
@pytest.mark.parametrize("ties", metrics.TIE_RULES)
@pytest.mark.parametrize("skip", [True, False])
def test_mean_ranking_scores_equal_the_three_means(ap_method: str, ties: str, skip: bool) -> None:
    queries = _queries(sum(map(ord, ap_method + ties)) + skip)
    ap, rr, ndcg = metrics.mean_ranking_scores(queries, ap_method, k=5, ties=ties,
                                               skip_no_relevant=skip)  # fmt: skip
    assert ap.to_dict() == metrics.mean_average_precision(queries, ap_method, skip).to_dict()
    assert rr.to_dict() == metrics.mean_mrr_at_k(queries, 5, ties, skip).to_dict()
    assert ndcg.to_dict() == metrics.mean_ndcg_at_k(queries, 5, ties, skip).to_dict()
    assert ap.details["no_relevant_queries"] == ["q3"]
    assert ("q3" in ap.details["per_query"]) is (not skip)


def test_mean_over_queries_still_names_the_bad_query() -> None:
    with pytest.raises(InvalidInputError, match=r"queries\['b'\]: relevance: expected binary"):
        metrics.mean_ranking_scores({"a": ([1, 0], [1.0, 0.0]), "b": ([2, 0], [1.0, 0.0])})


def _marks(seed: int, raters: int) -> dict[str, dict[str, dict[str, int]]]:
    rng = np.random.default_rng(seed)
    return {
        f"r{r}": {
            f"q{q}": {f"c{c}": int(rng.integers(0, 2)) for c in range(7) if rng.random() > 0.1}
            for q in range(10)
            if rng.random() > 0.15
        }
        for r in range(raters)
    }


@pytest.mark.parametrize("raters", [1, 2, 3, 4])
def test_reranking_agreements_equal_the_single_calls(raters: int) -> None:
    marks = _marks(raters, raters)
    together = agreement.reranking_agreements(marks)
    alone = [
        agreement.reranking_agreement(marks, statistic=s)
        for s in ("spearman", "kendall_tau", "binary_kappa")
    ]
    assert [a.to_dict() for a in together] == [a.to_dict() for a in alone]


def _ratings(seed: int, raters: int, labels: int) -> dict[str, dict[str, int]]:
    rng = np.random.default_rng(seed)
    return {
        f"r{r}": {f"i{i}": int(rng.integers(0, labels)) for i in range(25) if rng.random() > 0.3}
        for r in range(raters)
    }


def _dicts(items: list[Agreement]) -> list[dict[str, Any]]:
    return [a.to_dict() for a in items]


@pytest.mark.parametrize("raters", [1, 2, 3, 5, 6])
def test_categorical_agreements_equal_the_single_calls(raters: int) -> None:
    ratings = _ratings(raters, raters, 3)
    alone = [
        agreement.fleiss_kappa(ratings),
        agreement.mean_pairwise_cohen_kappa(ratings),
        agreement.percentage_agreement(ratings),
        agreement.krippendorff_alpha(ratings, level="nominal"),
    ]
    together = agreement.categorical_agreements(ratings)
    assert json_equal(_dicts(together), _dicts(alone))


def json_equal(a: Any, b: Any) -> bool:
    """Equal, NaN included (NaN != NaN would fail an undefined agreement)."""
    import json

    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _alpha_loop(units: list[list[Any]], level: str) -> float:
    """Krippendorff's alpha with the coincidence matrix added unit by unit (the code before
    one bincount replaced the loop)."""
    labels = [v for u in units for v in u]
    domain = sorted(set(labels)) if level != "nominal" else list(dict.fromkeys(labels))
    index = {v: i for i, v in enumerate(domain)}
    m = len(domain)
    coincidence = np.zeros((m, m))
    for vals in units:
        counts = np.bincount([index[v] for v in vals], minlength=m).astype(float)
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (len(vals) - 1)
    marginals = coincidence.sum(axis=1)
    n = float(marginals.sum())
    d2 = _delta2(domain, marginals, level)
    observed = float((coincidence * d2).sum())
    expected = float((np.outer(marginals, marginals) * d2).sum())
    return 1.0 - (n - 1.0) * observed / expected


@pytest.mark.parametrize("level", agreement.KRIPPENDORFF_LEVELS)
@pytest.mark.parametrize("seed", range(6))
def test_krippendorff_alpha_is_the_unit_by_unit_sum(level: str, seed: int) -> None:
    """Up to 7 raters, so units hold 2..7 values and add thirds, fifths, sixths: the order of
    the additions matters, and it is the unit-by-unit order."""
    rng = np.random.default_rng(seed)
    ratings = {
        f"r{r}": {f"i{i}": int(rng.integers(1, 6)) for i in range(30) if rng.random() > 0.35}
        for r in range(7)
    }
    raters = list(ratings)
    items = list(dict.fromkeys(i for r in raters for i in ratings[r]))
    units = [[ratings[r][i] for r in raters if i in ratings[r]] for i in items]
    units = [u for u in units if len(u) >= 2]
    assert agreement.krippendorff_alpha(ratings, level=level).value == _alpha_loop(units, level)


@pytest.mark.parametrize("seed", range(5))
def test_spearman_of_codes_is_spearman_of_resamples(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 45))
    pairs = np.column_stack([rng.integers(0, 26, n) / 5, rng.integers(0, 4, n) / 2])
    codes = kernels.rank_codes(pairs)
    draws = rng.integers(0, n, size=(400, n))  # includes constant resamples when n is small
    assert np.array_equal(
        kernels.spearman_of_codes(codes[draws]),
        kernels.spearman_of_resamples(pairs[draws]),
        equal_nan=True,
    )
    assert list(np.unique(codes[:, 0])) == list(range(len(np.unique(pairs[:, 0]))))
    one, other = (
        intervals.bootstrap(r, s, n_resamples=300, seed=seed, vectorized=True)
        for r, s in (
            (codes, kernels.spearman_of_codes),
            (pairs, kernels.spearman_of_resamples),
        )
    )
    assert (one.estimate, one.low, one.high, one.method) == (
        other.estimate, other.low, other.high, other.method
    )  # fmt: skip


@pytest.mark.parametrize("levels", [1, 2, 3, 7, 9])
def test_average_precision_rows_is_the_per_row_ap(levels: int) -> None:
    """Stacks of resamples with few score levels (vote shares), and more than the column loop
    takes (9: per-row fallback); rows without a relevant item are NaN."""
    rng = np.random.default_rng(levels)
    for n in (1, 2, 5, 30):
        shares = rng.choice(np.linspace(0, 1, levels), size=(200, n))
        rel = rng.integers(0, 2, size=(200, n)).astype(float)
        ours = kernels.average_precision_rows(rel, shares)
        for row in range(200):
            if rel[row].any():
                _same(ours[row], skm.average_precision_score(rel[row], shares[row]))
            else:
                assert math.isnan(ours[row])


@pytest.mark.parametrize("missing", [False, True])
def test_reranking_map_statistic_is_the_nanmean_of_nanmeans(missing: bool) -> None:
    """With every query answered by every rater the statistic skips the NaN handling; the
    per-resample MAP must be the same float as the NaN-aware mean of means."""
    from hume_sync import task_types
    from scoring.records import Score

    rng = np.random.default_rng(int(missing))
    per = {r: {f"q{q}": float(rng.random()) for q in range(18)} for r in ("a", "b", "c")}
    if missing:
        del per["b"]["q4"]
    score = Score(0.5, "m", details={"per_rater_per_query_ap": per})
    table, statistic = task_types.get("reranking").score_per_item({}, score)
    assert bool(np.isnan(table).any()) is missing
    stack = table[rng.integers(0, 18, size=(500, 18))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.nanmean(np.nanmean(stack, axis=-2), axis=-1)
    assert np.array_equal(statistic(stack), ref, equal_nan=True)
