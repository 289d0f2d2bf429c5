"""Retrieval's study concern: the BEIR and mteb sources, the draw, and the pools at init."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from hume_sync.errors import SourceError
from hume_sync.study.sampling import SamplingParams, SourcePositions
from hume_sync.study.sources import load_records
from hume_sync.task_types.retrieval.pooling import pooling_context
from hume_sync.task_types.retrieval.settings import RetrievalSettings
from hume_sync.task_types.retrieval.source import Judgment, beir_collection, judgments_from_mteb
from hume_sync.task_types.retrieval.study import RetrievalStudy, group_qrels
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT

STSB = REPO_ROOT / "tests" / "data" / "retrieval" / "stsb"
QRELS = STSB / "qrels" / "test.tsv"


class _Study(RetrievalStudy):
    name = "retrieval"
    mteb_type = "Retrieval"


KIND = _Study()


def _judgments(path: Path = QRELS) -> list[Judgment]:
    return cast("list[Judgment]", load_records(KIND, path))


def _sample(size: int | None, seed: int = 7, **settings: Any) -> tuple[list[Judgment], Any]:
    records = _judgments()
    params = SamplingParams(
        sampling="sample" if size else "all",
        size=size,
        settings=RetrievalSettings(**settings),
    )
    with pooling_context(encoders=[FakeEncoder(dim=16)]):
        return records, KIND.study_sample_subset(records, np.random.default_rng(seed), params)


def test_the_beir_folder_reads_as_qrels_lines_of_one_collection() -> None:
    records = _judgments()
    assert len(records) == 256  # the qrels lines
    collection = beir_collection(QRELS)
    assert len(collection.docs) == 455 and len(collection.queries) == 256
    assert all(r.collection is collection for r in records)
    assert sum(r.grade > 0 for r in records) == 155


def test_queries_without_a_judged_relevant_document_are_never_drawn() -> None:
    records, sample = _sample(40)
    qrels = group_qrels(records)
    assert len(sample.records) == 40
    for q in sample.records:
        assert any(g > 0 for g in qrels[q.id].values())
    assert "101 query(ies) without a judged-relevant document never drawn" in sample.report.notes


def test_each_pool_holds_every_system_s_top_d_and_the_relevant_docs() -> None:
    _, sample = _sample(10, pool_depth=5)
    for q in sample.records:
        docs = [d for d, _ in q.docs]
        assert len(docs) == len(set(docs))
        relevant = {d for d, g in q.qrels.items() if g > 0}
        assert relevant <= set(docs)
        assert 5 <= len(docs) <= 5 + 5 + len(relevant)  # fake model ∪ BM25 ∪ qrels
    report = sample.report.per_label
    assert report["pooled documents"] == sum(len(q.docs) for q in sample.records)
    assert report["pooled by emb:test/fake"] == 50 and report["pooled by bm25"] <= 50


def test_the_draw_and_the_shown_order_follow_the_seed() -> None:
    _, a = _sample(8, seed=1)
    _, b = _sample(8, seed=1)
    _, c = _sample(8, seed=2)
    assert [(q.id, q.docs) for q in a.records] == [(q.id, q.docs) for q in b.records]
    assert [q.id for q in a.records] != [q.id for q in c.records]
    # Shuffled: the pool is not in id order for every query.
    assert any([d for d, _ in q.docs] != sorted(d for d, _ in q.docs) for q in a.records)


def test_instances_carry_opaque_ids_and_gold_only_for_judged_documents() -> None:
    _, sample = _sample(5)
    instances = KIND.study_instances(sample.records, SourcePositions.of([]))
    for inst, q in zip(instances, sample.records, strict=True):
        assert [c["id"] for c in inst.content["candidates"]] == [
            str(n) for n in range(1, len(q.docs) + 1)
        ]
        refs = {r.item_id: r.source_id for r in inst.items}
        assert {refs[i]: g for i, g in inst.gold.items()} == {
            d: g for d, g in q.qrels.items() if d in refs.values()
        }
        assert "grade" not in json.dumps(inst.content)


def test_sampling_all_takes_every_eligible_query() -> None:
    _, sample = _sample(None, pool_lexical=False)
    assert len(sample.records) == 155
    assert sample.report.method == "all"


def test_the_mteb_split_gives_the_same_judgments_as_the_beir_folder() -> None:
    datasets = pytest.importorskip("datasets")
    collection = beir_collection(QRELS)
    records = _judgments()
    split = {
        "corpus": datasets.Dataset.from_dict(
            {"id": list(collection.docs), "text": list(collection.docs.values())}
        ),
        "queries": datasets.Dataset.from_dict(
            {"id": list(collection.queries), "text": [t for t, _ in collection.queries.values()]}
        ),
        "relevant_docs": group_qrels(records),
    }
    from_mteb = judgments_from_mteb(split, where="mteb:x")
    assert [(j.query_id, j.doc_id, j.grade) for j in from_mteb] == [
        (j.query_id, j.doc_id, j.grade) for j in records
    ]
    assert dict(from_mteb[0].collection.docs) == dict(collection.docs)


def test_a_qrels_line_naming_an_unknown_document_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text('{"_id": "d1", "text": "a doc"}\n')
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "a query"}\n')
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td9\t1\n")
    records = _judgments(tmp_path / "qrels" / "test.tsv")
    params = SamplingParams(size=1, settings=RetrievalSettings())
    with pytest.raises(SourceError, match="qrels name document 'd9', not in the corpus"):
        KIND.study_sample_subset(records, np.random.default_rng(0), params)
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\thigh\n")
    with pytest.raises(SourceError, match=r"test.tsv:2: score must be an integer"):
        load_records(KIND, tmp_path / "qrels" / "test.tsv")


def test_instruction_retrieval_shows_the_instruction_and_models_read_it_appended() -> None:
    """mteb's InstructionRetrieval tasks are read by this type; the instruction is shown beside
    the query, and a model reads ``query + " " + instruction``, as mteb's dataloader builds it."""
    datasets = pytest.importorskip("datasets")
    from hume_sync import task_types
    from hume_sync.study.sources import load_mteb, mteb_kind, provided_mteb_data
    from ml_backend.model_procedure import SubsetJob

    assert mteb_kind("InstructionRetrieval") is task_types.get("retrieval")
    collection = beir_collection(QRELS)
    docs = list(collection.docs.items())[:40]
    split = {
        "corpus": datasets.Dataset.from_dict(
            {"id": [d for d, _ in docs], "text": [t for _, t in docs]}
        ),
        "queries": datasets.Dataset.from_dict(
            {"id": ["a", "b"], "text": ["a girl", "a man"], "instruction": ["Hair only.", None]}
        ),
        "relevant_docs": {"a": {docs[0][0]: 1}, "b": {docs[5][0]: 2}},
    }
    with provided_mteb_data({"IFIRScifact": {"test": split}}):
        data = load_mteb("IFIRScifact", "default", kind=task_types.get("retrieval"))
    records = cast("list[Judgment]", list(data.records))
    params = SamplingParams(size=2, settings=RetrievalSettings(pool_depth=3))
    with pooling_context(encoders=[FakeEncoder(dim=8)]):
        sample = KIND.study_sample_subset(records, np.random.default_rng(0), params)
    instances = KIND.study_instances(sample.records, SourcePositions.of([]))
    by_query = {i.content["query"]: i.content for i in instances}
    assert by_query["a girl"]["instruction"] == "Hair only."
    assert "instruction" not in by_query["a man"]
    retrieval = task_types.get("retrieval")
    job = SubsetJob("k", retrieval, "IFIRScifact", ("1", "2"), tuple(by_query.values()))
    queries = retrieval.model_encode_groups(job)[0]
    assert set(queries.texts) == {"a girl Hair only.", "a man"} and queries.role == "query"


