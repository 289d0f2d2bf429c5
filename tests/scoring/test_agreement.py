"""Tests of scoring.agreement: property families (as scikit-learn's test_common), published
reference values, cross-checks against independent implementations and HUME's published blocks.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import partial
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import adjusted_rand_score, cohen_kappa_score

from scoring.agreement import (
    KRIPPENDORFF_LEVELS,
    WARN_CONSTANT,
    WARN_DROPPED_ITEMS,
    WARN_FEW_ITEMS,
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_HUMANS,
    WARN_NO_SHARED_ITEMS,
    WARN_ONE_CATEGORY,
    WARN_SKEWED,
    WARN_UNDEFINED_COMPARISONS,
    agreement_band,
    cohen_kappa,
    correlation_band,
    fleiss_kappa,
    high_agreement,
    human_machine_agreement,
    kappa_band,
    krippendorff_alpha,
    low_agreement,
    mean_pairwise_ari,
    mean_pairwise_cohen_kappa,
    mean_pairwise_spearman,
    percentage_agreement,
    ratings_from_matrix,
    reranking_agreement,
)
from scoring.errors import InvalidInputError
from scoring.records import Agreement
from tests._paths import MTEB_RESULTS

HUMAN_RESULTS = MTEB_RESULTS / "baseline__Human" / "2025_09_25"

PROPS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

# ------------------------------------------------------------------------------------------
# Metric families (input: rater -> {item: value})
# ------------------------------------------------------------------------------------------

Fn = Callable[..., Agreement]

KAPPA_LIKE: dict[str, Fn] = {
    "cohen": mean_pairwise_cohen_kappa,
    "fleiss": fleiss_kappa,
    **{f"alpha_{lv}": partial(krippendorff_alpha, level=lv) for lv in KRIPPENDORFF_LEVELS},
}
NOMINAL: dict[str, Fn] = {
    "cohen": mean_pairwise_cohen_kappa,
    "fleiss": fleiss_kappa,
    "alpha_nominal": partial(krippendorff_alpha, level="nominal"),
    "percentage": percentage_agreement,
    "ari": mean_pairwise_ari,
}
ITEM_FUNCS: dict[str, Fn] = {
    **KAPPA_LIKE,
    "percentage": percentage_agreement,
    "ari": mean_pairwise_ari,
    "spearman": mean_pairwise_spearman,
}
RERANK_FUNCS: dict[str, Fn] = {
    s: partial(reranking_agreement, statistic=s)
    for s in ("spearman", "kendall_tau", "binary_kappa")
}
ALL_FUNCS: dict[str, tuple[Fn, str]] = {
    **{k: (f, "items") for k, f in ITEM_FUNCS.items()},
    **{f"rerank_{k}": (f, "rerank") for k, f in RERANK_FUNCS.items()},
}


@st.composite
def item_ratings(draw: st.DrawFn, min_raters: int = 2, max_raters: int = 4) -> dict[str, dict]:
    """Ratings 1..4 from 2-4 raters on up to 12 items, some missing."""
    n_raters = draw(st.integers(min_raters, max_raters))
    n_items = draw(st.integers(2, 12))
    out: dict[str, dict] = {}
    for r in range(n_raters):
        row = draw(
            st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=n_items, max_size=n_items)
        )
        out[f"r{r}"] = {f"i{i}": v for i, v in enumerate(row) if v is not None}
    return out


@st.composite
def rerank_marks(draw: st.DrawFn, min_raters: int = 2, max_raters: int = 3) -> dict[str, dict]:
    """Binary relevance marks on 7 candidates per query, up to 6 queries."""
    n_raters = draw(st.integers(min_raters, max_raters))
    n_queries = draw(st.integers(1, 6))
    marks = st.lists(st.integers(0, 1), min_size=7, max_size=7)
    return {f"r{r}": {f"q{q}": draw(marks) for q in range(n_queries)} for r in range(n_raters)}


def _data(kind: str) -> st.SearchStrategy:
    return item_ratings() if kind == "items" else rerank_marks()


def same(a: float, b: float, tol: float = 1e-12) -> bool:
    """Equal up to rounding, NaN equal to NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


