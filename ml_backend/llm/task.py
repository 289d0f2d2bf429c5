"""The protocol of a task type's LLM annotator: :class:`LLMTask` (the ``llm_*`` methods).

A type says how its subset parameters are checked (``llm_spec``), what the model is shown for
one instance (``llm_prompt``) and how a reply's JSON object becomes an answer in the exact shape
human annotations take (``llm_answer``). The plumbing every type shares (calls, cache, reminder,
JSON extraction, records) stays in :mod:`ml_backend.llm.annotate` and friends, so nothing in
this package branches on a type's name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .prompts import Prompt, TaskSpec

__all__ = ["LLMTask", "ParseStatus", "Reject", "build_prompt"]

ParseStatus = Literal["ok", "parse_error", "invalid"]


class Reject(Exception):
    """A reply that is not an answer: ``parse_error`` (unreadable) or ``invalid`` (not allowed).

    ``llm_answer`` raises it instead of guessing; the reader turns it into the record's status
    and error, so a rejected reply is never replaced by a default.
    """

    def __init__(self, status: ParseStatus, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


class LLMTask(ABC):
    """How an LLM annotates one task type (implemented by the type's ``llm`` mixin)."""

    #: The type's name (the task type class supplies it): names the spec and the records.
    name: str

    @abstractmethod
    def llm_spec(
        self,
        *,
        labels: Sequence[str] | Mapping[int, str] | None = None,
        n_groups: int | None = None,
        language: str | None = None,
        instructions: str | None = None,
    ) -> TaskSpec:
        """The subset's :class:`TaskSpec`; ``ValueError`` for parameters the type cannot use.

        Called once per subset, before any call is made, so a bad label set or K fails early.
        """

    @abstractmethod
    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        """The prompt for one instance's stored ``content``; ``ValueError`` when malformed."""

    @abstractmethod
    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> Any:
        """The answer in the human answer shape from the reply's JSON object.

        Raises :class:`Reject` (``parse_error`` or ``invalid``) for a reply that is not one.
        """


def build_prompt(task: LLMTask, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
    """The prompt for one instance's ``content`` (the dict the study store holds)."""
    return task.llm_prompt(spec, content)
