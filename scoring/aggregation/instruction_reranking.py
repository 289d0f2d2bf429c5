"""Instruction reranking: the human p-MRR, one panel per instruction.

An annotator sees a query under one instruction only (the study seats each arm with other
people), so there is no p-MRR of one person. The panel's p-MRR ranks each arm's candidates by
their mean mark over that arm's annotators (:func:`scoring.instruction_following.mean_scores`)
and compares the two panels' ranks of the changed documents, with ties (frequent: marks are
0/1) broken uniformly at random in expectation, mteb's id-descending rule beside it. Each pair
of one original-instruction and one changed-instruction annotator has a p-MRR of its own
(:func:`pair_p_mrrs`): the spread of people that a single number hides. The interval is a
percentile bootstrap over queries of the panel's per-query values.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from scoring.instruction_following import mean_scores, p_mrr
from scoring.intervals import bootstrap
from scoring.records import Interval, Score

__all__ = ["changed_documents", "human_p_mrr", "p_mrr_interval", "pair_p_mrrs"]

Answers = Mapping[str, Mapping[Hashable, Mapping[str, Any] | None]]


def changed_documents(
    og_gold: Mapping[Hashable, Mapping[str, int]],
    changed_gold: Mapping[Hashable, Mapping[str, int]],
) -> dict[Hashable, list[str]]:
    """Per query, the candidates relevant under the original instruction, not the changed one.

    Args:
        og_gold: per query, each candidate's relevance under the original instruction.
        changed_gold: the same under the changed instruction.

    Returns:
        Per query in both, its changed candidates (FollowIR's ``qrel_diff``).
    """
    return {
        q: [d for d, r in og.items() if int(r) > 0 and int(changed_gold[q].get(d, 0)) == 0]
        for q, og in og_gold.items()
        if q in changed_gold
    }


def human_p_mrr(
    og: Answers,
    changed: Answers,
    og_gold: Mapping[Hashable, Mapping[str, int]],
    changed_gold: Mapping[Hashable, Mapping[str, int]],
    ties: str = "expected_ties",
) -> Score:
    """The panels' p-MRR: each arm ranked by its annotators' mean marks.

    Args:
        og: ``{annotator: {query: {candidate: mark}}}`` of the original-instruction arm.
        changed: the same of the changed-instruction arm.
        og_gold: per query, the relevance under the original instruction.
        changed_gold: the same under the changed instruction.
        ties: the tie rule (:data:`scoring.instruction_following.PMRR_TIES`).

    Returns:
        p-MRR (``details["per_query"]``), method ``human:mean_marks_per_arm+p-MRR(...)``.
    """
    score = p_mrr(
        mean_scores(og), mean_scores(changed), changed_documents(og_gold, changed_gold), ties
    )
    return Score(
        value=score.value,
        method=f"human:mean_marks_per_arm+{score.method}",
        n_items=score.n_items,
        details=score.details,
    )


def pair_p_mrrs(
    og: Answers,
    changed: Answers,
    og_gold: Mapping[Hashable, Mapping[str, int]],
    changed_gold: Mapping[Hashable, Mapping[str, int]],
) -> dict[tuple[str, str], float]:
    """p-MRR of every pair of one annotator of each arm, over the queries both answered.

    Args:
        og: the original-instruction arm's answers by annotator.
        changed: the changed-instruction arm's answers by annotator.
        og_gold: per query, the relevance under the original instruction.
        changed_gold: the same under the changed instruction.

    Returns:
        ``{(og annotator, changed annotator): p-MRR}`` (expected over tie-breaks); a pair
        without a common query is left out.
    """
    docs = changed_documents(og_gold, changed_gold)
    out: dict[tuple[str, str], float] = {}
    runs = [
        {who: {q: m for q, m in given.items() if m is not None} for who, given in arm.items()}
        for arm in (og, changed)
    ]
    for a, runs_a in runs[0].items():
        for b, runs_b in runs[1].items():
            common = {q: d for q, d in docs.items() if q in runs_a and q in runs_b}
            if common:
                out[(a, b)] = p_mrr(runs_a, runs_b, common, "expected_ties").value
    return out


def p_mrr_interval(score: Score, *, seed: int, n_resamples: int = 2000) -> Interval:
    """A 95 % percentile bootstrap over queries of a p-MRR's per-query values.

    :func:`scoring.intervals.bootstrap`, vectorised: a resample's mean is p-MRR's last step.

    Args:
        score: a p-MRR with ``details["per_query"]``.
        seed: the study's seed (the same interval every export).
        n_resamples: bootstrap resamples.

    Returns:
        The interval around ``score.value``.
    """
    values = np.array(list(score.details["per_query"].values()), dtype=float)
    return bootstrap(
        values,
        lambda stack: stack.mean(axis=1),
        n_resamples=n_resamples,
        seed=seed,
        method="percentile",
        vectorized=True,
    )
