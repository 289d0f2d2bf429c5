"""A content-addressed, on-disk embedding cache: each text is embedded once per model and context.

Why: a study embeds the same texts for several tasks, models are slow on CPU, and a long run can
be interrupted. Rows are keyed by ``(model, variant, sha256(text))``:

- ``model`` is ``"<name>|<revision>"`` (different weights never share rows);
- ``variant`` is the *encoding context* that changes the vector for the same text: mteb's prompt
  type (plain / query / document) and the prompt text the encoder resolves for the task. Tasks
  that resolve to the same context (all prompt-free symmetric tasks of a model) share rows, so a
  text used by classification, clustering and STS is embedded once.

:meth:`EmbeddingCache.ensure` embeds what is missing and commits it chunk by chunk (one
transaction each), so an interrupted run keeps what it finished and a rerun resumes.

Speed and determinism: texts still missing are sorted by token length (longest first; ties by
characters, then hash) and encoded in calls of exactly one batch (the encoder's ``batch_size``),
so every batch holds texts of nearly equal token length and little padding is computed; on a
multilingual study this beats one big ``encode`` call, which batches by character length. The
texts left after an interruption are a suffix of that order starting at a chunk boundary (a
multiple of the call size), so a resumed run encodes the same batches as an uninterrupted one and
stores the same bits. Embeddings batched differently from mteb's own encode calls differ from
mteb's by ~1e-7 (padding); the parity test in ``tests/ml_backend/test_predict.py`` shows the task
scores stay within 1e-6 of mteb's.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ml_backend.encoders import Encoder, Role, mteb_prompt_type
from scoring.errors import HumeError

CACHE_SCHEMA_VERSION = 1
DEFAULT_CHUNK_SIZE = 1024  # texts per committed transaction (a multiple of the call size)
DEFAULT_CALL_SIZE = 32  # texts per encode call when the encoder has no batch_size
_SQL_BATCH = 500  # host parameters per SELECT ... IN (...)

__all__ = [
    "CACHE_SCHEMA_VERSION",
    "DEFAULT_CALL_SIZE",
    "DEFAULT_CHUNK_SIZE",
    "EmbeddingCache",
    "EmbeddingCacheError",
    "EncodeRequest",
    "EnsureStats",
    "ProgressHook",
    "describe",
    "length_key",
    "model_key",
    "text_key",
    "variant_key",
]


class EmbeddingCacheError(HumeError, RuntimeError):
    """The cache file is unusable (not a cache, newer schema) or an encoder misbehaved."""


def text_key(text: str) -> str:
    """Give the content address of a text: hex sha256 of its UTF-8 bytes.

    Args:
        text: the text, exactly as it is embedded.

    Returns:
        The hex digest.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def length_key(encoder: Encoder, texts: Sequence[str]) -> dict[str, int]:
    """Measure each text in the model's tokens (in characters for encoders without a tokenizer).

    Why tokens: the texts are encoded in batches that are padded to their longest member, and
    characters per token vary by script (a Cyrillic sentence has ~2x the tokens of a Latin one of
    the same length in MiniLM's vocabulary). Batches of equal token length waste no padding.

    Args:
        encoder: the model; its ``model.tokenizer`` is used when it has one (truncated at the
            model's ``max_seq_length``).
        texts: the texts to measure.

    Returns:
        The length of each text, by text (characters when the tokenizer fails).
    """
    model = getattr(encoder, "model", None)
    tokenizer = getattr(model, "tokenizer", None)
    if texts and callable(tokenizer):
        try:
            limit = getattr(model, "max_seq_length", None)
            ids = tokenizer(
                list(texts),
                add_special_tokens=True,
                truncation=limit is not None,
                max_length=limit,
            )["input_ids"]
            return {t: len(i) for t, i in zip(texts, ids, strict=True)}
        except Exception:  # any tokenizer trouble: characters are a fine fallback
            pass
    return {t: len(t) for t in texts}


def model_key(encoder: Encoder) -> str:
    """Give the cache identity of an encoder's weights: ``"<name>|<revision>"``.

    Args:
        encoder: the model.

    Returns:
        The key its rows are stored under.
    """
    return f"{encoder.name}|{encoder.revision or ''}"