# ------------------------------------------------------------------------------------------
# Properties over every agreement function
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_symmetric_in_rater_order(name: str) -> None:
    fn, kind = ALL_FUNCS[name]

    @PROPS
    @given(data=_data(kind), perm_seed=st.integers(0, 1000))
    def check(data: dict, perm_seed: int) -> None:
        order = list(data)
        np.random.default_rng(perm_seed).shuffle(order)
        a = fn(data)
        b = fn({r: data[r] for r in order})
        c = fn(dict(reversed(list(data.items()))))
        assert same(a.value, b.value) and same(a.value, c.value)
        assert a.n_items == b.n_items == c.n_items
        assert set(a.warnings) == set(b.warnings) == set(c.warnings)
        assert a.band == b.band

    check()


@pytest.mark.parametrize("name", list(NOMINAL))
def test_nominal_statistics_invariant_to_renaming_categories(name: str) -> None:
    fn = NOMINAL[name]

    @PROPS
    @given(data=item_ratings(), names=st.permutations(["neg", "pos", "neu", "joy"]))
    def check(data: dict, names: list[str]) -> None:
        renamed = {r: {i: names[v - 1] for i, v in row.items()} for r, row in data.items()}
        assert same(fn(data).value, fn(renamed).value)

    check()


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_bounds(name: str) -> None:
    fn, kind = ALL_FUNCS[name]

    @PROPS
    @given(data=_data(kind))
    def check(data: dict) -> None:
        a = fn(data)
        assert a.band in {
            "undefined", "poor", "slight", "fair", "moderate", "substantial", "excellent",
            "negative", "weak", "strong", "uncorrected",
        }  # fmt: skip
        if math.isnan(a.value):
            assert a.band == "undefined" and a.warnings
            return
        assert a.value <= 1.0 + 1e-12
        if a.details["scale"] == "correlation":
            assert a.value >= -1.0 - 1e-12
        if a.details["scale"] == "proportion":
            assert a.value >= 0.0
        if name in ("cohen", "fleiss", "rerank_binary_kappa"):
            assert a.value >= -1.0 - 1e-12

    check()


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_perfect_agreement_is_one(name: str) -> None:
    fn, kind = ALL_FUNCS[name]

    @PROPS
    @given(data=_data(kind), n_raters=st.integers(2, 4))
    def check(data: dict, n_raters: int) -> None:
        row = next(iter(data.values()))
        if kind == "items":
            if len(set(row.values())) < 2:
                row = {**row, "extra_a": 1, "extra_b": 2}
        else:
            row = {q: list(m) for q, m in row.items()}
            row["q_extra"] = [1, 0, 0, 1, 0, 0, 0]
        copies = {f"c{k}": row for k in range(n_raters)}
        assert fn(copies).value == pytest.approx(1.0, abs=1e-12)

    check()


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_one_rater_gives_nan_with_warning(name: str) -> None:
    fn, kind = ALL_FUNCS[name]
    data = {"only": {"i1": 1, "i2": 2}} if kind == "items" else {"only": {"q": [1, 0, 0]}}
    a = fn(data)
    assert math.isnan(a.value)
    assert a.band == "undefined"
    assert a.warnings == (WARN_FEWER_THAN_TWO_RATERS,)
    assert a.n_raters == 1


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_empty_or_malformed_input_raises_typed_error(name: str) -> None:
    fn, _ = ALL_FUNCS[name]
    with pytest.raises(InvalidInputError):
        fn({})
    with pytest.raises(InvalidInputError):
        fn({"a": [1, 2, 3]})
    with pytest.raises(InvalidInputError):
        fn([("a", {"i": 1})])


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_no_shared_items_gives_nan_with_warning(name: str) -> None:
    fn, kind = ALL_FUNCS[name]
    if kind == "items":
        data = {"a": {"i1": 1, "i2": 2}, "b": {"i3": 1, "i4": 2}}
    else:
        data = {"a": {"q1": [1, 0, 0]}, "b": {"q2": [1, 0, 0]}}
    a = fn(data)
    assert math.isnan(a.value) and a.band == "undefined"
    assert WARN_NO_SHARED_ITEMS in a.warnings


