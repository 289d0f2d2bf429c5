"""Instruction reranking's LLM annotator: reranking's, with the instruction in the prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hume_sync.task_types.reranking.llm import RerankingLLM
from label_studio_configs._common import check_text
from ml_backend.llm.prompts import (
    block,
)


class InstructionRerankingLLM(RerankingLLM):
    """An LLM annotator answers one arm as a person of that arm does: the query, the
    instruction that defines relevance, the candidates marked 1 or 0 (each arm is asked
    apart, so it never sees the other instruction)."""

    llm_default_instructions = (
        "Read the query and its instruction: the instruction says what makes a document "
        "relevant. Mark each candidate document as Relevant or Not relevant by that "
        "instruction. Judge every candidate on its own."
    )

    def llm_query_blocks(self, content: Mapping[str, Any]) -> list[str]:
        return [
            *super().llm_query_blocks(content),
            "Instruction:\n" + block("instruction", check_text(content, "instruction")),
        ]
