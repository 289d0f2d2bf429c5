"""Pair classification: the scoring concern, humans scored on the metrics mteb scores models on.

The rules and their maths (AP of the annotators' vote share, the majority vote beside it, the
chance levels) are :mod:`scoring.aggregation.pair_classification`; this mixin names them for the
report and supplies agreement, intervals and per-item records.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals
from scoring.aggregation.common import Answers
from scoring.aggregation.pair_classification import (
    ap_of_rows,
    chance_levels,
    human_pair_classification,
)
from scoring.errors import DegenerateInputError
from scoring.records import Agreement, Interval, Score
from scoring.rules import (
    ItemAlignment,
    PerItem,
    ScoringRules,
    items_by_bootstrap_scaling,
    label_match,
    majority_consensus,
)


class PairClassificationScoring(ScoringRules):
    """Pair classification's scoring behaviour (the ``ScoringRules`` protocol).

    Items: gold is 1 or 0, an answer is 1 or 0. The main score is AP of the annotators' vote
    share; it is written under mteb's key ``max_ap`` in human result files too (a human has one
    "similarity", the vote share, so the best over similarity functions is its AP).
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "annotators' vote share per pair, then scikit-learn AP (beside it: majority vote, "
            "ties to 0, then accuracy)"
        ),
        "Ties": (
            "the AP needs no tie rule (a pair with as many Yes as No has vote share ½); the "
            "majority vote beside it counts such a pair as No"
        ),
        "Model score": "mteb max_ap (best of five pair scores, thresholds on the same pairs)",
        "Interval (95 %)": "seeded BCa bootstrap over pairs (Wilson for the vote's accuracy)",
        "Agreement": "Fleiss' κ (+ pairwise Cohen κ, percentage, Krippendorff α)",
        "Candidate gold errors": "all annotators (≥ 2) give the same answer, not gold's",
    }

    #: Answers are labels: the report adds a Dawid–Skene aggregate (scoring.panel).
    score_answers_are_labels = True
    score_main_name: str = "max_ap"
    score_main_label: str = "max AP"
    score_mteb_main_name: str = "max_ap"
    score_main_range: tuple[float, float] = (0.0, 1.0)
    #: Only pair classification's score blocks hold ``max_ap``.
    score_metric_keys: tuple[str, ...] = ("max_ap",)
    #: One annotator's own score: AP of their 0/1 answers (scikit-learn, ties as one step).
    score_annotator_method: str = "ap:sklearn"
    score_headline_agreement: str = "fleiss_kappa"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Label match on the 0/1 answer: 1 when two answers agree."""
        return ItemAlignment("label match (1 if equal, else 0)", label_match)

    score_human_machine_statistic: str = "cohen_kappa"
    #: Bootstrap settings of :meth:`score_interval` (seeded: the same answers, the same bounds).
    #: A model stores its 1/0 decisions (at mteb's best-accuracy threshold): their AP, not
    #: mteb's max AP over the similarities (the printed score), is what has a per-item form.
    score_model_compared: str = "AP of the model's stored 1/0 decisions"
    score_bootstrap_resamples: int = 2000
    score_bootstrap_seed: int = 0

    def score_human(self, gold: Mapping[Hashable, Any], answers: Answers) -> Score:
        """AP of the vote shares (``value``); the vote's accuracy and the rest in ``details``."""
        return human_pair_classification(gold, answers)

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The majority answer, a tie counted as No (as the vote beside the AP)."""
        return majority_consensus(answers)

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        """Fleiss' κ (headline), mean pairwise Cohen's κ, percentage agreement, nominal α."""
        del gold
        return agreement.categorical_agreements(humans)

    def score_agreement_flags(self, headline: Agreement) -> dict[str, bool]:
        """The paper's flags: revise below κ 0.4, a reliable target above κ 0.6."""
        return {
            "low": agreement.low_agreement(headline),
            "high": agreement.high_agreement(headline),
        }

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """A pair's vote share is fixed, so AP is a statistic of (gold, share) records;
        a resample without a positive pair has no AP (NaN, dropped by the bootstrap)."""
        shares = score.details.get("vote_shares") or {}
        if not shares:
            return None
        rows = np.asarray([[float(gold[i]), float(v)] for i, v in shares.items()])
        return rows, ap_of_rows

    def score_interval(self, score: Score) -> Interval:
        """Seeded BCa bootstrap over pairs of the human AP (no closed form exists for AP)."""
        gold = score.details.get("gold") or {}
        per_item = self.score_per_item(gold, score)
        if per_item is None:
            raise DegenerateInputError("no answered pair to resample")
        rows, statistic = per_item
        return intervals.bootstrap(
            rows,
            statistic,
            n_resamples=self.score_bootstrap_resamples,
            seed=self.score_bootstrap_seed,
            method="bca",
            vectorized=intervals.is_vectorized(statistic),
        )

    def score_accuracy_interval(self, score: Score, level: float = 0.95) -> Interval:
        """Wilson interval of the majority vote's accuracy (``details["accuracy"]``)."""
        return intervals.wilson(int(score.details["n_correct"]), int(score.n_items or 0), level)

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        """Items for an AP interval of half-width ``target`` (bootstrap half-width, 1/√n:
        AP has no closed-form interval to invert)."""
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_chance(self, gold: Mapping[Hashable, Any]) -> dict[str, float]:
        """Chance levels of the subset: coin-flip and majority-class accuracy, random AP."""
        return chance_levels(gold)

    def score_disagree(self, values: list[Any]) -> bool:
        """A pair's annotators disagree when both answers were given."""
        return any(v != values[0] for v in values[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """Annotators who all gave the same answer, not gold's: a candidate gold error."""
        return all(v == values[0] for v in values) and values[0] != gold

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        """A pair as the report's item lists show it."""
        return f"{content.get('sentence1', '')} ⟷ {content.get('sentence2', '')}"
