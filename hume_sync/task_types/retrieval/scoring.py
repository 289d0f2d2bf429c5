"""Retrieval: how humans are scored (their grades order the pool; the subset's main score
against qrels, nDCG@10 unless its task names another; mean over queries per annotator, then
mean over annotators), and models alike on the same pool."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from scoring import agreement, intervals
from scoring.aggregation import retrieval as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import ItemAlignment, PerItem, ScoringRules, items_by_bootstrap_scaling

#: A document's text is cut to this many characters in the report's item lists.
MARK_TEXT_CHARS = 120


def _units(answers: Mapping[str, Any]) -> dict[str, dict[Hashable, int]]:
    """Per rater, one unit per (query, document): what grade agreement compares."""
    return {
        rater: {
            f"{q}/{d}": int(g)
            for q, grades in (given or {}).items()
            if isinstance(grades, Mapping)
            for d, g in grades.items()
            if g is not None
        }
        for rater, given in answers.items()
    }


def _grades_alignment(a: Any, b: Any) -> float:
    keys = set(a) | set(b)
    if not keys:
        return 1.0
    return sum(a.get(k) == b.get(k) for k in keys) / len(keys)


class RetrievalScoring(ScoringRules):
    """Items: a query; gold is qrels' ``{document: grade}`` for its judged pooled documents, an
    answer the annotator's grade of every pooled document."""

    #: The subset's main score as mteb names it; a subset whose task names another than
    #: nDCG@10 is scored by a copy of the type with it set (``Retrieval.for_subset``).
    main_score: str = aggregation.DEFAULT_MAIN

    @property
    def score_methods(self) -> Mapping[str, str]:
        """The Methods phrases, naming the main score (a report whose retrieval subsets differ
        in it gives each its own phrase)."""
        label = self.score_main_label
        return {
            "Human score": (
                "each annotator's grades order the pool (ties: expected value under a random "
                f"order within a grade); trec_eval {label} against qrels, mean over queries "
                "then annotators; judged@10 and the condensed score beside it"
            ),
            "Model score": f"cosine ranking of the same pool (mteb with top_ranked) + {label}",
            "Interval (95 %)": "range across annotators",
            "Agreement": "Krippendorff's α (ordinal) and Fleiss' κ on the grades of each document",
            "Candidate gold errors": "all annotators (≥ 2) grade a document alike, not as qrels do",
        }

    @property
    def score_main_name(self) -> str:
        return self.main_score

    @property
    def score_main_label(self) -> str:
        return aggregation.metric_label(self.main_score)

    @property
    def score_mteb_main_name(self) -> str:
        return self.main_score

    @property
    def score_annotator_method(self) -> str:
        return f"mean_over_queries({aggregation.metric_token(self.main_score)}:expected_ties)"

    score_main_range = (0.0, 1.0)
    score_headline_agreement = "krippendorff_alpha:ordinal"
    score_human_machine_statistic = "cohen_kappa"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Per query: the share of its documents both raters grade alike."""
        return ItemAlignment("share of a query's documents graded alike", _grades_alignment)

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_retrieval(gold, answers, main=self.main_score)

    def score_model(
        self, gold: Mapping[Hashable, Any], answers: Mapping[Hashable, Any]
    ) -> Score | None:
        """The model's own ranking of the pool (its similarities; ties by id, as trec_eval),
        the main score per query as mteb computes it with the pool as ``top_ranked``."""
        per_query = aggregation.run_scores(gold, answers, self.main_score)
        value = float(np.mean(list(per_query.values()))) if per_query else float("nan")
        return Score(
            value,
            f"mteb:{aggregation.trec_measure(self.main_score)}",
            n_items=len(per_query),
            per_rater={"rater": value},
            details={"per_rater_per_query": {"rater": per_query}},
        )

    def score_result_extras(self, score: Score, rater: str | None = None) -> Mapping[str, float]:
        """nDCG@10 beside another main score (the key result files of retrieval are typed
        by); nothing for an nDCG@10 subset, whose files stay as they were."""
        default = aggregation.DEFAULT_MAIN
        if self.main_score == default:
            return {}
        measures = score.details if rater is None else score.details["per_rater_measures"][rater]
        return {default: float(measures[default])}

    def score_normalise_answer(self, answer: Any) -> Any:
        """JSON keeps document ids as strings but may hold grades as floats."""
        if isinstance(answer, Mapping):
            return {str(k): int(v) for k, v in answer.items()}
        return answer

    def score_normalise_model_answer(self, answer: Any) -> Any:
        """A model's similarities stay floats (as grades they became 0 or 1)."""
        if isinstance(answer, Mapping):
            return {str(k): float(v) for k, v in answer.items()}
        return answer

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """Per query and document the lower median grade (the noise ceiling's gold)."""
        return aggregation.consensus_grades(answers)

    def score_ties(self, score: Score) -> Mapping[str, Any] | None:
        """Every query's grades tie (a pool has more documents than grades): the reported
        value is the random tie-break's expectation; the shown order's value beside it."""
        other = score.details.get("input_order")
        if not isinstance(other, Mapping):
            return None
        return {
            "n_tied_items": int(score.n_items or 0),
            "rule": "random_expected",
            "scores": {
                "random_expected": score.value,
                "input_order": float(other[self.main_score]),
            },
        }

    def score_agreement_answers(
        self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        return _units(answers)

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        units = _units(humans)
        return [
            agreement.krippendorff_alpha(units, level="ordinal"),
            agreement.fleiss_kappa(units),
        ]

    def score_interval(self, score: Score) -> Interval:
        return intervals.annotator_range(dict(score.per_rater), estimate=score.value)

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """Each annotator's main score per query is fixed: the score is a mean over resampled
        queries (per annotator, then over annotators)."""
        per = score.details.get("per_rater_per_query") or {}
        queries = sorted({q for v in per.values() for q in v}, key=str)
        if not queries:
            return None
        table = np.array(
            [[per[r].get(q, np.nan) for r in sorted(per)] for q in queries], dtype=float
        )

        @intervals.vectorized
        def mean_main(x: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(np.nanmean(x, axis=-2), axis=-1)

        return table, mean_main

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_disagree(self, values: list[Any]) -> bool:
        return any(v != values[0] for v in values[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """Annotators agree, and some document qrels judge they grade otherwise."""
        if not all(v == values[0] for v in values) or not isinstance(values[0], Mapping):
            return False
        return any(values[0].get(d) != g for d, g in (gold or {}).items())

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("query", ""))

    def score_item_marks(
        self, content: Mapping[str, Any], gold: Any, answers: Mapping[str, Any]
    ) -> list[str] | None:
        """One line per document: its text, qrels' grade (– unjudged) and each rater's."""

        def grade(grades: Any, did: str) -> str:
            if not isinstance(grades, Mapping) or did not in grades:
                return "–"
            return str(int(grades[did]))

        lines = []
        for doc in content.get("candidates") or []:
            did = str(doc.get("id"))
            text = " ".join(str(doc.get("text", "")).split())
            text = text if len(text) <= MARK_TEXT_CHARS else text[: MARK_TEXT_CHARS - 1] + "…"
            who = "; ".join(f"{r} {grade(a, did)}" for r, a in sorted(answers.items()))
            lines.append(f"{text} — qrels {grade(gold, did)}; {who}")
        return lines or None
