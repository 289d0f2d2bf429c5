"""Multilabel classification: how humans are scored (the per-label majority vote per item, then
mteb's exact-match accuracy; macro F1 and mteb's Hamming score beside it)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals
from scoring.aggregation import multilabel_classification as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import ItemAlignment, PerItem, ScoringRules


@intervals.vectorized
def _mean_hits(x: Any) -> Any:
    """Exact-match accuracy of each resample of per-item hits."""
    return np.mean(x, axis=-1)


def _set_closeness(a: Any, b: Any) -> float:
    """1 − MASI distance: 1 for the same set, 0 for disjoint ones."""
    return 1.0 - aggregation.masi_distance(a or (), b or ())


class MultilabelScoring(ScoringRules):
    """Items: gold is a label set, an answer is a label set (a sorted tuple once normalised).

    The per-label majority vote per item (a label in when more than half chose it), then mteb's
    exact-match accuracy, with a Wilson interval; agreement is Krippendorff's α with the MASI
    distance between sets (with a bootstrap interval), beside α with the Jaccard distance and
    the exact-set percentage agreement.
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "per-label majority vote per text (a label in when more than half of the "
            "annotators ticked it), then mteb's exact-match accuracy; macro F1 and mteb's "
            "Hamming score (mean |gold ∩ answer| / |gold ∪ answer|) beside it"
        ),
        "Model score": (
            "mteb's kNN (k = 5) on 10 seeded train samples (8 texts per label); compared: "
            "its per-label majority over the 10 runs"
        ),
        "Interval (95 %)": "Wilson (exact-match hits per text)",
        "Ties": (
            "a label ticked by exactly half of a text's annotators is left out; the report "
            "also gives the exact expected accuracy with a fair coin per tied label, and "
            "ties resolved to / away from gold"
        ),
        "Agreement": (
            "Krippendorff's α with the MASI set distance, bootstrap interval over texts "
            "(+ α with the Jaccard distance, exact-set percentage)"
        ),
        "Candidate gold errors": "all annotators (≥ 2) tick the same set, other than gold",
    }
    score_main_name = "accuracy"
    score_main_label = "exact-match accuracy"
    score_mteb_main_name = "accuracy"
    score_main_range = (0.0, 1.0)
    #: mteb's multilabel block holds ``lrap`` and ``hamming`` beside ``accuracy``, which a
    #: single-label block shares: they tell the two apart (:func:`scoring.tasks.task_type`).
    score_metric_keys = ("accuracy", "lrap", "hamming")
    score_annotator_method = "exact_match_accuracy"
    score_headline_agreement = aggregation.ALPHA_METHOD
    #: Sets compared as categories: chance-corrected exact match of a machine with each human.
    score_human_machine_statistic = "cohen_kappa"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """1 − MASI distance: partial credit for overlapping sets."""
        return ItemAlignment("1 − MASI distance between the label sets", _set_closeness)

    @property
    def score_model_compared(self) -> str | None:
        """The stored per-item model answer is the per-label majority over mteb's 10 runs."""
        return "exact-match accuracy of the model's per-label majority over mteb's 10 runs"

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_multilabel_classification(gold, answers)

    def score_normalise_answer(self, answer: Any) -> Any:
        """A stored set (a JSON list) as a sorted tuple, so that it can be counted and compared."""
        if answer is None:
            return None
        return aggregation.as_label_set(answer)

    def score_ties(self, score: Score) -> Mapping[str, Any] | None:
        rules = score.details.get("tie_rules")
        if rules is None:
            return None
        return {
            "n_tied_items": int(score.details.get("n_tied_items", 0)),
            "rule": "ties_out",
            "scores": dict(rules),
        }

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The per-label majority set of each item (the human vote's rule)."""
        per_item: dict[Hashable, list[tuple[str, ...]]] = {}
        for given in answers.values():
            for item, value in given.items():
                if value is not None:
                    per_item.setdefault(item, []).append(aggregation.as_label_set(value))
        return {item: aggregation.label_vote(sets)[0] for item, sets in per_item.items()}

    def score_agreement_answers(
        self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Each set as a sorted tuple: a category the pairwise statistics can count."""
        return {
            r: {i: None if v is None else aggregation.as_label_set(v) for i, v in a.items()}
            for r, a in answers.items()
        }

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        sets = self.score_agreement_answers(gold, humans)
        return [
            aggregation.set_alpha(sets, distance="masi"),
            aggregation.set_alpha(sets, distance="jaccard"),
            agreement.percentage_agreement(sets),
        ]

    def score_interval(self, score: Score) -> Interval:
        n = int(score.n_items or 0)
        return intervals.wilson(round(score.value * n), n)

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """The vote of an item is fixed, so exact-match accuracy is a mean of per-item hits."""
        hits = score.details.get("hits")
        if not hits:
            return None
        return np.asarray(hits, dtype=float), _mean_hits

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        needed = intervals.wilson_n_for_half_width(min(max(score.value, 0.0), 1.0), target)
        return needed, "wilson_n_for_half_width(p = human exact-match accuracy)"

    def score_disagree(self, values: list[Any]) -> bool:
        sets = [aggregation.as_label_set(v) for v in values]
        return any(s != sets[0] for s in sets[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        sets = [aggregation.as_label_set(v) for v in values]
        return all(s == sets[0] for s in sets) and sets[0] != aggregation.as_label_set(gold)

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("text", ""))

    def score_item_marks(
        self, content: Mapping[str, Any], gold: Any, answers: Mapping[str, Any]
    ) -> list[str] | None:
        """Gold's set, then each rater's set (sets do not read alone as one label does)."""

        def shown(value: Any) -> str:
            found = aggregation.as_label_set(value) if value is not None else None
            return (
                "–" if found is None else ("{" + ", ".join(found) + "}" if found else "{} (none)")
            )

        lines = [f"gold: {shown(gold)}"]
        lines += [f"{rater}: {shown(a)}" for rater, a in sorted(answers.items())]
        return lines
