"""Pull streams (issue 14): the JSON export is parsed as it arrives, every project goes straight
into the store, one commit at the end. Here without a server: the parser on awkward chunks and
broken answers, pull with a fake client whose export is a generator (memory flat in the number
of annotations, a failure half-way leaves the store as it was), and the store's scope rule."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from hume_sync import task_types
from hume_sync.labelstudio.client import (
    LabelStudioClient,
    LabelStudioError,
    LabelStudioNotFoundError,
    LabelStudioUnreachableError,
)
from hume_sync.store import AnnotationRecord, Store, StoreError, gold
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.pull import pull_study
from tests._studies import real_data_spec
from tests.task_type_examples import examples

CLS = "SIB200Classification/eng_Latn"
STS = "STSBenchmark/default"


def _client() -> LabelStudioClient:
    return LabelStudioClient("http://127.0.0.1:9", "secret-token")


def _chunks(raw: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(raw), size):
        yield raw[start : start + size]


TASKS = [
    {"id": n, "data": {"text": f"t{n} ünïcode"}, "annotations": [{"id": 10 + n, "lead_time": 1.5}]}
    for n in range(40)
]


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_export_is_parsed_whatever_the_chunks(size: int) -> None:
    raw = json.dumps(TASKS, ensure_ascii=False).encode()
    got = list(_client()._parse_export("op", _chunks(b"  \n" + raw, size)))
    assert got == TASKS
    assert isinstance(got[0]["annotations"][0]["lead_time"], float)  # not Decimal


@pytest.mark.parametrize(
    "raw",
    [b'{"detail": "nope"}', b"<html>error</html>", b'[{"id": 1}, 3]', b'[{"id": 1}, {"id":'],
)
def test_an_export_that_is_not_a_list_of_tasks_is_one_clear_error(raw: bytes) -> None:
    with pytest.raises(LabelStudioError, match="not a JSON list of tasks") as info:
        list(_client()._parse_export("export annotations of project 3", _chunks(raw, 5)))
    assert "secret-token" not in str(info.value)


def test_a_connection_that_breaks_half_way_is_a_label_studio_error() -> None:
    def broken() -> Iterator[bytes]:
        yield b'[{"id": 1, "annotations": []},'
        raise httpx.ReadError("connection reset")

    parsed = _client()._parse_export("export annotations of project 3", broken())
    assert next(parsed) == {"id": 1, "annotations": []}
    with pytest.raises(LabelStudioUnreachableError, match="closed the connection"):
        next(parsed)


# ---- pull with a fake client


@pytest.fixture
def study(tmp_path: Path) -> Path:
    d = tmp_path / "study"
    d.mkdir()
    spec = real_data_spec("stream", 5, cls_eng=150, cls_arb=2, sts=4, rerank=2)
    (d / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(d)
    with Store.open(d) as st:
        st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:7001", 5)
        for n, key in enumerate((CLS, STS)):
            st.set_slot_project(key, 1, 100 + n, f"hume:{n}")
            st.set_slot_tasks(
                key, 1, {i.hume_id: 1000 * (n + 1) + k for k, i in enumerate(st.instances(key))}
            )
    return d


class FakeClient:
    """Streams `per_task` annotations on every task of each project; can fail after `fail_after`
    tasks of project `fail_in`, or answer 404 for project `missing`."""

    def __init__(self, store: Store, per_task: int, **faults: Any) -> None:
        self.per_task = per_task
        self.faults = faults
        self.projects: dict[int, list[tuple[int, list[dict[str, Any]]]]] = {}
        for p in store.slot_projects():
            sub = store.subset(p.subset_key)
            task_type = task_types.get(sub.task_type)
            golds = gold(store, p.subset_key)
            rows = []
            for inst in store.instances(p.subset_key):
                kw = task_type.ls_translation_kwargs(sub.config, inst.content)
                answer = examples(sub.task_type).perfect_answer(golds[inst.hume_id])
                rows.append(
                    (
                        store.slot_tasks(p.subset_key, 1)[inst.hume_id],
                        task_type.ls_answer_to_result(answer, **kw),
                    )
                )
            self.projects[p.ls_project_id] = rows

    def export_annotated_tasks(self, pid: int) -> Iterator[dict[str, Any]]:
        if pid == self.faults.get("missing"):
            raise LabelStudioNotFoundError("gone", url="http://x", operation="export")

        def tasks() -> Iterator[dict[str, Any]]:
            for k, (tid, result) in enumerate(self.projects[pid]):
                if pid == self.faults.get("fail_in") and k == self.faults.get("fail_after"):
                    raise LabelStudioUnreachableError("closed", url="http://x", operation="export")
                yield {
                    "id": tid,
                    "annotations": [
                        {
                            "id": tid * 1000 + j,
                            "completed_by": 5,
                            "result": result,
                            "lead_time": 2.0,
                            "created_at": "2026-01-01T00:00:00Z",
                            "updated_at": f"2026-01-01T00:00:{j % 60:02d}Z",
                        }
                        for j in range(self.per_task)
                    ],
                }

        return tasks()


def _dump(study: Path) -> list[str]:
    conn = sqlite3.connect(study / "study.sqlite")
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _peak_pull(study: Path, per_task: int, copy: Path) -> tuple[int, int]:
    """(traced peak bytes during pull, annotations added) on a fresh copy of the study."""
    shutil.copytree(study, copy)
    with Store.open(copy) as st:
        client = FakeClient(st, per_task)
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            summary = pull_study(st, lambda url: client, full=True)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return peak, summary.total("added")


def test_pull_memory_does_not_grow_with_the_number_of_annotations(
    study: Path, tmp_path: Path
) -> None:
    _peak_pull(study, 1, tmp_path / "warm")  # imports and caches
    small, added_small = _peak_pull(study, 1, tmp_path / "small")
    big, added_big = _peak_pull(study, 12, tmp_path / "big")
    assert (added_small, added_big) == (154, 154 * 12)
    # Holding one project's records in a list (what pull did) takes about 560 KB more here.
    assert big - small < 256 * 1024, (small, big)


def test_pull_that_fails_half_way_leaves_the_store_as_it_was(study: Path) -> None:
    with Store.open(study) as st:
        assert pull_study(st, lambda url: FakeClient(st, 1), full=True).total("added") == 154
    before = _dump(study)
    with Store.open(study) as st:
        client = FakeClient(st, 3, fail_in=101, fail_after=2)  # STS, after CLS was written
        with pytest.raises(LabelStudioUnreachableError):
            pull_study(st, lambda url: client, full=True)
    assert _dump(study) == before
    with Store.open(study) as st:
        summary = pull_study(st, lambda url: FakeClient(st, 3), full=True)
        assert (summary.total("added"), summary.total("unchanged")) == (308, 154)


def test_pull_skips_a_missing_project_and_keeps_what_came_from_it(study: Path) -> None:
    with Store.open(study) as st:
        pull_study(st, lambda url: FakeClient(st, 2), full=True)
        client = FakeClient(st, 1, missing=100)
        summary = pull_study(st, lambda url: client, full=True)
        assert (
            len(summary.missing_projects) == 1
            and "project 100 is gone" in summary.missing_projects[0]
        )
        assert summary.counts[STS].deleted == 4  # the second answer of each STS task
        assert summary.counts[CLS].deleted == 0
        assert len(st.annotations(CLS)) == 300


def test_scope_none_means_the_tasks_the_store_records_for_the_slot(study: Path) -> None:
    with Store.open(study) as st:
        h = [i.hume_id for i in st.instances(STS)]
        st.upsert_annotations(
            [
                AnnotationRecord(1, h[0], 2000, "annotator-1", answer=3, slot=1),
                AnnotationRecord(2, h[1], 2001, "annotator-1", answer=4, slot=1),
                AnnotationRecord(3, h[2], 2002, "annotator-1", answer=4, slot=1),
                AnnotationRecord(4, h[2], 40, "ls-user-2", answer=4, slot=0),  # schema 1
            ]
        )
        st.set_slot_tasks(STS, 1, {h[1]: 5001})  # h[1]'s task was made again elsewhere
        c = st.upsert_annotations([], subset=STS, scope={1: None})
        assert c.deleted == 2  # annotations 1 and 3: their tasks are the slot's, they are gone
        assert [(a.slot, a.ls_annotation_id) for a in st.annotations(STS)] == [(0, 4), (1, 2)]
        with pytest.raises(StoreError, match="appears twice"):
            st.upsert_annotations(
                [AnnotationRecord(9, h[0], 2000, "annotator-1", answer=1, slot=1)] * 2, subset=STS
            )
