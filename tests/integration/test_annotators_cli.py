"""`hume-sync annotators add/list` against a real Label Studio: the account and its 0600 login,
idempotency, no secret in any output, and the servers it refuses (anyone may sign up; someone
else already has an account). Bad input is refused before anything is touched."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import httpx
import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import server
from hume_sync.labelstudio.annotators import logins_path
from hume_sync.store import Store
from tests._studies import onboarding_study


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return onboarding_study(
        tmp_path, monkeypatch, "onboarding", cls_eng=3, cls_arb=2, sts=2, rerank=2
    )


def test_bad_input_is_one_line_and_changes_nothing(study: Path, capsys) -> None:
    cases = [
        (["not-an-email"], "not an email address"),
        (["a@x.org", "--languages", "english"], "--languages: not a language code"),
        (["a@x.org", "--url", "ftp://x"], "--url must start with http"),
        (["a@x.org", "--url", "http://127.0.0.1:9"], "LABEL_STUDIO_API_KEY"),
    ]
    capsys.readouterr()
    for args, words in cases:
        assert main(["annotators", "add", str(study), *args]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err
    with Store.open(study) as store:
        assert store.annotators() == []
    assert main(["annotators", "add", str(study.parent / "nope"), "a@x.org"]) == 2
    assert "not a study" in capsys.readouterr().err


@pytest.mark.labelstudio
def test_onboarding_on_a_server_of_their_own(study: Path, tmp_path: Path, monkeypatch, capsys):
    """One fresh server: refused while anyone may sign up; then the account, its login, the
    list; then refused for a second person once someone else has an account there."""
    data_dir = tmp_path / "ls-c"
    port = server.free_port()
    try:
        info = server.start(data_dir, port, extra_env={"DISABLE_SIGNUP_WITHOUT_LINK": "false"})
        # anyone who can open the page joins the organization: the hazard, for real
        web = httpx.Client(base_url=info.url)
        web.get("/user/signup/")
        joined = web.post(
            "/user/signup/",
            data={"email": "stranger@x.org", "password": "Pw-stranger-123",
                  "csrfmiddlewaretoken": web.cookies["csrftoken"]},
        )  # fmt: skip
        assert joined.status_code == 302
        monkeypatch.setenv("LABEL_STUDIO_API_KEY", info.token)
        capsys.readouterr()
        args = ["annotators", "add", str(study), "ana@lab.org", "--languages", "eng,ar"]
        assert main([*args, "--url", info.url]) == 2
        err = capsys.readouterr().err
        assert "lets anyone sign up without the invite link" in err and info.token not in err
        registry = tmp_path / "hume-home" / "label-studio-servers.json"
        kept = json.loads(registry.read_text()) if registry.exists() else {}
        assert info.url not in kept  # a refused server's admin token is not remembered

        server.stop(data_dir)  # the same server, started the way hume starts it
        info = server.start(data_dir, port)
        admin = server_client(info)
        stranger = next(u for u, e in admin.user_emails().items() if e == "stranger@x.org")
        admin.sdk.users.delete(id=stranger)
        assert main([*args, "--url", info.url]) == 0
        out = capsys.readouterr().out
        assert "registered as slot 1 (annotator-1), languages eng, ara" in out
        login = logins_path("ana@lab.org")
        assert str(login) in out
        assert stat.S_IMODE(os.stat(login).st_mode) == 0o600
        creds = json.loads(login.read_text())[info.url]
        assert creds["password"] not in out and info.token not in out
        # the login works in Label Studio's own form
        web = httpx.Client(base_url=info.url)
        web.get("/user/login/")
        ok = web.post(
            "/user/login/",
            data={"email": "ana@lab.org", "password": creds["password"],
                  "csrfmiddlewaretoken": web.cookies["csrftoken"]},
        )  # fmt: skip
        assert ok.status_code == 302 and "/user/login" not in ok.headers["location"]

        # again: nothing new; the languages can change
        assert main([*args[:-1], "eng", "--url", info.url]) == 0
        out = capsys.readouterr().out
        assert "already registered as slot 1" in out and "languages eng\n" in out
        assert main(["annotators", "list", str(study), "--json"]) == 0
        listed = capsys.readouterr().out
        [row] = json.loads(listed)["annotators"]
        assert (row["email"], row["languages"], row["label_studio"]) == (
            "ana@lab.org",
            ["eng"],
            info.url,
        )
        assert creds["password"] not in listed and info.token not in listed

        # a second person on the same server would see Ana's answers: refused
        assert main(["annotators", "add", str(study), "ben@lab.org", "--url", info.url]) == 2
        err = capsys.readouterr().err
        assert "already has other accounts (ana@lab.org)" in err
        with Store.open(study) as store:
            assert [a.email for a in store.annotators()] == ["ana@lab.org"]
    finally:
        server.stop(data_dir)


def server_client(info: server.ServerInfo):
    from hume_sync.labelstudio.client import LabelStudioClient

    return LabelStudioClient(info.url, info.token)
