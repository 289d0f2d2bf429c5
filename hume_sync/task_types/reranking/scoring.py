"""Reranking: how humans are scored (HUME: scikit-learn AP of binary marks, mean over queries
per annotator, then mean over annotators)."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from scoring import agreement, intervals, metrics
from scoring.aggregation import reranking as aggregation
from scoring.records import Agreement, Interval, Score
from scoring.rules import ItemAlignment, PerItem, ScoringRules, items_by_bootstrap_scaling

#: A candidate's text is cut to this many characters in the report's item lists.
MARK_TEXT_CHARS = 120


def _marks_alignment(a: Any, b: Any) -> float:
    keys = set(a) | set(b)
    if not keys:
        return 1.0
    return sum(int(a.get(k, 0)) == int(b.get(k, 0)) for k in keys) / len(keys)


class RerankingScoring(ScoringRules):
    """Items: a query; gold is ``{candidate_id: 0|1}``, an answer the annotator's marks.

    MAP per annotator, then the mean over annotators, with the range across annotators as the
    interval; agreement is per-query Spearman (plus Kendall τ and binary κ), averaged.
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "scikit-learn average precision of each annotator's binary marks, mean over "
            "queries then annotators"
        ),
        "Model score": "cosine + MAP",
        "Interval (95 %)": "range across annotators",
        "Agreement": "per-query Spearman / Kendall τ / binary κ",
        "Candidate gold errors": "all annotators (≥ 2) give the same marks, not gold's",
    }
    score_main_name = "map"
    score_main_label = "MAP"
    score_mteb_main_name = "map_at_1000"
    score_main_range = (0.0, 1.0)
    score_annotator_method = "mean_over_queries(map:sklearn)"
    score_headline_agreement = "reranking:mean_spearman"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Per query: the share of candidates both raters mark alike (a missing mark is 0)."""
        return ItemAlignment("share of a query's candidates marked alike", _marks_alignment)

    score_human_machine_statistic = "reranking_binary_kappa"

    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        return aggregation.human_reranking(gold, answers)

    def score_model(
        self, gold: Mapping[Hashable, Any], answers: Mapping[Hashable, Any]
    ) -> Score | None:
        """The model's own ranking (its similarity per candidate), per-query AP as mteb v2
        computes MAP (trec_eval, a query without a relevant candidate scores 0): never the
        human rule, which would read every non-zero similarity as a "relevant" mark."""
        per_query = {}
        for q, g in gold.items():
            cands = sorted(g, key=str)
            rel = [int(g[c]) for c in cands]
            sims = [float(answers[q].get(c, float("-inf"))) for c in cands]
            per_query[q] = (rel, sims)
        s = metrics.mean_average_precision(per_query, method="trec_eval", skip_no_relevant=False)
        aps = {q: float(v) for q, v in s.details["per_query"].items()}
        return Score(
            s.value,
            s.method,
            n_items=len(aps),
            per_rater={"rater": s.value},
            details={"per_rater_per_query_ap": {"rater": aps}},
        )

    def score_normalise_answer(self, answer: Any) -> Any:
        """JSON keeps candidate ids as strings but may hold marks as bools or floats."""
        if isinstance(answer, Mapping):
            return {str(k): int(v) for k, v in answer.items()}
        return answer

    def score_normalise_model_answer(self, answer: Any) -> Any:
        """A model's similarities stay floats: as marks (int) they became 0 or 1."""
        if isinstance(answer, Mapping):
            return {str(k): float(v) for k, v in answer.items()}
        return answer

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """Per query and candidate the majority mark, a tie counted as not relevant.

        One annotator's consensus is their marks read as 0/1 (the noise ceiling asks for it per
        annotator in a two-annotator study, issue 38), without the lists of votes: the same
        majority of one vote, unless two candidate ids read alike as strings."""
        if len(answers) == 1:
            (only,) = answers.values()
            out: dict[Hashable, dict[str, int]] = {}
            for q, m in only.items():
                if not m:
                    continue
                one = {str(c): int(2 * int(v) > 1) for c, v in m.items()}
                if len(one) != len(m):
                    break  # ids alike as strings: their votes are pooled below
                out[q] = one
            else:
                return out
        marks: dict[Hashable, dict[str, list[int]]] = {}
        for a in answers.values():
            for q, m in a.items():
                for c, v in (m or {}).items():
                    marks.setdefault(q, {}).setdefault(str(c), []).append(int(v))
        return {
            q: {c: int(2 * sum(v) > len(v)) for c, v in cands.items()} for q, cands in marks.items()
        }

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        return agreement.reranking_agreements(
            humans, statistics=("spearman", "kendall_tau", "binary_kappa")
        )

    def score_interval(self, score: Score) -> Interval:
        return intervals.annotator_range(dict(score.per_rater), estimate=score.value)

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """Each annotator's AP per query is fixed, so MAP is a mean over resampled queries (per
        annotator, then over annotators)."""
        per = score.details.get("per_rater_per_query_ap") or {}
        queries = sorted({q for aps in per.values() for q in aps}, key=str)
        table = np.array(
            [[per[r].get(q, np.nan) for r in sorted(per)] for q in queries], dtype=float
        )

        @intervals.vectorized
        def map_(x: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a rater without a query
                per_rater = np.nanmean(x, axis=-2)
                return np.nanmean(per_rater, axis=-1)

        @intervals.vectorized
        def map_complete(x: np.ndarray) -> np.ndarray:
            # Every rater answered every query: no NaN to skip, and np.mean makes the same
            # sums and divisions as np.nanmean, several times faster.
            return np.mean(np.mean(x, axis=-2), axis=-1)

        return table, (map_ if np.isnan(table).any() else map_complete)

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        # The annotator range does not shrink with items.
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_disagree(self, values: list[Any]) -> bool:
        return any(v != values[0] for v in values[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        return all(v == values[0] for v in values) and values[0] != gold

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        return str(content.get("query", ""))

    def score_item_marks(
        self, content: Mapping[str, Any], gold: Any, answers: Mapping[str, Any]
    ) -> list[str] | None:
        """One line per candidate: its text, then gold's and each rater's mark (✓ relevant,
        ✗ not, – unmarked), so a disagreement reads without candidate ids.

        Each rater's marks are checked to be a mapping once per query, not once per candidate
        and rater (the report asks this of every query two raters answered, issue 38)."""
        empty: Mapping[str, Any] = {}
        raters = [(r, a if isinstance(a, Mapping) else empty) for r, a in sorted(answers.items())]
        gold_marks = gold if isinstance(gold, Mapping) else empty

        def mark(marks: Mapping[str, Any], cid: str) -> str:
            if cid not in marks:
                return "–"
            return "✓" if int(marks[cid]) else "✗"

        lines = []
        for cand in content.get("candidates") or []:
            cid = str(cand.get("id"))
            text = " ".join(str(cand.get("text", "")).split())
            text = text if len(text) <= MARK_TEXT_CHARS else text[: MARK_TEXT_CHARS - 1] + "…"
            who = "; ".join([f"{r} {mark(a, cid)}" for r, a in raters])
            lines.append(f"{text} — gold {mark(gold_marks, cid)}; {who}")
        return lines or None
