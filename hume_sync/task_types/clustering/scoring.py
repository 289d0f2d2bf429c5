"""Clustering: how humans are scored (HUME: V-measure per annotator, mean over annotators)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from scoring import agreement, intervals
from scoring.aggregation import clustering as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import PerItem, ScoringRules, items_by_bootstrap_scaling


class ClusteringScoring(ScoringRules):
    """Items: a set of texts; gold is ``{text_id: label}``, an answer ``{text_id: group}``.

    Sets are flattened to texts (:func:`scoring.aggregation.clustering.flatten_clustering`) for
    scores and agreement. V-measure per annotator, then the mean, with the range across
    annotators as the interval; agreement is mean pairwise ARI.
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": "V-measure per annotator, mean over annotators",
        "Model score": "MiniBatchKMeans",
        "Interval (95 %)": "range across annotators",
        "Agreement": "mean pairwise ARI",
        "Candidate gold errors": "none (a partition has no per-set gold answer to agree on)",
    }
    score_main_name = "v_measure"
    score_main_label = "V-measure"
    score_mteb_main_name = "v_measure"
    score_main_range = (0.0, 1.0)
    score_annotator_method = "v_measure"
    score_headline_agreement = "mean_pairwise_ari"

    @property
    def score_alignment_missing(self) -> str:
        """Why clustering has no per-item alignment."""
        return (
            "not applicable: an item is a whole set partitioned once per rater with arbitrary "
            "group names: two answers compare only as whole partitions (ARI), not item by item"
        )

    score_human_machine_statistic = "ari"

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        flat_gold, flat_answers = aggregation.flatten_clustering(gold, answers)
        return aggregation.human_clustering(flat_gold, flat_answers)

    def score_agreement_answers(
        self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return aggregation.flatten_clustering(gold, answers)[1]

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return [agreement.mean_pairwise_ari(self.score_agreement_answers(gold, humans))]

    def score_interval(self, score: Score) -> Interval:
        return intervals.annotator_range(dict(score.per_rater), estimate=score.value)

    def score_model(
        self, gold: Mapping[Hashable, Any], answers: Mapping[Hashable, Any]
    ) -> Score | None:
        """One partition per set: no per-item decomposition, so models are unpaired."""
        return None

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """One set per subset: there is nothing to resample."""
        return None

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        # The annotator range does not shrink with items.
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_disagree(self, values: list[Any]) -> bool:
        """Never per item: partitions are compared as a whole (mean pairwise ARI)."""
        return False

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """Never per item: a partition has no per-set gold answer to agree on."""
        return False

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return f"{len(content.get('items', []))} texts"
