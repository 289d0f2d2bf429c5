"""Store v3 (annotator slots, their projects, tasks and annotations), seat planning, project
titles and markers, language codes and durations: the parts of isolation that need no server."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

from hume_sync.labelstudio.annotators import AnnotatorError, parse_languages, plan_seats
from hume_sync.rules.display import format_duration
from hume_sync.store import MIGRATIONS, AnnotationRecord, Store, StoreError
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.setup import TITLE_MAX, project_marker, project_title
from tests._studies import real_data_spec


@pytest.fixture
def study(tmp_path: Path) -> Path:
    """SIB-200 English (2 annotators per item) and Arabic (1), clustering, STS, reranking."""
    d = tmp_path / "study"
    d.mkdir()
    spec = real_data_spec("pilot", 3, cls_eng=7, cls_arb=7, sts=5, rerank=3)
    (d / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(d)
    return d


def test_schema_v1_store_migrates_and_keeps_its_annotations(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for statement in MIGRATIONS[1]:
        conn.execute(statement)
    conn.execute("INSERT INTO schema_version VALUES (1, 'then')")
    conn.execute(
        "INSERT INTO subsets VALUES ('T/s', 'T', 's', 'sts', 'eng-Latn', '{}', NULL, 2, 0, 17)"
    )
    conn.execute("INSERT INTO instances VALUES ('T/s/1', 'T/s', '1', 0, '{}', '3.0', 40)")
    conn.execute(
        "INSERT INTO annotations (ls_annotation_id, hume_id, ls_task_id, annotator, answer, "
        "status) VALUES (5, 'T/s/1', 40, 'ls-user-2', '3', 'valid')"
    )
    conn.commit()
    conn.close()
    with Store.open(path) as st:
        assert st.schema_version == 11
        [row] = st.annotations()
        assert (row.slot, row.ls_annotation_id, row.annotator, row.answer) == (0, 5, "ls-user-2", 3)
        assert st.annotators() == [] and st.slot_projects() == []
        # the same LS annotation id from an annotator's own server is another annotation
        st.upsert_annotations(
            [AnnotationRecord(5, "T/s/1", 8, "annotator-1", answer=4, slot=1)], subset=None
        )
        assert [(a.slot, a.answer) for a in st.annotations()] == [(0, 3), (1, 4)]


def test_annotator_slots_projects_and_tasks(study: Path) -> None:
    key, other = "SIB200Classification/eng_Latn", "SIB200Classification/arb_Arab"
    with Store.open(study) as st:
        a = st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:7001", 2)
        b = st.add_annotator("b@x.org", ["eng", "ara"], "http://127.0.0.1:7002", 2)
        assert (a.slot, b.slot, a.key, b.languages) == (1, 2, "annotator-1", ("eng", "ara"))
        with pytest.raises(StoreError, match=r"annotator a@x\.org is already slot 1"):
            st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:7003", 3)
        with pytest.raises(StoreError, match=r"server http://127\.0\.0\.1:7001 is already slot 1"):
            st.add_annotator("c@x.org", ["eng"], "http://127.0.0.1:7001", 3)
        assert st.set_annotator_languages(1, ["eng", "dan"]) == 1
        assert st.set_annotator_languages(1, ["eng", "dan"]) == 0

        # Label Studio ids are per server: the same project id on two slots is two projects
        assert st.set_slot_project(key, 1, 3, "hume:aa") == 1
        assert st.set_slot_project(key, 1, 3, "hume:aa") == 0
        assert st.set_slot_project(key, 2, 3, "hume:bb") == 1
        with pytest.raises(StoreError, match="project 3 on slot 1 is already used"):
            st.set_slot_project(other, 1, 3, "hume:cc")
        with pytest.raises(StoreError, match="already has project 3 on slot 1"):
            st.set_slot_project(key, 1, 4, "hume:dd")
        ids = {i.hume_id: 100 + n for n, i in enumerate(st.instances(key))}
        assert st.set_slot_tasks(key, 1, ids) == len(ids)
        assert st.set_slot_tasks(key, 1, ids) == 0
        assert st.set_slot_tasks(key, 2, ids) == len(ids)  # same ids, other server: fine
        assert st.slot_tasks(key, 1) == ids
        first, second = list(ids)[:2]
        with pytest.raises(StoreError, match="LS task 100 on slot 1 is already used"):
            st.set_slot_tasks(key, 1, {second: 100})
        with pytest.raises(StoreError, match="no instance"):
            st.set_slot_tasks(other, 1, {first: 999})

        # a project deleted in Label Studio is forgotten with its tasks; other slots stay
        assert st.forget_slot_project(key, 1) == len(ids)
        assert [(p.subset_key, p.slot) for p in st.slot_projects()] == [(key, 2)]
        assert st.slot_tasks(key, 1) == {} and st.slot_tasks(key, 2) == ids
        assert st.set_slot_project(key, 1, 9, "hume:aa") == 1


def test_pull_scope_keeps_other_slots_and_lost_projects(study: Path) -> None:
    key = "STSBenchmark/default"
    with Store.open(study) as st:
        st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:7001", 2)
        st.add_annotator("b@x.org", ["eng"], "http://127.0.0.1:7002", 2)
        h = [i.hume_id for i in st.instances(key)]
        st.set_slot_tasks(key, 1, {h[0]: 10, h[1]: 11})
        st.set_slot_tasks(key, 2, {h[0]: 10, h[1]: 11})
        batch = [
            AnnotationRecord(1, h[0], 10, "annotator-1", answer=3, slot=1),
            AnnotationRecord(2, h[1], 11, "annotator-1", answer=4, slot=1),
            AnnotationRecord(1, h[0], 10, "annotator-2", answer=1, slot=2),
        ]
        c = st.upsert_annotations(batch, subset=key)
        assert (c.added, c.deleted) == (3, 0)
        # slot 2's server could not be read: its annotations are not taken as deleted
        c = st.upsert_annotations(batch[:1], subset=key, scope={1: {10, 11}})
        assert (c.unchanged, c.deleted) == (1, 1)
        assert sorted((a.slot, a.ls_annotation_id) for a in st.annotations(key)) == [(1, 1), (2, 1)]
        # slot 1's project was recreated (new task ids): what came from the old one stays
        st.forget_slot_project(key, 1)
        st.set_slot_tasks(key, 1, {h[0]: 50, h[1]: 51})
        c = st.upsert_annotations([], subset=key, scope={1: {50, 51}})
        assert c.deleted == 0 and len(st.annotations(key)) == 2


def test_seats_go_to_annotators_of_the_language_in_slot_order(study: Path) -> None:
    with Store.open(study) as st:
        assert set(plan_seats(st)["SIB200Classification/eng_Latn"]) == {None}
        st.add_annotator("a@x.org", ["eng"], "http://a", 2)
        st.add_annotator("b@x.org", ["ara"], "http://b", 2)
        st.add_annotator("c@x.org", ["eng", "ara"], "http://c", 2)
        st.add_annotator("d@x.org", ["eng"], "http://d", 2)
        plan = plan_seats(st)
        assert plan["SIB200Classification/eng_Latn"] == [1, 3]  # overlap 2: first two speakers
        assert plan["SIB200Classification/arb_Arab"] == [2]  # overlap 1
        assert plan["STSBenchmark/default"] == [1, 3]
        # a subset keeps the annotators who have its project, even if others come first now
        st.set_slot_project("STSBenchmark/default", 4, 1, "hume:x")
        assert plan_seats(st)["STSBenchmark/default"] == [4, 1]


def test_titles_are_readable_unique_and_within_label_studios_limit() -> None:
    keys = [
        "HUMEMultilingualSentimentClassification/eng",
        "HUMEMultilingualSentimentClassification/ara",
        "HUMEMultilingualSentimentClassification/nob",
    ]
    titles = [project_title("pilot", k) for k in keys]
    assert len(set(titles)) == 3 and all(len(t) <= TITLE_MAX for t in titles)
    assert all(t.startswith("pilot · HUME") for t in titles)
    assert [t.split(" #")[0][-4:] for t in titles] == ["/eng", "/ara", "/nob"]
    assert project_title("pilot", "STS/en") == "pilot · STS/en"  # short titles unchanged
    # identity is the marker: per study, subset and slot
    m = project_marker("uid1", keys[0], 1)
    assert m.startswith("hume:") and m == project_marker("uid1", keys[0], 1)
    assert len({m, project_marker("uid1", keys[0], 2), project_marker("uid2", keys[0], 1)}) == 3


def test_language_codes() -> None:
    assert parse_languages("eng, dan") == ("eng", "dan")
    assert parse_languages("en,eng-Latn,ar") == ("eng", "ara")
    for bad in ("", "english", "e n", "eng;dan"):
        with pytest.raises(AnnotatorError, match="--languages"):
            parse_languages(bad)


def test_durations_in_units_that_fit() -> None:
    assert [format_duration(s) for s in (None, 0, 20, 600, 9000, 3 * 86400)] == [
        "-",
        "0 s",
        "20 s",
        "10 min",
        "2.5 h",
        "3.0 d",
    ]


def test_an_annotator_stored_with_an_older_norwegian_code_still_gets_bokmal_subsets() -> None:
    """Before the one language table, ``--languages no`` was stored as ``nor``; HUME's Norwegian
    subsets are ``nob-Latn``. The stored code is read through the same table."""
    from types import SimpleNamespace

    from hume_sync.labelstudio.annotators import speaks

    bokmal = SimpleNamespace(language="nob-Latn", task_type="classification", config={})
    assert speaks(SimpleNamespace(languages=("nor",)), bokmal)
    assert speaks(SimpleNamespace(languages=("nob",)), bokmal)
    assert not speaks(SimpleNamespace(languages=("dan",)), bokmal)
