"""Multilabel classification's human score and agreement, against independent computations.

The human score on recorded answers (scripted annotators over the SIB-200 passages) equals
scikit-learn's subset accuracy and macro F1 and mteb's own ``hamming_score`` of the vote worked
out here; α with the MASI distance equals nltk's ``AnnotationTask`` on complete data (nltk is a
test-only reference: the product must not import it); small cases are worked by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync.task_types.multilabel_classification import MultilabelClassification
from scoring.aggregation.multilabel_classification import (
    human_multilabel_classification,
    jaccard_distance,
    masi_distance,
    multilabel_metrics,
    set_alpha,
)
from scoring.errors import InvalidInputError
from tests._paths import REPO_ROOT

TYPE = MultilabelClassification()
DATA = REPO_ROOT / "tests" / "data" / "multilabel" / "sib200" / "eng_Latn" / "test.jsonl"


def _passages() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text("utf-8").splitlines()][:40]


def _recorded() -> tuple[dict[str, list[str]], dict[str, dict[str, list[str]]]]:
    """Gold of 40 passages; three annotators who each drop or add a label on their own items."""
    rows = _passages()
    labels = sorted({lab for r in rows for lab in r["labels"]})
    gold = {r["id"]: r["labels"] for r in rows}
    answers: dict[str, dict[str, list[str]]] = {}
    for who, step in (("a", 3), ("b", 4), ("c", 7)):
        mine = {}
        for k, r in enumerate(rows):
            given = set(r["labels"])
            if k % step == 1:
                given ^= {labels[(k + step) % len(labels)]}
            mine[r["id"]] = sorted(given)
        answers[who] = mine
    answers["c"].pop(rows[5]["id"])  # a missing answer: two votes on that passage
    return gold, answers


def test_the_human_score_equals_sklearn_and_mtebs_hamming_on_recorded_answers() -> None:
    from mteb._evaluators.classification_metrics import hamming_score
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    gold, answers = _recorded()
    score = TYPE.score_human(gold, answers)
    # the vote worked out here: a label in when more than half of the passage's annotators chose it
    votes = {}
    for item in gold:
        given = [set(a[item]) for a in answers.values() if item in a]
        labels = {lab for s in given for lab in s}
        votes[item] = sorted(lab for lab in labels if sum(lab in s for s in given) > len(given) / 2)
    mlb = MultiLabelBinarizer().fit([gold[i] for i in gold] + [votes[i] for i in gold])
    y_true, y_pred = mlb.transform([gold[i] for i in gold]), mlb.transform([votes[i] for i in gold])
    assert score.value == pytest.approx(accuracy_score(y_true, y_pred), abs=1e-12)
    assert score.details["f1"] == pytest.approx(
        f1_score(y_true, y_pred, average="macro"), abs=1e-12
    )
    assert score.details["hamming"] == pytest.approx(hamming_score(y_true, y_pred), abs=1e-12)
    assert 0.5 < score.value < 1.0  # the errors reach the vote on some passages, not all
    for who, given in answers.items():
        hits = [set(given[i]) == set(gold[i]) for i in given]
        assert score.per_rater[who] == pytest.approx(sum(hits) / len(hits))
    assert score.method == "human:per_label_majority(ties_out)+exact_match_accuracy"


def test_a_tied_label_is_left_out_and_the_tie_rules_are_exact() -> None:
    # i0: x {a,b}, y {a}: b tied (1 of 2) -> vote {a}; gold {a,b}: wrong; a coin on b: 1/2.
    # i1: x {c}, y {d}: c, d tied -> vote {}; gold {c}: a coin each: 1/4 (c in, d out).
    # i2: x {a}, y {a}: vote {a} = gold, no tie.  i3: x {b}, y {b}: vote {b}, gold {a}: 0.
    gold = {"i0": ["a", "b"], "i1": ["c"], "i2": ["a"], "i3": ["a"]}
    answers = {
        "x": {"i0": ["a", "b"], "i1": ["c"], "i2": ["a"], "i3": ["b"]},
        "y": {"i0": ["a"], "i1": ["d"], "i2": ["a"], "i3": ["b"]},
    }
    score = TYPE.score_human(gold, answers)
    assert score.details["votes"] == {"i0": ["a"], "i1": [], "i2": ["a"], "i3": ["b"]}
    assert score.value == 0.25
    ties = TYPE.score_ties(score)
    assert ties is not None and ties["n_tied_items"] == 2 and ties["rule"] == "ties_out"
    assert ties["scores"]["random_expected"] == pytest.approx((0.5 + 0.25 + 1) / 4)
    assert ties["scores"]["tie_to_gold"] == 0.75
    assert ties["scores"]["tie_away_from_gold"] == 0.25
    assert TYPE.score_agree_not_gold([["b"], ["b"]], ["a"])
    assert not TYPE.score_disagree([["a", "b"], ["b", "a"]])


def test_a_label_gold_never_has_is_not_dropped() -> None:
    # mteb's binarizer is fitted on gold; a person's extra label must still count against them.
    m = multilabel_metrics([["a"], ["b"]], [["a", "zzz"], ["b"]])
    assert m["accuracy"] == 0.5
    # hamming: item 1 |{a}| / |{a, zzz}| = 1/2, item 2: 1 -> 3/4;
    # macro F1 over a, b, zzz: 1, 1, 0 -> 2/3
    assert m["hamming"] == 0.75 and m["f1"] == pytest.approx(2 / 3)
    # an empty answer to an empty gold is exactly right (mteb's hamming: 1)
    assert multilabel_metrics([[], ["a"]], [[], ["a"]])["accuracy"] == 1.0


def test_the_interval_and_sample_size_are_wilson_over_passages() -> None:
    gold, answers = _recorded()
    score = TYPE.score_human(gold, answers)
    interval = TYPE.score_interval(score)
    assert interval.method.startswith("wilson") and interval.contains(score.value)
    hits, statistic = TYPE.score_per_item(gold, score)
    assert len(hits) == 40 and statistic(hits[None, :])[0] == pytest.approx(score.value)
    needed, how = TYPE.score_items_for_target(score, None, 0.05)
    assert needed is not None and needed > 40 and "wilson" in how


def test_masi_and_jaccard_distances() -> None:
    from nltk.metrics.distance import masi_distance as nltk_masi

    assert masi_distance({"a"}, {"a"}) == 0.0 and masi_distance(set(), set()) == 0.0
    assert masi_distance({"a"}, {"b"}) == 1.0
    # {a} within {a, b}: Jaccard 1/2, monotonicity 2/3 -> 1 - 1/3
    assert masi_distance({"a"}, {"a", "b"}) == pytest.approx(2 / 3)
    # {a, b} and {b, c}: Jaccard 1/3, monotonicity 1/3 -> 1 - 1/9
    assert masi_distance({"a", "b"}, {"b", "c"}) == pytest.approx(8 / 9)
    # nltk rounds the monotonicity to 0.67 / 0.33
    assert nltk_masi({"a"}, {"a", "b"}) == pytest.approx(masi_distance({"a"}, {"a", "b"}), abs=3e-3)
    assert jaccard_distance({"a"}, {"a", "b"}) == 0.5 and jaccard_distance(set(), set()) == 0.0


@pytest.mark.parametrize("distance", ["masi", "jaccard"])
def test_alpha_equals_nltk_on_complete_data(distance: str) -> None:
    from nltk.metrics.agreement import AnnotationTask

    gold, answers = _recorded()
    answers["c"][_passages()[5]["id"]] = gold[_passages()[5]["id"]]  # complete: nltk needs it
    fn = masi_distance if distance == "masi" else jaccard_distance
    triples = [
        (who, item, frozenset(labels))
        for who, given in answers.items()
        for item, labels in given.items()
    ]
    theirs = AnnotationTask(data=triples, distance=fn).alpha()
    ours = set_alpha(answers, distance=distance)
    assert ours.value == pytest.approx(theirs, abs=1e-12)
    assert ours.method == f"krippendorff_alpha:{distance}" and ours.n_items == 40
    low, high = ours.details["interval_95"]
    assert low < ours.value < high
    assert set_alpha(answers, distance=distance).details == ours.details  # seeded


def test_alpha_with_missing_values_by_hand() -> None:
    # i0: {a}, {a}, {a} (no disagreement); i1: {a}, {b} (two raters, distance 1);
    # i2: {a}, {a, b} (MASI 2/3). Pairable values: n = 7; sets: {a} x5, {b} x1, {a,b} x1.
    # D_o sum: i1: 2 ordered pairs x 1 / (2 - 1) = 2; i2: 2 x 2/3 / 1 = 4/3 -> 10/3.
    # Expected: sum over ordered set pairs n_c n_k d: 2 (5·1·1 + 5·1·2/3 + 1·1·d({b},{a,b}) = 2/3)
    #         = 2 (5 + 10/3 + 2/3) = 18. alpha = 1 - 6 · (10/3) / 18 = 1 - 10/9 = -1/9.
    humans = {
        "x": {"i0": ["a"], "i1": ["a"], "i2": ["a"]},
        "y": {"i0": ["a"], "i1": ["b"], "i2": ["a", "b"]},
        "z": {"i0": ["a"]},
    }
    result = set_alpha(humans)
    assert result.value == pytest.approx(-1 / 9) and result.band == "poor"
    assert math.isnan(set_alpha({"x": {"i0": ["a"]}}).value)
    assert math.isnan(set_alpha({"x": {"i0": ["a"]}, "y": {"i0": ["a"]}}).value)
    with pytest.raises(InvalidInputError, match="set distance"):
        set_alpha(humans, distance="hamming")


def test_the_headline_agreement_and_the_alignment() -> None:
    gold, answers = _recorded()
    humans = {
        r: {i: TYPE.score_normalise_answer(a) for i, a in g.items()} for r, g in answers.items()
    }
    found = {a.method: a for a in TYPE.score_agreements(gold, humans)}
    assert TYPE.score_headline_agreement in found
    assert "krippendorff_alpha:jaccard" in found
    assert "mean_percentage_agreement" in found
    align = TYPE.score_item_alignment
    assert align.measure(("a",), ("a", "b")) == pytest.approx(1 / 3)
    assert align.measure((), ()) == 1.0


def test_bad_answers_end_in_one_line() -> None:
    with pytest.raises(InvalidInputError, match="list of labels"):
        human_multilabel_classification({"i0": ["a"]}, {"x": {"i0": "a"}})


def test_model_answers_are_scored_like_an_annotator(tmp_path: Path) -> None:
    gold = {"i0": ["a", "b"], "i1": ["c"]}
    score = TYPE.score_model(gold, {"i0": ["b", "a"], "i1": []})
    assert score is not None and score.value == 0.5
    assert np.array_equal(TYPE.score_per_item(gold, score)[0], [1.0, 0.0])


def test_alpha_equals_nltk_on_random_complete_data() -> None:
    """Property: on any complete table of sets with some variation, α equals nltk's."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from nltk.metrics.agreement import AnnotationTask

    sets = st.frozensets(st.sampled_from("abcd"), max_size=3)

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.lists(sets, min_size=3, max_size=3), min_size=2, max_size=8))
    def check(table: list[list[frozenset[str]]]) -> None:
        answers = {
            f"r{j}": {f"i{k}": sorted(row[j]) for k, row in enumerate(table)} for j in range(3)
        }
        ours = set_alpha(answers, n_resamples=10)
        if len({s for row in table for s in row}) < 2:
            assert math.isnan(ours.value)
            return
        triples = [(f"r{j}", f"i{k}", row[j]) for k, row in enumerate(table) for j in range(3)]
        theirs = AnnotationTask(data=triples, distance=masi_distance).alpha()
        assert ours.value == pytest.approx(theirs, abs=1e-9)

    check()
