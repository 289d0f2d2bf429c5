"""Tests for scoring.metrics: common properties, reference implementations, tie conventions.

In the style of scikit-learn's test_common: every metric is checked for its range, for the
symmetries and invariances it should have, for typed errors on degenerate input, and against an
independent reference (sklearn, scipy, pytrec_eval, mteb, or brute-force enumeration).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

from scoring import metrics as m
from scoring.errors import DegenerateInputError, InvalidInputError, ScoringError

FAST = settings(max_examples=50, deadline=None)
#: for properties whose every example runs several sklearn metrics (each ~ms of validation)
SKLEARN = settings(max_examples=25, deadline=None)

# ------------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------------


@st.composite
def label_pairs(draw: st.DrawFn, alphabet: Sequence[Any] = ("a", "b", "c", "d")) -> tuple:
    n = draw(st.integers(1, 25))
    gold = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    pred = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    return gold, pred


@st.composite
def rankings(draw: st.DrawFn, max_n: int = 7, levels: int = 3) -> tuple[list[int], list[float]]:
    """One query: binary relevance with at least one relevant item, scores with many ties."""
    n = draw(st.integers(1, max_n))
    rel = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    rel[draw(st.integers(0, n - 1))] = 1
    scores = draw(st.lists(st.integers(0, levels - 1), min_size=n, max_size=n))
    return rel, [float(s) for s in scores]


@st.composite
def rating_pairs(draw: st.DrawFn) -> tuple[list[float], list[float]]:
    n = draw(st.integers(3, 30))
    vals = st.integers(0, 5).map(float)
    gold = draw(st.lists(vals, min_size=n, max_size=n).filter(lambda v: len(set(v)) > 1))
    pred = draw(st.lists(vals, min_size=n, max_size=n).filter(lambda v: len(set(v)) > 1))
    return gold, pred


# ------------------------------------------------------------------------------------------
# independent references
# ------------------------------------------------------------------------------------------


def ap_of_order(rel_in_rank_order: Sequence[int]) -> float:
    """Non-interpolated AP of one fixed ranking (the textbook definition)."""
    hits, total = 0, 0.0
    for rank, r in enumerate(rel_in_rank_order, start=1):
        if r:
            hits += 1
            total += hits / rank
    return total / sum(rel_in_rank_order)


def rr_of_order(rel_in_rank_order: Sequence[int], k: int) -> float:
    for rank, r in enumerate(rel_in_rank_order[:k], start=1):
        if r:
            return 1.0 / rank
    return 0.0


def ndcg_of_order(rel_in_rank_order: Sequence[int], k: int) -> float:
    dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rel_in_rank_order[:k]))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(sum(rel_in_rank_order), k)))
    return dcg / ideal


def all_tie_orders(scores: Sequence[float]) -> list[list[int]]:
    """Every ranking (indices, best first) that sorts by score with any order inside ties."""
    levels = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == lv] for lv in levels]
    return [
        [i for block in choice for i in block]
        for choice in itertools.product(*(itertools.permutations(g) for g in groups))
    ]


def brute_expected(
    rel: Sequence[int], scores: Sequence[float], of_order: Callable[[list[int]], float]
) -> float:
    orders = all_tie_orders(scores)
    return sum(of_order([rel[i] for i in o]) for o in orders) / len(orders)


def trec_order(scores: Sequence[float]) -> list[int]:
    """trec_eval's order as documented: score descending, then document id descending."""
    return sorted(range(len(scores)), key=lambda i: (scores[i], i), reverse=True)


# ------------------------------------------------------------------------------------------
# the worked example from the reference: one query, 7 candidates, binary marks
# ------------------------------------------------------------------------------------------

TIE_EXAMPLE_REL = [0, 0, 1, 0, 1, 0, 0]
TIE_EXAMPLE_MARKS = [1, 0, 1, 0, 0, 0, 0]


