"""Onboarding as a careless operator meets it, against real Label Studio servers: a run killed
between the sign-up and the login file, and `hume-sync up` after a reboot with port 8080 taken
(issue 25, items 2 and 3)."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import httpx
import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import server
from hume_sync.labelstudio.annotators import logins_path
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import Store
from tests._studies import onboarding_study

pytestmark = pytest.mark.labelstudio


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return onboarding_study(tmp_path, monkeypatch, "onboarding-hardening")


def _logs_in(url: str, email: str, password: str) -> bool:
    """Label Studio's own login form accepts the pair."""
    with httpx.Client(base_url=url) as web:
        web.get("/user/login/")
        resp = web.post(
            "/user/login/",
            data={"email": email, "password": password,
                  "csrfmiddlewaretoken": web.cookies["csrftoken"]},
        )  # fmt: skip
    return resp.status_code == 302 and "/user/login" not in resp.headers["location"]


def _hold_port(port: int) -> socket.socket | None:
    """Listen on 127.0.0.1:port (what another program there would do); None if already taken."""
    sock = socket.socket()
    try:
        sock.bind((server.HOST, port))
    except OSError:
        sock.close()
        return None
    sock.listen()
    return sock


def test_a_kill_after_the_sign_up_and_a_reboot_with_8080_taken(
    study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    home = tmp_path / "hume-home"
    real_sign_up = LabelStudioClient.sign_up_user

    def killed_after_sign_up(self, email: str, password: str):
        real_sign_up(self, email, password)  # the account exists on the server now ...
        raise KeyboardInterrupt  # ... and the run dies before it returns

    monkeypatch.setattr(LabelStudioClient, "sign_up_user", killed_after_sign_up)
    assert main(["annotators", "add", str(study), "ana@lab.org"]) == 130
    monkeypatch.setattr(LabelStudioClient, "sign_up_user", real_sign_up)
    with Store.open(study) as store:
        assert store.annotators() == []  # not registered: the rerun finishes the job

    capsys.readouterr()
    assert main(["annotators", "add", str(study), "ana@lab.org"]) == 0
    out = capsys.readouterr().out
    assert "account exists; login in" in out and "password was not changed" not in out
    login = logins_path("ana@lab.org")
    [(url, creds)] = json.loads(login.read_text()).items()
    assert stat.S_IMODE(os.stat(login).st_mode) == 0o600
    assert _logs_in(url, "ana@lab.org", creds["password"])  # somebody knows the password
    assert main(["annotators", "add", str(study), "ben@lab.org", "--languages", "eng,fra"]) == 0
    assert "  note: no subset of the study is in fra\n" in capsys.readouterr().out

    # item 7: the folders whose names are email slugs are the owner's only
    annotators = home / "annotators"
    for folder in (home, annotators, *annotators.iterdir()):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder

    # a reboot: every server down; 8080 (the general server's default) taken by another program
    with Store.open(study) as store:
        urls = sorted(a.ls_url for a in store.annotators())
    assert main(["down"]) == 0
    holder = _hold_port(server.DEFAULT_PORT)
    try:
        capsys.readouterr()
        assert main(["up"]) == 0
        out = capsys.readouterr().out.splitlines()
        started = sorted(line.rsplit(" at ", 1)[1] for line in out)
        assert started == urls and len(out) == 2, out  # each on its own port, one line each
        assert all(
            line.startswith("annotator's Label Studio (") and ") started at http" in line
            for line in out
        )
        assert not (home / "label-studio").exists()  # no cold start of a server nobody uses
        for url in urls:
            assert httpx.get(f"{url}/health", timeout=10).status_code == 200

        # a general server used before, whose port is now taken: one error line, the
        # annotators' servers still reported, exit 2
        busy = _hold_port(server.free_port())
        assert busy is not None
        general = home / "label-studio"
        general.mkdir(mode=0o700)
        port = busy.getsockname()[1]
        creds = {"url": f"http://{server.HOST}:{port}", "username": "m@x.org",
                 "password": "pw-never-shown", "token": "t" * 40}  # fmt: skip
        server.write_private_json(general / server.CREDENTIALS_FILE, creds)
        try:
            assert main(["up"]) == 2
        finally:
            busy.close()
        captured = capsys.readouterr()
        [error] = captured.err.strip().splitlines()
        assert error.startswith("hume-sync up: error: Label Studio: port ") and "in use" in error
        assert "pw-never-shown" not in captured.err + captured.out
        assert sum("already running" in line for line in captured.out.splitlines()) == 2
    finally:
        if holder is not None:
            holder.close()
        main(["down"])
