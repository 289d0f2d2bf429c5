"""Spec settings a task type declares for itself (issue 23).

Every type sets ``StudyRules.study_settings`` to a pydantic model with ``extra="forbid"``
(a :class:`~hume_sync.study.settings_fields.TypeSettings` in ``task_types/<type>/settings.py``):
each field is a key a task or a subset may set beyond the common ones (a subset's value wins over
its task's). The spec reads those keys generically through :func:`read_settings` and hands the
validated object on in ``SubsetSpec.settings`` and ``SamplingParams.settings``, so a new setting
edits only the type's own package. pydantic does the type checks and defaults; this module only
turns its error into the spec's one-line error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:  # pydantic loads only when a type has settings to read
    from hume_sync.study.settings_fields import TypeSettings


def settings_keys(model: type[TypeSettings] | None) -> frozenset[str]:
    """The spec keys a type's settings model reads (none without one)."""
    return frozenset(model.model_fields) if model is not None else frozenset()


def read_settings(
    model: type[TypeSettings] | None,
    merged: Mapping[str, Any],
    fail: Callable[[str, str], NoReturn],
) -> TypeSettings | None:
    """The type's settings from a subset's keys (task defaults applied), or None for a type
    without a settings model. ``fail(key, message)`` raises the spec's error for a bad value."""
    if model is None:
        return None
    from pydantic import ValidationError

    # ``null`` reads as not given: the setting keeps its default.
    given = {k: v for k, v in merged.items() if k in model.model_fields and v is not None}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "?"
        # A check of ours raises ValueError; pydantic prefixes its message with its class.
        fail(key, first["msg"].removeprefix("Value error, "))


__all__ = ["read_settings", "settings_keys"]