@pytest.mark.parametrize("name", list(ALL_FUNCS))
def test_machine_raters_are_never_pooled_with_humans(name: str) -> None:
    fn, kind = ALL_FUNCS[name]

    @PROPS
    @given(data=_data(kind), machine=_data(kind))
    def check(data: dict, machine: dict) -> None:
        human_only = fn(data)
        mixed = {**data, "llm": next(iter(machine.values())), "model": list(machine.values())[-1]}
        with_machines = fn(mixed, machine_raters=["llm", "model", "not-in-this-task"])
        assert same(human_only.value, with_machines.value)
        assert with_machines.n_raters == human_only.n_raters == len(data)
        assert with_machines.details["excluded_machine_raters"] == ["llm", "model"]

    check()


@pytest.mark.parametrize("name", [*KAPPA_LIKE, "rerank_binary_kappa"])
def test_one_category_gives_nan_with_warning(name: str) -> None:
    fn, kind = ALL_FUNCS[name]
    if kind == "items":
        data = {r: {f"i{i}": 3 for i in range(12)} for r in ("a", "b", "c")}
    else:
        data = {r: {f"q{q}": [0] * 7 for q in range(12)} for r in ("a", "b")}
    a = fn(data)
    assert math.isnan(a.value) and a.band == "undefined"
    assert a.warnings[0] == WARN_ONE_CATEGORY
    assert WARN_SKEWED in a.warnings


def test_one_category_for_the_other_statistics() -> None:
    data = {r: {f"i{i}": 3 for i in range(12)} for r in ("a", "b")}
    pct = percentage_agreement(data)
    assert pct.value == 1.0 and WARN_SKEWED in pct.warnings
    rho = mean_pairwise_spearman(data)
    assert math.isnan(rho.value) and rho.warnings[0] == WARN_CONSTANT
    # Two raters who both put everything in one cluster agree perfectly on the partition.
    assert mean_pairwise_ari(data).value == 1.0


def test_few_items_and_skew_warnings() -> None:
    few = {"a": {1: "x", 2: "y", 3: "x"}, "b": {1: "x", 2: "y", 3: "y"}}
    assert WARN_FEW_ITEMS in mean_pairwise_cohen_kappa(few).warnings
    many = {"a": {i: "x" if i % 2 else "y" for i in range(10)}, "b": {i: "x" for i in range(10)}}
    assert WARN_FEW_ITEMS not in mean_pairwise_cohen_kappa(many).warnings
    # 19 of 20 ratings "no": 95 % > 90 % -> skew warning; κ is 0 despite 95 % raw agreement.
    skewed = {
        "a": {i: "no" for i in range(10)},
        "b": {i: "yes" if i == 0 else "no" for i in range(10)},
    }
    k = mean_pairwise_cohen_kappa(skewed)
    assert WARN_SKEWED in k.warnings and k.value == pytest.approx(0.0)
    assert percentage_agreement(skewed).value == pytest.approx(0.9)
    balanced = {"a": {i: i % 2 for i in range(12)}, "b": {i: i % 2 for i in range(12)}}
    assert mean_pairwise_cohen_kappa(balanced).warnings == ()


def test_undefined_pairs_are_left_out_with_warning() -> None:
    # Pair (a, b) is constant-vs-constant on the same category -> undefined; (a, c), (b, c) not.
    data = {
        "a": {i: "x" for i in range(10)},
        "b": {i: "x" for i in range(10)},
        "c": {i: "x" if i < 5 else "y" for i in range(10)},
    }
    k = mean_pairwise_cohen_kappa(data)
    assert k.details["n_pairs"] == 3 and k.details["n_pairs_defined"] == 2
    assert WARN_UNDEFINED_COMPARISONS in k.warnings
    assert k.value == pytest.approx(0.0)


def test_missing_values_none_and_nan_are_ignored() -> None:
    base = {"a": {1: "x", 2: "y", 3: "x", 4: "y"}, "b": {1: "x", 2: "y", 3: "y", 4: "y"}}
    holey = {"a": {**base["a"], 5: None, 6: float("nan")}, "b": {**base["b"], 5: "x"}}
    assert mean_pairwise_cohen_kappa(holey).value == mean_pairwise_cohen_kappa(base).value
    f = fleiss_kappa(holey)
    assert f.details["n_items_dropped"] == 1 and WARN_DROPPED_ITEMS in f.warnings


def test_numeric_statistics_reject_non_numbers() -> None:
    with pytest.raises(InvalidInputError, match="rater 'a', item 2"):
        mean_pairwise_spearman({"a": {1: 1.0, 2: "high"}, "b": {1: 1.0, 2: 2.0}})
    with pytest.raises(InvalidInputError, match="level"):
        krippendorff_alpha({"a": {1: 1}}, level="cardinal")
    with pytest.raises(InvalidInputError, match="statistic"):
        reranking_agreement({"a": {"q": [1, 0]}}, statistic="ndcg")


