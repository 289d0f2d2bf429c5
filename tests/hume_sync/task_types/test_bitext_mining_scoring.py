"""Bitext mining's human score: mteb's F1 over people's choices, checked against scikit-learn
(what mteb's evaluator calls) on recorded answers, the majority vote worked out here; the closed
form the bootstrap uses against scikit-learn; and the subset report's rows (agreement, which
human, the like-for-like verdict against a model and an LLM, the alternative annotator test)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from hume_sync.task_types.bitext_mining import BitextMining
from scoring.aggregation.bitext_mining import human_bitext_mining, weighted_f1_codes
from scoring.errors import InvalidInputError
from scoring.subset_report import SubsetInput, evaluate_subset

TYPE = BitextMining()


def recorded(n: int = 40, seed: int = 0) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Gold t<k> for sentence k; three annotators who choose wrong (a neighbour's translation or
    a filler) on about a fifth of the sentences each, drawn with a fixed seed."""
    rng = np.random.default_rng(seed)
    gold = {f"s{k}": f"t{k}" for k in range(n)}
    humans = {}
    for who in ("ana", "bo", "cy"):
        answers = {}
        for k in range(n):
            if rng.random() < 0.2:
                answers[f"s{k}"] = f"t{(k + 1) % n}" if rng.random() < 0.5 else f"f{k}"
            else:
                answers[f"s{k}"] = f"t{k}"
        humans[who] = answers
    return gold, humans


def test_one_person_s_score_is_scikit_learn_s_weighted_f1() -> None:
    gold, humans = recorded()
    for who, answers in humans.items():
        items = sorted(answers)
        expected = f1_score(
            [gold[i] for i in items],
            [answers[i] for i in items],
            average="weighted",
            zero_division=0,
        )
        score = TYPE.score_human(gold, {who: answers})
        assert score.value == pytest.approx(expected, abs=1e-12)
        assert score.per_rater[who] == pytest.approx(expected, abs=1e-12)
        assert score.details["accuracy"] == pytest.approx(
            accuracy_score([gold[i] for i in items], [answers[i] for i in items])
        )


def test_the_human_score_is_the_f1_of_the_majority_vote() -> None:
    gold, humans = recorded(seed=3)
    votes = {}
    for item in gold:
        counts = Counter(h[item] for h in humans.values())
        top = max(counts.values())
        votes[item] = sorted(c for c, k in counts.items() if k == top)[0]
    items = list(gold)
    expected = f1_score(
        [gold[i] for i in items], [votes[i] for i in items], average="weighted", zero_division=0
    )
    score = TYPE.score_human(gold, humans)
    assert score.value == pytest.approx(expected, abs=1e-12)
    assert score.details["votes"] == votes
    assert score.value != pytest.approx(score.details["accuracy"])  # F1, not accuracy


def test_a_tie_goes_to_the_first_id_and_wrong_choices_cost_the_chosen_sentence() -> None:
    gold = {"a": "t1", "b": "t2", "c": "t3"}
    tied = human_bitext_mining(gold, {"x": {"a": "t2"}, "y": {"a": "t1"}})
    assert tied.details["votes"]["a"] == "t1" and tied.details["n_tied_items"] == 1
    # a chooses b's translation: t2 is predicted twice (precision 1/2), t1 never (F1 0)
    one = human_bitext_mining(gold, {"x": {"a": "t2", "b": "t2", "c": "t3"}})
    assert one.value == pytest.approx((0 + 2 / 3 + 1) / 3)
    with pytest.raises(InvalidInputError, match="answers\\['x'\\]: a choice must be"):
        human_bitext_mining(gold, {"x": {"a": ["t1"]}})


def test_the_bootstrap_s_closed_form_is_scikit_learn_s_f1() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        g = rng.integers(0, 12, n)
        p = np.where(rng.random(n) < 0.6, g, rng.integers(0, 15, n))
        expected = f1_score(g, p, average="weighted", zero_division=0)
        assert weighted_f1_codes(np.stack([g, p], axis=1)) == pytest.approx(expected, abs=1e-12)


def test_the_report_has_the_type_s_rows() -> None:
    """Agreement, which human, the paired verdict of a model and of an LLM annotator (their
    choices among the same candidates, scored like the people's), and the alternative
    annotator test."""
    gold, humans = recorded(n=30, seed=5)
    model = {i: (g if k % 4 else f"t{(k + 1) % 30}") for k, (i, g) in enumerate(gold.items())}
    llm = {i: (g if k % 3 else "f0") for k, (i, g) in enumerate(gold.items())}
    report = evaluate_subset(
        SubsetInput(
            key="flores/eng-arb",
            task_name="flores",
            hf_subset="eng-arb",
            task_type=TYPE,
            language="eng-Latn",
            gold=gold,
            humans=humans,
            llms={"llm:test": llm},
            models={"emb:m": 0.7},
            model_answers={"emb:m": model},
        )
    )
    assert report.human is not None and report.human.method.endswith("mteb_f1")
    assert report.interval is not None and report.interval.low < report.human.value
    assert {a.method for a in report.agreement} >= {"fleiss_kappa"}
    assert report.paired["emb:m"]["position"] in {"above", "below", "inside"}
    model_f1 = f1_score(list(gold.values()), list(model.values()), average="weighted")
    assert report.paired["emb:m"]["rater_on_items"] == pytest.approx(model_f1)
    assert "llm:test" in report.paired and "llm:test" in report.alt_test
    assert report.human_panel  # which human: aggregate, annotators, ...
    assert report.planning  # the sample-size line
