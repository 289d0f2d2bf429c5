"""Each model's mteb score per subset (``model_scores``) and what each model said of itself
(``model_facts``), as ``predict`` writes them and reports read them (schema 7; before it,
``meta`` rows under ``model_score/`` and ``model_meta/`` prefixes).

A score is only valid for the instances and gold it was computed on: it keeps their digest
(:func:`instances_digest`), and :meth:`ModelScoreStore.model_subset_scores` calls a score whose
digest no longer matches *stale* (a forced re-init changed the subset).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from hume_sync.store.instances import gold
from hume_sync.store.predictions import PredictionStore
from hume_sync.store.records import ModelScoreRecord, ModelSubsetScore, dumps

_SCORE_COLUMNS = (
    "model_version, subset_key, task_type, main_score_name, main_score, scores, method, "
    "n_items, instances_sha256, inputs_sha256"
)


def instances_digest(store: PredictionStore, subset: str) -> str:
    """sha256 of the subset's instances and gold: a stored score is only valid for these."""
    golds = gold(store, subset)
    rows = [(i.hume_id, i.content, golds.get(i.hume_id)) for i in store.instances(subset)]
    return hashlib.sha256(dumps(rows).encode("utf-8")).hexdigest()


def _row(rec: ModelScoreRecord) -> tuple[Any, ...]:
    return (
        rec.model_version,
        rec.subset,
        rec.task_type,
        rec.main_score_name,
        None if rec.main_score is None else float(rec.main_score),
        None if rec.scores is None else dumps(rec.scores),
        rec.method,
        int(rec.n_items),
        rec.instances_sha256,
        rec.inputs_sha256,
    )


class ModelScoreStore(PredictionStore):
    """Model scores per subset and model facts."""

    def model_score_records(self, model_version: str | None = None) -> list[ModelScoreRecord]:
        """The stored score records (of one model, or of all), by model then subset."""
        sql = f"SELECT {_SCORE_COLUMNS} FROM model_scores"
        args: tuple[Any, ...] = ()
        if model_version is not None:
            sql += " WHERE model_version = ?"
            args = (model_version,)
        rows = self._conn.execute(sql + " ORDER BY model_version, subset_key", args).fetchall()
        return [
            ModelScoreRecord(
                r[0], r[1], r[2], r[3], r[4], None if r[5] is None else json.loads(r[5]), *r[6:]
            )
            for r in rows
        ]

    def set_model_scores(self, records: Iterable[ModelScoreRecord]) -> int:
        """Upsert score records in one transaction; returns how many changed (0: no write)."""
        wanted = {(r.model_version, r.subset): _row(r) for r in records}
        if not wanted:
            return 0
        current = {
            (r[0], r[1]): tuple(r)
            for r in self._conn.execute(f"SELECT {_SCORE_COLUMNS} FROM model_scores").fetchall()
        }
        changed = [row for key, row in wanted.items() if current.get(key) != row]
        if changed:
            with self.transaction() as conn:
                conn.executemany(
                    f"INSERT OR REPLACE INTO model_scores ({_SCORE_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    changed,
                )
        return len(changed)

    def model_subset_scores(
        self, *, include_stale: bool = False
    ) -> dict[str, dict[str, ModelSubsetScore]]:
        """``{model_version: {subset_key: ModelSubsetScore}}`` of the study's subsets.

        A score is *stale* when the subset's instances or gold changed after it was computed (a
        forced re-init); stale scores are left out unless ``include_stale``. Scores of subsets
        no longer in the study are left out.
        """
        digests: dict[str, str] = {}
        out: dict[str, dict[str, ModelSubsetScore]] = {}
        known = {s.key for s in self.subsets()}
        for rec in self.model_score_records():
            if rec.subset not in known:
                continue
            if rec.subset not in digests:
                digests[rec.subset] = instances_digest(self, rec.subset)
            stale = rec.instances_sha256 != digests[rec.subset]
            if stale and not include_stale:
                continue
            out.setdefault(rec.model_version, {})[rec.subset] = ModelSubsetScore(
                model_version=rec.model_version,
                subset=rec.subset,
                task_type=rec.task_type,
                main_score_name=rec.main_score_name,
                main_score=rec.main_score,
                scores=rec.scores,
                method=rec.method,
                n_items=int(rec.n_items),
                instances_sha256=rec.instances_sha256,
                stale=stale,
            )
        return out

    def model_facts(self) -> dict[str, dict[str, Any]]:
        """What each model said of itself when ``predict`` ran it (``model_facts``), by model."""
        rows = self._conn.execute("SELECT model_version, facts FROM model_facts").fetchall()
        return {r[0]: json.loads(r[1]) for r in rows}

    def set_model_facts(self, model_version: str, facts: Mapping[str, Any]) -> int:
        """Record a model's facts; returns 1 if they changed, 0 if they were already so."""
        value = dumps(dict(facts))
        old = self._conn.execute(
            "SELECT facts FROM model_facts WHERE model_version = ?", (model_version,)
        ).fetchone()
        if old is not None and old[0] == value:
            return 0
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO model_facts (model_version, facts) VALUES (?, ?)",
                (model_version, value),
            )
        return 1