# ------------------------------------------------------------------------------------------
# Published reference values
# ------------------------------------------------------------------------------------------

# Fleiss (1971), as reproduced on Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters,
# 5 categories; n_ij = number of raters who put subject i into category j.
FLEISS_1971 = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


def ratings_from_counts(counts: np.ndarray, rng: np.random.Generator | None = None) -> dict:
    """Give each subject's category counts to raters (shuffled if rng), as a ratings mapping."""
    out: dict[str, dict] = {}
    for i, row in enumerate(counts):
        labels = [j + 1 for j, c in enumerate(row) for _ in range(int(c))]
        if rng is not None:
            rng.shuffle(labels)
        for k, lab in enumerate(labels):
            out.setdefault(f"rater{k}", {})[f"subject{i}"] = lab
    return out


def textbook_fleiss(counts: np.ndarray) -> float:
    """Fleiss (1971) for an equal number n of raters per subject, written out independently."""
    counts = np.asarray(counts, dtype=float)
    n_subj = counts.shape[0]
    n = counts[0].sum()
    p_j = counts.sum(axis=0) / (n_subj * n)
    p_i = (np.sum(counts**2, axis=1) - n) / (n * (n - 1))
    p_bar, p_e = p_i.mean(), np.sum(p_j**2)
    return float((p_bar - p_e) / (1 - p_e))


def test_fleiss_1971_reference_example() -> None:
    a = fleiss_kappa(ratings_from_counts(FLEISS_1971))
    assert round(a.value, 4) == 0.2099
    assert round(a.details["observed_agreement"], 3) == 0.378
    assert round(a.details["expected_agreement"], 3) == 0.213
    assert a.band == "fair" and a.n_raters == 14 and a.n_items == 10
    assert a.details["equal_raters_per_item"] is True
    # Which rater gave which answer does not matter to Fleiss' κ.
    shuffled = fleiss_kappa(ratings_from_counts(FLEISS_1971, np.random.default_rng(0)))
    assert shuffled.value == pytest.approx(a.value, abs=1e-12)


@st.composite
def equal_count_tables(draw: st.DrawFn) -> np.ndarray:
    """Subjects × 4 categories count tables with the same number n of raters on every subject."""
    n = draw(st.integers(2, 6))
    cuts = st.lists(st.integers(0, n), min_size=3, max_size=3).map(sorted)
    rows = draw(st.lists(cuts, min_size=2, max_size=15))
    return np.array([[c[0], c[1] - c[0], c[2] - c[1], n - c[2]] for c in rows])


@PROPS
@given(table=equal_count_tables())
def test_fleiss_equals_textbook_formula_when_rater_counts_are_equal(table: np.ndarray) -> None:
    ours = fleiss_kappa(ratings_from_counts(table)).value
    if np.count_nonzero(table.sum(axis=0)) == 1:
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(textbook_fleiss(table), abs=1e-12)


def test_fleiss_with_unequal_rater_counts() -> None:
    # Items rated by 2, 3 or 4 raters (and one by a single rater): must not crash.
    data = {
        "a": {1: "x", 2: "y", 3: "x", 4: "z", 5: "x", 6: "y"},
        "b": {1: "x", 2: "y", 3: "y", 4: "z", 6: "y"},
        "c": {1: "x", 3: "x", 4: "z"},
        "d": {1: "y", 4: "z"},
    }
    a = fleiss_kappa(data)
    # By hand (Gwet 2014, P_i and π_j averaged over the 5 items rated by two or more):
    # P_i = 6/12, 1, 2/6, 1, 1 -> P̄ = 23/30 = 2760/3600; π = x 17/60, y 31/60, z 12/60 ->
    # P_e = (289 + 961 + 144)/3600 = 1394/3600; κ = (2760 - 1394)/(3600 - 1394) = 1366/2206.
    assert a.value == pytest.approx(1366 / 2206, abs=1e-12) and a.n_items == 5
    assert a.details["raters_per_item"] == [2, 3, 4]
    assert a.details["equal_raters_per_item"] is False
    assert a.details["n_items_dropped"] == 1 and WARN_DROPPED_ITEMS in a.warnings
    # Gwet's (2014) formula written out: P_i on each item, π_j averaged over items.
    items = [["x", "x", "x", "y"], ["y", "y"], ["x", "y", "x"], ["z"] * 4, ["y", "y"]]
    p_i = [
        sum(it.count(c) * (it.count(c) - 1) for c in set(it)) / (len(it) * (len(it) - 1))
        for it in items
    ]
    pi = {c: np.mean([it.count(c) / len(it) for it in items]) for c in "xyz"}
    p_e = sum(v**2 for v in pi.values())
    assert a.value == pytest.approx((np.mean(p_i) - p_e) / (1 - p_e), abs=1e-12)
    # A single-rater item does not change the value.
    data["e"] = {99: "x"}
    assert fleiss_kappa(data).value == pytest.approx(a.value, abs=1e-15)


