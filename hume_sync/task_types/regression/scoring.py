"""Regression: how humans are scored (the mean number per text, then mteb's Kendall τ)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals
from scoring.aggregation import regression as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import ItemAlignment, PerItem, ScoringRules, items_by_bootstrap_scaling

#: Two numbers this far apart, as a share of the larger magnitude, make a disagreement; the
#: annotators' mean this far from gold (agreeing), a candidate gold error. Relative, because
#: a type-wide rule cannot know the scale (a year, a count, a 1–5 rating).
RELATIVE_GAP = 0.2
#: Resamples of the interval over items (as the report's bootstrap).
RESAMPLES = 2000


def _apart(a: float, b: float) -> bool:
    return abs(a - b) >= RELATIVE_GAP * max(abs(a), abs(b))


def _closeness(a: Any, b: Any) -> float:
    return -abs(float(a) - float(b))


class RegressionScoring(ScoringRules):
    """Items: gold is a number, an answer a number.

    The mean number per text, then mteb's Kendall τ-b against gold (MAE, MSE, RMSE and R²
    beside it), with a BCa bootstrap interval over texts; agreement is interval Krippendorff
    α (plus mean pairwise Spearman).
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "mean number per text over annotators, then mteb's Kendall τ-b against gold "
            "(MAE, MSE, RMSE, R² of the means beside it)"
        ),
        "Model score": (
            "mteb's linear regression on the train pool, 10 seeded experiments, Kendall τ-b "
            "averaged (compared: τ of the mean prediction per text)"
        ),
        "Interval (95 %)": "BCa bootstrap over texts",
        "Agreement": "Krippendorff's α, interval level (+ mean pairwise Spearman)",
        "Candidate gold errors": (
            f"annotators agree, their mean ≥ {RELATIVE_GAP:.0%} of the larger magnitude from gold"
        ),
    }
    score_main_name = "kendalltau"
    score_main_label = "Kendall τ"
    score_mteb_main_name = "kendalltau"
    score_main_range = (-1.0, 1.0)
    score_annotator_method = "kendalltau"
    score_headline_agreement = "krippendorff_alpha:interval"
    score_human_machine_statistic = "spearman"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Negative distance of two numbers, in the data's units: 0 when equal."""
        return ItemAlignment("−|a − b| (distance of the two numbers)", _closeness)

    @property
    def score_model_compared(self) -> str | None:
        """The paired comparison reads the model's mean prediction per text."""
        return (
            "Kendall τ of the model's mean prediction over mteb's 10 runs (the printed score "
            "when every run fits the whole train pool)"
        )

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        score = aggregation.human_regression(gold, answers)
        means = score.details["mean_values"]
        pairs = [[float(gold[i]), float(m)] for i, m in means.items()]
        return Score(
            score.value,
            score.method,
            n_items=score.n_items,
            per_rater=score.per_rater,
            details={**score.details, "gold_mean_pairs": pairs},
        )

    def score_normalise_answer(self, answer: Any) -> Any:
        """A number (JSON may store an integer)."""
        return None if answer is None else float(answer)

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The mean number per text (HUME's aggregate)."""
        values: dict[Hashable, list[float]] = {}
        for a in answers.values():
            for i, v in a.items():
                if v is not None:
                    values.setdefault(i, []).append(float(v))
        return {i: sum(v) / len(v) for i, v in values.items()}

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return [
            agreement.krippendorff_alpha(humans, level="interval"),
            agreement.mean_pairwise_spearman(humans),
        ]

    def score_interval(self, score: Score) -> Interval:
        """A seeded BCa bootstrap over texts of τ of the (gold, mean) pairs (τ has no
        closed-form interval that holds with the ties a mean of few annotators makes)."""
        pairs = np.asarray(score.details.get("gold_mean_pairs") or [], dtype=float)
        return intervals.bootstrap(
            pairs.reshape(-1, 2), aggregation.kendall_of_pairs, n_resamples=RESAMPLES, seed=0
        )

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """A text's mean is fixed, so τ is a statistic of per-text (gold, mean) records."""
        means = score.details.get("mean_values") or {}
        if not means:
            return None
        pairs = np.array([(float(gold[i]), float(m)) for i, m in means.items()]).reshape(-1, 2)
        return pairs, aggregation.kendall_of_pairs

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_disagree(self, values: list[Any]) -> bool:
        numbers = [float(v) for v in values]
        return _apart(min(numbers), max(numbers))

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        return _apart(float(np.mean([float(v) for v in values])), float(gold))

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("text", ""))
