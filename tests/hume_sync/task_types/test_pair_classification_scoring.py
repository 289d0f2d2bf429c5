"""Pair classification's scoring concern: the human rules, agreement, intervals and chance, on
small cases whose numbers are worked out by hand in the comments."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hume_sync.task_types.pair_classification import PairClassification
from scoring.aggregation.pair_classification import expected_random_ap, vote_shares
from scoring.errors import DegenerateInputError, InvalidInputError

TYPE = PairClassification()

GOLD = {"i1": 1, "i2": 1, "i3": 1, "i4": 0, "i5": 0, "i6": 0}
ANSWERS = {
    "A": {"i1": 1, "i2": 1, "i3": 0, "i4": 0, "i5": 1, "i6": 1},
    "B": {"i1": 1, "i2": 1, "i3": 1, "i4": 0, "i5": 0, "i6": 0},
}


def test_human_ap_from_vote_shares_by_hand() -> None:
    score = TYPE.score_human(GOLD, ANSWERS)
    # shares: i1 1, i2 1, i3 1/2, i4 0, i5 1/2, i6 1/2. scikit-learn AP, a tie group = one step:
    # share >= 1: {i1, i2} -> P 1, R 2/3; share >= 1/2: + {i3, i5, i6} -> P 3/5, R 1.
    # AP = 2/3 * 1 + 1/3 * 3/5 = 13/15
    assert score.value == pytest.approx(13 / 15, abs=1e-12)
    assert score.method == "human:vote_share+ap:sklearn"
    assert score.details["vote_shares"] == {
        "i1": 1.0,
        "i2": 1.0,
        "i3": 0.5,
        "i4": 0.0,
        "i5": 0.5,
        "i6": 0.5,
    }
    # per annotator, AP of their own 0/1 answers: A marks {i1, i2, i5, i6} -> P 1/2 at R 2/3,
    # then everything -> P 1/2 at R 1: AP 1/2. B is perfect: 1.
    assert score.per_rater == {"A": pytest.approx(0.5), "B": 1.0}
    assert score.n_items == 6


def test_majority_vote_accuracy_tie_goes_to_no_by_hand() -> None:
    score = TYPE.score_human(GOLD, ANSWERS)
    d = score.details
    # i3, i5, i6 are 1-1 ties -> 0. votes 1,1,0,0,0,0 against gold 1,1,1,0,0,0: 5/6.
    # (A tie going to 1 would give votes 1,1,1,0,1,1 and 4/6.)
    assert d["votes"] == {"i1": 1, "i2": 1, "i3": 0, "i4": 0, "i5": 0, "i6": 0}
    assert d["tied_items"] == ["i3", "i5", "i6"]
    assert d["accuracy"] == pytest.approx(5 / 6)
    assert d["n_correct"] == 5
    assert "tie->0" in d["accuracy_method"]
    # positive class of the vote: predicted {i1, i2}, both right, one of three found
    assert (d["precision"], d["recall"], d["f1"]) == (1.0, pytest.approx(2 / 3), pytest.approx(0.8))
    assert d["per_rater_accuracy"] == {"A": 0.5, "B": 1.0}
    # mteb's best-threshold accuracy on the shares: cut between 1 and 1/2 -> 2 TP + 3 TN = 5/6
    assert d["vote_share_best_threshold_accuracy"] == pytest.approx(5 / 6)
    assert d["vote_share_best_threshold"] == 0.75


def test_one_annotator_and_missing_answers() -> None:
    # one annotator: the vote is their answers, shares are 0/1
    solo = TYPE.score_human(GOLD, {"A": ANSWERS["A"]})
    assert solo.details["accuracy"] == 0.5 and solo.value == pytest.approx(0.5)
    # a missing answer (None or absent) leaves the pair to the others
    partial = {"A": {**ANSWERS["A"], "i3": None}, "B": {k: v for k, v in ANSWERS["B"].items()}}
    del partial["B"]["i5"]
    score = TYPE.score_human(GOLD, partial)
    # shares: i3 1 (B only), i5 1 (A only), i6 1/2. votes 1,1,1,0,1,0 -> 5/6 correct
    assert score.details["vote_shares"]["i3"] == 1.0 and score.details["vote_shares"]["i5"] == 1.0
    assert score.details["accuracy"] == pytest.approx(5 / 6)
    assert score.details["n_missing_per_rater"] == {"A": 1, "B": 1}


@pytest.mark.parametrize(
    ("gold", "answers", "error"),
    [
        ({"i1": 2}, {"A": {"i1": 1}}, InvalidInputError),
        ({"i1": 1}, {"A": {"i1": True}}, InvalidInputError),
        ({"i1": 1}, {"A": {"x": 1}}, InvalidInputError),
        ({"i1": 0, "i2": 0}, {"A": {"i1": 1, "i2": 0}}, DegenerateInputError),
        ({}, {"A": {}}, InvalidInputError),
    ],
)
def test_bad_input_is_refused(gold, answers, error) -> None:
    with pytest.raises(error):
        TYPE.score_human(gold, answers)


def test_vote_shares_count_only_given_answers() -> None:
    assert vote_shares({"A": {"x": 1, "y": None}, "B": {"x": 0}, "C": {"x": 1, "y": 1}}) == {
        "x": pytest.approx(2 / 3),
        "y": 1.0,
    }


def agreements(answers):
    return {a.method: a for a in TYPE.score_agreements({}, answers)}


def test_agreement_two_annotators_by_hand() -> None:
    a = {"A": dict(enumerate([1, 1, 1, 1, 0, 0])), "B": dict(enumerate([1, 1, 1, 0, 0, 0]))}
    out = agreements(a)
    # observed agreement 5/6. Cohen: chance = 4/6*3/6 + 2/6*3/6 = 1/2 -> (5/6 - 1/2)/(1/2) = 2/3.
    assert out["mean_pairwise_cohen_kappa"].value == pytest.approx(2 / 3)
    # Fleiss pools the marginals: pi1 = 7/12 -> chance 49/144 + 25/144 = 74/144;
    # (120/144 - 74/144) / (70/144) = 46/70
    assert out["fleiss_kappa"].value == pytest.approx(46 / 70)
    assert out["mean_percentage_agreement"].value == pytest.approx(5 / 6)
    # nominal alpha: 12 values (7 ones, 5 zeros), one disagreeing unit: D_o = 2/12,
    # D_e = 2 * 7 * 5 / (12 * 11); alpha = 1 - D_o / D_e = 1 - 22/70 = 48/70
    assert out["krippendorff_alpha:nominal"].value == pytest.approx(48 / 70)
    assert TYPE.score_headline_agreement == "fleiss_kappa" and next(iter(out)) == "fleiss_kappa"
    # 46/70 = 0.657 > 0.6: a reliable target, not flagged for revision
    assert TYPE.score_agreement_flags(out["fleiss_kappa"]) == {"low": False, "high": True}


def test_fleiss_kappa_three_annotators_by_hand() -> None:
    a = {
        "A": {"p": 1, "q": 1, "r": 0, "s": 1},
        "B": {"p": 1, "q": 1, "r": 0, "s": 0},
        "C": {"p": 1, "q": 0, "r": 0, "s": 0},
    }
    # per pair agreement: p 1, q 1/3, r 1, s 1/3 -> mean 2/3; pi1 = (1 + 2/3 + 0 + 1/3)/4 = 1/2
    # chance 1/2 -> kappa (2/3 - 1/2) / (1/2) = 1/3: fair, flagged low
    fleiss = agreements(a)["fleiss_kappa"]
    assert fleiss.value == pytest.approx(1 / 3)
    assert TYPE.score_agreement_flags(fleiss) == {"low": True, "high": False}


def test_agreement_with_one_annotator_is_undefined_not_an_error() -> None:
    out = agreements({"A": {"x": 1, "y": 0}})
    assert math.isnan(out["fleiss_kappa"].value) and out["fleiss_kappa"].band == "undefined"


def test_accuracy_interval_is_wilson() -> None:
    score = TYPE.score_human(GOLD, ANSWERS)
    ci = TYPE.score_accuracy_interval(score)
    # Wilson, 5 of 6, z = 1.95996: centre 0.70322, half width 0.26673
    assert ci.method == "wilson" and ci.estimate == pytest.approx(5 / 6)
    assert (ci.low, ci.high) == (pytest.approx(0.43650, abs=1e-4), pytest.approx(0.96995, abs=1e-4))


def test_ap_interval_is_a_seeded_bootstrap_over_pairs() -> None:
    gold = {f"p{i}": int(i % 3 == 0) for i in range(30)}
    rng = np.random.default_rng(5)
    answers = {
        r: {k: int(g if rng.random() < 0.8 else 1 - g) for k, g in gold.items()} for r in "AB"
    }
    score = TYPE.score_human(gold, answers)
    ci = TYPE.score_interval(score)
    assert ci.estimate == score.value and ci.method == "bootstrap:bca"
    assert ci.low < ci.estimate < ci.high <= 1.0
    assert ci.details["seed"] == 0 and ci.details["n_resamples"] == 2000
    again = TYPE.score_interval(TYPE.score_human(gold, answers))
    assert (ci.low, ci.high) == (again.low, again.high)
    # the per-item records the report's own bootstrap resamples: (gold, vote share) rows
    rows, statistic = TYPE.score_per_item(gold, score)
    assert rows.shape == (30, 2) and statistic(rows) == score.value
    assert math.isnan(statistic(rows[rows[:, 0] == 0]))  # no positive pair: AP undefined
    needed, how = TYPE.score_items_for_target(score, ci, 0.05)
    assert needed == math.ceil(30 * (ci.half_width / 0.05) ** 2) and "1/√n" in how
    assert TYPE.score_items_for_target(score, None, 0.05) == (None, "unavailable")


def test_chance_levels_and_expected_random_ap_by_enumeration() -> None:
    chance = TYPE.score_chance(GOLD)
    assert chance["accuracy"] == 0.5 and chance["accuracy_majority_class"] == 0.5
    # every placement of 3 positives among 6 ranks, equally likely: mean AP exactly
    aps = []
    for pos in itertools.combinations(range(1, 7), 3):
        aps.append(sum((n + 1) / rank for n, rank in enumerate(pos)) / 3)
    assert chance["ap"] == pytest.approx(float(np.mean(aps)), abs=1e-12)
    # closed form: (H_6 + 2/5 (6 - H_6)) / 6 = 0.645
    assert expected_random_ap(3, 6) == pytest.approx(0.645)
    assert expected_random_ap(1, 4) == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    assert expected_random_ap(4, 4) == 1.0
    skewed = TYPE.score_chance({"a": 1, "b": 0, "c": 0, "d": 0})
    assert skewed["accuracy_majority_class"] == 0.75 and skewed["positive_share"] == 0.25


def test_disagreement_and_candidate_gold_error_rules() -> None:
    assert TYPE.score_disagree([1, 0]) and TYPE.score_disagree([1, 1, 0])
    assert not TYPE.score_disagree([1, 1])
    assert TYPE.score_agree_not_gold([0, 0], 1) and not TYPE.score_agree_not_gold([1, 1], 1)
    assert not TYPE.score_agree_not_gold([1, 0], 0)
    assert TYPE.score_item_text({"sentence1": "a b", "sentence2": "c"}) == "a b ⟷ c"


def test_scoring_names() -> None:
    assert TYPE.score_main_name == TYPE.score_mteb_main_name == TYPE.model_main_score == "max_ap"
    assert TYPE.score_metric_keys == ("max_ap",) and TYPE.score_main_range == (0.0, 1.0)
    assert TYPE.score_annotator_method == "ap:sklearn"
    assert TYPE.score_human_machine_statistic == "cohen_kappa"