def test_fleiss_two_raters_is_scotts_pi() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.integers(0, 3, 30), rng.integers(0, 3, 30)
    po = np.mean(x == y)
    pe = sum(((np.sum(x == c) + np.sum(y == c)) / 60) ** 2 for c in range(3))
    data = {"a": dict(enumerate(x.tolist())), "b": dict(enumerate(y.tolist()))}
    assert fleiss_kappa(data).value == pytest.approx((po - pe) / (1 - pe), abs=1e-12)
    assert fleiss_kappa(data).value <= mean_pairwise_cohen_kappa(data).value + 1e-12


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers,
# 12 units, values 1-5, with missing data.
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_2011_reference_example() -> None:
    ratings = ratings_from_matrix(KRIPP_2011, raters="ABCD")
    nominal = krippendorff_alpha(ratings, level="nominal")
    assert round(nominal.value, 3) == 0.743
    assert nominal.n_items == 11  # unit 12 has one value: not pairable
    assert nominal.details["n_pairable_values"] == 40
    assert nominal.method == "krippendorff_alpha:nominal"
    # Interval 0.849, ordinal 0.815, ratio 0.797 on the same data; and the PyPI package agrees.
    expected = {"interval": 0.849, "ordinal": 0.815, "ratio": 0.797}
    matrix = np.array(KRIPP_2011, dtype=float)
    for level in KRIPPENDORFF_LEVELS:
        ours = krippendorff_alpha(ratings, level=level).value
        theirs = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert ours == pytest.approx(theirs, abs=1e-12)
        if level in expected:
            assert round(ours, 3) == expected[level]


@pytest.mark.parametrize("level", KRIPPENDORFF_LEVELS)
def test_krippendorff_matches_pypi_package_on_random_data(level: str) -> None:
    rng = np.random.default_rng(2011)
    for _ in range(25):
        n_raters, n_items = rng.integers(2, 6), rng.integers(3, 25)
        matrix = rng.integers(1, 6, size=(n_raters, n_items)).astype(float)
        matrix[rng.random(matrix.shape) < 0.25] = np.nan
        pairable = np.sum(np.sum(~np.isnan(matrix), axis=0) >= 2)
        values = matrix[:, np.sum(~np.isnan(matrix), axis=0) >= 2]
        if pairable == 0 or len(np.unique(values[~np.isnan(values)])) < 2:
            continue
        ours = krippendorff_alpha(ratings_from_matrix(matrix), level=level).value
        theirs = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert ours == pytest.approx(theirs, abs=1e-10)


def test_cohen_kappa_matches_sklearn() -> None:
    rng = np.random.default_rng(1960)
    for _ in range(30):
        n, k = rng.integers(5, 60), rng.integers(2, 6)
        x, y = rng.integers(0, k, n), rng.integers(0, k, n)
        copy = rng.random(n) < 0.5  # make y agree with x on about half the items
        y[copy] = x[copy]
        data = {"a": dict(enumerate(x.tolist())), "b": dict(enumerate(y.tolist()))}
        expected = cohen_kappa_score(x, y)
        assert cohen_kappa(x.tolist(), y.tolist()) == pytest.approx(expected, abs=1e-12)
        assert mean_pairwise_cohen_kappa(data).value == pytest.approx(expected, abs=1e-12)


