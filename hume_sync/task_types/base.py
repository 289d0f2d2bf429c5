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

from collections.abc import Mapping
from typing import Any, Self

from scoring.quality import ShownAnswer


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
