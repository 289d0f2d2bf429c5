"""`hume-sync manager up` without --url: hume starts the manager's own embedded Label Studio
(from the prepared database), records it, and pull's mirror reaches it; nobody else has an
account there until the mirror makes the slots' pseudonymous ones."""

from __future__ import annotations

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import manager, server

pytestmark = pytest.mark.labelstudio


def test_embedded_manager_server(tmp_path, monkeypatch, capsys) -> None:
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    try:
        assert main(["manager", "up"]) == 0
        url = capsys.readouterr().out.strip()
        assert main(["manager", "url"]) == 0
        assert capsys.readouterr().out.strip() == url
        assert server.status(manager.manager_data_dir()).healthy
        ls = manager.client()
        assert ls is not None and ls.url == url
        assert list(ls.user_emails().values()) == [ls.whoami()["email"]]  # the admin only
        ids = manager.pseudonyms(ls, [1, 2])
        assert manager.pseudonyms(ls, [1, 2]) == ids  # made once
        assert sorted(e for e in ls.user_emails().values() if e.startswith("slot-")) == [
            manager.pseudonym_email(1),
            manager.pseudonym_email(2),
        ]
    finally:
        server.stop(manager.manager_data_dir())
