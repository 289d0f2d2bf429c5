"""The study store: one SQLite file (``study.sqlite``) beside ``study.yaml``.

It holds what the study sampled (subsets, instances with their gold, the classification train
pools), the Label Studio ids they were given, model/LLM predictions and the annotations pulled
from Label Studio. Design rules:

- every write runs in one transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), so a step interrupted
  half-way leaves the store as it was;
- rows are keyed by natural keys (``hume_id = <task>/<subset>/<source id>``, ``(slot, LS
  annotation id)``, ``(hume_id, model_version)``) and upserted, so re-running a step writes
  nothing new;
- ``hume_id`` never leaves hume: Label Studio tasks carry the instance's ``hume_ref`` (a random
  token drawn once per instance), and clustering items / reranking candidates are shown under
  opaque ids (their presentation position); ``instance_items`` maps them back to the source;
- order is data: every instance, item and train item keeps its ``source_position``, so models
  run in the order mteb sees the source (:mod:`hume_sync.study.model_view`), whatever the
  presentation order (``sample_order``, a seeded shuffle) shown to annotators;
- re-initialising with a different spec or changed data is refused unless forced;
- gold is only reachable through :func:`gold`; :meth:`Store.instances` never selects it, so code
  that builds Label Studio tasks cannot leak it by accident;
- a ``schema_version`` table drives migrations (``MIGRATIONS``).

Schema (version 1, 2: source order and opaque ids, 3: annotators and their own projects and
tasks, 4: any registered task type, 5: sealing commitments)::

    schema_version(version PK, applied_at)
    meta(key PK, value)    -- schema_version, study_name, seed, spec_hash, spec, created_at,
                           -- id_scheme ("source" in stores migrated from version 1)
    subsets(subset_key PK "<task>/<subset>", task_name, hf_subset, task_type, language,
            config JSON, samples_per_label, overlap, position, ls_project_id UNIQUE)
    instances(hume_id PK, subset_key FK, source_id, sample_order, content JSON, gold JSON,
              ls_task_id UNIQUE, source_position, hume_ref UNIQUE)
    instance_items(hume_id FK, item_id, source_id, source_position; PK(hume_id, item_id))
    train_items(subset_key FK, source_id, text, label, source_position;
                PK(subset_key, source_id))
    predictions(hume_id FK, model_version, answer JSON, score, sealed, created_at;
                PK(hume_id, model_version))
    annotations(slot, ls_annotation_id; PK(slot, ls_annotation_id), hume_id FK, ls_task_id,
                annotator, answer JSON NULL, status valid|invalid|cancelled, error, lead_time,
                created_at, updated_at, deleted_at NULL)
    annotators(slot PK, email UNIQUE, languages JSON, ls_url UNIQUE, ls_user_id, added_at)
    ls_projects(subset_key FK, slot FK, ls_project_id, marker UNIQUE, created_at;
                PK(subset_key, slot), UNIQUE(slot, ls_project_id))
    ls_tasks(hume_id FK, slot FK, ls_task_id; PK(hume_id, slot), UNIQUE(slot, ls_task_id))
    commitments(seq PK AUTOINCREMENT, model_version, sha256, recorded_at, record JSON)

Version 3 gives every annotator a *slot*: their own Label Studio server (``ls_url``), on which
each of their subsets has its own project. Label Studio ids are only unique per server, so
projects, tasks and annotations are keyed by slot. Annotations pulled before version 3 keep
slot 0; the version-1 columns ``subsets.ls_project_id`` and ``instances.ls_task_id`` are no
longer read.

Version 4 drops version 1's list of task types (a CHECK on ``subsets.task_type``): the store keeps
a type's name as text and never judges it, so a newly registered type needs no store change.

Version 5 adds ``commitments``: an append-only history of each model's and LLM's sealing
commitment (:mod:`hume_sync.sealing`), one row each time ``predict`` finds that model's sealed
answers changed, with when. ``record`` holds what the commitment covers besides the answers
(scheme, study id, model revision, prompt) and a short digest per answer, so that ``verify`` can
name the answers that changed. A store of version 4 gains the empty table and opens as before.
"""

from __future__ import annotations

import json
import math
import secrets
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from hume_sync.errors import StoreError
from hume_sync.file_modes import private_dir, private_file
from hume_sync.store_errors import (
    BUSY_TIMEOUT_S,
    SQLITE_NOTADB,
    StoreUnavailableError,
    code_of,
    is_environmental,
    unavailable,
)
from hume_sync.study.records import TextItem

