"""Annotations pulled from Label Studio: read them, and upsert a project's batch.

Rows are keyed by ``(slot, LS annotation id)`` and upserted, so re-running ``pull`` writes
nothing new; annotations gone from Label Studio get ``deleted_at`` (kept for the audit trail,
hidden from readers) and are restored if they reappear.

An upsert costs two statements per annotation, whatever happens to it: one that records the key
as seen in this batch (refusing a duplicate) and returns, from the same row of SQL, the
instance's subset, its LS task on the slot and whether the annotation is already stored; and one
``INSERT … ON CONFLICT DO UPDATE … WHERE <something changed>`` that writes only a new or changed
row (its row count says whether it wrote).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from hume_sync.errors import StoreError
from hume_sync.store.annotators import AnnotatorStore
from hume_sync.store.records import (
    AnnotationCounts,
    AnnotationRecord,
    AnnotationRow,
    AnnotationUpsert,
    dumps,
    now,
)
from hume_sync.store.schema import ANNOTATION_STATUSES, INVALIDATE_EFFORT

_COLUMNS = (
    "hume_id",
    "ls_task_id",
    "annotator",
    "answer",
    "status",
    "error",
    "lead_time",
    "created_at",
    "updated_at",
)

#: Statement 1: the key joins the batch's seen keys (a duplicate is an IntegrityError) and the
#: facts the checks need come back with it.
_SEE = (
    "INSERT INTO temp.hume_seen (slot, ls_annotation_id) VALUES (?1, ?2) RETURNING "
    "(SELECT subset_key FROM instances WHERE hume_id = ?3), "
    "(SELECT ls_task_id FROM ls_tasks WHERE hume_id = ?3 AND slot = ?1), "
    "EXISTS (SELECT 1 FROM annotations WHERE slot = ?1 AND ls_annotation_id = ?2)"
)

#: Statement 2: insert, or update only when a value changed or the row was marked deleted (its
#: row count is 1 exactly when something was written). Parameters: slot, id, then _COLUMNS.
_UPSERT = (
    "INSERT INTO annotations (slot, ls_annotation_id, {cols}) VALUES (?, ?, {vals}) "
    "ON CONFLICT (slot, ls_annotation_id) DO UPDATE SET {sets}, deleted_at = NULL "
    "WHERE annotations.deleted_at IS NOT NULL OR {changed}"
).format(
    cols=", ".join(_COLUMNS),
    vals=", ".join("?" for _ in _COLUMNS),
    sets=", ".join(f"{c} = excluded.{c}" for c in _COLUMNS),
    changed=" OR ".join(f"annotations.{c} IS NOT excluded.{c}" for c in _COLUMNS),
)


class AnnotationStore(AnnotatorStore):
    """Annotations: readers and the batch upsert ``pull`` streams into."""

    def annotations(
        self,
        subset: str | None = None,
        *,
        include_deleted: bool = False,
        hume_ids: Collection[str] | None = None,
    ) -> list[AnnotationRow]:
        """The stored annotations (of ``subset``, of the instances ``hume_ids``), live only
        unless ``include_deleted``, by slot and Label Studio's numbering."""
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
        if hume_ids is not None:
            sql += " AND a.hume_id IN (SELECT value FROM json_each(?))"
            args.append(json.dumps(sorted(hume_ids)))
        sql += " ORDER BY a.slot, a.ls_annotation_id"
        return [
            AnnotationRow(
                r[0], r[1], r[2], r[3], None if r[4] is None else json.loads(r[4]), *r[5:]
            )
            for r in self._conn.execute(sql, args).fetchall()
        ]

    def annotator_keys(self) -> list[str]:
        """Every annotator key of :meth:`annotations` with ``include_deleted``, sorted.

        Why not read them from :meth:`annotations`: that decodes every answer, and the report
        asks for the keys twice per export (issue 38)."""
        rows = self._conn.execute(
            "SELECT DISTINCT a.annotator FROM annotations a "
            "JOIN instances i ON i.hume_id = a.hume_id"
        ).fetchall()
        return sorted(r[0] for r in rows)

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
        added = updated = unchanged = 0
        written: set[tuple[str, int]] = set()  # the projects (subset, slot) this batch changed
        conn.execute("DELETE FROM temp.hume_seen")
        for rec in records:
            existed, owner, values = _checked(conn, rec, subset)
            wrote = conn.execute(_UPSERT, values).rowcount == 1
            if wrote:
                written.add((owner, rec.slot))
            if not existed:
                added += 1
            elif wrote:
                updated += 1
            else:
                unchanged += 1
        deleted = 0 if subset is None else _mark_missing(conn, subset, scope)
        _drop_summaries(conn, written, subset if deleted else None, scope)
        return AnnotationCounts(added, updated, unchanged, deleted)


