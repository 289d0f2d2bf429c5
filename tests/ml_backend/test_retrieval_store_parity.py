"""Retrieval model scores through the study store equal mteb 2.x's own ``AbsTaskRetrieval``.

hume runs as a user runs it (``init``, which pools each drawn query with the packaged
all-MiniLM-L6-v2 and BM25, then ``predict``); mteb's ``SciFact`` task class evaluates the same
model on the same queries, corpus and qrels, read here from the BEIR files: once over the whole
corpus (the leaderboard's number, stored as ``full_corpus_*``) and once with each query's pool
given as ``top_ranked`` (the number people are compared with). Only the drawn queries and their
pools come from the store: they are what is being compared.

The same folder with the spec's ``main_score: ndcg_at_20`` (as IFIR's tasks name it) checks a
subset scored by another main score: pooled 20 deep by default, its stored main score is
mteb's nDCG@20, pooled and over the whole corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.store import Store
from hume_sync.study.spec import parse_spec
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import predict_study
from tests._mteb import TOL, max_diff, report, run_mteb
from tests._paths import REPO_ROOT

datasets = pytest.importorskip("datasets")
pytest.importorskip("mteb")

pytestmark = pytest.mark.model

STSB = REPO_ROOT / "tests" / "data" / "retrieval" / "stsb"
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"
KEYS = ("ndcg_at_10", "map_at_1000", "mrr_at_10", "recall_at_10", "precision_at_3", "ndcg_at_1")
KEYS_20 = ("ndcg_at_20", "ndcg_at_10", "map_at_20", "recall_at_20", "precision_at_20")


def _jsonl(name: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (STSB / name).read_text("utf-8").splitlines() if x]


def _study(tmp_path: Path, minilm: Any, **task: Any) -> tuple[Any, dict[str, list[str]], Any]:
    """init and predict through the store; the stored score, the pools, the stored config."""
    study = tmp_path / "study"
    spec = {
        "name": "parity",
        "seed": 5,
        "tasks": [
            {
                "name": "STSBRetrieval",
                "type": "retrieval",
                "source": {"path": str(STSB / "qrels" / "test.tsv")},
                "subsets": [{"language": "eng-Latn", "size": 12}],
                **task,
            }
        ],
    }
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    key = "STSBRetrieval/default"
    with Store.open(study) as store:
        predict_study(study, store, encoders=[minilm], progress=False)
        ours = store.model_subset_scores()[MV][key]
        refs = store.item_refs(key)
        pools = {i.source_id: [r.source_id for r in refs[i.hume_id]] for i in store.instances(key)}
        config = store.subset(key).config
    return ours, pools, config


def _mteb_data(pools: dict[str, list[str]]) -> Any:
    """The mteb side: the BEIR files as they are, restricted to the drawn queries; a function
    of ``top_ranked`` (None: the whole corpus)."""
    corpus = _jsonl("corpus.jsonl")
    queries = [q for q in _jsonl("queries.jsonl") if q["_id"] in pools]
    qrels: dict[str, dict[str, int]] = {}
    for line in (STSB / "qrels" / "test.tsv").read_text("utf-8").splitlines()[1:]:
        q, d, g = line.split("\t")
        if q in pools:
            qrels.setdefault(q, {})[d] = int(g)
    assert len(queries) == 12 and all(any(g > 0 for g in qrels[q].values()) for q in pools)

    def data(top_ranked: dict[str, list[str]] | None) -> dict[str, Any]:
        split = {
            "corpus": datasets.Dataset.from_dict(
                {
                    "id": [d["_id"] for d in corpus],
                    "title": [d["title"] for d in corpus],
                    "text": [d["text"] for d in corpus],
                }
            ),
            "queries": datasets.Dataset.from_dict(
                {"id": [q["_id"] for q in queries], "text": [q["text"] for q in queries]}
            ),
            "relevant_docs": qrels,
            "top_ranked": top_ranked,
        }
        return {"default": {"test": split}}

    return data


def test_retrieval_through_the_store(tmp_path: Path, minilm: Any, mteb_minilm: Any) -> None:
    ours, pools, _ = _study(tmp_path, minilm)
    data = _mteb_data(pools)
    key = "STSBRetrieval/default"
    study = tmp_path / "study"
    full, _ = run_mteb("SciFact", "default", data(None), mteb_minilm, tmp_path / "full")
    pooled, preds = run_mteb("SciFact", "default", data(pools), mteb_minilm, tmp_path / "pool")
    assert ours.main_score == ours.scores["ndcg_at_10"]
    diff_pool = max_diff(ours.scores, pooled, KEYS)
    diff_full = max_diff({k: ours.scores[f"full_corpus_{k}"] for k in KEYS}, full, KEYS)
    report("retrieval through the store, pooled (top_ranked)", diff_pool, ours.main_score)
    report("retrieval through the store, whole corpus", diff_full, full["ndcg_at_10"])
    assert diff_pool <= TOL and diff_full <= TOL
    # The model was pooled to depth 10, so its own top 10 is in every pool: its nDCG@10 in
    # the pool is its whole-corpus nDCG@10 (a model not pooled has no such guarantee).
    assert ours.scores["full_corpus_ndcg_at_10"] == ours.scores["ndcg_at_10"]
    with Store.open(study) as store:
        refs = store.item_refs(key)
        to_source = {
            p.hume_id: {r.item_id: r.source_id for r in refs[p.hume_id]}
            for p in store.predictions(key, model_version=MV)
        }
        answers = {
            next(i.source_id for i in store.instances(key) if i.hume_id == p.hume_id): {
                to_source[p.hume_id][d]: s for d, s in p.answer.items()
            }
            for p in store.predictions(key, model_version=MV)
        }
    worst = max(abs(answers[q][d] - preds[q][d]) for q in answers for d in answers[q])
    report("retrieval through the store, per pooled document", worst)
    assert worst <= TOL


def test_a_subset_scored_by_ndcg_at_20_through_the_store(
    tmp_path: Path, minilm: Any, mteb_minilm: Any
) -> None:
    """A main score of nDCG@20 (IFIR's): pools 20 deep, the stored main score is mteb's."""
    ours, pools, config = _study(tmp_path, minilm, main_score="ndcg_at_20")
    assert config["main_score"] == "ndcg_at_20" and config["pool_depth"] == 20
    assert ours.main_score_name == "ndcg_at_20"
    assert ours.main_score == ours.scores["ndcg_at_20"]
    assert ours.method.startswith("mteb:cosine+top_ranked(pool)+trec_eval(ndcg_cut.20);")
    data = _mteb_data(pools)
    full, _ = run_mteb("SciFact", "default", data(None), mteb_minilm, tmp_path / "full")
    pooled, _ = run_mteb("SciFact", "default", data(pools), mteb_minilm, tmp_path / "pool")
    diff_pool = max_diff(ours.scores, pooled, KEYS_20)
    diff_full = max_diff({k: ours.scores[f"full_corpus_{k}"] for k in KEYS_20}, full, KEYS_20)
    report("nDCG@20 subset through the store, pooled (top_ranked)", diff_pool, ours.main_score)
    report("nDCG@20 subset through the store, whole corpus", diff_full, full["ndcg_at_20"])
    assert diff_pool <= TOL and diff_full <= TOL
    # Pooled 20 deep, the model's own top 20 is in every pool: its pooled nDCG@20 is its
    # whole-corpus nDCG@20 (at depth 10 it need not be).
    assert ours.scores["full_corpus_ndcg_at_20"] == ours.scores["ndcg_at_20"]
    assert min(len(p) for p in pools.values()) >= 20