STORE_NAME = "study.sqlite"
SPEC_NAME = "study.yaml"
SCHEMA_VERSION = 6
ANNOTATION_STATUSES: tuple[str, ...] = ("valid", "invalid", "cancelled")

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
        """CREATE TABLE subsets (
            subset_key TEXT PRIMARY KEY,
            task_name TEXT NOT NULL,
            hf_subset TEXT NOT NULL,
            task_type TEXT NOT NULL
                CHECK (task_type IN ('classification', 'clustering', 'reranking', 'sts')),
            language TEXT NOT NULL,
            config TEXT NOT NULL,
            samples_per_label INTEGER,
            overlap INTEGER NOT NULL CHECK (overlap >= 1),
            position INTEGER NOT NULL,
            ls_project_id INTEGER UNIQUE,
            UNIQUE (task_name, hf_subset)
        )""",
        """CREATE TABLE instances (
            hume_id TEXT PRIMARY KEY,
            subset_key TEXT NOT NULL REFERENCES subsets (subset_key),
            source_id TEXT NOT NULL,
            sample_order INTEGER NOT NULL,
            content TEXT NOT NULL,
            gold TEXT NOT NULL,
            ls_task_id INTEGER UNIQUE,
            UNIQUE (subset_key, source_id)
        )""",
        """CREATE INDEX instances_by_subset ON instances (subset_key, sample_order)""",
        """CREATE TABLE train_items (
            subset_key TEXT NOT NULL REFERENCES subsets (subset_key),
            source_id TEXT NOT NULL,
            text TEXT NOT NULL,
            label TEXT NOT NULL,
            PRIMARY KEY (subset_key, source_id)
        )""",
        """CREATE TABLE predictions (
            hume_id TEXT NOT NULL REFERENCES instances (hume_id),
            model_version TEXT NOT NULL,
            answer TEXT NOT NULL,
            score REAL,
            sealed INTEGER NOT NULL DEFAULT 1 CHECK (sealed IN (0, 1)),
            created_at TEXT NOT NULL,
            PRIMARY KEY (hume_id, model_version)
        )""",
        """CREATE TABLE annotations (
            ls_annotation_id INTEGER PRIMARY KEY,
            hume_id TEXT NOT NULL REFERENCES instances (hume_id),
            ls_task_id INTEGER NOT NULL,
            annotator TEXT NOT NULL,
            answer TEXT,
            status TEXT NOT NULL CHECK (status IN ('valid', 'invalid', 'cancelled')),
            error TEXT,
            lead_time REAL,
            created_at TEXT,
            updated_at TEXT,
            deleted_at TEXT
        )""",
        """CREATE INDEX annotations_by_instance ON annotations (hume_id)""",
    ),
    # Order is data, and nothing shown in Label Studio encodes gold. Rows of a version-1 store
    # keep the ids their Label Studio tasks already show (hume_ref = hume_id, items named by
    # their source ids: id_scheme "source"); their source positions are unknown (NULL) until
    # `init` runs again and records them.
    2: (
        """ALTER TABLE instances ADD COLUMN source_position INTEGER""",
        """ALTER TABLE instances ADD COLUMN hume_ref TEXT""",
        """UPDATE instances SET hume_ref = hume_id""",
        """CREATE UNIQUE INDEX instances_by_ref ON instances (hume_ref)""",
        """ALTER TABLE train_items ADD COLUMN source_position INTEGER""",
        """CREATE TABLE instance_items (
            hume_id TEXT NOT NULL REFERENCES instances (hume_id),
            item_id TEXT NOT NULL,
            source_id TEXT NOT NULL,
            source_position INTEGER,
            PRIMARY KEY (hume_id, item_id),
            UNIQUE (hume_id, source_id)
        )""",
        """INSERT INTO instance_items (hume_id, item_id, source_id, source_position)
            SELECT i.hume_id, json_extract(j.value, '$.id'), json_extract(j.value, '$.id'), NULL
            FROM instances i, json_each(i.content, '$.items') j
            UNION ALL
            SELECT i.hume_id, json_extract(j.value, '$.id'), json_extract(j.value, '$.id'), NULL
            FROM instances i, json_each(i.content, '$.candidates') j""",
        """INSERT INTO meta (key, value) SELECT 'id_scheme', 'source'
            WHERE EXISTS (SELECT 1 FROM instances)""",
    ),
    3: (
        """CREATE TABLE annotators (
            slot INTEGER PRIMARY KEY CHECK (slot >= 1),
            email TEXT NOT NULL UNIQUE,
            languages TEXT NOT NULL,
            ls_url TEXT NOT NULL UNIQUE,
            ls_user_id INTEGER,
            added_at TEXT NOT NULL
        )""",
        """CREATE TABLE ls_projects (
            subset_key TEXT NOT NULL REFERENCES subsets (subset_key),
            slot INTEGER NOT NULL REFERENCES annotators (slot),
            ls_project_id INTEGER NOT NULL,
            marker TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            PRIMARY KEY (subset_key, slot),
            UNIQUE (slot, ls_project_id)
        )""",
        """CREATE TABLE ls_tasks (
            hume_id TEXT NOT NULL REFERENCES instances (hume_id),
            slot INTEGER NOT NULL REFERENCES annotators (slot),
            ls_task_id INTEGER NOT NULL,
            PRIMARY KEY (hume_id, slot),
            UNIQUE (slot, ls_task_id)
        )""",
        """CREATE TABLE annotations_v3 (
            slot INTEGER NOT NULL DEFAULT 0,
            ls_annotation_id INTEGER NOT NULL,
            hume_id TEXT NOT NULL REFERENCES instances (hume_id),
            ls_task_id INTEGER NOT NULL,
            annotator TEXT NOT NULL,
            answer TEXT,
            status TEXT NOT NULL CHECK (status IN ('valid', 'invalid', 'cancelled')),
            error TEXT,
            lead_time REAL,
            created_at TEXT,
            updated_at TEXT,
            deleted_at TEXT,
            PRIMARY KEY (slot, ls_annotation_id)
        )""",
        """INSERT INTO annotations_v3 (slot, ls_annotation_id, hume_id, ls_task_id, annotator,
            answer, status, error, lead_time, created_at, updated_at, deleted_at)
            SELECT 0, ls_annotation_id, hume_id, ls_task_id, annotator, answer, status, error,
            lead_time, created_at, updated_at, deleted_at FROM annotations""",
        """DROP TABLE annotations""",
        """ALTER TABLE annotations_v3 RENAME TO annotations""",
        """CREATE INDEX annotations_by_instance ON annotations (hume_id)""",
    ),
    # Task types are registered, not listed: version 1's CHECK on subsets.task_type named the
    # four types of the day, so a store refused any type registered later. SQLite cannot drop a
    # constraint, so the table is rebuilt (SQLite's own recipe: foreign keys off, new table,
    # copy, drop, rename, foreign_key_check; see _REBUILDS). Rows and references are unchanged.
    4: (
        """CREATE TABLE subsets_v4 (
            subset_key TEXT PRIMARY KEY,
            task_name TEXT NOT NULL,
            hf_subset TEXT NOT NULL,
            task_type TEXT NOT NULL,
            language TEXT NOT NULL,
            config TEXT NOT NULL,
            samples_per_label INTEGER,
            overlap INTEGER NOT NULL CHECK (overlap >= 1),
            position INTEGER NOT NULL,
            ls_project_id INTEGER UNIQUE,
            UNIQUE (task_name, hf_subset)
        )""",
        """INSERT INTO subsets_v4 (subset_key, task_name, hf_subset, task_type, language, config,
            samples_per_label, overlap, position, ls_project_id)
            SELECT subset_key, task_name, hf_subset, task_type, language, config,
            samples_per_label, overlap, position, ls_project_id FROM subsets""",
        """DROP TABLE subsets""",
        """ALTER TABLE subsets_v4 RENAME TO subsets""",
    ),
    # Sealing: each commitment ``predict`` recorded, in order, never updated (see module doc).
    5: (
        """CREATE TABLE commitments (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            model_version TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            record TEXT NOT NULL
        )""",
        """CREATE INDEX commitments_by_model ON commitments (model_version, seq)""",
    ),
    # People leave: a retired slot keeps its answers and projects; it gets no new seat
    # (hume_sync.commands.annotators_remove).
    6: ("""ALTER TABLE annotators ADD COLUMN retired_at TEXT""",),
}

#: Migrations that rebuild a table other tables reference: they run with foreign keys off (the
#: references must survive the table's drop and rename) and are checked before they commit.
_REBUILDS: frozenset[int] = frozenset({4})


# --------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class ItemRef:
    """A clustering item or reranking candidate: the id annotators, answers and gold use
    (``item_id``), the id it has in its source, and its position there (0-based; a candidate's
    position is within its query's candidate list)."""

    item_id: str
    source_id: str
    source_position: int | None


@dataclass(frozen=True)
class SubsetRow:
    key: str
    task_name: str
    hf_subset: str
    task_type: str
    language: str
    config: dict[str, Any]
    samples_per_label: int | None
    overlap: int


@dataclass(frozen=True)
class InstanceRow:
    """An instance as Label Studio task code may see it: no gold field at all.

    ``hume_ref`` is the only reference to it that may go into Label Studio; ``hume_id`` and
    ``source_id`` stay in hume (a source id can encode gold, or find it in a public dataset).
    """

    hume_id: str
    subset_key: str
    source_id: str
    sample_order: int
    content: dict[str, Any]
    hume_ref: str = ""
    source_position: int | None = None


