"""Regression's human score: Kendall's τ of the mean number per text, checked against scipy,
scikit-learn and mteb's own ``AbsTaskRegression._calculate_scores`` on recorded answers (the
means worked out here with numpy); the bootstrap's statistic against scipy; agreement against
the ``krippendorff`` package; and the subset report's rows (which human, the like-for-like
verdicts against a model and an LLM, the alternative annotator test, the sample-size line)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

from hume_sync.task_types.regression import Regression
from scoring.aggregation.regression import human_regression, kendall_of_pairs
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.subset_report import SubsetInput, evaluate_subset

TYPE = Regression()


def recorded(n: int = 40, seed: int = 0) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Gold on SICK's 1–5 scale in tenths; three annotators who answer gold with noise, in
    tenths as the Number box steps, one of them skipping every seventh text."""
    rng = np.random.default_rng(seed)
    gold = {f"s{k}": float(np.round(rng.uniform(1, 5), 1)) for k in range(n)}
    humans: dict[str, dict[str, float]] = {}
    for who, noise in (("ana", 0.4), ("bo", 0.8), ("cy", 0.6)):
        answers = {}
        for k, (item, g) in enumerate(gold.items()):
            if who == "cy" and k % 7 == 3:
                continue
            answers[item] = float(np.clip(np.round(g + rng.normal(scale=noise), 1), 1, 5))
        humans[who] = answers
    return gold, humans


def test_one_person_s_score_is_scipy_s_kendall_tau() -> None:
    gold, humans = recorded()
    for who, answers in humans.items():
        items = sorted(answers)
        expected = kendalltau([gold[i] for i in items], [answers[i] for i in items]).statistic
        score = TYPE.score_human(gold, {who: answers})
        assert score.value == pytest.approx(expected, abs=1e-12)
        assert score.per_rater[who] == pytest.approx(expected, abs=1e-12)


def test_the_human_score_is_tau_of_the_mean_number_with_mteb_s_other_numbers() -> None:
    mteb = pytest.importorskip("mteb")
    gold, humans = recorded(seed=3)
    items = list(gold)
    means = [np.mean([h[i] for h in humans.values() if i in h]) for i in items]
    truth = [gold[i] for i in items]
    score = TYPE.score_human(gold, humans)
    assert score.value == pytest.approx(kendalltau(truth, means).statistic, abs=1e-12)
    assert score.details["mae"] == pytest.approx(mean_absolute_error(truth, means), abs=1e-12)
    assert score.details["mse"] == pytest.approx(mean_squared_error(truth, means), abs=1e-12)
    assert score.details["rmse"] == pytest.approx(np.sqrt(mean_squared_error(truth, means)))
    assert score.details["r2"] == pytest.approx(r2_score(truth, means), abs=1e-12)
    # mteb's own metric code on the same numbers
    theirs = mteb.get_task("RuSciBenchYearPublRegression")._calculate_scores(truth, means)
    for key in ("kendalltau", "mae", "mse", "rmse", "r2"):
        ours = score.value if key == "kendalltau" else score.details[key]
        assert ours == pytest.approx(float(theirs[key]), abs=1e-12), key
    # the pooled τ is not the mean of the annotators' own
    assert score.value != pytest.approx(np.mean(list(score.per_rater.values())))
    assert score.details["n_missing_per_rater"]["cy"] == 6  # every 7th of 40 skipped


def test_worked_by_hand_and_bad_input() -> None:
    # means 1.5, 2.5, 2.0 against gold 1, 2, 3: pairs (1,2) concordant, (1,3) concordant,
    # (2,3) discordant: τ = (2 − 1) / 3
    gold = {"a": 1.0, "b": 2.0, "c": 3.0}
    score = human_regression(gold, {"x": {"a": 1, "b": 3, "c": 2}, "y": {"a": 2, "b": 2, "c": 2}})
    assert score.value == pytest.approx(1 / 3)
    assert score.details["mean_values"] == {"a": 1.5, "b": 2.5, "c": 2.0}
    assert "y" in score.details["degenerate_raters"] and "y" not in score.per_rater
    with pytest.raises(InvalidInputError, match="answers\\['x'\\]\\['a'\\]: expected a number"):
        human_regression(gold, {"x": {"a": "3"}})
    with pytest.raises(DegenerateInputError, match="at least two answered items"):
        human_regression(gold, {"x": {"a": 1.0}})
    with pytest.raises(DegenerateInputError, match="undefined"):
        human_regression(gold, {"x": {"a": 2.0, "b": 2.0, "c": 2.0}})


def test_the_bootstrap_statistic_is_scipy_s_tau() -> None:
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(3, 40))
        g = np.round(rng.uniform(1, 5, n), 1)
        m = np.round(g + rng.normal(scale=0.7, size=n), 1)
        expected = kendalltau(g, m).statistic
        assert kendall_of_pairs(np.stack([g, m], axis=1)) == pytest.approx(expected, abs=1e-12)


def test_agreement_is_interval_krippendorff_alpha() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    gold, humans = recorded(seed=2)
    [alpha, spearman] = TYPE.score_agreements(gold, humans)
    assert alpha.method == TYPE.score_headline_agreement == "krippendorff_alpha:interval"
    table = np.array([[h.get(i, np.nan) for i in gold] for h in humans.values()], dtype=float)
    expected = krippendorff.alpha(reliability_data=table, level_of_measurement="interval")
    assert alpha.value == pytest.approx(expected, abs=1e-9)
    assert spearman.method == "mean_pairwise_spearman"


def test_the_report_has_the_type_s_rows() -> None:
    """Which human, the paired verdicts of a model (its predictions) and of an LLM annotator,
    the alternative annotator test, the interval and the sample-size line."""
    gold, humans = recorded(n=30, seed=5)
    rng = np.random.default_rng(9)
    model = {i: g + float(rng.normal(scale=1.0)) for i, g in gold.items()}
    llm = {i: float(np.clip(np.round(g + rng.normal(scale=0.5), 1), 1, 5)) for i, g in gold.items()}
    report = evaluate_subset(
        SubsetInput(
            key="SICKRelatedness/en",
            task_name="SICKRelatedness",
            hf_subset="en",
            task_type=TYPE,
            language="eng-Latn",
            gold=gold,
            humans=humans,
            llms={"llm:test": llm},
            models={"emb:m": 0.4},
            model_answers={"emb:m": model},
        )
    )
    assert report.human is not None and report.human.method.startswith("human:mean_value")
    assert report.interval is not None
    assert report.interval.low < report.human.value < report.interval.high
    assert report.interval.method.startswith("bootstrap")
    assert {a.method for a in report.agreement} >= {"krippendorff_alpha:interval"}
    model_tau = kendalltau(list(gold.values()), list(model.values())).statistic
    assert report.paired["emb:m"]["rater_on_items"] == pytest.approx(model_tau)
    assert report.paired["emb:m"]["position"] in {"above", "below", "inside"}
    assert "llm:test" in report.paired and "llm:test" in report.alt_test
    assert report.human_panel  # which human: aggregate, annotators, ...
    assert report.planning  # the sample-size line


def test_disagreement_and_candidate_gold_errors_are_relative() -> None:
    assert TYPE.score_disagree([3.0, 4.0]) and not TYPE.score_disagree([3.5, 3.8])
    assert TYPE.score_agree_not_gold([2.0, 2.2], 4.0)
    assert not TYPE.score_agree_not_gold([2014.0, 2016.0], 2012.0)
