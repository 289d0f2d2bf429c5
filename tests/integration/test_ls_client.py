"""LabelStudioClient and hume_sync.labelstudio.server, against a real Label Studio and real
failing servers.

Faults are caused for real: a stopped server is a free loopback port (connection refused), a
wrong token gets a real 401, and 500s and timeouts come from a tiny local http.server (a real
Label Studio cannot be made to answer 500 or to hang on demand).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hume_sync import task_types
from hume_sync.labelstudio import server

pytest.importorskip("label_studio_sdk", reason="the labelstudio extra is not installed")

from hume_sync.labelstudio.client import (
    LabelStudioAuthError,
    LabelStudioClient,
    LabelStudioError,
    LabelStudioNotFoundError,
    LabelStudioRequestError,
    LabelStudioServerError,
    LabelStudioTimeoutError,
    LabelStudioUnreachableError,
)

SECRET = "f00dfeedcafe0123456789abcdef0123456789ab"
LABELS = ["positive", "negative", "neutral"]
CLS = task_types.get("classification").ls_module


def unique(title: str) -> str:
    return f"{title}-{uuid.uuid4().hex[:8]}"


# -- a misbehaving HTTP server --------------------------------------------------------------


class FakeServer:
    """A loopback HTTP server that answers every request with `status` after `delay` seconds."""

    def __init__(self) -> None:
        self.status = 500
        self.delay = 0.0
        self.body = b'{"detail": "boom"}'
        self.requests: list[tuple[str, str, str | None]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                fake.requests.append((self.command, self.path, self.headers.get("Authorization")))
                if fake.delay:
                    time.sleep(fake.delay)
                try:
                    self.send_response(fake.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(fake.body)))
                    self.end_headers()
                    self.wfile.write(fake.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

            do_GET = do_POST = do_PATCH = do_DELETE = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    srv = FakeServer()
    try:
        yield srv
    finally:
        srv.close()


def fast_client(url: str, token: str = SECRET, **kw: object) -> LabelStudioClient:
    return LabelStudioClient(url, token, **{"timeout": 5.0, "tries": 3, "backoff": 0.01, **kw})


def assert_secret_free(exc: BaseException, token: str = SECRET) -> None:
    for text in (str(exc), repr(exc), str(exc.args)):
        assert token not in text
    assert "\n" not in str(exc), "error messages are one line"


# -- error paths without Label Studio -------------------------------------------------------


def test_connection_refused_is_retried_then_reported() -> None:
    port = server.free_port()  # nothing listens there: a stopped server
    client = fast_client(f"http://127.0.0.1:{port}")
    started = time.monotonic()
    with pytest.raises(LabelStudioUnreachableError) as err:
        client.create_project("p", "<View/>", 1)
    assert str(err.value) == (
        f"Label Studio at http://127.0.0.1:{port} is not reachable (create project 'p')"
    )
    assert err.value.attempts == 3  # refused: the request never arrived, so even a POST retries
    assert time.monotonic() - started < 5
    assert_secret_free(err.value)


def test_500_on_a_read_is_retried_three_times(fake: FakeServer) -> None:
    with pytest.raises(LabelStudioServerError) as err:
        fast_client(fake.url).get_project(7)
    assert len(fake.requests) == 3
    assert all(r[:2] == ("GET", "/api/projects/7/") for r in fake.requests)
    assert err.value.status_code == 500 and err.value.attempts == 3
    assert str(err.value).startswith(
        f"Label Studio at {fake.url} failed with HTTP 500 after 3 tries (get project 7)"
    )
    assert_secret_free(err.value)


def test_500_on_a_create_is_not_retried(fake: FakeServer) -> None:
    """A POST that failed with 500 may have been applied: retrying could duplicate tasks."""
    with pytest.raises(LabelStudioServerError, match="may have been applied") as err:
        fast_client(fake.url).import_tasks(1, [{"data": {"text": "x"}}])
    assert [r[0] for r in fake.requests] == ["POST"]
    assert str(err.value).startswith(
        f"Label Studio at {fake.url} failed with HTTP 500 (import tasks 1-1 into project 1)"
    )


def test_503_on_a_create_is_retried(fake: FakeServer) -> None:
    fake.status = 503
    with pytest.raises(LabelStudioServerError, match="HTTP 503 after 3 tries"):
        fast_client(fake.url).create_annotation(5, [])
    assert [r[0] for r in fake.requests] == ["POST"] * 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 429])
def test_4xx_is_never_retried(fake: FakeServer, status: int) -> None:
    fake.status = status
    with pytest.raises(LabelStudioError) as err:
        fast_client(fake.url).list_projects()
    assert len(fake.requests) == 1
    assert err.value.status_code == status
    assert_secret_free(err.value)


def test_timeout_on_a_read_is_retried_then_reported(fake: FakeServer) -> None:
    fake.delay = 1.0
    client = fast_client(fake.url, timeout=0.2)
    with pytest.raises(LabelStudioTimeoutError) as err:
        client.list_tasks(3)
    assert len(fake.requests) == 3
    assert str(err.value) == (
        f"Label Studio at {fake.url} did not answer within 0.2 s (list tasks of project 3) "
        "after 3 tries"
    )
    assert isinstance(err.value, LabelStudioUnreachableError)


def test_timeout_on_a_create_is_not_retried(fake: FakeServer) -> None:
    fake.delay = 1.0
    with pytest.raises(LabelStudioTimeoutError, match="may have been applied"):
        fast_client(fake.url, timeout=0.2).create_project("p", "<View/>", 1)
    time.sleep(0.1)
    assert len(fake.requests) == 1


def test_token_is_sent_but_never_shown(fake: FakeServer) -> None:
    fake.status = 401
    fake.body = json.dumps({"detail": f"bad token {SECRET}"}).encode()
    client = fast_client(fake.url)
    assert SECRET not in repr(client)
    with pytest.raises(LabelStudioAuthError) as err:
        client.get_project(1)
    assert fake.requests[0][2] is not None and SECRET in fake.requests[0][2]
    assert str(err.value) == (
        f"Label Studio at {fake.url} rejected the API token (401) (get project 1)"
    )
    assert_secret_free(err.value)
    fake.status = 400
    with pytest.raises(LabelStudioRequestError) as err:
        client.get_project(1)
    assert "***" in str(err.value)  # the body excerpt is kept, the token masked
    assert_secret_free(err.value)


def test_client_requires_url_and_key() -> None:
    with pytest.raises(ValueError):
        LabelStudioClient("", SECRET)
    with pytest.raises(ValueError):
        LabelStudioClient("http://127.0.0.1:1", "")
    with pytest.raises(ValueError, match="http://"):
        LabelStudioClient("localhost:8080", SECRET)


# -- hume_sync.labelstudio.server without starting Label Studio -------------------------------


def test_connection_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HUME_HOME", str(tmp_path))
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://ls.example:8080/")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", SECRET)
    assert server.connection_from_env_or_embedded() == ("http://ls.example:8080", SECRET)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY")
    with pytest.raises(server.ConnectionNotConfiguredError, match="LABEL_STUDIO_API_KEY") as err:
        server.connection_from_env_or_embedded()
    assert SECRET not in str(err.value)
    monkeypatch.delenv("LABEL_STUDIO_URL")
    with pytest.raises(server.ConnectionNotConfiguredError, match="hume-sync up"):
        server.connection_from_env_or_embedded()
    assert server.default_data_dir() == tmp_path / "label-studio"
    creds = tmp_path / "label-studio" / server.CREDENTIALS_FILE
    creds.parent.mkdir()
    creds.write_text(
        json.dumps({"url": "http://127.0.0.1:9", "username": "u", "password": "p", "token": SECRET})
    )
    assert server.connection_from_env_or_embedded() == ("http://127.0.0.1:9", SECRET)
    creds.write_text(json.dumps({"url": "http://127.0.0.1:9"}))
    with pytest.raises(server.ServerError, match="incomplete"):
        server.connection_from_env_or_embedded()


def test_start_refuses_a_busy_port(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(server.PortInUseError, match=f"port {port}"):
            server.start(tmp_path / "ls", port)
    assert not (tmp_path / "ls" / server.PID_FILE).exists()


def test_start_refuses_a_database_without_credentials(tmp_path: Path) -> None:
    (tmp_path / "label_studio.sqlite3").write_bytes(b"")
    with pytest.raises(server.ServerStartError, match=r"no credentials\.json"):
        server.start(tmp_path, server.free_port())


def test_stop_and_status_without_a_server(tmp_path: Path) -> None:
    assert server.stop(tmp_path) is False
    st = server.status(tmp_path)
    assert (st.configured, st.running, st.healthy, st.pid) == (False, False, False, None)
    # A live pid that is not Label Studio (a reused pid) is neither reported nor killed.
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        for pid in (other.pid, os.getpid()):
            (tmp_path / server.PID_FILE).write_text(json.dumps({"pid": pid}))
            assert server.status(tmp_path).running is False
            assert server.stop(tmp_path) is False
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_server_info_repr_hides_secrets(tmp_path: Path) -> None:
    info = server.ServerInfo(
        url="http://127.0.0.1:1",
        username="admin@hume.local",
        password="hunter2-password",
        token=SECRET,
        data_dir=tmp_path,
        pid=1,
        log_path=tmp_path / "log",
    )
    assert SECRET not in repr(info) and "hunter2" not in repr(info)


# -- against a real Label Studio ------------------------------------------------------------


@pytest.mark.labelstudio
def test_embedded_server_files_and_idempotent_start(ls_server) -> None:
    creds = ls_server.data_dir / server.CREDENTIALS_FILE
    assert stat.S_IMODE(creds.stat().st_mode) == 0o600
    assert json.loads(creds.read_text())["token"] == ls_server.token
    assert (ls_server.data_dir / server.PID_FILE).exists()
    assert (ls_server.data_dir / server.LOG_FILE).exists()
    assert ls_server.token not in (ls_server.data_dir / server.LOG_FILE).read_text()
    assert ls_server.url.startswith("http://127.0.0.1:")
    again = server.start(ls_server.data_dir, 1)  # running: the port argument does not matter
    assert again.already_running and again.url == ls_server.url
    assert again.token == ls_server.token
    st = server.status(ls_server.data_dir)
    assert st.configured and st.running and st.healthy and st.url == ls_server.url
    cmdline = Path(f"/proc/{st.pid}/cmdline")
    if cmdline.exists():  # secrets go through the environment, not the world-readable argv
        argv = cmdline.read_bytes()
        assert b"label-studio" in argv and b"start" in argv
        assert ls_server.token.encode() not in argv
        assert ls_server.info.password.encode() not in argv
    print(f"\nLabel Studio cold start: {ls_server.startup_s:.1f} s")


@pytest.mark.labelstudio
def test_wrong_token_is_a_401_without_retry(ls_server) -> None:
    wrong = "0" * 40
    with pytest.raises(LabelStudioAuthError) as err:
        fast_client(ls_server.url, wrong).list_projects()
    assert str(err.value) == (
        f"Label Studio at {ls_server.url} rejected the API token (401) (list projects)"
    )
    assert err.value.attempts == 1
    assert_secret_free(err.value, wrong)
    assert_secret_free(err.value, ls_server.token)


@pytest.mark.labelstudio
def test_not_found_and_invalid_config(ls_server) -> None:
    client = ls_server.client()
    with pytest.raises(LabelStudioNotFoundError, match=r"not found \(404\) \(get project 987654\)"):
        client.get_project(987654)
    broken = CLS.render_config(labels=LABELS).replace('toName="text"', 'toName="nothing"')
    with pytest.raises(LabelStudioRequestError, match=r"HTTP 400.*nothing") as err:
        client.create_project(unique("broken"), broken, 1)
    assert_secret_free(err.value, ls_server.token)


@pytest.mark.labelstudio
def test_project_lifecycle(ls_server) -> None:
    client = ls_server.client()
    title, marker = unique("hume-client"), unique("hume:mark")
    project = client.create_project(
        title, CLS.render_config(labels=LABELS), 2, description=f"a study [{marker}]"
    )
    pid = project["id"]
    assert project["title"] == title
    assert project["maximum_annotations"] == 2
    assert project["show_collab_predictions"] is False
    assert [p["id"] for p in client.find_projects_by_marker(marker)] == [pid]
    assert client.find_projects_by_marker(unique("absent")) == []
    updated = client.update_project(pid, maximum_annotations=1, title=unique("renamed"))
    assert updated["maximum_annotations"] == 1 and updated["title"] != title
    assert client.get_project(pid)["maximum_annotations"] == 1
    # identity is the marker, not the (renamed) title
    assert [p["id"] for p in client.find_projects_by_marker(marker)] == [pid]

    dup = client.create_project(title, CLS.render_config(labels=LABELS), 1, description=marker)
    assert sorted(p["id"] for p in client.find_projects_by_marker(marker)) == [pid, dup["id"]]
    client.delete_project(dup["id"])
    assert [p["id"] for p in client.find_projects_by_marker(marker)] == [pid]


@pytest.mark.labelstudio
def test_tasks_annotations_predictions_and_counts(ls_server) -> None:
    client = ls_server.client()
    project = client.create_project(unique("hume-tasks"), CLS.render_config(labels=LABELS), 2)
    pid = project["id"]
    tasks = [{"data": CLS.task_data(f"h{n}", {"text": f"text {n}"})} for n in range(7)]
    ids = client.import_tasks(pid, tasks, batch_size=3)  # three batches
    assert len(ids) == 7 and len(set(ids)) == 7

    listed = client.list_tasks(pid, page_size=2)  # four pages
    assert [t["id"] for t in sorted(listed, key=lambda t: t["id"])] == sorted(ids)
    by_id = {t["id"]: t for t in listed}
    assert [by_id[i]["data"]["hume_ref"] for i in ids] == [f"h{n}" for n in range(7)]
    assert all(isinstance(t, dict) and t["annotations"] == [] for t in listed)

    client.create_annotation(ids[0], CLS.answer_to_result("negative", labels=LABELS), 12.5)
    user = ls_server.make_user()
    ls_server.client(user.token).create_annotation(
        ids[0], CLS.answer_to_result("neutral", labels=LABELS), lead_time=3
    )
    [a1, a2] = sorted(client.list_annotations(ids[0]), key=lambda a: a["id"])
    assert CLS.result_to_answer(a1["result"], labels=LABELS) == "negative"
    assert CLS.result_to_answer(a2["result"], labels=LABELS) == "neutral"
    assert a2["completed_by"] == user.id and a1["lead_time"] == pytest.approx(12.5)

    created = client.import_predictions(
        pid,
        [
            {
                "task": i,
                "result": CLS.answer_to_result("positive", labels=LABELS),
                "model_version": "emb:test",
                "score": 0.5,
            }
            for i in ids[:4]
        ],
    )
    assert created == 4
    assert client.get_project(pid)["show_collab_predictions"] is False
    task = {t["id"]: t for t in client.list_tasks(pid)}[ids[1]]
    [prediction] = task["predictions"]
    assert prediction["model_version"] == "emb:test"
    assert CLS.result_to_answer(prediction["result"], labels=LABELS) == "positive"

    counts = client.project_counts(pid)
    assert client.list_project_counts()[pid] == counts
    assert counts["task_number"] == 7
    assert counts["num_tasks_with_annotations"] == 1
    assert counts["total_annotations_number"] == 2
    assert counts["finished_task_number"] == 1
    assert counts["total_predictions_number"] == 4

    with pytest.raises(ValueError, match="no 'data'"):
        client.import_tasks(pid, [{"text": "no data key"}])


@pytest.mark.labelstudio
def test_sign_up_rejects_a_taken_email(ls_server) -> None:
    user = ls_server.make_user()
    with pytest.raises(LabelStudioRequestError, match="sign-up form refused"):
        ls_server.client().sign_up_user(user.email, "Another-pass-123")


@pytest.mark.labelstudio
def test_restart_keeps_credentials_and_data(ls_server) -> None:
    """`hume-sync down` then `up`: same token, same projects. Runs last in this module."""
    client = ls_server.client()
    title = unique("survives-restart")
    client.create_project(title, CLS.render_config(labels=LABELS), 1)
    port = int(ls_server.url.rsplit(":", 1)[1])
    assert server.stop(ls_server.data_dir) is True
    with pytest.raises(LabelStudioUnreachableError, match="is not reachable"):
        fast_client(ls_server.url, ls_server.token).list_projects()
    assert server.status(ls_server.data_dir).running is False
    started = time.monotonic()
    info = server.start(ls_server.data_dir, port)
    print(f"\nLabel Studio restart: {time.monotonic() - started:.1f} s")
    assert not info.already_running and info.url == ls_server.url
    assert info.token == ls_server.token
    assert any(p["title"] == title for p in client.list_projects())
