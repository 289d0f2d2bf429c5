"""Prompts that give the model what a human annotator of the same task was given.

The type-specific part of a prompt is the type's ``llm_prompt`` (:mod:`ml_backend.llm.task`);
this module holds what every type shares: the system prompt, the language line, the JSON answer
format plumbing and the reminder. The instructions, label set, STS levels and group names come
from ``label_studio_configs`` (the configs shown to human annotators), so a change there changes
both. Where the human wording is about the interface ("drag into 'Relevant'") the LLM gets the
same task phrased as a JSON answer. Every prompt ends with an explicit JSON answer format,
whatever ``response_format`` the endpoint supports; ``json_schema`` additionally constrains
decoding where the server can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .client import Message, ResponseFormatMode

#: Bumped whenever the wording changes (recorded with every answer; the cache key holds the
#: full prompt text anyway).
PROMPT_VERSION = "hume-llm-prompts/1"

SYSTEM_PROMPT = (
    "You are an annotator in a study that measures how well people perform text-understanding "
    "tasks. Do the task exactly as instructed, using your own judgement. Answer with a single "
    "JSON object and nothing else: no explanation, no markdown."
)

_LANGUAGES = {
    "en": "English",
    "eng": "English",
    "ar": "Arabic",
    "ara": "Arabic",
    "arb": "Arabic",
    "ru": "Russian",
    "rus": "Russian",
    "da": "Danish",
    "dan": "Danish",
    "no": "Norwegian",
    "nor": "Norwegian",
    "nb": "Norwegian (Bokmål)",
    "nob": "Norwegian (Bokmål)",
    "fr": "French",
    "fra": "French",
    "de": "German",
    "deu": "German",
    "es": "Spanish",
    "spa": "Spanish",
    "zh": "Chinese",
    "zho": "Chinese",
}


def language_name(language: str | None) -> str | None:
    """A readable language name for a code like "en", "eng-Latn", "arb_Arab" (else the code)."""
    if not language:
        return None
    head = language.replace("_", "-").split("-")[0].lower()
    return _LANGUAGES.get(head, language)


@dataclass(frozen=True)
class TaskSpec:
    """What is fixed for a whole subset: the type, its label set / levels / K, the language.

    Made by the type's ``llm_spec`` (:class:`~ml_backend.llm.task.LLMTask`), which checks the
    parameters the type needs once, before any call is made; ``task_type`` is the type's name.
    """

    task_type: str
    labels: tuple[str, ...] = ()
    levels: Mapping[int, str] = field(default_factory=dict)
    n_groups: int | None = None
    language: str | None = None
    instructions: str | None = None


@dataclass(frozen=True)
class Prompt:
    """The messages for one instance, the JSON schema of a valid answer, and its format line."""

    messages: tuple[Message, ...]
    schema: dict[str, Any]
    answer_format: str
    item_ids: tuple[str, ...] = ()

    def response_format(self, mode: ResponseFormatMode, name: str) -> dict[str, Any] | None:
        """The ``response_format`` request field for the endpoint's structured-output mode."""
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": self.schema},
            }
        if mode == "json_object_schema":
            return {"type": "json_object", "schema": self.schema}
        if mode == "json_object":
            return {"type": "json_object"}
        return None


def block(tag: str, text: str) -> str:
    """Text fenced by ``<tag>`` lines, so the model sees where a text starts and ends."""
    return f"<{tag}>\n{text.strip()}\n</{tag}>"


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of an object with exactly these properties, all required."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def id_list(items: Sequence[Mapping[str, str]]) -> str:
    """One line per item, ``[id] text`` with whitespace collapsed (ids the answer must use)."""
    return "\n".join(f"[{it['id']}] {' '.join(it['text'].split())}" for it in items)


def id_example(ids: Sequence[str], value: str) -> str:
    """An example answer object naming the first two ids: ``{"a": <value>, "b": <value>, ...}``."""
    return (
        "{"
        + ", ".join(f'"{i}": {value}' for i in ids[:2])
        + (", ..." if len(ids) > 2 else "")
        + "}"
    )


def language_line(spec: TaskSpec, noun: str = "text") -> str:
    """The line naming the subset's language ("Language of the texts: Danish."), or ""."""
    lang = language_name(spec.language)
    # Written as the replacement of "text" in one fixed line, as the prompts have always been.
    return f"Language of the text: {lang}.".replace("text", noun) if lang else ""


def make_prompt(
    parts: Sequence[str],
    *,
    schema: dict[str, Any],
    answer_format: str,
    item_ids: tuple[str, ...] = (),
) -> Prompt:
    """The prompt from a type's user-message parts (empty parts left out) and answer format."""
    user = "\n\n".join(p for p in parts if p)
    messages = ({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user})
    return Prompt(messages=messages, schema=schema, answer_format=answer_format, item_ids=item_ids)


def reminder_messages(prompt: Prompt, raw: str, reason: str) -> tuple[Message, ...]:
    """The conversation for the one retry: the failed reply, then what was wrong with it."""
    return (
        *prompt.messages,
        {"role": "assistant", "content": raw},
        {
            "role": "user",
            "content": (
                f"Your answer could not be used: {reason}. Reply again with only the JSON "
                f"object, nothing else. {prompt.answer_format}"
            ),
        },
    )
