"""`hume-sync init`: load and sample a study from its spec and write it to the store in one
transaction (idempotent). The planning itself is :mod:`hume_sync.study.planning`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import hume_sync.task_types  # noqa: F401  (registers the types the spec and planning ask for)
from hume_sync.store import (
    SPEC_NAME,
    STORE_NAME,
    Store,
    SubsetSummary,
    apply_plans,
    dumps,
    refuse_another_spec,
)
from hume_sync.study.context import study_embedding_cache
from hume_sync.study.planning import Loader, load_subset, plan_study
from hume_sync.study.spec import StudySpec, load_spec


@dataclass
class InitSummary:
    """What ``init_from_spec`` did; ``written`` is the number of rows inserted/updated/deleted."""

    study: str
    spec_hash: str
    created: bool
    written: int
    subsets: list[SubsetSummary] = field(default_factory=list)


def init_from_spec(
    study_dir: str | Path,
    spec: StudySpec | None = None,
    *,
    force: bool = False,
    loader: Loader = load_subset,
) -> InitSummary:
    """Load, sample and write a study; idempotent.

    Data is loaded and sampled before the store is touched, then written in one transaction.
    Running it again with the same spec and data writes nothing. A store initialised from a
    different spec (or data that changed since) is refused unless ``force``; forcing updates the
    rows, and removes instances no longer sampled, but never ones that already have annotations.
    On a store migrated from schema 1 the same spec writes only what that schema lacked: the
    source positions (ids, references and everything else stay as they are).
    """
    study_dir = Path(study_dir)
    if spec is None:
        spec = load_spec(study_dir / SPEC_NAME)
    with Store.open(study_dir / STORE_NAME) as store:
        old_hash = store.study_meta().spec_hash
        refuse_another_spec(store, spec.spec_hash, force=force)
        # A type that runs models while sampling (retrieval's pools) embeds through the study's
        # cache, where predict finds the texts later.
        from hume_sync.workflow.predict import cache_path

        with study_embedding_cache(cache_path(study_dir)):
            plans = plan_study(spec, loader, id_scheme=store.id_scheme)
        before = store.total_changes
        summaries = apply_plans(store, study_meta(spec), plans, force=force)
        written = store.total_changes - before
    return InitSummary(
        study=spec.name,
        spec_hash=spec.spec_hash,
        created=old_hash is None,
        written=written,
        subsets=summaries,
    )


def study_meta(spec: StudySpec) -> dict[str, str]:
    """The study's identity as the store keeps it in ``meta``."""
    return {
        "study_name": spec.name,
        "seed": str(spec.seed),
        "spec_hash": spec.spec_hash,
        "spec": dumps(spec.to_dict()),
    }
