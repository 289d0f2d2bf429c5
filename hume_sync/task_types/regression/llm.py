"""Regression's LLM annotator: the text and the bounds, answered as ``{"value": <number>}``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hume_sync.task_types.regression.interface import subset_scale
from label_studio_configs import regression as config_module
from label_studio_configs._common import check_text
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
class RegressionSpec(TaskSpec):
    """A regression subset's spec: the bounds and step the human Number box has."""

    scale: Mapping[str, float] = field(default_factory=dict)


def _finite(value: Any) -> bool:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return ok and math.isfinite(value)


def _fmt(value: float) -> str:
    return f"{value:.10g}"


class RegressionLLM(LLMTask):
    """The human instructions and bounds; a number (or a numeric string) within the bounds is
    the answer, one outside them invalid, anything else unreadable. The step is said, not
    enforced: people's input box does not enforce it either."""

    llm_default_instructions = config_module.DEFAULT_INSTRUCTIONS

    llm_parameters = frozenset({"scale"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The bounds and step the human interface shows."""
        return {"scale": subset_scale(config)}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        scale: Mapping[str, Any] | None = None,
    ) -> TaskSpec:
        return RegressionSpec(
            self.name,
            language=language,
            instructions=instructions,
            scale=config_module.scale(scale),
        )

    def _scale(self, spec: TaskSpec) -> Mapping[str, float]:
        return getattr(spec, "scale", None) or config_module.scale(None)

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        text = check_text(content, "text")
        s = self._scale(spec)
        lo, hi, step = _fmt(s["min"]), _fmt(s["max"]), _fmt(s["step"])
        answer_format = (
            f'Answer with only this JSON object: {{"value": <one number from {lo} to {hi}>}}'
        )
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec),
            f"The number lies between {lo} and {hi}, in steps of {step}.",
            "Text:\n" + block("text", text),
            answer_format,
        ]
        schema = object_schema(
            {"value": {"type": "number", "minimum": s["min"], "maximum": s["max"]}}
        )
        return make_prompt(parts, schema=schema, answer_format=answer_format)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> float:
        value = reply_field(reply, "value")
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise Reject("parse_error", f'"value" must be a number, got {value!r}') from None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise Reject("parse_error", f'"value" must be a finite number, got {value!r}')
        s = self._scale(spec)
        if not s["min"] <= float(value) <= s["max"]:
            raise Reject(
                "invalid", f"{value!r} is outside the bounds {_fmt(s['min'])}–{_fmt(s['max'])}"
            )
        return float(value)
