"""Issue 11 items 3 and 11 against a real Label Studio (annotator A's own server).

Item 3: two real `hume-sync pull` processes on one study. The first reads Label Studio through a
loopback proxy that holds its export request (a slow server); while it waits, the second is
refused in one line, and once the first finishes the second runs.
Item 11: a pull leaves no export file in Label Studio's data folder: from a server elsewhere it
reads through the tasks API (which writes no file); from a server hume started on this machine
(its data folder known) it reads the JSON export and deletes the two files that export wrote
(never anyone else's).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.store import Store, gold
from tests._annotate import hume_env, register
from tests._paths import REPO_ROOT

pytestmark = pytest.mark.labelstudio

DEMO = REPO_ROOT / "hume_sync" / "demo_data"


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Any:
    """A one-project study on annotator A's own server, set up and annotated by A (every item
    but the last)."""
    root = tmp_path_factory.mktemp("pull-hardening")
    mp = hume_env(root)
    spec = root / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "pullhard",
                "annotators": 1,
                "tasks": [
                    {
                        "name": "Sentiment",
                        "type": "classification",
                        "source": {"path": str(DEMO / "sentiment_en_test.jsonl")},
                        "sampling": "all",
                        "subsets": [{"language": "eng-Latn", "size": 9}],
                    }
                ],
            }
        )
    )
    study_dir = root / "study"
    assert main(["init", str(study_dir), "--spec", str(spec)]) == 0
    a = annotator_servers[0]
    register(study_dir, a, "eng", mp)  # a server elsewhere: reached by URL and token only
    assert main(["setup", str(study_dir)]) == 0
    annotator = a.server.client(a.token)
    module = task_types.get("classification").ls_module
    with Store.open(study_dir) as store:
        (sub,) = store.subsets()
        golds = gold(store, sub.key)
        labels = sub.config["label_set"]
        instances = store.instances(sub.key)
        tasks = store.slot_tasks(sub.key, 1)
        (project,) = store.slot_projects(sub.key)
        for inst in instances[:-1]:  # the last one is annotated during the lock test
            annotator.create_annotation(
                tasks[inst.hume_id], module.answer_to_result(golds[inst.hume_id], labels=labels)
            )
    yield {
        "dir": study_dir,
        "a": a,
        "server": a.server,
        "project": project.ls_project_id,
        "last_task": tasks[instances[-1].hume_id],
        "answer": module.answer_to_result(golds[instances[-1].hume_id], labels=labels),
    }
    mp.undo()


def export_files(data_dir: Path, project: int) -> list[str]:
    """Export files of ``project`` in Label Studio's data folder (plain and snapshot exports)."""
    plain = [p.name for p in (data_dir / "export").glob(f"project-{project}-*")]
    snapshots = [p.name for p in (data_dir / "media" / "export" / str(project)).glob("*")]
    return sorted(plain + snapshots)


def live_annotations(study_dir: Path) -> int:
    with Store.open(study_dir) as store:
        return len(store.annotations())


def test_pull_from_a_server_elsewhere_leaves_no_export_file(study, capsys):
    """A server registered by URL: hume cannot reach its folder, so it writes nothing there."""
    data_dir, project = study["server"].data_dir, study["project"]
    for _ in range(3):
        assert main(["pull", str(study["dir"])]) == 0
    assert "8 annotation(s) added" in capsys.readouterr().out
    assert live_annotations(study["dir"]) == 8
    assert export_files(data_dir, project) == []


def test_pull_through_the_embedded_server_deletes_its_export_files(
    study, capsys, monkeypatch, tmp_path
):
    """A server hume started here (its data folder in the registry, as `annotators add` records
    an embedded annotator server): the JSON export is read, then deleted."""
    data_dir, project = study["server"].data_dir, study["project"]
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "home"))
    ls_servers.remember(study["server"].url, data_dir=data_dir)
    assert ls_servers.data_dir_for(study["server"].url) == data_dir.resolve()
    someone_elses = data_dir / "export" / f"project-{project}-at-2020-01-01-00-00-00000000.json"
    someone_elses.write_text("[]")
    (data_dir / "media" / "export" / str(project)).mkdir(parents=True, exist_ok=True)
    annotations_before = live_annotations(study["dir"])
    for _ in range(3):
        assert main(["pull", str(study["dir"])]) == 0
    assert "0 annotation(s) added" in capsys.readouterr().out
    assert live_annotations(study["dir"]) == annotations_before == 8  # the same annotations
    assert export_files(data_dir, project) == [someone_elses.name]  # only what was not ours
    someone_elses.unlink()


class _GatedProxy(ThreadingHTTPServer):
    """Forwards to Label Studio; a read of annotations (the tasks API or an export) waits
    until ``gate`` is set: a server that is slow to answer a pull."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.gate = threading.Event()
        self.holding = threading.Event()
        super().__init__(("127.0.0.1", 0), _GatedHandler)


class _GatedHandler(BaseHTTPRequestHandler):
    server: _GatedProxy

    def log_message(self, *args: object) -> None:
        pass

    def _forward(self) -> None:
        reads = self.path.startswith("/api/tasks") or "/export" in self.path
        if reads and not self.server.gate.is_set():
            self.server.holding.set()
            self.server.gate.wait(timeout=300)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        resp = httpx.request(
            self.command,
            self.server.upstream + self.path,
            headers=headers,
            content=body,
            timeout=60,
        )
        self.send_response(resp.status_code)
        for k, v in resp.headers.items():
            hop = ("content-length", "transfer-encoding", "connection", "content-encoding")
            if k.lower() not in hop:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(resp.content)))
        self.end_headers()
        self.wfile.write(resp.content)

    do_GET = do_POST = do_PATCH = do_DELETE = _forward


def _pull(study_dir: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "hume_sync.cli", "pull", str(study_dir)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _point_at(study: dict[str, Any], url: str) -> None:
    """The study reaches A's server at ``url`` (a slow proxy in front of it), with its token."""
    ls_servers.remember(url, token=study["server"].token)
    with Store.open(study["dir"]) as store, store.transaction() as conn:
        conn.execute("UPDATE annotators SET ls_url = ? WHERE slot = 1", (url,))


def test_two_pulls_never_overlap(study):
    server, a = study["server"], study["a"]
    proxy = _GatedProxy(server.url)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    _point_at(study, f"http://127.0.0.1:{proxy.server_address[1]}")
    slow = _pull(study["dir"])
    try:
        assert proxy.holding.wait(timeout=120), "the first pull never read annotations"
        # An annotation made while the first pull reads: the overlap the lock prevents.
        new = server.client(a.token).create_annotation(study["last_task"], study["answer"])
        second = _pull(study["dir"])
        out, err = second.communicate(timeout=120)
        assert second.returncode == 2, (out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert (
            f"another command is working on this study ('hume-sync pull', pid {slow.pid}"
            in (lines[0])
        )
    finally:
        proxy.gate.set()
        out, err = slow.communicate(timeout=300)
        proxy.shutdown()
    assert slow.returncode == 0, err
    _point_at(study, server.url)
    again = _pull(study["dir"])
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    with Store.open(study["dir"]) as store:
        live = {a.ls_annotation_id for a in store.annotations()}
        everything = store.annotations(include_deleted=True)
    assert new["id"] in live
    assert all(a.deleted_at is None for a in everything)  # nothing live was marked deleted
