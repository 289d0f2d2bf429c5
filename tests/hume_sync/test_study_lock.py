"""Issue 11 item 3 (fast part): one writing command at a time per study, released by the OS.

The end-to-end proof with two real pulls against a real Label Studio is in
tests/integration/test_pull_lock_e2e.py; here another real process holds the lock.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hume_sync.cli import main
from tests._paths import REPO_ROOT
from tests._studies import tiny_sts_study

LOCK_NAME = ".hume-sync.lock"


@pytest.fixture
def study(tmp_path: Path) -> Path:
    return tiny_sts_study(tmp_path, "lock", 4)


def hold_lock(study: Path, command: str = "pull") -> subprocess.Popen[str]:
    """Another process that holds the study's lock (flock on STUDY/.hume-sync.lock, with the
    holder's record in it, as a running hume-sync command does), then sleeps."""
    code = textwrap.dedent(
        f"""
        import fcntl, json, os, time
        fd = os.open({str(study / LOCK_NAME)!r}, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({{"command": {command!r}, "pid": os.getpid(),
                                  "since": time.time()}}).encode())
        print("locked", flush=True)
        time.sleep(600)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


@pytest.mark.parametrize(
    "argv",
    [["close", "--force"], ["pull"], ["setup"], ["reveal", "--force"], ["predict"]],
)
def test_second_writer_is_refused_in_one_line_and_the_store_is_unchanged(study, capsys, argv):
    before = (study / "study.sqlite").read_bytes()
    holder = hold_lock(study)
    try:
        assert main([argv[0], str(study), *argv[1:]]) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "another command is working on this study ('hume-sync pull', pid" in err[0]
    assert f"then run 'hume-sync {argv[0]}' again" in err[0]
    assert (study / "study.sqlite").read_bytes() == before


def test_registering_an_annotator_waits_for_the_lock_too(study, capsys, monkeypatch):
    """`annotators add` writes the study (slots, servers): one writer at a time."""
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "k" * 40)
    before = (study / "study.sqlite").read_bytes()
    holder = hold_lock(study)
    try:
        argv = ["annotators", "add", str(study), "a@lab.org", "--url", "http://127.0.0.1:9"]
        assert main(argv) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another command is working on this study" in err[0], err
    assert (study / "study.sqlite").read_bytes() == before


def test_a_killed_holder_leaves_the_study_unlocked(study, capsys):
    holder = hold_lock(study)
    assert main(["close", str(study), "--force"]) == 2
    os.kill(holder.pid, signal.SIGKILL)  # no clean-up code runs: the kernel drops the lock
    holder.wait()
    assert main(["close", str(study), "--force"]) == 0
    assert "study closed at" in capsys.readouterr().out


def test_init_takes_the_lock_and_read_only_commands_do_not(study, tmp_path, capsys):
    holder = hold_lock(study, "predict")
    try:
        spec = str(tmp_path / "spec.yaml")
        assert main(["init", str(study), "--spec", spec]) == 2  # a re-init writes the store
        assert "'hume-sync predict'" in capsys.readouterr().err
        assert main(["status", str(study)]) == 0  # reading needs no lock
        assert main(["export", str(study), "--out", str(tmp_path / "out")]) == 0
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_file_is_private_and_reused(study):
    with_lock = study / LOCK_NAME
    assert main(["close", str(study), "--force"]) == 0
    assert with_lock.is_file() and with_lock.stat().st_mode & 0o777 == 0o600
    started = time.time()
    assert main(["close", str(study), "--force"]) == 0  # a leftover file is not a held lock
    assert time.time() - started < 5
