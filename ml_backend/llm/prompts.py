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

__all__ = [
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "Prompt",
    "TaskSpec",
    "block",
    "id_example",
    "id_list",
    "language_line",
    "language_name",
    "make_prompt",
    "object_schema",
    "reminder_messages",
]

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
    """Name a language readably from a code like "en", "eng-Latn", "arb_Arab".

    Args:
        language: the subset's language code; None or empty for none.

    Returns:
        The language's English name, the code itself when unknown, or None for no code.
    """
    if not language:
        return None
    head = language.replace("_", "-").split("-")[0].lower()
    return _LANGUAGES.get(head, language)


@dataclass(frozen=True)
class TaskSpec:
    """What is fixed for a whole subset: the type, its label set / levels / K, the language.

    Made by the type's ``llm_spec`` (:class:`~ml_backend.llm.task.LLMTask`), which checks the
    parameters the type needs once, before any call is made.

    Attributes:
        task_type: the type's name.
        labels: the label set (classification, pair classification).
        levels: the scale's levels and their descriptions (STS).
        n_groups: K, the number of groups (clustering).
        language: the subset's language code.
        instructions: the study's instructions to annotators.
    """

    task_type: str
    labels: tuple[str, ...] = ()
    levels: Mapping[int, str] = field(default_factory=dict)
    n_groups: int | None = None
    language: str | None = None
    instructions: str | None = None


@dataclass(frozen=True)
class Prompt:
    """The messages for one instance, the JSON schema of a valid answer, and its format line.

    Attributes:
        messages: the system and user messages.
        schema: the JSON schema of a valid answer object.
        answer_format: the prompt's last line, saying what the answer object looks like.
        item_ids: the ids the answer must use (clustering, reranking); empty otherwise.
    """

    messages: tuple[Message, ...]
    schema: dict[str, Any]
    answer_format: str
    item_ids: tuple[str, ...] = ()

    def response_format(self, mode: ResponseFormatMode, name: str) -> dict[str, Any] | None:
        """Build the ``response_format`` request field for the endpoint's structured-output mode.

        Args:
            mode: what the endpoint supports: ``"json_schema"``, ``"json_object_schema"``,
                ``"json_object"`` or ``"none"``.
            name: the schema's name, for ``"json_schema"``.

        Returns:
            The field's value, or None to send none.
        """
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
    """Fence a text by ``<tag>`` lines, so the model sees where it starts and ends.

    Args:
        tag: the tag's name (``text``, ``query``, ...).
        text: the text, stripped of outer whitespace.

    Returns:
        The fenced text.
    """
    return f"<{tag}>\n{text.strip()}\n</{tag}>"


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """Build the JSON schema of an object with exactly these properties, all required.

    Args:
        properties: the schema of each property, by name.

    Returns:
        The object's schema (no other properties allowed).
    """
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def id_list(items: Sequence[Mapping[str, str]]) -> str:
    """List items one per line, ``[id] text`` with whitespace collapsed (ids the answer must use).

    Args:
        items: ``{"id", "text"}`` records, in the order shown.

    Returns:
        The lines, joined.
    """
    return "\n".join(f"[{it['id']}] {' '.join(it['text'].split())}" for it in items)


def id_example(ids: Sequence[str], value: str) -> str:
    """Write an example answer object naming the first two ids: ``{"a": <value>, ...}``.

    Args:
        ids: the instance's item ids.
        value: what stands for each value (``"<1 or 0>"``, ``"<1-K>"``).

    Returns:
        The example, with ``...`` when there are more than two ids.
    """
    return (
        "{"
        + ", ".join(f'"{i}": {value}' for i in ids[:2])
        + (", ..." if len(ids) > 2 else "")
        + "}"
    )


def language_line(spec: TaskSpec, noun: str = "text") -> str:
    """Write the line naming the subset's language ("Language of the texts: Danish.").

    Args:
        spec: the subset's spec (its ``language``).
        noun: what the texts are called in the line (``"text"``, ``"texts"``, ``"sentences"``).

    Returns:
        The line, or "" when the subset has no language.
    """
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
    """Build the prompt from a type's user-message parts and answer format.

    Args:
        parts: the user message's paragraphs, empty ones left out.
        schema: the JSON schema of a valid answer.
        answer_format: the line saying what the answer object looks like.
        item_ids: the ids the answer must use, when the type has items.

    Returns:
        The prompt: the shared system prompt, then the user message.
    """
    user = "\n\n".join(p for p in parts if p)
    messages = ({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user})
    return Prompt(messages=messages, schema=schema, answer_format=answer_format, item_ids=item_ids)


def reminder_messages(prompt: Prompt, raw: str, reason: str) -> tuple[Message, ...]:
    """Build the conversation for the one retry: the failed reply, then what was wrong with it.

    Args:
        prompt: the instance's prompt.
        raw: the reply that could not be used.
        reason: why it could not, as the parser said.

    Returns:
        The prompt's messages, the reply, and the reminder with the answer format again.
    """
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
