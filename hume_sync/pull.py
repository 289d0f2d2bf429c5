"""`hume-sync pull`: bring the annotations of every project into the study store.

Everything is read from Label Studio first, and only then written, one transaction per subset:
a server that fails half-way leaves the store as it was. Each subset's batch is the complete
current state of its project, so a rerun adds nothing, edited annotations are updated and
deleted ones are marked deleted. A result that does not fit the interface is kept with status
``invalid`` and its error (reported with task and annotator); a skipped task (``was_cancelled``)
is kept with status ``cancelled``; neither stops the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import label_studio_configs
from hume_sync.ls_client import LabelStudioClient
from hume_sync.progress import progress
from hume_sync.store import AnnotationCounts, AnnotationRecord, InstanceRow, Store, SubsetRow


@dataclass(frozen=True)
class InvalidAnnotation:
    subset: str
    ls_task_id: int
    annotation_id: int
    annotator: str
    error: str

    def __str__(self) -> str:
        return (
            f"{self.subset}: task {self.ls_task_id}, annotation {self.annotation_id} by "
            f"{self.annotator}: {self.error}"
        )


@dataclass
class PullSummary:
    counts: dict[str, AnnotationCounts] = field(default_factory=dict)
    invalid: list[InvalidAnnotation] = field(default_factory=list)
    cancelled: int = 0
    skipped_subsets: list[str] = field(default_factory=list)
    unknown_tasks: int = 0

    def total(self, attr: str) -> int:
        return sum(getattr(c, attr) for c in self.counts.values())


def annotator_id(annotation: dict[str, Any]) -> str:
    """A stable annotator key: the Label Studio user id (``completed_by``) as ``ls-user-<id>``."""
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        who = who.get("id")
    return f"ls-user-{who}" if who is not None else "ls-user-unknown"


def translate(
    subset: SubsetRow, instance: InstanceRow, annotation: dict[str, Any]
) -> tuple[Any, str, str | None]:
    """(answer, status, error) of one Label Studio annotation, checked against the interface."""
    if annotation.get("was_cancelled"):
        return None, "cancelled", None
    module = label_studio_configs.get(subset.task_type)
    kwargs = label_studio_configs.translation_kwargs(
        subset.task_type, subset.config, instance.content
    )
    try:
        answer = module.result_to_answer(annotation.get("result") or [], **kwargs)
    except label_studio_configs.ConfigError as exc:
        return None, "invalid", str(exc)
    return answer, "valid", None


def _collect(
    client: LabelStudioClient, store: Store, subset: SubsetRow, summary: PullSummary
) -> list[AnnotationRecord]:
    assert subset.ls_project_id is not None
    by_task = {i.ls_task_id: i for i in store.instances(subset.key) if i.ls_task_id is not None}
    records: list[AnnotationRecord] = []
    for task in client.export_annotated_tasks(subset.ls_project_id):
        instance = by_task.get(int(task["id"]))
        if instance is None:
            summary.unknown_tasks += 1  # a task added in Label Studio by hand: not ours
            continue
        for ann in task.get("annotations") or []:
            answer, status, error = translate(subset, instance, ann)
            who = annotator_id(ann)
            if status == "invalid":
                summary.invalid.append(
                    InvalidAnnotation(
                        subset.key, instance.ls_task_id or 0, int(ann["id"]), who, error or ""
                    )
                )
            elif status == "cancelled":
                summary.cancelled += 1
            lead = ann.get("lead_time")
            records.append(
                AnnotationRecord(
                    ls_annotation_id=int(ann["id"]),
                    hume_id=instance.hume_id,
                    ls_task_id=int(task["id"]),
                    annotator=who,
                    answer=answer,
                    status=status,
                    error=error,
                    lead_time=None if lead is None else float(lead),
                    created_at=ann.get("created_at"),
                    updated_at=ann.get("updated_at"),
                )
            )
    return records


def pull_study(client: LabelStudioClient, store: Store) -> PullSummary:
    """Read every project, then write the annotations (see module docstring)."""
    summary = PullSummary()
    subsets = store.subsets()
    batches: list[tuple[SubsetRow, list[AnnotationRecord]]] = []
    for subset in progress(subsets, desc="reading annotations", total=len(subsets)):
        if subset.ls_project_id is None:
            summary.skipped_subsets.append(subset.key)
            continue
        batches.append((subset, _collect(client, store, subset, summary)))
    for subset, records in batches:
        summary.counts[subset.key] = store.upsert_annotations(records, subset=subset.key)
    return summary
