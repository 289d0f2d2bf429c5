"""The field types a task type's own spec settings are built from, with the spec's messages.

Each type declares the keys it reads beyond the common ones (``size``, ``instructions``,
``annotators``, ``sampling``) as a pydantic model deriving from :class:`TypeSettings`, in its
own package (``hume_sync/task_types/<type>/settings.py``). The spec reads every registered
type's keys generically (:mod:`hume_sync.study.type_settings`), so a new setting never edits a
shared list. The annotated types here carry the checks the spec made by hand before, with the
same one-line messages ("must be an integer ≥ 2, got 1"), so that a setting moving into a type
changes no error a user sees. pydantic does the defaults and the plumbing; only the messages
are ours (its own name pydantic's types, not the spec's words).

This module imports pydantic: it is loaded only where a spec is read, never at registration (a
type's ``study_settings`` imports its model when first asked), so the CLI's start-up stays light.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict


class TypeSettings(BaseModel):
    """A type's settings: immutable, unknown keys refused (the spec names them first)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def spec_dict(self) -> dict[str, Any]:
        """The settings in the spec's canonical form (part of ``spec_hash``): what is set,
        JSON-shaped. A type whose canonical form leaves a value out overrides this."""
        return self.model_dump(mode="json", exclude_none=True)


def _count(minimum: int) -> Callable[[Any], int]:
    """An integer ≥ ``minimum``."""

    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise ValueError(f"must be an integer ≥ {minimum}, got {value!r}")
        return value

    return check


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _score_range(value: Any) -> tuple[float, float]:
    ok = (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
        and all(math.isfinite(x) for x in value)
        and value[0] < value[1]
    )
    if not ok:
        raise ValueError(f"must be [low, high] with low < high, got {value!r}")
    return (float(value[0]), float(value[1]))


def _label_set(value: Any) -> tuple[str, ...]:
    """At least two distinct label strings."""
    ok = isinstance(value, list | tuple) and len(value) >= 2
    if not ok or not all(isinstance(x, str) for x in value):
        raise ValueError("must be a list of at least two label strings")
    if len(set(value)) != len(value):
        raise ValueError("has duplicate labels")
    return tuple(value)


#: A count of at least one (items, bins, train examples per label).
Count = Annotated[int, BeforeValidator(_count(1))]
#: A count of at least two (groups K, candidates per query).
CountOfTwo = Annotated[int, BeforeValidator(_count(2))]
#: ``true`` or ``false``, nothing that merely reads as one.
Flag = Annotated[bool, BeforeValidator(_flag)]
#: ``[low, high]``, finite, ``low < high``.
ScoreRange = Annotated[tuple[float, float], BeforeValidator(_score_range)]
#: Two or more distinct label names, in the spec's order.
LabelSet = Annotated[tuple[str, ...], BeforeValidator(_label_set)]


__all__ = [
    "Count",
    "CountOfTwo",
    "Flag",
    "LabelSet",
    "ScoreRange",
    "TypeSettings",
]