@dataclass(frozen=True)
class AnnotatorRow:
    """A registered annotator: one slot, i.e. one Label Studio server of their own."""

    slot: int
    email: str
    languages: tuple[str, ...]
    ls_url: str
    ls_user_id: int | None
    added_at: str
    retired_at: str | None = None  # ``annotators remove``: their open seats went to others

    @property
    def key(self) -> str:
        """The anonymous key annotations and reports use (emails stay out of reports)."""
        return annotator_key(self.slot)


@dataclass(frozen=True)
class SlotProject:
    """The Label Studio project of one subset on one annotator's server."""

    subset_key: str
    slot: int
    ls_project_id: int
    marker: str
    created_at: str


@dataclass(frozen=True)
class AnnotationRecord:
    """One Label Studio annotation, already translated to a plain answer (None if unusable).

    ``slot`` says which annotator's server it came from: Label Studio ids are unique per server
    only, so an annotation is identified by ``(slot, ls_annotation_id)``.
    """

    ls_annotation_id: int
    hume_id: str
    ls_task_id: int
    annotator: str
    answer: Any = None
    status: str = "valid"
    error: str | None = None
    lead_time: float | None = None
    created_at: str | None = None
    updated_at: str | None = None
    slot: int = 0


@dataclass(frozen=True)
class AnnotationRow(AnnotationRecord):
    deleted_at: str | None = None


@dataclass(frozen=True)
class PredictionRecord:
    """A model or LLM answer for one instance; ``model_version`` e.g. ``emb:all-MiniLM-L6-v2``."""

    hume_id: str
    model_version: str
    answer: Any
    score: float | None = None
    sealed: bool = True
    created_at: str | None = None


@dataclass(frozen=True)
class CommitmentRow:
    """One recorded sealing commitment (:mod:`hume_sync.sealing` makes and reads them)."""

    seq: int
    model_version: str
    sha256: str
    recorded_at: str
    record: dict[str, Any]


@dataclass(frozen=True)
class AnnotationCounts:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0


class AnnotationUpsert(Protocol):
    """One batch of :meth:`Store.upsert_annotations` inside :meth:`Store.annotation_writes`."""

    def __call__(
        self,
        records: Iterable[AnnotationRecord],
        *,
        subset: str | None = None,
        scope: Mapping[int, Collection[int] | None] | None = None,
    ) -> AnnotationCounts: ...


@dataclass(frozen=True)
class PredictionCounts:
    added: int = 0
    replaced: int = 0
    unchanged: int = 0


@dataclass
class SubsetSummary:
    key: str
    task_type: str
    n_instances: int
    n_train: int
    report: dict[str, Any]
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0


# --------------------------------------------------------------------------------------------
# Helpers


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys, compact, UTF-8): equal values give equal bytes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def unknown_order_message(subset: str) -> str:
    """Why a store migrated from schema 1 cannot run models yet, and what to do."""
    return (
        f"the source order of subset {subset} is not recorded (a study store from before "
        "schema 2); run 'hume-sync init' on the study again to record it"
    )


#: The task-data key of tasks imported before schema 2 (``<task>/<subset>/<source id>``).
LEGACY_TASK_KEY = "hume_id"


def task_ref(data: Any) -> str | None:
    """The study reference in a Label Studio task's data: ``hume_ref``, or the ``hume_id`` of a
    task imported before schema 2 (a migrated store keeps that as the instance's ``hume_ref``)."""
    if not isinstance(data, Mapping):
        return None
    ref = data.get("hume_ref", data.get(LEGACY_TASK_KEY))
    return ref if isinstance(ref, str) else None


def new_ref() -> str:
    """A fresh ``hume_ref``: random, so it carries nothing about the instance or its source."""
    return secrets.token_hex(8)


#: The study's state lives in ``meta``: annotation is over once ``closed_at`` is set (``close``),
#: and predictions may be shown once the study is closed or ``revealed_at`` is set (``reveal``).
CLOSED_AT = "closed_at"
CLOSED_BY = "closed_by"
REVEALED_AT = "revealed_at"


def is_closed(store: Store) -> bool:
    """Whether annotation is over (``close`` ran, or ``reveal`` found every project finished)."""
    return CLOSED_AT in store.meta()


def predictions_visible(store: Store) -> bool:
    """Whether predictions may be shown: the study is closed or was revealed (``--force``)."""
    meta = store.meta()
    return CLOSED_AT in meta or REVEALED_AT in meta


def subset_key(task: str, subset: str) -> str:
    return f"{task}/{subset}"


def hume_id(task: str, subset: str, source_id: str) -> str:
    return f"{task}/{subset}/{source_id}"


def annotator_key(slot: int) -> str:
    return f"annotator-{slot}"


# --------------------------------------------------------------------------------------------
# Store


