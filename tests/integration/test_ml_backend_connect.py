"""`setup --ml-backend URL` on real servers: hume's ML backend (the packaged app, with basic
auth, on loopback) connected to every project of every annotator's Label Studio, once; a rerun
connects none; still sealed until the close; `status` names a project whose connection was
removed by hand, and the projects whose backend is down. No password in any output."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio.ml_backends import TITLE
from hume_sync.store import PredictionRecord, Store
from hume_sync.store.meta import ML_BACKEND_URL
from tests._annotate import hume_env, register
from tests._path_log import PathLog
from tests._studies import real_data_spec, write_spec

USER = "hume-ml"
PASSWORD = "Pw-backend-7f3a9c1e"


def test_bad_backend_settings_are_one_line_and_record_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    study = tmp_path / "study"
    spec = real_data_spec("ml-bad", 1, cls_eng=2, cls_arb=1, sts=1, rerank=1)
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    monkeypatch.delenv("ML_BACKEND_USER", raising=False)
    monkeypatch.delenv("ML_BACKEND_PASSWORD", raising=False)
    capsys.readouterr()
    cases = [
        (["--ml-backend", "ftp://x"], "--ml-backend must be an http:// or https:// URL"),
        (["--ml-backend", "http://u:secret@127.0.0.1:9"], "not in the URL"),
    ]
    for args, words in cases:
        assert main(["setup", str(study), *args]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err and "secret" not in err, err
    monkeypatch.setenv("ML_BACKEND_USER", USER)
    assert main(["setup", str(study), "--ml-backend", "http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "set both ML_BACKEND_USER" in err
    with Store.open(study) as store:
        assert ML_BACKEND_URL not in store.meta()


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[tuple[Path, str, PathLog, Any]]:
    """A study and its ML backend with basic auth, served on a free loopback port."""
    from werkzeug.serving import make_server

    from hume_sync.workflow.backend import create_backend_app

    study = tmp_path / "study"
    spec = real_data_spec("ml-connect", 3, cls_eng=3, cls_arb=2, sts=2, rerank=2)
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    app = PathLog(create_backend_app(study, basic_auth=(USER, PASSWORD)))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield study, f"http://127.0.0.1:{server.server_port}", app, server
    finally:
        server.shutdown()
        thread.join(timeout=10)


def _connections(client: Any, project_id: int) -> list[dict[str, Any]]:
    return [b for b in client.list_ml_backends(project_id) if b.get("title") == TITLE]


@pytest.mark.labelstudio
def test_backend_connected_everywhere_once_and_reported_where_missing(
    annotator_servers: Any, backend: Any, tmp_path: Path, capsys: Any
) -> None:
    study, url, log, server = backend
    a, b = annotator_servers
    mp = hume_env(tmp_path)
    try:
        register(study, a, "eng,ara", mp)
        register(study, b, "eng", mp)
        mp.setenv("ML_BACKEND_USER", USER)
        mp.setenv("ML_BACKEND_PASSWORD", PASSWORD)
        capsys.readouterr()
        assert main(["setup", str(study), "--ml-backend", url + "/"]) == 0
        out = capsys.readouterr()
        assert PASSWORD not in out.out + out.err
        clients = {s.url: s.server.client() for s in (a, b)}
        with Store.open(study) as store:
            assert store.meta()[ML_BACKEND_URL] == url  # recorded: later setups need no flag
            slots = {x.slot: x.ls_url for x in store.annotators()}
            projects = [(slots[p.slot], p.ls_project_id, p) for p in store.slot_projects()]
            sts = next(s.key for s in store.subsets() if s.task_type == "sts")
            sts_ids = [i.hume_id for i in store.instances(sts)]
        # HUME's policy: two annotators for English (4 subsets), one for Arabic: 9 projects
        assert len(projects) == 9 and {u for u, _, _ in projects} == set(clients)
        assert "ML backend: connected to 9 project(s), 0 updated, 0 already" in out.out
        for server_url, pid, _ in projects:
            [conn] = _connections(clients[server_url], pid)
            assert conn["url"].rstrip("/") == url and conn["state"] == "CO"
            assert conn["auth_method"] == "BASIC_AUTH" and conn["basic_auth_user"] == USER
            assert conn["basic_auth_pass_is_set"] is True

        # again, without the flag: nothing new anywhere
        assert main(["setup", str(study)]) == 0
        again = capsys.readouterr().out
        assert "connected to 0 project(s), 0 updated, 9 already connected" in again
        for server_url, pid, _ in projects:
            assert len(clients[server_url].list_ml_backends(pid)) == 1

        # sealed while open: Label Studio asks the backend (with its auth) and stores nothing
        with Store.open(study) as store:
            store.add_predictions([PredictionRecord(h, "llm:tiny", 3) for h in sts_ids])
        sts_projects = [(u, pid) for u, pid, p in projects if p.subset_key == sts]
        asked = log.paths.count("/predict")
        for server_url, pid in sts_projects:
            _retrieve(clients[server_url], pid)
            assert clients[server_url].project_counts(pid)["total_predictions_number"] == 0
        assert log.paths.count("/predict") >= asked + len(sts_projects)
        assert main(["close", str(study), "--force"]) == 0
        for server_url, pid in sts_projects:
            _retrieve(clients[server_url], pid)
            counts = clients[server_url].project_counts(pid)
            assert counts["total_predictions_number"] == len(sts_ids) == counts["task_number"]

        # removed by hand on one project: status names it, and only it
        gone_url, gone_pid, gone = projects[1]
        [conn] = _connections(clients[gone_url], gone_pid)
        clients[gone_url].sdk.ml.delete(id=conn["id"])
        capsys.readouterr()
        assert main(["status", str(study)]) == 0
        warned = [line for line in capsys.readouterr().out.splitlines() if "ML backend" in line]
        assert warned == [
            f"warning: {gone.subset_key} (slot {gone.slot}, "
            f"{a.email if gone_url == a.url else b.email}): ML backend not connected to project "
            f"{gone_pid}; 'hume-sync setup' connects it"
        ]
        assert main(["status", str(study), "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["projects"]
        states = {(r["subset"], r["slot"]): r["ml_backend"] for r in rows}
        assert states.pop((gone.subset_key, gone.slot)) == "missing"
        assert set(states.values()) == {"connected"} and len(states) == 8
        # setup puts it back, and only there
        assert main(["setup", str(study)]) == 0
        assert "connected to 1 project(s), 0 updated, 8 already" in capsys.readouterr().out

        # the backend is down: every project says so; setup fails in one line, no password
        server.shutdown()
        server.server_close()  # connections refused, as from a stopped backend
        assert main(["status", str(study)]) == 0
        out = capsys.readouterr().out
        down = [line for line in out.splitlines() if "cannot use the ML backend" in line]
        assert len(down) == 9 and PASSWORD not in out
        assert main(["setup", str(study)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("hume-sync setup: error: ")
        assert "(and 8 more project(s))" in err[-1]
        assert "start it, then run setup again" in err[-1] and not any(PASSWORD in e for e in err)
    finally:
        mp.undo()


def _retrieve(client: Any, project_id: int) -> None:
    """Label Studio's own "Retrieve predictions" over every task of the project."""
    client.sdk.actions.create(
        id="retrieve_tasks_predictions",
        project=project_id,
        selected_items={"all": True, "excluded": []},
    )


