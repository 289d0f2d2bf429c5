"""The instruction reranking task type (FollowIR's p-MRR): one class composed of its concerns."""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.instruction_reranking.interface import InstructionRerankingInterface
from hume_sync.task_types.instruction_reranking.llm import InstructionRerankingLLM
from hume_sync.task_types.instruction_reranking.model import InstructionRerankingModel
from hume_sync.task_types.instruction_reranking.scoring import InstructionRerankingScoring
from hume_sync.task_types.instruction_reranking.study import InstructionRerankingStudy


class InstructionReranking(
    InstructionRerankingStudy,
    InstructionRerankingInterface,
    InstructionRerankingModel,
    InstructionRerankingLLM,
    InstructionRerankingScoring,
    TaskType,
):
    name = "instruction_reranking"
    mteb_type = "InstructionReranking"
