"""FollowIR's p-MRR: does a ranker follow a changed instruction?

Instruction reranking (mteb's ``InstructionReranking`` tasks, FollowIR) ranks the same candidates
twice: under a query's original instruction (``og``) and under a changed one that makes some
relevant documents non-relevant (the *changed documents*). p-MRR compares each changed document's
rank in the two runs: +1 when it falls from rank 1 to the bottom, −1 when it rises, 0 when it stays
(Weller et al. 2024, arXiv 2403.15246). mteb computes it in
``mteb._evaluators.retrieval_metrics.calculate_pmrr``.

Why written here instead of calling mteb's: :mod:`scoring` imports nothing heavy (mteb takes
seconds to import) and mteb's function builds a pandas frame per call, which a bootstrap over
queries would call thousands of times. mteb's function is the reference of the tests
(``tests/scoring/test_instruction_following.py``), under its own tie rule; the expected value
over random tie-breaks is ours, for a person's grades, which tie often.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score

__all__ = [
    "PMRR_TIES",
    "mean_scores",
    "p_mrr",
    "rank_change_score",
]

#: How tied scores rank: ``trec_eval`` is mteb's rule (score descending, then document id
#: descending, ``get_rank_from_dict`` since mteb #5092); ``expected_ties`` is the expected p-MRR
#: when each tie is broken uniformly at random, independently in the two runs.
PMRR_TIES = ("trec_eval", "expected_ties")

Run = Mapping[Any, float]


def rank_change_score(og_rank: float, new_rank: float) -> float:
    """One changed document's p-MRR term, FollowIR's ``rank_score``.

    Args:
        og_rank: its 1-based rank under the original instruction.
        new_rank: its 1-based rank under the changed instruction.

    Returns:
        ``new/og − 1`` when it fell or stayed (``og_rank >= new_rank`` is mteb's branch), else
        ``1 − og/new``: in [−1, 1], positive when the document fell.
    """
    if og_rank >= new_rank:
        return new_rank / og_rank - 1.0
    return 1.0 - og_rank / new_rank


def _rank_span(run: Run, doc: Hashable) -> tuple[int, int]:
    """The 1-based ranks ``doc`` can take in ``run`` (its tie group), or ``len+1`` if absent."""
    if doc not in run:
        return len(run) + 1, len(run) + 1
    score = run[doc]
    above = sum(1 for s in run.values() if s > score)
    tied = sum(1 for s in run.values() if s == score)
    return above + 1, above + tied


def _trec_rank(run: Run, doc: Hashable) -> int:
    """Rank as mteb ranks: score descending, then id descending (as strings, as its ids are)."""
    if doc not in run:
        return len(run) + 1
    score, key = run[doc], str(doc)
    return 1 + sum(1 for d, s in run.items() if s > score or (s == score and str(d) > key))


def _expected_term(og: tuple[int, int], new: tuple[int, int]) -> float:
    """The mean of :func:`rank_change_score` over every pair of ranks in the two tie groups."""
    r = np.arange(og[0], og[1] + 1, dtype=float)[:, None]
    s = np.arange(new[0], new[1] + 1, dtype=float)[None, :]
    terms = np.where(r >= s, s / r - 1.0, 1.0 - r / s)
    return float(terms.mean())


def p_mrr(
    og_runs: Mapping[Any, Run],
    changed_runs: Mapping[Any, Run],
    changed_docs: Mapping[Any, Sequence[Any]],
    ties: str = "trec_eval",
) -> Score:
    """p-MRR over queries: the mean over each query's changed documents, then over queries.

    A query is scored when both runs have it and it has changed documents (mteb skips a query
    missing from a run, with a warning); a changed document missing from a run ranks last + 1.

    Args:
        og_runs: per query, a score per candidate under the original instruction (higher first).
        changed_runs: per query, a score per candidate under the changed instruction.
        changed_docs: per query, the documents whose relevance the changed instruction removed
            (mteb's ``qrel_diff``).
        ties: one of :data:`PMRR_TIES`.

    Returns:
        p-MRR; ``details["per_query"]`` holds each scored query's value.

    Raises:
        InvalidInputError: an unknown tie rule.
        DegenerateInputError: no query is in both runs with a changed document.
    """
    if ties not in PMRR_TIES:
        raise InvalidInputError(f"unknown tie rule {ties!r}; expected one of {PMRR_TIES}")
    per_query: dict[Hashable, float] = {}
    for query, docs in changed_docs.items():
        if query not in og_runs or query not in changed_runs or len(docs) == 0:
            continue
        og, new = og_runs[query], changed_runs[query]
        if ties == "trec_eval":
            terms = [rank_change_score(_trec_rank(og, d), _trec_rank(new, d)) for d in docs]
        else:
            terms = [_expected_term(_rank_span(og, d), _rank_span(new, d)) for d in docs]
        per_query[query] = sum(terms) / len(terms)
    if not per_query:
        raise DegenerateInputError("no query has both runs and a changed document")
    value = sum(per_query.values()) / len(per_query)
    return Score(
        value=value,
        method=f"p-MRR(ties={ties})",
        n_items=len(per_query),
        details={"per_query": per_query},
    )


def mean_scores(
    answers: Mapping[Any, Mapping[Any, Mapping[Any, float] | None]],
) -> dict[Any, dict[Any, float]]:
    """A panel's run: per query, each candidate's mean grade over the raters who graded it.

    The panel of one instruction version ranks by its mean grade, as HUME's STS panel rates by
    its mean rating; ties left are broken by the tie rule of :func:`p_mrr`.

    Args:
        answers: ``{rater: {query: {candidate: grade}}}``; a rater's ``None`` query is no answer.

    Returns:
        ``{query: {candidate: mean grade}}`` over the queries someone answered.
    """
    sums: dict[Hashable, dict[Hashable, list[float]]] = {}
    for per_query in answers.values():
        for query, grades in per_query.items():
            if grades is None:
                continue
            slot = sums.setdefault(query, {})
            for doc, grade in grades.items():
                slot.setdefault(doc, []).append(float(grade))
    return {q: {d: sum(v) / len(v) for d, v in docs.items()} for q, docs in sums.items()}
