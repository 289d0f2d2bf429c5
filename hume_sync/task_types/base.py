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


class TaskType:
    """One task type. Subclasses set the names; their mixins supply the behaviour."""

    #: The type's name in a study spec and in the store (``task_type``).
    name: str = ""
    #: mteb's name of the type (``TaskMetadata.type``).
    mteb_type: str = ""

    def __repr__(self) -> str:
        return f"<task type {self.name}>"
