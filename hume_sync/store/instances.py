"""Reading what the study sampled: subsets, instances (never their gold), items, train pools.

Rules: ``hume_id`` (``<task>/<subset>/<source id>``) never leaves hume; Label Studio tasks carry
the instance's ``hume_ref`` (a random token drawn once per instance) and clustering items /
reranking candidates are shown under opaque ids, which ``instance_items`` maps back to the
source. Order is data: every instance, item and train item keeps its ``source_position``, so
models run in the order mteb sees the source (:mod:`hume_sync.study.model_view`), whatever the
presentation order (``sample_order``) shown to annotators. Gold is only reachable through
:func:`gold`; :meth:`InstanceReader.instances` never selects it, so code that builds Label Studio
tasks cannot leak it by accident.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from hume_sync.errors import StoreError
from hume_sync.store.connection import StoreConnection
from hume_sync.store.records import (
    InstanceRow,
    ItemRef,
    SubsetRow,
    TextItem,
    unknown_order_message,
)

_SUBSET_COLUMNS = (
    "SELECT subset_key, task_name, hf_subset, task_type, language, config, "
    "samples_per_label, overlap FROM subsets"
)
#: Task ids per ``IN (...)`` query (SQLite allows 32,766 parameters; small chunks keep each
#: statement cheap to prepare).
_CHUNK = 500
_INSTANCE_COLUMNS = (
    "i.hume_id, i.subset_key, i.source_id, i.sample_order, i.content, i.hume_ref, i.source_position"
)


def _subset(r: Any) -> SubsetRow:
    return SubsetRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7])


def _instance(r: Any) -> InstanceRow:
    return InstanceRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6])


class TaskInstances(Mapping[int, InstanceRow]):
    """A project's instances by LS task id (:meth:`InstanceReader.project_instances`)."""

    def __init__(self, rows: dict[int, Any]) -> None:
        self._rows = rows

    def __getitem__(self, ls_task_id: int) -> InstanceRow:
        return _instance(self._rows[ls_task_id])

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class InstanceReader(StoreConnection):
    """Subsets, instances, items and train pools of the store."""

    def subsets(self) -> list[SubsetRow]:
        rows = self._conn.execute(f"{_SUBSET_COLUMNS} ORDER BY position, subset_key").fetchall()
        return [_subset(r) for r in rows]

    def subset(self, key: str) -> SubsetRow:
        # One row, not the whole table: per-subset readers call this (a 260-subset study read
        # subset by subset decoded every subset 260 times).
        r = self._conn.execute(f"{_SUBSET_COLUMNS} WHERE subset_key = ?", (key,)).fetchone()
        if r is None:
            raise StoreError(f"no subset {key!r} in {self.path}")
        return _subset(r)

    def instances(self, subset: str) -> list[InstanceRow]:
        """The subset's instances in presentation (sample) order, without gold."""
        self.subset(subset)
        rows = self._conn.execute(
            f"SELECT {_INSTANCE_COLUMNS} FROM instances i WHERE i.subset_key = ? "
            "ORDER BY i.sample_order",
            (subset,),
        ).fetchall()
        return [_instance(r) for r in rows]

    def instance_count(self, subset: str) -> int:
        """How many instances the subset has (without reading them)."""
        self.subset(subset)
        row = self._conn.execute(
            "SELECT COUNT(*) FROM instances WHERE subset_key = ?", (subset,)
        ).fetchone()
        return int(row[0])

    def instance_for_task(self, slot: int, ls_task_id: int) -> InstanceRow | None:
        """The instance behind LS task ``ls_task_id`` on slot ``slot``'s server (None: not a
        task of the study). For a whole project, :meth:`project_instances` (one query)."""
        row = self._conn.execute(
            f"SELECT {_INSTANCE_COLUMNS} FROM ls_tasks t JOIN instances i "
            "ON i.hume_id = t.hume_id WHERE t.slot = ? AND t.ls_task_id = ?",
            (int(slot), int(ls_task_id)),
        ).fetchone()
        return None if row is None else _instance(row)

    def project_instances(
        self, subset: str, slot: int, tasks: Collection[int] | None = None
    ) -> TaskInstances:
        """LS task id → instance of the subset's tasks on slot ``slot``'s server: what ``pull``
        and ``status`` look an exported project's tasks up in, read with one query instead of
        one per task. Memory holds the project's rows as stored; an instance's content is
        decoded when its task is looked up. ``tasks``: only these LS task ids (what changed
        since the last pull), read a chunk at a time, not the whole project."""
        sql = (
            f"SELECT t.ls_task_id, {_INSTANCE_COLUMNS} FROM ls_tasks t "
            "JOIN instances i ON i.hume_id = t.hume_id WHERE t.slot = ? AND i.subset_key = ?"
        )
        if tasks is None:
            rows = self._conn.execute(sql, (int(slot), subset)).fetchall()
            return TaskInstances({int(r[0]): r[1:] for r in rows})
        ids = sorted({int(t) for t in tasks})
        found: dict[int, Any] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ", ".join("?" for _ in chunk)
            rows = self._conn.execute(
                f"{sql} AND t.ls_task_id IN ({marks})", (int(slot), subset, *chunk)
            ).fetchall()
            found.update({int(r[0]): r[1:] for r in rows})
        return TaskInstances(found)

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

    def _gold(self, subset: str) -> dict[str, Any]:
        self.subset(subset)
        rows = self._conn.execute(
            "SELECT hume_id, gold FROM instances WHERE subset_key = ? ORDER BY sample_order",
            (subset,),
        ).fetchall()
        return {r[0]: json.loads(r[1]) for r in rows}


def gold(store: InstanceReader, subset: str) -> dict[str, Any]:
    """Gold answers of a subset by hume_id; the only reader of the gold column (for scoring)."""
    return store._gold(subset)