def test_tie_example_reproduces_reference_numbers() -> None:
    """0.393 (sklearn), 0.700 (trec_eval), 0.594 (expected over tie orders), as in hume.md."""
    sk = m.average_precision(TIE_EXAMPLE_REL, TIE_EXAMPLE_MARKS, "sklearn")
    trec = m.average_precision(TIE_EXAMPLE_REL, TIE_EXAMPLE_MARKS, "trec_eval")
    exp = m.average_precision(TIE_EXAMPLE_REL, TIE_EXAMPLE_MARKS, "expected_ties")
    assert round(sk.value, 3) == 0.393 and sk.value == pytest.approx(11 / 28)
    assert round(trec.value, 3) == 0.700 and trec.value == pytest.approx(0.7)
    assert round(exp.value, 3) == 0.594 and exp.value == pytest.approx(831 / 1400)
    assert (sk.method, trec.method, exp.method) == (
        "map:sklearn",
        "map:trec_eval",
        "map:expected_ties",
    )


def test_trec_eval_tie_break_is_candidate_id_descending() -> None:
    """pytrec_eval on string ids: tied documents come out by id descending (later first)."""
    qrel = {"q": {"d0": 1, "d1": 0, "d2": 0}}
    run = {"q": {"d0": 1.0, "d1": 1.0, "d2": 1.0}}
    res = pytrec_eval.RelevanceEvaluator(qrel, {"recip_rank"}).evaluate(run)
    assert res["q"]["recip_rank"] == pytest.approx(1 / 3)
    # ours: the first candidate ties with two later ones, so it ranks last
    assert m.mrr_at_k([1, 0, 0], [1.0, 1.0, 1.0]).value == pytest.approx(1 / 3)
    assert m.mrr_at_k([1, 0, 0], [1.0, 1.0, 1.0], ties="input_order").value == 1.0
    assert m.average_precision([1, 0, 0], [5.0, 5.0, 5.0], "trec_eval").value == pytest.approx(
        1 / 3
    )


def test_many_candidates_keep_order_in_trec_ids() -> None:
    """Ids sort as strings; with >= 10 candidates naive ids ('c10' < 'c9') would reorder ties."""
    rel = [0] * 11 + [1]
    scores = [0.0] * 12
    assert m.average_precision(rel, scores, "trec_eval").value == 1.0  # last id ranks first
    rel = [1] + [0] * 11
    assert m.average_precision(rel, scores, "trec_eval").value == pytest.approx(1 / 12)


# ------------------------------------------------------------------------------------------
# reranking: references
# ------------------------------------------------------------------------------------------


@FAST
@given(rankings())
def test_ap_sklearn_matches_sklearn(q: tuple[list[int], list[float]]) -> None:
    rel, scores = q
    assert m.average_precision(rel, scores, "sklearn").value == pytest.approx(
        skm.average_precision_score(rel, scores), abs=1e-12
    )


@FAST
@given(rankings(max_n=12))
def test_ap_trec_eval_matches_pytrec_eval_map_and_documented_order(
    q: tuple[list[int], list[float]],
) -> None:
    rel, scores = q
    ids = [f"doc{i:04d}" for i in range(len(rel))]
    qrel = {"x": dict(zip(ids, rel, strict=True))}
    run = {"x": dict(zip(ids, scores, strict=True))}
    ref = pytrec_eval.RelevanceEvaluator(qrel, {"map"}).evaluate(run)["x"]["map"]
    ours = m.average_precision(rel, scores, "trec_eval").value
    assert ours == pytest.approx(ref, abs=1e-12)
    assert ours == pytest.approx(ap_of_order([rel[i] for i in trec_order(scores)]), abs=1e-12)


