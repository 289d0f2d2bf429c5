"""The study store's whole schema: every table, every migration, every ``meta`` key.

A ``schema_version`` table drives migrations (:data:`MIGRATIONS`): a store opens at whatever
version it was written and is brought to :data:`SCHEMA_VERSION` in one transaction per step.
The keys ``meta`` may hold are declared in :mod:`hume_sync.store.meta` (name, type, why);
nothing else in hume writes a table or a meta key the schema does not name.

Schema (version 1, 2: source order and opaque ids, 3: annotators and their own projects and
tasks, 4: any registered task type, 5: sealing commitments, 6: model scores and facts, 8: what
pull last read of each project, 9: each project's answers summed up)::

    schema_version(version PK, applied_at)
    meta(key PK, value)    -- the keys of hume_sync.store.meta.META_KEYS only
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
    model_scores(model_version, subset_key; PK(model_version, subset_key), task_type,
                 main_score_name, main_score, scores JSON NULL, method, n_items,
                 instances_sha256, inputs_sha256)
    model_facts(model_version PK, facts JSON)
    ls_sync(subset_key FK, slot FK, ls_project_id, watermark, read_from, uncounted JSON, synced_at;
            PK(subset_key, slot))
    answer_summaries(subset_key FK, slot FK, answers, cancelled, invalid_rows, answered, invalid,
                     skipped, leads BLOB, times BLOB; PK(subset_key, slot))

Version 2: order is data, and nothing shown in Label Studio encodes gold (``hume_ref``,
``instance_items``, ``source_position``; rows of a version-1 store keep the ids their tasks
already show: ``id_scheme`` "source").

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

Version 6 moves what ``predict`` kept in ``meta`` under key prefixes into tables of their own:
each model's mteb score per subset (``model_score/<model>/<subset>`` → ``model_scores``) and what
each model said of itself (``model_meta/<model>`` → ``model_facts``). The old rows are moved,
value for value, and removed from ``meta``; a record that is not one predict wrote stops the
migration with the store left as it was.

Version 8 adds ``ls_sync``: per project, what the last pull read of it (the project id, the
newest task ``updated_at`` it saw, when that read began, and the Label Studio annotations it saw
but does not store:
another account's, or on a task that is not the study's). ``pull`` and ``status`` then ask
Label Studio only for the tasks changed since, and check the counts still add up
(:mod:`hume_sync.workflow.changes`). A store of version 7 gains the empty table: its next pull
reads every project in full, as before.

Version 9 adds ``answer_summaries``: per project, its live answers summed up (counts per status
and per task, the valid answers' lead times and creation times, each sorted), written by
``pull`` and dropped by any write of the project's annotations, so that ``status`` and a pull
with nothing changed read one row instead of every answer
(:mod:`hume_sync.store.answer_summaries`). A store of version 8 gains the empty table: status
counts the rows, as before, until the next pull writes the summaries.

Version 11 adds ``effort_cache``, one row: the effort and quality block ``status`` shows
(:mod:`hume_sync.store.effort_cache`), with the *answers generation* it was computed at. Every
write of annotations that changes one, and every write of the study's plan, adds one to the
generation and empties the block in its own transaction, so a block is read back only while
the answers and instances it was computed from are the stored ones. A store of version 10
gains the row empty: its next status computes the block, as before, and keeps it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from hume_sync.errors import StoreError
from hume_sync.store.records import dumps

SCHEMA_VERSION = 11
ANNOTATION_STATUSES: tuple[str, ...] = ("valid", "invalid", "cancelled")

#: ``meta`` key prefixes of schema 6 and earlier, moved into tables by migration 7.
LEGACY_SCORE_PREFIX = "model_score/"
LEGACY_FACTS_PREFIX = "model_meta/"

#: A migration step: an SQL statement, or a function of the connection for what SQL cannot
#: check (both run inside the migration's transaction).
Step = str | Callable[[sqlite3.Connection], None]

MIGRATIONS: dict[int, tuple[Step, ...]] = {
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
    # copy, drop, rename, foreign_key_check; see REBUILDS). Rows and references are unchanged.
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
    # (hume_sync.workflow.annotators_remove).
    6: ("""ALTER TABLE annotators ADD COLUMN retired_at TEXT""",),
    # Model scores and facts get tables of their own (see module doc); the old meta rows move.
    7: (
        """CREATE TABLE model_scores (
            model_version TEXT NOT NULL,
            subset_key TEXT NOT NULL,
            task_type TEXT NOT NULL,
            main_score_name TEXT NOT NULL,
            main_score REAL,
            scores TEXT,
            method TEXT NOT NULL,
            n_items INTEGER NOT NULL,
            instances_sha256 TEXT NOT NULL,
            inputs_sha256 TEXT NOT NULL,
            PRIMARY KEY (model_version, subset_key)
        )""",
        """CREATE TABLE model_facts (
            model_version TEXT PRIMARY KEY,
            facts TEXT NOT NULL
        )""",
        lambda conn: _move_model_meta(conn),
    ),
    # What pull last read of each project, so that the next read asks only for what changed
    # (hume_sync.store.sync_state, hume_sync.workflow.changes).
    8: (
        """CREATE TABLE ls_sync (
            subset_key TEXT NOT NULL REFERENCES subsets (subset_key),
            slot INTEGER NOT NULL REFERENCES annotators (slot),
            ls_project_id INTEGER NOT NULL,
            watermark TEXT,
            read_from TEXT,
            uncounted TEXT NOT NULL,
            synced_at TEXT NOT NULL,
            PRIMARY KEY (subset_key, slot)
        )""",
        # a read of the changes marks deletions task by task (store/annotations._mark_missing)
        """CREATE INDEX annotations_by_task ON annotations (slot, ls_task_id)""",
    ),
    # Each project's answers summed up, so that status and an idle pull read one row, not
    # every answer (hume_sync.store.answer_summaries); a cache pull writes, empty at first.
    9: (
        """CREATE TABLE answer_summaries (
            subset_key TEXT NOT NULL REFERENCES subsets (subset_key),
            slot INTEGER NOT NULL REFERENCES annotators (slot),
            answers INTEGER NOT NULL,
            cancelled INTEGER NOT NULL,
            invalid_rows INTEGER NOT NULL,
            answered INTEGER NOT NULL,
            invalid INTEGER NOT NULL,
            skipped INTEGER NOT NULL,
            leads BLOB NOT NULL,
            times BLOB NOT NULL,
            PRIMARY KEY (subset_key, slot)
        )""",
    ),
    # what the last mirror wrote into the manager's server (store/mirror_state.py): the next
    # mirror reads back only the tasks whose mark moved
    10: (
        """CREATE TABLE mirror_state (
            subset_key TEXT PRIMARY KEY,
            ls_project_id INTEGER NOT NULL,
            context TEXT NOT NULL,
            mirrored_at TEXT NOT NULL
        )""",
        """CREATE TABLE mirror_tasks (
            hume_ref TEXT PRIMARY KEY,
            subset_key TEXT NOT NULL,
            ls_task_id INTEGER NOT NULL,
            mark TEXT NOT NULL
        )""",
    ),
    # the effort and quality block status shows, kept until the answers or the plan change
    # (hume_sync.store.effort_cache); writers bump the generation (INVALIDATE_EFFORT)
    11: (
        """CREATE TABLE effort_cache (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            generation INTEGER NOT NULL,
            inputs TEXT,
            block TEXT
        )""",
        """INSERT INTO effort_cache (id, generation) VALUES (1, 0)""",
    ),
}

#: What every write of annotations (that changed one) or of the plan runs in its transaction:
#: the kept effort block (:mod:`hume_sync.store.effort_cache`) no longer describes the store.
INVALIDATE_EFFORT = (
    "UPDATE effort_cache SET generation = generation + 1, inputs = NULL, block = NULL"
)

#: Migrations that rebuild a table other tables reference: they run with foreign keys off (the
#: references must survive the table's drop and rename) and are checked before they commit.
REBUILDS: frozenset[int] = frozenset({4})


def run_step(conn: sqlite3.Connection, step: Step) -> None:
    """Run one migration step inside the caller's transaction."""
    if isinstance(step, str):
        conn.execute(step)
    else:
        step(conn)


