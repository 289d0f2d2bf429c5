"""`hume-sync manager` without a server: what it says, and that nothing is recorded."""

from __future__ import annotations

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import manager


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    return tmp_path / "hume-home"


def test_url_before_up_is_one_line_and_exit_1(home, capsys) -> None:
    assert main(["manager", "url"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: no manager's Label Studio yet: 'hume-sync manager up'"]
    assert manager.configured_url() is None


def test_team_url_without_token_is_refused_and_not_recorded(home, capsys) -> None:
    assert main(["manager", "up", "--url", "http://127.0.0.1:9"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "LABEL_STUDIO_API_KEY" in err[0]
    assert manager.configured_url() is None
    assert not (home / manager.MANAGER_FILE).exists()


def test_unreachable_team_url_is_not_recorded(home, monkeypatch, capsys) -> None:
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "x" * 40)
    assert main(["manager", "up", "--url", "http://127.0.0.1:9"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "x" * 40 not in err[0]
    assert manager.configured_url() is None


def test_pseudonyms_name_only_the_slot() -> None:
    assert manager.pseudonym_email(3) == "slot-3@manager.hume.invalid"
