"""Nothing on screen or in task data encodes gold, checked on what a real Label Studio serves.

The study's sources are built to leak: reranking candidates named as MTEB v1's reader names them
(``p0`` is the relevant passage, ``n0``... the others, relevant first), and a clustering set whose
ids are numbered label after label, in label order. After ``init`` and ``setup`` every task is
read back through the API with the annotator's own token on her own server: no source id, no
label, no grouping and no relevant-first order may be there. Also: a study store from before
schema 2, migrated in place, keeps the ids its annotations use and says so at ``setup``.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.study.spec import parse_spec
from tests._annotate import register
from tests._paths import SOURCE_DATA
from tests._studies import make_v1_store

pytestmark = pytest.mark.labelstudio

SIB = SOURCE_DATA / "sib200" / "eng_Latn"
LEAKY_ID = re.compile(r'"(?:p|n)\d+"')


def sib_rows(split: str) -> list[dict[str, str]]:
    path = SIB / f"{split}.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return [dict(zip(("id", "label", "text"), line.split("\t"), strict=True)) for line in lines]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def leaky_sources(folder: Path) -> dict[str, Any]:
    """Sources whose ids and order give gold away, and what would give it away."""
    folder.mkdir(parents=True, exist_ok=True)
    test, train = sib_rows("test"), sib_rows("train")
    labels = sorted({r["label"] for r in test})[:4]
    grouped = [r for lab in labels for r in [r for r in test if r["label"] == lab][:6]]
    topics = [
        {"id": str(1000 + n), "text": r["text"], "label": r["label"]}
        for n, r in enumerate(grouped, 1)
    ]
    queries = []
    for q in range(6):
        query, rel, *neg = train[8 * q : 8 * q + 8]
        cands = [{"id": "p0", "text": rel["text"], "relevant": True}]
        cands += [{"id": f"n{k}", "text": r["text"], "relevant": False} for k, r in enumerate(neg)]
        queries.append({"id": f"q{q}", "query": query["text"], "candidates": cands})
    sentences = [{"id": r["id"], "text": r["text"], "label": r["label"]} for r in test[:12]]
    return {
        "topics": write_jsonl(folder / "topics.jsonl", topics),
        "passages": write_jsonl(folder / "passages.jsonl", queries),
        "sentences": write_jsonl(folder / "sentences.jsonl", sentences),
        # ids an item, a candidate or a reference could show (sentences only have references)
        "item_ids": {r["id"] for r in topics} | {c["id"] for q in queries for c in q["candidates"]},
        "instance_ids": {r["id"] for r in sentences} | {q["id"] for q in queries},
        "labels": set(labels) | {r["label"] for r in sentences},
        "topic_order": [r["text"] for r in topics],
        "topic_label": {r["text"]: r["label"] for r in topics},
    }


def leaky_spec(src: dict[str, Any], name: str = "leaky") -> dict[str, Any]:
    return {
        "name": name,
        "seed": 42,
        "annotators": {"default": 1},
        "tasks": [
            {"name": "Passages", "type": "reranking", "sampling": "all", "candidates": 7,
             "source": {"path": str(src["passages"])},
             "subsets": [{"language": "eng-Latn", "size": 6}]},
            {"name": "Topics", "type": "clustering", "sampling": "all", "labels": 4,
             "source": {"path": str(src["topics"])},
             "subsets": [{"language": "eng-Latn", "size": 24}]},
            {"name": "Sentences", "type": "classification", "sampling": "all",
             "source": {"path": str(src["sentences"])},
             "subsets": [{"language": "eng-Latn", "size": 12}]},
        ],
    }  # fmt: skip


def label_runs(labels: list[str]) -> int:
    """How many times the label changes between neighbours (K-1 when grouped)."""
    return sum(a != b for a, b in itertools.pairwise(labels))


def test_no_source_id_label_or_order_reaches_label_studio(annotator_servers, tmp_path, monkeypatch):
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "home"))
    src = leaky_sources(tmp_path / "src")
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(leaky_spec(src)), encoding="utf-8")
    assert main(["init", str(study)]) == 0
    a = annotator_servers[0]
    register(study, a, "eng", monkeypatch)
    assert main(["setup", str(study)]) == 0

    annotator = a.server.client(a.token)  # what the annotator's own token can read
    with Store.open(study) as store:
        by_ref = store.instances_by_ref()
        tasks = {p.subset_key: annotator.list_tasks(p.ls_project_id) for p in store.slot_projects()}
        golds = {s.key: gold(store, s.key) for s in store.subsets()}
        store_instances = {s.key: store.instances(s.key) for s in store.subsets()}
    assert sum(len(t) for t in tasks.values()) == 6 + 1 + 12
    relevant_at: list[list[int]] = []
    for key, listed in tasks.items():
        for task in listed:
            data = task["data"]
            blob = json.dumps(data, ensure_ascii=False)
            inst = by_ref[data["hume_ref"]]  # the store knows the task; the task names nothing
            assert re.fullmatch("[0-9a-f]{16}", data["hume_ref"])
            assert data["hume_ref"] not in src["instance_ids"] | {inst.hume_id, inst.source_id}
            assert not LEAKY_ID.search(blob), blob[:200]
            items = data.get("items") or data.get("candidates") or []
            # ids and titles are the shown position, nothing else
            assert [(it["id"], it["title"]) for it in items] == [
                (str(n), f"#{n}") for n in range(1, len(items) + 1)
            ]
            for value in [*(it["id"] for it in items), *(it["title"] for it in items)]:
                assert value not in src["item_ids"] and value not in src["labels"]
            assert set(data) <= {
                "hume_ref",
                "text",
                "items",
                "query",
                "candidates",
                "hume_position",
            }
            # the screen's "Task n of N" is the place in the seeded presentation order, no more
            order = [i.hume_ref for i in store_instances[key]]
            place = f"Task {order.index(data['hume_ref']) + 1} of {len(order)}"
            assert data["hume_position"] == place
            assert not task.get("meta") and not task.get("predictions")
            if key == "Passages/default":
                g = golds[key][inst.hume_id]
                relevant_at.append([n for n, it in enumerate(items, 1) if g[it["id"]]])
    # reranking: the relevant passage is not always shown first
    assert len(relevant_at) == 6 and all(len(p) == 1 for p in relevant_at)
    assert {p[0] for p in relevant_at} != {1}
    # clustering: shown in an order that is neither the source's nor grouped by label
    [topics] = tasks["Topics/default"]
    shown = [it["body"] for it in topics["data"]["items"]]
    assert sorted(shown) == sorted(src["topic_order"]) and shown != src["topic_order"]
    labels = [src["topic_label"][text] for text in shown]
    assert label_runs([src["topic_label"][t] for t in src["topic_order"]]) == 3
    assert label_runs(labels) > 3 * 3


def test_a_schema_1_study_keeps_its_ids_and_says_so(
    annotator_servers, tmp_path, monkeypatch, capsys
) -> None:
    """A store from before schema 2 is migrated in place: its references stay the old hume_ids
    (its pulled annotations are keyed by them), so its tasks show source ids, and setup warns."""
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "home"))
    src = leaky_sources(tmp_path / "src")
    old = tmp_path / "old"
    old.mkdir()
    data = leaky_spec(src, name="v1-study")
    (old / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    make_v1_store(old, parse_spec(data, file=str(old / "study.yaml"), base_dir=old))
    a = annotator_servers[0]
    register(old, a, "eng", monkeypatch)
    capsys.readouterr()
    assert main(["setup", str(old)]) == 0
    err = capsys.readouterr().err
    assert "dates from before schema 2: its tasks show source ids" in err
    with Store.open(old) as store:
        assert store.id_scheme == "source"
        instances = {i.hume_ref: i for s in store.subsets() for i in store.instances(s.key)}
        projects = [p.ls_project_id for p in store.slot_projects()]
    listed = [t for pid in projects for t in a.server.client().list_tasks(pid)]
    assert len(listed) == 6 + 1 + 12
    assert {t["data"]["hume_ref"] for t in listed} == set(instances)
    assert all(ref == instances[ref].hume_id for ref in instances)  # the old references
    assert main(["setup", str(old)]) == 0  # a rerun finds them all: nothing imported twice
    assert sum(len(a.server.client().list_tasks(pid)) for pid in projects) == 6 + 1 + 12