@pytest.mark.labelstudio
def test_backend_connected_to_the_managers_projects(
    annotator_servers: Any, ls_server: Any, backend: Any, tmp_path: Path, capsys: Any
) -> None:
    """The manager's mirror projects get the backend too: from `setup` on (which mirrors), kept
    by a `pull` from a shell without the auth variables, and put back by the next `pull` when
    removed by hand, which `status` names in the meantime."""
    from hume_sync.labelstudio.manager import mirror_projects

    study, url, _, _ = backend
    a, b = annotator_servers
    mp = hume_env(tmp_path)
    try:
        register(study, a, "eng,ara", mp)
        register(study, b, "eng", mp)
        mp.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
        assert main(["manager", "up", "--url", ls_server.url]) == 0
        mp.delenv("LABEL_STUDIO_API_KEY")
        mp.setenv("ML_BACKEND_USER", USER)
        mp.setenv("ML_BACKEND_PASSWORD", PASSWORD)
        capsys.readouterr()
        assert main(["setup", str(study), "--ml-backend", url]) == 0
        out = capsys.readouterr()
        assert PASSWORD not in out.out + out.err
        with Store.open(study) as store:
            keys = [s.key for s in store.subsets()]
            found = mirror_projects(ls_server.client(), store.study_uid(), keys)
        assert sorted(found) == sorted(keys) and len(keys) == 5
        assert f"ML backend connected to {len(keys)} project(s)" in out.out
        manager_ls = ls_server.client()
        for pid in found.values():
            [conn] = _connections(manager_ls, pid)
            assert conn["state"] == "CO" and conn["basic_auth_user"] == USER

        # a pull from a shell without the backend's auth: nothing written, the auth kept
        mp.delenv("ML_BACKEND_USER")
        mp.delenv("ML_BACKEND_PASSWORD")
        assert main(["pull", str(study)]) == 0
        pulled = capsys.readouterr().out
        assert "0 task(s) added, 0 updated" in pulled and "ML backend connected" not in pulled
        for pid in found.values():
            [conn] = _connections(manager_ls, pid)
            assert conn["state"] == "CO" and conn["basic_auth_user"] == USER

        # removed by hand on one manager project: status names it, and only it
        gone_key, gone_pid = sorted(found.items())[0]
        [conn] = _connections(manager_ls, gone_pid)
        manager_ls.sdk.ml.delete(id=conn["id"])
        assert main(["status", str(study)]) == 0
        warned = [x for x in capsys.readouterr().out.splitlines() if "manager's project" in x]
        assert warned == [
            f"warning: {gone_key} (manager's project {gone_pid}): ML backend not connected; "
            "'hume-sync pull' connects it"
        ]
        assert main(["status", str(study), "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["manager_projects"]
        states = {r["subset"]: r["ml_backend"] for r in rows}
        assert states.pop(gone_key) == "missing" and set(states.values()) == {"connected"}
        mp.setenv("ML_BACKEND_USER", USER)
        mp.setenv("ML_BACKEND_PASSWORD", PASSWORD)
        assert main(["pull", str(study)]) == 0
        assert "ML backend connected to 1 project(s)" in capsys.readouterr().out
        assert main(["status", str(study)]) == 0
        assert "manager's project" not in capsys.readouterr().out
    finally:
        mp.undo()