def variant_key(
    encoder: Encoder,
    *,
    role: Role | None,
    task_type: str | None,
    task_name: str | None,
) -> str:
    """Key the encoding context of a call: texts embedded under equal keys get equal vectors.

    An encoder may define ``cache_variant(role=, task_type=, task_name=)``. Encoders with
    ``prompt_for`` (sentence-transformers models) are keyed by prompt type and resolved prompt,
    so prompt-free tasks share rows. Any other encoder is keyed by role, task type and task name
    (safe: no sharing across tasks).

    Args:
        encoder: the model.
        role: ``"query"``, ``"passage"`` or None.
        task_type: mteb's type name of the task.
        task_name: the mteb task's name.

    Returns:
        The variant key.
    """
    custom = getattr(encoder, "cache_variant", None)
    if callable(custom):
        return str(custom(role=role, task_type=task_type, task_name=task_name))
    prompt_type = mteb_prompt_type(role) or "plain"
    prompt_for = getattr(encoder, "prompt_for", None)
    if callable(prompt_for):
        prompt = prompt_for(role=role, task_type=task_type, task_name=task_name)
        digest = "" if prompt is None else hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]
        return f"{prompt_type}|prompt={digest}"
    return f"{prompt_type}|type={task_type or ''}|task={task_name or ''}"


@dataclass(frozen=True)
class EncodeRequest:
    """Texts to embed in one encoding context (what one mteb encode call would be).

    Attributes:
        texts: the texts, in mteb's order.
        role: ``"query"``, ``"passage"`` or None.
        task_type: mteb's type name of the task.
        task_name: the mteb task's name.
    """

    texts: tuple[str, ...]
    role: Role | None = None
    task_type: str | None = None
    task_name: str | None = None


@dataclass
class EnsureStats:
    """What :meth:`EmbeddingCache.ensure` did: distinct texts asked for, found, computed.

    Attributes:
        requested: distinct texts asked for, per variant.
        cached: those already in the cache.
        computed: those embedded now.
        encode_calls: encode calls made.
        computed_texts: per variant, the texts embedded now.
    """

    requested: int = 0
    cached: int = 0
    computed: int = 0
    encode_calls: int = 0
    #: variant → the texts embedded for it (the benchmark times a bare encode over these)
    computed_texts: dict[str, list[str]] = field(default_factory=dict)

    def merge(self, other: EnsureStats) -> None:
        """Add another run's counts and texts to these.

        Args:
            other: the statistics to add.
        """
        self.requested += other.requested
        self.cached += other.cached
        self.computed += other.computed
        self.encode_calls += other.encode_calls
        for variant, texts in other.computed_texts.items():
            self.computed_texts.setdefault(variant, []).extend(texts)


ProgressHook = Callable[[int], None]