class Store:
    """A handle on one study store; use :meth:`open`. Also a context manager that closes it."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Store:
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
        except (sqlite3.DatabaseError, StoreUnavailableError) as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, StoreUnavailableError):  # raised by a migration's transaction
                raise
            if is_environmental(exc) and code_of(exc) != SQLITE_NOTADB:
                raise unavailable(exc, path) from None  # locked, read-only...: not "broken"
            raise StoreError(f"{path}: not a study store ({exc})") from None
        return store

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
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
            rebuild = version in _REBUILDS
            if rebuild:  # a no-op inside a transaction, so set before it begins
                self._conn.execute("PRAGMA foreign_keys = OFF")
            try:
                with self.transaction() as conn:
                    for statement in MIGRATIONS[version]:
                        conn.execute(statement)
                    if rebuild and conn.execute("PRAGMA foreign_key_check").fetchone():
                        raise StoreError(
                            f"{self.path}: migration to schema v{version} would break "
                            "references between tables; the store was left as it was"
                        )
                    conn.execute(
                        "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                        (version, _now()),
                    )
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(version),),
                    )
            finally:
                if rebuild:
                    self._conn.execute("PRAGMA foreign_keys = ON")

    # ---- readers

    def meta(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT key, value FROM meta").fetchall())

    _SUBSET_COLUMNS = (
        "SELECT subset_key, task_name, hf_subset, task_type, language, config, "
        "samples_per_label, overlap FROM subsets"
    )

    def subsets(self) -> list[SubsetRow]:
        rows = self._conn.execute(
            f"{self._SUBSET_COLUMNS} ORDER BY position, subset_key"
        ).fetchall()
        return [SubsetRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7]) for r in rows]

    def subset(self, key: str) -> SubsetRow:
        # One row, not the whole table: per-subset readers call this (a 260-subset study read
        # subset by subset decoded every subset 260 times).
        r = self._conn.execute(f"{self._SUBSET_COLUMNS} WHERE subset_key = ?", (key,)).fetchone()
        if r is None:
            raise StoreError(f"no subset {key!r} in {self.path}")
        return SubsetRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7])

    def instances(self, subset: str) -> list[InstanceRow]:
        """The subset's instances in presentation (sample) order, without gold."""
        self.subset(subset)
        rows = self._conn.execute(
            "SELECT hume_id, subset_key, source_id, sample_order, content, hume_ref, "
            "source_position FROM instances WHERE subset_key = ? ORDER BY sample_order",
            (subset,),
        ).fetchall()
        return [InstanceRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6]) for r in rows]

    def instance_count(self, subset: str) -> int:
        """How many instances the subset has (without reading them)."""
        self.subset(subset)
        row = self._conn.execute(
            "SELECT COUNT(*) FROM instances WHERE subset_key = ?", (subset,)
        ).fetchone()
        return int(row[0])

    def instance_for_task(self, slot: int, ls_task_id: int) -> InstanceRow | None:
        """The instance behind LS task ``ls_task_id`` on slot ``slot``'s server (None: not a
        task of the study): one indexed look-up, so a pull holds no per-study map in memory."""
        row = self._conn.execute(
            "SELECT i.hume_id, i.subset_key, i.source_id, i.sample_order, i.content, i.hume_ref, "
            "i.source_position FROM ls_tasks t JOIN instances i ON i.hume_id = t.hume_id "
            "WHERE t.slot = ? AND t.ls_task_id = ?",
            (int(slot), int(ls_task_id)),
        ).fetchone()
        if row is None:
            return None
        return InstanceRow(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], row[6])

    def instances_by_ref(self) -> dict[str, InstanceRow]:
        """Every instance of the study by its ``hume_ref`` (what Label Studio task data holds)."""
        return {i.hume_ref: i for s in self.subsets() for i in self.instances(s.key)}

    def item_refs(self, subset: str) -> dict[str, tuple[ItemRef, ...]]:
        """Per instance (hume_id) of the subset, its items or candidates in presentation order:
        the id shown and answered under, the source id and the source position."""
        self.subset(subset)
        rows = self._conn.execute(
            "SELECT t.hume_id, t.item_id, t.source_id, t.source_position, i.content "
            "FROM instance_items t JOIN instances i ON i.hume_id = t.hume_id "
            "WHERE i.subset_key = ?",
            (subset,),
        ).fetchall()
        refs: dict[str, dict[str, ItemRef]] = {}
        shown: dict[str, list[str]] = {}
        for hid, item_id, source_id, position, content in rows:
            refs.setdefault(hid, {})[item_id] = ItemRef(item_id, source_id, position)
            if hid not in shown:
                listed = json.loads(content)
                shown[hid] = [str(x["id"]) for x in listed.get("items") or listed["candidates"]]
        return {hid: tuple(refs[hid][i] for i in shown[hid]) for hid in refs}

    def train_items(self, subset: str) -> list[TextItem]:
        """The subset's train pool in its source's order (the order mteb undersamples from).

        Raises StoreError for a store migrated from schema 1 whose positions are not yet known.
        """
        rows = self._conn.execute(
            "SELECT source_id, text, label, source_position FROM train_items "
            "WHERE subset_key = ? ORDER BY source_position, rowid",
            (subset,),
        ).fetchall()
        if any(r[3] is None for r in rows):
            raise StoreError(unknown_order_message(subset))
        return [TextItem(id=r[0], text=r[1], label=r[2]) for r in rows]

    @property
    def id_scheme(self) -> str:
        """How item and candidate ids are made in this store (``sampling.ID_SCHEMES``)."""
        return self.meta().get("id_scheme", "opaque")

    def annotations(
        self, subset: str | None = None, *, include_deleted: bool = False
    ) -> list[AnnotationRow]:
        sql = (
            "SELECT a.ls_annotation_id, a.hume_id, a.ls_task_id, a.annotator, a.answer, a.status, "
            "a.error, a.lead_time, a.created_at, a.updated_at, a.slot, a.deleted_at "
            "FROM annotations a JOIN instances i ON i.hume_id = a.hume_id WHERE 1 = 1"
        )
        args: list[Any] = []
        if subset is not None:
            sql += " AND i.subset_key = ?"
            args.append(subset)
        if not include_deleted:
            sql += " AND a.deleted_at IS NULL"
        sql += " ORDER BY a.slot, a.ls_annotation_id"
        return [
            AnnotationRow(
                r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]), *r[5:]
            )
            for r in self._conn.execute(sql, args).fetchall()
        ]

    def predictions(
        self, subset: str | None = None, *, model_version: str | None = None
    ) -> list[PredictionRecord]:
        sql = (
            "SELECT p.hume_id, p.model_version, p.answer, p.score, p.sealed, p.created_at "
            "FROM predictions p JOIN instances i ON i.hume_id = p.hume_id WHERE 1 = 1"
        )
        args: list[Any] = []
        if subset is not None:
            sql += " AND i.subset_key = ?"
            args.append(subset)
        if model_version is not None:
            sql += " AND p.model_version = ?"
            args.append(model_version)
        sql += " ORDER BY p.model_version, i.subset_key, i.sample_order"
        return [
            PredictionRecord(r[0], r[1], json.loads(r[2]), r[3], bool(r[4]), r[5])
            for r in self._conn.execute(sql, args).fetchall()
        ]

    def annotation_times(self) -> list[str]:
        """Label Studio's ``created_at`` of every annotation the store has ever pulled, deleted
        ones included (they were given all the same): when annotation began, for sealing."""
        rows = self._conn.execute(
            "SELECT created_at FROM annotations WHERE created_at IS NOT NULL"
        ).fetchall()
        return [r[0] for r in rows]

    def annotation_count(self) -> int:
        """How many annotations were ever pulled (deleted ones included)."""
        return int(self._conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0])

    def commitments(self, model_version: str | None = None) -> list[CommitmentRow]:
        """Recorded sealing commitments, oldest first (of one model, or of every model)."""
        sql = "SELECT seq, model_version, sha256, recorded_at, record FROM commitments"
        args: tuple[Any, ...] = ()
        if model_version is not None:
            sql += " WHERE model_version = ?"
            args = (model_version,)
        rows = self._conn.execute(sql + " ORDER BY seq", args).fetchall()
        return [CommitmentRow(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    # ---- writers

    def add_commitment(
        self, model_version: str, sha256: str, record: Mapping[str, Any]
    ) -> CommitmentRow | None:
        """Append a commitment unless it equals the model's latest one (then None: no write)."""
        with self.transaction() as conn:
            last = conn.execute(
                "SELECT sha256 FROM commitments WHERE model_version = ? ORDER BY seq DESC LIMIT 1",
                (model_version,),
            ).fetchone()
            if last is not None and last[0] == sha256:
                return None
            cur = conn.execute(
                "INSERT INTO commitments (model_version, sha256, recorded_at, record) "
                "VALUES (?, ?, ?, ?)",
                (model_version, sha256, _now(), dumps(dict(record))),
            )
            seq = int(cur.lastrowid or 0)
        return self.commitments(model_version)[-1] if seq else None

    def set_meta(self, values: Mapping[str, str]) -> int:
        """Upsert ``meta`` rows in one transaction; returns how many changed (0: no write)."""
        current = self.meta()
        changed = {k: v for k, v in values.items() if current.get(k) != v}
        if changed:
            with self.transaction() as conn:
                for key, value in changed.items():
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES (?, ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (key, value),
                    )
        return len(changed)

    # ---- annotators, their projects and tasks (one Label Studio server per annotator)

    def annotators(self) -> list[AnnotatorRow]:
        rows = self._conn.execute(
            "SELECT slot, email, languages, ls_url, ls_user_id, added_at, retired_at "
            "FROM annotators ORDER BY slot"
        ).fetchall()
        return [
            AnnotatorRow(r[0], r[1], tuple(json.loads(r[2])), r[3], r[4], r[5], r[6]) for r in rows
        ]

    def annotator(self, slot: int) -> AnnotatorRow:
        for row in self.annotators():
            if row.slot == slot:
                return row
        raise StoreError(f"no annotator in slot {slot} in {self.path}")

    def add_annotator(
        self, email: str, languages: Sequence[str], ls_url: str, ls_user_id: int | None
    ) -> AnnotatorRow:
        """Register an annotator in the next free slot; the email and the server must be new."""
        with self.transaction() as conn:
            for column, value, what in (
                ("email", email, "annotator"),
                ("ls_url", ls_url, "Label Studio server"),
            ):
                row = conn.execute(
                    f"SELECT slot FROM annotators WHERE {column} = ?", (value,)
                ).fetchone()
                if row is not None:
                    raise StoreError(f"{what} {value} is already slot {row[0]}")
            slot = int(
                conn.execute("SELECT COALESCE(MAX(slot), 0) + 1 FROM annotators").fetchone()[0]
            )
            conn.execute(
                "INSERT INTO annotators (slot, email, languages, ls_url, ls_user_id, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (slot, email, dumps(list(languages)), ls_url, ls_user_id, _now()),
            )
        return self.annotator(slot)

    def set_annotator_languages(self, slot: int, languages: Sequence[str]) -> int:
        """Change the languages of a slot (projects already created stay); rows changed."""
        self.annotator(slot)
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE annotators SET languages = ? WHERE slot = ? AND languages IS NOT ?",
                (dumps(list(languages)), slot, dumps(list(languages))),
            )
        return cur.rowcount

    def retire_annotator(self, slot: int) -> int:
        """Mark a slot retired now (once: a retired slot keeps its first time); rows changed."""
        self.annotator(slot)
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE annotators SET retired_at = ? WHERE slot = ? AND retired_at IS NULL",
                (_now(), slot),
            )
        return cur.rowcount

    def slot_projects(self, subset: str | None = None) -> list[SlotProject]:
        sql = (
            "SELECT p.subset_key, p.slot, p.ls_project_id, p.marker, p.created_at "
            "FROM ls_projects p JOIN subsets s ON s.subset_key = p.subset_key"
        )
        args: tuple[Any, ...] = ()
        if subset is not None:
            sql += " WHERE p.subset_key = ?"
            args = (subset,)
        sql += " ORDER BY s.position, p.subset_key, p.slot"
        return [SlotProject(*r) for r in self._conn.execute(sql, args).fetchall()]

    def set_slot_project(self, subset: str, slot: int, project_id: int, marker: str) -> int:
        """Record the project of ``subset`` on slot ``slot``'s server; rows changed (0 or 1)."""
        self.subset(subset)
        self.annotator(slot)
        with self.transaction() as conn:
            old = conn.execute(
                "SELECT ls_project_id, marker FROM ls_projects WHERE subset_key = ? AND slot = ?",
                (subset, slot),
            ).fetchone()
            if old is not None and tuple(old) == (int(project_id), marker):
                return 0
            if old is not None:
                raise StoreError(
                    f"{subset} already has project {old[0]} on slot {slot}; "
                    "forget it first (setup --recreate-missing)"
                )
            try:
                conn.execute(
                    "INSERT INTO ls_projects (subset_key, slot, ls_project_id, marker, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (subset, slot, int(project_id), marker, _now()),
                )
            except sqlite3.IntegrityError:
                raise StoreError(
                    f"Label Studio project {project_id} on slot {slot} is already used by "
                    "another subset"
                ) from None
        return 1

    def forget_slot_project(self, subset: str, slot: int) -> int:
        """Drop the record of a project (and its tasks) that is gone from Label Studio.

        Annotations pulled from it stay in the store. Returns the number of task rows dropped.
        """
        with self.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM ls_tasks WHERE slot = ? AND hume_id IN "
                "(SELECT hume_id FROM instances WHERE subset_key = ?)",
                (slot, subset),
            )
            conn.execute(
                "DELETE FROM ls_projects WHERE subset_key = ? AND slot = ?", (subset, slot)
            )
        return cur.rowcount

    def slot_tasks(self, subset: str, slot: int) -> dict[str, int]:
        """hume_id → Label Studio task id of the subset's tasks on slot ``slot``'s server."""
        rows = self._conn.execute(
            "SELECT t.hume_id, t.ls_task_id FROM ls_tasks t JOIN instances i "
            "ON i.hume_id = t.hume_id WHERE i.subset_key = ? AND t.slot = ? "
            "ORDER BY i.sample_order",
            (subset, slot),
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def set_slot_tasks(self, subset: str, slot: int, task_ids: Mapping[str, int]) -> int:
        """Record the LS task of instances on slot ``slot``'s server; rows changed."""
        self.subset(subset)
        self.annotator(slot)
        with self.transaction() as conn:
            members = {
                r[0]
                for r in conn.execute(
                    "SELECT hume_id FROM instances WHERE subset_key = ?", (subset,)
                )
            }
            current = {
                r[0]: int(r[1])
                for r in conn.execute(
                    "SELECT t.hume_id, t.ls_task_id FROM ls_tasks t JOIN instances i "
                    "ON i.hume_id = t.hume_id WHERE i.subset_key = ? AND t.slot = ?",
                    (subset, slot),
                )
            }
            changes = []
            for hid, task_id in task_ids.items():
                if hid not in members:
                    raise StoreError(f"no instance {hid!r} in subset {subset!r}")
                if current.get(hid) != int(task_id):
                    changes.append((hid, slot, int(task_id)))
            owners = {
                int(r[0]): r[1]
                for r in conn.execute(
                    "SELECT ls_task_id, hume_id FROM ls_tasks WHERE slot = ?", (slot,)
                )
            }
            moving = {hid for hid, _, _ in changes}
            taken: set[int] = set()
            for _, _, task_id in changes:
                owner = owners.get(task_id)
                if task_id in taken or (owner is not None and owner not in moving):
                    raise StoreError(
                        f"LS task {task_id} on slot {slot} is already used by another instance"
                    )
                taken.add(task_id)
            # Instances that swap tasks must not collide half-way: clear, then write.
            conn.executemany(
                "DELETE FROM ls_tasks WHERE hume_id = ? AND slot = ?",
                ((hid, s) for hid, s, _ in changes if hid in current),
            )
            conn.executemany(
                "INSERT INTO ls_tasks (hume_id, slot, ls_task_id) VALUES (?, ?, ?)", changes
            )
        return len(changes)

    def study_uid(self) -> str:
        """A random id of this study, made once: it marks the study's projects in Label Studio."""
        uid = self.meta().get("study_uid")
        if uid is None:
            import secrets

            uid = secrets.token_hex(8)
            self.set_meta({"study_uid": uid})
        return uid

    def upsert_annotations(
        self,
        records: Iterable[AnnotationRecord],
        *,
        subset: str | None = None,
        scope: Mapping[int, Collection[int] | None] | None = None,
    ) -> AnnotationCounts:
        """Insert new annotations, update changed ones, and (with ``subset``) mark missing ones.

        With ``subset`` the batch is taken as the complete current state of that subset in Label
        Studio: stored annotations of the subset that are absent get ``deleted_at`` set (kept for
        the audit trail, hidden from readers). An annotation that reappears is restored.
        ``scope`` (slot → LS task ids, or ``None`` for every task recorded for the slot in
        ``ls_tasks``) narrows "complete" to the projects that were actually read: annotations
        of other slots, or of tasks no longer in a slot's project (a project deleted in Label
        Studio), are left as they are. One transaction; :meth:`annotation_writes` runs several
        batches in one.
        """
        with self.annotation_writes() as upsert:
            return upsert(records, subset=subset, scope=scope)

    @contextmanager
    def annotation_writes(self) -> Iterator[AnnotationUpsert]:
        """One transaction for several :meth:`upsert_annotations` batches (``pull``: every
        project of the study, each streamed in as Label Studio sends it, one commit at the end).

        Memory stays flat whatever the batch size: ``records`` may be a generator, and the keys
        seen and the scope live in temporary tables, not in Python.
        """
        with self.transaction() as conn:
            conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS hume_seen (slot INTEGER NOT NULL, "
                "ls_annotation_id INTEGER NOT NULL, PRIMARY KEY (slot, ls_annotation_id)) "
                "WITHOUT ROWID"
            )
            conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS hume_scope (slot INTEGER NOT NULL, "
                "ls_task_id INTEGER NOT NULL, PRIMARY KEY (slot, ls_task_id)) WITHOUT ROWID"
            )

            def upsert(
                records: Iterable[AnnotationRecord],
                *,
                subset: str | None = None,
                scope: Mapping[int, Collection[int] | None] | None = None,
            ) -> AnnotationCounts:
                return self._upsert_annotations(conn, records, subset, scope)

            yield upsert

    def _upsert_annotations(
        self,
        conn: sqlite3.Connection,
        records: Iterable[AnnotationRecord],
        subset: str | None,
        scope: Mapping[int, Collection[int] | None] | None,
    ) -> AnnotationCounts:
        if subset is not None:
            self.subset(subset)
        added = updated = unchanged = deleted = 0
        conn.execute("DELETE FROM temp.hume_seen")
        for rec in records:
            self._check_annotation(conn, rec, subset)
            values = (
                rec.hume_id,
                int(rec.ls_task_id),
                rec.annotator,
                None if rec.answer is None else dumps(rec.answer),
                rec.status,
                rec.error,
                None if rec.lead_time is None else float(rec.lead_time),
                rec.created_at,
                rec.updated_at,
            )
            key = (int(rec.slot), int(rec.ls_annotation_id))
            old = conn.execute(
                "SELECT hume_id, ls_task_id, annotator, answer, status, error, lead_time, "
                "created_at, updated_at, deleted_at FROM annotations "
                "WHERE slot = ? AND ls_annotation_id = ?",
                key,
            ).fetchone()
            if old is None:
                conn.execute(
                    "INSERT INTO annotations (slot, ls_annotation_id, hume_id, ls_task_id, "
                    "annotator, answer, status, error, lead_time, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, *values),
                )
                added += 1
            elif tuple(old[:9]) == values and old[9] is None:
                unchanged += 1
            else:
                conn.execute(
                    "UPDATE annotations SET hume_id = ?, ls_task_id = ?, annotator = ?, "
                    "answer = ?, status = ?, error = ?, lead_time = ?, created_at = ?, "
                    "updated_at = ?, deleted_at = NULL WHERE slot = ? AND ls_annotation_id = ?",
                    (*values, *key),
                )
                updated += 1
        if subset is not None:
            in_scope = ""
            if scope is not None:
                conn.execute("DELETE FROM temp.hume_scope")
                for slot, task_ids in scope.items():
                    if task_ids is None:
                        conn.execute(
                            "INSERT OR IGNORE INTO temp.hume_scope (slot, ls_task_id) "
                            "SELECT slot, ls_task_id FROM ls_tasks WHERE slot = ?",
                            (int(slot),),
                        )
                    else:
                        conn.executemany(
                            "INSERT OR IGNORE INTO temp.hume_scope (slot, ls_task_id) "
                            "VALUES (?, ?)",
                            ((int(slot), int(t)) for t in task_ids),
                        )
                in_scope = (
                    " AND EXISTS (SELECT 1 FROM temp.hume_scope c WHERE c.slot = a.slot "
                    "AND c.ls_task_id = a.ls_task_id)"
                )
            deleted = conn.execute(
                "UPDATE annotations AS a SET deleted_at = ? WHERE a.deleted_at IS NULL "
                "AND a.hume_id IN (SELECT hume_id FROM instances WHERE subset_key = ?) "
                "AND NOT EXISTS (SELECT 1 FROM temp.hume_seen s WHERE s.slot = a.slot "
                "AND s.ls_annotation_id = a.ls_annotation_id)" + in_scope,
                (_now(), subset),
            ).rowcount
        return AnnotationCounts(added, updated, unchanged, deleted)

    @staticmethod
    def _check_annotation(
        conn: sqlite3.Connection,
        rec: AnnotationRecord,
        subset: str | None,
    ) -> None:
        ref = f"annotation {rec.ls_annotation_id!r}" + (f" (slot {rec.slot})" if rec.slot else "")
        if not isinstance(rec.ls_annotation_id, int) or isinstance(rec.ls_annotation_id, bool):
            raise StoreError(f"{ref}: ls_annotation_id must be an integer")
        if not isinstance(rec.slot, int) or isinstance(rec.slot, bool) or rec.slot < 0:
            raise StoreError(f"{ref}: slot must be a non-negative integer")
        try:
            conn.execute(
                "INSERT INTO temp.hume_seen (slot, ls_annotation_id) VALUES (?, ?)",
                (rec.slot, rec.ls_annotation_id),
            )
        except sqlite3.IntegrityError:
            raise StoreError(f"{ref}: appears twice in the batch") from None
        if rec.status not in ANNOTATION_STATUSES:
            raise StoreError(
                f"{ref}: status must be one of {', '.join(ANNOTATION_STATUSES)}, got {rec.status!r}"
            )
        if rec.status == "valid" and rec.answer is None:
            raise StoreError(f"{ref}: a valid annotation needs an answer")
        if not isinstance(rec.annotator, str) or not rec.annotator:
            raise StoreError(f"{ref}: annotator is required")
        if rec.lead_time is not None and not math.isfinite(float(rec.lead_time)):
            raise StoreError(f"{ref}: lead_time must be finite")
        row = conn.execute(
            "SELECT subset_key FROM instances WHERE hume_id = ?", (rec.hume_id,)
        ).fetchone()
        if row is None:
            raise StoreError(f"{ref}: unknown instance {rec.hume_id!r}")
        if subset is not None and row[0] != subset:
            raise StoreError(f"{ref}: instance {rec.hume_id!r} is not in subset {subset!r}")
        task = conn.execute(
            "SELECT ls_task_id FROM ls_tasks WHERE hume_id = ? AND slot = ?",
            (rec.hume_id, rec.slot),
        ).fetchone()
        if task is not None and int(task[0]) != rec.ls_task_id:
            raise StoreError(
                f"{ref}: LS task {rec.ls_task_id} but instance {rec.hume_id!r} is LS task "
                f"{task[0]} on slot {rec.slot}"
            )

    def add_predictions(
        self, records: Iterable[PredictionRecord], *, replace: bool = False
    ) -> PredictionCounts:
        """Store predictions, unique per (hume_id, model_version).

        A sealed prediction is never silently overwritten: a different answer for it raises
        unless ``replace`` is true. Identical re-submissions count as unchanged.
        """
        added = replaced = unchanged = 0
        with self.transaction() as conn:
            for rec in records:
                ref = f"prediction {rec.model_version!r} for {rec.hume_id!r}"
                if not rec.model_version:
                    raise StoreError(f"{ref}: model_version is required")
                exists = conn.execute(
                    "SELECT 1 FROM instances WHERE hume_id = ?", (rec.hume_id,)
                ).fetchone()
                if exists is None:
                    raise StoreError(f"{ref}: unknown instance")
                if rec.score is not None and not math.isfinite(float(rec.score)):
                    raise StoreError(f"{ref}: score must be finite")
                answer = dumps(rec.answer)
                score = None if rec.score is None else float(rec.score)
                sealed = int(bool(rec.sealed))
                old = conn.execute(
                    "SELECT answer, score, sealed FROM predictions "
                    "WHERE hume_id = ? AND model_version = ?",
                    (rec.hume_id, rec.model_version),
                ).fetchone()
                if old is None:
                    conn.execute(
                        "INSERT INTO predictions (hume_id, model_version, answer, score, sealed, "
                        "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            rec.hume_id,
                            rec.model_version,
                            answer,
                            score,
                            sealed,
                            rec.created_at or _now(),
                        ),
                    )
                    added += 1
                elif tuple(old) == (answer, score, sealed):
                    unchanged += 1
                else:
                    if old[2] and not replace:
                        raise StoreError(f"{ref}: sealed prediction differs; pass replace=True")
                    conn.execute(
                        "UPDATE predictions SET answer = ?, score = ?, sealed = ?, created_at = ? "
                        "WHERE hume_id = ? AND model_version = ?",
                        (
                            answer,
                            score,
                            sealed,
                            rec.created_at or _now(),
                            rec.hume_id,
                            rec.model_version,
                        ),
                    )
                    replaced += 1
        return PredictionCounts(added, replaced, unchanged)


