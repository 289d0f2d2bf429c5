"""`hume-sync predict`: parity with mteb on a real-data study, the embedding cache, resumption.

The study is built from real data (SIB-200 English classification with its train pool, a SIB-200
clustering set, STS Benchmark pairs, a reranking set made from SIB-200). Model tests use the
packaged all-MiniLM-L6-v2; the fast tests use a deterministic hash encoder.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from hume_sync.cli import main as cli_main
from hume_sync.store import PredictionRecord, Store
from hume_sync.study.spec import parse_spec
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import (
    PredictCommandError,
    build_jobs,
    cache_path,
    predict_study,
)
from ml_backend.embedding_cache import (
    EmbeddingCache,
    EncodeRequest,
    model_key,
    variant_key,
)
from tests._fake_encoder import CountingEncoder, FakeEncoder
from tests._paths import SOURCE_DATA

TOL = 1e-6
CHUNK = 64  # small chunks: several commits per run, so interruption has something to resume
CALLS_PER_CHUNK = CHUNK // 32  # the cache encodes one batch (32 texts) per call
SIB = SOURCE_DATA / "sib200"
SIB_COLUMNS = {"id": "index_id", "text": "text", "label": "category"}
RERANK = Path(__file__).resolve().parents[1] / "hume_sync" / "data" / "sib200_eng_rerank.jsonl"
CLS, CLU, STS, RR = (
    "SIB200Classification/eng_Latn",
    "SIB200Clustering/eng_Latn",
    "STSBenchmark/default",
    "SIB200Reranking/default",
)


# ----------------------------------------------------------------------------- helpers


def study_spec(*, cls_size: int = 42, sts_size: int = 50, rr_size: int = 20) -> dict[str, Any]:
    """A four-type study on the shared real data (one English subset per type)."""
    if not (SIB / "eng_Latn" / "train.tsv").exists():
        pytest.skip(f"shared test data missing: {SIB}")
    return {
        "name": "predict-test",
        "seed": 42,
        "tasks": [
            {
                "name": "SIB200Classification",
                "type": "classification",
                "source": {
                    "path": str(SIB / "{subset}" / "test.tsv"),
                    "train_path": str(SIB / "{subset}" / "train.tsv"),
                    "columns": SIB_COLUMNS,
                },
                "samples_per_label": 8,
                "subsets": [{"name": "eng_Latn", "language": "eng-Latn", "size": cls_size}],
            },
            {
                "name": "SIB200Clustering",
                "type": "clustering",
                "source": {"path": str(SIB / "{subset}" / "test.tsv"), "columns": SIB_COLUMNS},
                "labels": 6,
                "items_per_label": 5,
                "subsets": [{"name": "eng_Latn", "language": "eng-Latn"}],
            },
            {
                "name": "STSBenchmark",
                "type": "sts",
                "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                "score_range": [0, 5],
                "subsets": [{"language": "eng-Latn", "size": sts_size}],
            },
            {
                "name": "SIB200Reranking",
                "type": "reranking",
                "source": {"path": str(RERANK)},
                "candidates": 7,
                "subsets": [{"language": "eng-Latn", "size": rr_size}],
            },
        ],
    }


def make_study(study_dir: Path, spec: dict[str, Any] | None = None) -> Path:
    """Write ``study.yaml`` and initialise the store; returns the study folder."""
    data = spec or study_spec()
    study_dir.mkdir(parents=True, exist_ok=True)
    (study_dir / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    init_from_spec(
        study_dir, parse_spec(data, file=str(study_dir / "study.yaml"), base_dir=study_dir)
    )
    return study_dir


def predictions_table(study: Path) -> list[tuple[Any, ...]]:
    """Every stored prediction (without timestamps), for exact comparisons."""
    conn = sqlite3.connect(study / "study.sqlite")
    try:
        return conn.execute(
            "SELECT hume_id, model_version, answer, score, sealed FROM predictions "
            "ORDER BY hume_id, model_version"
        ).fetchall()
    finally:
        conn.close()


def run_predict(study: Path, encoder: Any, **kw: Any) -> Any:
    with Store.open(study) as store:
        return predict_study(study, store, encoders=[encoder], progress=False, **kw)


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def real_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_study(tmp_path_factory.mktemp("predict") / "study")


@pytest.fixture(scope="module")
def predicted(real_study: Path, minilm: Any) -> Path:
    """The real-data study after one predict run with MiniLM (chunks of ``CHUNK`` texts)."""
    counting = CountingEncoder(minilm)
    summary = run_predict(real_study, counting, chunk_size=CHUNK)
    [model] = summary.models
    assert model.embedded == counting.texts > 0 and model.cached == 0
    with Store.open(real_study) as store:
        assert model.added == sum(len(store.instances(s)) for s in (CLS, CLU, STS, RR))
    return real_study


# ----------------------------------------------------------------------------- model tests


@pytest.mark.model
def test_rerun_embeds_nothing_and_writes_nothing(predicted: Path, minilm: Any) -> None:
    before = predictions_table(predicted)
    counting = CountingEncoder(minilm)
    with Store.open(predicted) as store:
        changes = store.total_changes
        [model] = predict_study(predicted, store, encoders=[counting], progress=False).models
        assert store.total_changes == changes  # not a single row written
    assert counting.calls == 0 and model.embedded == 0
    assert model.skipped == 4 and model.added == 0
    assert predictions_table(predicted) == before

    # a lost score record forces the procedures to run again: still no embedding, same rows
    with Store.open(predicted) as store, store.transaction() as conn:
        conn.execute("DELETE FROM model_scores WHERE subset_key = ?", (STS,))
    [model] = run_predict(predicted, counting, chunk_size=CHUNK).models
    assert counting.calls == 0 and model.embedded == 0 and model.cached > 0
    assert model.skipped == 3 and model.added == 0 and model.scores_written == 1
    assert predictions_table(predicted) == before


@pytest.mark.model
def test_interrupted_run_resumes_with_identical_results(
    predicted: Path, minilm: Any, tmp_path: Path
) -> None:
    study = make_study(tmp_path / "again")
    failing = CountingEncoder(minilm, fail_after=3 * CALLS_PER_CHUNK + 1)  # dies inside chunk 4
    with pytest.raises(RuntimeError, match="injected"):
        run_predict(study, failing, chunk_size=CHUNK)
    assert predictions_table(study) == []  # nothing half-stored
    with EmbeddingCache(cache_path(study)) as cache:
        assert cache.count() == 3 * CHUNK  # the finished chunks were committed

    resumed = CountingEncoder(minilm)
    [model] = run_predict(study, resumed, chunk_size=CHUNK).models
    with EmbeddingCache(cache_path(predicted)) as cache:
        total = cache.count()
    assert model.cached == 3 * CHUNK and model.embedded == total - 3 * CHUNK
    assert resumed.texts == total - 3 * CHUNK  # no text embedded twice
    ours = [(h, mv, a, s, sealed) for h, mv, a, s, sealed in predictions_table(study)]
    assert ours == predictions_table(predicted)  # bit-identical answers and scores


@pytest.mark.model
def test_each_text_embedded_once_across_tasks(tmp_path: Path, minilm: Any) -> None:
    """A text used by several tasks is embedded once; a subset added later embeds only its own."""
    spec = study_spec(cls_size=14, sts_size=10, rr_size=3)
    study = make_study(tmp_path / "s", spec)
    with Store.open(study) as store:
        jobs = build_jobs(store)
    from ml_backend.predict import encode_requests

    plain = {t for j in jobs for r in encode_requests(j) if r.role is None for t in r.texts}
    shared = {
        t for j in jobs if j.task.name == "clustering" for r in encode_requests(j) for t in r.texts
    }
    counting = CountingEncoder(minilm)
    [model] = run_predict(study, counting, subsets=[CLU]).models
    assert counting.texts == len(shared) == model.embedded
    counting2 = CountingEncoder(minilm)
    [model] = run_predict(study, counting2).models
    by_role = {
        role: {t for j in jobs for r in encode_requests(j) if r.role == role for t in r.texts}
        for role in ("query", "passage")
    }
    assert plain & shared != plain  # classification and STS add texts of their own
    assert counting2.texts == len(plain - shared) + len(by_role["query"]) + len(by_role["passage"])
    assert model.skipped == 1


def test_unknown_model_offline_is_one_line(real_study: Path, capsys: Any) -> None:
    pytest.importorskip("sentence_transformers")
    rc = cli_main(["predict", str(real_study), "--models", "no-such-org/no-such-model-hume"])
    err = capsys.readouterr().err
    assert rc == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "no-such-org/no-such-model-hume" in lines[0]
    assert "hub is not reachable" in lines[0]
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- fast tests


@pytest.fixture
def small_study(tmp_path: Path) -> Path:
    return make_study(tmp_path / "small", study_spec(cls_size=14, sts_size=10, rr_size=4))


def test_fake_predict_answer_shapes_and_scores(small_study: Path) -> None:
    enc = FakeEncoder()
    [model] = run_predict(small_study, enc).models
    assert model.model_version == "emb:test/fake" and model.subsets == 4
    with Store.open(small_study) as store:
        subs = {s.key: s for s in store.subsets()}
        preds = {k: store.predictions(k, model_version="emb:test/fake") for k in subs}
        insts = {k: store.instances(k) for k in subs}
        scores = store.model_subset_scores()["emb:test/fake"]
    assert all(p.sealed for ps in preds.values() for p in ps)
    labels = subs[CLS].config["label_set"]
    assert [p.hume_id for p in preds[CLS]] == [i.hume_id for i in insts[CLS]]
    assert all(p.answer in labels and 0 < p.score <= 1 for p in preds[CLS])
    [clu] = preds[CLU]
    ids = [it["id"] for it in insts[CLU][0].content["items"]]
    assert sorted(clu.answer) == sorted(ids)
    assert set(clu.answer.values()) <= {f"group_{k}" for k in range(1, 7)}
    assert all(isinstance(p.answer, float) and -1 <= p.answer <= 1 for p in preds[STS])
    for p, inst in zip(preds[RR], insts[RR], strict=True):
        assert sorted(p.answer) == sorted(c["id"] for c in inst.content["candidates"])
    assert {k: s.main_score_name for k, s in scores.items()} == {
        CLS: "accuracy",
        CLU: "v_measure",
        STS: "cosine_spearman",
        RR: "map_at_1000",
    }
    assert all(s.main_score is not None and s.n_items >= 1 for s in scores.values())


def test_cache_shares_prompt_free_contexts_and_round_trips(tmp_path: Path) -> None:
    enc = FakeEncoder()
    with EmbeddingCache(tmp_path / "c.sqlite") as cache:
        reqs = [
            EncodeRequest(("a", "b", "a"), None, "Classification", "T1"),
            EncodeRequest(("b", "c"), None, "STS", "T2"),
            EncodeRequest(("a",), "query", "Reranking", "T3"),
        ]
        stats = cache.ensure(enc, reqs, chunk_size=2)
        assert (stats.requested, stats.computed, stats.cached) == (4, 4, 0)
        assert enc.texts == 4  # a, b, c once (plain) + a as a query
        again = cache.ensure(enc, reqs)
        assert (again.computed, again.cached, again.encode_calls) == (0, 4, 0)
        got = cache.lookup(enc, ["c", "a"], task_type="STS", task_name="T2")
        assert got.dtype == np.float32
        assert np.array_equal(got, enc.encode(["c", "a"]))
        assert cache.count(model_key(enc)) == 4
    other = FakeEncoder(name="test/other")
    assert model_key(other) != model_key(enc)
    # an encoder without prompt_for never shares across tasks (safe default)
    bare = type("Bare", (), {"name": "x", "revision": None})()
    assert variant_key(bare, role=None, task_type="STS", task_name="A") != variant_key(
        bare, role=None, task_type="STS", task_name="B"
    )


def test_rerun_skips_and_changed_predictions_need_replace(small_study: Path) -> None:
    enc = FakeEncoder()
    run_predict(small_study, enc)
    calls = enc.calls
    [model] = run_predict(small_study, enc).models
    assert enc.calls == calls and model.skipped == 4 and model.added == 0

    # same model name, different weights (revision): answers would change
    changed = FakeEncoder(dim=8)
    changed.revision = "2"
    with pytest.raises(PredictCommandError, match="--replace"):
        run_predict(small_study, changed)
    [model] = run_predict(small_study, changed, replace=True).models
    assert model.replaced > 0


def test_stale_scores_are_flagged(small_study: Path) -> None:
    run_predict(small_study, FakeEncoder())
    with Store.open(small_study) as store, store.transaction() as conn:
        conn.execute(
            "UPDATE instances SET gold = '\"changed-label\"' WHERE hume_id = (SELECT hume_id FROM "
            "instances WHERE subset_key = ? ORDER BY sample_order LIMIT 1)",
            (CLS,),
        )
    with Store.open(small_study) as store:
        fresh = store.model_subset_scores()["emb:test/fake"]
        everything = store.model_subset_scores(include_stale=True)["emb:test/fake"]
    assert CLS not in fresh and everything[CLS].stale and not everything[STS].stale


def test_each_printed_score_names_its_metric(small_study: Path) -> None:
    """``predict`` prints a subset's score with the type's name for it and mteb's key, on the
    first run and on a rerun that reads the stored scores."""
    want = {
        CLS: "accuracy (accuracy)",
        CLU: "V-measure (v_measure)",
        STS: "Spearman ρ (cosine_spearman)",
        RR: "MAP (map_at_1000)",
    }
    for run in ("computed", "stored"):
        [model] = run_predict(small_study, FakeEncoder()).models
        assert model.skipped == (4 if run == "stored" else 0)
        lines = model.score_lines()
        assert len(lines) == 4
        for key, name in want.items():
            [line] = [x for x in lines if f" {key} " in x]
            score = model.main_scores[key]
            assert line.rstrip().endswith(f"{name} {score:.4f}"), (run, line)


def test_predict_cli_errors_are_one_line(tmp_path: Path, small_study: Path, capsys: Any) -> None:
    assert cli_main(["predict", str(tmp_path / "nothing")]) == 2
    assert "not a study" in capsys.readouterr().err
    assert cli_main(["predict", str(small_study), "--subsets", "No/such"]) == 2
    err = capsys.readouterr().err
    assert "no such subset" in err and len(err.strip().splitlines()) == 1


def test_predictions_written_by_others_are_kept(small_study: Path) -> None:
    """An LLM's predictions on the same instances are untouched by ``predict``."""
    with Store.open(small_study) as store:
        hid = store.instances(STS)[0].hume_id
        store.add_predictions([PredictionRecord(hid, "llm:other", 3)])
    run_predict(small_study, FakeEncoder())
    with Store.open(small_study) as store:
        [llm] = store.predictions(STS, model_version="llm:other")
    assert llm.answer == 3


