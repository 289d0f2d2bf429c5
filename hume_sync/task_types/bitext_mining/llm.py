"""Bitext mining's LLM annotator: the sentence and its candidates, answered as
``{"translation": "<candidate id>"}``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from label_studio_configs import bitext_mining as config_module
from label_studio_configs._common import check_text
from ml_backend.llm.parsing import reply_field
from ml_backend.llm.prompts import (
    Prompt,
    TaskSpec,
    block,
    id_list,
    language_name,
    make_prompt,
    object_schema,
)
from ml_backend.llm.task import LLMTask, Reject


@dataclass(frozen=True)
class BitextSpec(TaskSpec):
    """A bitext subset's spec: the candidates' language beside the sentence's."""

    target_language: str | None = None


class BitextMiningLLM(LLMTask):
    """The human task, with each candidate named by its id (the screen shows texts only; the
    model needs a name to answer with). An id written with other case or spacing is that id."""

    llm_default_instructions = (
        "Read the sentence, then choose the one candidate that is its translation: the same "
        "meaning, nothing added or left out. Several candidates may look alike; compare names, "
        "numbers and details."
    )

    llm_parameters = frozenset({"target_language"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The candidates' language, as the subset stores it."""
        return {"target_language": config.get("target_language")}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        target_language: str | None = None,
    ) -> TaskSpec:
        return BitextSpec(
            self.name,
            language=language,
            instructions=instructions,
            target_language=target_language,
        )

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        sentence = check_text(content, "sentence")
        items = config_module.candidates(content)
        ids = tuple(it["id"] for it in items)
        source = language_name(spec.language)
        target = language_name(getattr(spec, "target_language", None))
        languages = ""
        if source or target:
            languages = (
                f"Language of the sentence: {source or 'not given'}. "
                f"Language of the candidates: {target or 'not given'}."
            )
        answer_format = (
            'Answer with only this JSON object: {"translation": "<the id of the one candidate '
            'that translates the sentence>"}'
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            languages,
            "Sentence:\n" + block("sentence", sentence),
            f"Candidates ({len(ids)}, each with its id in brackets):\n" + id_list(items),
            answer_format,
        ]
        schema = object_schema({"translation": {"type": "string", "enum": list(ids)}})
        return make_prompt(parts, schema=schema, answer_format=answer_format, item_ids=ids)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> str:
        value = reply_field(reply, "translation")
        if not isinstance(value, str):
            raise Reject(
                "parse_error", f'"translation" must be a string, got {type(value).__name__}'
            )
        cleaned = value.strip().strip("[]").strip()
        folded = [i for i in prompt.item_ids if i.casefold() == cleaned.casefold()]
        if len(folded) == 1:
            return folded[0]
        ids = list(prompt.item_ids)
        raise Reject("invalid", f"{value!r} is not one of the candidate ids {ids}")
