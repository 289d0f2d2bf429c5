"""Instruction reranking's Label Studio interface: reranking's marks, with the instruction
shown apart from the query (``label_studio_configs/instruction_reranking``)."""

from __future__ import annotations

from hume_sync.task_types.reranking.interface import RerankingInterface
from label_studio_configs import instruction_reranking as config_module


class InstructionRerankingInterface(RerankingInterface):
    """Every rule of reranking's interface (marks, revealed similarity marks, quality view);
    only the screen and the task data are this type's own."""

    ls_module = config_module
