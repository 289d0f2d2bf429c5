"""Annotators, their Label Studio projects and tasks: one Label Studio server per annotator.

Every annotator has a *slot*: their own server (``ls_url``), on which each of their subsets has
its own project. Label Studio ids are only unique per server, so projects, tasks and
annotations are keyed by slot.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from hume_sync.errors import StoreError
from hume_sync.store.instances import InstanceReader
from hume_sync.store.records import AnnotatorRow, SlotProject, dumps, now


class AnnotatorStore(InstanceReader):
    """Annotator slots, the project of each subset on each slot, and their tasks."""

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
                (slot, email, dumps(list(languages)), ls_url, ls_user_id, now()),
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
                (now(), slot),
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
            return _write_slot_project(conn, subset, slot, project_id, marker)

    def record_new_project(
        self, subset: str, slot: int, project_id: int, marker: str, task_ids: Mapping[str, int]
    ) -> int:
        """Record a project setup just made and the tasks it imported into it, in one commit
        (:meth:`set_slot_project` and :meth:`set_slot_tasks` together); task rows changed.

        Why one: each commit of the store waits for the disk (about 20 ms here), and a first
        setup paid two per project. A run that dies before this commit leaves a project the
        store does not know: the next setup finds it by its marker and its tasks by their
        ``hume_ref``, as for any project made and not recorded.
        """
        self.subset(subset)
        self.annotator(slot)
        with self.transaction() as conn:
            _write_slot_project(conn, subset, slot, project_id, marker)
            return _write_slot_tasks(conn, subset, slot, task_ids)

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
            return _write_slot_tasks(conn, subset, slot, task_ids)


def _write_slot_project(
    conn: sqlite3.Connection, subset: str, slot: int, project_id: int, marker: str
) -> int:
    """:meth:`AnnotatorStore.set_slot_project` inside the caller's transaction."""
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
            (subset, slot, int(project_id), marker, now()),
        )
    except sqlite3.IntegrityError:
        raise StoreError(
            f"Label Studio project {project_id} on slot {slot} is already used by another subset"
        ) from None
    return 1


def _write_slot_tasks(
    conn: sqlite3.Connection, subset: str, slot: int, task_ids: Mapping[str, int]
) -> int:
    """:meth:`AnnotatorStore.set_slot_tasks` inside the caller's transaction."""
    members = {
        r[0] for r in conn.execute("SELECT hume_id FROM instances WHERE subset_key = ?", (subset,))
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
        for r in conn.execute("SELECT ls_task_id, hume_id FROM ls_tasks WHERE slot = ?", (slot,))
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
    conn.executemany("INSERT INTO ls_tasks (hume_id, slot, ls_task_id) VALUES (?, ?, ?)", changes)
    return len(changes)
