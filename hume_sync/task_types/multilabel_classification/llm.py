"""Multilabel classification's LLM annotator: the text and the label set, answered as
``{"labels": [...]}`` (an empty list where the subset offers "no label applies")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from label_studio_configs import multilabel_classification as config_module
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


@dataclass(frozen=True)
class MultilabelSpec(TaskSpec):
    """A multilabel subset's spec: whether an empty set is an answer."""

    none_choice: bool = False


class MultilabelLLM(LLMTask):
    """The human instructions and label set; a label written with other case or spacing is that
    label, a repeated one counts once, anything else makes the reply invalid."""

    llm_default_instructions = config_module.DEFAULT_INSTRUCTIONS

    llm_parameters = frozenset({"labels", "none_choice"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The label set the human interface shows, and whether it offers "none applies"."""
        return {
            "labels": config.get("label_set"),
            "none_choice": bool(config.get("none_choice")),
        }

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        labels: Sequence[str] | None = None,
        none_choice: bool = False,
    ) -> TaskSpec:
        return MultilabelSpec(
            self.name,
            labels=tuple(check_labels(labels)),
            language=language,
            instructions=instructions,
            none_choice=bool(none_choice),
        )

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        text = check_text(content, "text")
        labels = "\n".join(f"- {label}" for label in spec.labels)
        none_ok = getattr(spec, "none_choice", False)
        how_many = (
            "choose every label that applies; an empty list if none applies"
            if none_ok
            else "choose every label that applies, at least one"
        )
        answer_format = (
            'Answer with only this JSON object: {"labels": ["<a label, copied exactly from the '
            'list above>", ...]}'
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec),
            f"Labels ({how_many}):\n{labels}",
            "Text:\n" + block("text", text),
            answer_format,
        ]
        schema = object_schema(
            {
                "labels": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(spec.labels)},
                    "minItems": 0 if none_ok else 1,
                    "uniqueItems": True,
                }
            }
        )
        return make_prompt(parts, schema=schema, answer_format=answer_format)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> list[str]:
        value = reply_field(reply, "labels")
        if not isinstance(value, list):
            raise Reject("parse_error", f'"labels" must be a list, got {type(value).__name__}')
        chosen: set[str] = set()
        for item in value:
            if not isinstance(item, str):
                raise Reject("invalid", f"a label must be a string, got {item!r}")
            if item in spec.labels:
                chosen.add(item)
                continue
            folded = [lab for lab in spec.labels if lab.casefold() == item.strip().casefold()]
            if len(folded) != 1:
                raise Reject("invalid", f"{item!r} is not one of the labels {list(spec.labels)!r}")
            chosen.add(folded[0])
        if not chosen and not getattr(spec, "none_choice", False):
            raise Reject("invalid", "no label chosen, and this subset needs at least one")
        return sorted(chosen)
