"""Classification: how humans are scored (HUME: majority vote, then accuracy)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals
from scoring.aggregation import classification as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.resample_counts import counts_form, mean_of_whole_records
from scoring.rules import ItemAlignment, PerItem, ScoringRules, label_match, majority_consensus


@counts_form(mean_of_whole_records)
@intervals.vectorized
def _mean_hits(x: Any) -> Any:
    """Accuracy of each resample of per-item hits. One function object for every score, so
    the panel's resample memo (:mod:`scoring.panel`) knows two bootstraps share it; hits are
    whole numbers, so the bootstrap takes it from the draw counts
    (:mod:`scoring.resample_counts`), the same floats."""
    return np.mean(x, axis=-1)


class ClassificationScoring(ScoringRules):
    """Items: gold is a label, an answer is a label.

    Majority vote per item (ties to the alphabetically first label), then accuracy, with a
    Wilson interval; agreement is Fleiss' κ (plus pairwise Cohen κ, percentage agreement and
    nominal Krippendorff α).
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "majority vote per item, ties to the alphabetically first label, then accuracy"
        ),
        "Model score": "logistic regression over 10 seeded experiments",
        "Interval (95 %)": "Wilson",
        "Ties": (
            "a tied vote goes to the alphabetically first label (HUME); the report also gives "
            "the exact expected accuracy under a uniform random tie-break (a tied item counts "
            "1/k when gold is among its k top labels), ties to / away from gold, and accuracy "
            "on untied items"
        ),
        "Agreement": "Fleiss' κ (+ pairwise Cohen κ, percentage, Krippendorff α)",
        "Candidate gold errors": "all annotators (≥ 2) agree on a label other than gold",
    }
    #: Answers are labels: the report adds a Dawid–Skene aggregate (scoring.panel).
    score_answers_are_labels = True
    score_main_name = "accuracy"
    score_mteb_main_name = "accuracy"
    score_main_range = (0.0, 1.0)
    score_annotator_method = "accuracy"
    score_headline_agreement = "fleiss_kappa"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Label match: 1 when two answers give the same label."""
        return ItemAlignment("label match (1 if equal, else 0)", label_match)

    score_human_machine_statistic = "cohen_kappa"

    #: The stored per-item model answer is the majority label over mteb's 10 runs; the mean
    #: accuracy over runs (the printed score) has no per-item form in the store.
    score_model_compared = "accuracy of the model's majority vote over mteb's 10 runs"

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_classification(gold, answers)

    def score_rater_value(
        self, gold: Mapping[Hashable, Any], answers: Mapping[Hashable, Any]
    ) -> float:
        """One rater's accuracy: their hits over the items they answered.

        Why: the noise ceiling needs only this number, once per annotator and subset, and the
        whole score (F1, votes, tie rules) cost four times as much (issue 38). Where every
        label is a plain string of gold's items it is the count of equal labels over the count
        of answers, as :func:`scoring.kernels.classification_scores` divides its count; any
        other input goes through :meth:`score_human`, which validates it. A label ending in
        NUL goes there too (numpy's string arrays drop trailing NULs before comparing).
        """
        if answers and all(
            type(a) is str and not a.endswith("\0") and i in gold for i, a in answers.items()
        ):
            truth = [gold[i] for i in answers]
            if all(type(g) is str and not g.endswith("\0") for g in truth):
                hits = sum(a == g for a, g in zip(answers.values(), truth, strict=True))
                return hits / len(truth)
        return super().score_rater_value(gold, answers)

    def score_ties(self, score: Score) -> Mapping[str, Any] | None:
        """Ties of the majority vote; the score under each tie rule (see
        :func:`scoring.aggregation.classification.human_classification`)."""
        rules = score.details.get("tie_rules")
        if rules is None:
            return None
        return {
            "n_tied_items": int(score.details.get("n_tied_items", 0)),
            "rule": "alphabetical",
            "scores": dict(rules),
        }

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The majority label, ties to the alphabetically first (HUME's vote)."""
        return majority_consensus(answers)

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return agreement.categorical_agreements(humans)

    def score_interval(self, score: Score) -> Interval:
        n = int(score.n_items or 0)
        return intervals.wilson(round(score.value * n), n)

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """The majority vote of an item is fixed, so accuracy is a mean of per-item hits."""
        votes = score.details.get("votes") or {}
        hits = np.array([float(votes[i] == gold[i]) for i in votes])
        return hits, _mean_hits

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        needed = intervals.wilson_n_for_half_width(min(max(score.value, 0.0), 1.0), target)
        return needed, "wilson_n_for_half_width(p = human accuracy)"

    def score_disagree(self, values: list[Any]) -> bool:
        return any(v != values[0] for v in values[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        return all(v == values[0] for v in values) and values[0] != gold

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("text", ""))
