"""Tests for scoring.aggregation: HUME's rules for turning annotators' answers into one score.

Hand-worked cases fix the rules (vote tie-break, mean over annotators, mean rating), property
tests compare the vote with HUME's pandas ``mode().iloc[0]`` and the means with the metrics
module, and a regression test checks the rule against the published HUME result files.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

from scoring import metrics
from scoring.aggregation.classification import human_classification
from scoring.aggregation.clustering import human_clustering
from scoring.aggregation.common import mean_over_annotators
from scoring.aggregation.reranking import human_reranking
from scoring.aggregation.sts import human_sts
from scoring.errors import DegenerateInputError, InvalidInputError
from tests._paths import MTEB_RESULTS

FAST = settings(max_examples=30, deadline=None)

# ------------------------------------------------------------------------------------------
# mean_over_annotators
# ------------------------------------------------------------------------------------------


def test_mean_over_annotators_is_the_plain_mean() -> None:
    assert mean_over_annotators({"a": 0.2, "b": 0.6, "c": 1.0}) == pytest.approx(0.6)
    assert mean_over_annotators({"only": 0.37}) == 0.37
    with pytest.raises(InvalidInputError, match="per_rater"):
        mean_over_annotators({})
    with pytest.raises(InvalidInputError, match="NaN"):
        mean_over_annotators({"a": float("nan")})


# ------------------------------------------------------------------------------------------
# classification
# ------------------------------------------------------------------------------------------


def test_classification_vote_breaks_ties_alphabetically() -> None:
    gold = {"i1": "joy", "i2": "anger", "i3": "sadness", "i4": "joy"}
    answers = {
        "A": {"i1": "joy", "i2": "sadness", "i3": "sadness", "i4": "fear"},
        "B": {"i1": "joy", "i2": "anger", "i3": "fear", "i4": "joy"},
    }
    s = human_classification(gold, answers)
    # i2: anger < sadness -> anger (right); i3: fear < sadness -> fear (wrong);
    # i4: fear < joy -> fear (wrong)
    assert s.details["votes"] == {"i1": "joy", "i2": "anger", "i3": "fear", "i4": "fear"}
    assert s.value == pytest.approx(2 / 4)
    assert s.per_rater == {"A": pytest.approx(2 / 4), "B": pytest.approx(3 / 4)}
    assert s.method == "human:majority_vote(alphabetical_tie_break)+accuracy"
    assert s.details["tied_items"] == ["i2", "i3", "i4"]
    assert s.n_items == 4


def test_classification_majority_beats_alphabet() -> None:
    gold = {"x": "b"}
    answers = {"A": {"x": "b"}, "B": {"x": "b"}, "C": {"x": "a"}}
    s = human_classification(gold, answers)
    assert s.value == 1.0 and s.details["n_tied_items"] == 0


def test_classification_single_annotator_equals_their_accuracy() -> None:
    gold = {i: lab for i, lab in enumerate("abcabc")}
    answers = {"solo": {i: lab for i, lab in enumerate("abbacc")}}
    s = human_classification(gold, answers)
    direct = metrics.accuracy(list("abcabc"), list("abbacc"))
    assert s.value == direct.value == s.per_rater["solo"]
    assert s.details["f1"] == pytest.approx(direct.details["f1"])


def test_classification_missing_and_unanswered_items_are_reported() -> None:
    gold = {"i1": "a", "i2": "b", "i3": "a"}
    answers = {"A": {"i1": "a", "i2": None}, "B": {"i1": "b", "i2": "b"}}
    s = human_classification(gold, answers)
    assert s.details["unanswered_items"] == ["i3"]
    assert s.details["n_missing_per_rater"] == {"A": 2, "B": 1}
    assert s.per_rater == {"A": 1.0, "B": 0.5}
    # i1 tie a/b -> a (right); i2 only B -> b (right)
    assert s.value == 1.0 and s.n_items == 2


@st.composite
def class_answers(draw: st.DrawFn) -> tuple[dict[int, str], dict[str, dict[int, str]]]:
    labels = st.sampled_from(["neg", "neu", "pos", "Neg"])
    n = draw(st.integers(1, 15))
    gold = {i: draw(labels) for i in range(n)}
    raters = draw(st.integers(1, 4))
    answers = {
        f"r{r}": {i: draw(labels) for i in range(n) if draw(st.booleans()) or r == 0}
        for r in range(raters)
    }
    return gold, answers


@FAST
@given(class_answers())
def test_classification_vote_equals_hume_pandas_mode(data: tuple[dict, dict]) -> None:
    """HUME took ``groupby(record).prediction.agg(lambda x: x.mode().iloc[0])``."""
    gold, answers = data
    rows = [(item, lab) for own in answers.values() for item, lab in own.items()]
    df = pd.DataFrame(rows, columns=["item", "pred"])
    hume_votes = df.groupby("item")["pred"].agg(lambda x: x.mode().iloc[0]).to_dict()
    s = human_classification(gold, answers)
    assert s.details["votes"] == hume_votes
    items = sorted(hume_votes)
    assert s.value == pytest.approx(
        skm.accuracy_score([gold[i] for i in items], [hume_votes[i] for i in items])
    )
    for rater, own in answers.items():
        if own:
            assert s.per_rater[rater] == pytest.approx(
                np.mean([gold[i] == lab for i, lab in own.items()])
            )


# ------------------------------------------------------------------------------------------
# clustering
# ------------------------------------------------------------------------------------------


def test_clustering_is_mean_of_per_annotator_v_measure() -> None:
    gold = {i: g for i, g in enumerate("aabbcc")}
    a = dict(enumerate("xxyyzz"))  # perfect partition, other names
    b = dict(enumerate("xyxyzz"))
    s = human_clustering(gold, {"A": a, "B": b})
    vb = skm.v_measure_score(list("aabbcc"), list("xyxyzz"))
    assert s.per_rater == {"A": pytest.approx(1.0), "B": pytest.approx(vb)}
    assert s.value == pytest.approx((1.0 + vb) / 2)
    assert s.details["ari"] == pytest.approx(
        (1.0 + skm.adjusted_rand_score(list("aabbcc"), list("xyxyzz"))) / 2
    )
    assert s.method == "human:mean_over_annotators(v_measure)"


@FAST
@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=20),
    st.lists(st.integers(0, 5), min_size=20, max_size=20),
    st.permutations(["p", "q", "r", "s", "t", "u"]),
)
def test_clustering_ignores_cluster_names(
    gold_l: list[int], pred: list[int], names: list[str]
) -> None:
    gold = dict(enumerate(gold_l))
    answer = {i: pred[i] for i in gold}
    renamed = {i: names[c] for i, c in answer.items()}
    s1 = human_clustering(gold, {"A": answer})
    s2 = human_clustering(gold, {"A": renamed})
    assert s1.value == pytest.approx(s2.value)
    assert 0.0 <= s1.value <= 1.0 + 1e-12


# ------------------------------------------------------------------------------------------
# STS
# ------------------------------------------------------------------------------------------


def test_sts_uses_mean_rating_then_spearman() -> None:
    gold = {"p1": 0.5, "p2": 1.5, "p3": 3.0, "p4": 4.5, "p5": 2.0}
    a = {"p1": 1, "p2": 2, "p3": 2, "p4": 5, "p5": 1}
    b = {"p1": 0, "p2": 1, "p3": 4, "p4": 3, "p5": 3}
    s = human_sts(gold, {"A": a, "B": b})
    keys = list(gold)
    means = [(a[k] + b[k]) / 2 for k in keys]
    assert s.value == pytest.approx(stats.spearmanr([gold[k] for k in keys], means).statistic)
    assert s.details["pearson"] == pytest.approx(
        stats.pearsonr([gold[k] for k in keys], means).statistic
    )
    assert s.per_rater["A"] == pytest.approx(
        stats.spearmanr([gold[k] for k in keys], [a[k] for k in keys]).statistic
    )
    # the pooled rating is not the mean of the annotators' correlations
    assert s.value != pytest.approx(mean_over_annotators(s.per_rater))
    assert s.method == "human:mean_rating+spearman"


def test_sts_constant_annotator_is_reported_not_fatal() -> None:
    gold = {"p1": 1.0, "p2": 2.0, "p3": 3.0}
    s = human_sts(gold, {"A": {"p1": 1, "p2": 2, "p3": 4}, "B": {"p1": 3, "p2": 3, "p3": 3}})
    assert set(s.per_rater) == {"A"} and "B" in s.details["degenerate_raters"]
    assert s.value == pytest.approx(1.0)  # means 2, 2.5, 3.5 are monotone in gold


def test_sts_rejects_non_numeric_and_constant_pooled() -> None:
    gold = {"p1": 1.0, "p2": 2.0}
    with pytest.raises(InvalidInputError, match=r"answers\['A'\]\['p1'\]"):
        human_sts(gold, {"A": {"p1": "high", "p2": 1}})
    with pytest.raises(DegenerateInputError, match="constant"):
        human_sts(gold, {"A": {"p1": 2, "p2": 2}})


# ------------------------------------------------------------------------------------------
# reranking
# ------------------------------------------------------------------------------------------


def hume_reference(gold: dict, marks: dict, k: int = 10) -> tuple[float, float, float]:
    """HUME's per-annotator loop as described in its export script: sklearn AP of the marks,
    MRR@k and nDCG@k (2^r - 1 gains) over the ranking ``argsort(-marks)`` (made stable)."""
    aps, rrs, ndcgs = [], [], []
    for qid, marked in marks.items():
        rel = np.array([gold[qid][c] for c in gold[qid]])
        sc = np.array([marked[c] for c in gold[qid]], dtype=float)
        order = np.argsort(-sc, kind="stable")
        aps.append(skm.average_precision_score(rel, sc))
        ranked = rel[order][:k]
        hits = np.flatnonzero(ranked)
        rrs.append(1.0 / (hits[0] + 1) if len(hits) else 0.0)
        dcg = sum((2**r - 1) / math.log2(i + 2) for i, r in enumerate(ranked))
        ideal = sum(1 / math.log2(i + 2) for i in range(min(int(rel.sum()), k)))
        ndcgs.append(dcg / ideal)
    return float(np.mean(aps)), float(np.mean(rrs)), float(np.mean(ndcgs))


@st.composite
def rerank_data(draw: st.DrawFn) -> tuple[dict, dict]:
    n_q = draw(st.integers(1, 6))
    cands = [f"doc{i}" for i in range(1, 8)]
    gold = {}
    for q in range(n_q):
        rel = draw(st.lists(st.integers(0, 1), min_size=7, max_size=7))
        rel[draw(st.integers(0, 6))] = 1
        gold[f"q{q}"] = dict(zip(cands, rel, strict=True))
    answers = {
        r: {q: {c: draw(st.integers(0, 1)) for c in cands} for q in gold} for r in ("A", "B")
    }
    return gold, answers


@FAST
@given(rerank_data())
def test_reranking_matches_hume_per_annotator_loop(data: tuple[dict, dict]) -> None:
    gold, answers = data
    s = human_reranking(gold, answers)
    refs = {r: hume_reference(gold, own) for r, own in answers.items()}
    for r, (ap, rr, ndcg) in refs.items():
        assert s.per_rater[r] == pytest.approx(ap)
        assert s.details["per_rater_mrr@10"][r] == pytest.approx(rr)
        assert s.details["per_rater_ndcg@10"][r] == pytest.approx(ndcg)
    assert s.value == pytest.approx(np.mean([v[0] for v in refs.values()]))
    assert s.details["mrr@10"] == pytest.approx(np.mean([v[1] for v in refs.values()]))
    assert s.details["ties"] == "input_order"


def test_reranking_tie_modes_give_the_reference_example() -> None:
    cands = [f"c{i}" for i in range(7)]
    gold = {"q": dict(zip(cands, [0, 0, 1, 0, 1, 0, 0], strict=True))}
    answers = {"A": {"q": dict(zip(cands, [1, 0, 1, 0, 0, 0, 0], strict=True))}}
    values = {a: human_reranking(gold, answers, a).value for a in metrics.AP_METHODS}
    assert values == {
        "sklearn": pytest.approx(11 / 28),
        "trec_eval": pytest.approx(0.7),
        "expected_ties": pytest.approx(831 / 1400),
    }
    s = human_reranking(gold, answers, "trec_eval")
    assert s.method == "human:mean_over_annotators(mean_over_queries(map:trec_eval))"
    assert s.details["ties"] == "trec_eval"
    forced = human_reranking(gold, answers, "sklearn", ties="expected_ties")
    assert forced.details["ties"] == "expected_ties" and forced.value == pytest.approx(11 / 28)


def test_reranking_skips_incomplete_and_no_relevant_queries() -> None:
    gold = {
        "q1": {"a": 1, "b": 0, "c": 0},
        "q2": {"a": 0, "b": 1, "c": 0},
        "q3": {"a": 0, "b": 0, "c": 0},
        "q4": {"a": 1, "b": 0, "c": 0},
    }
    answers = {
        "A": {
            "q1": {"a": 1, "b": 0, "c": 0},
            "q2": {"a": 1, "b": 0, "c": None},  # incomplete: skipped for A
            "q3": {"a": 1, "b": 0, "c": 0},  # no relevant candidate: skipped (as mteb)
        },
        "B": {"q1": {"a": 0, "b": 1, "c": 0}, "q2": {"a": 0, "b": 1, "c": 0}},
    }
    s = human_reranking(gold, answers, "trec_eval")
    assert s.per_rater["A"] == 1.0
    # B, q1: ranking b, c, a (c before a: later id first) -> AP 1/3; q2 -> 1
    assert s.per_rater["B"] == pytest.approx((1 / 3 + 1.0) / 2)
    assert s.details["no_relevant_queries"] == ["q3"]
    assert s.details["unanswered_items"] == ["q4"]
    assert s.details["n_missing_per_rater"] == {"A": 2, "B": 2}
    assert s.n_items == 2


def test_reranking_rejects_bad_structures() -> None:
    gold = {"q": {"a": 1, "b": 0}}
    with pytest.raises(InvalidInputError, match="unknown candidates"):
        human_reranking(gold, {"A": {"q": {"a": 1, "zz": 0}}})
    with pytest.raises(InvalidInputError, match=r"answers\['A'\]\['q'\]: expected a mapping"):
        human_reranking(gold, {"A": {"q": [1, 0]}})
    with pytest.raises(InvalidInputError, match="average-precision method"):
        human_reranking(gold, {"A": {"q": {"a": 1, "b": 0}}}, ap_method="mean")
    with pytest.raises(InvalidInputError, match=r"gold\['q'\]"):
        human_reranking({"q": {}}, {"A": {}})
    with pytest.raises(DegenerateInputError, match="relevant"):
        human_reranking({"q": {"a": 0, "b": 0}}, {"A": {"q": {"a": 1, "b": 0}}})


# ------------------------------------------------------------------------------------------
# shared input checks
# ------------------------------------------------------------------------------------------

AGGREGATORS = {
    "classification": (human_classification, {"i": "a"}, "a"),
    "clustering": (human_clustering, {"i": "a"}, "x"),
    "sts": (human_sts, {"i": 1.0, "j": 2.0}, 1.0),
    "reranking": (human_reranking, {"i": {"c": 1}}, {"c": 1}),
}


@pytest.mark.parametrize("kind", sorted(AGGREGATORS))
def test_empty_inputs_raise_invalid(kind: str) -> None:
    fn, gold, answer = AGGREGATORS[kind]
    with pytest.raises(InvalidInputError, match="gold"):
        fn({}, {"A": {"i": answer}})
    with pytest.raises(InvalidInputError, match="answers"):
        fn(gold, {})


@pytest.mark.parametrize("kind", sorted(AGGREGATORS))
def test_unknown_items_and_no_answers(kind: str) -> None:
    fn, gold, answer = AGGREGATORS[kind]
    with pytest.raises(InvalidInputError, match="not in gold"):
        fn(gold, {"A": {"nope": answer}})
    with pytest.raises(DegenerateInputError, match="no annotator answered"):
        fn(gold, {"A": {}, "B": {"i": None}})


# ------------------------------------------------------------------------------------------
# regression: the published HUME human results
# ------------------------------------------------------------------------------------------


def _human_results_dir() -> Path:
    """The published human results, shipped in examples/: a missing folder is a failure."""
    path = MTEB_RESULTS / "baseline__Human"
    assert (path / "2025_09_25").is_dir(), f"published human results missing: {path}"
    return path


def _load_scores(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for f in sorted(folder.glob("HUME*.json")):
        doc = json.loads(f.read_text())
        for entry in doc["scores"]["test"]:
            out[(doc["task_name"], entry["hf_subset"])] = entry
    return out


@pytest.fixture(scope="module")
def published() -> tuple[dict, dict]:
    root = _human_results_dir()
    aggregated = _load_scores(root / "2025_09_25")
    per_annotator: dict[tuple[str, str], dict[str, dict]] = defaultdict(dict)
    for folder in sorted(root.glob("annotator_*")):
        for key, entry in _load_scores(folder).items():
            per_annotator[key][folder.name] = entry
    return aggregated, per_annotator


TYPE_OF = {"Clustering": "clustering", "Reranking": "reranking"}


def _task_type(task: str) -> str:
    for marker, kind in TYPE_OF.items():
        if marker in task:
            return kind
    return "other"


def test_published_clustering_and_reranking_are_means_over_annotators(published: tuple) -> None:
    aggregated, per_annotator = published
    checked = defaultdict(int)
    for key, raters in per_annotator.items():
        kind = _task_type(key[0])
        if len(raters) != 2 or kind == "other":
            continue
        mean = mean_over_annotators({r: e["main_score"] for r, e in raters.items()})
        assert aggregated[key]["main_score"] == pytest.approx(mean, rel=1e-12, abs=0), key
        if kind == "reranking":
            for metric in ("mrr@10", "ndcg@10"):
                m = mean_over_annotators({r: e[metric] for r, e in raters.items()})
                assert aggregated[key][metric] == pytest.approx(m, rel=1e-12, abs=0), key
        checked[kind] += 1
    # Arxiv, Reddit, WikiCities, SIB200-eng; Core17, News21, Robust04, Wikipedia-en
    assert checked == {"clustering": 4, "reranking": 4}


def test_published_vote_and_mean_rating_are_not_annotator_means(published: tuple) -> None:
    """Classification and STS aggregate before scoring: the mean rule must not fit them all."""
    aggregated, per_annotator = published
    gaps = [
        abs(
            aggregated[key]["main_score"]
            - mean_over_annotators({r: e["main_score"] for r, e in raters.items()})
        )
        for key, raters in per_annotator.items()
        if len(raters) == 2 and _task_type(key[0]) == "other"
    ]
    assert len(gaps) == 8  # Emotion, Toxic, Tweet, Multilingual-eng; SICK-R, STS12, STS22-en, STSB
    assert sum(g > 0.01 for g in gaps) >= 7


def test_published_single_annotator_subsets_equal_that_annotator(published: tuple) -> None:
    aggregated, per_annotator = published
    singles = {k: next(iter(v.values())) for k, v in per_annotator.items() if len(v) == 1}
    assert len(singles) == 10  # sentiment ara/nor/rus, SIB200 x3, STS22 ar/ru, Wikipedia da/no
    for key, entry in singles.items():
        assert aggregated[key]["main_score"] == entry["main_score"], key


def test_one_annotator_classification_score_is_the_vote_accuracy_to_the_bit() -> None:
    """One annotator: the score reuses their own accuracy for the vote's (issue 38); it must
    be what scoring the votes in gold's order gives, F1, precision and recall included."""
    import random

    from scoring import metrics
    from scoring.aggregation.classification import human_classification

    rng = random.Random(4)
    labels = ["business", "health", "politics", "science", "sports", "travel"]
    gold = {f"i{k}": rng.choice(labels) for k in range(37)}
    answers = {i: (g if rng.random() < 0.6 else rng.choice(labels)) for i, g in gold.items()}
    answers = {i: a for k, (i, a) in enumerate(reversed(answers.items())) if k % 7}  # gaps
    got = human_classification(gold, {"r": answers})
    items = [i for i in gold if i in answers]
    want = metrics.accuracy([gold[i] for i in items], [answers[i] for i in items])
    assert got.value == want.value and got.n_items == len(items) == want.n_items
    for key, value in want.details.items():
        assert got.details[key] == value, key
    assert got.per_rater == {"r": want.value} and got.details["votes"] == {
        i: answers[i] for i in items
    }


def test_one_annotator_has_no_ties_and_every_tie_rule_is_their_accuracy() -> None:
    """One annotator takes a shortcut past the vote loop (issue 38): their votes in gold's
    order, no tied item, and each tie rule the share of hits that sklearn counts."""
    rng = np.random.default_rng(8)
    labels = ["a", "b", "c"]
    gold = {f"i{k}": str(rng.choice(labels)) for k in range(41)}
    answers = {i: str(rng.choice(labels)) for i in reversed(list(gold)) if rng.random() < 0.8}
    got = human_classification(gold, {"r": answers})
    items = [i for i in gold if i in answers]
    assert list(got.details["votes"]) == items
    assert got.details["tied_items"] == [] and got.details["n_tied_items"] == 0
    want = skm.accuracy_score([gold[i] for i in items], [answers[i] for i in items])
    assert got.details["tie_rules"] == {
        "alphabetical": pytest.approx(want, abs=0),
        "random_expected": pytest.approx(want, abs=1e-15),
        "tie_to_gold": pytest.approx(want, abs=1e-15),
        "tie_away_from_gold": pytest.approx(want, abs=1e-15),
        "untied_items_only": pytest.approx(want, abs=1e-15),
    }
    assert 0.0 < want < 1.0