def gold(store: Store, subset: str) -> dict[str, Any]:
    """Gold answers of a subset by hume_id; the only reader of the gold column (for scoring)."""
    store.subset(subset)
    rows = store._conn.execute(
        "SELECT hume_id, gold FROM instances WHERE subset_key = ? ORDER BY sample_order",
        (subset,),
    ).fetchall()
    return {r[0]: json.loads(r[1]) for r in rows}


# --------------------------------------------------------------------------------------------
# Writing a planned study (``hume_sync.study.planning`` computes the plans)


@dataclass
class SubsetPlan:
    """Everything one subset will write, computed before the store is touched."""

    key: str
    task_name: str
    hf_subset: str
    task_type: str
    language: str
    config: dict[str, Any]
    samples_per_label: int | None
    overlap: int
    position: int
    # hume_id, source_id, presentation order, content, gold, source position
    instances: list[tuple[str, str, int, str, str, int | None]]
    items: dict[str, tuple[ItemRef, ...]]  # hume_id → its items/candidates (presentation order)
    train: list[tuple[str, str, str, int]]  # source_id, text, label, source position
    report: dict[str, Any]


def apply_plans(
    store: Store,
    meta: Mapping[str, str],
    plans: Sequence[SubsetPlan],
    *,
    force: bool,
) -> list[SubsetSummary]:
    """Write a study's planned rows in one transaction; returns what changed per subset.

    ``meta`` is the study's identity (name, seed, spec hash, canonical spec). An initialised
    store that differs from the plans is refused unless ``force``; forcing updates the rows and
    removes instances no longer planned, never ones that already have annotations.
    """
    initialised = "spec_hash" in store.meta()
    strict = initialised and not force
    with store.transaction() as conn:
        _write_meta(conn, meta, strict=strict)
        summaries = []
        for plan in plans:
            summary = SubsetSummary(
                key=plan.key,
                task_type=plan.task_type,
                n_instances=len(plan.instances),
                n_train=len(plan.train),
                report=plan.report,
            )
            _write_subset(conn, plan, strict=strict)
            _write_instances(conn, plan, summary, strict=strict)
            _write_train_items(conn, plan, strict=strict)
            summaries.append(summary)
        _drop_unplanned_subsets(conn, {p.key for p in plans}, strict=strict)
    return summaries


