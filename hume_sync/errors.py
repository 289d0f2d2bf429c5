"""Every error hume_sync reports to a user, in one place, under one root.

:class:`~scoring.errors.HumeError` (defined in the leaf package ``scoring`` so that every package
can derive from it) is the root of every error whose message is fit to show as is: the CLI turns
any of them into one line on stderr and a non-zero exit, and anything else is a bug. The classes
here are hume_sync's; ``scoring``, ``label_studio_configs`` and ``ml_backend`` derive theirs from
the same root.

Each class has one hume parent and the builtin that says what kind of fault it is: ``ValueError``
for input that is wrong (a spec, a time stamp, an email), ``RuntimeError`` for a state that
refuses the step (a study still open, a project deleted in Label Studio). Only the store's own
refusals are :class:`StoreError`: catching one must not catch a bad email.
"""

from __future__ import annotations

from pathlib import Path

from scoring.errors import HumeError

__all__ = [
    "AnnotatorError",
    "CliError",
    "ConnectionNotConfiguredError",
    "HumeError",
    "LabelStudioAuthError",
    "LabelStudioError",
    "LabelStudioNotFoundError",
    "LabelStudioRequestError",
    "LabelStudioServerError",
    "LabelStudioTimeoutError",
    "LabelStudioURLError",
    "LabelStudioUnreachableError",
    "LateAnswerError",
    "ModelViewError",
    "PortInUseError",
    "PredictCommandError",
    "RevealError",
    "SamplingError",
    "ServerError",
    "ServerRegistryError",
    "ServerStartError",
    "SetupError",
    "SourceError",
    "SpecError",
    "StoreError",
    "StoreUnavailableError",
    "StudyBusyError",
    "UnknownTaskTypeError",
]


class CliError(HumeError):
    """An error with a message fit to show the user as is."""


class SpecError(HumeError, ValueError):
    """An invalid study spec; the message is one line naming file, task and field."""

    def __init__(
        self, file: str | Path, reason: str, *, task: str | None = None, field: str | None = None
    ) -> None:
        self.file = str(file)
        self.task = task
        self.field = field
        self.reason = reason
        where = [self.file]
        if task is not None:
            where.append(f"task {task!r}")
        if field is not None:
            where.append(field)
        super().__init__(": ".join([*where, reason]))


class SourceError(HumeError, ValueError):
    """Unreadable or malformed source data; the message names the file (and line) at fault."""

    def __init__(self, where: str | Path, reason: str, *, line: int | None = None) -> None:
        self.where = str(where)
        self.line = line
        self.reason = reason
        loc = f"{self.where}:{line}" if line is not None else self.where
        super().__init__(f"{loc}: {reason}")


class SamplingError(HumeError, ValueError):
    """The records cannot satisfy the requested design (e.g. too few labels for K clusters)."""


class StoreError(HumeError, ValueError):
    """A refused store operation (conflicting re-init, unknown ids, sealed prediction...)."""


class ModelViewError(HumeError, ValueError):
    """The stored subset cannot be given in mteb's order and ids (unknown source order, item ids
    that disagree with their source map, an answer naming an item the subset lacks).

    Not a :class:`StoreError`: the store accepted these rows; it is the view models run on
    (:mod:`hume_sync.study.model_view`) that cannot be built from them."""


class StoreUnavailableError(HumeError, RuntimeError):
    """The store could not be read or written for a reason outside hume (lock, disk, rights)."""


class StudyBusyError(HumeError, RuntimeError):
    """Another hume-sync command holds the study's lock (or the lock cannot be taken at all)."""


class LateAnswerError(HumeError, ValueError):
    """A time stamp that cannot be read (in the store's meta or an annotation)."""


class SetupError(HumeError, RuntimeError):
    """Setup cannot go on as asked (a project deleted in Label Studio, ...)."""


class RevealError(HumeError, RuntimeError):
    """Revealing or closing was refused (study still open, no projects...)."""


class PredictCommandError(HumeError, ValueError):
    """A prediction step refused for a reason the user can fix (shown as one line)."""


class AnnotatorError(HumeError, ValueError):
    """An annotator cannot be registered as asked (bad email or language, unsafe server...)."""


class ServerError(HumeError, RuntimeError):
    """Base class for problems with the embedded Label Studio server."""


class ServerStartError(ServerError):
    """The server could not be started or did not become healthy in time."""


class PortInUseError(ServerStartError):
    """The asked port is taken by another program (Label Studio would silently pick another)."""


class ConnectionNotConfiguredError(ServerError):
    """Neither the environment nor an embedded server says where Label Studio is."""


class ServerRegistryError(ServerError):
    """No token is known for a server, or the registry file is unreadable."""


class LabelStudioError(HumeError, RuntimeError):
    """A Label Studio call failed; the message is one line with the URL and the operation."""

    def __init__(
        self,
        message: str,
        *,
        url: str,
        operation: str,
        status_code: int | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(" ".join(message.split()))
        self.url = url
        self.operation = operation
        self.status_code = status_code
        self.attempts = attempts


class LabelStudioUnreachableError(LabelStudioError):
    """No HTTP answer: connection refused or dropped, DNS failure."""


class LabelStudioTimeoutError(LabelStudioUnreachableError):
    """The server did not answer within the timeout."""


class LabelStudioAuthError(LabelStudioError):
    """401/403: the API token was rejected or lacks access."""


class LabelStudioNotFoundError(LabelStudioError):
    """404: the project, task or endpoint does not exist (or is Enterprise-only)."""


class LabelStudioRequestError(LabelStudioError):
    """Another 4xx: the server refused the request as sent (e.g. an invalid labeling config)."""


class LabelStudioServerError(LabelStudioError):
    """5xx: the server failed (after the retries allowed for the call)."""


class UnknownTaskTypeError(HumeError, LookupError):
    """A task type no registered class answers to (``hume_sync.task_types``)."""


class LabelStudioURLError(HumeError, ValueError):
    """A Label Studio URL hume will not use (not http(s), or with a password in it)."""
