"""Model scores and facts in the study store's ``meta``: the keys ``predict`` writes them under
and the reader the report uses.

A rule shared by a command (``predict`` writes) and the report (``export`` and the dashboard
read), so it lives below both: the report never imports a command.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from hume_sync.store import Store, dumps, gold

#: ``meta`` key prefix of each model's score on a subset (``model_score/<model_version>/<subset>``).
SCORE_PREFIX = "model_score/"
#: ``meta`` key prefix of what each model said of itself (``ml_backend.encoders.model_facts``).
MODEL_FACTS_PREFIX = "model_meta/"


def instances_digest(store: Store, subset: str) -> str:
    """sha256 of the subset's instances and gold: a stored score is only valid for these."""
    golds = gold(store, subset)
    rows = [(i.hume_id, i.content, golds.get(i.hume_id)) for i in store.instances(subset)]
    return hashlib.sha256(dumps(rows).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ModelSubsetScore:
    """A model's mteb score on one subset, as recorded by ``predict``."""

    model_version: str
    subset: str
    task_type: str
    main_score_name: str
    main_score: float | None
    scores: dict[str, Any] | None
    method: str
    n_items: int
    instances_sha256: str
    stale: bool = False


def model_subset_scores(
    store: Store, *, include_stale: bool = False
) -> dict[str, dict[str, ModelSubsetScore]]:
    """``{model_version: {subset_key: ModelSubsetScore}}`` for the export step.

    A score is *stale* when the subset's instances or gold changed after it was computed (a
    forced re-init); stale scores are left out unless ``include_stale``.
    """
    digests: dict[str, str] = {}
    out: dict[str, dict[str, ModelSubsetScore]] = {}
    known = {s.key for s in store.subsets()}
    for key, value in sorted(store.meta().items()):
        if not key.startswith(SCORE_PREFIX):
            continue
        rec = json.loads(value)
        subset = rec["subset"]
        if subset not in known:
            continue
        if subset not in digests:
            digests[subset] = instances_digest(store, subset)
        stale = rec.get("instances_sha256") != digests[subset]
        if stale and not include_stale:
            continue
        score = ModelSubsetScore(
            model_version=rec["model_version"],
            subset=subset,
            task_type=rec["task_type"],
            main_score_name=rec["main_score_name"],
            main_score=rec["main_score"],
            scores=rec.get("scores"),
            method=rec["method"],
            n_items=int(rec["n_items"]),
            instances_sha256=rec.get("instances_sha256", ""),
            stale=stale,
        )
        out.setdefault(score.model_version, {})[subset] = score
    return out
