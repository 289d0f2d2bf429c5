"""A persistent cache of model replies, so that re-running an annotation costs nothing.

Keyed by everything that decides the reply: backend endpoint, model, generation settings,
the full messages and the response format. Only successful replies are stored (an error is
retried on the next run); each is committed at once, so an interrupted run keeps its work.
SQLite in WAL mode: safe for the worker threads of one run and for several processes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .client import Completion

CACHE_FILE = "llm_cache.sqlite"
_KEY_VERSION = 1

__all__ = ["CACHE_FILE", "ReplyCache", "cache_key"]


def cache_key(
    *,
    endpoint: str,
    settings: Mapping[str, Any],
    messages: Sequence[Mapping[str, str]],
    response_format: Mapping[str, Any] | None,
) -> str:
    """Key a request by the sha256 of its canonical JSON (the API key is never part of it).

    Args:
        endpoint: the backend's endpoint (base URL, or the in-process model's name).
        settings: the model and generation settings sent with the request.
        messages: the chat messages, in order.
        response_format: the JSON schema or mode asked of the reply; None for free text.

    Returns:
        The hex digest, the same for the same request in any process.
    """
    payload = {
        "v": _KEY_VERSION,
        "endpoint": endpoint,
        "settings": dict(settings),
        "messages": [dict(m) for m in messages],
        "response_format": dict(response_format) if response_format else None,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ReplyCache:
    """``get``/``put`` of :class:`Completion` by :func:`cache_key`, in ``directory``.

    Args:
        directory: where the SQLite file (:data:`CACHE_FILE`) is kept; created when missing.
    """

    def __init__(self, directory: str | Path) -> None:
        """Open (or create) the cache file and its table; count hits and misses from zero."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / CACHE_FILE
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                "endpoint TEXT NOT NULL, created_at REAL NOT NULL, completion TEXT NOT NULL)"
            )
            self._conn.commit()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        """Name the cache by its directory."""
        return f"ReplyCache({str(self.directory)!r})"

    def get(self, key: str) -> Completion | None:
        """Look up a stored reply, counting a hit or a miss.

        Args:
            key: the request's :func:`cache_key`.

        Returns:
            The stored completion, or None when the request was never answered successfully.
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT completion FROM replies WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return Completion.from_cache(json.loads(row[0]))

    def put(self, key: str, completion: Completion, *, model: str, endpoint: str) -> None:
        """Store a successful reply, committed at once so an interrupted run keeps it.

        Args:
            key: the request's :func:`cache_key`.
            completion: the reply to keep.
            model: the model's name, kept beside the reply for a reader of the file.
            endpoint: the backend's endpoint, kept likewise.
        """
        data = json.dumps(completion.to_cache(), ensure_ascii=False)
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO replies (key, model, endpoint, created_at, completion) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, model, endpoint, time.time(), data),
            )
            self._conn.commit()

    def __len__(self) -> int:
        """Count the stored replies."""
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ReplyCache:
        """Use the cache in a ``with`` block, closed at its end."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the cache, whether the block raised or not."""
        self.close()
