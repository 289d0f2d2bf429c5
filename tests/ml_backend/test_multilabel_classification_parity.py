"""Multilabel classification's model scores equal mteb 2.x's own task class on the same texts.

Three levels, as for the other types:

* the undersampling: the train rows of each experiment are those of mteb's own
  ``_undersample_data_indices`` on a fresh task object (its seeded ``np_rng``);
* the procedure through ``predict``'s path (the embedding cache, the type's encode groups), on
  synthetic float32 embeddings both sides look up by text, against ``CEDRClassification``'s
  class with the data injected as ``task.dataset``: every score of every experiment and every
  predicted set;
* the whole store path with the packaged all-MiniLM-L6-v2 (``model``): the SIB-200 passages
  (``tests/data/multilabel``) as a local source with their train file, ``init`` samples 30
  passages, ``predict`` answers; mteb's class gets the sampled passages in the file's order
  (read by this test from the file) and the whole train file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from ml_backend.procedures.multilabel_classification import (
    classify_multilabel,
    multilabel_train_indices,
)
from tests._fake_encoder import FakeEncoder
from tests._mteb import TOL, max_diff, report, run_mteb
from tests._paths import REPO_ROOT

mteb = pytest.importorskip("mteb")
datasets = pytest.importorskip("datasets")

TASK = "CEDRClassification"
KEYS = ("accuracy", "f1", "lrap", "hamming")
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"
DATA = REPO_ROOT / "tests" / "data" / "multilabel" / "sib200" / "eng_Latn"
LABELS = ["anger", "fear", "joy", "sadness", "surprise"]


def _data(train: list[tuple[str, list[str]]], test: list[tuple[str, list[str]]]) -> Any:
    def ds(rows: list[tuple[str, list[str]]]) -> Any:
        return datasets.Dataset.from_dict(
            {"text": [t for t, _ in rows], "label": [list(labs) for _, labs in rows]}
        )

    return {"default": datasets.DatasetDict({"train": ds(train), "test": ds(test)})}


def _synthetic(n_train: int, n_test: int, seed: int) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """Texts with 0–3 of five labels; an embedding is the sum of its labels' centres plus noise
    (overlapping, so kNN is neither perfect nor hopeless)."""
    rng = np.random.default_rng(seed)
    centres = {lab: rng.normal(size=16) for lab in LABELS}
    rows: list[tuple[str, list[str]]] = []
    table: dict[str, np.ndarray] = {}
    for i in range(n_train + n_test):
        k = int(rng.choice([0, 1, 1, 2, 2, 3]))
        labs = sorted(str(x) for x in rng.choice(LABELS, size=k, replace=False))
        text = f"t{i}"
        vec = sum((centres[lab] for lab in labs), np.zeros(16)) + 1.3 * rng.normal(size=16)
        table[text] = vec.astype(np.float32)
        rows.append((text, labs))
    return rows[:n_train], rows[n_train:], table


def test_undersampling_matches_mteb() -> None:
    train, _, _ = _synthetic(120, 0, seed=3)
    labels = [labs for _, labs in train]
    task = mteb.get_task(TASK)  # a fresh task: its np_rng as mteb seeds it
    theirs = [task._undersample_data_indices(labels, 4, None)[0] for _ in range(10)]
    ours = multilabel_train_indices(labels, 4)
    assert ours == [[int(i) for i in exp] for exp in theirs]
    assert all(labels[i] for exp in ours for i in exp)  # an unlabelled text is never kept
    assert len({tuple(e) for e in ours}) == 10  # each experiment draws anew


@pytest.mark.parametrize("spl", [8, 3])
def test_the_procedure_matches_mteb_through_predict(tmp_path: Path, spl: int) -> None:
    from tests.ml_backend.test_parity import MtebTableEncoder, predict

    train, test, table = _synthetic(160, 40, seed=11)
    # a label only the train pool has: mteb's binarizer (fitted on gold) drops it
    train.append(("t-extra", ["disgust"]))
    table["t-extra"] = np.ones(16, dtype=np.float32)
    theirs, preds = run_mteb(
        TASK,
        "default",
        _data(train, test),
        MtebTableEncoder(table),
        tmp_path,
        samples_per_label=spl,
    )
    ours = predict(
        tmp_path / "ours",
        FakeEncoder(table=table),
        "multilabel_classification",
        TASK,
        [{"text": t} for t, _ in test],
        [labs for _, labs in test],
        train_pool=tuple({"text": t, "label": json.dumps(labs)} for t, labs in train),
        settings={"samples_per_label": spl},
    )
    diff = max_diff(ours.scores, theirs, KEYS)
    for a, b in zip(
        ours.scores["scores_per_experiment"], theirs["scores_per_experiment"], strict=True
    ):
        diff = max(diff, max_diff(a, b, KEYS))
    report(f"multilabel procedure (synthetic, samples_per_label={spl})", diff, theirs["main_score"])
    assert diff <= TOL
    assert ours.main_score_name == "accuracy"
    assert 0.05 < ours.main_score < 0.95 and theirs["f1"] != theirs["accuracy"]

    # every predicted set of every experiment, in mteb's binarizer's columns
    rows = {i: table[t] for i, (t, _) in enumerate(train)}
    direct = classify_multilabel(
        rows,
        [labs for _, labs in train],
        np.stack([table[t] for t, _ in test]),
        [labs for _, labs in test],
        samples_per_label=spl,
    )
    columns = direct.columns
    assert "disgust" not in columns
    binarized = [
        [[int(c in set(s)) for c in columns] for s in exp]
        for exp in direct.predictions_per_experiment
    ]
    assert binarized == preds
    # the stored answer: labels more than half of the experiments predicted
    for n, item in enumerate(ours.items):
        counts = np.sum([exp[n] for exp in preds], axis=0)
        assert item.answer == [
            c for c, k in zip(columns, counts, strict=True) if 2 * k > len(preds)
        ]


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


@pytest.mark.model
def test_multilabel_through_the_store(tmp_path: Path, minilm: Any, mteb_minilm: Any) -> None:
    from hume_sync.store import Store
    from hume_sync.study.spec import parse_spec
    from hume_sync.workflow.init import init_from_spec
    from hume_sync.workflow.predict import predict_study

    spec = {
        "name": "parity",
        "seed": 42,
        "tasks": [
            {
                "name": "SIB200Multilabel",
                "type": "multilabel_classification",
                "source": {
                    "path": str(DATA / "test.jsonl"),
                    "train_path": str(DATA / "train.jsonl"),
                },
                "subsets": [{"name": "eng", "language": "eng-Latn", "size": 30}],
            }
        ],
    }
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    key = "SIB200Multilabel/eng"
    with Store.open(study) as store:
        predict_study(study, store, encoders=[minilm], progress=False)
        ours = store.model_subset_scores()[MV][key]
        instances = store.instances(key)
        stored = {
            i.source_id: p.answer
            for i in instances
            for p in store.predictions(key, model_version=MV)
            if p.hume_id == i.hume_id
        }

    # mteb's side: the sampled passages in the file's order, the whole train file
    sampled = {i.source_id for i in instances}
    test = [r for r in _read(DATA / "test.jsonl") if r["id"] in sampled]
    train = _read(DATA / "train.jsonl")
    assert len(test) == 30 and [r["id"] for r in test] != [i.source_id for i in instances]
    data = _data(
        [(r["text"], r["labels"]) for r in train], [(r["text"], r["labels"]) for r in test]
    )
    theirs, preds = run_mteb(TASK, "default", data, mteb_minilm, tmp_path / "mteb")
    diff = max_diff(ours.scores, theirs, KEYS)
    report("multilabel through the store (SIB-200 passages, MiniLM)", diff, ours.main_score)
    assert ours.main_score_name == "accuracy" and diff <= TOL
    assert 0.0 < ours.main_score < 1.0
    columns = sorted({lab for r in test for lab in r["labels"]})
    for n, r in enumerate(test):
        counts = np.sum([exp[n] for exp in preds], axis=0)
        assert stored[r["id"]] == [c for c, k in zip(columns, counts, strict=True) if 2 * k > 10]
