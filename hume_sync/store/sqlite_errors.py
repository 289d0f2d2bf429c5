"""SQLite failures of the study store, said in one line: what happened and what to do.

SQLite reports a store locked by another program, a full disk and a read-only folder as
``sqlite3.OperationalError`` with terse texts ("database is locked", "attempt to write a readonly
database"). The store turns each into a :class:`StoreUnavailableError` whose message names the
store file, what happened, and what the user can do; the transaction that failed is rolled back,
so the store is as it was before the command.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hume_sync.errors import StoreUnavailableError

#: How long a command waits for another program's write lock before giving up (seconds).
BUSY_TIMEOUT_S = 5.0

# SQLite primary result codes (https://www.sqlite.org/rescode.html).
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26


def code_of(exc: sqlite3.Error) -> int | None:
    """The primary SQLite result code of ``exc`` (None when it cannot be told)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(exc).lower()  # older SQLite bindings: fall back to the message
    for needle, value in (
        ("locked", SQLITE_BUSY),
        ("readonly", SQLITE_READONLY),
        ("read-only", SQLITE_READONLY),
        ("disk is full", SQLITE_FULL),
        ("unable to open", SQLITE_CANTOPEN),
        ("not a database", SQLITE_NOTADB),
        ("disk i/o", SQLITE_IOERR),
    ):
        if needle in text:
            return value
    return None


#: Failures caused by the machine, not by hume: these become one-line messages. Anything else
#: (a malformed statement, a missing table) is a bug and keeps its traceback.
ENVIRONMENTAL = frozenset(
    {
        SQLITE_BUSY,
        SQLITE_LOCKED,
        SQLITE_READONLY,
        SQLITE_IOERR,
        SQLITE_CORRUPT,
        SQLITE_FULL,
        SQLITE_CANTOPEN,
        SQLITE_NOTADB,
    }
)


def is_environmental(exc: BaseException) -> bool:
    """Whether ``exc`` is a SQLite failure of the machine (lock, disk, rights, damaged file)."""
    return isinstance(exc, sqlite3.Error) and code_of(exc) in ENVIRONMENTAL


def describe(exc: sqlite3.Error, path: str | Path | None) -> str:
    """One line for ``exc`` met on the store at ``path`` (None: the path is not known)."""
    where = str(path) if path is not None else "the study store"
    code = code_of(exc)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        return (
            f"{where} is locked by another program (still busy after {BUSY_TIMEOUT_S:g} s); "
            "wait until it has finished (another hume-sync command, the ML backend, or an open "
            "SQLite shell) and run the command again; nothing was changed"
        )
    if code == SQLITE_FULL:
        return (
            f"the disk holding {where} is full; free some space and run the command again; "
            "nothing was changed"
        )
    if code == SQLITE_READONLY:
        return (
            f"{where} cannot be written (the file or its folder is read-only); give your user "
            "write access to both, or run the command as the study's owner; nothing was changed"
        )
    if code == SQLITE_CANTOPEN:
        return (
            f"{where} cannot be opened or created (its folder is missing or not writable); "
            "check the folder and its permissions"
        )
    if code in (SQLITE_NOTADB, SQLITE_CORRUPT):
        return f"{where} is not a study store, or it is damaged ({exc})"
    if code == SQLITE_IOERR:
        return (
            f"reading or writing {where} failed with a disk error ({exc}); check the disk and "
            "run the command again; nothing was changed"
        )
    return f"{where}: SQLite error ({exc})"


def unavailable(exc: sqlite3.Error, path: str | Path | None) -> StoreUnavailableError:
    return StoreUnavailableError(describe(exc, path))
