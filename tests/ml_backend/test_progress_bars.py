"""Issue 11 item 14: progress bars only on terminals. Loading the packaged all-MiniLM-L6-v2
prints transformers' "Loading weights" bar; it must not reach stderr when stderr is a pipe or a
file (logs, CI), and still show when stderr is a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading

import pytest

from tests._paths import REPO_ROOT

pytestmark = pytest.mark.model

LOAD = (
    "from ml_backend.encoders import load_encoder\n"
    "enc = load_encoder('all-MiniLM-L6-v2')\n"
    "print(enc.encode(['a test sentence']).shape, flush=True)\n"
)


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    env["TRANSFORMERS_OFFLINE"] = "1"
    env.pop("HF_HUB_DISABLE_PROGRESS_BARS", None)
    return env


def test_no_loading_bar_when_stderr_is_not_a_terminal():
    proc = subprocess.run(
        [sys.executable, "-c", LOAD], env=_env(), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "(1, 384)" in proc.stdout
    assert "Loading weights" not in proc.stderr and "it/s]" not in proc.stderr, proc.stderr


def test_the_bar_still_shows_on_a_terminal():
    leader, follower = pty.openpty()
    # a terminal of 30 x 100 (a fresh pty has 0 columns, where tqdm draws nothing)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    seen: list[bytes] = []

    def drain() -> None:  # read as it comes: a full terminal buffer would block the child
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closes once the child is gone
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", LOAD],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
        )
        os.close(follower)
        out, _ = proc.communicate(timeout=600)
        reader.join(timeout=30)
    finally:
        os.close(leader)
    assert proc.returncode == 0 and "(1, 384)" in out
    assert b"Loading weights" in b"".join(seen)
