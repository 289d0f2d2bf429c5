"""Issue 11 item 5: SQLite failures of the study store are one line each, and the store stays as
it was. Each failure is caused for real: another connection holding a lock; a folder or a file
the command cannot write (file modes, or, since root ignores modes, a read-only bind in a private
mount namespace when the tests run as root); a full disk (a small tmpfs in a private mount
namespace where allowed, and SQLite's ``max_page_count``, which gives the same SQLITE_FULL)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hume_sync.cli import main
from hume_sync.store import Store
from tests._paths import REPO_ROOT
from tests._studies import tiny_sts_study


def dump(study: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{study / 'study.sqlite'}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def make_study(parent: Path) -> Path:
    return tiny_sts_study(parent, "failures", 6)


@pytest.fixture
def study(tmp_path: Path) -> Path:
    return make_study(tmp_path)


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in err
    return lines[0]


def test_store_locked_by_another_writer(study, capsys, monkeypatch):
    monkeypatch.setattr("hume_sync.store.connection.BUSY_TIMEOUT_S", 0.5)
    before = dump(study)
    other = sqlite3.connect(study / "study.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program is writing
    try:
        assert main(["close", str(study), "--force"]) == 2
    finally:
        other.execute("ROLLBACK")
        other.close()
    line = one_line(capsys.readouterr().err)
    assert "study.sqlite is locked by another program" in line
    assert "run the command again; nothing was changed" in line
    assert dump(study) == before
    assert main(["close", str(study), "--force"]) == 0  # once free, the same command works


def test_exclusive_lock_is_not_called_a_broken_store(study, capsys, monkeypatch):
    monkeypatch.setattr("hume_sync.store.connection.BUSY_TIMEOUT_S", 0.5)
    other = sqlite3.connect(study / "study.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # not even readers get in
    try:
        assert main(["status", str(study)]) == 2
    finally:
        other.execute("ROLLBACK")
        other.close()
    line = one_line(capsys.readouterr().err)
    assert "is locked by another program" in line and "not a study store" not in line


def test_full_disk_rolls_back_with_one_line(study):
    """SQLITE_FULL through the store's own transaction (max_page_count caps the file)."""
    from hume_sync.errors import HumeError

    before = dump(study)
    with Store.open(study) as store:
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(Exception) as caught:
            store.set_meta({"study_name": "x" * 200_000})
    assert isinstance(caught.value, HumeError), repr(caught.value)  # a message, no trace
    message = str(caught.value)
    assert "\n" not in message
    assert "the disk holding" in message and "is full; free some space" in message
    assert dump(study) == before


def _can_unshare_mounts() -> bool:
    """Root in a private mount namespace (for read-only binds and a small tmpfs)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && umount /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


def _cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


def run_cli_with_read_only(
    argv: list[str], read_only: list[Path]
) -> subprocess.CompletedProcess[str]:
    """Run hume-sync with ``read_only`` paths not writable for it.

    As a normal user, file modes do it. Root ignores modes, so there the paths are bound
    read-only onto themselves in a private mount namespace (nothing outside the command sees
    it); where that is not allowed the test is skipped.
    """
    command = [sys.executable, "-m", "hume_sync.cli", *argv]
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in read_only}
        for p in read_only:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            return subprocess.run(command, env=_cli_env(), capture_output=True, text=True)
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
    if not _can_unshare_mounts():
        pytest.skip("root, and no private mount namespace for a read-only bind")
    binds = " && ".join(f"mount --bind {p} {p} && mount -o remount,bind,ro {p}" for p in read_only)
    script = f"{binds} && exec {' '.join(command)}"
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", script], env=_cli_env(), capture_output=True, text=True
    )


def test_read_only_study_folder(study):
    before = dump(study)
    proc = run_cli_with_read_only(["close", str(study), "--force"], [study])
    assert proc.returncode == 2, proc.stderr
    line = one_line(proc.stderr)
    assert "cannot take the study's lock" in line and "write access to the study folder" in line
    assert dump(study) == before
    proc = run_cli_with_read_only(["status", str(study)], [study])  # reading needs no writes
    assert proc.returncode == 0, proc.stderr


def test_read_only_store_file(study):
    before = dump(study)
    proc = run_cli_with_read_only(["close", str(study), "--force"], [study / "study.sqlite"])
    assert proc.returncode == 2, proc.stderr
    line = one_line(proc.stderr)
    assert "study.sqlite cannot be written (the file or its folder is read-only)" in line
    assert "nothing was changed" in line
    assert dump(study) == before


@pytest.mark.skipif(not _can_unshare_mounts(), reason="cannot mount a tmpfs here (needs root)")
def test_full_disk_through_the_cli(study, tmp_path):
    """A real full file system: a 512 KiB tmpfs in a private mount namespace, filled up."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    before = dump(study)
    script = (
        f"mount -t tmpfs -o size=512k tmpfs {mnt} && cp -a {study} {mnt}/study && "
        f"(dd if=/dev/zero of={mnt}/fill bs=1k 2>/dev/null || true) && "
        f"{sys.executable} -m hume_sync.cli close {mnt}/study --force; rc=$?; "
        f"cp {mnt}/study/study.sqlite {tmp_path}/after.sqlite; exit $rc"
    )
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        env=_cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    line = one_line(proc.stderr)
    assert "is full; free some space and run the command again; nothing was changed" in line
    after = tmp_path / "after"
    after.mkdir()
    (tmp_path / "after.sqlite").rename(after / "study.sqlite")
    assert dump(after) == before
