"""The base of every task type: what a type is called, in the spec and in mteb.

A task type (classification, clustering, reranking, STS, ...) is one class that owns everything
type-specific, in the style of mteb's ``AbsTask``: how its spec entry is read and sampled
(``study``), its Label Studio interface (``interface``), how an embedding model answers it as mteb
does (``model``), how an LLM annotator is asked and parsed (``llm``), and how humans are scored
(``scoring``). Each concern is a mixin in the type's own package, implementing the protocol that
the lower layer which runs it defines (``scoring.rules``, ``ml_backend.model_procedure``,
``ml_backend.llm.task``, ``label_studio_configs``), so that no layer below ``hume_sync`` ever
imports ``hume_sync`` and nothing outside the registry branches on a type's name.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Self, TypeVar

from scoring.quality import ShownAnswer

_Shown = TypeVar("_Shown")
_Key = TypeVar("_Key", bound=Hashable)


class TaskType:
    """One task type. Subclasses set the names; their mixins supply the behaviour."""

    #: The type's name in a study spec and in the store (``task_type``).
    name: str = ""
    #: mteb's name of the type (``TaskMetadata.type``).
    mteb_type: str = ""
    #: The type's answers are relevance judgments of pooled documents, a product of their own:
    #: export writes them as TREC qrels and the report gathers them (retrieval sets it).
    exports_judgments: bool = False

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """An answer as the quality signals see it (:mod:`hume_sync.rules.effort_quality`).

        Args:
            answer: The stored plain answer.
            content: The instance's content, in the order shown to annotators.
            config: The subset's stored config.

        Returns:
            What straight-lining compares and, where the shown order is a seeded shuffle, the
            shown places the answer chose; None (this default) where the type has neither.
        """
        return None

    def quality_views(
        self,
        answers: Sequence[Any],
        instances: Sequence[str],
        contents: Mapping[str, Mapping[str, Any]],
        config: Mapping[str, Any],
    ) -> list[ShownAnswer | None]:
        """:meth:`quality_view` of each answer of one subset, in order.

        Why a batch: the effort section reads every answer of the study on each export and
        ``status``, and a type whose view reads the instance's shown items (reranking, bitext
        mining) need check an instance's content once, not once per answer
        (:func:`views_by_content`), and one whose view is the answer alone (classification,
        STS) builds one view per distinct answer (:func:`views_by_answer`). This default
        asks :meth:`quality_view` of each.

        Args:
            answers: The stored plain answers.
            instances: Each answer's instance (its ``hume_id``).
            contents: Each instance's content by ``hume_id``, in the order shown.
            config: The subset's stored config.

        Returns:
            One view (or None) per answer, as :meth:`quality_view` gives it.
        """
        return [
            self.quality_view(answer, contents[hume_id], config)
            for answer, hume_id in zip(answers, instances, strict=True)
        ]

    def for_subset(self, config: Mapping[str, Any]) -> Self:
        """The type as one subset is scored: ``self`` unless the subset's stored config
        changes how (retrieval: the main score its task names, recorded at ``init``).

        Why: most of what scoring and the report ask of a type holds for every subset of it,
        but a measure can be the subset's own (mteb names nDCG@20 for IFIR, recall@1 for the
        BRIGHT long tasks); asking the configured type keeps callers from reading configs.

        Args:
            config: The subset's stored config.

        Returns:
            The type, configured for the subset.
        """
        return self

    def __repr__(self) -> str:
        return f"<task type {self.name}>"


def views_by_content(
    answers: Sequence[Any],
    instances: Sequence[str],
    contents: Mapping[str, Mapping[str, Any]],
    shown: Callable[[Mapping[str, Any]], _Shown],
    view: Callable[[Any, _Shown], ShownAnswer | None],
) -> list[ShownAnswer | None]:
    """Views of answers whose instance's shown items are read once per instance.

    ``shown`` runs once per instance, however many annotators answered it, and its result is
    what ``view`` reads: the views of ``view(answer, shown(content))`` per answer, the checks
    of ``shown`` included.

    Args:
        answers: The stored plain answers.
        instances: Each answer's instance (its ``hume_id``).
        contents: Each instance's content by ``hume_id``.
        shown: What a view needs of the content (its shown ids, checked).
        view: The view of one answer given that.

    Returns:
        One view (or None) per answer.
    """
    seen: dict[str, _Shown] = {}
    out: list[ShownAnswer | None] = []
    for answer, hume_id in zip(answers, instances, strict=True):
        if hume_id not in seen:
            seen[hume_id] = shown(contents[hume_id])
        out.append(view(answer, seen[hume_id]))
    return out


def views_by_answer(
    answers: Sequence[Any],
    key: Callable[[Any], _Key],
    view: Callable[[_Key], ShownAnswer | None],
) -> list[ShownAnswer | None]:
    """Views of answers that depend on the answer alone, one view built per distinct key.

    A view is immutable, so the answers that read the same (a label, a level) share one; a
    subset has a handful of distinct answers and hundreds of answers.

    Args:
        answers: The stored plain answers.
        key: The answer as the view reads it (``str`` of a label, ``int`` of a level): its
            errors are raised for each answer as before.
        view: The view of a key.

    Returns:
        One view per answer.
    """
    keys = list(map(key, answers))
    made = {k: view(k) for k in dict.fromkeys(keys)}
    return [made[k] for k in keys]
