"""Study store: init from a real-data spec, idempotency, conflicts, atomicity, gold separation,
LS ids, annotations and predictions."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from datasets import Dataset, DatasetDict

from hume_sync.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    AnnotationRecord,
    PredictionRecord,
    Store,
    StoreError,
    gold,
)
from hume_sync.store import plans as store_mod
from hume_sync.study.sources import load_mteb, load_records
from hume_sync.study.spec import StudySpec, parse_spec
from hume_sync.task_types import get
from hume_sync.workflow.init import init_from_spec
from tests._paths import SOURCE_DATA

os.environ["HF_HUB_OFFLINE"] = "1"

DATA = Path(__file__).parent / "data"
SIB = SOURCE_DATA / "sib200"
SIB_SOURCE = {"id": "index_id", "text": "text", "label": "category"}


def sib_classification() -> dict[str, Any]:
    return {
        "name": "SIB200Classification",
        "type": "classification",
        "source": {
            "path": str(SIB / "{subset}" / "test.tsv"),
            "train_path": str(SIB / "{subset}" / "train.tsv"),
            "columns": SIB_SOURCE,
        },
        "samples_per_label": 8,
        "subsets": [
            {"name": "eng_Latn", "language": "eng-Latn", "size": 42},
            {"name": "arb_Arab", "language": "arb-Arab", "size": 42},
        ],
    }


def sib_clustering() -> dict[str, Any]:
    return {
        "name": "SIB200Clustering",
        "type": "clustering",
        "source": {"path": str(SIB / "{subset}" / "test.tsv"), "columns": SIB_SOURCE},
        "labels": 6,
        "items_per_label": 5,
        "subsets": [
            {"name": "eng_Latn", "language": "eng-Latn"},
            {"name": "arb_Arab", "language": "arb-Arab"},
        ],
    }


def stsb() -> dict[str, Any]:
    return {
        "name": "STSBenchmark",
        "type": "sts",
        "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
        "score_range": [0, 5],
        "subsets": [{"language": "eng-Latn", "size": 50}],
    }


def rerank() -> dict[str, Any]:
    return {
        "name": "SIB200Reranking",
        "type": "reranking",
        "source": {"path": str(DATA / "sib200_eng_rerank.jsonl")},
        "candidates": 7,
        "subsets": [{"language": "eng-Latn", "size": 20}],
    }


def make_spec(study_dir: Path, *tasks: dict[str, Any], seed: int = 42) -> StudySpec:
    data = {"name": "pilot", "seed": seed, "tasks": list(tasks)}
    study_dir.mkdir(parents=True, exist_ok=True)
    (study_dir / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return parse_spec(data, file=str(study_dir / "study.yaml"), base_dir=study_dir)


def full_spec(study_dir: Path) -> StudySpec:
    return make_spec(study_dir, sib_classification(), sib_clustering(), stsb(), rerank())


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        tables = ["subsets", "instances", "train_items", "predictions", "annotations", "meta"]
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
    finally:
        conn.close()


@pytest.fixture
def study(tmp_path: Path) -> Path:
    """An initialised study on real data."""
    d = tmp_path / "study"
    init_from_spec(d, full_spec(d))
    return d


def test_init_from_real_data(tmp_path: Path) -> None:
    d = tmp_path / "study"
    spec = full_spec(d)
    summary = init_from_spec(d, spec)
    assert summary.created and summary.written > 0 and summary.spec_hash == spec.spec_hash
    assert [(s.key, s.n_instances) for s in summary.subsets] == [
        ("SIB200Classification/eng_Latn", 42),
        ("SIB200Classification/arb_Arab", 42),
        ("SIB200Clustering/eng_Latn", 1),
        ("SIB200Clustering/arb_Arab", 1),
        ("STSBenchmark/default", 50),
        ("SIB200Reranking/default", 20),
    ]
    assert counts(d / "study.sqlite") == {
        "subsets": 6,
        "instances": 42 + 42 + 1 + 1 + 50 + 20,
        "train_items": 701 * 2,
        "predictions": 0,
        "annotations": 0,
        # schema_version, study_name, seed, spec_hash, spec, created_at, study_uid (made by
        # init, so that the first setup commits once less)
        "meta": 7,
    }
    with Store.open(d) as st:
        meta = st.meta()
        assert meta["schema_version"] == str(SCHEMA_VERSION) == "11"
        assert (meta["study_name"], meta["seed"], meta["spec_hash"]) == (
            "pilot",
            "42",
            spec.spec_hash,
        )
        assert st.schema_version == SCHEMA_VERSION
        rows = {r.key: r for r in st.subsets()}
        eng = rows["SIB200Classification/eng_Latn"]
        arb = rows["SIB200Classification/arb_Arab"]
        assert (eng.overlap, arb.overlap) == (2, 1)  # HUME: 2 annotators English, 1 otherwise
        assert (eng.samples_per_label, eng.task_type) == (8, "classification")
        assert len(eng.config["label_set"]) == 7 and eng.config["report"]["sampled"] == 42
        assert eng.config["source"]["train_sha256"]
        clus = rows["SIB200Clustering/eng_Latn"]
        assert clus.config["n_groups"] == 6 and len(clus.config["label_set"]) == 6
        assert clus.samples_per_label is None and st.slot_projects() == []
        assert rows["STSBenchmark/default"].config["score_range"] == [0.0, 5.0]
        assert rows["SIB200Reranking/default"].config["candidates"] == 7
        train = st.train_items("SIB200Classification/arb_Arab")
        assert len(train) == 701 and Counter(t.label for t in train)["science/technology"] > 0


def _classification_rows(rows: list, g: dict, config: dict) -> None:
    assert all(set(r.content) == {"text"} for r in rows)
    assert set(g.values()) <= set(config["label_set"])
    assert max(Counter(g.values()).values()) == 6  # 42 over 7 labels


def _clustering_rows(rows: list, g: dict, config: dict) -> None:
    (r,) = rows
    assert r.source_id == "set-0" and len(r.content["items"]) == 30
    assert all(set(item) == {"id", "text"} for item in r.content["items"])
    labels = g[r.hume_id]
    assert set(labels) == {item["id"] for item in r.content["items"]}
    assert set(Counter(labels.values()).values()) == {5}


def _reranking_rows(rows: list, g: dict, config: dict) -> None:
    for r in rows:
        assert set(r.content) == {"query", "candidates"}
        assert len(r.content["candidates"]) == 7
        assert all(set(c) == {"id", "text"} for c in r.content["candidates"])
        assert sum(g[r.hume_id].values()) >= 1


def _sts_rows(rows: list, g: dict, config: dict) -> None:
    assert all(set(r.content) == {"sentence1", "sentence2"} for r in rows)
    assert all(isinstance(v, float) and 0 <= v <= 5 for v in g.values())


#: What the real-data study's subsets store, per task type (content shape and gold).
STORED_SHAPE = {
    "classification": _classification_rows,
    "clustering": _clustering_rows,
    "reranking": _reranking_rows,
    "sts": _sts_rows,
}


def test_instances_never_carry_gold(study: Path) -> None:
    with Store.open(study) as st:
        for sub in st.subsets():
            rows = st.instances(sub.key)
            g = gold(st, sub.key)
            assert list(g) == [r.hume_id for r in rows]  # same instances, same order
            for r in rows:
                assert not hasattr(r, "gold")
                assert r.hume_id == f"{sub.key}/{r.source_id}"
            STORED_SHAPE[sub.task_type](rows, g, sub.config)
        with pytest.raises(StoreError, match="no subset 'Nope/x'"):
            st.instances("Nope/x")


def test_init_twice_writes_nothing(study: Path) -> None:
    before = dump(study / "study.sqlite")
    summary = init_from_spec(study)  # from study.yaml on disk this time
    assert summary.written == 0 and not summary.created
    assert all(s.inserted == s.updated == s.deleted == 0 for s in summary.subsets)
    assert sum(s.unchanged for s in summary.subsets) == 156
    assert dump(study / "study.sqlite") == before


def test_adding_a_task_does_not_change_other_samples(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    init_from_spec(a, make_spec(a, sib_classification()))
    init_from_spec(b, make_spec(b, stsb(), sib_classification(), rerank()))
    key = "SIB200Classification/eng_Latn"
    with Store.open(a) as sa, Store.open(b) as sb:
        # the same sample; only the random Label Studio references are each store's own
        same = [dataclasses.replace(i, hume_ref="") for i in sa.instances(key)]
        assert same == [dataclasses.replace(i, hume_ref="") for i in sb.instances(key)]
        assert gold(sa, key) == gold(sb, key)


def test_changed_spec_is_refused_unless_forced(study: Path) -> None:
    before = dump(study / "study.sqlite")
    changed_cls = sib_classification()
    changed_cls["subsets"][0]["size"] = 35
    changed = make_spec(study, changed_cls, sib_clustering(), stsb(), rerank())
    with pytest.raises(StoreError, match="initialised from a different spec") as info:
        init_from_spec(study, changed)
    assert "\n" not in str(info.value)
    assert dump(study / "study.sqlite") == before
    summary = init_from_spec(study, changed, force=True)
    eng = next(s for s in summary.subsets if s.key == "SIB200Classification/eng_Latn")
    assert eng.n_instances == 35 and eng.inserted + eng.updated + eng.deleted > 0
    with Store.open(study) as st:
        assert len(st.instances("SIB200Classification/eng_Latn")) == 35
        assert st.meta()["spec_hash"] == changed.spec_hash
        orders = [r.sample_order for r in st.instances("SIB200Classification/eng_Latn")]
        assert orders == list(range(35))


def test_changed_data_file_is_detected(tmp_path: Path) -> None:
    d = tmp_path / "study"
    src = tmp_path / "pairs.jsonl"
    pairs = load_records(get("sts"), SOURCE_DATA / "stsb-en-test.csv", header=False)[:60]
    lines = [json.dumps(dataclasses.asdict(p)) for p in pairs]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    task = {
        "name": "S",
        "type": "sts",
        "source": {"path": str(src)},
        "subsets": [{"language": "en", "size": 10}],
    }
    spec = make_spec(d, task)
    init_from_spec(d, spec)
    src.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # same spec, new data
    with pytest.raises(StoreError, match="differs from the spec and its data"):
        init_from_spec(d, spec)


def test_interrupted_init_leaves_the_store_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = tmp_path / "study"
    spec = full_spec(d)
    with Store.open(d):
        pass  # an empty, migrated store
    before = dump(d / "study.sqlite")

    calls = {"n": 0}
    real = store_mod._write_train_items

    def crash_on_second(*args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        real(*args, **kwargs)
        if calls["n"] == 2:  # after meta, 2 subsets, instances and one train pool were written
            raise RuntimeError("simulated crash")

    monkeypatch.setattr(store_mod, "_write_train_items", crash_on_second)
    with pytest.raises(RuntimeError, match="simulated crash"):
        init_from_spec(d, spec)
    assert dump(d / "study.sqlite") == before
    assert counts(d / "study.sqlite")["instances"] == 0
    monkeypatch.setattr(store_mod, "_write_train_items", real)
    # running it again finishes the job, without duplicates
    summary = init_from_spec(d, spec)
    assert summary.created and counts(d / "study.sqlite")["instances"] == 156


def _ann(hid: str, ann_id: int, task_id: int, **kw: Any) -> AnnotationRecord:
    base: dict[str, Any] = {"annotator": "a@x.org", "answer": 3.0, "lead_time": 12.5, "slot": 1}
    base.update(kw)
    return AnnotationRecord(ls_annotation_id=ann_id, hume_id=hid, ls_task_id=task_id, **base)


def _annotator(st: Store) -> int:
    """Slot 1: the annotator whose server the test annotations come from."""
    return st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:9", 2).slot


def test_upsert_annotations_added_updated_deleted(study: Path) -> None:
    key = "STSBenchmark/default"
    with Store.open(study) as st:
        rows = st.instances(key)[:3]
        st.set_slot_tasks(key, _annotator(st), {r.hume_id: 50 + i for i, r in enumerate(rows)})
        batch = [_ann(r.hume_id, 1 + i, 50 + i) for i, r in enumerate(rows)]
        batch.append(
            _ann(rows[0].hume_id, 9, 50, annotator="b@x.org", answer=None, status="cancelled")
        )
        c = st.upsert_annotations(batch, subset=key)
        assert (c.added, c.updated, c.unchanged, c.deleted) == (4, 0, 0, 0)
        c = st.upsert_annotations(batch, subset=key)
        assert (c.added, c.updated, c.unchanged, c.deleted) == (0, 0, 4, 0)
        # annotation 2 changed in LS, annotation 3 deleted there
        newer = [batch[0], _ann(rows[1].hume_id, 2, 51, answer=4.0), batch[3]]
        c = st.upsert_annotations(newer, subset=key)
        assert (c.added, c.updated, c.unchanged, c.deleted) == (0, 1, 2, 1)
        live = st.annotations(key)
        assert [a.ls_annotation_id for a in live] == [1, 2, 9]
        assert live[1].answer == 4.0 and live[2].answer is None and live[2].status == "cancelled"
        every = st.annotations(key, include_deleted=True)
        assert [a.ls_annotation_id for a in every] == [1, 2, 3, 9]
        assert every[2].deleted_at is not None
        # it comes back: restored, counted as updated
        c = st.upsert_annotations([*newer, batch[2]], subset=key)
        assert (c.added, c.updated, c.deleted) == (0, 1, 0)
        assert len(st.annotations(key)) == 4
        # without a subset, nothing is taken as deleted
        c = st.upsert_annotations([batch[0]])
        assert (c.unchanged, c.deleted) == (1, 0)


def test_bad_annotations_are_refused_atomically(study: Path) -> None:
    key = "STSBenchmark/default"
    with Store.open(study) as st:
        hids = [r.hume_id for r in st.instances(key)[:2]]
        st.set_slot_tasks(key, _annotator(st), {hids[0]: 70})
        st.upsert_annotations([_ann(hids[0], 1, 70)], subset=key)
        bad_cases = [
            ([_ann(hids[1], 2, 71), _ann("STSBenchmark/default/nope", 3, 72)], "unknown instance"),
            ([_ann(hids[1], 2, 71, status="skipped")], "status must be one of"),
            ([_ann(hids[1], 2, 71, answer=None)], "needs an answer"),
            ([_ann(hids[1], 2, 71), _ann(hids[1], 2, 71)], "appears twice"),
            ([_ann(hids[0], 4, 99)], "LS task 99 but instance"),  # it is LS task 70
            ([_ann(hids[1], 2, 71, slot=-1)], "slot must be"),
        ]
        before = dump(study / "study.sqlite")
        for batch, words in bad_cases:
            with pytest.raises(StoreError, match=words):
                st.upsert_annotations(batch, subset=key)
            assert dump(study / "study.sqlite") == before

        def exploding() -> Any:
            yield _ann(hids[1], 5, 71)
            raise RuntimeError("connection lost while pulling")

        with pytest.raises(RuntimeError):
            st.upsert_annotations(exploding(), subset=key)
        assert dump(study / "study.sqlite") == before
        other = st.instances("SIB200Reranking/default")[0].hume_id
        with pytest.raises(StoreError, match="not in subset"):
            st.upsert_annotations([_ann(other, 6, 80, answer={"a": 1})], subset=key)


def test_add_predictions_unique_and_sealed(study: Path) -> None:
    key = "SIB200Classification/eng_Latn"
    with Store.open(study) as st:
        rows = st.instances(key)
        preds = [
            PredictionRecord(r.hume_id, "emb:all-MiniLM-L6-v2", "travel", score=0.7) for r in rows
        ]
        c = st.add_predictions(preds)
        assert (c.added, c.replaced, c.unchanged) == (42, 0, 0)
        c = st.add_predictions(preds)
        assert (c.added, c.replaced, c.unchanged) == (0, 0, 42)
        before = dump(study / "study.sqlite")
        changed = [PredictionRecord(rows[0].hume_id, "emb:all-MiniLM-L6-v2", "sports")]
        with pytest.raises(StoreError, match="sealed prediction differs"):
            st.add_predictions([*preds[1:3], *changed])
        assert dump(study / "study.sqlite") == before
        c = st.add_predictions(changed, replace=True)
        assert c.replaced == 1
        st.add_predictions([PredictionRecord(rows[0].hume_id, "llm:gpt", "health", sealed=False)])
        c = st.add_predictions([PredictionRecord(rows[0].hume_id, "llm:gpt", "travel")])
        assert c.replaced == 1  # an unsealed prediction may be replaced
        got = st.predictions(key, model_version="emb:all-MiniLM-L6-v2")
        assert len(got) == 42 and got[0].answer == "sports" and got[0].score is None
        assert len(st.predictions(key)) == 43
        with pytest.raises(StoreError, match="unknown instance"):
            st.add_predictions([PredictionRecord("X/y/z", "emb:m", "a")])


def test_forced_reinit_keeps_annotated_instances(study: Path) -> None:
    key = "SIB200Classification/eng_Latn"
    with Store.open(study) as st:
        annotated = st.instances(key)
        st.upsert_annotations(
            [_ann(r.hume_id, 100 + i, 500 + i, answer="travel") for i, r in enumerate(annotated)]
        )
    before = dump(study / "study.sqlite")
    changed_cls = sib_classification()
    changed_cls["subsets"][0]["size"] = 14  # would drop annotated instances
    changed = make_spec(study, changed_cls, sib_clustering(), stsb(), rerank())
    with pytest.raises(StoreError, match="has annotations; it cannot be dropped"):
        init_from_spec(study, changed, force=True)
    assert dump(study / "study.sqlite") == before


def test_store_schema_guards(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store.open(path) as st:
        assert st.schema_version == SCHEMA_VERSION
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version VALUES (99, 'later')")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema v99 is newer"):
        Store.open(path)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a study store"):
        Store.open(junk)


def test_schema_4_drops_the_list_of_task_types(tmp_path: Path) -> None:
    """A store written by schema 1 (which listed four task types) takes any registered type's
    name after migrating; its rows, references and foreign keys survive the table's rebuild."""
    path = tmp_path / "v1.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for statement in MIGRATIONS[1]:
        conn.execute(statement)
    conn.execute("INSERT INTO schema_version VALUES (1, 'then')")
    conn.execute(
        "INSERT INTO subsets VALUES ('T/s', 'T', 's', 'sts', 'eng-Latn', '{}', NULL, 2, 0, 17)"
    )
    conn.execute("INSERT INTO instances VALUES ('T/s/1', 'T/s', '1', 0, '{}', '3.0', 40)")
    conn.commit()
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        conn.execute(
            "INSERT INTO subsets VALUES ('U/s', 'U', 's', 'pairs', 'eng', '{}', NULL, 1, 1, NULL)"
        )
    conn.close()
    with Store.open(path) as st:
        assert st.schema_version == SCHEMA_VERSION == 11
        [row] = st.subsets()
        assert (row.key, row.task_type, row.overlap) == ("T/s", "sts", 2)
        assert [i.hume_id for i in st.instances("T/s")] == ["T/s/1"]
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    assert conn.execute("SELECT ls_project_id FROM subsets").fetchone() == (17,)
    assert (
        "CHECK (task_type"
        not in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'subsets'").fetchone()[0]
    )
    conn.execute(  # a type registered after the store was made
        "INSERT INTO subsets VALUES ('U/s', 'U', 's', 'pairs', 'eng', '{}', NULL, 1, 1, NULL)"
    )
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):  # references still hold
        conn.execute(
            "INSERT INTO instances (hume_id, subset_key, source_id, sample_order, content, gold) "
            "VALUES ('X/1', 'nowhere', '1', 0, '{}', '1')"
        )
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.commit()
    conn.close()
    with Store.open(path) as st:  # opening again migrates nothing
        assert st.schema_version == SCHEMA_VERSION and len(st.subsets()) == 2


