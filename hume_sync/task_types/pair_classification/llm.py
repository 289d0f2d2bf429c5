"""Pair classification: the LLM concern (the prompt an LLM annotator gets, and reading its reply).

Implements :class:`ml_backend.llm.task.LLMTask`. The LLM is given what a human annotator is given
(:mod:`label_studio_configs.pair_classification`: the same instructions, the same two texts, the
same two answers) and asked for one JSON object ``{"label": 1 | 0}``. The reply's JSON object is
extracted by the annotator's shared reader (:func:`ml_backend.llm.parsing.parse_reply`: the whole
reply or one code fence, no duplicate keys); :meth:`PairClassificationLLM.llm_answer` reads the
``label`` strictly: an answer, a ``parse_error`` (no ``label``, a value of the wrong kind) or
``invalid`` (readable but not an allowed answer, e.g. 2 or "maybe"); never a default. Accepted
spellings of an answer: 1/0 (int, 1.0/0.0, "1"/"0"), JSON true/false, and the shown answer texts
("Yes"/"No", any case and outer spacing), since each of them names one answer unambiguously.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from label_studio_configs import pair_classification as lsc_pair
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

from .interface import pair_labels_from_config

#: Bumped whenever the wording below changes (recorded with every answer).
PROMPT_VERSION = "hume-llm-prompts/pair_classification/1"
ANSWER_FORMAT = 'Answer with only this JSON object: {"label": <1 or 0>}'


def reply_answer(spec: TaskSpec, value: Any) -> int:
    """1 or 0 from the reply's ``label`` value (see the module docstring for accepted spellings);
    :class:`~ml_backend.llm.task.Reject` otherwise."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        if value in (0, 1):
            return int(value)
        raise Reject("invalid", f"label {value!r} is not 1 or 0")
    if isinstance(value, str):
        text = value.strip()
        if text in ("0", "1"):
            return int(text)
        named = [lab for lab, shown in spec.levels.items() if shown.casefold() == text.casefold()]
        if len(named) == 1:
            return named[0]
        raise Reject("invalid", f"label {value!r} is not 1 or 0")
    raise Reject("parse_error", f'"label" must be 1 or 0, got {type(value).__name__}')


class PairClassificationLLM(LLMTask):
    """Pair classification's LLM behaviour (the ``LLMTask`` protocol): spec, prompt, answer.

    The spec's ``levels`` hold the two answers' wording ({1: text, 0: text}, Yes / No by
    default), what the interface's ``ls_labels`` gives for the subset.
    """

    llm_prompt_version: str = PROMPT_VERSION
    llm_default_instructions: str = lsc_pair.DEFAULT_INSTRUCTIONS

    llm_parameters = frozenset({"labels"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The two answers' wording the human interface shows."""
        return {"labels": pair_labels_from_config(config)}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        labels: Sequence[str] | Mapping[int, str] | None = None,
    ) -> TaskSpec:
        """Check the subset's parameters once, before any call is made (a label *list* is
        refused: a pair's answers are {1: text, 0: text})."""
        return TaskSpec(
            self.name,
            levels=lsc_pair.labels_of(labels),  # type: ignore[arg-type]
            language=language,
            instructions=instructions,
        )

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        """The messages for one pair (the study store's ``{"sentence1", "sentence2"}``), the
        answer's JSON schema and its format line."""
        s1, s2 = check_text(content, "sentence1"), check_text(content, "sentence2")
        labels = lsc_pair.labels_of(dict(spec.levels))
        answers = "\n".join(f"{label} – {text}" for label, text in labels.items())
        parts = [
            spec.instructions or self.llm_default_instructions,
            language_line(spec, "texts"),
            f"Answers (choose exactly one):\n{answers}",
            "Text 1:\n" + block("text1", s1),
            "Text 2:\n" + block("text2", s2),
            ANSWER_FORMAT,
        ]
        schema = object_schema({"label": {"type": "integer", "enum": [1, 0]}})
        return make_prompt(parts, schema=schema, answer_format=ANSWER_FORMAT)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> int:
        """1 or 0 from the reply's JSON object; the protocol's ``Reject`` otherwise."""
        return reply_answer(spec, reply_field(reply, "label"))