@FAST
@given(rankings(max_n=7, levels=3))
def test_expected_ties_equal_brute_force_over_all_tie_orders(
    q: tuple[list[int], list[float]],
) -> None:
    rel, scores = q
    assert m.average_precision(rel, scores, "expected_ties").value == pytest.approx(
        brute_expected(rel, scores, ap_of_order), abs=1e-12
    )
    for k in (1, 3, 10):
        exp_rr = brute_expected(rel, scores, lambda o, k=k: rr_of_order(o, k))
        exp_ndcg = brute_expected(rel, scores, lambda o, k=k: ndcg_of_order(o, k))
        assert m.mrr_at_k(rel, scores, k, "expected_ties").value == pytest.approx(exp_rr)
        assert m.ndcg_at_k(rel, scores, k, "expected_ties").value == pytest.approx(exp_ndcg)


@FAST
@given(rankings(max_n=12), st.sampled_from([1, 3, 5, 10]))
def test_mrr_and_ndcg_trec_eval_follow_documented_order(
    q: tuple[list[int], list[float]], k: int
) -> None:
    rel, scores = q
    ranked = [rel[i] for i in trec_order(scores)]
    assert m.mrr_at_k(rel, scores, k).value == pytest.approx(rr_of_order(ranked, k))
    assert m.ndcg_at_k(rel, scores, k).value == pytest.approx(ndcg_of_order(ranked, k))


@FAST
@given(rankings(max_n=12))
def test_mrr_matches_pytrec_recip_rank_when_k_covers_all(q: tuple[list[int], list[float]]) -> None:
    rel, scores = q
    ids = [f"doc{i:04d}" for i in range(len(rel))]
    res = pytrec_eval.RelevanceEvaluator(
        {"x": dict(zip(ids, rel, strict=True))}, {"recip_rank"}
    ).evaluate({"x": dict(zip(ids, scores, strict=True))})
    assert m.mrr_at_k(rel, scores, k=len(rel)).value == pytest.approx(res["x"]["recip_rank"])


@FAST
@given(rankings(max_n=12), st.sampled_from([1, 3, 10]))
def test_input_order_is_stable_argsort_ranking(q: tuple[list[int], list[float]], k: int) -> None:
    """HUME ranked marks with np.argsort(-marks); input_order is that sort made stable."""
    rel, scores = q
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranked = [rel[i] for i in order]
    assert m.mrr_at_k(rel, scores, k, "input_order").value == pytest.approx(rr_of_order(ranked, k))
    gains = [(2**r - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k])]
    ideal = [1 / math.log2(i + 2) for i in range(min(sum(rel), k))]
    assert m.ndcg_at_k(rel, scores, k, "input_order").value == pytest.approx(
        sum(gains) / sum(ideal)
    )


def test_means_match_mteb_v2_retrieval_scores() -> None:
    """mteb v2's own scorer (pytrec_eval map_cut/ndcg_cut, its MRR) on the same tied run."""
    retrieval_metrics = pytest.importorskip("mteb._evaluators.retrieval_metrics")
    rng = np.random.default_rng(0)
    queries = {}
    qrels: dict[str, dict[str, int]] = {}
    results: dict[str, dict[str, float]] = {}
    for qi in range(25):
        rel = rng.integers(0, 2, 7)
        rel[rng.integers(0, 7)] = 1
        scores = rng.integers(0, 3, 7).astype(float)  # heavy ties
        qid = f"q{qi}"
        queries[qid] = (rel.tolist(), scores.tolist())
        ids = [f"c{i:06d}" for i in range(7)]  # the id scheme metrics documents
        qrels[qid] = {d: int(r) for d, r in zip(ids, rel, strict=True)}
        results[qid] = {d: float(s) for d, s in zip(ids, scores, strict=True)}
    ref = retrieval_metrics.calculate_retrieval_scores(results, qrels, [1, 3, 5, 10, 1000])
    assert ref.map["MAP@1000"] == round(m.mean_average_precision(queries, "trec_eval").value, 5)
    assert ref.ndcg["NDCG@10"] == round(m.mean_ndcg_at_k(queries, 10).value, 5)
    assert ref.mrr["MRR@10"] == pytest.approx(m.mean_mrr_at_k(queries, 10).value, abs=1e-12)
    assert ref.mrr["MRR@1"] == pytest.approx(m.mean_mrr_at_k(queries, 1).value, abs=1e-12)
    # the sklearn convention differs on this tied run: the test would notice a silent swap
    assert m.mean_average_precision(queries, "sklearn").value != pytest.approx(
        ref.map["MAP@1000"], abs=1e-3
    )


