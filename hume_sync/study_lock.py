"""One writing command at a time per study: an OS lock on ``STUDY/.hume-sync.lock``.

Why: two pulls that overlap can commit out of order. A slow pull that read Label Studio before a
newer one commits its older snapshot last, and an annotation created between the two reads is
then marked deleted although it still exists. Two setups at once can both create a project for
the same subset, two reveals can upload the same predictions twice, and two predicts spend the
same LLM calls twice. So every command that writes the study (``init``, ``setup``, ``pull``,
``predict``, ``close``, ``reveal``, ``demo``) holds this lock for its whole run; the second one
stops at once with a one-line message naming the command that holds it.

The lock is ``flock(2)`` on an open file: the kernel releases it when the holder exits, however it
exits (``kill -9`` included), so a crashed command never leaves the study locked. Read-only
commands (``status``, ``export``, ``leaderboard``) do not take it. The lock is per machine: it
does not protect a study folder shared over a network file system by two machines.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from hume_sync.errors import StudyBusyError

LOCK_NAME = ".hume-sync.lock"


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it ("pull, pid 123, since 10:02:03")."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 4096).decode("utf-8"))
        since = time.strftime("%H:%M:%S", time.localtime(float(info["since"])))
        return f"'hume-sync {info['command']}', pid {int(info['pid'])}, since {since}"
    return "another process"


@contextlib.contextmanager
def study_lock(study_dir: str | os.PathLike[str], command: str) -> Iterator[None]:
    """Hold the study's lock while the block runs; :class:`StudyBusyError` if it is taken."""
    path = Path(study_dir) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StudyBusyError(
            f"{study_dir}: cannot take the study's lock ({path}: {exc.strerror or exc}); give "
            "your user write access to the study folder, or run the command as its owner"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StudyBusyError(
                f"{study_dir}: another command is working on this study ({_holder(fd)}); "
                f"wait until it has finished, then run 'hume-sync {command}' again"
            ) from None
        record = {"command": command, "pid": os.getpid(), "since": time.time()}
        with contextlib.suppress(OSError):  # who holds it is for messages only (disk full...)
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock
