"""The close is a line in time: answers given or changed after ``closed_at`` are late, and
answers that existed at the close and were deleted after it are still scored as they were.

Time stamps are read as Label Studio writes them; `export` leaves late answers out of every
score unless ``--include-late``, and counts them per subset and annotator either way. The
expected numbers are computed here from the answers, independently of the scoring code.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hume_sync.cli import main
from hume_sync.report.model import read_rows, subset_inputs
from hume_sync.rules.effort_quality import effort_quality
from hume_sync.rules.late_answers import (
    EDITED_NOTE,
    LateAnswerError,
    deleted_late,
    late_answers,
    late_deletions,
    lateness,
    parse_time,
)
from hume_sync.store import AnnotationRecord, AnnotationRow, Store, gold
from hume_sync.workflow.reveal import CLOSED_AT
from tests._studies import real_data_spec, write_spec

CLOSED = "2026-03-02T12:00:00.000000Z"  # the format `hume-sync close` writes
BEFORE = "2026-03-02T11:59:59.999999Z"
AFTER = "2026-03-02T12:00:00.000001Z"
SUBSET = "SIB200Classification/eng_Latn"


def row(created: str | None, updated: str | None) -> AnnotationRow:
    return AnnotationRow(1, "t/s/1", 1, "a", "x", created_at=created, updated_at=updated)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-02T12:00:00.123456Z", datetime(2026, 3, 2, 12, 0, 0, 123456, tzinfo=UTC)),
        # Another server time zone: Label Studio writes the offset; 13:30+02:00 is 11:30 UTC.
        ("2026-03-02T13:30:00+02:00", datetime(2026, 3, 2, 11, 30, tzinfo=UTC)),
        ("2026-03-02T12:00:00", datetime(2026, 3, 2, 12, 0, tzinfo=UTC)),  # no offset: UTC
        (None, None),
        ("", None),
    ],
)
def test_parse_time_reads_label_studio_stamps_as_utc(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "2026-13-40T00:00:00Z", 1700000000])
def test_parse_time_rejects_what_is_not_a_stamp(text):
    with pytest.raises(LateAnswerError, match="not an ISO 8601 time stamp"):
        parse_time(text, what="annotation 7's created_at")


@pytest.mark.parametrize(
    ("created", "updated", "expected"),
    [
        (BEFORE, BEFORE, (False, False)),
        (BEFORE, CLOSED, (False, False)),  # at the close itself: not after it
        (BEFORE, AFTER, (True, True)),  # edited after the close
        (AFTER, AFTER, (True, False)),  # given after the close
        ("2026-03-02T13:59:00+02:00", None, (False, False)),  # 11:59 UTC
        ("2026-03-02T14:00:01+02:00", None, (True, False)),  # 12:00:01 UTC
        (None, AFTER, (True, False)),  # creation unknown: late, not known to be an edit
    ],
)
def test_lateness_compares_both_times_with_the_close(created, updated, expected):
    assert lateness(row(created, updated), parse_time(CLOSED)) == expected


@pytest.mark.parametrize(
    ("created", "updated", "deleted", "expected"),
    [
        (BEFORE, BEFORE, None, False),  # still in Label Studio
        (BEFORE, BEFORE, AFTER, True),  # existed at the close, gone after it
        (BEFORE, AFTER, AFTER, True),  # edited, then deleted, after the close
        (BEFORE, BEFORE, BEFORE, False),  # found gone before the close: as if never given
        (BEFORE, BEFORE, CLOSED, False),  # found gone at the close itself: not after it
        (AFTER, AFTER, AFTER, False),  # given after the close: never existed at it
        (CLOSED, CLOSED, AFTER, True),  # given at the close itself: it existed then
        (None, BEFORE, AFTER, True),  # creation unknown: its last update dates it
        (None, AFTER, AFTER, False),
        (None, None, AFTER, True),  # nothing known: kept, as what may have existed
    ],
)
def test_deleted_late_is_existing_at_the_close_and_gone_after_it(
    created, updated, deleted, expected
):
    deleted_row = AnnotationRow(
        1, "t/s/1", 1, "a", "x", created_at=created, updated_at=updated, deleted_at=deleted
    )
    assert deleted_late(deleted_row, parse_time(CLOSED)) is expected


@pytest.fixture
def study(tmp_path: Path) -> dict:
    """English classification, 8 items, two annotators; the study closed at CLOSED.

    'a' answers every item right before the close, then edits item 0 to a wrong label after
    it. 'b' answers items 0-3 wrong before the close and items 4-7 right after it. One invalid
    answer by 'b' (never scored) and one cancelled one.
    """
    path = tmp_path / "study"
    spec = real_data_spec("late", 5, cls_eng=8, cls_arb=3, sts=4, rerank=2)
    assert main(["init", str(path), "--spec", str(write_spec(path, spec))]) == 0
    with Store.open(path) as store:
        sub = store.subset(SUBSET)
        golds = gold(store, SUBSET)
        labels = sub.config["label_set"]
        insts = store.instances(SUBSET)
        wrong = {i.hume_id: next(lab for lab in labels if lab != golds[i.hume_id]) for i in insts}
        recs = []
        for k, inst in enumerate(insts):
            hid = inst.hume_id
            a_answer, a_updated = (wrong[hid], AFTER) if k == 0 else (golds[hid], BEFORE)
            recs.append(
                AnnotationRecord(
                    100 + k, hid, k + 1, "a", a_answer, "valid", None, 5.0, BEFORE, a_updated
                )
            )
            b_answer, b_time = (wrong[hid], BEFORE) if k < 4 else (golds[hid], AFTER)
            recs.append(
                AnnotationRecord(
                    200 + k, hid, k + 1, "b", b_answer, "valid", None, 5.0, b_time, b_time
                )
            )
        recs.append(
            AnnotationRecord(
                300, insts[0].hume_id, 1, "b", None, "invalid", "no choice", None, BEFORE, BEFORE
            )
        )
        recs.append(
            AnnotationRecord(
                301, insts[1].hume_id, 2, "c", None, "cancelled", None, None, AFTER, AFTER
            )
        )
        store.upsert_annotations(recs, subset=SUBSET)
        store.set_meta({CLOSED_AT: CLOSED})
        n_rows = len(store.annotations(SUBSET))
    return {"dir": path, "n": len(insts), "rows": n_rows}


def export(study: dict, tmp_path: Path, *flags: str) -> dict:
    out = tmp_path / ("out" + "".join(flags))
    assert main(["export", str(study["dir"]), "--out", str(out), *flags]) == 0
    data = json.loads((out / "scores.json").read_text())
    data["_md"] = (out / "report.md").read_text()
    data["_html"] = (out / "report.html").read_text()
    with (out / "scores.csv").open() as fh:
        data["_csv"] = list(csv.DictReader(fh))
    return data


def subset_of(data: dict) -> dict:
    return next(s for s in data["subsets"] if s["subset"] == SUBSET)


def test_late_answers_lists_valid_answers_after_the_close(study):
    with Store.open(study["dir"]) as store:
        late = late_answers(store)
    assert sorted((x.annotator, x.ls_annotation_id, x.edited) for x in late) == [
        ("a", 100, True),
        ("b", 204, False),
        ("b", 205, False),
        ("b", 206, False),
        ("b", 207, False),
    ]  # the late cancelled answer is not a scored answer, so it is not listed


def test_export_leaves_late_answers_out_and_counts_them(study, tmp_path, capsys):
    capsys.readouterr()
    data = export(study, tmp_path)
    err = capsys.readouterr().err
    s = subset_of(data)
    # 'a': items 1-7, all right (item 0 was edited after the close); 'b': items 0-3, all wrong.
    assert s["human"]["per_rater"] == {"a": 1.0, "b": 0.0}
    assert s["left_out"] == {
        "invalid": {"b": 1},
        "late": {"a": 1, "b": 4},
        "late_edited": {"a": 1},
        "late_deleted": {},
        "late_included": False,
    }
    assert s["coverage"]["annotations"] == 7 + 4
    assert (
        "5 late answer(s) (given or changed after the close) left out of scoring" in (s["warnings"])
    )
    assert (data["closed_at"], data["include_late"], data["late_answers"]) == (CLOSED, False, 5)
    assert data["invalid_answers"] == 1
    csv_rows = {r["rater"]: float(r["score"]) for r in data["_csv"] if r["subset"] == SUBSET}
    assert (csv_rows["a"], csv_rows["b"]) == (1.0, 0.0)
    md = data["_md"]
    assert f"Annotation closed at {CLOSED}; 5 late answer(s) left out of every score" in md
    assert f"| {SUBSET} | a | 1 | 1 | 0 |" in md and f"| {SUBSET} | b | 4 | 0 | 1 |" in md
    assert EDITED_NOTE in md and EDITED_NOTE in data["_html"]
    assert f"note: 5 answer(s) given or changed after the close at {CLOSED} left out" in err
    with Store.open(study["dir"]) as store:  # nothing deleted: the store keeps every answer
        assert len(store.annotations(SUBSET)) == study["rows"]


def test_export_include_late_scores_them_and_says_so(study, tmp_path, capsys):
    capsys.readouterr()
    data = export(study, tmp_path, "--include-late")
    err = capsys.readouterr().err
    s = subset_of(data)
    n = study["n"]
    # 'a': 7 of 8 right (item 0 edited to a wrong label); 'b': items 4-7 right, 0-3 wrong.
    assert s["human"]["per_rater"] == {"a": pytest.approx((n - 1) / n), "b": 0.5}
    assert s["left_out"]["late"] == {"a": 1, "b": 4} and s["left_out"]["late_included"]
    assert s["coverage"]["annotations"] == 2 * n
    assert (
        "5 late answer(s) (given or changed after the close) included in the scores on "
        "request" in s["warnings"]
    )
    assert data["include_late"] is True
    assert "5 late answer(s) included in every score (--include-late)" in data["_md"]
    assert "included (--include-late)" in err


def test_an_open_study_has_no_late_answers(study, tmp_path):
    conn = sqlite3.connect(study["dir"] / "study.sqlite")  # a study never closed
    with conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (CLOSED_AT,))
    conn.close()
    with Store.open(study["dir"]) as store:
        assert late_answers(store) == []
    data = export(study, tmp_path)
    s = subset_of(data)
    assert s["left_out"]["late"] == {}
    assert s["human"]["per_rater"]["b"] == 0.5  # every valid answer scored
    assert "Annotation is open (no close recorded)" in data["_md"]


def test_a_corrupt_close_stamp_is_a_one_line_error(study, tmp_path, capsys):
    with Store.open(study["dir"]) as store:
        store.set_meta({CLOSED_AT: "not a time"})
    capsys.readouterr()
    assert main(["export", str(study["dir"]), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "hume-sync export: error: the store's closed_at 'not a time' is not an ISO 8601 time stamp"
    )


def delete_in_label_studio(study: dict, ls_ids: set[int]) -> None:
    """What pull does when Label Studio no longer has these annotations: the subset's batch
    without them (they get ``deleted_at``, the time of this pull: after CLOSED)."""
    with Store.open(study["dir"]) as store:
        kept = [r for r in store.annotations(SUBSET) if r.ls_annotation_id not in ls_ids]
        records = [AnnotationRecord(**{k: getattr(r, k) for k in FIELDS}) for r in kept]
        counts = store.upsert_annotations(records, subset=SUBSET)
    assert counts.deleted == len(ls_ids)


FIELDS = [f for f in AnnotationRecord.__dataclass_fields__]


def test_answers_deleted_after_the_close_are_scored_as_at_the_close(study, tmp_path, capsys):
    # 'b' withdraws two of its wrong pre-close answers (items 0 and 1) after the close; 'a'
    # withdraws item 0, which it had edited after the close (late as a whole anyway).
    delete_in_label_studio(study, {200, 201, 100})
    with Store.open(study["dir"]) as store:
        listed = late_deletions(store)
    assert sorted((d.annotator, d.ls_annotation_id, d.edited) for d in listed) == [
        ("a", 100, True),
        ("b", 200, False),
        ("b", 201, False),
    ]
    assert all(d.deleted_at is not None and d.deleted_at > CLOSED for d in listed)

    data = export(study, tmp_path)
    s = subset_of(data)
    # As at the close: 'b' still scored on items 0-3 (all wrong), 'a' on items 1-7 (all right).
    assert s["human"]["per_rater"] == {"a": 1.0, "b": 0.0}
    assert s["coverage"]["annotations"] == 7 + 4
    assert s["left_out"]["late_deleted"] == {"a": 1, "b": 2}
    assert s["left_out"]["late"] == {"a": 1, "b": 4}
    assert "3 answer(s) deleted after the close: scored as at the close" in s["warnings"]
    assert data["late_deletions"] == 3
    md = data["_md"]
    assert "3 answer(s) deleted in Label Studio after the close: each still scored" in md
    assert f"| {SUBSET} | a | 1 | 1 | 0 | 1 |" in md and f"| {SUBSET} | b | 4 | 0 | 1 | 2 |" in md

    data = export(study, tmp_path, "--include-late")
    s = subset_of(data)
    # The deletions count: 'a' on items 1-7 (all right), 'b' on items 2-7 (2 wrong, 4 right).
    assert s["human"]["per_rater"] == {"a": 1.0, "b": pytest.approx(4 / 6)}
    assert s["coverage"]["annotations"] == 7 + 6
    assert "the deletions count (--include-late)" in data["_md"]


def test_an_answer_found_gone_before_the_close_is_not_scored(study, tmp_path):
    delete_in_label_studio(study, {200})
    conn = sqlite3.connect(study["dir"] / "study.sqlite")  # that pull ran before the close
    with conn:
        conn.execute(
            "UPDATE annotations SET deleted_at = ? WHERE ls_annotation_id = 200", (BEFORE,)
        )
    conn.close()
    with Store.open(study["dir"]) as store:
        assert late_deletions(store) == []
    s = subset_of(export(study, tmp_path))
    assert s["left_out"]["late_deleted"] == {}
    assert s["coverage"]["annotations"] == 7 + 3  # 'b' on items 1-3 only


@pytest.mark.parametrize("closed", [True, False])
def test_rows_read_once_are_what_each_reader_reads(study, closed):
    """The export reads each subset's annotations and instances once (``read_rows``) for the
    scores and the effort section (issue 38). With one answer deleted before the close and one
    after it, closed or open, each gets what reading the store itself gives: the late deletion
    counted and the answer scored as it was at the close, or, while open, both answers gone."""
    conn = sqlite3.connect(study["dir"] / "study.sqlite")
    with conn:
        # 'a''s answer on item 1 deleted before the close, 'b''s on item 2 (given before) after
        conn.execute(
            "UPDATE annotations SET deleted_at = ? WHERE ls_annotation_id = 101", (BEFORE,)
        )
        conn.execute("UPDATE annotations SET deleted_at = ? WHERE ls_annotation_id = 202", (AFTER,))
        if not closed:
            conn.execute("DELETE FROM meta WHERE key = ?", (CLOSED_AT,))
    conn.close()
    with Store.open(study["dir"]) as store:
        read = read_rows(store)
        item1, item2 = (store.instances(SUBSET)[k].hume_id for k in (1, 2))
        for include_late in (False, True):
            once = subset_inputs(store, include_late=include_late, rows=read)
            assert once == subset_inputs(store, include_late=include_late)
            (inp,) = [i for i in once if i.key == SUBSET]
            assert item1 not in inp.humans["a"]
            if closed:  # scored as it was at the close, unless the deletion counts
                assert inp.late_deleted == {"b": 1}
                assert (item2 in inp.humans["b"]) is not include_late
            else:
                assert inp.late_deleted == {} and item2 not in inp.humans["b"]
        live = read.live_annotations()
        assert sum(map(len, live.values())) == study["rows"] - 2
        assert effort_quality(store, annotations=live, instances=read.instances) == effort_quality(
            store
        )
