"""Label Studio labeling configs for the four HUME task types, and a registry to find them.

Each type module (classification, clustering, reranking, sts) offers the same functions:

- ``render_config(*, labels=None, n_groups=None, instructions=None, language="en") -> str``
- ``task_data(hume_ref, content) -> dict`` (the Label Studio task ``data``: the content and an
  opaque reference to the study instance; never gold, nor ids that could encode it)
- ``result_to_answer(result, *, labels=None, n_groups=None, item_ids=None) -> answer``
- ``answer_to_result(answer, *, labels=None, n_groups=None, item_ids=None) -> list[dict]``

Parameters a type does not use are accepted and ignored, so callers can pass the same keywords to
every type. ``get(task_type)`` returns the module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

from . import classification, clustering, reranking, sts
from .errors import (
    ConfigError,
    InvalidAnswerError,
    InvalidContentError,
    InvalidResultError,
    UnknownTaskTypeError,
)

__all__ = [
    "TASK_TYPES",
    "ConfigError",
    "InvalidAnswerError",
    "InvalidContentError",
    "InvalidResultError",
    "TaskConfig",
    "UnknownTaskTypeError",
    "get",
    "translation_kwargs",
]


class TaskConfig(Protocol):
    """What every task-type module provides (for type checkers and readers)."""

    TASK_TYPE: str
    FROM_NAME: str
    TO_NAME: str
    RESULT_TYPE: str
    DEFAULT_INSTRUCTIONS: str

    def render_config(
        self,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        instructions: str | None = None,
        language: str | None = "en",
    ) -> str: ...

    def task_data(self, hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]: ...

    def result_to_answer(
        self,
        result: list[dict[str, Any]],
        *,
        labels: Any = None,
        n_groups: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> Any: ...

    def answer_to_result(
        self,
        answer: Any,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]: ...


_REGISTRY: dict[str, Any] = {m.TASK_TYPE: m for m in (classification, clustering, reranking, sts)}
TASK_TYPES: tuple[str, ...] = tuple(_REGISTRY)


def translation_kwargs(
    task_type: str, config: Mapping[str, Any], content: Mapping[str, Any]
) -> dict[str, Any]:
    """The keywords `result_to_answer` / `answer_to_result` need for one instance.

    ``config`` is the subset's stored config (``label_set``, ``n_groups``), ``content`` the
    instance's content (item or candidate ids). Only classification passes its label set: a
    clustering subset's stored label set holds gold labels, which never reach an interface.
    """
    module = get(task_type)
    ids_of = getattr(module, "item_ids", None)
    return {
        "labels": config.get("label_set") if task_type == "classification" else None,
        "n_groups": config.get("n_groups"),
        "item_ids": ids_of(content) if ids_of else None,
    }


def get(task_type: str) -> TaskConfig:
    """The config module of a task type: "classification", "clustering", "reranking" or "sts"."""
    try:
        return cast(TaskConfig, _REGISTRY[task_type])
    except (KeyError, TypeError):
        raise UnknownTaskTypeError(
            f"unknown task type {task_type!r}; known types: {', '.join(TASK_TYPES)}"
        ) from None