class EmbeddingCache:
    """SQLite file of float vectors by (model, variant, text hash); safe to share by processes.

    One connection per instance, guarded by a lock (the Flask app may call from threads).

    Args:
        path: the SQLite file; created (with its directory) when missing.

    Raises:
        EmbeddingCacheError: when the file is not an embedding cache or has a newer schema.
    """

    def __init__(self, path: str | Path) -> None:
        """Open the file and create or check its schema."""
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._init_schema()
        except sqlite3.DatabaseError as exc:
            raise EmbeddingCacheError(f"{self.path}: not an embedding cache ({exc})") from None

    def _init_schema(self) -> None:
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS cache_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        row = self._conn.execute("SELECT value FROM cache_meta WHERE key = 'schema'").fetchone()
        if row is not None and int(row[0]) > CACHE_SCHEMA_VERSION:
            raise EmbeddingCacheError(
                f"{self.path}: cache schema v{row[0]} is newer than this hume "
                f"(v{CACHE_SCHEMA_VERSION})"
            )
        self._conn.execute(
            """CREATE TABLE IF NOT EXISTS embeddings (
                model TEXT NOT NULL,
                variant TEXT NOT NULL,
                text_sha256 TEXT NOT NULL,
                dim INTEGER NOT NULL,
                dtype TEXT NOT NULL,
                vector BLOB NOT NULL,
                PRIMARY KEY (model, variant, text_sha256)
            ) WITHOUT ROWID"""
        )
        self._conn.execute(
            "INSERT OR IGNORE INTO cache_meta (key, value) VALUES ('schema', ?)",
            (str(CACHE_SCHEMA_VERSION),),
        )

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EmbeddingCache:
        """Use the cache in a ``with`` block, closed at its end."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the cache, whether the block raised or not."""
        self.close()

    # ---- raw access

    def count(self, model: str | None = None) -> int:
        """Count the rows in the cache.

        Args:
            model: a :func:`model_key` to count only its rows; None counts all.

        Returns:
            The number of rows.
        """
        with self._lock:
            if model is None:
                row = self._conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()
            else:
                row = self._conn.execute(
                    "SELECT COUNT(*) FROM embeddings WHERE model = ?", (model,)
                ).fetchone()
        return int(row[0])

    def get_many(self, model: str, variant: str, keys: Iterable[str]) -> dict[str, np.ndarray]:
        """Read the cached vectors among ``keys``.

        Args:
            model: the :func:`model_key`.
            variant: the :func:`variant_key`.
            keys: text hashes (:func:`text_key`).

        Returns:
            The vector per key found; missing keys are absent.
        """
        wanted = list(dict.fromkeys(keys))
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(wanted), _SQL_BATCH):
                part = wanted[start : start + _SQL_BATCH]
                marks = ",".join("?" * len(part))
                rows = self._conn.execute(
                    "SELECT text_sha256, dim, dtype, vector FROM embeddings "
                    f"WHERE model = ? AND variant = ? AND text_sha256 IN ({marks})",
                    (model, variant, *part),
                ).fetchall()
                for key, dim, dtype, blob in rows:
                    out[key] = np.frombuffer(blob, dtype=np.dtype(dtype)).reshape(int(dim)).copy()
        return out

    def put_many(self, model: str, variant: str, items: Iterable[tuple[str, np.ndarray]]) -> int:
        """Store vectors in one transaction (all or nothing).

        Args:
            model: the :func:`model_key`.
            variant: the :func:`variant_key`.
            items: ``(text hash, vector)`` pairs; a vector is 1-D.

        Returns:
            How many rows were written.

        Raises:
            EmbeddingCacheError: when an item is not a vector (nothing is written).
        """
        rows = []
        for key, vector in items:
            vec = np.ascontiguousarray(np.asarray(vector))
            if vec.ndim != 1:
                raise EmbeddingCacheError(f"embedding of {key[:12]}… is not a vector")
            rows.append((model, variant, key, int(vec.shape[0]), vec.dtype.str, vec.tobytes()))
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO embeddings (model, variant, text_sha256, dim, dtype, "
                    "vector) VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        return len(rows)

    # ---- encoder-facing

    def ensure(
        self,
        encoder: Encoder,
        requests: Sequence[EncodeRequest],
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_progress: ProgressHook | None = None,
        on_plan: Callable[[int], None] | None = None,
    ) -> EnsureStats:
        """Embed every text of ``requests`` that the cache lacks; each chunk is committed.

        Requests that resolve to the same variant are merged, so a text is embedded once per
        model and context whatever the number of tasks that use it.

        Args:
            encoder: the model.
            requests: the texts, grouped as mteb's encode calls.
            chunk_size: texts per committed transaction (rounded up to a multiple of the
                encoder's batch size).
            on_progress: told ``k`` after every encode call of ``k`` texts.
            on_plan: told once how many texts will be embedded.

        Returns:
            How many distinct texts were asked for, found and computed, and in how many calls.

        Raises:
            ValueError: when ``chunk_size`` is below 1.
            EmbeddingCacheError: when the encoder returns the wrong shape, NaN or inf.
        """
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        mkey = model_key(encoder)
        plans: dict[str, tuple[EncodeRequest, dict[str, str]]] = {}
        for req in requests:
            variant = variant_key(
                encoder, role=req.role, task_type=req.task_type, task_name=req.task_name
            )
            _, texts = plans.setdefault(variant, (req, {}))
            for text in req.texts:
                texts.setdefault(text_key(text), text)
        stats = EnsureStats()
        todo: list[tuple[str, EncodeRequest, list[tuple[str, str]]]] = []
        for variant, (req, texts) in plans.items():
            present = self._present(mkey, variant, texts)
            pending = [(k, t) for k, t in texts.items() if k not in present]
            size = length_key(encoder, [t for _, t in pending])
            missing = sorted(pending, key=lambda kt: (-size[kt[1]], -len(kt[1]), kt[0]))
            stats.requested += len(texts)
            stats.cached += len(texts) - len(missing)
            if missing:
                todo.append((variant, req, missing))
        if on_plan is not None:
            on_plan(sum(len(m) for _, _, m in todo))
        call = max(1, int(getattr(encoder, "batch_size", None) or DEFAULT_CALL_SIZE))
        chunk_size = -(-chunk_size // call) * call  # chunk boundaries fall on call boundaries
        for variant, req, missing in todo:
            for start in range(0, len(missing), chunk_size):
                chunk = missing[start : start + chunk_size]
                parts = []
                for at in range(0, len(chunk), call):
                    batch = [t for _, t in chunk[at : at + call]]
                    vectors = np.asarray(
                        encoder.encode(
                            batch, role=req.role, task_type=req.task_type, task_name=req.task_name
                        )
                    )
                    stats.encode_calls += 1
                    if vectors.ndim != 2 or vectors.shape[0] != len(batch):
                        raise EmbeddingCacheError(
                            f"encoder {encoder.name!r} returned {vectors.shape} "
                            f"for {len(batch)} texts"
                        )
                    if not np.isfinite(vectors).all():
                        raise EmbeddingCacheError(f"encoder {encoder.name!r} returned NaN or inf")
                    parts.append(vectors)
                    if on_progress is not None:
                        on_progress(len(batch))
                rows = np.concatenate(parts)
                self.put_many(
                    mkey, variant, ((k, v) for (k, _), v in zip(chunk, rows, strict=True))
                )
                stats.computed += len(chunk)
                stats.computed_texts.setdefault(variant, []).extend(t for _, t in chunk)
        return stats

    def _present(self, model: str, variant: str, texts: Mapping[str, str]) -> set[str]:
        keys = list(texts)
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(keys), _SQL_BATCH):
                part = keys[start : start + _SQL_BATCH]
                marks = ",".join("?" * len(part))
                found.update(
                    r[0]
                    for r in self._conn.execute(
                        "SELECT text_sha256 FROM embeddings WHERE model = ? AND variant = ? "
                        f"AND text_sha256 IN ({marks})",
                        (model, variant, *part),
                    )
                )
        return found

    def lookup(
        self,
        encoder: Encoder,
        texts: Sequence[str],
        *,
        role: Role | None = None,
        task_type: str | None = None,
        task_name: str | None = None,
    ) -> np.ndarray:
        """Read the rows for ``texts`` (in order) from the cache; all must have been ensured.

        Args:
            encoder: the model.
            texts: the texts, in the order of the rows returned.
            role: the role they were embedded with.
            task_type: mteb's type name of the task.
            task_name: the mteb task's name.

        Returns:
            One row per text (a 0×0 array for no texts).

        Raises:
            EmbeddingCacheError: when a text is not in the cache (call :meth:`ensure` first).
        """
        variant = variant_key(encoder, role=role, task_type=task_type, task_name=task_name)
        keys = [text_key(t) for t in texts]
        found = self.get_many(model_key(encoder), variant, keys)
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in found]
        if missing:
            raise EmbeddingCacheError(
                f"{len(missing)} text(s) not in the cache for {encoder.name!r} ({variant}); "
                "call ensure() first"
            )
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def embed(
        self,
        encoder: Encoder,
        texts: Sequence[str],
        *,
        role: Role | None = None,
        task_type: str | None = None,
        task_name: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> np.ndarray:
        """Embed ``texts`` through the cache: ensure, then look up (an ``Encoder``-like call).

        Args:
            encoder: the model.
            texts: the texts, in the order of the rows returned.
            role: the role to embed them with.
            task_type: mteb's type name of the task.
            task_name: the mteb task's name.
            chunk_size: texts per committed transaction.

        Returns:
            One row per text.
        """
        request = EncodeRequest(tuple(texts), role, task_type, task_name)
        self.ensure(encoder, [request], chunk_size=chunk_size)
        return self.lookup(encoder, texts, role=role, task_type=task_type, task_name=task_name)


def describe(stats: EnsureStats) -> dict[str, Any]:
    """Summarise :class:`EnsureStats` as JSON-friendly data (without the text lists).

    Args:
        stats: what an ensure did.

    Returns:
        The four counts by name.
    """
    return {
        "requested": stats.requested,
        "cached": stats.cached,
        "computed": stats.computed,
        "encode_calls": stats.encode_calls,
    }