def _move_model_meta(conn: sqlite3.Connection) -> None:
    """Migration 7's data step: ``model_score/…`` and ``model_meta/…`` rows of ``meta`` into
    ``model_scores`` and ``model_facts``, in Python because a record may hold what SQLite's JSON
    functions refuse (``NaN``), and a broken one must be named, not skipped."""
    rows = conn.execute(
        "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? OR substr(key, 1, ?) = ?",
        (len(LEGACY_SCORE_PREFIX), LEGACY_SCORE_PREFIX, len(LEGACY_FACTS_PREFIX),
         LEGACY_FACTS_PREFIX),
    ).fetchall()  # fmt: skip
    for key, value in rows:
        try:
            record: Any = json.loads(value)
            if key.startswith(LEGACY_FACTS_PREFIX):
                conn.execute(
                    "INSERT INTO model_facts (model_version, facts) VALUES (?, ?)",
                    (key[len(LEGACY_FACTS_PREFIX) :], value),
                )
                continue
            scores = record.get("scores")
            conn.execute(
                "INSERT INTO model_scores (model_version, subset_key, task_type, "
                "main_score_name, main_score, scores, method, n_items, instances_sha256, "
                "inputs_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(record["model_version"]),
                    str(record["subset"]),
                    str(record["task_type"]),
                    str(record["main_score_name"]),
                    None if record["main_score"] is None else float(record["main_score"]),
                    None if scores is None else dumps(scores),
                    str(record["method"]),
                    int(record["n_items"]),
                    str(record.get("instances_sha256") or ""),
                    str(record.get("inputs_sha256") or ""),
                ),
            )
        except (ValueError, TypeError, KeyError, AttributeError, sqlite3.IntegrityError) as exc:
            raise StoreError(
                f"meta row {key!r} is not a model record predict wrote ({exc!r}); "
                "the store was left as it was"
            ) from None
    conn.execute(
        "DELETE FROM meta WHERE substr(key, 1, ?) = ? OR substr(key, 1, ?) = ?",
        (len(LEGACY_SCORE_PREFIX), LEGACY_SCORE_PREFIX, len(LEGACY_FACTS_PREFIX),
         LEGACY_FACTS_PREFIX),
    )  # fmt: skip
