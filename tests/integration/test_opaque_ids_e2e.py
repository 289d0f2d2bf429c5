"""Nothing on screen or in task data encodes gold, checked on what a real Label Studio serves.

The study's sources are built to leak: reranking candidates named as MTEB v1's reader names them
(``p0`` is the relevant passage, ``n0``... the others, relevant first), and a clustering set whose
ids are numbered label after label, in label order. After ``init`` and ``setup`` every task is
read back through the API with an annotator's token: no source id, no label, no grouping and no
relevant-first order may be there. Also: ``setup`` recognises the tasks of a study set up before
store schema 2, and refuses to adopt such tasks into a newer store.
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

import label_studio_configs
from hume_sync.cli import main
from hume_sync.projects import project_title, setup_study
from hume_sync.spec import parse_spec
from hume_sync.store import Store, StoreError, gold, init_from_spec
from tests._paths import SOURCE_DATA
from tests._studies import make_v1_store

pytestmark = pytest.mark.labelstudio

SIB = SOURCE_DATA / "sib200" / "eng_Latn"
LEAKY_ID = re.compile(r'"(?:p|n)\d+"')


def sib_rows(split: str) -> list[dict[str, str]]:
    path = SIB / f"{split}.tsv"
    if not path.exists():
        pytest.skip(f"shared test data missing: {path}")
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


def test_no_source_id_label_or_order_reaches_label_studio(ls_server, tmp_path, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_URL", ls_server.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    src = leaky_sources(tmp_path / "src")
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(leaky_spec(src)), encoding="utf-8")
    assert main(["init", str(study)]) == 0
    assert main(["setup", str(study)]) == 0

    annotator = ls_server.client(ls_server.make_user().token)
    with Store.open(study) as store:
        by_ref = store.instances_by_ref()
        tasks = {
            s.key: annotator.list_tasks(s.ls_project_id) for s in store.subsets()
        }  # what an annotator's token can read: everything in the Community edition
        golds = {s.key: gold(store, s.key) for s in store.subsets()}
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
            assert set(data) <= {"hume_ref", "text", "items", "query", "candidates"}
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


def _v1_setup(client: Any, study: Path) -> dict[str, int]:
    """Import a schema-1 store's tasks as hume did before schema 2 (``hume_id`` in the data,
    source ids on screen) and record the Label Studio ids in the v1 tables."""
    conn = sqlite3.connect(study / "study.sqlite")
    name = dict(conn.execute("SELECT key, value FROM meta"))["study_name"]
    created: dict[str, int] = {}
    for key, task_type, config in conn.execute(
        "SELECT subset_key, task_type, config FROM subsets"
    ).fetchall():
        module = label_studio_configs.get(task_type)
        cfg = json.loads(config)
        title = f"{name} · {key}"
        project = client.create_project(
            title=title if len(title) <= 50 else f"{title[:47]}...",
            label_config=module.render_config(
                labels=cfg.get("label_set") if task_type == "classification" else None,
                n_groups=cfg.get("n_groups"),
            ),
            maximum_annotations=1,
            show_collab_predictions=False,
        )
        rows = conn.execute(
            "SELECT hume_id, content FROM instances WHERE subset_key = ? ORDER BY sample_order",
            (key,),
        ).fetchall()
        tasks = []
        for hid, content in rows:
            data = module.task_data(hid, json.loads(content))
            data["hume_id"] = data.pop("hume_ref")  # the schema-1 key
            tasks.append({"data": data})
        ids = client.import_tasks(project["id"], tasks)
        conn.execute(
            "UPDATE subsets SET ls_project_id = ? WHERE subset_key = ?", (project["id"], key)
        )
        for (hid, _), tid in zip(rows, ids, strict=True):
            conn.execute("UPDATE instances SET ls_task_id = ? WHERE hume_id = ?", (tid, hid))
        created[key] = project["id"]
    conn.commit()
    conn.close()
    return created


def test_setup_recognises_a_schema_1_study_and_refuses_its_tasks_elsewhere(
    ls_server, tmp_path
) -> None:
    client = ls_server.client()
    src = leaky_sources(tmp_path / "src")
    old = tmp_path / "old"
    old.mkdir()
    data = leaky_spec(src, name="v1-study")
    spec = parse_spec(data, file=str(old / "study.yaml"), base_dir=old)
    (old / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    make_v1_store(old, spec)
    projects = _v1_setup(client, old)

    # the migrated store finds every task it already has: nothing imported, nothing duplicated
    with Store.open(old) as store:
        summary = setup_study(client, store)
        assert summary.legacy_ids and summary.imported == 0 and summary.created == 0
        assert {p.subset: p.project_id for p in summary.projects} == projects
    for pid in projects.values():
        assert len(client.list_tasks(pid)) in (1, 6, 12)

    # a new store whose project title finds those tasks refuses them, in one line
    new = tmp_path / "new"
    init_from_spec(new, parse_spec(data, file=str(new / "study.yaml"), base_dir=new))
    with Store.open(new) as store:
        sub = store.subset("Passages/default")
        assert project_title("v1-study", sub) == client.get_project(projects[sub.key])["title"]
        with pytest.raises(StoreError, match=r"set up by an older hume.*hume_id.*delete"):
            setup_study(client, store)
        assert store.subset("Passages/default").ls_project_id is None  # nothing recorded
    assert len(client.list_tasks(projects["Passages/default"])) == 6


def test_setup_refuses_a_project_of_another_store_with_the_same_title(ls_server, tmp_path):
    """References are random per store: a second study folder of the same study finds the
    first one's project by title and must not import its tasks there a second time."""
    client = ls_server.client()
    src = leaky_sources(tmp_path / "src")
    data = leaky_spec(src, name="twice")
    stores = []
    for name in ("first", "second"):
        study = tmp_path / name
        init_from_spec(study, parse_spec(data, file=str(study / "study.yaml"), base_dir=study))
        stores.append(study)
    with Store.open(stores[0]) as store:
        first = setup_study(client, store)
    assert first.imported == 6 + 1 + 12
    with Store.open(stores[1]) as store:
        with pytest.raises(StoreError, match=r"holds 6 task\(s\) this study did not import"):
            setup_study(client, store)
        assert all(s.ls_project_id is None for s in store.subsets())
    assert [len(client.list_tasks(p.project_id)) for p in first.projects] == [6, 1, 12]
