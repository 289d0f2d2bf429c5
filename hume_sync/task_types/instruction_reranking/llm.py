"""Instruction reranking's LLM annotator: reranking's, with the instruction in the prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hume_sync.task_types.reranking.llm import RerankingLLM
from label_studio_configs._common import check_items, check_text
from ml_backend.llm.prompts import (
    Prompt,
    TaskSpec,
    block,
    id_example,
    id_list,
    language_line,
    make_prompt,
    object_schema,
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

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        items = check_items(content, "candidates")
        ids = tuple(it["id"] for it in items)
        answer_format = (
            "Answer with only a JSON object that maps every candidate id to 1 (Relevant) or 0 "
            f"(Not relevant). Include all {len(ids)} ids, like " + id_example(ids, "<1 or 0>")
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec, "texts"),
            "Query:\n" + block("query", check_text(content, "query")),
            "Instruction:\n" + block("instruction", check_text(content, "instruction")),
            f"Candidates ({len(ids)}, each with its id in brackets):\n" + id_list(items),
            answer_format,
        ]
        schema = object_schema({i: {"type": "integer", "enum": [0, 1]} for i in ids})
        return make_prompt(parts, schema=schema, answer_format=answer_format, item_ids=ids)
