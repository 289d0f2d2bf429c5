"""Bitext mining: how humans are scored (the majority choice per item, then mteb's F1)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from hume_sync.task_types.bitext_mining.interface import model_choice
from scoring import agreement, intervals
from scoring.aggregation import bitext_mining as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import (
    ItemAlignment,
    PerItem,
    ScoringRules,
    items_by_bootstrap_scaling,
    label_match,
    majority_consensus,
)

#: A candidate's text is cut to this many characters in the report's item lists.
MARK_TEXT_CHARS = 120
#: Resamples of the interval over items (as the report's bootstrap).
RESAMPLES = 2000


class BitextMiningScoring(ScoringRules):
    """Items: a sentence; gold is the id of its translation, an answer the id chosen.

    The majority choice per item, then mteb's weighted F1 (every target sentence a label);
    a bootstrap interval over items; agreement is Fleiss' κ on the choices (plus pairwise
    Cohen κ, percentage agreement and nominal Krippendorff α). A model is compared by its
    choice among the same candidates, scored the same way.
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "majority choice per sentence (ties to the first candidate id), then mteb's "
            "weighted F1 of chosen against gold translation"
        ),
        "Model score": (
            "mteb's nearest neighbour among every translation of the subset (printed); its "
            "choice among the candidates people saw (compared)"
        ),
        "Interval (95 %)": "BCa bootstrap over sentences",
        "Agreement": "Fleiss' κ on the choices (+ pairwise Cohen κ, percentage, Krippendorff α)",
        "Candidate gold errors": "all annotators (≥ 2) choose the same other candidate",
    }
    score_main_name = "f1"
    score_main_label = "F1"
    score_mteb_main_name = "f1"
    score_main_range = (0.0, 1.0)
    score_annotator_method = "mteb_f1"
    score_headline_agreement = "fleiss_kappa"
    score_human_machine_statistic = "cohen_kappa"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Choice match: 1 when two answers choose the same candidate."""
        return ItemAlignment("choice match (1 if the same candidate, else 0)", label_match)

    @property
    def score_model_compared(self) -> str | None:
        """The paired comparison reads the model's choice among the shown candidates."""
        return "F1 of the model's choice among the candidates people saw"

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_bitext_mining(gold, answers)

    def score_normalise_answer(self, answer: Any) -> Any:
        """A choice is a candidate id (a string)."""
        return None if answer is None else str(answer)

    def score_normalise_model_answer(self, answer: Any) -> Any:
        """A model stores its similarity to each candidate; it chooses the most similar."""
        if isinstance(answer, Mapping):
            return model_choice(answer)
        return self.score_normalise_answer(answer)

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The majority choice, ties to the first candidate id (the human vote's rule)."""
        return majority_consensus(answers, tie=lambda tied: min(tied, key=str))

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return agreement.categorical_agreements(humans)

    def score_interval(self, score: Score) -> Interval:
        """A seeded BCa bootstrap over sentences of the vote's F1 (F1 is no proportion, so
        no Wilson interval)."""
        codes = np.asarray(score.details.get("choice_codes") or [], dtype=np.int64)
        return intervals.bootstrap(
            codes, aggregation.weighted_f1_codes, n_resamples=RESAMPLES, seed=0
        )

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """The vote of an item is fixed, so the F1 is a statistic of per-item (gold, vote)
        records (not a mean: a wrong vote for another item's translation costs that item)."""
        codes = score.details.get("choice_codes")
        if not codes:
            return None
        return np.asarray(codes, dtype=np.int64), aggregation.weighted_f1_codes

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_disagree(self, values: list[Any]) -> bool:
        return any(v != values[0] for v in values[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        return all(v == values[0] for v in values) and values[0] != gold

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("sentence", ""))

    def score_item_marks(
        self, content: Mapping[str, Any], gold: Any, answers: Mapping[str, Any]
    ) -> list[str] | None:
        """One line per candidate: its text, ✓ where it is gold, then who chose it."""
        lines = []
        for cand in content.get("candidates") or []:
            cid = str(cand.get("id"))
            text = " ".join(str(cand.get("text", "")).split())
            text = text if len(text) <= MARK_TEXT_CHARS else text[: MARK_TEXT_CHARS - 1] + "…"
            who = ", ".join(r for r, a in sorted(answers.items()) if str(a) == cid) or "–"
            lines.append(f"{text} — gold {'✓' if cid == str(gold) else '✗'}; chosen by {who}")
        return lines or None