def test_mean_pairwise_statistics_match_direct_computation() -> None:
    rng = np.random.default_rng(3)
    raters = {r: rng.integers(0, 5, 40) for r in "abc"}
    data = {r: dict(enumerate(v.tolist())) for r, v in raters.items()}
    pairs = list(combinations("abc", 2))
    assert mean_pairwise_cohen_kappa(data).value == pytest.approx(
        np.mean([cohen_kappa_score(raters[p], raters[q]) for p, q in pairs]), abs=1e-12
    )
    assert mean_pairwise_ari(data).value == pytest.approx(
        np.mean([adjusted_rand_score(raters[p], raters[q]) for p, q in pairs]), abs=1e-12
    )
    assert mean_pairwise_spearman(data).value == pytest.approx(
        np.mean([stats.spearmanr(raters[p], raters[q]).statistic for p, q in pairs]), abs=1e-12
    )
    assert percentage_agreement(data).value == pytest.approx(
        np.mean([np.mean(raters[p] == raters[q]) for p, q in pairs]), abs=1e-12
    )
    assert mean_pairwise_spearman(data).band in {"weak", "negative"}


def test_reranking_matches_hume_per_query_computation() -> None:
    rng = np.random.default_rng(21)
    a = {f"q{q}": rng.integers(0, 2, 7).tolist() for q in range(20)}
    b = {q: [m if rng.random() < 0.8 else 1 - m for m in marks] for q, marks in a.items()}
    b["q0"] = [0] * 7  # constant marks: ρ and τ undefined, κ defined (0) unless a is constant too
    rho, tau, kap = [], [], []
    for q in a:
        x, y = np.array(a[q]), np.array(b[q])
        if len(set(x)) > 1 and len(set(y)) > 1:
            rho.append(stats.spearmanr(x, y).statistic)
            tau.append(stats.kendalltau(x, y).statistic)
        if not (len(set(x)) == 1 and len(set(y)) == 1 and x[0] == y[0]):
            kap.append(cohen_kappa_score(x, y))
    res = reranking_agreement({"a": a, "b": b})
    assert res.method == "reranking:mean_spearman" and res.details["scale"] == "correlation"
    assert res.value == pytest.approx(np.mean(rho), abs=1e-12)
    assert res.details["mean_kendall_tau"] == pytest.approx(np.mean(tau), abs=1e-12)
    assert res.details["mean_binary_kappa"] == pytest.approx(np.mean(kap), abs=1e-12)
    assert res.details["spearman_std"] == pytest.approx(np.std(rho), abs=1e-12)
    assert res.details["n_comparisons"] == len(rho) < 20
    pool_a = [m for q in a for m in a[q]]
    pool_b = [m for q in a for m in b[q]]
    assert res.details["pooled_binary_kappa"] == pytest.approx(
        cohen_kappa_score(pool_a, pool_b), abs=1e-12
    )
    kappa = reranking_agreement({"a": a, "b": b}, statistic="binary_kappa")
    assert kappa.value == pytest.approx(np.mean(kap)) and kappa.details["scale"] == "kappa"


@PROPS
@given(marks=rerank_marks())
def test_reranking_spearman_equals_kendall_on_binary_marks(marks: dict) -> None:
    # Both reduce to the φ coefficient on 0/1 data; HUME's published blocks show the same.
    res = reranking_agreement(marks)
    assert same(res.details["mean_spearman"], res.details["mean_kendall_tau"], tol=1e-9)


def test_reranking_accepts_candidate_mappings_and_graded_marks() -> None:
    seq = {"a": {"q": [2, 1, 0, 0]}, "b": {"q": [1, 2, 0, 0]}}
    by_id = {r: {"q": {f"d{i}": m for i, m in enumerate(v["q"])}} for r, v in seq.items()}
    assert reranking_agreement(seq).value == reranking_agreement(by_id).value
    assert reranking_agreement(seq, statistic="binary_kappa").value == 1.0  # both mark d0, d1


# ------------------------------------------------------------------------------------------
# Human–machine agreement
# ------------------------------------------------------------------------------------------


