"""Prompts that give the model what a human annotator of the same task was given.

The instructions, label set, STS levels and group names come from ``label_studio_configs`` (the
configs shown to human annotators), so a change there changes both. Where the human wording is
about the interface ("drag into 'Relevant'") the LLM gets the same task phrased as a JSON
answer. Every prompt ends with an explicit JSON answer format, whatever ``response_format`` the
endpoint supports; ``json_schema`` additionally constrains decoding where the server can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from label_studio_configs import classification as ls_classification
from label_studio_configs import clustering as ls_clustering
from label_studio_configs import sts as ls_sts
from label_studio_configs._common import check_items, check_labels, check_text

from .client import Message, ResponseFormatMode

#: Bumped whenever the wording changes (recorded with every answer; the cache key holds the
#: full prompt text anyway).
PROMPT_VERSION = "hume-llm-prompts/1"
TASK_TYPES: tuple[str, ...] = ("classification", "clustering", "reranking", "sts")

SYSTEM_PROMPT = (
    "You are an annotator in a study that measures how well people perform text-understanding "
    "tasks. Do the task exactly as instructed, using your own judgement. Answer with a single "
    "JSON object and nothing else: no explanation, no markdown."
)

CLUSTERING_INSTRUCTIONS = (
    "Sort the texts into {n_groups} groups by topic, so that texts on the same topic share a "
    "group. Group numbers carry no meaning. Every text must be placed in exactly one group."
)
RERANKING_INSTRUCTIONS = (
    "Read the query, then mark each candidate document as Relevant or Not relevant to it. "
    "Judge every candidate on its own."
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
    """What is fixed for a whole subset: the type, its label set / levels / K, the language."""

    task_type: str
    labels: tuple[str, ...] = ()
    levels: Mapping[int, str] = field(default_factory=dict)
    n_groups: int | None = None
    language: str | None = None
    instructions: str | None = None

    @classmethod
    def make(
        cls,
        task_type: str,
        *,
        labels: Sequence[str] | Mapping[int, str] | None = None,
        n_groups: int | None = None,
        language: str | None = None,
        instructions: str | None = None,
    ) -> TaskSpec:
        """Check the parameters a type needs (a label set, K) once, before any call is made."""
        if task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {task_type!r}; expected one of {TASK_TYPES}")
        if task_type == "classification":
            return cls(
                task_type,
                labels=tuple(check_labels(labels)),
                language=language,
                instructions=instructions,
            )
        if task_type == "sts":
            levels = ls_sts.levels(labels if isinstance(labels, Mapping) else None)
            return cls(task_type, levels=levels, language=language, instructions=instructions)
        if task_type == "clustering":
            ls_clustering.group_names(n_groups)  # raises unless K >= 2
            return cls(task_type, n_groups=n_groups, language=language, instructions=instructions)
        return cls(task_type, language=language, instructions=instructions)


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


def _block(tag: str, text: str) -> str:
    return f"<{tag}>\n{text.strip()}\n</{tag}>"


def _object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _id_list(items: Sequence[Mapping[str, str]]) -> str:
    return "\n".join(f"[{it['id']}] {' '.join(it['text'].split())}" for it in items)


def build_prompt(spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
    """The prompt for one instance's ``content`` (the dict the study store holds)."""
    lang = language_name(spec.language)
    lang_line = f"Language of the text: {lang}." if lang else ""
    parts: list[str]
    ids: tuple[str, ...] = ()
    if spec.task_type == "classification":
        text = check_text(content, "text")
        instructions = spec.instructions or ls_classification.DEFAULT_INSTRUCTIONS
        labels = "\n".join(f"- {label}" for label in spec.labels)
        answer_format = (
            'Answer with only this JSON object: {"label": "<one label, copied exactly from the '
            'list above>"}'
        )
        schema = _object_schema({"label": {"type": "string", "enum": list(spec.labels)}})
        parts = [
            instructions,
            lang_line,
            f"Labels (choose exactly one):\n{labels}",
            "Text:\n" + _block("text", text),
            answer_format,
        ]
    elif spec.task_type == "sts":
        s1, s2 = check_text(content, "sentence1"), check_text(content, "sentence2")
        instructions = spec.instructions or ls_sts.DEFAULT_INSTRUCTIONS
        scale = "\n".join(
            f"{level} – {meaning}" for level, meaning in sorted(spec.levels.items(), reverse=True)
        )
        lo, hi = min(spec.levels), max(spec.levels)
        answer_format = (
            f'Answer with only this JSON object: {{"rating": <one integer level from {lo} '
            f"to {hi}>}}"
        )
        schema = _object_schema({"rating": {"type": "integer", "enum": sorted(spec.levels)}})
        parts = [
            instructions,
            lang_line.replace("text", "sentences"),
            f"Levels:\n{scale}",
            "Sentence 1:\n" + _block("sentence1", s1),
            "Sentence 2:\n" + _block("sentence2", s2),
            answer_format,
        ]
    elif spec.task_type == "clustering":
        items = check_items(content, "items")
        ids = tuple(it["id"] for it in items)
        k = int(spec.n_groups or 0)
        instructions = (spec.instructions or CLUSTERING_INSTRUCTIONS).replace("{n_groups}", str(k))
        answer_format = (
            "Answer with only a JSON object that maps every text id to its group number, an "
            f"integer from 1 to {k}. Include all {len(ids)} ids, each exactly once, like "
            + "{"
            + ", ".join(f'"{i}": <1-{k}>' for i in ids[:2])
            + (", ..." if len(ids) > 2 else "")
            + "}"
        )
        schema = _object_schema(
            {i: {"type": "integer", "enum": list(range(1, k + 1))} for i in ids}
        )
        parts = [
            instructions,
            lang_line.replace("text", "texts"),
            f"Number of groups: {k} (numbered 1 to {k}).",
            f"Texts ({len(ids)}, each with its id in brackets):\n" + _id_list(items),
            answer_format,
        ]
    else:  # reranking
        query = check_text(content, "query")
        items = check_items(content, "candidates")
        ids = tuple(it["id"] for it in items)
        instructions = spec.instructions or RERANKING_INSTRUCTIONS
        answer_format = (
            "Answer with only a JSON object that maps every candidate id to 1 (Relevant) or 0 "
            f"(Not relevant). Include all {len(ids)} ids, like "
            + "{"
            + ", ".join(f'"{i}": <1 or 0>' for i in ids[:2])
            + (", ..." if len(ids) > 2 else "")
            + "}"
        )
        schema = _object_schema({i: {"type": "integer", "enum": [0, 1]} for i in ids})
        parts = [
            instructions,
            lang_line.replace("text", "texts"),
            "Query:\n" + _block("query", query),
            f"Candidates ({len(ids)}, each with its id in brackets):\n" + _id_list(items),
            answer_format,
        ]
    user = "\n\n".join(p for p in parts if p)
    messages = ({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user})
    return Prompt(messages=messages, schema=schema, answer_format=answer_format, item_ids=ids)


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
