"""Summarization's LLM annotator: the text and its summaries, every summary rated 1–5,
answered as ``{"<summary id>": <rating>, ...}``; the references where the subset shows them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from label_studio_configs import summarization as config_module
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


@dataclass(frozen=True)
class SummarizationSpec(TaskSpec):
    """A summarization subset's spec: whether its references are shown (people's screen)."""

    show_references: bool = False


class SummarizationLLM(LLMTask):
    """The human task without its drag-and-drop wording: every summary of a text rated on the
    scale people see, all of a text's summaries in one call. A rating off the scale is
    invalid; a reply that leaves a summary out is refused, as a person's is."""

    llm_default_instructions = (
        "Read the text, then rate every summary for relevance: does it keep the text's "
        "important content, and only that? Judge each summary on its own."
    )
    llm_parameters = frozenset({"show_references"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Whether the references are shown, as the subset stores it."""
        return {"show_references": bool(config.get("show_references", False))}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        show_references: bool = False,
    ) -> TaskSpec:
        return SummarizationSpec(
            self.name,
            language=language,
            instructions=instructions,
            show_references=bool(show_references),
        )

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        text = check_text(content, "text")
        items = check_items(content, "candidates")
        ids = tuple(it["id"] for it in items)
        ratings = config_module.RATINGS
        lo, hi = min(ratings), max(ratings)
        scale = "; ".join(ratings[r] for r in sorted(ratings, reverse=True))
        answer_format = (
            f"Answer with only a JSON object that maps every summary id to its rating, an "
            f"integer from {lo} to {hi} ({scale}). Include all {len(ids)} ids, like "
            + id_example(ids, f"<{lo} to {hi}>")
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec, "texts"),
            "Text:\n" + block("text", text),
        ]
        if getattr(spec, "show_references", False):
            refs = [r for r in content.get("references") or [] if isinstance(r, str)]
            parts.append(
                "Reference summaries (written by people):\n"
                + "\n".join(block("reference", r) for r in refs)
            )
        parts += [
            f"Summaries ({len(ids)}, each with its id in brackets):\n" + id_list(items),
            answer_format,
        ]
        schema = object_schema(
            {i: {"type": "integer", "enum": list(range(lo, hi + 1))} for i in ids}
        )
        return make_prompt(parts, schema=schema, answer_format=answer_format, item_ids=ids)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> dict[str, int]:
        check_reply_ids(reply, prompt.item_ids, "summary")
        ratings = config_module.RATINGS
        out: dict[str, int] = {}
        for item_id in prompt.item_ids:
            value = reply[item_id]
            rating = None if isinstance(value, bool) else as_int(value)
            if rating is None or rating not in ratings:
                raise Reject(
                    "invalid",
                    f"summary {item_id!r} is rated {value!r}; expected {min(ratings)} to "
                    f"{max(ratings)}",
                )
            out[item_id] = int(rating)
        return out