def _drop_summaries(
    conn: sqlite3.Connection,
    written: set[tuple[str, int]],
    deleted_in: str | None,
    scope: Mapping[int, Collection[int] | None] | None,
) -> None:
    """Drop the answer summaries (:mod:`hume_sync.store.answer_summaries`) of the projects a
    batch changed: those it wrote a row of, and, when it marked deletions, the subset's
    projects in ``scope`` (every slot without one); and, where it changed anything, the kept
    effort block (:mod:`hume_sync.store.effort_cache`). Here, in the only writer of
    annotations, rather than in a trigger: a trigger is one more statement per row written."""
    if written or deleted_in is not None:
        conn.execute(INVALIDATE_EFFORT)
    conn.executemany(
        "DELETE FROM answer_summaries WHERE subset_key = ? AND slot = ?", sorted(written)
    )
    if deleted_in is None:
        return
    if scope is None:
        conn.execute("DELETE FROM answer_summaries WHERE subset_key = ?", (deleted_in,))
    else:
        conn.executemany(
            "DELETE FROM answer_summaries WHERE subset_key = ? AND slot = ?",
            [(deleted_in, int(slot)) for slot in sorted(scope)],
        )


def _checked(
    conn: sqlite3.Connection, rec: AnnotationRecord, subset: str | None
) -> tuple[bool, str, tuple[Any, ...]]:
    """After every check of the record (statement 1 of the two): whether the store already had
    it, the subset of its instance, and the row's values for :data:`_UPSERT`."""
    ref = f"annotation {rec.ls_annotation_id!r}" + (f" (slot {rec.slot})" if rec.slot else "")
    if not isinstance(rec.ls_annotation_id, int) or isinstance(rec.ls_annotation_id, bool):
        raise StoreError(f"{ref}: ls_annotation_id must be an integer")
    if not isinstance(rec.slot, int) or isinstance(rec.slot, bool) or rec.slot < 0:
        raise StoreError(f"{ref}: slot must be a non-negative integer")
    try:
        [(owner, task, existed)] = conn.execute(
            _SEE, (rec.slot, rec.ls_annotation_id, rec.hume_id)
        ).fetchall()
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
    if owner is None:
        raise StoreError(f"{ref}: unknown instance {rec.hume_id!r}")
    if subset is not None and owner != subset:
        raise StoreError(f"{ref}: instance {rec.hume_id!r} is not in subset {subset!r}")
    if task is not None and int(task) != rec.ls_task_id:
        raise StoreError(
            f"{ref}: LS task {rec.ls_task_id} but instance {rec.hume_id!r} is LS task "
            f"{task} on slot {rec.slot}"
        )
    return (
        bool(existed),
        str(owner),
        (
            int(rec.slot),
            int(rec.ls_annotation_id),
            rec.hume_id,
            int(rec.ls_task_id),
            rec.annotator,
            None if rec.answer is None else dumps(rec.answer),
            rec.status,
            rec.error,
            None if rec.lead_time is None else float(rec.lead_time),
            rec.created_at,
            rec.updated_at,
        ),
    )


def _mark_missing(
    conn: sqlite3.Connection, subset: str, scope: Mapping[int, Collection[int] | None] | None
) -> int:
    """Set ``deleted_at`` on the subset's stored annotations this batch did not bring (within
    ``scope``); returns how many."""
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
                    "INSERT OR IGNORE INTO temp.hume_scope (slot, ls_task_id) VALUES (?, ?)",
                    ((int(slot), int(t)) for t in task_ids),
                )
        # a row-value IN, not a correlated EXISTS: SQLite then walks the scope's tasks through
        # annotations_by_task instead of every annotation of the subset (a pull of a few changed
        # tasks in a 100,000-task study: 0.5 s → milliseconds)
        in_scope = " AND (a.slot, a.ls_task_id) IN (SELECT slot, ls_task_id FROM temp.hume_scope)"
    return conn.execute(
        "UPDATE annotations AS a SET deleted_at = ? WHERE a.deleted_at IS NULL "
        "AND a.hume_id IN (SELECT hume_id FROM instances WHERE subset_key = ?) "
        "AND NOT EXISTS (SELECT 1 FROM temp.hume_seen s WHERE s.slot = a.slot "
        "AND s.ls_annotation_id = a.ls_annotation_id)" + in_scope,
        (now(), subset),
    ).rowcount
