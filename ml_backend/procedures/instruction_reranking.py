"""Instruction reranking (mteb's ``InstructionReranking`` tasks, FollowIR) on ready embeddings.

mteb ranks each query version's ``top_ranked`` candidates by the model's similarity to the
query with its instruction (``text + " " + instruction``), exactly as it reranks any query, and
then scores p-MRR across the ``-og`` and ``-changed`` versions (``evaluate_p_mrr_change``). So
each arm is answered by the reranking procedure (:func:`rerank`: a model's answer is
``{candidate_id: similarity}``, its og / changed scores are mteb's), and :func:`model_p_mrr`
pairs the two arms' stored answers. Which documents p-MRR follows is the scoring side's
:func:`~scoring.aggregation.instruction_reranking.changed_documents`, shared by both sides.
``tests/ml_backend/test_instruction_reranking_parity.py`` runs mteb's own task class against
these parts.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from ml_backend.procedures.reranking import document_text, query_text, rerank
from scoring.aggregation.instruction_reranking import changed_documents
from scoring.instruction_following import p_mrr
from scoring.records import Score

__all__ = ["changed_documents", "document_text", "model_p_mrr", "query_text", "rerank"]


def model_p_mrr(
    og_answers: Mapping[Hashable, Mapping[str, float]],
    changed_answers: Mapping[Hashable, Mapping[str, float]],
    og_gold: Mapping[Hashable, Mapping[str, int]],
    changed_gold: Mapping[Hashable, Mapping[str, int]],
) -> Score:
    """A model's p-MRR from its two arms' answers, ties broken as mteb breaks them.

    Args:
        og_answers: per query, the model's similarity per candidate under the original
            instruction (its stored answers in the ``og`` arm).
        changed_answers: the same in the ``changed`` arm.
        og_gold: per query, the relevance per candidate under the original instruction.
        changed_gold: the same under the changed instruction.

    Returns:
        mteb's p-MRR (``details["per_query"]`` per query).
    """
    return p_mrr(og_answers, changed_answers, changed_documents(og_gold, changed_gold))
