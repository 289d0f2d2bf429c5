"""`annotators add` refusals that need no server: a password in `--url`, languages no subset is
in, and owner-only annotator folders (issue 25, items 4, 5 and 7)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hume_sync.cli import main
from hume_sync.errors import LabelStudioURLError
from hume_sync.labelstudio import servers, urls
from hume_sync.labelstudio.annotators import write_login
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import Store
from tests._studies import onboarding_study


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return onboarding_study(tmp_path, monkeypatch, "refusals")


@pytest.mark.parametrize("with_token", [False, True])
def test_a_password_in_url_is_refused_and_never_printed(study, monkeypatch, capsys, with_token):
    if with_token:
        monkeypatch.setenv("LABEL_STUDIO_API_KEY", "k" * 40)
    capsys.readouterr()
    url = "http://alice:s3cret-pw@127.0.0.1:9"
    assert main(["annotators", "add", str(study), "a@x.org", "--url", url]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.strip().splitlines()
    assert "s3cret-pw" not in captured.err + captured.out and "alice" not in line
    assert "--url must not hold a user name or password (http://***@127.0.0.1:9)" in line
    assert not (Path(os.environ["HUME_HOME"]) / servers.REGISTRY_FILE).exists()
    with Store.open(study) as store:
        assert store.annotators() == []


def test_the_client_refuses_a_url_with_a_password() -> None:
    with pytest.raises(LabelStudioURLError) as err:
        LabelStudioClient("https://u:pa55word@ls.example.org/", "t" * 40)
    assert "pa55word" not in str(err.value) and "https://***@ls.example.org/" in str(err.value)
    assert urls.shown("http://ls:8080/x") == "http://ls:8080/x"
    assert urls.shown("http://u@ls:8080") == "http://***@ls:8080"


def test_languages_no_subset_is_in_are_refused_before_any_server(study, capsys) -> None:
    capsys.readouterr()
    assert main(["annotators", "add", str(study), "a@x.org", "--languages", "fra"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (
        "hume-sync annotators: error: --languages fra: the study has no subset in that "
        "language (its languages: eng, ara); nothing registered"
    )
    assert not (Path(os.environ["HUME_HOME"]) / servers.ANNOTATORS_DIR).exists()
    with Store.open(study) as store:
        assert store.annotators() == []


def test_annotator_folders_are_owner_only_even_when_made_0755_before(study) -> None:
    home = Path(os.environ["HUME_HOME"])
    old = home / servers.ANNOTATORS_DIR / "old-annotator-0000"
    old.mkdir(parents=True, mode=0o755)
    (home / servers.ANNOTATORS_DIR).chmod(0o755)
    login = write_login("new@x.org", "http://127.0.0.1:9", "pw", None)
    for folder in (home, home / servers.ANNOTATORS_DIR, login.parent):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
    assert stat.S_IMODE(os.stat(login).st_mode) == 0o600