# ------------------------------------------------------------------------------------------
# reranking: properties
# ------------------------------------------------------------------------------------------

RANKING_METRICS: dict[str, Callable[[Any, Any], float]] = {
    **{f"ap:{a}": (lambda r, s, a=a: m.average_precision(r, s, a).value) for a in m.AP_METHODS},
    **{f"mrr:{t}": (lambda r, s, t=t: m.mrr_at_k(r, s, 10, t).value) for t in m.TIE_RULES},
    **{f"ndcg:{t}": (lambda r, s, t=t: m.ndcg_at_k(r, s, 10, t).value) for t in m.TIE_RULES},
}


@pytest.mark.parametrize("name", sorted(RANKING_METRICS))
@FAST
@given(q=rankings(max_n=10))
def test_ranking_metrics_lie_in_unit_interval(name: str, q: tuple[list[int], list[float]]) -> None:
    value = RANKING_METRICS[name](*q)
    assert 0.0 <= value <= 1.0 + 1e-12


@pytest.mark.parametrize("name", sorted(RANKING_METRICS))
@FAST
@given(q=rankings(max_n=10), scale=st.floats(0.1, 10.0), shift=st.floats(-5.0, 5.0))
def test_ranking_metrics_invariant_to_increasing_score_transform(
    name: str, q: tuple[list[int], list[float]], scale: float, shift: float
) -> None:
    rel, scores = q
    moved = [math.exp(scale * s) + shift for s in scores]  # strictly increasing, keeps ties
    assert RANKING_METRICS[name](rel, moved) == pytest.approx(RANKING_METRICS[name](rel, scores))


@pytest.mark.parametrize(
    "name", ["ap:sklearn", "ap:expected_ties", "mrr:expected_ties", "ndcg:expected_ties"]
)
@FAST
@given(q=rankings(max_n=8), seed=st.integers(0, 2**16))
def test_tie_free_conventions_ignore_candidate_order(
    name: str, q: tuple[list[int], list[float]], seed: int
) -> None:
    rel, scores = q
    perm = np.random.default_rng(seed).permutation(len(rel))
    permuted = ([rel[i] for i in perm], [scores[i] for i in perm])
    assert RANKING_METRICS[name](*permuted) == pytest.approx(RANKING_METRICS[name](rel, scores))


@FAST
@given(st.integers(1, 10).flatmap(lambda n: st.tuples(st.just(n), st.permutations(range(n)))))
def test_all_conventions_agree_without_ties(n_perm: tuple[int, list[int]]) -> None:
    n, order = n_perm
    rel = [int(i % 2 == 0) for i in range(n)]
    scores = [float(s) for s in order]
    aps = {a: m.average_precision(rel, scores, a).value for a in m.AP_METHODS}
    assert max(aps.values()) - min(aps.values()) < 1e-12
    for k in (1, 5):
        rrs = {m.mrr_at_k(rel, scores, k, t).value for t in m.TIE_RULES}
        ndcgs = [m.ndcg_at_k(rel, scores, k, t).value for t in m.TIE_RULES]
        assert len(rrs) == 1 and max(ndcgs) - min(ndcgs) < 1e-12


def test_perfect_and_worst_rankings() -> None:
    rel = [1, 1, 0, 0, 0]
    for a in m.AP_METHODS:
        assert m.average_precision(rel, [5, 4, 3, 2, 1], a).value == pytest.approx(1.0)
    assert m.average_precision(rel, [1, 2, 3, 4, 5], "trec_eval").value == pytest.approx(
        (1 / 4 + 2 / 5) / 2
    )
    assert m.mrr_at_k(rel, [1, 2, 3, 4, 5], k=3).value == 0.0  # first hit at rank 4 > k
    assert m.ndcg_at_k(rel, [1, 2, 3, 4, 5], k=3).value == 0.0


