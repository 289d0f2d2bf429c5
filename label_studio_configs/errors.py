"""Typed errors of the labeling configs, so that callers can tell bad input from bugs.

All are ValueErrors: each one means that a value handed in (a result, an answer, task content,
a label set) does not fit, and the message names what does not fit.
"""

from __future__ import annotations

from scoring.errors import HumeError

__all__ = [
    "ConfigError",
    "InvalidAnswerError",
    "InvalidContentError",
    "InvalidResultError",
]


class ConfigError(HumeError, ValueError):
    """Base class: a value does not fit a HUME labeling config."""


class InvalidResultError(ConfigError):
    """A Label Studio result (annotation or prediction) does not fit the task's config.

    Label Studio stores results without checking them against the config (unknown choices and
    wrong control names are kept silently), so every result is checked here before it is used.
    """


class InvalidAnswerError(ConfigError):
    """An answer handed to `answer_to_result` does not fit the task (label set, items, scale)."""


class InvalidContentError(ConfigError):
    """Instance content or a config parameter (labels, group count, language) is malformed."""
