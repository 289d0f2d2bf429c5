"""Summarization's model scores equal mteb 2.x's own ``AbsTaskSummarization`` on the same texts.

Two levels, as for the other types (``test_parity.py``, ``test_store_parity.py``):

* the procedure, on synthetic float32 embeddings that both sides look up by text (mteb through
  its ``SummEvalSummarization.v2`` class with the texts injected as ``task.dataset``), with a
  text of constant gold and one whose summaries tie, which mteb skips;
* the whole store path with the packaged all-MiniLM-L6-v2 (``model``): the SICK-derived texts
  (``tests/data/summarization``) as a local source, ``init`` then ``predict``; on the other side
  mteb's class with mteb's own wrapper of a separately loaded copy of the model, on the sampled
  texts in the source's order, read by this test from the JSONL file itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from ml_backend.procedures.summarization import summarize
from tests._mteb import TOL, max_diff, report, run_mteb

mteb = pytest.importorskip("mteb")
datasets = pytest.importorskip("datasets")

TASK, SUBSET = "SummEvalSummarization.v2", "default"
KEYS = ("cosine_spearman", "cosine_pearson", "dot_spearman", "dot_pearson", "spearman", "pearson")
COLUMNS = ("text", "human_summaries", "machine_summaries", "relevance")
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"
SICK = Path(__file__).resolve().parents[1] / "data" / "summarization" / "sick" / "texts.jsonl"


def texts() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SICK.read_text(encoding="utf-8").splitlines()]


def dataset(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        SUBSET: {"test": datasets.Dataset.from_dict({c: [r[c] for r in rows] for c in COLUMNS})}
    }


def test_the_procedure_matches_mteb_on_fixed_embeddings(tmp_path: Path) -> None:
    from tests.ml_backend.test_parity import MtebTableEncoder

    rows = texts()[:14]
    rows[2] = {**rows[2], "relevance": [3.0] * len(rows[2]["relevance"])}  # constant gold
    rng = np.random.default_rng(7)
    table: dict[str, np.ndarray] = {}
    for r in rows:
        for t in (*r["human_summaries"], *r["machine_summaries"]):
            table.setdefault(t, rng.normal(size=16).astype(np.float32))
    tied = rows[5]["machine_summaries"]  # every summary of text 5 equally close: skipped
    for t in tied:
        table[t] = table[rows[5]["human_summaries"][0]].copy()
    theirs, _ = run_mteb(TASK, SUBSET, dataset(rows), MtebTableEncoder(table), tmp_path)
    ours = summarize(
        [np.stack([table[t] for t in r["human_summaries"]]) for r in rows],
        [np.stack([table[t] for t in r["machine_summaries"]]) for r in rows],
        [r["relevance"] for r in rows],
    )
    assert ours.scores is not None and ours.scores["n_texts_skipped"] == 2
    diff = max_diff(ours.scores, theirs, KEYS)
    report("summarization procedure", diff, theirs["main_score"])
    assert diff <= TOL and ours.main_score == pytest.approx(theirs["main_score"], abs=TOL)
    assert ours.scores["cosine_spearman"] != ours.scores["dot_spearman"]  # not a trivial case


@pytest.mark.model
def test_summarization_through_the_store(tmp_path: Path, minilm: Any, mteb_minilm: Any) -> None:
    from scipy.stats import spearmanr

    from hume_sync.store import Store, gold
    from hume_sync.study.spec import parse_spec
    from hume_sync.workflow.init import init_from_spec
    from hume_sync.workflow.predict import predict_study

    spec = {
        "name": "parity",
        "seed": 42,
        "tasks": [
            {
                "name": "SickSumm",
                "type": "summarization",
                "source": {"path": str(SICK)},
                "subsets": [{"name": "default", "language": "eng-Latn", "size": 25}],
            }
        ],
    }
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    key = "SickSumm/default"
    with Store.open(study) as store:
        predict_study(study, store, encoders=[minilm], progress=False)
        ours = store.model_subset_scores()[MV][key]
        instances = store.instances(key)
        golds = gold(store, key)
        stored = {p.hume_id: p.answer for p in store.predictions(key, model_version=MV)}

    # mteb's side: the sampled texts in the source file's order, read from the file here
    sampled = {i.source_id for i in instances}
    rows = [r for r in texts() if r["id"] in sampled]
    assert len(rows) == 25 and [i.source_id for i in instances] != [r["id"] for r in rows]
    theirs, _ = run_mteb(TASK, SUBSET, dataset(rows), mteb_minilm, tmp_path / "mteb")
    diff = max_diff(ours.scores, theirs, KEYS)
    report("summarization through the store", diff, ours.main_score)
    assert ours.main_score_name == "cosine_spearman" and diff <= TOL

    # the stored answer is each shown summary's best cosine to the references (mteb's wrapper)
    st = mteb_minilm.model
    per_text = []
    for inst in instances:
        shown = inst.content["candidates"]
        refs = st.encode(inst.content["references"])
        sims = np.asarray(mteb_minilm.similarity(st.encode([s["text"] for s in shown]), refs))
        best = sims.max(axis=1)
        assert [stored[inst.hume_id][s["id"]] for s in shown] == pytest.approx(best, abs=1e-5)
        g = [golds[inst.hume_id][s["id"]] for s in shown]
        if len(set(g)) > 1:
            per_text.append(spearmanr(g, best).statistic)
    assert ours.main_score == pytest.approx(float(np.mean(per_text)), abs=1e-6)