def _conflict(what: str) -> StoreError:
    return StoreError(
        f"the store differs from the spec and its data ({what}); re-run with force to re-initialise"
    )


def _write_meta(conn: sqlite3.Connection, meta: Mapping[str, str], *, strict: bool) -> None:
    wanted = dict(meta)
    current = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if "created_at" not in current:
        wanted["created_at"] = _now()
    for key, value in wanted.items():
        if current.get(key) == value:
            continue
        if strict and key in current:
            raise _conflict(f"meta {key}")
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def _write_subset(conn: sqlite3.Connection, plan: SubsetPlan, *, strict: bool) -> None:
    values = (
        plan.task_name,
        plan.hf_subset,
        plan.task_type,
        plan.language,
        dumps(plan.config),
        plan.samples_per_label,
        plan.overlap,
        plan.position,
    )
    old = conn.execute(
        "SELECT task_name, hf_subset, task_type, language, config, samples_per_label, overlap, "
        "position FROM subsets WHERE subset_key = ?",
        (plan.key,),
    ).fetchone()
    if old is None:
        if strict:
            raise _conflict(f"new subset {plan.key}")
        conn.execute(
            "INSERT INTO subsets (subset_key, task_name, hf_subset, task_type, language, config, "
            "samples_per_label, overlap, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (plan.key, *values),
        )
    elif tuple(old) != values:
        if strict:
            raise _conflict(f"subset {plan.key} settings or source data")
        if old[2] != plan.task_type and _has_annotations(conn, "i.subset_key = ?", plan.key):
            raise StoreError(f"subset {plan.key} has annotations; its type cannot change")
        conn.execute(
            "UPDATE subsets SET task_name = ?, hf_subset = ?, task_type = ?, language = ?, "
            "config = ?, samples_per_label = ?, overlap = ?, position = ? WHERE subset_key = ?",
            (*values, plan.key),
        )


