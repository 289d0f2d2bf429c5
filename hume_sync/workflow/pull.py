"""`hume-sync pull`: bring the annotations of every project into the study store.

Every subset has one project per annotator, each on that annotator's own Label Studio
(``projects``); pull reads them all and maps each task back to its instance through the store
(``ls_tasks``), so the answers of every annotator land on the same study instances.

Each project's annotations stream from Label Studio straight into the store (the export is
parsed as it downloads, one task at a time; :meth:`Store.annotation_writes`), so memory stays
flat whatever the study's size; all projects are written in one transaction, committed at the
end: a server that fails half-way leaves the store as it was. Each project's batch is the
complete current state of that project, so a rerun adds nothing, edited annotations are updated
and deleted ones are marked deleted. A result that does not fit the interface (a clustering text
left unsorted, a candidate not placed, no choice, an item the task does not have) is kept with
status ``invalid`` and its error, and reported with the annotator's email and a link that opens
the task in Label Studio (:func:`task_url`); a skipped task (``was_cancelled``) is kept with
status ``cancelled``; neither stops the others. Valid answers given or changed after the study's
close are listed as late (``late_answers``): export leaves them out unless ``--include-late``.
An answer that existed at the close and is gone from Label Studio after it is a late deletion
(``late_deletions``): marked deleted in the store like any other, listed, and still scored as it
was at the close unless ``--include-late`` (the close is a line in time).
Only the slot's own annotator counts: an answer made in their project by another account (the
manager trying the interface) is reported and left out. A project deleted in Label Studio is
reported and skipped; what was pulled from it before stays in the store.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import label_studio_configs
from hume_sync import task_types
from hume_sync.labelstudio.client import LabelStudioClient, LabelStudioNotFoundError
from hume_sync.progress import progress
from hume_sync.rules.display import task_url
from hume_sync.rules.late_answers import LateAnswer, late_answers, late_deletions
from hume_sync.store import (
    PULLED_AT,
    AnnotationCounts,
    AnnotationRecord,
    AnnotatorRow,
    InstanceRow,
    SlotProject,
    Store,
    SubsetRow,
)

ClientFor = Callable[[str], LabelStudioClient]

# PULLED_AT (declared in hume_sync.store.meta) is the meta key for when the last pull completed
# (UTC): what the dashboard's agreement so far is as of. A pull that fails writes nothing, this
# included.


@dataclass(frozen=True)
class InvalidAnnotation:
    """An answer that does not fit the interface: never scored, listed so it can be fixed."""

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


@dataclass(frozen=True)
class ForeignAnnotation:
    """An answer in an annotator's project made by another account; not counted."""

    subset: str
    slot: int
    email: str
    ls_task_id: int
    annotation_id: int
    author: Any

    def __str__(self) -> str:
        return (
            f"{self.subset}: annotation {self.annotation_id} on task {self.ls_task_id} in "
            f"{self.email}'s project was made by Label Studio user {self.author}, not by them"
        )


@dataclass
class PullSummary:
    counts: dict[str, AnnotationCounts] = field(default_factory=dict)
    invalid: list[InvalidAnnotation] = field(default_factory=list)
    cancelled: int = 0
    #: Valid answers in the store given or changed after the study's close (export leaves them
    #: out unless --include-late); empty while the study is open.
    late: list[LateAnswer] = field(default_factory=list)
    #: Answers that existed at the close and were deleted in Label Studio after it (export
    #: scores them as at the close unless --include-late); empty while the study is open.
    late_deleted: list[LateAnswer] = field(default_factory=list)
    skipped_subsets: list[str] = field(default_factory=list)
    unknown_tasks: int = 0
    foreign: list[ForeignAnnotation] = field(default_factory=list)
    missing_projects: list[str] = field(default_factory=list)

    def total(self, attr: str) -> int:
        return sum(getattr(c, attr) for c in self.counts.values())

    def late_notes(self) -> list[str]:
        """One line for the late answers and one for the late deletions, where there are any."""
        out = []
        if self.late:
            out.append(
                f"note: {len(self.late)} answer(s) given or changed after the study was closed; "
                "export leaves them out unless --include-late"
            )
        if self.late_deleted:
            shown = ", ".join(
                f"{d.subset} task {d.ls_task_id} annotation {d.ls_annotation_id} ({d.annotator})"
                for d in self.late_deleted[:5]
            )
            more = f" and {len(self.late_deleted) - 5} more" if len(self.late_deleted) > 5 else ""
            out.append(
                f"note: {len(self.late_deleted)} answer(s) given before the close were deleted "
                f"in Label Studio after it ({shown}{more}); export still scores them as they "
                "were at the close unless --include-late"
            )
        return out


def author_id(annotation: dict[str, Any]) -> Any:
    """The Label Studio user id that made an annotation (``completed_by``)."""
    who = annotation.get("completed_by")
    return who.get("id") if isinstance(who, dict) else who


