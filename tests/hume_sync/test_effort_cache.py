"""The effort and quality block kept in the store (hume_sync.store.effort_cache, issue 38).

``status`` computes the block once after the answers, the plan, the annotators or the seats
change, and reads it back until then; the numbers read back are the ones computed, to the bit.
The study is test_effort_quality's: a real SIB-200 study with three scripted annotators.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio.annotators import plan_seats
from hume_sync.store import AnnotationRecord, Store
from hume_sync.workflow import status_effort
from tests._studies import real_data_spec, write_spec
from tests.hume_sync.test_effort_quality import CLS, N_CLS, N_RERANK, _script


@pytest.fixture()
def study(tmp_path: Any) -> dict[str, Any]:
    root = tmp_path / "study"
    spec = real_data_spec("effortcache", 5, cls_eng=N_CLS, cls_arb=8, sts=6, rerank=N_RERANK)
    spec["annotators"] = 3
    assert main(["init", str(root), "--spec", str(write_spec(root, spec))]) == 0
    with Store.open(root) as store:
        made = _script(store)
    made["root"] = root
    return made


@pytest.fixture()
def computed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the block's computations (the kept block is read back without one)."""
    calls: list[int] = []
    real = status_effort.computed_effort

    def counted(*args: Any) -> dict[str, Any]:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(status_effort, "computed_effort", counted)
    return calls


def _fresh(store: Store) -> dict[str, Any]:
    """The block computed from the rows now, as ``status`` computed it before it was kept."""
    seats = plan_seats(store)
    return status_effort.computed_effort(store, seats, store.annotators())


def test_kept_block_is_read_back_with_the_same_numbers(
    study: dict[str, Any], computed: list[int]
) -> None:
    with Store.open(study["root"]) as store:
        first = status_effort.effort_json(store)
        assert len(computed) == 1 and store.kept_effort().block is not None
        again = status_effort.effort_json(store)
        assert len(computed) == 1  # read back, not computed
        fresh = _fresh(store)
    assert again == first
    # what status --json prints and the text it shows are those of the block computed now
    assert json.dumps(again) == json.dumps({"as_of": None, **fresh})
    assert status_effort.effort_lines(again) == status_effort.effort_lines({"as_of": None, **fresh})
    a3 = next(a for a in again["annotators"] if a["annotator"] == study["keys"][2])
    assert any(f["signal"] == "fast" for f in a3["flags"])
    assert a3["median_s"] == fresh["annotators"][2]["median_s"]


def test_a_changed_answer_recomputes_an_unchanged_one_does_not(
    study: dict[str, Any], computed: list[int]
) -> None:
    a1 = study["keys"][0]
    with Store.open(study["root"]) as store:
        before = status_effort.effort_json(store)
        inst = store.instances(CLS)[1]
        row = next(
            r for r in store.annotations(CLS) if r.annotator == a1 and r.hume_id == inst.hume_id
        )
        same = AnnotationRecord(
            row.ls_annotation_id,
            row.hume_id,
            row.ls_task_id,
            a1,
            row.answer,
            lead_time=row.lead_time,
        )
        store.upsert_annotations([same])  # a pull that read the answer again, unchanged
        status_effort.effort_json(store)
        assert len(computed) == 1
        slower = AnnotationRecord(
            row.ls_annotation_id, row.hume_id, row.ls_task_id, a1, row.answer, lead_time=121.0
        )
        store.upsert_annotations([slower])  # an edit: 21 s → 121 s
        after = status_effort.effort_json(store)
        assert len(computed) == 2 and after == json.loads(
            json.dumps({"as_of": None, **_fresh(store)})
        )
    hours = {a["annotator"]: a["hours_so_far"] for a in before["annotators"]}
    later = {a["annotator"]: a["hours_so_far"] for a in after["annotators"]}
    assert later[a1] == pytest.approx(hours[a1] + 100 / 3600)


def test_annotators_and_seats_are_part_of_what_the_block_is_kept_for(
    study: dict[str, Any], computed: list[int]
) -> None:
    with Store.open(study["root"]) as store:
        status_effort.effort_json(store)
        store.retire_annotator(2)
        retired = status_effort.effort_json(store)
        assert len(computed) == 2
        assert next(a for a in retired["annotators"] if a["annotator"] == study["keys"][1])[
            "retired"
        ]
        store.add_annotator("ann4@example.org", ["eng"], "http://127.0.0.1:9204", None)
        status_effort.effort_json(store)  # a new seat holder: the seats moved
        assert len(computed) == 3
        status_effort.effort_json(store)
        assert len(computed) == 3


def test_a_write_while_status_computes_keeps_no_block(study: dict[str, Any]) -> None:
    """A pull that commits between the generation read and the keep: the block may mix old
    and new rows, so it is not kept."""
    with Store.open(study["root"]) as store:
        kept = store.kept_effort()
        row = store.annotations(CLS)[0]
        store.upsert_annotations(
            [
                AnnotationRecord(
                    row.ls_annotation_id, row.hume_id, row.ls_task_id, row.annotator,
                    row.answer, lead_time=7.0,
                )
            ]
        )  # fmt: skip
        assert store.kept_effort().generation == kept.generation + 1
        assert not store.keep_effort(kept.generation, "inputs", "{}")
        assert store.kept_effort().block is None
        now = store.kept_effort().generation
    # a plan written again unchanged writes nothing; a changed one moves the generation
    assert main(["init", str(study["root"]), "--force"]) == 0
    with Store.open(study["root"]) as store:
        assert store.kept_effort().generation == now
    spec = real_data_spec("effortcache", 5, cls_eng=N_CLS, cls_arb=9, sts=6, rerank=N_RERANK)
    spec["annotators"] = 3
    changed = write_spec(study["root"].parent / "changed", spec)
    assert main(["init", str(study["root"]), "--spec", str(changed), "--force"]) == 0
    with Store.open(study["root"]) as store:
        assert store.kept_effort().generation == now + 1


def test_a_store_that_cannot_be_written_shows_the_block_computed(
    study: dict[str, Any], computed: list[int]
) -> None:
    with Store.open(study["root"]) as store:
        blocker = sqlite3.connect(study["root"] / "study.sqlite", timeout=0)
        blocker.execute("BEGIN IMMEDIATE")  # another writer holds the store
        try:
            store._conn.execute("PRAGMA busy_timeout = 0")
            shown = status_effort.effort_json(store)
        finally:
            blocker.rollback()
            blocker.close()
        assert store.kept_effort().block is None and len(computed) == 1
        assert shown == json.loads(json.dumps({"as_of": None, **_fresh(store)}))


def test_a_block_kept_by_other_code_is_not_read_back(
    study: dict[str, Any], computed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(study["root"]) as store:
        status_effort.effort_json(store)
        monkeypatch.setattr(status_effort, "_code_digest", lambda: "another version of hume")
        status_effort.effort_json(store)
        assert len(computed) == 2
