"""Instruction reranking: how humans are scored.

Each arm (the original or the changed instruction) is a reranking subset, scored as reranking
is (MAP of each annotator's marks, mean over annotators; mteb's og / changed scores for the
models). p-MRR, mteb's main score of the type, needs both arms: the report pairs them
(:mod:`hume_sync.report.instruction_following`) and asks :meth:`score_p_mrr` for the panels'
value, the pairs of people and the interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from hume_sync.task_types.reranking.scoring import RerankingScoring
from scoring.aggregation import instruction_reranking as aggregation
from scoring.records import Interval, Score


class InstructionRerankingScoring(RerankingScoring):
    """Reranking's rules per arm; p-MRR across the arms."""

    score_methods: ClassVar[Mapping[str, str]] = {
        **RerankingScoring.score_methods,
        "Human score": (
            "per arm (the original or the changed instruction, each with annotators of its "
            "own): scikit-learn average precision of each annotator's binary marks, mean over "
            "queries then annotators; across the arms, p-MRR of the two panels, each ranking "
            "the candidates by its mean mark (ties broken at random in expectation; mteb's "
            "id-descending rule beside it)"
        ),
        "Model score": "cosine + MAP per arm; p-MRR across the arms (mteb's tie rule)",
        "Interval (95 %)": (
            "range across annotators per arm; p-MRR: percentile bootstrap over queries"
        ),
    }

    #: mteb's result of an instruction reranking task holds ``p-MRR`` beside reranking's keys,
    #: which tells the two apart when a result file is read.
    score_metric_keys: tuple[str, ...] = ("map", "map_at_1000", "p-MRR")

    def score_p_mrr(
        self,
        og: Mapping[str, Mapping[Hashable, Any]],
        changed: Mapping[str, Mapping[Hashable, Any]],
        og_gold: Mapping[Hashable, Mapping[str, int]],
        changed_gold: Mapping[Hashable, Mapping[str, int]],
        *,
        seed: int,
    ) -> tuple[Score, Score, Interval, dict[tuple[str, str], float]]:
        """The panels' p-MRR (expected over tie-breaks), the same under mteb's tie rule, its
        interval over queries, and every pair of people's p-MRR."""
        expected = aggregation.human_p_mrr(og, changed, og_gold, changed_gold)
        trec = aggregation.human_p_mrr(og, changed, og_gold, changed_gold, ties="trec_eval")
        interval = aggregation.p_mrr_interval(expected, seed=seed)
        pairs = aggregation.pair_p_mrrs(og, changed, og_gold, changed_gold)
        return expected, trec, interval, pairs
