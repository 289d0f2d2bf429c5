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

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
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
    AnnotationUpsert,
    AnnotatorRow,
    InstanceRow,
    SlotProject,
    Store,
    SubsetRow,
)
from hume_sync.store.sync_state import SyncState
from hume_sync.workflow import changes
from hume_sync.workflow.changes import ProjectSeen

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
    #: How many projects were read whole, and how many only for what changed since the last
    #: pull (:mod:`hume_sync.workflow.changes`).
    full_reads: int = 0
    change_reads: int = 0

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
    instances: Mapping[int, InstanceRow],
    subset: SubsetRow,
    annotator: AnnotatorRow,
    seen: ProjectSeen,
) -> Iterator[AnnotationRecord]:
    """The store records of one project's tasks, as they stream in; what is not stored (another
    account's answers, tasks that are not ours) is noted in ``seen``."""
    for task in tasks:
        task_id = int(task["id"])
        is_ours = changes.ours(instances, task, subset.key)
        for ann in seen.split(task, is_ours, annotator):
            answer, status, error = translate(subset, instances[task_id], ann)
            lead = ann.get("lead_time")
            yield AnnotationRecord(
                ls_annotation_id=int(ann["id"]),
                hume_id=instances[task_id].hume_id,
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


def _read_full(
    upsert: AnnotationUpsert,
    store: Store,
    client: LabelStudioClient,
    subset: SubsetRow,
    project: SlotProject,
    annotator: AnnotatorRow,
) -> tuple[AnnotationCounts, ProjectSeen]:
    """Every annotated task of the project (Label Studio's export), as the complete state of
    the slot's tasks: what is not there any more is marked deleted."""
    tasks = client.export_annotated_tasks(project.ls_project_id)
    seen = ProjectSeen()
    try:
        got = upsert(
            _records(
                tasks,
                store.project_instances(subset.key, annotator.slot),
                subset,
                annotator,
                seen,
            ),
            subset=subset.key,
            scope={project.slot: None},  # the slot's tasks as the store records them
        )
    finally:
        close = getattr(tasks, "close", None)
        if close is not None:
            close()
    store.keep_answer_summary(subset.key, annotator.slot)  # summed up whole if it changed
    return got, seen


def _read_changes(
    upsert: AnnotationUpsert,
    store: Store,
    client: LabelStudioClient,
    subset: SubsetRow,
    project: SlotProject,
    annotator: AnnotatorRow,
    state: SyncState,
) -> tuple[AnnotationCounts, ProjectSeen] | None:
    """Only the tasks changed since the last pull (:mod:`hume_sync.workflow.changes`), each
    the complete state of its own annotations; None when a change may have escaped: the caller
    then reads the project in full, which completes whatever this wrote."""
    started = changes.now_text()
    counted = changes.label_studio_count(
        client.get_project(project.ls_project_id, changes.COUNT_FIELDS)
    )
    tasks = changes.changed_tasks(client, project.ls_project_id, state)
    if tasks is None:
        return None
    ids = [int(t["id"]) for t in tasks]
    seen = ProjectSeen.continuing(state, ids, started)
    if not ids:  # nothing changed: nothing to write; the counts still tell what escaped
        live = store.summed_count(subset.key, annotator.slot, "answers")
        if live is None:  # no summary yet (a store from before schema 9): sum it up now
            live = store.keep_answer_summary(subset.key, annotator.slot).answers
        return (AnnotationCounts(), seen) if changes.counts_add_up(live, seen, counted) else None
    # the project's summary and the changed tasks' part of it, before the writes: after them,
    # the summary is the one less the old part plus the new (store/answer_summaries.py)
    before = store.answer_summary(subset.key, annotator.slot)
    old = (
        None
        if before is None
        else store.computed_answer_summary(subset.key, annotator.slot, only=ids)
    )
    got = upsert(
        _records(
            tasks,
            store.project_instances(subset.key, annotator.slot, ids),
            subset,
            annotator,
            seen,
        ),
        subset=subset.key,
        scope={project.slot: ids},
    )
    live = store.keep_answer_summary(subset.key, annotator.slot, before, ids, old).answers
    return (got, seen) if changes.counts_add_up(live, seen, counted) else None


def _summarise(
    store: Store,
    summary: PullSummary,
    annotators: Mapping[int, AnnotatorRow],
    slots: Collection[int] | None,
) -> None:
    """What every pull reports, read back from the store and the projects' states (so a read of
    the changes reports the same as a full one): invalid answers, skips, other accounts'
    answers and annotations on tasks that are not the study's."""
    for subset in store.subsets():
        projects = {
            p.slot: p for p in store.slot_projects(subset.key) if _pulled(annotators[p.slot], slots)
        }
        for problem in store.stored_problems(subset.key, projects):
            annotator, project = annotators[problem.slot], projects[problem.slot]
            summary.invalid.append(
                InvalidAnnotation(
                    subset.key,
                    project.ls_project_id,
                    problem.ls_task_id,
                    problem.ls_annotation_id,
                    problem.annotator,
                    problem.error,
                    annotator.email,
                    task_url(annotator.ls_url, project.ls_project_id, problem.ls_task_id),
                )
            )
        summary.cancelled += store.cancelled_count(subset.key, projects)
        for slot, project in projects.items():
            state = store.sync_state(subset.key, slot)
            if state is None or state.ls_project_id != project.ls_project_id:
                continue
            unknown = {u.task for u in state.uncounted if u.kind == "unknown"}
            summary.unknown_tasks += len(unknown)
            summary.foreign += [
                ForeignAnnotation(
                    subset.key, slot, annotators[slot].email, u.task, u.annotation, u.author
                )
                for u in state.uncounted
                if u.kind == "foreign"
            ]


def pull_study(
    store: Store,
    client_for: ClientFor,
    *,
    slots: Collection[int] | None = None,
    full: bool = False,
) -> PullSummary:
    """Bring every project's changes into the store, one commit at the end (see the module
    docstring).

    ``slots``: only these annotators' projects; by default every annotator's but the retired
    ones' (their servers are stopped: ``annotators remove`` pulls them one last time).
    ``full``: read every project whole (``pull --full``), not only what changed since the
    last pull (:mod:`hume_sync.workflow.changes`, which also says when a read is whole anyway).
    """
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
                client = client_for(annotator.ls_url)
                state = changes.usable(
                    store.sync_state(subset.key, annotator.slot), project.ls_project_id, full
                )
                try:
                    read = None
                    if state is not None:
                        read = _read_changes(
                            upsert, store, client, subset, project, annotator, state
                        )
                    if read is None:
                        read = _read_full(upsert, store, client, subset, project, annotator)
                        summary.full_reads += 1
                    else:
                        summary.change_reads += 1
                except LabelStudioNotFoundError:
                    summary.missing_projects.append(
                        f"{subset.key} (slot {annotator.slot}, {annotator.email}): project "
                        f"{project.ls_project_id} is gone from {annotator.ls_url}"
                    )
                    continue
                got, seen = read
                store.record_sync_state(
                    seen.state(subset.key, annotator.slot, project.ls_project_id)
                )
                counts = _add(counts, got)
            summary.counts[subset.key] = counts
    _summarise(store, summary, annotators, slots)
    summary.late = late_answers(store)
    summary.late_deleted = late_deletions(store)
    store.set_meta({PULLED_AT: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")})
    return summary