def test_a_corpus_edited_after_init_is_refused_when_read_again(tmp_path: Path) -> None:
    """``predict`` reads the whole corpus again from the subset's stored origin: a corpus
    changed since ``init`` would be scored under the study's name, so it is refused."""
    import shutil

    from hume_sync.task_types.retrieval.source import collection_from

    folder = tmp_path / "stsb"
    shutil.copytree(STSB, folder)
    records = _judgments(folder / "qrels" / "test.tsv")
    params = SamplingParams(size=2, settings=RetrievalSettings())
    config = KIND.study_subset_config(params, records, [], [])
    origin = config["corpus"]
    assert origin["beir"] == str(folder.resolve())
    assert len(collection_from(origin).docs) == 455  # unchanged: read again
    corpus = folder / "corpus.jsonl"
    lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
    corpus.write_text("".join(lines[:-1]), encoding="utf-8")  # one document fewer
    with pytest.raises(SourceError, match=r"corpus.jsonl: changed since the study was made"):
        collection_from(origin)


def test_pools_embed_under_the_task_name_predict_reads(tmp_path: Path) -> None:
    """A model keyed by task (a prompt per mteb task, as instruct models have) must pool the
    corpus as ``predict`` runs it: under the subset's task name. The cache then holds exactly
    the rows ``predict`` looks up, and none under no task name."""
    from ml_backend.embedding_cache import EmbeddingCache, EmbeddingCacheError

    class PromptPerTask(FakeEncoder):
        """An instruct model's prompt table: a prompt for the task by name."""

        def prompt_for(self, *, role: Any, task_type: Any, task_name: Any) -> str | None:
            return "Find the sentence that says the same: " if task_name == "StsbSearch" else None

    records = _judgments()
    encoder = PromptPerTask(dim=16)
    params = SamplingParams(size=3, settings=RetrievalSettings(), task_name="StsbSearch")
    cache_path = tmp_path / "cache.sqlite"
    with pooling_context(cache_path=cache_path, encoders=[encoder]):
        KIND.study_sample_subset(records, np.random.default_rng(3), params)
    docs = list(beir_collection(QRELS).docs.values())
    with EmbeddingCache(cache_path) as cache:
        rows = cache.lookup(
            encoder, docs, role="passage", task_type="Retrieval", task_name="StsbSearch"
        )
        assert rows.shape == (len(docs), 16)
        with pytest.raises(EmbeddingCacheError):
            cache.lookup(encoder, docs[:1], role="passage", task_type="Retrieval")
