"""`hume-sync pull`: bring the annotations of every project into the study store.

Everything is read from Label Studio first, and only then written, one transaction per subset:
a server that fails half-way leaves the store as it was. Each subset's batch is the complete
current state of its project, so a rerun adds nothing, edited annotations are updated and
deleted ones are marked deleted. A result that does not fit the interface (a clustering text
left unsorted, a candidate not placed, no choice, an item the task does not have) is kept with
status ``invalid`` and its error, and reported with the annotator's email and a link that opens
the task in Label Studio (:func:`name_invalid`, which ``status`` reuses); a skipped task
(``was_cancelled``) is kept with status ``cancelled``; neither stops the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import label_studio_configs
from hume_sync.late_answers import LateAnswer, late_answers
from hume_sync.ls_client import LabelStudioClient
from hume_sync.progress import progress
from hume_sync.store import AnnotationCounts, AnnotationRecord, InstanceRow, Store, SubsetRow


@dataclass(frozen=True)
class InvalidAnnotation:
    """An answer that is not counted (incomplete, or not fitting the interface), and where to
    fix it: ``url`` opens the task in Label Studio; ``email`` names the annotator where the
    token may list users (``annotator`` is the store's ``ls-user-<id>`` key)."""

    subset: str
    ls_project_id: int
    ls_task_id: int
    annotation_id: int
    annotator: str
    error: str
    email: str | None = None
    url: str | None = None

    def __str__(self) -> str:
        who = f"{self.email} ({self.annotator})" if self.email else self.annotator
        where = f"; fix it at {self.url}" if self.url else ""
        return (
            f"{self.subset}: task {self.ls_task_id}, annotation {self.annotation_id} by "
            f"{who}: {self.error}{where}"
        )


def task_url(base_url: str, project_id: int, task_id: int) -> str:
    """The Label Studio page that opens one task of a project (Data Manager with the task's
    labelling view, as Label Studio 1.23 links it)."""
    return f"{base_url.rstrip('/')}/projects/{int(project_id)}/data?task={int(task_id)}"


def annotator_emails(client: LabelStudioClient) -> dict[str, str]:
    """``{ls-user-<id>: email}`` of the server's users; empty when the token may not list them."""
    from hume_sync.ls_client import LabelStudioError

    try:
        return {f"ls-user-{uid}": email for uid, email in client.user_emails().items() if email}
    except LabelStudioError:
        return {}


def name_invalid(
    client: LabelStudioClient, invalid: Sequence[InvalidAnnotation]
) -> list[InvalidAnnotation]:
    """The same problems with the annotator's email and a link to each task filled in."""
    if not invalid:
        return []
    emails = annotator_emails(client)
    return [
        replace(
            p,
            email=emails.get(p.annotator),
            url=task_url(client.url, p.ls_project_id, p.ls_task_id),
        )
        for p in invalid
    ]


@dataclass
class PullSummary:
    counts: dict[str, AnnotationCounts] = field(default_factory=dict)
    invalid: list[InvalidAnnotation] = field(default_factory=list)
    cancelled: int = 0
    #: Valid answers in the store given or changed after the study's close (export leaves them
    #: out unless --include-late); empty while the study is open.
    late: list[LateAnswer] = field(default_factory=list)
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
                        subset.key,
                        subset.ls_project_id,
                        int(task["id"]),
                        int(ann["id"]),
                        who,
                        error or "",
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
    summary.invalid = name_invalid(client, summary.invalid)
    summary.late = late_answers(store)
    return summary
