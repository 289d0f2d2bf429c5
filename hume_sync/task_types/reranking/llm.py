"""Reranking's LLM annotator: the query and its candidates, answered as ``{id: 1 | 0}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs._common import check_items, check_text
from ml_backend.llm.parsing import as_int, check_reply_ids
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
from ml_backend.llm.task import LLMTask, Reject


class RerankingLLM(LLMTask):
    """The human task without its drag-and-drop wording; every candidate marked 1 or 0
    (``true``/``false`` read as 1/0)."""

    # The human instructions talk about dragging candidates; the model gets the task itself.
    llm_default_instructions = (
        "Read the query, then mark each candidate document as Relevant or Not relevant to it. "
        "Judge every candidate on its own."
    )

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
    ) -> TaskSpec:
        return TaskSpec(self.name, language=language, instructions=instructions)

    def llm_query_blocks(self, content: Mapping[str, Any]) -> list[str]:
        """What the prompt shows before the candidates: the query (a type built on this one
        adds what its screen shows beside it)."""
        return ["Query:\n" + block("query", check_text(content, "query"))]

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
            *self.llm_query_blocks(content),
            f"Candidates ({len(ids)}, each with its id in brackets):\n" + id_list(items),
            answer_format,
        ]
        schema = object_schema({i: {"type": "integer", "enum": [0, 1]} for i in ids})
        return make_prompt(parts, schema=schema, answer_format=answer_format, item_ids=ids)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> dict[str, int]:
        check_reply_ids(reply, prompt.item_ids, "candidate")
        out: dict[str, int] = {}
        for item_id in prompt.item_ids:
            value = reply[item_id]
            mark = int(value) if isinstance(value, bool) else as_int(value)
            if mark not in (0, 1):
                raise Reject(
                    "invalid",
                    f"candidate {item_id!r} is marked {value!r}; expected 1 "
                    "(Relevant) or 0 (Not relevant)",
                )
            out[item_id] = int(mark)
        return out
