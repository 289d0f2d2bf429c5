"""Order is data, and what annotators see carries no gold: the store keeps each record's place in
its source, models get the source's order, annotators get a seeded shuffle under opaque ids.

Also: a store from schema 1 migrates in place (its annotations and its Label Studio ids stay
valid) and learns its source order when ``init`` runs again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.errors import ModelViewError
from hume_sync.store import (
    SCHEMA_VERSION,
    AnnotationRecord,
    PredictionRecord,
    Store,
    StoreError,
    dumps,
    gold,
)
from hume_sync.study.model_view import model_view, shown_ids_from_source
from hume_sync.study.planning import load_subset
from hume_sync.study.sources import load_mteb, provided_mteb_data
from hume_sync.study.spec import StudySpec, parse_spec
from hume_sync.workflow.init import init_from_spec
from tests._paths import SOURCE_DATA
from tests._studies import make_v1_store

SIB = SOURCE_DATA / "sib200" / "eng_Latn"


def sib(split: str) -> list[dict[str, str]]:
    """SIB-200 English rows as ``{id, text, label}`` in file order (ids: SIB's index ids)."""
    path = SIB / f"{split}.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    rows = [line.split("\t") for line in lines if line.strip()]
    return [{"id": i, "label": cat, "text": text} for i, cat, text in rows]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def grouped_by_label(rows: list[dict[str, str]], labels: int, per_label: int) -> list[dict]:
    """``per_label`` rows of each of the first ``labels`` labels, one label after the other and
    renumbered 1, 2, ..., 10, ...: ids and order that give the clusters away."""
    cats = sorted({r["label"] for r in rows})[:labels]
    out = []
    for cat in cats:
        out += [r for r in rows if r["label"] == cat][:per_label]
    return [{**r, "id": str(n)} for n, r in enumerate(out, start=1)]


def relevance_in_ids(rows: list[dict[str, str]], n_queries: int) -> list[dict[str, Any]]:
    """Reranking queries whose candidates are named as MTEB v1's reader names them: p0 (the
    relevant one) first, then n0..n5."""
    out = []
    for q in range(n_queries):
        query, rel, *neg = rows[7 * q : 7 * q + 8]
        cands = [{"id": "p0", "text": rel["text"], "relevant": True}]
        cands += [{"id": f"n{k}", "text": r["text"], "relevant": False} for k, r in enumerate(neg)]
        out.append({"id": str(q + 1), "query": query["text"], "candidates": cands})
    return out


def spec_for(study: Path, tasks: list[dict[str, Any]], seed: int = 42) -> StudySpec:
    data = {"name": "order", "seed": seed, "tasks": tasks}
    study.mkdir(parents=True, exist_ok=True)
    (study / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return parse_spec(data, file=str(study / "study.yaml"), base_dir=study)


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, Path]:
    src = tmp_path / "src"
    src.mkdir()
    train = sib("train")
    return {
        "test": write_jsonl(src / "test.jsonl", sib("test")[:40]),
        "train": write_jsonl(src / "train.jsonl", train),
        "topics": write_jsonl(src / "topics.jsonl", grouped_by_label(sib("test"), 4, 6)),
        "rerank": write_jsonl(src / "rerank.jsonl", relevance_in_ids(train, 6)),
    }


def tasks_for(src: dict[str, Path]) -> list[dict[str, Any]]:
    return [
        {"name": "Topics", "type": "classification", "sampling": "all", "samples_per_label": 8,
         "source": {"path": str(src["test"]), "train_path": str(src["train"])},
         "subsets": [{"language": "eng-Latn", "size": 40}]},
        {"name": "Groups", "type": "clustering", "sampling": "all", "labels": 4,
         "source": {"path": str(src["topics"])},
         "subsets": [{"language": "eng-Latn", "size": 24}]},
        {"name": "Passages", "type": "reranking", "sampling": "all", "candidates": 7,
         "source": {"path": str(src["rerank"])},
         "subsets": [{"language": "eng-Latn", "size": 6}]},
    ]  # fmt: skip


def test_train_pool_is_read_back_in_source_order(tmp_path: Path, sources: dict) -> None:
    study = tmp_path / "study"
    init_from_spec(study, spec_for(study, tasks_for(sources)))
    file_order = [r["id"] for r in sib("train")]
    assert sorted(file_order) != file_order  # as text, "1000" < "2"
    with Store.open(study) as store:
        assert [t.id for t in store.train_items("Topics/default")] == file_order
        assert [t.id for t in model_view(store, "Topics/default").train] == file_order


def test_models_see_source_order_annotators_a_seeded_shuffle(tmp_path: Path, sources) -> None:
    study = tmp_path / "study"
    init_from_spec(study, spec_for(study, tasks_for(sources)))
    topics = read_jsonl(sources["topics"])
    with Store.open(study) as store:
        [shown] = store.instances("Groups/default")
        [seen] = model_view(store, "Groups/default").instances
        # models: the file's items in the file's order, under the file's ids, gold alike
        assert [it["id"] for it in seen.content["items"]] == [r["id"] for r in topics]
        assert seen.gold == {r["id"]: r["label"] for r in topics}
        # annotators: opaque ids 1..24 in presentation order, over a shuffle of the texts
        assert [it["id"] for it in shown.content["items"]] == [str(n) for n in range(1, 25)]
        texts = [it["text"] for it in shown.content["items"]]
        assert sorted(texts) == sorted(r["text"] for r in topics)
        assert texts != [r["text"] for r in topics]
        # a model's answer in source ids comes back under the ids annotators see
        back = model_view(store, "Groups/default").shown_answer(
            shown.hume_id, {r["id"]: f"group_{r['label'][:3]}" for r in topics}
        )
        assert back == {
            it["id"]: f"group_{gold(store, 'Groups/default')[shown.hume_id][it['id']][:3]}"
            for it in shown.content["items"]
        }
        # classification instances: presentation shuffled, models in file order
        order = [r["id"] for r in sib("test")[:40]]
        seen_ids = [
            i.hume_id.rsplit("/", 1)[1] for i in model_view(store, "Topics/default").instances
        ]
        assert seen_ids == order
        assert [i.source_id for i in store.instances("Topics/default")] != order


def test_model_order_does_not_depend_on_the_seed(tmp_path: Path, sources) -> None:
    views = []
    for seed in (42, 7):
        study = tmp_path / f"s{seed}"
        init_from_spec(study, spec_for(study, tasks_for(sources), seed=seed))
        with Store.open(study) as store:
            views.append(
                [
                    (i.hume_id, i.content, i.gold)
                    for key in ("Topics/default", "Groups/default", "Passages/default")
                    for i in model_view(store, key).instances
                ]
            )
            shown = [i.content for i in store.instances("Groups/default")]
        views.append(shown)
    assert views[0] == views[2]  # what models see: the same for both seeds
    assert views[1] != views[3]  # what annotators see: another shuffle


def test_ids_in_content_carry_nothing(tmp_path: Path, sources) -> None:
    study = tmp_path / "study"
    init_from_spec(study, spec_for(study, tasks_for(sources)))
    with Store.open(study) as store:
        refs = set()
        for sub in store.subsets():
            for inst in store.instances(sub.key):
                blob = dumps(inst.content)
                assert re.fullmatch("[0-9a-f]{16}", inst.hume_ref)
                refs.add(inst.hume_ref)
                for it in inst.content.get("candidates", []) + inst.content.get("items", []):
                    assert it["id"].isdigit()
                assert '"p0"' not in blob and '"n0"' not in blob
        assert len(refs) == sum(len(store.instances(s.key)) for s in store.subsets())
    # drawn at random, not derived from anything: the same study elsewhere has other refs
    again = tmp_path / "again"
    init_from_spec(again, spec_for(again, tasks_for(sources)))
    with Store.open(again) as other:
        assert not refs & set(other.instances_by_ref())
    with Store.open(study) as store:
        firsts = [i.content["candidates"][0]["id"] for i in store.instances("Passages/default")]
        relevant_first = [
            gold(store, "Passages/default")[i.hume_id][i.content["candidates"][0]["id"]]
            for i in store.instances("Passages/default")
        ]
        assert firsts == ["1"] * 6 and relevant_first != [1] * 6  # shuffled, then numbered
        # recorded answers in source ids (the demo's) reach the ids shown
        inst = store.instances("Passages/default")[0]
        answer = {"p0": 1, **{f"n{k}": 0 for k in range(6)}}
        shown = shown_ids_from_source(store, "Passages/default", inst.hume_id, answer)
        assert shown == gold(store, "Passages/default")[inst.hume_id]


def test_changed_content_gets_a_new_reference(tmp_path: Path, sources) -> None:
    study = tmp_path / "study"
    init_from_spec(study, spec_for(study, tasks_for(sources)))
    with Store.open(study) as store:
        before = {i.hume_id: i.hume_ref for i in store.instances("Passages/default")}
    rows = read_jsonl(sources["rerank"])
    rows[0]["query"] += " (edited)"
    write_jsonl(sources["rerank"], rows)
    init_from_spec(study, spec_for(study, tasks_for(sources)), force=True)
    with Store.open(study) as store:
        after = {i.hume_id: i.hume_ref for i in store.instances("Passages/default")}
    changed = [h for h in before if before[h] != after[h]]
    assert changed == ["Passages/default/1"]  # the stale Label Studio task is not found again


# ----------------------------------------------------------------------------- schema 1 -> 2


def test_a_schema_1_store_migrates_in_place_and_learns_its_order(tmp_path: Path, sources) -> None:
    study = tmp_path / "study"
    spec = spec_for(study, tasks_for(sources))
    make_v1_store(study, spec)
    with Store.open(study) as store:  # migrates
        assert store.schema_version == SCHEMA_VERSION == 11 and store.id_scheme == "source"
        [topics] = store.instances("Groups/default")
        # the ids its Label Studio tasks already show are kept: hume_ref is the old hume_id
        assert topics.hume_ref == topics.hume_id == "Groups/default/set-0"
        refs = store.item_refs("Groups/default")[topics.hume_id]
        assert [r.item_id for r in refs] == [it["id"] for it in topics.content["items"]]
        assert all(r.item_id == r.source_id and r.source_position is None for r in refs)
        ann = AnnotationRecord(1, topics.hume_id, 7, "a@x", {r.item_id: "group_1" for r in refs})
        store.upsert_annotations([ann])
        store.add_predictions([PredictionRecord(topics.hume_id, "llm:x", ann.answer)])
        with pytest.raises(ModelViewError, match=r"source order .* not recorded.*init"):
            model_view(store, "Groups/default")
        with pytest.raises(StoreError, match="source order"):
            store.train_items("Topics/default")
        annotations = store.annotations()

    summary = init_from_spec(study, spec)  # the same spec: only the positions are learnt
    assert summary.written > 0 and all(
        s.inserted == s.updated == s.deleted == 0 for s in summary.subsets
    )
    with Store.open(study) as store:
        assert store.annotations() == annotations and len(store.predictions()) == 1
        pool = [t.id for t in store.train_items("Topics/default")]
        assert pool == [r["id"] for r in sib("train")]
        [seen] = model_view(store, "Groups/default").instances
        assert [it["id"] for it in seen.content["items"]] == [
            r["id"] for r in read_jsonl(sources["topics"])
        ]
        assert store.instances("Groups/default")[0].hume_ref == "Groups/default/set-0"
    assert init_from_spec(study, spec).written == 0


def test_provided_mteb_data_feeds_the_real_loader_and_is_undone() -> None:
    from datasets import Dataset, DatasetDict

    ds = Dataset.from_dict({"sentence1": ["a b", "c d"], "sentence2": ["a", "c"], "score": [1, 4]})
    data = {"en": DatasetDict(test=ds)}
    spec = parse_spec({"name": "s", "tasks": [{"preset": "hume-v1", "only": ["HUMESTS22"]}]})
    task, subset = spec.tasks[0], spec.tasks[0].subsets[0]
    with provided_mteb_data({"HUMESTS22": data}):
        loaded = load_subset(task, subset)
    assert [r.id for r in loaded.records] == ["0", "1"]
    assert loaded.records == load_mteb("HUMESTS22", "en", dataset=data).records
    from hume_sync.study import sources

    assert "HUMESTS22" not in sources._loaded