def _has_annotations(conn: sqlite3.Connection, where: str, arg: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM annotations a JOIN instances i ON i.hume_id = a.hume_id "
        f"WHERE a.deleted_at IS NULL AND {where} LIMIT 1",
        (arg,),
    ).fetchone()
    return row is not None


def _fills(old: int | None, new: int | None) -> bool:
    """A recorded source position that is only being learnt (NULL in a store migrated from
    schema 1): filling it in is not a change of the study."""
    return old is None and new is not None


def _write_instances(
    conn: sqlite3.Connection, plan: SubsetPlan, summary: SubsetSummary, *, strict: bool
) -> None:
    existing = {
        r[0]: (r[1], r[2], r[3], r[4], r[5])
        for r in conn.execute(
            "SELECT hume_id, source_id, sample_order, content, gold, source_position "
            "FROM instances WHERE subset_key = ?",
            (plan.key,),
        ).fetchall()
    }
    planned = {row[0] for row in plan.instances}
    for hid, source_id, order, content, gold_json, position in plan.instances:
        old = existing.get(hid)
        items = plan.items.get(hid, ())
        if (
            old is not None
            and old[:4] == (source_id, order, content, gold_json)
            and (old[4] == position or _fills(old[4], position))
        ):
            if old[4] != position:
                conn.execute(
                    "UPDATE instances SET source_position = ? WHERE hume_id = ?",
                    (position, hid),
                )
            if _write_items(conn, hid, items, strict=strict):
                summary.unchanged += 1
                continue
        if strict:
            raise _conflict(f"instance {hid}")
        if old is None:
            conn.execute(
                "INSERT INTO instances (hume_id, subset_key, source_id, sample_order, content, "
                "gold, source_position, hume_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (hid, plan.key, source_id, order, content, gold_json, position, _unused_ref(conn)),
            )
            _write_items(conn, hid, items, strict=False)
            summary.inserted += 1
            continue
        if (old[2], old[3]) != (content, gold_json):
            if _has_annotations(conn, "i.hume_id = ?", hid):
                raise StoreError(f"instance {hid} has annotations; its content cannot change")
            # the LS task and any predictions were made for the old content: a new reference,
            # so that setup imports the new content instead of finding the stale task again
            conn.execute("DELETE FROM predictions WHERE hume_id = ?", (hid,))
            conn.execute("DELETE FROM ls_tasks WHERE hume_id = ?", (hid,))
            conn.execute(
                "UPDATE instances SET content = ?, gold = ?, ls_task_id = NULL, hume_ref = ? "
                "WHERE hume_id = ?",
                (content, gold_json, _unused_ref(conn), hid),
            )
        conn.execute(
            "UPDATE instances SET source_id = ?, sample_order = ?, source_position = ? "
            "WHERE hume_id = ?",
            (source_id, order, position, hid),
        )
        _write_items(conn, hid, items, strict=False)
        summary.updated += 1
    for hid in sorted(set(existing) - planned):
        if strict:
            raise _conflict(f"instance {hid} is no longer sampled")
        if _has_annotations(conn, "i.hume_id = ?", hid):
            raise StoreError(f"instance {hid} has annotations; it cannot be dropped")
        _delete_instances(conn, "hume_id = ?", hid)
        summary.deleted += 1


