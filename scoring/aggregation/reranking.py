"""Reranking: HUME's human score, the mean over annotators of each one's MAP.

Per annotator, AP of their binary marks per query, then the mean over queries.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import scoring.metrics as metrics
import scoring.score_memo as score_memo
from scoring.aggregation.common import Answers, collect, mean_over_annotators, rater_error
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score
from scoring.validation import choose

__all__ = [
    "TIES_FOR_AP_METHOD",
    "human_reranking",
]

#: Tie rule for MRR/nDCG that goes with each AP method: HUME's script ranked marks in their given
#: order (``np.argsort(-marks)``, assumed stable), trec_eval by id descending.
TIES_FOR_AP_METHOD: Mapping[str, str] = {
    "sklearn": "input_order",
    "trec_eval": "trec_eval",
    "expected_ties": "expected_ties",
}


def _rater_scores(
    queries: dict[Hashable, tuple[list[Any], list[Any]]], ap_method: str, k: int, ties: str
) -> tuple[Score, Score, Score]:
    """``metrics.mean_ranking_scores`` of one annotator's queries, kept for the subset.

    Why: an export scores each annotator's marks in the aggregate, then again alone for the
    panel (issue 38); both calls give the same queries, so the second takes the first's
    Scores (the same objects: nothing downstream changes a Score). Kept only where every
    relevance and mark is a plain ``int`` (as the task type normalises them), so that a key
    equal to another (``1 == 1.0 == True``) stands for the very same numbers; an error is
    never kept. Kept within one subset's evaluation (:func:`scoring.score_memo.kept`).
    """
    parts: list[Any] = [ap_method, k, ties]
    types: set[type] = set()
    for qid, (rel, marks) in queries.items():
        rel_t, marks_t = tuple(rel), tuple(marks)
        types.update(map(type, rel_t), map(type, marks_t))
        parts.append((qid, rel_t, marks_t))
    key = tuple(parts) if types <= {int} else None
    return score_memo.kept(
        "reranking.rater_scores",
        key,
        lambda: metrics.mean_ranking_scores(queries, ap_method, k=k, ties=ties),
    )


def human_reranking(
    gold: Mapping[Hashable, Mapping[Hashable, int]],
    answers: Answers,
    ap_method: str = "sklearn",
    k: int = 10,
    ties: str | None = None,
) -> Score:
    """Per annotator: AP of their binary marks per query, mean over queries; then over annotators.

    MRR@k and nDCG@k are aggregated the same way into ``details``. ``gold``'s candidate order is
    the ranking order of tied marks. A query is used for an annotator only if they marked every
    candidate; queries without a relevant candidate are skipped, as mteb does.

    Args:
        gold: ``{query: {candidate: 0/1}}``.
        answers: ``{annotator: {query: {candidate: mark}}}``; ``None`` is no answer.
        ap_method: one of :data:`scoring.metrics.AP_METHODS`.
        k: the cut-off of MRR and nDCG.
        ties: the tie rule of MRR/nDCG; defaults to the rule that goes with ``ap_method``
            (:data:`TIES_FOR_AP_METHOD`).

    Returns:
        The mean AP over annotators.

    Raises:
        InvalidInputError: an unknown method or tie rule, malformed gold or marks, or a candidate
            not in gold.
        DegenerateInputError: no annotator answered, or no annotated query has a relevant
            candidate.
    """
    choose(ap_method, metrics.AP_METHODS, "average-precision method")
    tie_rule = TIES_FOR_AP_METHOD[ap_method] if ties is None else ties
    choose(tie_rule, metrics.TIE_RULES, "tie rule")
    if not isinstance(gold, Mapping) or not gold:
        raise InvalidInputError("gold: expected a non-empty mapping query_id -> {candidate: 0/1}")
    for qid, cands in gold.items():
        if not isinstance(cands, Mapping) or not cands:
            raise InvalidInputError(f"gold[{qid!r}]: expected a non-empty mapping candidate -> 0/1")

    def complete(rater: str, qid: Hashable, marks: Any) -> bool:
        cands = gold[qid]
        if type(marks) is not dict and not isinstance(marks, Mapping):
            where = f"answers[{rater!r}][{qid!r}]"
            raise InvalidInputError(f"{where}: expected a mapping candidate -> mark")
        if not marks.keys() <= cands.keys():  # the set test in C, the list only to name them
            unknown = [c for c in marks if c not in cands]
            raise InvalidInputError(
                f"answers[{rater!r}][{qid!r}]: unknown candidates {unknown[:5]!r}"
            )
        # every candidate marked: as many marks as candidates (none unknown), none None
        return len(marks) == len(cands) and all(v is not None for v in marks.values())

    col = collect(gold, answers, complete)
    per_rater: dict[str, float] = {}
    per_mrr: dict[str, float] = {}
    per_ndcg: dict[str, float] = {}
    per_query_ap: dict[str, Mapping[Hashable, float]] = {}
    unscorable: list[str] = []
    no_relevant: set[Hashable] = set()
    for rater, given in col.by_rater.items():
        queries = {
            qid: ([gold[qid][c] for c in gold[qid]], [marks[c] for c in gold[qid]])
            for qid, marks in given.items()
        }
        try:
            ap, rr, ndcg = _rater_scores(queries, ap_method, k, tie_rule)
        except DegenerateInputError:
            unscorable.append(rater)
            no_relevant.update(queries)
            continue
        except InvalidInputError as exc:
            raise rater_error(rater, exc) from None
        no_relevant.update(ap.details["no_relevant_queries"])
        per_rater[rater] = ap.value
        per_mrr[rater] = rr.value
        per_ndcg[rater] = ndcg.value
        per_query_ap[rater] = ap.details["per_query"]
    if not per_rater:
        raise DegenerateInputError("answers: no annotated query has a relevant candidate")
    details = {
        f"mrr@{k}": mean_over_annotators(per_mrr),
        f"ndcg@{k}": mean_over_annotators(per_ndcg),
        f"per_rater_mrr@{k}": per_mrr,
        f"per_rater_ndcg@{k}": per_ndcg,
        "per_rater_per_query_ap": per_query_ap,
        "ties": tie_rule,
        "no_relevant_queries": [q for q in gold if q in no_relevant],
        "annotators_without_scorable_queries": unscorable,
        **col.details(),
    }
    return Score(
        mean_over_annotators(per_rater),
        f"human:mean_over_annotators(mean_over_queries(map:{ap_method}))",
        n_items=len([q for q in col.items if q not in no_relevant]),
        per_rater=per_rater,
        details=details,
    )
