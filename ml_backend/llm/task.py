"""The protocol of a task type's LLM annotator: :class:`LLMTask` (the ``llm_*`` methods).

A type says how its subset parameters are checked (``llm_spec``), what the model is shown for
one instance (``llm_prompt``) and how a reply's JSON object becomes an answer in the exact shape
human annotations take (``llm_answer``). The plumbing every type shares (calls, cache, reminder,
JSON extraction, records) stays in :mod:`ml_backend.llm.annotate` and friends, so nothing in
this package branches on a type's name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
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

    #: The subset parameters this type's prompts read beyond ``language`` and ``instructions``
    #: (e.g. ``labels`` for classification, ``n_groups`` for clustering). Each type names its
    #: own, so a type with a new parameter edits no shared signature, and a parameter a type
    #: does not read is refused rather than silently dropped.
    llm_parameters: frozenset[str] = frozenset()

    def llm_spec(
        self,
        *,
        language: str | None = None,
        instructions: str | None = None,
        **params: Any,
    ) -> TaskSpec:
        """The subset's :class:`TaskSpec`; ``ValueError`` for parameters the type cannot use.

        Called once per subset, before any call is made, so a bad label set or K fails early.
        """
        unread = sorted(set(params) - self.llm_parameters)
        if unread:
            raise ValueError(f"{self.name} LLM annotators take no {', '.join(unread)}")
        return self.llm_make_spec(language=language, instructions=instructions, **params)

    @abstractmethod
    def llm_make_spec(self, *args: Any, **params: Any) -> TaskSpec:
        """The :class:`TaskSpec` from ``language``, ``instructions`` and parameters already
        limited to :attr:`llm_parameters`, all given by keyword.

        Typed ``(*args, **params)`` so that each type declares its own keywords (mypy accepts
        any override of such a signature).
        """

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The type's parameters from a subset's stored config: what its annotators were shown.

        The default reads nothing; a type with :attr:`llm_parameters` overrides it.
        """
        return {}

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
