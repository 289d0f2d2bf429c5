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
    ann_q = {q: ranking_scores(gold[q], answers["ann"][q])["ndcg_at_10"] for q in gold}
    ann = np.mean(list(ann_q.values()))
    # bob's q2 leaves d ungraded: not counted, so bob is scored on q1 alone.
    bob = ranking_scores(gold["q1"], answers["bob"]["q1"])["ndcg_at_10"]
    assert score.per_rater == pytest.approx({"ann": ann, "bob": bob})
    assert score.value == pytest.approx((ann + bob) / 2)
    assert score.details["ties"] == "expected_ties"
    assert score.details["per_rater_per_query"]["ann"] == pytest.approx({q: ann_q[q] for q in gold})
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


# ---------------------------------------------------------------------------------------
# The subset's own main score (mteb's TaskMetadata.main_score): any measure of one ranking

TREC_NAMES = {"ndcg": "ndcg_cut", "map": "map_cut", "recall": "recall", "precision": "P"}
TREC_NAMES["hit_rate"] = "success"


def _trec_at(qrels: dict[str, int], ranking: list[str], name: str) -> float:
    """pytrec_eval (MRR by hand, as mteb) on an explicit ranking, for a measure ``<f>_at_<k>``."""
    family, _, k_text = name.rpartition("_at_")
    k = int(k_text)
    if family == "mrr":
        return next((1 / (i + 1) for i, d in enumerate(ranking[:k]) if qrels.get(d, 0) > 0), 0.0)
    run = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    measure = f"{TREC_NAMES[family]}.{k}"
    got = pytrec_eval.RelevanceEvaluator({"q": qrels}, {measure}).evaluate({"q": run})["q"]
    return float(got[measure.replace(".", "_")])


def _distinct_orders(group: list[str], qrels: dict[str, int]) -> list[list[str]]:
    """Every order of a tied group up to swapping documents of equal qrels grade, unjudged ones
    apart (no measure, plain or condensed, tells those apart, and every such class is equally
    likely under a random order)."""
    keys = [qrels.get(d, -1) for d in group]
    out = []
    for pattern in sorted(set(itertools.permutations(keys))):
        left = {k: [d for d in group if qrels.get(d, -1) == k] for k in set(keys)}
        out.append([left[k].pop() for k in pattern])
    return out


GRADED = {"r0": 2, "r1": 1, "r2": 1, "r3": 2, "r4": 1, "n1": 0, "n2": 0, "x": 1}
TOP = [f"u{i}" for i in range(10)]  # ten unjudged documents graded 3: ranks 1-10
TIED_2 = ["r0", "n1", "u10", "r1"]  # ranks 11-14, tied
TIED_1 = ["r2", "u11", "r3", "n2", "u12", "r4"]  # ranks 15-20, tied
LAST = ["u13", "u14"]
MAIN_SCORES = (
    "ndcg_at_20",
    "ndcg_at_12",
    "ndcg_at_1",
    "map_at_13",
    "recall_at_15",
    "recall_at_2",
    "precision_at_14",
    "mrr_at_13",
    "mrr_at_20",
    "hit_rate_at_11",
    "hit_rate_at_15",
)


@pytest.mark.parametrize("main", MAIN_SCORES)
def test_a_main_score_at_any_cut_off_equals_pytrec_eval_under_both_tie_rules(main: str) -> None:
    """Relevant documents sit at ranks 11-20, tied, so the cut-offs 12-20 cut through the
    groups; expected_ties equals the mean of pytrec_eval over every order of the ties."""
    grades = {**dict.fromkeys(TOP, 3), **dict.fromkeys(TIED_2, 2), **dict.fromkeys(TIED_1, 1)}
    grades.update(dict.fromkeys(LAST, 0))
    orders = [
        [*TOP, *a, *b, *LAST]
        for a in _distinct_orders(TIED_2, GRADED)
        for b in _distinct_orders(TIED_1, GRADED)
    ]
    want = np.mean([_trec_at(GRADED, o, main) for o in orders])
    got = ranking_scores(GRADED, grades, "expected_ties", main)
    assert got[main] == pytest.approx(want, abs=1e-12)
    shown = ranking_scores(GRADED, grades, "input_order", main)
    assert shown[main] == pytest.approx(_trec_at(GRADED, [*TOP, *TIED_2, *TIED_1, *LAST], main))
    # Condensed: the unjudged documents removed first, under the same rule.
    kept = [[d for d in o if d in GRADED] for o in orders]
    want_condensed = np.mean([_trec_at(GRADED, o, main) for o in kept])
    assert got[f"condensed_{main}"] == pytest.approx(want_condensed, abs=1e-12)


