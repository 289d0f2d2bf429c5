"""A bounded JSON-lines log: appends one record per line and rotates before it grows too big.

Why: ``/webhook`` records every annotation event Label Studio sends. Unbounded, a chatty or
hostile sender fills the disk. Here the live file is rotated once it would pass ``max_bytes``
(``events.jsonl`` → ``events.jsonl.1`` → … → ``events.jsonl.<backups>``, the oldest dropped),
so the log never holds more than about ``(backups + 1) × max_bytes``. Appends and rotations take
an exclusive ``flock`` on a side file, so gunicorn workers in several processes never interleave
lines or rotate twice. Files are created owner-only (0600): events carry annotators' answers.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
DEFAULT_BACKUPS = 4

__all__ = ["DEFAULT_BACKUPS", "DEFAULT_MAX_BYTES", "EventLog"]


class EventLog:
    """Append JSON records to ``path`` with size-based rotation (see the module docstring).

    Args:
        path: the live file; rotated files and the lock file sit beside it.
        max_bytes: the size the live file never passes by an append (at least 1).
        backups: how many rotated files are kept (0: the live file is dropped instead).

    Raises:
        ValueError: when ``max_bytes`` is below 1 or ``backups`` below 0.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        backups: int = DEFAULT_BACKUPS,
    ) -> None:
        """Check the limits; nothing is created until the first append."""
        if max_bytes < 1 or backups < 0:
            raise ValueError("max_bytes must be ≥ 1 and backups ≥ 0")
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups

    def files(self) -> list[Path]:
        """List the log's files, oldest first (rotated ones, then the live file).

        Returns:
            The files that exist now.
        """
        rotated = [self._rotated(n) for n in range(self.backups, 0, -1)]
        return [p for p in [*rotated, self.path] if p.is_file()]

    def _rotated(self, n: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{n}")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path.with_name(f".{self.path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _rotate(self) -> None:
        if self.backups == 0:
            self.path.unlink(missing_ok=True)
            return
        self._rotated(self.backups).unlink(missing_ok=True)
        for n in range(self.backups - 1, 0, -1):
            if self._rotated(n).exists():
                os.replace(self._rotated(n), self._rotated(n + 1))
        os.replace(self.path, self._rotated(1))

    def append(self, record: Mapping[str, Any]) -> None:
        """Write ``record`` as one line (fsynced), rotating first if the file would grow too big.

        Args:
            record: a JSON-serialisable mapping, written with sorted keys.
        """
        line = (json.dumps(dict(record), ensure_ascii=False, sort_keys=True) + "\n").encode()
        with self._locked():
            with contextlib.suppress(FileNotFoundError):
                size = self.path.stat().st_size
                if size and size + len(line) > self.max_bytes:
                    self._rotate()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)

    def read(self) -> list[dict[str, Any]]:
        """Read every record still kept, oldest first.

        Returns:
            The records of the rotated files, then of the live file.
        """
        out: list[dict[str, Any]] = []
        for path in self.files():
            with path.open(encoding="utf-8") as fh:
                out.extend(json.loads(line) for line in fh if line.strip())
        return out
