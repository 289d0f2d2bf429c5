"""Retrieval's LLM annotator: the query and its pooled documents, each given a grade."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs._common import check_items, check_labels, check_text
from label_studio_configs.retrieval import DEFAULT_LABELS
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


class RetrievalLLM(LLMTask):
    """The human task without its drag-and-drop wording: every document graded 0..n-1 by the
    subset's grade labels (the grades people saw), all of a query's pool in one call."""

    llm_parameters = frozenset({"labels"})
    llm_default_instructions = (
        "Read the query, then grade every document by how relevant it is to the query. "
        "Judge each document on its own."
    )

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return {"labels": tuple(config.get("grade_labels") or DEFAULT_LABELS)}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        labels: tuple[str, ...] = DEFAULT_LABELS,
    ) -> TaskSpec:
        try:
            names = tuple(check_labels(labels, what="grade label"))
        except Exception as exc:
            raise ValueError(str(exc)) from None
        return TaskSpec(self.name, labels=names, language=language, instructions=instructions)

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        query = check_text(content, "query")
        items = check_items(content, "candidates")
        ids = tuple(it["id"] for it in items)
        top = len(spec.labels) - 1
        scale = "; ".join(f"{g} = {name}" for g, name in enumerate(spec.labels))
        answer_format = (
            f"Answer with only a JSON object that maps every document id to its grade, an "
            f"integer from 0 to {top} ({scale}). Include all {len(ids)} ids, like "
            + id_example(ids, f"<0 to {top}>")
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec, "texts"),
            "Query:\n" + block("query", query),
        ]
        instruction = content.get("instruction")
        if isinstance(instruction, str) and instruction:
            parts.append("Instruction for this query:\n" + block("instruction", instruction))
        parts += [
            f"Documents ({len(ids)}, each with its id in brackets):\n" + id_list(items),
            answer_format,
        ]
        schema = object_schema({i: {"type": "integer", "enum": list(range(top + 1))} for i in ids})
        return make_prompt(parts, schema=schema, answer_format=answer_format, item_ids=ids)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> dict[str, int]:
        check_reply_ids(reply, prompt.item_ids, "document")
        top = len(spec.labels) - 1
        out: dict[str, int] = {}
        for item_id in prompt.item_ids:
            value = reply[item_id]
            grade = int(value) if isinstance(value, bool) else as_int(value)
            if grade is None or not 0 <= grade <= top:
                raise Reject(
                    "invalid", f"document {item_id!r} is graded {value!r}; expected 0 to {top}"
                )
            out[item_id] = int(grade)
        return out
