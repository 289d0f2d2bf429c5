"""The pieces of a server's start that need no server: the start limit read from the
environment, when a prepared database applies, what its fingerprint depends on (never a secret),
and the copy into a new data folder."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from hume_sync.labelstudio import prepared_db, server

SQLITE = {"DJANGO_DB": "sqlite"}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(server.START_TIMEOUT_ENV, raising=False)
    monkeypatch.delenv(prepared_db.TEMPLATE_SWITCH, raising=False)


def test_start_timeout_from_argument_then_environment_then_default(monkeypatch) -> None:
    assert server.start_timeout() == 240.0
    monkeypatch.setenv(server.START_TIMEOUT_ENV, " 90 ")
    assert server.start_timeout() == 90.0
    assert server.start_timeout(12.5) == 12.5  # the argument wins


@pytest.mark.parametrize("raw", ["soon", "0", "-5", "nan", "inf"])
def test_start_timeout_refuses_what_is_not_a_positive_number(monkeypatch, raw: str) -> None:
    monkeypatch.setenv(server.START_TIMEOUT_ENV, raw)
    with pytest.raises(server.ServerStartError) as err:
        server.start_timeout()
    assert str(err.value) == (
        f"HUME_LS_START_TIMEOUT must be a number of seconds above 0, got {raw!r}"
    )


def test_the_template_applies_to_sqlite_in_the_data_folder_only(monkeypatch) -> None:
    assert prepared_db.applies(SQLITE)
    assert not prepared_db.applies({"DJANGO_DB": "default"})  # PostgreSQL
    assert not prepared_db.applies({**SQLITE, "LABEL_STUDIO_DATABASE_NAME": "/x.sqlite3"})
    for off in ("off", "0", "False", "no"):
        monkeypatch.setenv(prepared_db.TEMPLATE_SWITCH, off)
        assert not prepared_db.applies(SQLITE)
    monkeypatch.setenv(prepared_db.TEMPLATE_SWITCH, "on")
    assert prepared_db.applies(SQLITE)


def test_the_fingerprint_follows_what_migrations_read_and_the_executable(tmp_path) -> None:
    exe = tmp_path / "label-studio"
    exe.write_text("not a script\n")  # no interpreter line: its path, size and mtime count
    key = prepared_db.fingerprint(exe, {**SQLITE, "POSTGRE_PASSWORD": "one"})
    # settings that act per request (and secrets) share one template
    for other in ({"POSTGRE_PASSWORD": "two"}, {"DISABLE_SIGNUP_WITHOUT_LINK": "false"}):
        assert key == prepared_db.fingerprint(exe, {**SQLITE, **other})
    # what Label Studio's migrations read does not
    for other in (
        {"DJANGO_DB": "default"},
        {"LABEL_STUDIO_TASK_LOCK_TTL": "30"},
        {"FF_BACK_2070_INNER_ID_12052022_SHORT": "true"},
        {"FEATURE_FLAGS_FROM_FILE": "true"},
    ):
        assert key != prepared_db.fingerprint(exe, {**SQLITE, **other}), other
    exe.write_text("another build of it\n")
    assert key != prepared_db.fingerprint(exe, SQLITE)


def test_the_fingerprint_of_a_script_asks_its_interpreter(tmp_path) -> None:
    """Two scripts of one environment share a template; the versions come from that interpreter
    (the `hume` distribution is installed in this one)."""
    import sys

    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text(f"#!{sys.executable}\nprint(1)\n")
    second.write_text(f"#!{sys.executable}\nprint(2)\n")
    assert prepared_db.fingerprint(first, SQLITE) == prepared_db.fingerprint(second, SQLITE)


def test_seed_copies_the_template_into_a_private_file(tmp_path) -> None:
    template = tmp_path / "template.sqlite3"
    with sqlite3.connect(template) as db:
        db.execute("CREATE TABLE django_migrations (app TEXT, name TEXT)")
        db.executemany("INSERT INTO django_migrations VALUES (?, ?)", [("a", "1"), ("b", "2")])
    data_dir = tmp_path / "ls"
    data_dir.mkdir()
    prepared_db.seed(data_dir, template)
    copy = data_dir / prepared_db.DATABASE_FILE
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    with sqlite3.connect(copy) as db:
        assert db.execute("SELECT app, name FROM django_migrations").fetchall() == [
            ("a", "1"),
            ("b", "2"),
        ]
    assert sorted(p.name for p in data_dir.iterdir()) == [prepared_db.DATABASE_FILE]


def test_the_cache_follows_xdg(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert prepared_db.cache_dir() == tmp_path / "hume" / "label-studio-templates"
