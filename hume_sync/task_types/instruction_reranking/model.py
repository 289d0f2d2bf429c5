"""Instruction reranking: how an embedding model answers each arm, and its p-MRR across them.

Each arm is a reranking subset whose queries carry their instruction, which reranking's model
procedure already feeds the model as mteb does (``query instruction``); so an arm is answered
exactly as reranking, and :meth:`model_p_mrr` pairs the two arms' stored answers.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from hume_sync.task_types.reranking.model import RerankingModel
from ml_backend.procedures import instruction_reranking as P
from scoring.records import Score


class InstructionRerankingModel(RerankingModel):
    """Reranking's model procedure per arm, and mteb's p-MRR of a model across the arms."""

    def model_p_mrr(
        self,
        og_answers: Mapping[Hashable, Mapping[str, float]],
        changed_answers: Mapping[Hashable, Mapping[str, float]],
        og_gold: Mapping[Hashable, Mapping[str, int]],
        changed_gold: Mapping[Hashable, Mapping[str, int]],
    ) -> Score:
        """mteb's p-MRR of a model (ties by id descending) from its stored arm answers."""
        return P.model_p_mrr(og_answers, changed_answers, og_gold, changed_gold)