def test_human_machine_agreement_is_reported_apart() -> None:
    humans = {
        "h1": {i: "pos" if i % 2 else "neg" for i in range(12)},
        "h2": {i: "pos" if i % 3 else "neg" for i in range(12)},
    }
    machines = {"gpt": dict(humans["h1"]), "e5": {i: "pos" for i in range(12)}}
    data = {**humans, **machines}
    hm = human_machine_agreement(data, ["gpt", "e5"])
    assert set(hm) == {"gpt", "e5"}
    gpt = hm["gpt"]
    assert gpt.method == "human_machine:cohen_kappa" and gpt.n_raters == 2
    assert gpt.details["per_human"]["h1"] == pytest.approx(1.0)
    expected_h2 = cohen_kappa(
        [humans["h1"][i] for i in range(12)], [humans["h2"][i] for i in range(12)]
    )
    assert gpt.details["per_human"]["h2"] == pytest.approx(expected_h2)
    assert gpt.value == pytest.approx((1.0 + expected_h2) / 2)
    assert hm["e5"].value == pytest.approx(0.0)  # constant machine: chance-level κ
    # The human-human number is untouched by the machines.
    assert mean_pairwise_cohen_kappa(data, machine_raters=["gpt", "e5"]).value == pytest.approx(
        mean_pairwise_cohen_kappa(humans).value
    )


@pytest.mark.parametrize(
    "statistic",
    ["cohen_kappa", "percentage_agreement", "spearman", "ari", "reranking_spearman",
     "reranking_kendall_tau", "reranking_binary_kappa"],
)  # fmt: skip
def test_human_machine_identical_machine_scores_one(statistic: str) -> None:
    if statistic.startswith("reranking"):
        human = {f"q{q}": [1, 0, 0, 1, 0, 0, q % 2] for q in range(4)}
    else:
        human = {i: i % 4 for i in range(12)}
    res = human_machine_agreement({"h": human, "m": human}, ["m"], statistic=statistic)
    assert res["m"].value == pytest.approx(1.0)
    assert res["m"].method == f"human_machine:{statistic}"


def test_human_machine_errors_and_no_humans() -> None:
    with pytest.raises(InvalidInputError, match="not in ratings"):
        human_machine_agreement({"h": {1: "x"}}, ["gpt"])
    with pytest.raises(InvalidInputError):
        human_machine_agreement({"h": {1: "x"}}, ["h"], statistic="fleiss")
    alone = human_machine_agreement({"m": {1: "x", 2: "y"}}, ["m"])["m"]
    assert math.isnan(alone.value) and WARN_NO_HUMANS in alone.warnings


# ------------------------------------------------------------------------------------------
# Bands and flags
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "band"),
    [(-0.1, "poor"), (0.0, "slight"), (0.2, "slight"), (0.21, "fair"), (0.4, "fair"),
     (0.41, "moderate"), (0.6, "moderate"), (0.7, "substantial"), (0.8, "substantial"),
     (0.81, "excellent"), (1.0, "excellent"), (math.nan, "undefined")],
)  # fmt: skip
def test_kappa_bands(value: float, band: str) -> None:
    assert kappa_band(value) == band
    assert agreement_band(value, "kappa") == band


@pytest.mark.parametrize(
    ("value", "band"),
    [(-0.3, "negative"), (0.0, "weak"), (0.4, "weak"), (0.5, "moderate"), (0.7, "moderate"),
     (0.71, "strong"), (math.nan, "undefined")],
)  # fmt: skip
def test_correlation_bands(value: float, band: str) -> None:
    assert correlation_band(value) == band


def _agreement(value: float, method: str) -> Agreement:
    return Agreement(value=value, method=method, band="", n_raters=2, n_items=30)


def test_low_and_high_flags() -> None:
    assert low_agreement(_agreement(0.39, "fleiss_kappa"))
    assert not low_agreement(_agreement(0.4, "mean_pairwise_cohen_kappa"))
    assert high_agreement(_agreement(0.61, "krippendorff_alpha:nominal"))
    assert not high_agreement(_agreement(0.6, "mean_pairwise_ari"))
    assert low_agreement(_agreement(0.59, "mean_pairwise_spearman"))
    assert not low_agreement(_agreement(0.6, "reranking:mean_kendall_tau"))
    assert high_agreement(_agreement(0.71, "mean_pairwise_spearman"))
    assert not high_agreement(_agreement(0.65, "mean_pairwise_spearman"))
    assert high_agreement(_agreement(0.65, "reranking:mean_binary_kappa"))  # κ scale
    nan = _agreement(math.nan, "fleiss_kappa")
    assert not low_agreement(nan) and not high_agreement(nan)
    with pytest.raises(InvalidInputError, match="not chance-corrected"):
        low_agreement(percentage_agreement({"a": {1: "x"}, "b": {1: "x"}}))
    with pytest.raises(InvalidInputError):
        high_agreement(_agreement(0.9, "mystery"))


