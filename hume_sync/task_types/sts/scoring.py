"""STS: how humans are scored (HUME: mean rating per pair, then Spearman against gold)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals, kernels
from scoring.aggregation import sts as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import ItemAlignment, PerItem, ScoringRules

#: Ratings this far apart (on the 0–5 scale) make a disagreement; a mean rating this far from
#: gold, with annotators not disagreeing, a candidate gold error.
RATING_GAP = 2


#: Up to this many whole-number ratings below :data:`_EXACT` add exactly in float64, in any
#: order (their sum stays below 2**53).
_EXACT = 2.0**40
_EXACT_COUNT = 4096


def _rating_alignment(a: Any, b: Any) -> float:
    return -abs(float(a) - float(b)) / 5.0


class STSScoring(ScoringRules):
    """Items: gold is a float, an answer a rating 0–5.

    Mean rating per pair, then Spearman against gold, with a Fisher z interval; agreement is
    mean pairwise Spearman (plus interval Krippendorff α).
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": "mean rating per pair, then Spearman (HUME)",
        "Model score": "cosine + Spearman",
        "Interval (95 %)": "Fisher z",
        "Agreement": "mean pairwise Spearman (+ α interval)",
        "Candidate gold errors": "mean rating ≥ 2 points from gold",
    }
    score_main_name = "spearman"
    score_main_label = "Spearman ρ"
    score_mteb_main_name = "cosine_spearman"
    # mteb's STS main score is a Spearman correlation, which may be negative.
    score_main_range = (-1.0, 1.0)
    score_annotator_method = "spearman"
    score_headline_agreement = "mean_pairwise_spearman"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Negative distance of two ratings, normalised by the 0–5 scale: 0 when equal, −1 at
        the scale's two ends."""
        return ItemAlignment("−|a − b| / 5 (rating distance on the 0–5 scale)", _rating_alignment)

    score_human_machine_statistic = "spearman"

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_sts(gold, answers)

    score_ceiling_spearman_brown = True

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The mean rating per pair (HUME's aggregate)."""
        ratings: dict[Hashable, list[float]] = {}
        for a in answers.values():
            for i, v in a.items():
                if v is not None:
                    ratings.setdefault(i, []).append(float(v))
        return {i: sum(v) / len(v) for i, v in ratings.items()}

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return [
            agreement.mean_pairwise_spearman(humans),
            agreement.krippendorff_alpha(humans, level="interval"),
        ]

    def score_interval(self, score: Score) -> Interval:
        return intervals.fisher_z(score.value, int(score.n_items or 0))

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """A pair's mean rating is fixed, so Spearman is taken over resampled
        (gold, mean rating) pairs (NaN for a resample constant on either side). Spearman depends
        only on the order, so the records are each side's dense rank codes
        (:func:`scoring.kernels.rank_codes`), which the statistic counts instead of sorting."""
        means = score.details.get("mean_ratings") or {}
        pairs = np.array([(float(gold[i]), float(m)) for i, m in means.items()]).reshape(-1, 2)
        return kernels.rank_codes(pairs), kernels.spearman_of_codes

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        rho = max(min(score.value, 0.999), -0.999)
        needed = intervals.fisher_z_n_for_half_width(rho, target)
        return needed, "fisher_z_n_for_half_width(rho = human Spearman)"

    def score_disagree(self, values: list[Any]) -> bool:
        return max(values) - min(values) >= RATING_GAP

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """The mean rating ``RATING_GAP`` or more from gold.

        Ratings that are whole numbers (the 0–5 scale) have an exact sum in any order, so
        their mean is that sum over their count, the float ``np.mean`` gives, without its
        array (the report asks this of every pair two raters answered, issue 38).
        """
        if (
            len(values) <= _EXACT_COUNT
            and all(type(v) is int or (type(v) is float and v.is_integer()) for v in values)
            and all(abs(v) < _EXACT for v in values)
        ):
            mean = float(sum(values)) / len(values)
        else:
            mean = float(np.mean(values))
        return abs(mean - float(gold)) >= RATING_GAP

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return f"{content.get('sentence1', '')} ⟷ {content.get('sentence2', '')}"
