"""Instruction reranking (FollowIR's p-MRR): what mteb's own task class computes, rebuilt from
hume's parts, before the type is registered.

mteb's ``Core17InstructionRetrieval`` (type ``InstructionReranking``, main score ``p-MRR``)
embeds each query with its instruction, ranks the query's ``top_ranked`` candidates by the
model's similarity and compares the runs of each query's ``-og`` and ``-changed`` versions on the
documents its ``qrel_diff`` lists. This test runs that class on fixed embeddings and checks that
hume's pieces give the same numbers: the per-candidate similarities of
``ml_backend.procedures.common.candidate_similarities`` (what every candidate-ranking type's
model answers are), the ``og`` / ``changed`` retrieval scores of the reranking procedure's
``retrieval_metrics``, and p-MRR from :func:`scoring.instruction_following.p_mrr`. The type
built on them (issue 36) inherits this parity; its store-path test comes with it.

The one stand-in: the class reads ``qrel_diff`` from the Hugging Face hub inside its scoring
(``load_dataset``), which cannot run offline, so the test hands it the same rows in memory.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ml_backend.procedures.common import candidate_similarities
from ml_backend.procedures.reranking import retrieval_metrics
from scoring.instruction_following import p_mrr
from tests._mteb import TOL, max_diff, report, run_mteb
from tests.ml_backend.test_parity import MtebTableEncoder

mteb = pytest.importorskip("mteb")
datasets = pytest.importorskip("datasets")

TASK = "Core17InstructionRetrieval"
TASK_MODULE = "mteb.tasks.instruction_reranking.eng.core17_instruction_retrieval"
KEYS = tuple(f"{m}_at_{k}" for m in ("ndcg", "map", "recall", "precision") for k in (1, 5, 10))


def followir_set(seed: int) -> tuple[dict[str, Any], dict[str, np.ndarray], dict[str, Any]]:
    """Ten queries, each in two versions, over seven candidates of its own.

    Under the original instruction 2-3 candidates are relevant; the changed instruction makes
    1-2 of them non-relevant (the ``qrel_diff``). Embeddings are drawn so that the changed
    version's query vector moves away from the changed documents, partly: p-MRR is neither 0
    nor 1. Some candidates share a vector, so ties are broken by mteb's rule.
    """
    rng = np.random.default_rng(seed)
    dim, table = 12, {}
    corpus, queries, instructions, qrels, top, diff = {}, [], {}, {}, {}, {}
    for q in range(10):
        docs = [f"d{q}-{j}" for j in range(7)]
        relevant = docs[: 2 + q % 2]
        changed = relevant[: 1 + q % 2]
        base = rng.normal(size=dim)
        for j, d in enumerate(docs):
            corpus[d] = f"document {d}"
            weight = 0.8 if d in relevant else 0.1
            table[corpus[d]] = (base * weight + rng.normal(size=dim)).astype(np.float32)
            if q % 4 == 0 and j == 6:  # an exact tie with the first candidate
                table[corpus[d]] = table[corpus[docs[0]]].copy()
        for version, shift in (("og", 0.0), ("changed", 1.5)):
            qid, text = f"q{q}-{version}", f"query {q}"
            instruction = f"{version} instruction of query {q}"
            away = sum(table[corpus[d]] for d in changed) / len(changed)
            vec = base - shift * away + 0.3 * rng.normal(size=dim)
            table[f"{text} {instruction}"] = vec.astype(np.float32)
            queries.append((qid, text))
            instructions[qid] = instruction
            rel = relevant if version == "og" else [d for d in relevant if d not in changed]
            qrels[qid] = {d: int(d in rel) for d in docs}
            top[qid] = list(docs)
        diff[f"q{q}"] = list(changed)
    ds = datasets.Dataset.from_dict
    data = {
        "default": {
            "test": {
                "corpus": ds({"id": list(corpus), "text": list(corpus.values())}),
                "queries": ds(
                    {
                        "id": [q for q, _ in queries],
                        "text": [t for _, t in queries],
                        "instruction": [instructions[q] for q, _ in queries],
                    }
                ),
                "relevant_docs": qrels,
                "top_ranked": top,
            }
        }
    }
    parts = {"corpus": corpus, "queries": queries, "instructions": instructions}
    parts |= {"qrels": qrels, "top": top, "diff": diff}
    return data, table, parts


def _qrel_diff_rows(diff: dict[str, list[str]]) -> Any:
    return [{"query-id": q, "corpus-ids": docs} for q, docs in diff.items()]


@pytest.mark.parametrize("seed", [3, 11])
def test_p_mrr_from_humes_parts_equals_mteb_task_class(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, table, parts = followir_set(seed)
    module = importlib.import_module(TASK_MODULE)
    monkeypatch.setattr(module, "load_dataset", lambda *a, **k: _qrel_diff_rows(parts["diff"]))
    theirs, preds = run_mteb(TASK, "default", data, MtebTableEncoder(table), tmp_path)

    qids = [q for q, _ in parts["queries"]]
    q_emb = np.stack([table[f"{t} {parts['instructions'][q]}"] for q, t in parts["queries"]])
    c_emb = [np.stack([table[parts["corpus"][d]] for d in parts["top"][q]]) for q in qids]
    _, answers = candidate_similarities(
        q_emb, c_emb, [parts["top"][q] for q in qids], qids, "cosine"
    )
    runs = dict(zip(qids, answers, strict=True))
    per_candidate = max(abs(runs[q][d] - preds[q][d]) for q in qids for d in runs[q])

    og = {q.removesuffix("-og"): r for q, r in runs.items() if q.endswith("-og")}
    new = {q.removesuffix("-changed"): r for q, r in runs.items() if q.endswith("-changed")}
    ours = p_mrr(og, new, parts["diff"]).value
    report(f"p-MRR (seed {seed})", abs(ours - theirs["p-MRR"]), ours)
    report(f"per-candidate similarity (seed {seed})", per_candidate)
    assert abs(ours - theirs["p-MRR"]) <= TOL
    assert per_candidate <= TOL
    assert 0.05 < abs(ours) < 0.95, "the set should move the changed documents, not all the way"

    for version in ("og", "changed"):
        subset = {q: r for q, r in runs.items() if q.endswith(f"-{version}")}
        scores, _ = retrieval_metrics(subset, {q: parts["qrels"][q] for q in subset})
        diff = max_diff(scores, theirs[version], KEYS)
        report(f"{version} run's retrieval scores (seed {seed})", diff)
        assert diff <= TOL
    assert theirs["main_score"] == pytest.approx(theirs["p-MRR"])


# ------------------------------------------------------------------------- through the store

SOURCE = Path(__file__).resolve().parents[1] / "data" / "instruction_reranking" / "sib200"
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"


def _rows() -> list[dict[str, Any]]:
    import json

    path = SOURCE / "eng_Latn" / "test.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _mteb_layout(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The rows in mteb's FollowIR layout, read here from the file (not through hume), and
    their ``qrel_diff``: the candidates relevant under the original instruction only."""
    corpus: dict[str, str] = {}
    ids, texts, instructions, qrels, top, diff = [], [], [], {}, {}, {}
    for r in rows:
        for c in r["candidates"]:
            corpus.setdefault(c["id"], c["text"])
        for arm in ("og", "changed"):
            qid = f"{r['id']}-{arm}"
            ids.append(qid)
            texts.append(r["query"])
            instructions.append(r[f"instruction_{arm}"])
            qrels[qid] = {c["id"]: int(c[f"relevant_{arm}"]) for c in r["candidates"]}
            top[qid] = [c["id"] for c in r["candidates"]]
        diff[r["id"]] = [
            c["id"] for c in r["candidates"] if c["relevant_og"] and not c["relevant_changed"]
        ]
    ds = datasets.Dataset.from_dict
    split = {
        "corpus": ds({"id": list(corpus), "text": list(corpus.values())}),
        "queries": ds({"id": ids, "text": texts, "instruction": instructions}),
        "relevant_docs": qrels,
        "top_ranked": top,
    }
    return {"default": {"test": split}}, diff


