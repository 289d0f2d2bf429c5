"""An LLM annotator over a whole study: stored as sealed `llm:` predictions, failures counted,
scored like an annotator in the export. The real `openai` client talks to an OpenAI-compatible
endpoint simulated with `httpx.MockTransport` (the real-model run is in tests/ml_backend)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import yaml

from hume_sync.cli import main
from hume_sync.store import AnnotationRecord, Store, gold
from hume_sync.workflow.llm import predict_llm
from ml_backend.llm import OpenAICompatibleClient, RetryPolicy
from tests._paths import SOURCE_DATA

SIB = SOURCE_DATA / "sib200"


def make_study(root: Path) -> Path:
    study = root / "study"
    study.mkdir()
    spec = {
        "name": "llmstudy",
        "tasks": [
            {
                "name": "SIB",
                "type": "classification",
                "source": {
                    "path": str(SIB / "eng_Latn" / "test.tsv"),
                    "columns": {"id": "index_id", "text": "text", "label": "category"},
                },
                "subsets": [{"language": "eng-Latn", "size": 7}],
            },
            {
                "name": "STSB",
                "type": "sts",
                "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                "subsets": [{"language": "eng-Latn", "size": 5}],
            },
        ],
    }
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    assert main(["init", str(study)]) == 0
    return study


def reply(text: str) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        },
    )


def test_llm_predictions_stored_failures_counted_and_scored(tmp_path, monkeypatch):
    monkeypatch.setenv("HUME_TEST_LLM_KEY", "sk-test-secret-value")
    study = make_study(tmp_path)
    with Store.open(study) as store:
        cls = store.subset("SIB/default")
        golds = gold(store, cls.key)
        texts = {i.content["text"]: i.hume_id for i in store.instances(cls.key)}
        bad_item = sorted(texts.values())[0]
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        calls.append(body)
        prompt = body["messages"][-1]["content"]
        if "rating" in json.dumps(body.get("response_format", {})):
            return reply('{"rating": 3}')
        hid = next((h for t, h in texts.items() if t in prompt), None)
        if hid is None:  # the reminder after an invalid answer: still invalid
            return reply('{"label": "not-a-label"}')
        return reply(json.dumps({"label": "not-a-label" if hid == bad_item else golds[hid]}))

    client = OpenAICompatibleClient(
        "test-model",
        base_url="http://llm.invalid/v1",
        api_key_env="HUME_TEST_LLM_KEY",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        retry=RetryPolicy(max_retries=1, base_delay_s=0.001, max_delay_s=0.001),
    )
    with Store.open(study) as store:
        summary = predict_llm(study, store, client, concurrency=2, progress=False)
        preds = {p.hume_id: p for p in store.predictions(model_version=summary.model_version)}
        n_calls = len(calls)
        again = predict_llm(study, store, client, concurrency=2, progress=False)
    assert summary.model_version == "llm:test-model"
    assert summary.statuses == {"ok": 11, "invalid": 1}
    assert len(calls) == n_calls, "a rerun must be served from the cache"
    assert again.statuses == summary.statuses
    assert preds[bad_item].answer is None and preds[bad_item].sealed
    assert all(p.answer == golds[h] for h, p in preds.items() if h in golds and h != bad_item)
    log = (study / "llm" / "test-model.jsonl").read_text()
    assert "sk-test-secret-value" not in log and '"raw"' in log
    # Scored like an annotator: 6 of 6 answered items right, 1 failure counted apart.
    with Store.open(study) as store:
        store.upsert_annotations(
            [
                AnnotationRecord(k + 1, h, k + 1, "ann", g)
                for k, (h, g) in enumerate(sorted(golds.items()))
            ]
        )
    assert main(["export", str(study), "--out", str(tmp_path / "out")]) == 0
    data = json.loads((tmp_path / "out" / "scores.json").read_text())
    sib = next(s for s in data["subsets"] if s["subset"] == "SIB/default")
    assert sib["llms"]["llm:test-model"]["value"] == pytest.approx(1.0)
    assert sib["llms"]["llm:test-model"]["n_items"] == 6
    assert sib["llm_failures"] == {"llm:test-model": 1}
