"""The task types the study code may ask for, by name, without importing the registry.

``study/`` sits below ``hume_sync.task_types`` (the types import :class:`StudyRules` from here),
so it must not import the registry back. The registry hands its types over instead:
``hume_sync.task_types.register`` calls :func:`add` for each type it registers, and the spec,
the sources, the planning and the model view ask :func:`get` and :func:`names`. Anything that
runs a study imports the registry first (the CLI does, and ``tests/conftest.py``); where none
did, :func:`get` says so in one line instead of calling every type unknown.
"""

from __future__ import annotations

from hume_sync.errors import UnknownTaskTypeError
from hume_sync.study.rules import StudyRules

_KINDS: dict[str, StudyRules] = {}


def add(kind: StudyRules) -> None:
    """Make ``kind`` known to the study code under its name (the registry calls this)."""
    _KINDS[kind.name] = kind


def remove(name: str) -> None:
    """Forget the type called ``name`` (the registry's ``unregister``; tests' fake types)."""
    _KINDS.pop(name, None)


def get(name: str) -> StudyRules:
    """The study side of the type called ``name``; a one-line error otherwise."""
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        if not _KINDS:
            raise UnknownTaskTypeError(
                f"unknown task type {name!r}: no task types registered "
                "(import hume_sync.task_types first)"
            ) from None
        raise UnknownTaskTypeError(
            f"unknown task type {name!r}; known types: {', '.join(_KINDS)}"
        ) from None


def names() -> tuple[str, ...]:
    """Every known type's name, in registration order."""
    return tuple(_KINDS)


def known() -> tuple[StudyRules, ...]:
    """Every known type, in registration order (the registry's one store of its types)."""
    return tuple(_KINDS.values())
