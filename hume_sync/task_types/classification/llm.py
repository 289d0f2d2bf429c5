"""Classification's LLM annotator: the text and the label set, answered as ``{"label": ...}``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from label_studio_configs import classification as config_module
from label_studio_configs._common import check_labels, check_text
from ml_backend.llm.parsing import reply_field
from ml_backend.llm.prompts import (
    Prompt,
    TaskSpec,
    block,
    language_line,
    make_prompt,
    object_schema,
)
from ml_backend.llm.task import LLMTask, Reject


class ClassificationLLM(LLMTask):
    """The human instructions and label set; a label written with other case or spacing is
    that label, anything else is invalid."""

    llm_default_instructions = config_module.DEFAULT_INSTRUCTIONS

    llm_parameters = frozenset({"labels"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The label set the human interface shows."""
        return {"labels": config.get("label_set")}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        labels: Sequence[str] | Mapping[int, str] | None = None,
    ) -> TaskSpec:
        return TaskSpec(
            self.name,
            labels=tuple(check_labels(labels)),  # type: ignore[arg-type]
            language=language,
            instructions=instructions,
        )

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        text = check_text(content, "text")
        labels = "\n".join(f"- {label}" for label in spec.labels)
        answer_format = (
            'Answer with only this JSON object: {"label": "<one label, copied exactly from the '
            'list above>"}'
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec),
            f"Labels (choose exactly one):\n{labels}",
            "Text:\n" + block("text", text),
            answer_format,
        ]
        schema = object_schema({"label": {"type": "string", "enum": list(spec.labels)}})
        return make_prompt(parts, schema=schema, answer_format=answer_format)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> str:
        value = reply_field(reply, "label")
        if not isinstance(value, str):
            raise Reject("parse_error", f'"label" must be a string, got {type(value).__name__}')
        if value in spec.labels:
            return value
        # The same label written with other case or spacing is that label, not a guess.
        folded = [lab for lab in spec.labels if lab.casefold() == value.strip().casefold()]
        if len(folded) == 1:
            return folded[0]
        raise Reject("invalid", f"{value!r} is not one of the labels {list(spec.labels)!r}")
