"""The task-type registry: one class per type, found by the name a spec or the store uses.

Adding a type means writing its package (its class and mixins), its Label Studio interface and
its tests, and one :func:`register` line below; nothing else names a type.
"""

from __future__ import annotations

from hume_sync.errors import UnknownTaskTypeError
from hume_sync.task_types.base import TaskType
from hume_sync.task_types.classification import Classification
from hume_sync.task_types.clustering import Clustering
from hume_sync.task_types.pair_classification import PairClassification
from hume_sync.task_types.reranking import Reranking
from hume_sync.task_types.sts import STS

_REGISTRY: dict[str, TaskType] = {}


def register(task_type: TaskType) -> TaskType:
    """Make ``task_type`` known under its name (and its mteb name)."""
    _REGISTRY[task_type.name] = task_type
    return task_type


def get(name: str) -> TaskType:
    """The task type called ``name``; a one-line error naming the known ones otherwise."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownTaskTypeError(
            f"unknown task type {name!r}; known types: {', '.join(_REGISTRY)}"
        ) from None


def names() -> tuple[str, ...]:
    """Every registered type's name, in registration order (the order reports list them)."""
    return tuple(_REGISTRY)


def by_mteb_type(mteb_type: str) -> TaskType | None:
    """The type whose mteb name (``TaskMetadata.type``) is ``mteb_type``, if any."""
    return next((t for t in _REGISTRY.values() if t.mteb_type == mteb_type), None)


register(Classification())
register(Clustering())
register(Reranking())
register(STS())
register(PairClassification())

__all__ = ["TaskType", "by_mteb_type", "get", "names", "register"]
