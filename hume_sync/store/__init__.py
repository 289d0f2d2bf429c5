"""The study store: one SQLite file (``study.sqlite``) beside ``study.yaml``.

It holds what the study sampled (subsets, instances with their gold, the classification train
pools), the Label Studio ids they were given, model/LLM predictions and scores, and the
annotations pulled from Label Studio. The package, module by module:

- :mod:`~hume_sync.store.schema`: every table and migration (the schema in one place);
- :mod:`~hume_sync.store.meta`: every ``meta`` key with its type (undeclared keys are refused);
- :mod:`~hume_sync.store.records`: the rows readers return and writers take;
- :mod:`~hume_sync.store.connection`: opening, transactions, migrating, ``meta``;
- :mod:`~hume_sync.store.instances`, :mod:`~hume_sync.store.annotators`,
  :mod:`~hume_sync.store.annotations`, :mod:`~hume_sync.store.predictions`,
  :mod:`~hume_sync.store.model_scores`, :mod:`~hume_sync.store.mirror_state`,
  :mod:`~hume_sync.store.effort_cache`: one part of the study each;
- :mod:`~hume_sync.store.plans`: writing what ``init`` planned;
- :mod:`~hume_sync.store.handle`: :class:`Store`, all the parts in one handle.

Design rules: every write runs in one transaction, so a step interrupted half-way leaves the
store as it was; rows are keyed by natural keys and upserted, so re-running a step writes nothing
new; gold is only reachable through :func:`gold`.
"""

from hume_sync.errors import StoreError
from hume_sync.store.connection import SPEC_NAME, STORE_NAME
from hume_sync.store.handle import Store, is_closed, predictions_visible
from hume_sync.store.instances import gold
from hume_sync.store.meta import (
    CLOSED_AT,
    CLOSED_BY,
    META_KEYS,
    PULLED_AT,
    REVEALED_AT,
    MetaKey,
    StudyMeta,
)
from hume_sync.store.model_scores import instances_digest
from hume_sync.store.plans import SubsetPlan, SubsetSummary, apply_plans, refuse_another_spec
from hume_sync.store.records import (
    LEGACY_TASK_KEY,
    AnnotationCounts,
    AnnotationRecord,
    AnnotationRow,
    AnnotationUpsert,
    AnnotatorRow,
    CommitmentRow,
    InstanceRow,
    ItemRef,
    ModelScoreRecord,
    ModelSubsetScore,
    PredictionCounts,
    PredictionRecord,
    SlotProject,
    SubsetRow,
    annotator_key,
    dumps,
    hume_id,
    new_ref,
    subset_key,
    task_ref,
    unknown_order_message,
)
from hume_sync.store.schema import ANNOTATION_STATUSES, MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "ANNOTATION_STATUSES",
    "CLOSED_AT",
    "CLOSED_BY",
    "LEGACY_TASK_KEY",
    "META_KEYS",
    "MIGRATIONS",
    "PULLED_AT",
    "REVEALED_AT",
    "SCHEMA_VERSION",
    "SPEC_NAME",
    "STORE_NAME",
    "AnnotationCounts",
    "AnnotationRecord",
    "AnnotationRow",
    "AnnotationUpsert",
    "AnnotatorRow",
    "CommitmentRow",
    "InstanceRow",
    "ItemRef",
    "MetaKey",
    "ModelScoreRecord",
    "ModelSubsetScore",
    "PredictionCounts",
    "PredictionRecord",
    "SlotProject",
    "Store",
    "StoreError",
    "StudyMeta",
    "SubsetPlan",
    "SubsetRow",
    "SubsetSummary",
    "annotator_key",
    "apply_plans",
    "dumps",
    "gold",
    "hume_id",
    "instances_digest",
    "is_closed",
    "new_ref",
    "predictions_visible",
    "refuse_another_spec",
    "subset_key",
    "task_ref",
    "unknown_order_message",
]
