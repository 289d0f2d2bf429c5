"""Who holds a seat once someone leaves (no server): a retired slot keeps only the subsets it
finished with valid answers, and every other seat of theirs goes to the next annotator who
speaks the language and does not have that subset yet, or stays open."""

from __future__ import annotations

from pathlib import Path

import yaml

from hume_sync.labelstudio.annotators import plan_seats
from hume_sync.store import AnnotationRecord, Store
from hume_sync.workflow.init import init_from_spec
from tests._studies import real_data_spec


def _study(tmp_path: Path) -> Path:
    d = tmp_path / "study"
    d.mkdir()
    spec = real_data_spec("leave", 4, cls_eng=3, cls_arb=2, sts=2, rerank=2)
    (d / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(d)
    return d


def _project(store: Store, key: str, slot: int, first_task: int) -> dict[str, int]:
    """Record a project of ``key`` on ``slot`` and its tasks; hume_id → task id."""
    store.set_slot_project(key, slot, 100 * slot + first_task, f"m-{key}-{slot}")
    tasks = {i.hume_id: first_task + n for n, i in enumerate(store.instances(key))}
    store.set_slot_tasks(key, slot, tasks)
    return tasks


def _answers(store: Store, key: str, slot: int, tasks: dict[str, int], statuses: list[str]):
    records = [
        AnnotationRecord(
            ls_annotation_id=tid,
            hume_id=hid,
            ls_task_id=tid,
            annotator=f"annotator-{slot}",
            answer=None if status != "valid" else 1,
            status=status,
            slot=slot,
        )
        for (hid, tid), status in zip(tasks.items(), statuses, strict=False)
    ]
    store.upsert_annotations(records, subset=key)


def test_a_retired_slot_keeps_only_what_it_finished(tmp_path: Path) -> None:
    with Store.open(_study(tmp_path) / "study.sqlite") as store:
        kind = {(s.task_type, s.language[:3]): s.key for s in store.subsets()}
        sts, cls_eng, cls_arb = (
            kind["sts", "eng"],
            kind["classification", "eng"],
            kind["classification", "arb"],
        )
        clustering = kind["clustering", "eng"]
        a = store.add_annotator("a@x.org", ["eng", "ara"], "http://127.0.0.1:1", 1)
        b = store.add_annotator("b@x.org", ["eng"], "http://127.0.0.1:2", 1)
        c = store.add_annotator("c@x.org", ["eng"], "http://127.0.0.1:3", 1)
        # HUME's policy: English seats 2 (A, B), Arabic 1 (A); C has nothing yet
        plan = plan_seats(store)
        assert plan[sts] == plan[cls_eng] == plan[clustering] == [a.slot, b.slot]
        assert plan[cls_arb] == [a.slot]
        for key, first in ((sts, 1), (cls_eng, 10)):
            for slot in (a.slot, b.slot):
                _project(store, key, slot, first)
        arb = _project(store, cls_arb, a.slot, 20)
        # A: every STS item valid; every English item answered, but one invalid; one Arabic
        _answers(store, sts, a.slot, store.slot_tasks(sts, a.slot), ["valid", "valid"])
        eng = store.slot_tasks(cls_eng, a.slot)
        _answers(store, cls_eng, a.slot, eng, ["valid", "invalid", "valid"])
        _answers(store, cls_arb, a.slot, arb, ["valid"])
        assert store.retire_annotator(a.slot) == 1
        assert store.retire_annotator(a.slot) == 0  # once: the first time stays
        assert store.annotator(a.slot).retired_at is not None
        plan = plan_seats(store)
        assert plan[sts] == [a.slot, b.slot]  # finished: stays hers
        assert plan[cls_eng] == [b.slot, c.slot]  # an invalid answer is not done: C takes it
        assert plan[clustering] == [b.slot, c.slot]  # no project yet: she gets no new seat
        assert plan[cls_arb] == [None]  # nobody else speaks Arabic: open
        # her answers stay in the store, all of them
        mine = [x for x in store.annotations() if x.slot == a.slot]
        assert [x.status for x in mine].count("valid") == 5 and len(mine) == 6
