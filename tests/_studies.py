"""Study specs on the real data in tests/data/source, shared by the end-to-end tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from tests._paths import REPO_ROOT, SOURCE_DATA

if TYPE_CHECKING:
    from hume_sync.study.spec import StudySpec

SIB = SOURCE_DATA / "sib200"
SIB_COLUMNS = {"id": "index_id", "text": "text", "label": "category"}
DEMO_DATA = REPO_ROOT / "hume_sync" / "demo_data"
RERANK = Path(__file__).resolve().parent / "hume_sync" / "data" / "sib200_eng_rerank.jsonl"


def real_data_spec(
    name: str,
    seed: int,
    *,
    cls_eng: int,
    cls_arb: int,
    sts: int,
    rerank: int,
    train_pool: bool = False,
) -> dict[str, Any]:
    """SIB-200 classification (English, Arabic), a SIB-200 clustering set (3 topics × 4),
    STS Benchmark pairs and the SIB-200 reranking set, with the given sizes."""
    source: dict[str, Any] = {"path": str(SIB / "{subset}" / "test.tsv"), "columns": SIB_COLUMNS}
    if train_pool:
        source["train_path"] = str(SIB / "{subset}" / "train.tsv")
    return {
        "name": name,
        "seed": seed,
        "tasks": [
            {"name": "SIB200Classification", "type": "classification", "source": source,
             "subsets": [{"name": "eng_Latn", "language": "eng-Latn", "size": cls_eng},
                         {"name": "arb_Arab", "language": "arb-Arab", "size": cls_arb}]},
            {"name": "SIB200Clustering", "type": "clustering",
             "source": {"path": str(SIB / "eng_Latn" / "test.tsv"), "columns": SIB_COLUMNS},
             "labels": 3, "items_per_label": 4, "subsets": [{"language": "eng-Latn"}]},
            {"name": "STSBenchmark", "type": "sts",
             "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
             "score_range": [0, 5], "subsets": [{"language": "eng-Latn", "size": sts}]},
            {"name": "SIB200Reranking", "type": "reranking", "source": {"path": str(RERANK)},
             "candidates": 7, "subsets": [{"language": "eng-Latn", "size": rerank}]},
        ],
    }  # fmt: skip


def write_spec(study: Path, spec: dict[str, Any]) -> Path:
    """Create the study folder with its study.yaml; returns the spec path."""
    study.mkdir(parents=True)
    path = study / "study.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def make_v1_store(study: Path, spec: StudySpec) -> None:
    """A study store exactly as schema 1 wrote it: the same sample (sampling is unchanged),
    items named by their source ids, no positions, no references, train pool without order."""
    from hume_sync.store import MIGRATIONS, dumps
    from hume_sync.study.planning import plan_study

    plans = plan_study(spec, id_scheme="source")
    conn = sqlite3.connect(study / "study.sqlite")
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for statement in MIGRATIONS[1]:
        conn.execute(statement)
    conn.execute("INSERT INTO schema_version VALUES (1, '2025-01-01T00:00:00Z')")
    meta = {"schema_version": "1", "study_name": spec.name, "seed": str(spec.seed),
            "spec_hash": spec.spec_hash, "spec": dumps(spec.to_dict()),
            "created_at": "2025-01-01T00:00:00Z"}  # fmt: skip
    conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    for p in plans:
        conn.execute(
            "INSERT INTO subsets (subset_key, task_name, hf_subset, task_type, language, config, "
            "samples_per_label, overlap, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (p.key, p.task_name, p.hf_subset, p.task_type, p.language, dumps(p.config),
             p.samples_per_label, p.overlap, p.position),
        )  # fmt: skip
        for hid, source_id, order, content, gold_json, _ in p.instances:
            conn.execute(
                "INSERT INTO instances (hume_id, subset_key, source_id, sample_order, content, "
                "gold) VALUES (?, ?, ?, ?, ?, ?)",
                (hid, p.key, source_id, order, content, gold_json),
            )
        for source_id, text, label, _ in sorted(p.train):
            conn.execute(
                "INSERT INTO train_items VALUES (?, ?, ?, ?)", (p.key, source_id, text, label)
            )
    conn.commit()
    conn.close()


def tiny_sts_study(parent: Path, name: str, size: int) -> Path:
    """``parent/study``, made by ``hume-sync init`` from a one-subset STS spec on the demo's
    English similarity pairs (``size`` of them): the smallest real study, for the tests of what
    happens around a store (locks, SQLite failures, the ML backend's limits)."""
    from hume_sync.cli import main

    source = {"path": str(DEMO_DATA / "similarity_en.jsonl")}
    task = {"name": "T", "type": "sts", "source": source,
            "subsets": [{"language": "eng-Latn", "size": size}]}  # fmt: skip
    spec = parent / "spec.yaml"
    spec.write_text(yaml.safe_dump({"name": name, "tasks": [task]}), encoding="utf-8")
    study = parent / "study"
    assert main(["init", str(study), "--spec", str(spec)]) == 0
    return study


def onboarding_study(tmp_path: Path, monkeypatch: Any, name: str, **sizes: int) -> Path:
    """A study made by ``hume-sync init`` with hume's home in ``tmp_path`` and no Label Studio
    from the environment: what the onboarding tests register annotators in."""
    from hume_sync.cli import main

    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    spec = real_data_spec(name, 1, **{"cls_eng": 2, "cls_arb": 2, "sts": 2, "rerank": 2, **sizes})
    d = tmp_path / "study"
    assert main(["init", str(d), "--spec", str(write_spec(d, spec))]) == 0
    return d