def test_mteb_sourced_study_with_an_in_memory_dataset(tmp_path: Path) -> None:
    """The MTEB path end to end minus the hub: a HUMESTS22-shaped dataset built from STSB."""
    pairs = load_records(get("sts"), SOURCE_DATA / "stsb-en-test.csv", header=False)[:30]
    # STS22's gold scale is 1-4 (the preset's score_range): STSB's 0-5 scores mapped onto it
    scores = [1 + 3 * p.score / 5 for p in pairs]  # type: ignore[union-attr]
    ds = Dataset.from_dict(
        {
            "sentence1": [p.sentence1 for p in pairs],  # type: ignore[union-attr]
            "sentence2": [p.sentence2 for p in pairs],  # type: ignore[union-attr]
            "score": scores,
        }
    )
    fake = {"en": DatasetDict(test=ds)}
    spec = parse_spec(
        {"name": "hume-sts22", "tasks": [{"preset": "hume-v1", "only": ["HUMESTS22"]}]}
    )
    (task,) = spec.tasks
    spec = dataclasses.replace(spec, tasks=(dataclasses.replace(task, subsets=task.subsets[:1]),))

    def loader(task: Any, subset: Any) -> Any:
        return load_mteb(task.source.mteb, subset.name, kind=get(task.type), dataset=fake)

    d = tmp_path / "study"
    summary = init_from_spec(d, spec, loader=loader)
    (sub,) = summary.subsets
    assert sub.key == "HUMESTS22/en" and sub.n_instances == 30 and sub.report["method"] == "all"
    with Store.open(d) as st:
        row = st.subset("HUMESTS22/en")
        assert (
            row.config["source"]["mteb"] == "HUMESTS22"
            and len(row.config["source"]["revision"]) == 40
        )
        assert sorted(gold(st, "HUMESTS22/en").values()) == sorted(scores)
    assert init_from_spec(d, spec, loader=loader).written == 0


