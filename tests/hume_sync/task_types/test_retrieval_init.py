"""A retrieval study through ``init``: the spec reads a BEIR folder, the pools go to the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.errors import SpecError
from hume_sync.store import Store
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.retrieval.pooling import pooling_context
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import cache_path
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT

QRELS = REPO_ROOT / "tests" / "data" / "retrieval" / "stsb" / "qrels" / "test.tsv"


def _init(study: Path, **task: Any) -> None:
    spec = {
        "name": "retrieval-study",
        "seed": 11,
        "tasks": [
            {
                "name": "STSBRetrieval",
                "type": "retrieval",
                "source": {"path": str(QRELS)},
                "pool_depth": 4,
                "subsets": [{"language": "eng-Latn", "size": 6}],
                **task,
            }
        ],
    }
    study.mkdir(parents=True, exist_ok=True)
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    with pooling_context(encoders=[FakeEncoder(dim=8)]):
        init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))


def test_init_stores_pools_with_grades_and_embeds_through_the_study_cache(tmp_path: Path) -> None:
    study = tmp_path / "study"
    _init(study)
    with Store.open(study) as store:
        sub = store.subset("STSBRetrieval/default")
        instances = store.instances(sub.key)
    assert sub.task_type == "retrieval" and len(instances) == 6
    assert sub.config["grade_labels"] == ["not relevant", "partly", "highly"]
    assert sub.config["pool_depth"] == 4 and sub.config["corpus"]["beir"] == str(QRELS.parents[1])
    report = sub.config["report"]["per_label"]
    assert report["pooled by emb:test/fake"] == 6 * 4
    for inst in instances:
        assert 4 <= len(inst.content["candidates"]) <= 4 + 4 + 1
    # The corpus was embedded into the study's own cache (455 documents + 6 queries).
    with sqlite3.connect(cache_path(study)) as conn:
        (rows,) = conn.execute("SELECT count(*) FROM embeddings").fetchone()
    assert rows == 455 + 6


def test_init_again_writes_nothing(tmp_path: Path) -> None:
    study = tmp_path / "study"
    _init(study)
    with Store.open(study) as store:
        before = store.total_changes
    _init(study)
    with Store.open(study) as store:
        assert store.total_changes == before


def test_binary_qrels_get_two_grades_and_a_spec_label_set_wins(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "".join(f'{{"_id": "d{i}", "text": "document number {i}"}}\n' for i in range(30))
    )
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "number 3"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td3\t1\n")
    _init(tmp_path / "a", source={"path": str(folder / "qrels" / "test.tsv")},
          subsets=[{"language": "eng-Latn", "size": 1}])  # fmt: skip
    with Store.open(tmp_path / "a") as store:
        assert store.subset("STSBRetrieval/default").config["grade_labels"] == [
            "not relevant",
            "relevant",
        ]
    _init(tmp_path / "b", grade_labels=["no", "some", "yes", "perfect"])
    with Store.open(tmp_path / "b") as store:
        labels = store.subset("STSBRetrieval/default").config["grade_labels"]
    assert labels == ["no", "some", "yes", "perfect"]


def test_a_source_that_is_not_a_qrels_file_is_one_line(tmp_path: Path) -> None:
    spec = {
        "name": "s",
        "seed": 1,
        "tasks": [
            {
                "name": "R",
                "type": "retrieval",
                "source": {"path": str(QRELS.parents[1] / "corpus.jsonl")},
                "subsets": [{"language": "eng-Latn", "size": 2}],
            }
        ],
    }
    with pytest.raises(SpecError, match=r"retrieval sources must be TSV .*qrels"):
        parse_spec(spec, file="s.yaml", base_dir=tmp_path)