# ------------------------------------------------------------------------------------------
# reranking: means over queries
# ------------------------------------------------------------------------------------------


def test_mean_average_precision_skips_and_counts_queries_without_relevant() -> None:
    queries = {"a": ([1, 0, 0], [3, 2, 1]), "b": ([0, 0, 0], [3, 2, 1]), "c": ([0, 1], [1, 0])}
    score = m.mean_average_precision(queries, "trec_eval")
    assert score.value == pytest.approx((1.0 + 0.5) / 2)
    assert score.method == "mean_over_queries(map:trec_eval)"
    assert score.n_items == 2
    assert score.details["n_no_relevant"] == 1 and score.details["no_relevant_queries"] == ["b"]
    assert score.details["per_query"] == {"a": 1.0, "c": 0.5}
    zeroed = m.mean_average_precision(queries, "trec_eval", skip_no_relevant=False)
    assert zeroed.value == pytest.approx(1.5 / 3) and zeroed.n_items == 3


def test_mean_functions_accept_lists_and_name_methods() -> None:
    queries = [([1, 0, 0], [1, 1, 0]), ([0, 1, 0], [1, 1, 0])]
    assert m.mean_mrr_at_k(queries).method == "mean_over_queries(mrr@10)"
    assert m.mean_ndcg_at_k(queries, 5, "input_order").method == (
        "mean_over_queries(ndcg@5:input_order)"
    )
    rr = m.mean_mrr_at_k(queries, ties="input_order")
    assert rr.value == pytest.approx((1.0 + 0.5) / 2)
    assert rr.details["per_query"] == {0: 1.0, 1: 0.5}


@pytest.mark.parametrize(
    "fn",
    [m.mean_average_precision, m.mean_mrr_at_k, m.mean_ndcg_at_k],
)
def test_mean_functions_reject_empty_and_all_degenerate(fn: Callable[..., Any]) -> None:
    with pytest.raises(InvalidInputError, match="queries"):
        fn([])
    with pytest.raises(DegenerateInputError, match="no query"):
        fn([([0, 0], [1, 2])])
    with pytest.raises(InvalidInputError, match=r"queries\[1\]"):
        fn([([1, 0], [1, 2]), ([1, 0], [1])])
    with pytest.raises(InvalidInputError, match="pair"):
        fn([([1, 0], [1, 2], [3, 4])])


# ------------------------------------------------------------------------------------------
# classification and clustering
# ------------------------------------------------------------------------------------------


@SKLEARN
@given(label_pairs())
def test_accuracy_matches_sklearn_like_mteb(pair: tuple[list[str], list[str]]) -> None:
    gold, pred = pair
    s = m.accuracy(gold, pred)
    assert s.method == "accuracy" and s.n_items == len(gold)
    assert s.value == skm.accuracy_score(gold, pred)
    assert s.details["f1"] == pytest.approx(
        skm.f1_score(gold, pred, average="macro", zero_division=0)
    )
    assert s.details["f1_weighted"] == pytest.approx(
        skm.f1_score(gold, pred, average="weighted", zero_division=0)
    )
    assert s.details["precision"] == pytest.approx(
        skm.precision_score(gold, pred, average="macro", zero_division=0)
    )
    assert s.details["recall"] == pytest.approx(
        skm.recall_score(gold, pred, average="macro", zero_division=0)
    )
    for key in ("f1", "f1_weighted", "precision", "recall"):
        assert 0.0 <= s.details[key] <= 1.0
    assert 0.0 <= s.value <= 1.0


