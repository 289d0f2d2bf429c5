"""The store's schema in one place: declared meta keys only, model scores in their own table
(migrated from the meta rows of schema 5), and the statements an annotation upsert costs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hume_sync.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    AnnotationRecord,
    ModelScoreRecord,
    Store,
    StoreError,
    SubsetPlan,
    apply_plans,
    dumps,
)

KEY = "T/s"


def _one_subset(store: Store, n: int) -> list[str]:
    """A study of one STS subset with ``n`` instances, written the way init writes one."""
    hids = [f"{KEY}/{i}" for i in range(n)]
    plan = SubsetPlan(
        key=KEY, task_name="T", hf_subset="s", task_type="sts", language="eng", config={},
        samples_per_label=None, overlap=1, position=0,
        instances=[
            (h, str(i), i, dumps({"text1": f"a{i}", "text2": f"b{i}"}), "3.0", i)
            for i, h in enumerate(hids)
        ],
        items={}, train=[], report={},
    )  # fmt: skip
    meta = {"study_name": "t", "seed": "1", "spec_hash": "h", "spec": "{}"}
    apply_plans(store, meta, [plan], force=False)
    return hids


def test_an_undeclared_meta_key_is_refused(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        before = store.total_changes
        with pytest.raises(StoreError, match="meta key 'note' is not declared"):
            store.set_meta({"study_name": "ok", "note": "x"})
        assert store.total_changes == before  # not even the declared one was written
        meta = store.meta()
        with pytest.raises(StoreError, match="'note' is not declared"):
            meta.get("note")
        with pytest.raises(StoreError, match="'pulled_a' is not declared"):
            "pulled_a" in meta  # noqa: B015  (a typo of pulled_at: refused, not "absent")
        with pytest.raises(StoreError, match="meta seed: 'forty' is not int"):
            store.set_meta({"seed": "forty"})
        assert store.set_meta({"seed": "42", "closed_at": "2026-01-01T00:00:00Z"}) == 2
        typed = store.study_meta()
        assert (typed.seed, typed.closed_at, typed.closed, typed.id_scheme) == (
            42,
            "2026-01-01T00:00:00Z",
            True,
            "opaque",
        )
        assert typed.schema_version == SCHEMA_VERSION


def _schema_5_store(path: Path, rows: dict[str, str]) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version in range(1, 6):
        for statement in MIGRATIONS[version]:
            assert isinstance(statement, str)
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?, 'then')", (version,))
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("study_name", "old"), *rows.items()])
    conn.commit()
    conn.close()


def test_a_schema_5_store_moves_its_model_meta_rows_into_tables(tmp_path: Path) -> None:
    path = tmp_path / "v5.sqlite"
    score = {
        "model_version": "emb:org/m", "subset": "T/s", "task_type": "sts",
        "main_score_name": "cosine_spearman", "main_score": 0.5, "scores": {"x": float("nan")},
        "method": "mteb:sts", "n_items": 7, "instances_sha256": "i1", "inputs_sha256": "p1",
    }  # fmt: skip
    older = {**score, "subset": "T/t", "main_score": None, "scores": None}
    del older["inputs_sha256"]  # a record from before predict wrote the inputs' digest
    _schema_5_store(
        path,
        {
            "model_score/emb:org/m/T/s": json.dumps(score),
            "model_score/emb:org/m/T/t": json.dumps(older),
            "model_meta/emb:org/m": json.dumps({"embed_dim": 384}),
        },
    )
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        s, t = store.model_score_records()
        assert store.model_facts() == {"emb:org/m": {"embed_dim": 384}}
        assert dict(store.meta()) == {"study_name": "old", "schema_version": "11"}
    assert (s.model_version, s.subset, s.main_score, s.n_items) == ("emb:org/m", "T/s", 0.5, 7)
    assert s.scores is not None and s.scores["x"] != s.scores["x"]  # NaN survives the move
    assert (s.instances_sha256, s.inputs_sha256) == ("i1", "p1")
    assert t == ModelScoreRecord(
        "emb:org/m", "T/t", "sts", "cosine_spearman", None, None, "mteb:sts", 7, "i1", ""
    )


def test_a_broken_model_meta_row_stops_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "v5.sqlite"
    _schema_5_store(path, {"model_score/emb:m/T/s": "{not json"})
    with pytest.raises(StoreError) as caught:
        Store.open(path)
    message = str(caught.value)
    assert "\n" not in message and "migration to schema v7" in message
    assert "'model_score/emb:m/T/s'" in message and "left as it was" in message
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone() == (6,)
    assert conn.execute("SELECT COUNT(*) FROM meta WHERE key LIKE 'model_score/%'").fetchone()[0]
    conn.close()


def _statements(store: Store, batch: list[AnnotationRecord]) -> tuple[int, tuple[int, ...]]:
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    try:
        c = store.upsert_annotations(batch)
    finally:
        store._conn.set_trace_callback(None)
    return len(seen), (c.added, c.updated, c.unchanged)


def test_an_annotation_upsert_costs_two_statements(tmp_path: Path) -> None:
    """Added, unchanged or updated: two statements per annotation (it was five), counted as
    the difference between a batch of 30 and one of 10 so that per-batch work drops out."""
    with Store.open(tmp_path / "s.sqlite") as store:
        hids = _one_subset(store, 30)
        slot = store.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:9", 2).slot
        store.set_slot_tasks(KEY, slot, {h: 100 + i for i, h in enumerate(hids)})

        def batch(n: int, answer: float) -> list[AnnotationRecord]:
            return [
                AnnotationRecord(i, hids[i], 100 + i, "annotator-1", answer, slot=slot)
                for i in range(n)
            ]

        small, counts = _statements(store, batch(10, 1.0))
        assert counts == (10, 0, 0)
        big, counts = _statements(store, batch(30, 1.0))
        assert counts == (20, 0, 10)
        assert (big - small) / 20 <= 2
        same, counts = _statements(store, batch(30, 1.0))
        changed, counts_changed = _statements(store, batch(30, 2.0))
        assert counts == (0, 0, 30) and counts_changed == (0, 30, 0)
        # unchanged and updated rows cost the same statements; a batch that wrote drops its
        # project's answer summary and the kept effort block: one statement each per batch
        # (and project), not per row
        assert same + 2 == changed == big
        assert [a.answer for a in store.annotations(KEY)] == [2.0] * 30
        # the project's tasks, read at once for pull and status
        ours = store.project_instances(KEY, slot)
        assert len(ours) == 30 and ours[107].hume_id == hids[7]
        assert ours[107].content == {"text1": "a7", "text2": "b7"}
        assert ours.get(99) is None and store.project_instances(KEY, slot + 1) == {}