@pytest.mark.model
def test_p_mrr_through_the_store_equals_mteb(
    tmp_path: Path, minilm: Any, mteb_minilm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``init`` → ``predict`` with MiniLM; the stored answers of both arms give mteb's p-MRR
    (the type's ``model_p_mrr``, what the report prints) and each arm's stored scores equal
    mteb's ``og`` / ``changed`` scores of its task class run on the same queries."""
    import yaml

    from hume_sync import task_types
    from hume_sync.store import Store, gold
    from hume_sync.study.spec import parse_spec
    from hume_sync.workflow.init import init_from_spec
    from hume_sync.workflow.predict import predict_study

    spec = {
        "name": "parity",
        "seed": 42,
        "tasks": [
            {
                "name": "FollowSIB",
                "type": "instruction_reranking",
                "source": {"path": str(SOURCE / "{subset}" / "test.jsonl")},
                "subsets": [{"name": "eng_Latn", "language": "eng-Latn", "size": 12}],
            }
        ],
    }
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    arms = {arm: f"FollowSIB/eng_Latn-{arm}" for arm in ("og", "changed")}
    with Store.open(study) as store:
        predict_study(study, store, encoders=[minilm], progress=False)
        scores = {arm: store.model_subset_scores()[MV][key] for arm, key in arms.items()}
        answers, golds, sampled = {}, {}, []
        for arm, key in arms.items():
            source_of = {i.hume_id: i.source_id for i in store.instances(key)}
            sampled = list(source_of.values())
            answers[arm] = {
                source_of[p.hume_id]: p.answer for p in store.predictions(key, model_version=MV)
            }
            golds[arm] = {source_of[h]: g for h, g in gold(store, key).items()}
    t = task_types.get("instruction_reranking")
    ours = t.model_p_mrr(answers["og"], answers["changed"], golds["og"], golds["changed"])

    rows = [r for r in _rows() if r["id"] in set(sampled)]  # the source's own order
    assert len(rows) == 12 and [r["id"] for r in rows] != sampled  # shown in a drawn order
    data, diff = _mteb_layout(rows)
    module = importlib.import_module(TASK_MODULE)
    monkeypatch.setattr(module, "load_dataset", lambda *a, **k: _qrel_diff_rows(diff))
    theirs, _ = run_mteb(TASK, "default", data, mteb_minilm, tmp_path / "mteb")
    report("p-MRR through the store", abs(ours.value - theirs["p-MRR"]), ours.value)
    assert abs(ours.value - theirs["p-MRR"]) <= TOL
    for arm in ("og", "changed"):
        diff_arm = max_diff(scores[arm].scores, theirs[arm], KEYS)
        report(f"{arm} arm's stored scores", diff_arm, scores[arm].main_score)
        assert diff_arm <= TOL
