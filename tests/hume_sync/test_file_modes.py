"""Issue 11 item 13: what holds gold or sealed answers is for the study's owner only.

The study folder is 0700 and the store 0600 (like the Label Studio credentials), for new studies
and for existing ones when hume opens them; the embedding cache, the LLM reply cache and call
log, and the webhook event log are owner-only too."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import httpx
import pytest

from hume_sync.cli import main
from hume_sync.store import Store
from tests.test_llm_study import make_study, reply


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def group_or_other_bits(root: Path) -> dict[str, str]:
    """Every path under ``root`` that a group or other user could read, write or enter (the
    user's own spec, study.yaml, holds no gold and keeps the mode its author gave it)."""
    return {
        str(p.relative_to(root)): oct(mode(p))
        for p in [root, *root.rglob("*")]
        if not p.is_symlink() and mode(p) & 0o077 and p.name != "study.yaml"
    }


@pytest.fixture(autouse=True)
def usual_umask():
    old = os.umask(0o022)  # what most users have: new files 0644, folders 0755
    yield
    os.umask(old)


def test_new_study_folder_and_store_are_private(tmp_path):
    study = make_study(tmp_path)
    assert mode(study) == 0o700
    assert mode(study / "study.sqlite") == 0o600
    assert group_or_other_bits(study) == {}


def test_existing_study_is_tightened_when_opened(tmp_path, capsys):
    study = make_study(tmp_path)
    study.chmod(0o755)
    (study / "study.sqlite").chmod(0o644)
    assert main(["status", str(study)]) == 0
    assert mode(study) == 0o700 and mode(study / "study.sqlite") == 0o600


def test_caches_logs_and_events_are_private(tmp_path, monkeypatch):
    from hume_sync.workflow.backend import StudySource
    from hume_sync.workflow.llm import predict_llm
    from hume_sync.workflow.predict import predict_study
    from ml_backend.llm import OpenAICompatibleClient, RetryPolicy
    from tests._fake_encoder import FakeEncoder

    study = make_study(tmp_path)
    monkeypatch.setenv("HUME_TEST_LLM_KEY", "sk-test")

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if "rating" in json.dumps(body.get("response_format", {})):
            return reply('{"rating": 3}')
        return reply('{"label": "science/technology"}')

    client = OpenAICompatibleClient(
        "test-model",
        base_url="http://llm.invalid/v1",
        api_key_env="HUME_TEST_LLM_KEY",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        retry=RetryPolicy(max_retries=0, base_delay_s=0.001, max_delay_s=0.001),
    )
    with Store.open(study) as store:
        predict_study(
            study, store, encoders=[FakeEncoder()], subsets=["STSB/default"], progress=False
        )
        predict_llm(study, store, client, concurrency=1, progress=False)
    StudySource(study).record_event({"action": "ANNOTATION_CREATED", "annotation": {"id": 1}})
    written = {str(p.relative_to(study)) for p in study.rglob("*") if p.is_file()}
    assert {
        "cache/embeddings/embeddings.sqlite",
        "llm/test-model.jsonl",
        "events/webhook.jsonl",
    } <= written
    assert any(name.startswith("cache/llm/") for name in written)
    assert group_or_other_bits(study) == {}


def test_private_dir_tightens_up_to_its_root_and_no_further(tmp_path: Path) -> None:
    from hume_sync.file_modes import private_dir

    shared, home = tmp_path / "shared", tmp_path / "shared" / "home"
    (home / "a").mkdir(parents=True, mode=0o755)
    for folder in (shared, home, home / "a"):
        folder.chmod(0o755)
    private_dir(home / "a" / "b", up_to=home)
    modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in (shared, home, home / "a")}
    assert modes == {"shared": 0o755, "home": 0o700, "a": 0o700}
    assert stat.S_IMODE((home / "a" / "b").stat().st_mode) == 0o700
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    elsewhere.chmod(0o755)
    private_dir(elsewhere / "c", up_to=home)  # not inside home: its parents are left alone
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755
