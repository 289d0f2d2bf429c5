"""Summarization: how humans are scored (mean rating per summary, then mteb's per-text
Spearman against the experts, averaged over texts)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals
from scoring.aggregation import summarization as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import ItemAlignment, PerItem, ScoringRules, items_by_bootstrap_scaling

#: Ratings of one summary this far apart make a disagreement.
RATING_GAP = 2
#: Resamples of the bootstrap intervals (the human score's and α's).
RESAMPLES = 2000
#: A summary's text is cut to this many characters in the report's item lists.
MARK_TEXT_CHARS = 120


def _ratings_alignment(a: Any, b: Any) -> float:
    """Negative mean distance of two raters' ratings of one text's summaries, on the 1–5
    scale: 0 when equal, −1 when every summary is rated at opposite ends."""
    if not isinstance(a, Mapping) or not isinstance(b, Mapping) or not a:
        return float("nan")
    lo, hi = aggregation.RATING_SCALE
    return -float(np.mean([abs(float(a[k]) - float(b[k])) for k in a])) / (hi - lo)


class SummarizationScoring(ScoringRules):
    """Items: a text; gold is ``{summary id: expert score}``, an answer ``{summary id:
    rating}`` for every summary.

    The mean rating per summary, then mteb's per-text Spearman against the experts, averaged
    over the texts mteb keeps: agreement with the expert panel. A BCa bootstrap over texts;
    agreement is Krippendorff's α (interval, ordinal beside) with a bootstrap interval over
    texts. A model is compared like for like: its best cosine per summary, the same per-text
    Spearman.
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "agreement with the expert panel: mean rating per summary, then mteb's Spearman "
            "against the expert scores per text, averaged; texts with constant expert scores "
            "or constant ratings skipped, as mteb skips them"
        ),
        "Model score": (
            "mteb: each summary's best cosine to the reference summaries, Spearman against "
            "the expert scores per text, averaged"
        ),
        "Interval (95 %)": "BCa bootstrap over texts",
        "Agreement": (
            "Krippendorff's α (interval; ordinal beside) over summaries, 95 % bootstrap "
            "interval over texts"
        ),
        "Candidate gold errors": (
            "annotators agree (no summary's ratings ≥ 2 apart) and their mean ratings order "
            "the summaries against the experts (Spearman < 0)"
        ),
    }
    score_main_name = "expert_spearman"
    score_main_label = "Spearman ρ (with experts)"
    score_mteb_main_name = aggregation.MAIN_SCORE
    # mteb's main score is a mean of Spearman correlations, which may be negative.
    score_main_range = (-1.0, 1.0)
    score_annotator_method = "mteb_text_spearman"
    score_headline_agreement = "krippendorff_alpha:interval"
    score_human_machine_statistic = "spearman"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        return ItemAlignment(
            "−mean |a − b| / 4 over a text's summaries (rating distance on the 1–5 scale)",
            _ratings_alignment,
        )

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_summarization(gold, answers)

    def score_normalise_answer(self, answer: Any) -> Any:
        """Ratings (or expert scores) keyed by summary id as strings."""
        if isinstance(answer, Mapping):
            return {str(k): v for k, v in answer.items()}
        return answer

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The mean rating per summary (HUME's aggregate)."""
        given: dict[Hashable, list[Mapping[str, Any]]] = {}
        for a in answers.values():
            for item, v in a.items():
                if isinstance(v, Mapping):
                    given.setdefault(item, []).append(v)
        return {
            item: {str(k): float(np.mean([float(v[k]) for v in vs])) for k in vs[0]}
            for item, vs in given.items()
        }

    def score_agreement_answers(
        self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """The ratings per summary (a text holds several units)."""
        return aggregation.flatten(answers)

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return [
            aggregation.alpha_by_texts(humans, level="interval"),
            aggregation.alpha_by_texts(humans, level="ordinal"),
            agreement.mean_pairwise_spearman(aggregation.flatten(humans)),
        ]

    def score_interval(self, score: Score) -> Interval:
        """A seeded BCa bootstrap over texts of the mean per-text Spearman."""
        records, statistic = self._records(score)
        return intervals.bootstrap(records, statistic, n_resamples=RESAMPLES, seed=0)

    @staticmethod
    def _records(score: Score) -> PerItem:
        per_text = score.details.get("text_spearman") or {}
        values = [np.nan if v is None else float(v) for v in per_text.values()]
        return np.asarray(values, dtype=float), aggregation.mean_of_texts

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """A text's Spearman is fixed (NaN where skipped), so the score is the mean of
        per-text records: texts resample as mteb would score them."""
        if not score.details.get("text_spearman"):
            return None
        return self._records(score)

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_disagree(self, values: list[Any]) -> bool:
        """Two annotators' ratings of one summary at least :data:`RATING_GAP` apart."""
        maps = [v for v in values if isinstance(v, Mapping)]
        if len(maps) < 2:
            return False
        return any(
            max(float(m[k]) for m in maps) - min(float(m[k]) for m in maps) >= RATING_GAP
            for k in maps[0]
        )

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """The mean ratings order the summaries against the experts (Spearman < 0)."""
        maps = [v for v in values if isinstance(v, Mapping)]
        if not maps or not isinstance(gold, Mapping):
            return False
        ids = [str(k) for k in gold]
        mean = [float(np.mean([float(m[k]) for m in maps])) for k in ids]
        both = aggregation.text_correlations([float(gold[k]) for k in ids], mean)
        return both is not None and both[0] < 0

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("text", ""))

    def score_item_marks(
        self, content: Mapping[str, Any], gold: Any, answers: Mapping[str, Any]
    ) -> list[str] | None:
        """One line per summary: its text, the experts' score, then each rater's rating."""
        lines = []
        gold = gold if isinstance(gold, Mapping) else {}
        for s in content.get("candidates") or []:
            sid = str(s.get("id"))
            text = " ".join(str(s.get("text", "")).split())
            text = text if len(text) <= MARK_TEXT_CHARS else text[: MARK_TEXT_CHARS - 1] + "…"
            rated = ", ".join(
                f"{r} {a.get(sid)}" for r, a in sorted(answers.items()) if isinstance(a, Mapping)
            )
            lines.append(f"{text} — experts {gold.get(sid, '?')}; rated {rated or '–'}")
        return lines or None