@SKLEARN
@given(label_pairs(alphabet=(0, 1, 2, 3)), st.permutations([7, 8, 9, 10]))
def test_accuracy_invariant_to_consistent_relabelling(
    pair: tuple[list[int], list[int]], new: list[int]
) -> None:
    gold, pred = pair
    mapping = dict(enumerate(new))
    relabelled = m.accuracy([mapping[g] for g in gold], [mapping[p] for p in pred])
    original = m.accuracy(gold, pred)
    assert relabelled.value == original.value
    assert relabelled.details["f1"] == pytest.approx(original.details["f1"])


def test_accuracy_not_invariant_to_relabelling_only_predictions() -> None:
    """Guard: accuracy must compare labels, not partitions (unlike v-measure)."""
    assert m.accuracy(["a", "b"], ["a", "b"]).value == 1.0
    assert m.accuracy(["a", "b"], ["b", "a"]).value == 0.0


@SKLEARN
@given(label_pairs())
def test_v_measure_matches_sklearn_and_is_symmetric(pair: tuple[list[str], list[str]]) -> None:
    gold, pred = pair
    s = m.v_measure(gold, pred)
    assert s.method == "v_measure"
    assert s.value == pytest.approx(skm.v_measure_score(gold, pred))
    assert s.details["ari"] == pytest.approx(skm.adjusted_rand_score(gold, pred))
    assert s.details["ami"] == pytest.approx(skm.adjusted_mutual_info_score(gold, pred))
    assert -1e-12 <= s.value <= 1.0 + 1e-12
    swapped = m.v_measure(pred, gold)
    assert swapped.value == pytest.approx(s.value)
    assert swapped.details["ari"] == pytest.approx(s.details["ari"])


@SKLEARN
@given(label_pairs(), st.permutations(["w", "x", "y", "z"]))
def test_v_measure_invariant_to_any_renaming_of_clusters(
    pair: tuple[list[str], list[str]], names: list[str]
) -> None:
    gold, pred = pair
    rename = dict(zip(["a", "b", "c", "d"], names, strict=True))
    renamed = m.v_measure(gold, [rename[p] for p in pred])
    assert renamed.value == pytest.approx(m.v_measure(gold, pred).value)
    # clusters may even be named with integers: only the partition matters
    as_ints = m.v_measure(gold, [ord(p) for p in pred])
    assert as_ints.value == pytest.approx(renamed.value)


# ------------------------------------------------------------------------------------------
# STS
# ------------------------------------------------------------------------------------------


@FAST
@given(rating_pairs())
def test_correlations_match_scipy_are_bounded_and_symmetric(
    pair: tuple[list[float], list[float]],
) -> None:
    gold, pred = pair
    rho = m.spearman(gold, pred)
    r = m.pearson(gold, pred)
    assert rho.method == "spearman" and r.method == "pearson"
    assert rho.value == pytest.approx(stats.spearmanr(gold, pred).statistic)
    assert r.value == pytest.approx(stats.pearsonr(gold, pred).statistic)
    assert -1 - 1e-12 <= rho.value <= 1 + 1e-12 and -1 - 1e-12 <= r.value <= 1 + 1e-12
    assert m.spearman(pred, gold).value == pytest.approx(rho.value)
    assert m.pearson(pred, gold).value == pytest.approx(r.value)
    assert rho.details["pearson"] == pytest.approx(r.value)


@FAST
@given(rating_pairs(), st.floats(0.01, 100.0))
def test_spearman_invariant_to_monotone_rescaling_of_gold(
    pair: tuple[list[float], list[float]], scale: float
) -> None:
    """Why MTEB's [0, 1] gold normalisation cannot change the STS main score."""
    gold, pred = pair
    rescaled = [math.log1p(scale * g) for g in gold]
    assert m.spearman(rescaled, pred).value == pytest.approx(m.spearman(gold, pred).value)


# ------------------------------------------------------------------------------------------
# degenerate and invalid input: the typed errors
# ------------------------------------------------------------------------------------------

