"""STS's LLM annotator: the sentence pair and the level meanings, answered as ``{"rating": n}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import sts as config_module
from label_studio_configs._common import check_text
from ml_backend.llm.parsing import as_int, reply_field
from ml_backend.llm.prompts import (
    Prompt,
    TaskSpec,
    block,
    language_line,
    make_prompt,
    object_schema,
)
from ml_backend.llm.task import LLMTask, Reject


class STSLLM(LLMTask):
    """The human instructions and levels (``labels`` may replace them, ``{level: meaning}``);
    a rating off the scale is invalid, a non-number unreadable."""

    llm_default_instructions = config_module.DEFAULT_INSTRUCTIONS

    # ``labels`` replaces the scale for a caller that sets one; a study's subsets show the
    # module's levels (the interface has no scale setting), so ``llm_params`` reads nothing.
    llm_parameters = frozenset({"labels"})

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        labels: Mapping[int, str] | None = None,
    ) -> TaskSpec:
        levels = config_module.levels(labels if isinstance(labels, Mapping) else None)
        return TaskSpec(self.name, levels=levels, language=language, instructions=instructions)

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        s1, s2 = check_text(content, "sentence1"), check_text(content, "sentence2")
        scale = "\n".join(
            f"{level} – {meaning}" for level, meaning in sorted(spec.levels.items(), reverse=True)
        )
        lo, hi = min(spec.levels), max(spec.levels)
        answer_format = (
            f'Answer with only this JSON object: {{"rating": <one integer level from {lo} '
            f"to {hi}>}}"
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec, "sentences"),
            f"Levels:\n{scale}",
            "Sentence 1:\n" + block("sentence1", s1),
            "Sentence 2:\n" + block("sentence2", s2),
            answer_format,
        ]
        schema = object_schema({"rating": {"type": "integer", "enum": sorted(spec.levels)}})
        return make_prompt(parts, schema=schema, answer_format=answer_format)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> int:
        value = reply_field(reply, "rating")
        level = as_int(value)
        if level is None:
            if isinstance(value, int | float) and not isinstance(value, bool):
                raise Reject(
                    "invalid", f"rating {value!r} is not one of the levels {sorted(spec.levels)!r}"
                )
            raise Reject("parse_error", f'"rating" must be an integer, got {value!r}')
        if level not in spec.levels:
            raise Reject(
                "invalid", f"rating {level} is not one of the levels {sorted(spec.levels)!r}"
            )
        return level
