"""Bitext mining's model scores equal mteb 2.x's own ``AbsTaskBitextMining`` on the same pairs.

Two levels, as for the other types (``test_parity.py``, ``test_store_parity.py``):

* the procedure, on synthetic float32 embeddings that both sides look up by text (mteb through
  the Tatoeba task class with the pairs injected as ``task.dataset``);
* the whole store path with the packaged all-MiniLM-L6-v2 (``model``): SIB-200's English
  sentences with their French translations as a local source, ``init`` (the model also finds
  the near-miss candidates) then ``predict``; on the other side mteb's Tatoeba class with mteb's
  own wrapper of a separately loaded copy of the model, on the sampled pairs in the source's
  order, read by this test from the SIB-200 files. The like-for-like number, the model's choice
  among the candidates people see, is worked out here from mteb's wrapper (its encode and its
  similarity) and scikit-learn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from ml_backend.procedures.bitext_mining import mine
from tests._bitext import sib_pairs, write_jsonl
from tests._mteb import TOL, max_diff, report, run_mteb

mteb = pytest.importorskip("mteb")
datasets = pytest.importorskip("datasets")

TASK, SUBSET = "Tatoeba", "fra-eng"
KEYS = ("f1", "precision", "recall", "accuracy")
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"


def _table_encoder(table: dict[str, np.ndarray]) -> Any:
    from tests.ml_backend.test_parity import MtebTableEncoder

    return MtebTableEncoder(table)


def test_the_procedure_matches_mteb_on_fixed_embeddings(tmp_path: Path) -> None:
    """Twelve pairs whose embeddings make some nearest neighbours wrong, and two sentences
    choose the same wrong target (weighted F1 then differs from accuracy)."""
    rng = np.random.default_rng(4)
    rows = sib_pairs("fra_Latn", "eng_Latn", 12)
    s1 = [r["sentence1"] for r in rows]
    s2 = [r["sentence2"] for r in rows]
    targets = rng.normal(size=(12, 8)).astype(np.float32)
    sentences = targets + rng.normal(scale=0.9, size=(12, 8)).astype(np.float32)
    sentences[3] = targets[5] + 0.01  # 3 and 5 both pick target 5
    table = {t: v for t, v in zip(s1, sentences, strict=True)}
    table.update({t: v for t, v in zip(s2, targets, strict=True)})
    data = {SUBSET: {"test": datasets.Dataset.from_dict({"sentence1": s1, "sentence2": s2})}}
    theirs, preds = run_mteb(TASK, SUBSET, data, _table_encoder(table), tmp_path)
    ours = mine(
        sentences,
        [targets] * 12,
        [[f"t{j}" for j in range(12)]] * 12,
        gold_targets=targets,
        gold_ids=[f"t{i}" for i in range(12)],
    )
    assert ours.scores is not None
    assert theirs["f1"] != theirs["accuracy"]  # the case is not trivial
    diff = max_diff(ours.scores, theirs, KEYS)
    report("bitext mining procedure", diff, theirs["main_score"])
    assert diff <= TOL
    # every candidate is every target here, so the choice is mteb's nearest neighbour
    assert ours.choices == [f"t{p['corpus_id']}" for p in preds["sentence1-sentence2"]]
    assert ours.scores["candidates_f1"] == pytest.approx(theirs["f1"], abs=TOL)


@pytest.mark.model
def test_bitext_mining_through_the_store(tmp_path: Path, minilm: Any, mteb_minilm: Any) -> None:
    from sklearn.metrics import f1_score

    from hume_sync.store import Store, gold
    from hume_sync.study.spec import parse_spec
    from hume_sync.workflow.init import init_from_spec
    from hume_sync.workflow.predict import predict_study

    rows = sib_pairs("eng_Latn", "fra_Latn", 80)
    src = write_jsonl(tmp_path / "pairs.jsonl", rows)
    spec = {
        "name": "parity",
        "seed": 42,
        "tasks": [
            {
                "name": "SIB200Bitext",
                "type": "bitext_mining",
                "source": {"path": str(src)},
                "target_language": "fra-Latn",
                "candidates": 4,
                "random_fillers": 1,
                "neighbour_models": ["all-MiniLM-L6-v2"],
                "subsets": [{"name": "eng-fra", "language": "eng-Latn", "size": 30}],
            }
        ],
    }
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    key = "SIB200Bitext/eng-fra"
    with Store.open(study) as store:
        predict_study(study, store, encoders=[minilm], progress=False)
        ours = store.model_subset_scores()[MV][key]
        instances = store.instances(key)
        golds = gold(store, key)
        stored = {p.hume_id: p.answer for p in store.predictions(key, model_version=MV)}

    # mteb's side: the sampled pairs in the source file's order, read from the test's own rows
    sampled = {i.source_id for i in instances}
    pairs = [r for r in rows if r["id"] in sampled]
    assert len(pairs) == 30 and [r["id"] for r in pairs] != sorted(r["id"] for r in pairs)
    data = {
        SUBSET: {
            "test": datasets.Dataset.from_dict(
                {
                    "sentence1": [r["sentence1"] for r in pairs],
                    "sentence2": [r["sentence2"] for r in pairs],
                }
            )
        }
    }
    theirs, _ = run_mteb(TASK, SUBSET, data, mteb_minilm, tmp_path / "mteb")
    diff = max_diff(ours.scores, theirs, KEYS)
    report("bitext mining through the store", diff, ours.main_score)
    assert ours.main_score_name == "f1" and diff <= TOL

    # like for like: the choice among the candidates shown, by mteb's wrapper of the model
    st = mteb_minilm.model
    chosen, truth = [], []
    for inst in instances:
        texts = [c["text"] for c in inst.content["candidates"]]
        sims = np.asarray(
            mteb_minilm.similarity(st.encode([inst.content["sentence"]]), st.encode(texts))
        )[0]
        chosen.append(inst.content["candidates"][int(np.argmax(sims))]["id"])
        truth.append(golds[inst.hume_id])
    assert [stored[i.hume_id] for i in instances] == chosen
    expected = f1_score(truth, chosen, average="weighted", zero_division=0)
    assert abs(ours.scores["candidates_f1"] - expected) <= TOL
    # the near misses are the model's own top picks: it does worse on them than on the subset
    assert ours.scores["candidates_accuracy"] < ours.scores["accuracy"]
