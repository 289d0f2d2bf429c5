"""The root of hume's errors, and the typed errors of the scoring core.

:class:`HumeError` is the root of every error hume reports to a user as one line: the packages
above (``label_studio_configs``, ``ml_backend``, ``hume_sync``) derive theirs from it, so the CLI
catches exactly one type and anything else is a bug. It lives here, in the leaf package, because
every package may import ``scoring`` and ``scoring`` imports nothing of theirs.

The scoring core's own errors derive from :class:`ScoringError` (also a ``ValueError``).
"""

from __future__ import annotations

__all__ = [
    "DegenerateInputError",
    "HumeError",
    "InvalidInputError",
    "ResultFileError",
    "ScoringError",
]


class HumeError(Exception):
    """Root of every error whose message is fit to show as is (one line, no secret)."""


class ScoringError(HumeError, ValueError):
    """Base class: bad input to a scoring function, with a message that names what is wrong."""


class InvalidInputError(ScoringError):
    """Arrays of the wrong shape, length, type or range, or an unknown method name."""


class DegenerateInputError(ScoringError):
    """Input that is well-formed but on which the statistic is undefined (e.g. constant ratings)."""


class ResultFileError(ScoringError):
    """A malformed or unreadable MTEB result file; the message starts with its path."""

    def __init__(self, path: object, reason: str) -> None:
        """Keep the path and the reason apart, and join them in the message.

        Args:
            path: the result file.
            reason: what is wrong with it.
        """
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")
