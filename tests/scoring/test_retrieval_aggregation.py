"""A person's grades as a ranking of the pool, scored as pytrec_eval scores it (issue 35)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import pytrec_eval

from scoring.aggregation.retrieval import human_retrieval, ranking_scores
from scoring.errors import DegenerateInputError, InvalidInputError

MEASURES = {"ndcg_cut.10", "map_cut.1000", "recall.10", "recip_rank"}


def _trec(qrels: dict[str, int], ranking: list[str]) -> dict[str, float]:
    """pytrec_eval on an explicit ranking (scores n, n-1, ...: no ties to break)."""
    run = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    got = pytrec_eval.RelevanceEvaluator({"q": qrels}, MEASURES).evaluate({"q": run})["q"]
    return {
        "ndcg_at_10": got["ndcg_cut_10"],
        "map": got["map_cut_1000"],
        "recall_at_10": got["recall_10"],
        "mrr_at_10": got["recip_rank"] if ranking.index(_first(qrels, ranking)) < 10 else 0.0,
    }


def _first(qrels: dict[str, int], ranking: list[str]) -> str:
    return next(d for d in ranking if qrels.get(d, 0) > 0)


QRELS = {"a": 2, "b": 1, "c": 0, "x": 1}  # x is relevant but outside the pool


def test_distinct_grades_are_one_ranking_under_both_rules() -> None:
    grades = {"c": 3, "b": 2, "a": 1, "u": 0}  # ranking c b a u; u unjudged
    want = _trec(QRELS, ["c", "b", "a", "u"])
    for ties in ("expected_ties", "input_order"):
        got = ranking_scores(QRELS, grades, ties)
        for key, value in want.items():
            assert got[key] == pytest.approx(value, abs=1e-12), (ties, key)
        # judged in the top 10: c, b, a (u is not): 3 of 10 places.
        assert got["judged_at_10"] == pytest.approx(0.3)


def test_input_order_breaks_ties_in_the_shown_order() -> None:
    grades = {"u": 1, "c": 1, "a": 1, "b": 0}  # all of u, c, a tie; shown in that order
    got = ranking_scores(QRELS, grades, "input_order")
    want = _trec(QRELS, ["u", "c", "a", "b"])
    assert got["ndcg_at_10"] == pytest.approx(want["ndcg_at_10"], abs=1e-12)
    assert got["map"] == pytest.approx(want["map"], abs=1e-12)
    assert got["mrr_at_10"] == pytest.approx(1 / 3)


def test_expected_ties_is_the_mean_over_every_order_within_a_grade() -> None:
    """Brute force, independent of the closed forms: every order of each tied group."""
    grades = {"u": 1, "c": 1, "a": 1, "b": 0, "v": 0, "w": 2}
    groups = [["w"], ["u", "c", "a"], ["b", "v"]]
    orders = [
        [d for g in perm for d in g]
        for perm in itertools.product(*(itertools.permutations(g) for g in groups))
    ]
    runs = [_trec(QRELS, list(o)) for o in orders]
    judged = [sum(d in QRELS for d in o[:10]) / 10 for o in orders]
    got = ranking_scores(QRELS, grades, "expected_ties")
    for key in ("ndcg_at_10", "map", "recall_at_10", "mrr_at_10"):
        assert got[key] == pytest.approx(np.mean([r[key] for r in runs]), abs=1e-12), key
    assert got["judged_at_10"] == pytest.approx(np.mean(judged), abs=1e-12)


def test_the_condensed_score_removes_unjudged_documents_first() -> None:
    """pytrec_eval's judged-only mode on the same ranking gives the condensed nDCG."""
    grades = {"u": 2, "v": 2, "b": 1, "a": 0, "c": 0}
    got = ranking_scores(QRELS, grades, "input_order")
    run = {d: float(10 - i) for i, d in enumerate(["u", "v", "b", "a", "c"])}
    judged_only = pytrec_eval.RelevanceEvaluator(
        {"q": QRELS}, {"ndcg_cut.10"}, judged_docs_only_flag=True
    ).evaluate({"q": run})["q"]["ndcg_cut_10"]
    assert got["condensed_ndcg_at_10"] == pytest.approx(judged_only, abs=1e-12)
    # By hand: condensed ranking b a c; DCG 1/log2(2) + 2/log2(3); ideal 2, 1, 1.
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert got["condensed_ndcg_at_10"] == pytest.approx((1 + 2 / math.log2(3)) / ideal)
    assert got["ndcg_at_10"] < got["condensed_ndcg_at_10"]  # u and v cost the plain score


def test_the_aggregate_is_the_mean_over_queries_then_annotators() -> None:
    gold = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "d": 1}}
    answers = {
        "ann": {"q1": {"a": 1, "b": 0, "u": 0}, "q2": {"c": 1, "d": 1, "u": 0}},
        "bob": {"q1": {"a": 0, "b": 1, "u": 0}, "q2": {"c": 2, "d": None, "u": 0}},
    }
    score = human_retrieval(gold, answers)
    ann = np.mean([ranking_scores(gold[q], answers["ann"][q])["ndcg_at_10"] for q in gold])
    # bob's q2 leaves d ungraded: not counted, so bob is scored on q1 alone.
    bob = ranking_scores(gold["q1"], answers["bob"]["q1"])["ndcg_at_10"]
    assert score.per_rater == pytest.approx({"ann": ann, "bob": bob})
    assert score.value == pytest.approx((ann + bob) / 2)
    assert score.details["ties"] == "expected_ties"
    assert "ndcg_at_10" in score.details["input_order"]
    assert score.method == "human:mean_over_annotators(mean_over_queries(ndcg@10:expected_ties))"


def test_bad_input_is_refused() -> None:
    with pytest.raises(DegenerateInputError):
        ranking_scores({"a": 0}, {"a": 1})
    with pytest.raises(InvalidInputError, match="grade of document 'a'"):
        ranking_scores({"a": 1}, {"a": -1})
    with pytest.raises(InvalidInputError, match="tie rule"):
        ranking_scores({"a": 1}, {"a": 1}, "trec_eval")


def test_the_consensus_is_the_lower_median_grade() -> None:
    from scoring.aggregation.retrieval import consensus_grades

    answers = {
        "a": {"q": {"x": 2, "y": 0, "z": 1}},
        "b": {"q": {"x": 1, "y": 2, "z": None}},
        "c": {"q": {"x": 2, "y": 0}},
    }
    # x: 1, 2, 2 -> 2; y: 0, 0, 2 -> 0; z: only a's 1
    assert consensus_grades(answers) == {"q": {"x": 2, "y": 0, "z": 1}}
    assert consensus_grades({"a": {"q": {"x": 0}}, "b": {"q": {"x": 2}}}) == {"q": {"x": 0}}
