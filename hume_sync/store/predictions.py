"""Model and LLM answers (``predictions``) and their sealing commitments (``commitments``).

A sealed prediction is never silently overwritten; each commitment ``predict`` records is
appended, never updated (:mod:`hume_sync.sealing` makes and reads them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from hume_sync.errors import StoreError
from hume_sync.store.records import (
    CommitmentRow,
    PredictionCounts,
    PredictionRecord,
    dumps,
    now,
)
from hume_sync.store.sync_state import SyncStateStore


class PredictionStore(SyncStateStore):
    """Predictions and commitments."""

    def predictions(
        self, subset: str | None = None, *, model_version: str | None = None
    ) -> list[PredictionRecord]:
        sql = (
            "SELECT p.hume_id, p.model_version, p.answer, p.score, p.sealed, p.created_at "
            "FROM predictions p JOIN instances i ON i.hume_id = p.hume_id WHERE 1 = 1"
        )
        args: list[Any] = []
        if subset is not None:
            sql += " AND i.subset_key = ?"
            args.append(subset)
        if model_version is not None:
            sql += " AND p.model_version = ?"
            args.append(model_version)
        sql += " ORDER BY p.model_version, i.subset_key, i.sample_order"
        return [
            PredictionRecord(r[0], r[1], json.loads(r[2]), r[3], bool(r[4]), r[5])
            for r in self._conn.execute(sql, args).fetchall()
        ]

    def add_predictions(
        self, records: Iterable[PredictionRecord], *, replace: bool = False
    ) -> PredictionCounts:
        """Store predictions, unique per (hume_id, model_version).

        A sealed prediction is never silently overwritten: a different answer for it raises
        unless ``replace`` is true. Identical re-submissions count as unchanged.
        """
        added = replaced = unchanged = 0
        with self.transaction() as conn:
            for rec in records:
                ref = f"prediction {rec.model_version!r} for {rec.hume_id!r}"
                if not rec.model_version:
                    raise StoreError(f"{ref}: model_version is required")
                exists = conn.execute(
                    "SELECT 1 FROM instances WHERE hume_id = ?", (rec.hume_id,)
                ).fetchone()
                if exists is None:
                    raise StoreError(f"{ref}: unknown instance")
                if rec.score is not None and not math.isfinite(float(rec.score)):
                    raise StoreError(f"{ref}: score must be finite")
                answer = dumps(rec.answer)
                score = None if rec.score is None else float(rec.score)
                sealed = int(bool(rec.sealed))
                old = conn.execute(
                    "SELECT answer, score, sealed FROM predictions "
                    "WHERE hume_id = ? AND model_version = ?",
                    (rec.hume_id, rec.model_version),
                ).fetchone()
                if old is None:
                    conn.execute(
                        "INSERT INTO predictions (hume_id, model_version, answer, score, sealed, "
                        "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            rec.hume_id,
                            rec.model_version,
                            answer,
                            score,
                            sealed,
                            rec.created_at or now(),
                        ),
                    )
                    added += 1
                elif tuple(old) == (answer, score, sealed):
                    unchanged += 1
                else:
                    if old[2] and not replace:
                        raise StoreError(f"{ref}: sealed prediction differs; pass replace=True")
                    conn.execute(
                        "UPDATE predictions SET answer = ?, score = ?, sealed = ?, created_at = ? "
                        "WHERE hume_id = ? AND model_version = ?",
                        (
                            answer,
                            score,
                            sealed,
                            rec.created_at or now(),
                            rec.hume_id,
                            rec.model_version,
                        ),
                    )
                    replaced += 1
        return PredictionCounts(added, replaced, unchanged)

    def commitments(self, model_version: str | None = None) -> list[CommitmentRow]:
        """Recorded sealing commitments, oldest first (of one model, or of every model)."""
        sql = "SELECT seq, model_version, sha256, recorded_at, record FROM commitments"
        args: tuple[Any, ...] = ()
        if model_version is not None:
            sql += " WHERE model_version = ?"
            args = (model_version,)
        rows = self._conn.execute(sql + " ORDER BY seq", args).fetchall()
        return [CommitmentRow(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def add_commitment(
        self, model_version: str, sha256: str, record: Mapping[str, Any]
    ) -> CommitmentRow | None:
        """Append a commitment unless it equals the model's latest one (then None: no write)."""
        with self.transaction() as conn:
            last = conn.execute(
                "SELECT sha256 FROM commitments WHERE model_version = ? ORDER BY seq DESC LIMIT 1",
                (model_version,),
            ).fetchone()
            if last is not None and last[0] == sha256:
                return None
            cur = conn.execute(
                "INSERT INTO commitments (model_version, sha256, recorded_at, record) "
                "VALUES (?, ?, ?, ?)",
                (model_version, sha256, now(), dumps(dict(record))),
            )
            seq = int(cur.lastrowid or 0)
        return self.commitments(model_version)[-1] if seq else None
