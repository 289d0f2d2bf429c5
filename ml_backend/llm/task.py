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

    Args:
        status: ``"parse_error"`` or ``"invalid"``, the record's status.
        error: what is wrong with the reply, one line for the record.
    """

    def __init__(self, status: ParseStatus, error: str) -> None:
        """Keep the status and the error for the record."""
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
        """Build the subset's :class:`TaskSpec`, refusing parameters the type does not read.

        Called once per subset, before any call is made, so a bad label set or K fails early.

        Args:
            language: the subset's language code, for the prompt.
            instructions: the study's instructions to annotators, shown to the model too.
            **params: the type's own parameters (see :attr:`llm_parameters`).

        Returns:
            The spec :meth:`llm_make_spec` builds from them.

        Raises:
            ValueError: for a parameter the type does not read, or a value it cannot use.
        """
        unread = sorted(set(params) - self.llm_parameters)
        if unread:
            raise ValueError(f"{self.name} LLM annotators take no {', '.join(unread)}")
        return self.llm_make_spec(language=language, instructions=instructions, **params)

    @abstractmethod
    def llm_make_spec(self, *args: Any, **params: Any) -> TaskSpec:
        """Build the :class:`TaskSpec` from parameters already limited to :attr:`llm_parameters`.

        Typed ``(*args, **params)`` so that each type declares its own keywords (mypy accepts
        any override of such a signature).

        Args:
            *args: none: everything is given by keyword.
            **params: ``language``, ``instructions`` and the type's own parameters.

        Returns:
            The subset's spec.

        Raises:
            ValueError: for a parameter value the type cannot use (a bad label set or K).
        """

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Read the type's parameters from a subset's stored config: what its annotators saw.

        The default reads nothing; a type with :attr:`llm_parameters` overrides it.

        Args:
            config: the subset's config as the study store keeps it.

        Returns:
            The parameters for :meth:`llm_spec`, by keyword.
        """
        return {}

    @abstractmethod
    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        """Build the prompt for one instance's stored ``content``.

        Args:
            spec: the subset's spec, from :meth:`llm_spec`.
            content: the instance's content as the study store holds it.

        Returns:
            The prompt the model is sent.

        Raises:
            ValueError: when ``content`` is malformed for the type.
        """

    @abstractmethod
    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> Any:
        """Read the answer, in the human answer shape, from the reply's JSON object.

        Args:
            spec: the subset's spec, from :meth:`llm_spec`.
            prompt: the prompt the reply answers (its allowed labels or ids).
            reply: the JSON object extracted from the model's reply.

        Returns:
            The answer, shaped as a human annotator's.

        Raises:
            Reject: ``parse_error`` or ``invalid`` for a reply that is not an answer.
        """


def build_prompt(task: LLMTask, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
    """Build the prompt for one instance with the task type's own :meth:`LLMTask.llm_prompt`.

    Args:
        task: the task type, as its LLM annotator.
        spec: the subset's spec.
        content: the instance's content (the dict the study store holds).

    Returns:
        The prompt the model is sent.
    """
    return task.llm_prompt(spec, content)
