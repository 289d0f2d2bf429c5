"""Issue 11 item 10: the ML backend's limits. Deeply nested JSON is a 400 (not a 500), a webhook
event has a bounded size (413) and the event log a bounded, rotating size; two backends on one
machine do not share gunicorn's control socket."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from hume_sync.workflow.backend import create_backend_app, read_events
from tests._paths import REPO_ROOT
from tests._studies import tiny_sts_study


@pytest.fixture
def study(tmp_path: Path) -> Path:
    return tiny_sts_study(tmp_path, "limits", 3)


@pytest.fixture
def client(study: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("ML_BACKEND_USER", raising=False)
    monkeypatch.delenv("ML_BACKEND_PASSWORD", raising=False)
    return create_backend_app(study).test_client()


def nested(depth: int) -> bytes:
    return b'{"tasks": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("route", ["/predict", "/setup", "/webhook"])
@pytest.mark.parametrize("depth", [65, 2_000, 50_000])
def test_deeply_nested_json_is_a_400(client, route, depth):
    got = client.post(route, data=nested(depth), content_type="application/json")
    assert got.status_code == 400, got.get_data(as_text=True)
    assert got.get_json()["error"] == "the JSON body nests deeper than 64 levels"


def test_ordinary_nesting_still_works(client):
    got = client.post("/predict", data=nested(10), content_type="application/json")
    assert got.status_code == 400 and "task 0 is not an object" in got.get_json()["error"]
    task = {"id": 1, "data": {"a": {"b": {"c": [[["ok"]]]}}}, "predictions": []}
    assert client.post("/predict", json={"tasks": [task]}).status_code == 200


def test_webhook_event_size_is_bounded(client, study):
    from ml_backend.app import MAX_WEBHOOK_BYTES

    big = {"action": "ANNOTATION_CREATED", "pad": "x" * MAX_WEBHOOK_BYTES}
    got = client.post("/webhook", json=big)
    assert got.status_code == 413 and "larger than" in got.get_json()["error"]
    # the same size without a Content-Length (chunked) is refused as well
    body = json.dumps(big).encode()
    got = client.post(
        "/webhook",
        input_stream=io.BytesIO(body),
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},  # as gunicorn sets for chunked
    )
    assert got.status_code == 413
    assert read_events(study) == []
    ok = {"action": "ANNOTATION_CREATED", "annotation": {"id": 7, "result": []}}
    assert client.post("/webhook", json=ok).status_code == 201
    assert [e["annotation"]["id"] for e in read_events(study)] == [7]


def test_event_log_rotates_and_stays_bounded(tmp_path):
    from ml_backend.event_log import EventLog

    log = EventLog(tmp_path / "events" / "webhook.jsonl", max_bytes=2_000, backups=2)
    for n in range(300):
        log.append({"n": n, "pad": "y" * 50})
    files = log.files()
    assert [f.name for f in files] == ["webhook.jsonl.2", "webhook.jsonl.1", "webhook.jsonl"]
    assert all(f.stat().st_size <= 2_000 for f in files)
    kept = [r["n"] for r in log.read()]
    assert kept == list(range(kept[0], 300)) and kept[0] > 0  # newest kept, in order


def test_event_log_is_safe_across_processes(tmp_path):
    """gunicorn workers are processes: appends and rotations from four at once."""
    path = tmp_path / "webhook.jsonl"
    code = textwrap.dedent(
        f"""
        import sys
        from ml_backend.event_log import EventLog
        log = EventLog({str(path)!r}, max_bytes=20_000, backups=50)
        for n in range(250):
            log.append({{"w": int(sys.argv[1]), "n": n, "pad": "z" * 40}})
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(w)], env=env) for w in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    from ml_backend.event_log import EventLog

    records = EventLog(path, max_bytes=20_000, backups=50).read()  # every line parses
    assert len(records) == 1_000
    for w in range(4):
        assert [r["n"] for r in records if r["w"] == w] == list(range(250))


#: ``hume-ml-backend`` as a subprocess of this interpreter (the console script's own code).
BACKEND_MAIN = (
    "import sys; from hume_sync.cli import backend_main; sys.exit(backend_main(sys.argv[1:]))"
)


def _start_backend(study: Path, port: int, home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HOME": str(home)}
    for key in ("XDG_RUNTIME_DIR", "ML_BACKEND_USER", "ML_BACKEND_PASSWORD"):
        env.pop(key, None)
    return subprocess.Popen(
        [sys.executable, "-c", BACKEND_MAIN, "--study-dir", str(study), "--bind",
         f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip


def test_two_backends_do_not_share_a_control_socket(study, tmp_path):
    from hume_sync.labelstudio.server import free_port

    home = tmp_path / "home"
    home.mkdir()
    ports = [free_port(), free_port()]
    procs = [_start_backend(study, port, home) for port in ports]
    try:
        for proc, port in zip(procs, ports, strict=True):
            deadline = time.monotonic() + 90
            while True:
                try:
                    assert (
                        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
                    )
                    break
                except httpx.TransportError:
                    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                    assert time.monotonic() < deadline, "gunicorn did not start"
                    time.sleep(0.3)
        sockets = [str(p.relative_to(home)) for p in home.rglob("*") if p.is_socket()]
        assert sockets == [] and not (home / ".gunicorn").exists()
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