@pytest.mark.parametrize("main", ["mrr_at_2", "hit_rate_at_1", "hit_rate_at_3", "precision_at_1"])
def test_a_first_group_holding_relevant_documents_is_scored_by_its_chances(main: str) -> None:
    """The top group (5 tied, 2 relevant) straddles the cut-off: hypergeometric chances."""
    qrels = {"a": 1, "b": 1, "c": 0}
    grades = {"a": 1, "c": 1, "u": 1, "b": 1, "v": 1, "w": 0}
    orders = [[*o, "w"] for o in itertools.permutations(["a", "c", "u", "b", "v"])]
    want = np.mean([_trec_at(qrels, list(o), main) for o in orders])
    assert ranking_scores(qrels, grades, "expected_ties", main)[main] == pytest.approx(want)
    if main == "hit_rate_at_1":
        assert want == pytest.approx(2 / 5)  # by hand: the first place holds a or b


def test_the_human_score_is_the_main_score_and_names_it() -> None:
    gold = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "d": 1}}
    answers = {"ann": {"q1": {"a": 1, "b": 0, "u": 0}, "q2": {"c": 1, "d": 1, "u": 0}}}
    score = human_retrieval(gold, answers, main="recall_at_1")
    per_query = {q: ranking_scores(gold[q], answers["ann"][q], main="recall_at_1") for q in gold}
    # q1: a alone on top; q2: c and d tie, each first with chance 1/2, recall 1/2 either way.
    assert per_query["q1"]["recall_at_1"] == 1.0 and per_query["q2"]["recall_at_1"] == 0.5
    assert score.value == pytest.approx(0.75)
    assert score.method == "human:mean_over_annotators(mean_over_queries(recall@1:expected_ties))"
    assert score.details["per_rater_per_query"] == {"ann": {"q1": 1.0, "q2": 0.5}}
    assert score.details["input_order"]["recall_at_1"] == pytest.approx(0.75)  # c shown first
    assert score.details["ndcg_at_10"] == pytest.approx(
        np.mean([per_query[q]["ndcg_at_10"] for q in gold])
    )  # nDCG@10 stays beside it


@pytest.mark.parametrize("name", ["robustness_at_10", "ndcg", "ndcg_at_0", "cv_recall_at_5"])
def test_a_main_score_no_ranking_gives_is_refused(name: str) -> None:
    from scoring.aggregation.retrieval import main_metric

    with pytest.raises(InvalidInputError, match=f"main score '{name}' cannot be computed"):
        main_metric(name)
    with pytest.raises(InvalidInputError, match="cannot be computed"):
        ranking_scores({"a": 1}, {"a": 1}, main=name)


def test_labels_and_tokens_name_the_measure() -> None:
    from scoring.aggregation.retrieval import metric_label, metric_token

    assert [metric_label(n) for n in ("ndcg_at_20", "recall_at_1", "hit_rate_at_5")] == [
        "nDCG@20",
        "recall@1",
        "hit rate@5",
    ]
    assert metric_token("ndcg_at_10") == "ndcg@10" and metric_token("mrr_at_5") == "mrr@5"


def test_a_models_run_is_scored_per_query_as_pytrec_eval_orders_it() -> None:
    from scoring.aggregation.retrieval import run_scores

    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"d": 0}}
    runs = {"q1": {"b": 0.9, "a": 0.5, "z": 0.5}, "q2": {}}
    got = run_scores(qrels, runs, "mrr_at_5")
    # q1: b, then a and z tie at 0.5 and trec_eval puts the larger id first: z, a -> 1/3.
    assert got == {"q1": pytest.approx(1 / 3), "q2": 0.0}  # q3 has no relevant document
    ndcg = run_scores(qrels, runs, "ndcg_at_20")["q1"]
    assert ndcg == pytest.approx(_trec_at(qrels["q1"], ["b", "z", "a"], "ndcg_at_20"))
