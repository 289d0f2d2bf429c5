"""Writing a planned study (``hume_sync.study.planning`` computes the plans): ``init``.

Rows are keyed by natural keys and upserted, so re-running ``init`` writes nothing new;
re-initialising with a different spec or changed data is refused unless forced, and forcing never
drops or changes an instance that already has annotations.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hume_sync.errors import StoreError
from hume_sync.store.connection import StoreConnection
from hume_sync.store.meta import STUDY_UID, checked
from hume_sync.store.records import ItemRef, dumps, new_ref, now
from hume_sync.store.schema import INVALIDATE_EFFORT


@dataclass
class SubsetSummary:
    """What ``init`` did to one subset."""

    key: str
    task_type: str
    n_instances: int
    n_train: int
    report: dict[str, Any]
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0


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


def refuse_another_spec(store: StoreConnection, spec_hash: str, *, force: bool) -> None:
    """Refuse to re-initialise a study from a spec other than the one it was made from.

    Checked before any planning (which may read large sources), so that re-running ``init``
    with another spec says so at once; ``force`` re-initialises.

    Raises:
        StoreError: the store was initialised from a spec with another hash, and not ``force``.
    """
    old_hash = store.study_meta().spec_hash
    if old_hash is not None and old_hash != spec_hash and not force:
        raise StoreError(
            f"{store.path}: the study was initialised from a different spec "
            f"(hash {old_hash[:12]}…, now {spec_hash[:12]}…); re-run with force to re-initialise"
        )


def apply_plans(
    store: StoreConnection,
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
    initialised = store.study_meta().spec_hash is not None
    strict = initialised and not force
    with store.transaction() as conn:
        before = conn.total_changes
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
        if conn.total_changes != before:  # the effort block reads the subsets and instances
            conn.execute(INVALIDATE_EFFORT)
    return summaries


def _conflict(what: str) -> StoreError:
    return StoreError(
        f"the store differs from the spec and its data ({what}); re-run with force to re-initialise"
    )


def _write_meta(conn: sqlite3.Connection, meta: Mapping[str, str], *, strict: bool) -> None:
    wanted = dict(meta)
    current = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if "created_at" not in current:
        wanted["created_at"] = now()
    if STUDY_UID not in current:  # made here, not by the first setup: one commit fewer there
        wanted[STUDY_UID] = secrets.token_hex(8)
    for key, value in wanted.items():
        checked(key, value)
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
        # what pull kept of its projects (a subset pulled before anyone answered)
        conn.execute("DELETE FROM ls_sync WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM answer_summaries WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM mirror_tasks WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM mirror_state WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM train_items WHERE subset_key = ?", (key,))
        conn.execute("DELETE FROM subsets WHERE subset_key = ?", (key,))