def translate(
    subset: SubsetRow, instance: InstanceRow, annotation: dict[str, Any]
) -> tuple[Any, str, str | None]:
    """(answer, status, error) of one Label Studio annotation, checked against the interface."""
    if annotation.get("was_cancelled"):
        return None, "cancelled", None
    task_type = task_types.get(subset.task_type)
    kwargs = task_type.ls_translation_kwargs(subset.config, instance.content)
    try:
        answer = task_type.ls_result_to_answer(annotation.get("result") or [], **kwargs)
    except label_studio_configs.ConfigError as exc:
        return None, "invalid", str(exc)
    return answer, "valid", None


def _records(
    tasks: Iterable[dict[str, Any]],
    store: Store,
    subset: SubsetRow,
    project: SlotProject,
    annotator: AnnotatorRow,
    found: PullSummary,
) -> Iterator[AnnotationRecord]:
    """The store records of one project's annotated tasks, as they stream in; what is not
    counted (invalid, foreign, skipped) is noted in ``found``."""
    ours = store.project_instances(subset.key, annotator.slot)  # one query, not one per task
    for task in tasks:
        task_id = int(task["id"])
        instance = ours.get(task_id)
        if instance is None or instance.subset_key != subset.key:
            found.unknown_tasks += 1  # a task added in Label Studio by hand: not ours
            continue
        for ann in task.get("annotations") or []:
            author = author_id(ann)
            if annotator.ls_user_id is not None and author != annotator.ls_user_id:
                found.foreign.append(
                    ForeignAnnotation(
                        subset.key, annotator.slot, annotator.email, task_id, int(ann["id"]), author
                    )
                )
                continue
            answer, status, error = translate(subset, instance, ann)
            if status == "invalid":
                found.invalid.append(
                    InvalidAnnotation(
                        subset.key,
                        project.ls_project_id,
                        task_id,
                        int(ann["id"]),
                        annotator.key,
                        error or "",
                        annotator.email,
                        task_url(annotator.ls_url, project.ls_project_id, task_id),
                    )
                )
            elif status == "cancelled":
                found.cancelled += 1
            lead = ann.get("lead_time")
            yield AnnotationRecord(
                ls_annotation_id=int(ann["id"]),
                hume_id=instance.hume_id,
                ls_task_id=task_id,
                annotator=annotator.key,
                answer=answer,
                status=status,
                error=error,
                lead_time=None if lead is None else float(lead),
                created_at=ann.get("created_at"),
                updated_at=ann.get("updated_at"),
                slot=annotator.slot,
            )


def _add(a: AnnotationCounts, b: AnnotationCounts) -> AnnotationCounts:
    return AnnotationCounts(
        a.added + b.added, a.updated + b.updated, a.unchanged + b.unchanged, a.deleted + b.deleted
    )


def _pulled(annotator: AnnotatorRow, slots: Collection[int] | None) -> bool:
    return annotator.slot in slots if slots is not None else annotator.retired_at is None


def pull_study(
    store: Store, client_for: ClientFor, *, slots: Collection[int] | None = None
) -> PullSummary:
    """Stream every project into the store, one commit at the end (see module docstring).

    ``slots``: only these annotators' projects; by default every annotator's but the retired
    ones' (their servers are stopped: ``annotators remove`` pulls them one last time)."""
    summary = PullSummary()
    annotators = {a.slot: a for a in store.annotators()}
    subsets = store.subsets()
    with store.annotation_writes() as upsert:
        for subset in progress(subsets, desc="pulling annotations", total=len(subsets)):
            projects = store.slot_projects(subset.key)
            if not projects:
                summary.skipped_subsets.append(subset.key)
                continue
            counts = AnnotationCounts()
            for project in projects:
                annotator = annotators[project.slot]
                if not _pulled(annotator, slots):
                    continue
                try:
                    tasks = client_for(annotator.ls_url).export_annotated_tasks(
                        project.ls_project_id
                    )
                except LabelStudioNotFoundError:
                    summary.missing_projects.append(
                        f"{subset.key} (slot {annotator.slot}, {annotator.email}): project "
                        f"{project.ls_project_id} is gone from {annotator.ls_url}"
                    )
                    continue
                found = PullSummary()
                try:
                    got = upsert(
                        _records(tasks, store, subset, project, annotator, found),
                        subset=subset.key,
                        scope={project.slot: None},  # the slot's tasks as the store records them
                    )
                finally:
                    close = getattr(tasks, "close", None)
                    if close is not None:
                        close()
                counts = _add(counts, got)
                summary.invalid += found.invalid
                summary.foreign += found.foreign
                summary.cancelled += found.cancelled
                summary.unknown_tasks += found.unknown_tasks
            summary.counts[subset.key] = counts
    summary.late = late_answers(store)
    summary.late_deleted = late_deletions(store)
    store.set_meta({PULLED_AT: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")})
    return summary
