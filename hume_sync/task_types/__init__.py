"""The task-type registry: one class per type, found by the name a spec or the store uses.

Adding a type means writing its package (its class and mixins), its Label Studio interface and
its tests, and one :func:`register` line below; nothing else names a type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from hume_sync.study import kinds as study_kinds
from hume_sync.study.rules import StudyRules
from hume_sync.task_types.base import TaskType
from hume_sync.task_types.bitext_mining import BitextMining
from hume_sync.task_types.classification import Classification
from hume_sync.task_types.clustering import Clustering
from hume_sync.task_types.instruction_reranking import InstructionReranking
from hume_sync.task_types.multilabel_classification import MultilabelClassification
from hume_sync.task_types.pair_classification import PairClassification
from hume_sync.task_types.regression import Regression
from hume_sync.task_types.reranking import Reranking
from hume_sync.task_types.retrieval import Retrieval
from hume_sync.task_types.sts import STS
from hume_sync.task_types.summarization import Summarization
from ml_backend.llm.task import LLMTask
from ml_backend.model_procedure import ModelProcedure
from ml_backend.reveal import RevealedInterface
from scoring.rules import ScoringRules

#: The concerns every registered type implements, one mixin each (see ``base``).
CONCERNS: tuple[type, ...] = (StudyRules, RevealedInterface, ModelProcedure, LLMTask, ScoringRules)

if TYPE_CHECKING:

    class RegisteredType(
        StudyRules, RevealedInterface, ModelProcedure, LLMTask, ScoringRules, TaskType
    ):
        """What the registry hands out: a type with every concern of :data:`CONCERNS`. Only the
        type checker sees this class; :func:`register` checks the same at run time."""

else:
    RegisteredType = TaskType


def register(task_type: TaskType) -> RegisteredType:
    """Make ``task_type`` known under its name (and its mteb name); it must implement every
    concern of :data:`CONCERNS`, so that callers may ask any of them of any type."""
    missing = [c.__name__ for c in CONCERNS if not isinstance(task_type, c)]
    if missing:
        raise TypeError(f"{task_type!r} does not implement {', '.join(missing)}")
    registered = cast("RegisteredType", task_type)
    # One store of the types, in study/ (the lowest layer that asks for them by name): the
    # registry adds the rest of the concerns' checks, not a second dictionary to keep in step.
    study_kinds.add(registered)
    return registered


def unregister(name: str) -> None:
    """Forget the type called ``name`` (tests that register a type of their own)."""
    study_kinds.remove(name)


def get(name: str) -> RegisteredType:
    """The task type called ``name``; a one-line error naming the known ones otherwise."""
    return cast("RegisteredType", study_kinds.get(name))


def of_subset(subset: Any) -> RegisteredType:
    """The type of a stored subset, configured for it (:meth:`TaskType.for_subset`): what
    scores it and names its main score."""
    return get(subset.task_type).for_subset(subset.config or {})


def names() -> tuple[str, ...]:
    """Every registered type's name, in registration order (the order reports list them)."""
    return study_kinds.names()


def by_mteb_type(mteb_type: str) -> RegisteredType | None:
    """The type whose mteb name (``TaskMetadata.type``) is ``mteb_type``, if any."""
    types = cast("tuple[RegisteredType, ...]", study_kinds.known())
    return next((t for t in types if t.mteb_type == mteb_type), None)


register(Classification())
register(Clustering())
register(Reranking())
register(STS())
register(PairClassification())
register(BitextMining())
register(Retrieval())
register(MultilabelClassification())
register(Summarization())
register(Regression())
register(InstructionReranking())

__all__ = [
    "CONCERNS",
    "RegisteredType",
    "TaskType",
    "by_mteb_type",
    "get",
    "names",
    "of_subset",
    "register",
]