def test_score_records_are_json(small_study: Path) -> None:
    run_predict(small_study, FakeEncoder())
    with Store.open(small_study) as store:
        rows = store.model_score_records()
    assert len(rows) == 4
    for rec in rows:
        assert rec.inputs_sha256 and rec.instances_sha256 and rec.method.startswith("mteb:")


def test_predict_stores_what_the_model_says_of_itself(small_study: Path) -> None:
    """The report's model columns come from here: the fake model has no parameters or token
    limit to report, only its embedding size."""
    run_predict(small_study, FakeEncoder(dim=12))
    with Store.open(small_study) as store:
        facts = store.model_facts()
    assert facts == {"emb:test/fake": {"embed_dim": 12}}


def test_copy_of_a_study_reuses_its_cache(small_study: Path, tmp_path: Path) -> None:
    run_predict(small_study, FakeEncoder())
    copy = tmp_path / "copy"
    shutil.copytree(small_study, copy)
    with Store.open(copy) as store, store.transaction() as conn:
        conn.execute("DELETE FROM predictions")
        conn.execute("DELETE FROM model_scores")
    enc = FakeEncoder()
    [model] = run_predict(copy, enc).models
    assert enc.calls == 0 and model.added > 0 and model.embedded == 0
    assert predictions_table(copy) == predictions_table(small_study)


def test_embedding_noise_is_not_a_change(small_study: Path) -> None:
    """Recomputed from scratch in other batches (cache deleted), cosines move by ~1e-8: the
    stored sealed answers stay, nothing needs --replace."""
    from hume_sync.workflow.predict import same_answer

    assert same_answer({"a": 0.5, "b": [1, 2.0]}, {"a": 0.5 + 1e-8, "b": [1, 2]})
    assert not same_answer({"a": 0.5}, {"a": 0.51})
    assert not same_answer("group_1", "group_2") and not same_answer(True, 1)

    run_predict(small_study, FakeEncoder())
    before = predictions_table(small_study)

    class Noisy(FakeEncoder):
        def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
            out = super().encode(texts, **kwargs)
            return out + np.float32(1e-7) * np.sign(out)

    shutil.rmtree(cache_path(small_study).parent)
    with Store.open(small_study) as store, store.transaction() as conn:
        conn.execute("DELETE FROM model_scores")
    [model] = run_predict(small_study, Noisy()).models
    assert model.embedded > 0 and model.replaced == 0 and model.added == 0
    assert predictions_table(small_study) == before