# ------------------------------------------------------------------------------------------
# HUME's published agreement blocks (no invented data: the numbers are read from the files)
# ------------------------------------------------------------------------------------------


def _published() -> dict[tuple[str, str], dict[str, Any]]:
    assert HUMAN_RESULTS.is_dir(), f"published human results missing: {HUMAN_RESULTS}"
    out = {}
    for path in sorted(HUMAN_RESULTS.glob("HUME*.json")):
        for block in json.loads(path.read_text())["scores"]["test"]:
            if block.get("agreement"):
                out[(path.stem, block["hf_subset"])] = block["agreement"]
    assert len(out) == 16  # the English subsets with two annotators
    return out


def test_published_classification_agreement_is_internally_consistent() -> None:
    blocks = {k: v for k, v in _published().items() if v.get("metric") == "fleiss_kappa"}
    assert len(blocks) == 4
    for (task, _), b in blocks.items():
        n, po = b["n_items"], b["mean_percentage_agreement"]
        assert b["n_annotators"] == 2 and b["total_annotations"] == 2 * n
        # Percentage agreement of two raters is a whole number of items over n.
        assert po * n == pytest.approx(round(po * n), abs=1e-9), task
        # Fleiss' κ with two raters is Scott's π with P̄ = percentage agreement: the implied
        # chance agreement must be a sum of squared counts over (2n)².
        pe_fleiss = (po - b["value"]) / (1 - b["value"])
        assert pe_fleiss * (2 * n) ** 2 == pytest.approx(round(pe_fleiss * (2 * n) ** 2), abs=1e-6)
        # Cohen's κ: the implied chance agreement is a sum of count products over n².
        k = b["mean_pairwise_kappa"]
        pe_cohen = (po - k) / (1 - k)
        assert pe_cohen * n**2 == pytest.approx(round(pe_cohen * n**2), abs=1e-6)
        # Scott's π never exceeds Cohen's κ (its chance term is larger).
        assert b["value"] <= k


def test_published_interpretation_follows_pairwise_kappa_bands() -> None:
    blocks = {k: v for k, v in _published().items() if v.get("metric") == "fleiss_kappa"}
    for b in blocks.values():
        assert kappa_band(b["mean_pairwise_kappa"]) == b["interpretation"].lower()
    # Emotion: Fleiss 0.386 is "fair" on the paper's bands, while the file says "Moderate"
    # because its label follows the mean pairwise κ (0.403).
    emo = blocks[("HUMEEmotionClassification", "default")]
    assert kappa_band(emo["value"]) == "fair" and emo["interpretation"] == "Moderate"


def test_published_reranking_blocks_show_spearman_equal_to_kendall() -> None:
    blocks = {k: v for k, v in _published().items() if "mean_spearman" in v}
    assert len(blocks) == 4
    for b in blocks.values():
        assert b["mean_spearman"] == pytest.approx(b["mean_kendall_tau"], abs=1e-12)
        assert b["n_comparisons"] <= b["n_items"]
        assert -1 <= b["mean_binary_kappa"] <= 1


def test_published_low_agreement_tasks_are_flagged() -> None:
    pub = _published()
    emotion = _agreement(pub[("HUMEEmotionClassification", "default")]["value"], "fleiss_kappa")
    arxiv = _agreement(pub[("HUMEArxivClusteringP2P", "default")]["value"], "mean_pairwise_ari")
    wiki = _agreement(pub[("HUMEWikiCitiesClustering", "default")]["value"], "mean_pairwise_ari")
    stsb = _agreement(pub[("HUMESTSBenchmark", "default")]["value"], "mean_pairwise_spearman")
    sts12 = _agreement(pub[("HUMESTS12", "default")]["value"], "mean_pairwise_spearman")
    assert low_agreement(emotion) and low_agreement(arxiv)  # the paper's examples
    assert kappa_band(arxiv.value) == "poor"  # ARI ≈ −0.001
    assert high_agreement(wiki) and kappa_band(wiki.value) == "excellent"
    assert low_agreement(stsb) and not high_agreement(stsb)
    assert high_agreement(sts12) and correlation_band(sts12.value) == "strong"