PAIRWISE = {
    "accuracy": m.accuracy,
    "v_measure": m.v_measure,
    "spearman": m.spearman,
    "pearson": m.pearson,
    "average_precision": m.average_precision,
    "mrr_at_k": m.mrr_at_k,
    "ndcg_at_k": m.ndcg_at_k,
}


@pytest.mark.parametrize("name", sorted(PAIRWISE))
def test_empty_input_raises_invalid(name: str) -> None:
    with pytest.raises(InvalidInputError):
        PAIRWISE[name]([], [])


@pytest.mark.parametrize("name", sorted(PAIRWISE))
def test_length_mismatch_raises_invalid_and_names_arguments(name: str) -> None:
    with pytest.raises(InvalidInputError, match="length mismatch"):
        PAIRWISE[name]([1, 0, 1], [1, 0])


@pytest.mark.parametrize("name", ["spearman", "pearson"])
def test_constant_ratings_raise_degenerate(name: str) -> None:
    with pytest.raises(DegenerateInputError, match="pred: constant"):
        PAIRWISE[name]([1, 2, 3], [2, 2, 2])
    with pytest.raises(DegenerateInputError, match="gold: constant"):
        PAIRWISE[name]([3, 3, 3], [1, 2, 3])


@pytest.mark.parametrize("name", ["spearman", "pearson", "average_precision", "ndcg_at_k"])
def test_nan_raises_invalid(name: str) -> None:
    with pytest.raises(InvalidInputError, match="NaN"):
        PAIRWISE[name]([1, 0, 1], [0.2, float("nan"), 0.1])


@pytest.mark.parametrize("name", ["average_precision", "mrr_at_k", "ndcg_at_k"])
def test_no_relevant_candidate_raises_degenerate(name: str) -> None:
    with pytest.raises(DegenerateInputError, match="relevance: no relevant"):
        PAIRWISE[name]([0, 0, 0], [0.3, 0.2, 0.1])


@pytest.mark.parametrize("name", ["average_precision", "mrr_at_k", "ndcg_at_k"])
def test_non_binary_relevance_raises_invalid(name: str) -> None:
    with pytest.raises(InvalidInputError, match="relevance: expected binary"):
        PAIRWISE[name]([2, 0, 1], [0.3, 0.2, 0.1])


def test_unknown_method_or_bad_k_raises_invalid() -> None:
    with pytest.raises(InvalidInputError, match="average-precision method"):
        m.average_precision([1, 0], [1, 0], "interpolated")
    with pytest.raises(InvalidInputError, match="tie rule"):
        m.mrr_at_k([1, 0], [1, 0], ties="random")
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InvalidInputError, match="k:"):
            m.ndcg_at_k([1, 0], [1, 0], k=bad)


def test_label_type_problems_raise_invalid() -> None:
    with pytest.raises(InvalidInputError, match="pred: mixes"):
        m.accuracy(["a", "b"], ["a", 1])
    with pytest.raises(InvalidInputError, match="label types differ"):
        m.accuracy(["a", "b"], [0, 1])
    with pytest.raises(InvalidInputError, match="gold: contains a missing"):
        m.v_measure(["a", None], ["x", "y"])
    with pytest.raises(InvalidInputError, match="gold: expected a sequence"):
        m.accuracy("ab", "ab")


def test_correlations_need_two_points() -> None:
    with pytest.raises(InvalidInputError, match="at least 2"):
        m.spearman([1.0], [2.0])
    two = m.spearman([1.0, 2.0], [3.0, 5.0])
    assert two.value == pytest.approx(1.0) and two.details["pvalue"] is None


def test_all_errors_are_scoring_errors_and_value_errors() -> None:
    """Callers catch ScoringError (a ValueError); nothing else may escape on bad input."""
    for call in (
        lambda: m.accuracy([1], []),
        lambda: m.spearman([1, 1], [1, 2]),
        lambda: m.mean_average_precision([([0], [1])]),
    ):
        with pytest.raises(ScoringError) as info:
            call()
        assert isinstance(info.value, ValueError)