def test_stored_content_is_what_label_studio_configs_accepts(study: Path) -> None:
    """Contract with label_studio_configs/: every stored content renders as LS task data."""
    from hume_sync import task_types

    with Store.open(study) as st:
        for sub in st.subsets():
            interface = task_types.get(sub.task_type)
            xml = interface.ls_subset_config(sub.config, language=sub.language)
            assert xml.lstrip().startswith("<View")
            for row in st.instances(sub.key):
                data = interface.ls_task_data(row.hume_ref, row.content)
                assert data["hume_ref"] == row.hume_ref


def test_annotator_keys_are_those_of_every_annotation_deleted_ones_included(
    study: Path,
) -> None:
    """The report names annotators from these keys (issue 38: read without decoding answers);
    an annotator whose only answer was deleted in Label Studio is still named."""
    key = "STSBenchmark/default"
    with Store.open(study) as st:
        rows = st.instances(key)[:2]
        st.set_slot_tasks(key, _annotator(st), {r.hume_id: 50 + i for i, r in enumerate(rows)})
        first = [
            _ann(rows[0].hume_id, 1, 50, annotator="b@x.org"),
            _ann(rows[1].hume_id, 2, 51),
            _ann(rows[1].hume_id, 3, 51, annotator="c@x.org"),
        ]
        st.upsert_annotations(first, subset=key)
        assert st.upsert_annotations(first[:2], subset=key).deleted == 1  # c's answer deleted
        assert st.annotator_keys() == ["a@x.org", "b@x.org", "c@x.org"]
        every = {a.annotator for a in st.annotations(include_deleted=True)}
        assert st.annotator_keys() == sorted(every)
        assert {a.annotator for a in st.annotations()} == {"a@x.org", "b@x.org"}
