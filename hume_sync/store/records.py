"""The store's records: what its readers return and its writers take, and the small helpers
that name rows (``hume_id``, ``hume_ref``, annotator keys) or encode them (canonical JSON).

A leaf module: it imports nothing from the rest of the store, so every part of it can.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol


@dataclass(frozen=True)
class TextItem:
    """A labelled text (classification item or clustering item); ``group`` is an MTEB set index."""

    id: str
    text: str
    label: str
    group: str | None = None


@dataclass(frozen=True)
class ItemRef:
    """A clustering item or reranking candidate: the id annotators, answers and gold use
    (``item_id``), the id it has in its source, and its position there (0-based; a candidate's
    position is within its query's candidate list)."""

    item_id: str
    source_id: str
    source_position: int | None


@dataclass(frozen=True)
class SubsetRow:
    key: str
    task_name: str
    hf_subset: str
    task_type: str
    language: str
    config: dict[str, Any]
    samples_per_label: int | None
    overlap: int


@dataclass(frozen=True)
class InstanceRow:
    """An instance as Label Studio task code may see it: no gold field at all.

    ``hume_ref`` is the only reference to it that may go into Label Studio; ``hume_id`` and
    ``source_id`` stay in hume (a source id can encode gold, or find it in a public dataset).
    """

    hume_id: str
    subset_key: str
    source_id: str
    sample_order: int
    content: dict[str, Any]
    hume_ref: str = ""
    source_position: int | None = None


@dataclass(frozen=True)
class AnnotatorRow:
    """A registered annotator: one slot, i.e. one Label Studio server of their own."""

    slot: int
    email: str
    languages: tuple[str, ...]
    ls_url: str
    ls_user_id: int | None
    added_at: str
    retired_at: str | None = None  # ``annotators remove``: their open seats went to others

    @property
    def key(self) -> str:
        """The anonymous key annotations and reports use (emails stay out of reports)."""
        return annotator_key(self.slot)


@dataclass(frozen=True)
class SlotProject:
    """The Label Studio project of one subset on one annotator's server."""

    subset_key: str
    slot: int
    ls_project_id: int
    marker: str
    created_at: str


@dataclass(frozen=True)
class AnnotationRecord:
    """One Label Studio annotation, already translated to a plain answer (None if unusable).

    ``slot`` says which annotator's server it came from: Label Studio ids are unique per server
    only, so an annotation is identified by ``(slot, ls_annotation_id)``.
    """

    ls_annotation_id: int
    hume_id: str
    ls_task_id: int
    annotator: str
    answer: Any = None
    status: str = "valid"
    error: str | None = None
    lead_time: float | None = None
    created_at: str | None = None
    updated_at: str | None = None
    slot: int = 0


@dataclass(frozen=True)
class AnnotationRow(AnnotationRecord):
    deleted_at: str | None = None


@dataclass(frozen=True)
class PredictionRecord:
    """A model or LLM answer for one instance; ``model_version`` e.g. ``emb:all-MiniLM-L6-v2``."""

    hume_id: str
    model_version: str
    answer: Any
    score: float | None = None
    sealed: bool = True
    created_at: str | None = None


@dataclass(frozen=True)
class CommitmentRow:
    """One recorded sealing commitment (:mod:`hume_sync.sealing` makes and reads them)."""

    seq: int
    model_version: str
    sha256: str
    recorded_at: str
    record: dict[str, Any]


@dataclass(frozen=True)
class AnnotationCounts:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0


class AnnotationUpsert(Protocol):
    """One batch of :meth:`Store.upsert_annotations` inside :meth:`Store.annotation_writes`."""

    def __call__(
        self,
        records: Iterable[AnnotationRecord],
        *,
        subset: str | None = None,
        scope: Mapping[int, Collection[int] | None] | None = None,
    ) -> AnnotationCounts: ...


@dataclass(frozen=True)
class PredictionCounts:
    added: int = 0
    replaced: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class ModelScoreRecord:
    """A model's mteb score on one subset as ``predict`` writes it (a ``model_scores`` row).

    ``instances_sha256`` is the digest of the subset's instances and gold it was computed on
    (a forced re-init that changes them makes it stale); ``inputs_sha256`` the fingerprint of
    the job (instances, model, settings) that lets ``predict`` skip an unchanged subset.
    """

    model_version: str
    subset: str
    task_type: str
    main_score_name: str
    main_score: float | None
    scores: dict[str, Any] | None
    method: str
    n_items: int
    instances_sha256: str = ""
    inputs_sha256: str = ""


@dataclass(frozen=True)
class ModelSubsetScore:
    """A model's mteb score on one subset, as recorded by ``predict`` (for reports)."""

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


# --------------------------------------------------------------------------------------------
# Helpers


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys, compact, UTF-8): equal values give equal bytes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def now() -> str:
    """The current UTC time as the store writes it (ISO 8601, microseconds, ``Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def unknown_order_message(subset: str) -> str:
    """Why a store migrated from schema 1 cannot run models yet, and what to do."""
    return (
        f"the source order of subset {subset} is not recorded (a study store from before "
        "schema 2); run 'hume-sync init' on the study again to record it"
    )


#: The task-data key of tasks imported before schema 2 (``<task>/<subset>/<source id>``).
LEGACY_TASK_KEY = "hume_id"


def task_ref(data: Any) -> str | None:
    """The study reference in a Label Studio task's data: ``hume_ref``, or the ``hume_id`` of a
    task imported before schema 2 (a migrated store keeps that as the instance's ``hume_ref``)."""
    if not isinstance(data, Mapping):
        return None
    ref = data.get("hume_ref", data.get(LEGACY_TASK_KEY))
    return ref if isinstance(ref, str) else None


def new_ref() -> str:
    """A fresh ``hume_ref``: random, so it carries nothing about the instance or its source."""
    return secrets.token_hex(8)


def subset_key(task: str, subset: str) -> str:
    return f"{task}/{subset}"


def hume_id(task: str, subset: str, source_id: str) -> str:
    return f"{task}/{subset}/{source_id}"


def annotator_key(slot: int) -> str:
    return f"annotator-{slot}"
