"""The protocol of a task type's Label Studio interface: :class:`TaskInterface`.

Callers hold a task type object (from the task type registry) and call its ``ls_*``
methods; nothing in this package looks a type up by its name, so adding a type needs no edit
here beyond its own config module and XML. A type implements the protocol by naming its config
module (``ls_module``: one of this package's per-type modules, :class:`TaskConfig` below) and by
stating the two rules that differ between types beyond that module:

- ``ls_labels``: which part of a subset's stored config the interface shows as its labels. Only
  classification shows its label set; a clustering subset's stored label set holds gold labels,
  which must never reach an interface.
- ``ls_item_ids``: which ids a result must cover (the texts of a clustering task, the candidates
  of a reranking task; none for one-text and one-pair tasks).

Everything else (rendering from a stored config, task data, result <-> answer translation) is
the same call for every type, so it is written once here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ._screen import POSITION_FIELD, position_text

__all__ = ["TaskConfig", "TaskInterface"]


class TaskConfig(Protocol):
    """What every per-type config module (``classification``, ``clustering``, ...) provides.

    Parameters a type does not use are accepted and ignored, so that every type is called with
    the same keywords.
    """

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


class TaskInterface(ABC):
    """A task type's Label Studio interface (the ``ls_*`` methods of a task type class).

    ``config`` below is always a subset's stored config (``label_set``, ``n_groups``,
    ``instructions``) and ``content`` an instance's stored content; neither is trusted: the
    config module checks what it uses and raises :class:`~label_studio_configs.ConfigError`.
    """

    @property
    @abstractmethod
    def ls_module(self) -> TaskConfig:
        """The type's config module (its XML, task data and result translation)."""

    @abstractmethod
    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        """The labels the interface shows for a subset's stored config (None: the type's own)."""

    @abstractmethod
    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        """The ids a result for this instance must cover, in content order (None: no items)."""

    def ls_translation_kwargs(
        self, config: Mapping[str, Any], content: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The keywords ``ls_result_to_answer`` / ``ls_answer_to_result`` need for one instance."""
        return {
            "labels": self.ls_labels(config),
            "n_groups": config.get("n_groups"),
            "item_ids": self.ls_item_ids(content),
        }

    def ls_render_config(
        self,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        instructions: str | None = None,
        language: str | None = "en",
    ) -> str:
        """The labeling config XML from explicit parameters (see the type's module)."""
        return self.ls_module.render_config(
            labels=labels, n_groups=n_groups, instructions=instructions, language=language
        )

    def ls_subset_config(self, config: Mapping[str, Any], *, language: str | None) -> str:
        """The labeling config XML of a subset, from its stored config (never from gold)."""
        return self.ls_render_config(
            labels=self.ls_labels(config),
            n_groups=config.get("n_groups"),
            instructions=config.get("instructions"),
            language=language,
        )

    def ls_task_data(
        self,
        hume_ref: str,
        content: Mapping[str, Any],
        *,
        position: tuple[int, int] | None = None,
    ) -> dict[str, Any]:
        """Label Studio task ``data``: the content and the opaque reference, never gold.

        ``position`` (n, N): the task's place in its subset's presentation order, shown on the
        screen as "Task n of N" (``_screen.POSITION_FIELD``). The presentation order is a
        seeded shuffle, so the place says nothing about the answer.
        """
        data = self.ls_module.task_data(hume_ref, content)
        if position is not None:
            data[POSITION_FIELD] = position_text(position)
        return data

    def ls_result_to_answer(
        self,
        result: list[dict[str, Any]],
        *,
        labels: Any = None,
        n_groups: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> Any:
        """The plain answer of a Label Studio result; InvalidResultError when it does not fit."""
        return self.ls_module.result_to_answer(
            result, labels=labels, n_groups=n_groups, item_ids=item_ids
        )

    def ls_answer_to_result(
        self,
        answer: Any,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The Label Studio result of a plain answer; InvalidAnswerError when it does not fit."""
        return self.ls_module.answer_to_result(
            answer, labels=labels, n_groups=n_groups, item_ids=item_ids
        )
