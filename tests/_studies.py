"""Study specs on the real data in ../shared/data/source, shared by the end-to-end tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests._paths import SOURCE_DATA

SIB = SOURCE_DATA / "sib200"
SIB_COLUMNS = {"id": "index_id", "text": "text", "label": "category"}
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