def _unused_ref(conn: sqlite3.Connection) -> str:
    """A ``hume_ref`` no instance of the store has (a clash of 64 random bits is only defended
    against, never expected)."""
    while True:
        ref = new_ref()
        if conn.execute("SELECT 1 FROM instances WHERE hume_ref = ?", (ref,)).fetchone() is None:
            return ref


def _write_items(
    conn: sqlite3.Connection, hid: str, items: Sequence[ItemRef], *, strict: bool
) -> bool:
    """Make ``instance_items`` of one instance equal the plan; True when nothing but unknown
    source positions had to be written. With ``strict`` a real difference writes nothing."""
    old = {
        r[0]: (r[1], r[2])
        for r in conn.execute(
            "SELECT item_id, source_id, source_position FROM instance_items WHERE hume_id = ?",
            (hid,),
        ).fetchall()
    }
    new = {ref.item_id: (ref.source_id, ref.source_position) for ref in items}
    same = old.keys() == new.keys() and all(
        old[k][0] == new[k][0] and (old[k][1] == new[k][1] or _fills(old[k][1], new[k][1]))
        for k in new
    )
    if same:
        for k, (_, position) in new.items():
            if old[k][1] != position:
                conn.execute(
                    "UPDATE instance_items SET source_position = ? WHERE hume_id = ? "
                    "AND item_id = ?",
                    (position, hid, k),
                )
        return True
    if strict:
        return False
    conn.execute("DELETE FROM instance_items WHERE hume_id = ?", (hid,))
    conn.executemany(
        "INSERT INTO instance_items (hume_id, item_id, source_id, source_position) "
        "VALUES (?, ?, ?, ?)",
        [(hid, ref.item_id, ref.source_id, ref.source_position) for ref in items],
    )
    return False


def _delete_instances(conn: sqlite3.Connection, where: str, arg: str) -> None:
    """Delete instances (``where`` on the instances table) with everything that hangs on them."""
    chosen = f"SELECT hume_id FROM instances WHERE {where}"
    for table in ("predictions", "annotations", "instance_items", "ls_tasks"):
        conn.execute(f"DELETE FROM {table} WHERE hume_id IN ({chosen})", (arg,))
    conn.execute(f"DELETE FROM instances WHERE {where}", (arg,))


def _write_train_items(conn: sqlite3.Connection, plan: SubsetPlan, *, strict: bool) -> None:
    existing = {
        r[0]: (r[1], r[2], r[3])
        for r in conn.execute(
            "SELECT source_id, text, label, source_position FROM train_items WHERE subset_key = ?",
            (plan.key,),
        ).fetchall()
    }
    planned = {row[0] for row in plan.train}
    for source_id, text, label, position in plan.train:
        old = existing.get(source_id)
        if old is not None and old[:2] == (text, label):
            if old[2] == position:
                continue
            if _fills(old[2], position):
                conn.execute(
                    "UPDATE train_items SET source_position = ? WHERE subset_key = ? "
                    "AND source_id = ?",
                    (position, plan.key, source_id),
                )
                continue
        if strict:
            raise _conflict(f"train item {plan.key}/{source_id}")
        conn.execute(
            "INSERT INTO train_items (subset_key, source_id, text, label, source_position) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (subset_key, source_id) DO UPDATE SET "
            "text = excluded.text, label = excluded.label, "
            "source_position = excluded.source_position",
            (plan.key, source_id, text, label, position),
        )
    for source_id in sorted(set(existing) - planned):
        if strict:
            raise _conflict(f"train item {plan.key}/{source_id} is gone")
        conn.execute(
            "DELETE FROM train_items WHERE subset_key = ? AND source_id = ?",
            (plan.key, source_id),
        )


def _drop_unplanned_subsets(conn: sqlite3.Connection, keep: set[str], *, strict: bool) -> None:
    stored = [r[0] for r in conn.execute("SELECT subset_key FROM subsets").fetchall()]
    for key in sorted(set(stored) - keep):
        if strict:
            raise _conflict(f"subset {key} is not in the spec")
        if _has_annotations(conn, "i.subset_key = ?", key):
            raise StoreError(f"subset {key} has annotations; it cannot be dropped")
        _delete_instances(conn, "subset_key = ?", key)
        conn.execute("DELETE FROM ls_projects WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM train_items WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM subsets WHERE subset_key = ?", (key,))
