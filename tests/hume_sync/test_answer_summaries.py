"""Each project's answers summed up (``answer_summaries``): the same numbers as counting the
rows, dropped by any write of the project's answers, and kept in step by the changed tasks
alone (the old sums less their old answers plus their new ones)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hume_sync.store import AnnotationRecord, Store, SubsetPlan, apply_plans, dumps
from hume_sync.store.answer_summaries import AnswerSummary, iso, micros

KEY = "T/s"


def _study(store: Store, n: int = 6) -> list[str]:
    """One STS subset of ``n`` instances, two annotators whose tasks are 100.. and 200.."""
    hids = [f"{KEY}/{i}" for i in range(n)]
    plan = SubsetPlan(
        key=KEY, task_name="T", hf_subset="s", task_type="sts", language="eng", config={},
        samples_per_label=None, overlap=2, position=0,
        instances=[
            (h, str(i), i, dumps({"text1": f"a{i}", "text2": f"b{i}"}), "3.0", i)
            for i, h in enumerate(hids)
        ],
        items={}, train=[], report={},
    )  # fmt: skip
    apply_plans(
        store, {"study_name": "t", "seed": "1", "spec_hash": "h", "spec": "{}"}, [plan], force=False
    )
    for slot, base in ((1, 100), (2, 200)):
        assert store.add_annotator(f"a{slot}@x.org", ["eng"], f"http://h:{slot}", slot).slot == slot
        store.set_slot_tasks(KEY, slot, {h: base + i for i, h in enumerate(hids)})
    return hids


def _rec(
    hids: list[str],
    ann: int,
    task: int,
    status: str,
    lead: float | None,
    created: str | None,
) -> AnnotationRecord:
    return AnnotationRecord(
        ann, hids[task - 100], task, "annotator-1", None if status != "valid" else 3.0,
        status=status, error="bad" if status == "invalid" else None, slot=1,
        lead_time=lead, created_at=created,
    )  # fmt: skip


def _answers(hids: list[str]) -> list[AnnotationRecord]:
    """Slot 1's answers: task 100 valid; 101 invalid and then valid; 102 only skipped; 103 only
    invalid; 104 valid without a lead time; 105 valid (the same lead time as 100's)."""
    return [
        _rec(hids, 1, 100, "valid", 4.0, "2026-01-01T10:00:00Z"),  # no fraction
        _rec(hids, 2, 101, "invalid", 9.0, "2026-01-01T07:00:00Z"),
        _rec(hids, 3, 101, "valid", 2.5, "2026-01-01T09:00:00.500000Z"),
        _rec(hids, 4, 102, "cancelled", 1.0, "2026-01-01T06:00:00Z"),
        _rec(hids, 5, 103, "invalid", 3.0, None),
        _rec(hids, 6, 104, "valid", None, "2026-01-01T11:30:00.250000Z"),
        _rec(hids, 7, 105, "valid", 4.0, "2026-01-01T08:00:00.000001Z"),
    ]


def test_the_sums_are_the_rows_counted_by_hand(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        hids = _study(store)
        store.upsert_annotations(_answers(hids), subset=KEY, scope={1: None})
        assert store.answer_summary(KEY, 1) is None  # only pull writes one
        whole = store.computed_answer_summary(KEY, 1)
        # 7 live rows; tasks answered 100, 101, 104, 105; 103 only invalid; 102 only skipped
        assert (whole.answers, whole.cancelled, whole.invalid_rows) == (7, 1, 2)
        assert (whole.answered, whole.invalid, whole.skipped) == (4, 1, 1)
        assert whole.leads == [2.5, 4.0, 4.0]  # valid answers' lead times (104 has none)
        assert [iso(t) for t in whole.times] == [
            "2026-01-01T08:00:00.000001Z",
            "2026-01-01T09:00:00.500000Z",
            "2026-01-01T10:00:00.000000Z",
            "2026-01-01T11:30:00.250000Z",
        ]
        tally_rows = store.answer_tally(KEY, 1, leaving_out=[101, 105])
        counted = (store.cancelled_count(KEY, [1, 2]), store.stored_problems(KEY, [1, 2]))
        assert store.summed_count(KEY, 1, "cancelled") is None
        assert store.keep_answer_summary(KEY, 1) == whole  # written once, read back the same
        assert store.summed_count(KEY, 1, "cancelled") == 1
        with pytest.raises(ValueError, match="not a count"):
            store.summed_count(KEY, 1, "leads")
        assert (store.cancelled_count(KEY, [1, 2]), store.stored_problems(KEY, [1, 2])) == counted
        assert store.answer_summary(KEY, 1) == whole
        tally = store.answer_tally(KEY, 1, leaving_out=[101, 105])
        assert tally == tally_rows  # from the summary as from the rows
        # without tasks 101 and 105: 100 valid, 102 skipped, 103 invalid, 104 valid
        assert (tally.answers, tally.answered, tally.invalid, tally.skipped) == (4, 2, 1, 1)
        assert (tally.leads, tally.times) == ([4.0], 2)
        assert (tally.first, tally.last) == (
            "2026-01-01T10:00:00.000000Z",
            "2026-01-01T11:30:00.250000Z",
        )
        assert store.live_annotation_count(KEY, 1) == 7
        assert store.cancelled_count(KEY, [1, 2]) == 1
        assert [p.ls_task_id for p in store.stored_problems(KEY, [1, 2])] == [101, 103]


def test_a_write_drops_the_summary_and_the_changed_tasks_keep_it_in_step(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        hids = _study(store)
        store.upsert_annotations(_answers(hids), subset=KEY, scope={1: None})
        store.keep_answer_summary(KEY, 1)
        other = AnnotationRecord(50, hids[0], 200, "annotator-2", 1.0, slot=2, lead_time=8.0)
        store.upsert_annotations([other], subset=KEY, scope={2: [200]})
        store.keep_answer_summary(KEY, 2)
        # the same rows again: nothing written, nothing dropped
        store.upsert_annotations(_answers(hids), subset=KEY, scope={1: None})
        assert store.answer_summary(KEY, 1) is not None
        before = store.answer_summary(KEY, 1)
        changed = [101, 105]
        old = store.computed_answer_summary(KEY, 1, only=changed)
        # task 101 now holds one valid answer, its invalid one is gone; 105's answer is deleted
        again = [_rec(hids, 3, 101, "valid", 7.0, "2026-01-01T09:00:00.500000Z")]
        with store.annotation_writes() as upsert:
            counts = upsert(again, subset=KEY, scope={1: changed})
            assert (counts.updated, counts.deleted) == (1, 2)
            assert store.answer_summary(KEY, 1) is None  # dropped by the write
            assert store.answer_summary(KEY, 2) is not None  # another slot's: kept
            kept = store.keep_answer_summary(KEY, 1, before, changed, old)
        assert kept == store.computed_answer_summary(KEY, 1) == store.answer_summary(KEY, 1)
        # 100 valid, 101 valid (7.0), 102 skipped, 103 invalid, 104 valid
        assert (kept.answers, kept.cancelled, kept.invalid_rows) == (5, 1, 1)
        assert (kept.answered, kept.invalid, kept.skipped, kept.leads) == (3, 1, 1, [4.0, 7.0])
        assert len(kept.times) == 3


def test_a_summary_out_of_step_with_its_rows_is_not_trusted(tmp_path: Path) -> None:
    """A row edited behind the store's back: taking its task out of the summary finds a lead
    time the summary does not hold, and the tally counts the rows instead."""
    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        hids = _study(store)
        store.upsert_annotations(_answers(hids), subset=KEY, scope={1: None})
        store.keep_answer_summary(KEY, 1)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE annotations SET lead_time = 5.5 WHERE ls_annotation_id = 1")
    conn.close()
    with Store.open(path) as store:
        tally = store.answer_tally(KEY, 1, leaving_out=[100])
        assert tally.leads == [2.5, 4.0]  # 101's and 105's, from the rows


def test_sums_add_and_take_out_exactly() -> None:
    a = AnswerSummary(3, 1, 0, 2, 0, 1, [1.0, 2.0], [10, 30])
    b = AnswerSummary(2, 0, 1, 1, 1, 0, [1.5], [20])
    both = a.plus(b)
    assert both == AnswerSummary(5, 1, 1, 3, 1, 1, [1.0, 1.5, 2.0], [10, 20, 30])
    assert both.minus(b) == a
    with pytest.raises(ValueError, match="not in the summary"):
        a.minus(b)
    many = AnswerSummary(leads=[float(i % 7) for i in range(200)])
    taken = AnswerSummary(leads=[float(i % 7) for i in range(100)])  # past the bisect path
    rest = AnswerSummary(leads=sorted(many.leads)).minus(AnswerSummary(leads=sorted(taken.leads)))
    assert sorted(rest.leads + taken.leads) == sorted(many.leads)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000000Z"),
        ("2026-01-01T01:00:00.000002+01:00", "2026-01-01T00:00:00.000002Z"),
        ("2026-01-01T00:00:00.5", "2026-01-01T00:00:00.500000Z"),  # no zone: UTC
    ],
)
def test_times_round_trip_to_the_microsecond(text: str, expected: str) -> None:
    value = micros(text)
    assert value is not None and iso(value) == expected


@pytest.mark.parametrize("text", [None, "", "yesterday", 3])
def test_what_is_not_a_time_has_none(text: object) -> None:
    assert micros(text) is None


def test_a_subset_pulled_before_anyone_answered_can_still_be_dropped(tmp_path: Path) -> None:
    """init --force drops a subset no longer in the spec when it has no answers: its summary
    (all zeros, written by the pull that found none) goes with it."""
    with Store.open(tmp_path / "s.sqlite") as store:
        _study(store)
        store.keep_answer_summary(KEY, 1)
        assert store.summed_count(KEY, 1, "answers") == 0
        other = SubsetPlan(
            key="U/s", task_name="U", hf_subset="s", task_type="sts", language="eng", config={},
            samples_per_label=None, overlap=1, position=1,
            instances=[("U/s/0", "0", 0, dumps({"text1": "a", "text2": "b"}), "3.0", 0)],
            items={}, train=[], report={},
        )  # fmt: skip
        meta = {"study_name": "t", "seed": "1", "spec_hash": "h2", "spec": "{}"}
        apply_plans(store, meta, [other], force=True)
        assert [s.key for s in store.subsets()] == ["U/s"]
        assert store.summed_count(KEY, 1, "answers") is None
