"""Opening a study store: the SQLite connection, its one-transaction-per-write rule, migrations
to the current schema (:mod:`hume_sync.store.schema`) and the declared ``meta`` rows
(:mod:`hume_sync.store.meta`).

Every write runs in one transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), so a step interrupted
half-way leaves the store as it was; a store that is locked, read-only or on a full disk is a
one-line ``StoreUnavailableError`` (:mod:`hume_sync.store.sqlite_errors`).
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from hume_sync.errors import StoreError
from hume_sync.file_modes import private_dir, private_file
from hume_sync.store.meta import SCHEMA_VERSION_KEY, STUDY_UID, MetaValues, StudyMeta, checked
from hume_sync.store.records import now
from hume_sync.store.schema import MIGRATIONS, REBUILDS, SCHEMA_VERSION, run_step
from hume_sync.store.sqlite_errors import (
    BUSY_TIMEOUT_S,
    SQLITE_NOTADB,
    StoreUnavailableError,
    code_of,
    is_environmental,
    unavailable,
)

STORE_NAME = "study.sqlite"
SPEC_NAME = "study.yaml"

_UPSERT_META = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


class StoreConnection:
    """The connection under :class:`hume_sync.store.Store`: open, transactions, schema, meta."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Self:
        """Open (creating if needed) the store at ``path``: a ``.sqlite`` file or a study folder.

        A study folder and its ``study.sqlite`` are made (or tightened to) 0700 and 0600; a store
        that is locked, read-only or on a full disk is a one-line ``StoreUnavailableError``.
        """
        path = Path(path)
        if path.is_dir() or not path.suffix:  # a study folder, existing or not yet
            path = path / STORE_NAME
        try:
            if path.name == STORE_NAME:  # gold and sealed answers: the owner's eyes only
                private_dir(path.parent)
                private_file(path, create=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailableError(
                f"{path}: cannot create the study folder or store ({exc.strerror or exc}); "
                "check the folder and its permissions"
            ) from None
        conn = None
        try:
            conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
            conn.execute("PRAGMA foreign_keys = ON")
            store = cls(conn, path)
            store._migrate()
        except (sqlite3.DatabaseError, StoreError, StoreUnavailableError) as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, StoreError | StoreUnavailableError):  # a migration's own
                raise
            if is_environmental(exc) and code_of(exc) != SQLITE_NOTADB:
                raise unavailable(exc, path) from None  # locked, read-only...: not "broken"
            raise StoreError(f"{path}: not a study store ({exc})") from None
        return store

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: everything inside commits together or not at all."""
        if self._conn.in_transaction:
            raise StoreError("nested store transactions are not supported")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:  # SQLite may have rolled back by itself
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            if not is_environmental(exc):
                raise
            raise unavailable(exc, self.path) from None  # locked, disk full, read-only

    @property
    def total_changes(self) -> int:
        """Rows changed through this connection (lets tests prove a re-run wrote nothing)."""
        return self._conn.total_changes

    # ---- schema

    @property
    def schema_version(self) -> int:
        row = self._conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _migrate(self) -> None:
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema v{current} is newer than this hume_sync "
                f"(v{SCHEMA_VERSION}); upgrade hume"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            rebuild = version in REBUILDS
            if rebuild:  # a no-op inside a transaction, so set before it begins
                self._conn.execute("PRAGMA foreign_keys = OFF")
            try:
                with self.transaction() as conn:
                    try:
                        for step in MIGRATIONS[version]:
                            run_step(conn, step)
                    except StoreError as exc:
                        msg = f"{self.path}: migration to schema v{version}: {exc}"
                        raise StoreError(msg) from None
                    if rebuild and conn.execute("PRAGMA foreign_key_check").fetchone():
                        raise StoreError(
                            f"{self.path}: migration to schema v{version} would break "
                            "references between tables; the store was left as it was"
                        )
                    conn.execute(
                        "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                        (version, now()),
                    )
                    conn.execute(_UPSERT_META, (SCHEMA_VERSION_KEY, str(version)))
            finally:
                if rebuild:
                    self._conn.execute("PRAGMA foreign_keys = ON")

    # ---- meta (keys declared in hume_sync.store.meta)

    def meta(self) -> MetaValues:
        """The ``meta`` rows as text; looking up an undeclared key raises."""
        return MetaValues(dict(self._conn.execute("SELECT key, value FROM meta").fetchall()))

    def study_meta(self) -> StudyMeta:
        """Every declared ``meta`` value, typed (the reader to prefer over :meth:`meta`)."""
        return StudyMeta.from_rows(self.meta())

    def set_meta(self, values: Mapping[str, str]) -> int:
        """Upsert ``meta`` rows in one transaction; returns how many changed (0: no write).

        Every key must be declared in :data:`hume_sync.store.meta.META_KEYS` and every value of
        its type; otherwise nothing is written."""
        wanted = {k: checked(k, v) for k, v in values.items()}
        current = self.meta()
        changed = {k: v for k, v in wanted.items() if current.get(k) != v}
        if changed:
            with self.transaction() as conn:
                conn.executemany(_UPSERT_META, changed.items())
        return len(changed)

    def study_uid(self) -> str:
        """A random id of this study, made once: it marks the study's projects in Label Studio."""
        uid = self.meta().get(STUDY_UID)
        if uid is None:
            uid = secrets.token_hex(8)
            self.set_meta({STUDY_UID: uid})
        return uid

    @property
    def id_scheme(self) -> str:
        """How item and candidate ids are made in this store (``sampling.ID_SCHEMES``)."""
        return self.study_meta().id_scheme
