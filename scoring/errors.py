"""Typed errors of the scoring core.

All derive from :class:`ScoringError` (itself a ``ValueError``), so a caller such as the CLI can
turn any of them into a one-line message without catching unrelated bugs.
"""

from __future__ import annotations


class ScoringError(ValueError):
    """Base class: bad input to a scoring function, with a message that names what is wrong."""


class InvalidInputError(ScoringError):
    """Arrays of the wrong shape, length, type or range, or an unknown method name."""


class DegenerateInputError(ScoringError):
    """Input that is well-formed but on which the statistic is undefined (e.g. constant ratings)."""


class ResultFileError(ScoringError):
    """A malformed or unreadable MTEB result file; the message starts with its path."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")
