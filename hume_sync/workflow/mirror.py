"""The study mirrored into the manager's Label Studio (``labelstudio.manager``), after each pull.

One project per subset, found again by a mark in its description; one task per instance, found
again by the ``hume_ref`` in its data (the same gold-free data annotators see, built by the task
type). Each slot's answers become annotations attributed to the slot's pseudonymous account
(``completed_by``): a valid answer with its result, a skipped one as a skipped (cancelled)
annotation; an invalid answer is not an annotation (it has no result that fits the interface)
but is counted in the task's ``hume_invalid`` field. Fields the Data Manager sorts and filters
on are added to each task's data: ``hume_answers`` (valid answers so far), ``hume_disagree``
(1 when the type's own per-item rule, :meth:`score_disagree`, says the valid answers disagree,
0 when they agree, null with fewer than two), ``hume_invalid``, ``hume_skipped`` and
``hume_late`` (valid answers given or changed after the close).

Reconciled against what the manager's server holds, so no bookkeeping is kept in the store: a
task whose data already equals what it should be is not written, an annotation whose result
and skip flag are unchanged is not written, one whose answer changed is updated, one whose
answer is gone is deleted. A second mirror of an unchanged study writes nothing. The slot's
answers and the account's annotations on a task are paired in the order Label Studio numbered
them. Model and LLM answers go in as predictions only once predictions may be shown
(:func:`hume_sync.store.predictions_visible`), one per ``model_version``, never twice. Gold is
never read here.

The study's ML backend (``setup --ml-backend``) is connected to each mirror project as to the
annotators' (:func:`hume_sync.labelstudio.ml_backends.connect`, idempotent), so that Label
Studio's own "Retrieve predictions" works for the manager too after the close. A backend that
cannot be connected does not stop the mirror: it is listed in ``backend_failures``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from hume_sync import task_types
from hume_sync.errors import SetupError
from hume_sync.labelstudio import manager
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.labelstudio.ml_backends import Backend, connect, study_backend
from hume_sync.rules.late_answers import late_answers
from hume_sync.store import AnnotationRow, Store, SubsetRow, dumps, predictions_visible, task_ref
from hume_sync.workflow.changes import author_id
from hume_sync.workflow.reveal import ls_prediction_of
from hume_sync.workflow.setup import project_title, render_subset_config
from ml_backend.reveal import DEFAULT_RERANK_RULE


@dataclass
class MirrorSummary:
    """What one mirror wrote into the manager's server (all zero when nothing changed)."""

    projects_created: int = 0
    tasks_created: int = 0
    tasks_updated: int = 0
    annotations_created: int = 0
    annotations_updated: int = 0
    annotations_deleted: int = 0
    predictions_created: int = 0
    #: mirror projects the study's ML backend was connected to (or its connection updated)
    backend_connected: int = 0
    #: one line per mirror project the backend could not be connected to (no password)
    backend_failures: list[str] = field(default_factory=list)

    def writes(self) -> int:
        return sum(v for v in vars(self).values() if isinstance(v, int))

    def __str__(self) -> str:
        backend = (
            f"; ML backend connected to {self.backend_connected} project(s)"
            if self.backend_connected
            else ""
        )
        return (
            f"manager's Label Studio: {self.tasks_created} task(s) added, {self.tasks_updated} "
            f"updated; {self.annotations_created} answer(s) added, {self.annotations_updated} "
            f"updated, {self.annotations_deleted} removed; {self.predictions_created} "
            "prediction(s) added" + backend
        )


def _project(ls: LabelStudioClient, store: Store, sub: SubsetRow, found: MirrorSummary) -> int:
    marker = manager.mirror_marker(store.study_uid(), sub.key)
    for project in ls.find_projects_by_marker(marker):
        return int(project["id"])
    project = ls.create_project(
        project_title(store.study_meta().study_name or "hume", sub.key),
        render_subset_config(sub),
        maximum_annotations=max(1, sub.overlap),
        description=f"HUME study mirror (all annotators) of {sub.key}. [{marker}]",
    )
    found.projects_created += 1
    return int(project["id"])


def _desired_annotation(sub: SubsetRow, content: dict[str, Any], row: AnnotationRow) -> dict:
    if row.status == "cancelled":
        return {"result": [], "was_cancelled": True}
    task_type = task_types.get(sub.task_type)
    kwargs = task_type.ls_translation_kwargs(sub.config, content)
    return {"result": task_type.ls_answer_to_result(row.answer, **kwargs), "was_cancelled": False}


def _fields(sub: SubsetRow, rows: list[AnnotationRow], late: int) -> dict[str, Any]:
    valid = [r.answer for r in rows if r.status == "valid"]
    disagree = None
    if len(valid) >= 2:
        disagree = int(bool(task_types.get(sub.task_type).score_disagree(valid)))
    return {
        "hume_answers": len(valid),
        "hume_disagree": disagree,
        "hume_invalid": sum(r.status == "invalid" for r in rows),
        "hume_skipped": sum(r.status == "cancelled" for r in rows),
        "hume_late": late,
    }


def _same_result(have: dict[str, Any], want: dict[str, Any]) -> bool:
    def core(result: Any) -> list[Any]:
        keep = ("from_name", "to_name", "type", "value")
        return [{k: r.get(k) for k in keep} for r in result or []]

    return dumps(core(have.get("result"))) == dumps(core(want["result"])) and bool(
        have.get("was_cancelled")
    ) == bool(want["was_cancelled"])


def _sync_annotations(
    ls: LabelStudioClient,
    task: dict[str, Any],
    wanted: dict[int, list[dict[str, Any]]],
    found: MirrorSummary,
) -> None:
    """Make the task's annotations by each pseudonymous account (user id → wanted list) equal
    the slot's answers; annotations by any other account are left alone."""
    have: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for ann in task.get("annotations") or []:
        who = author_id(ann)
        if who in wanted:
            have[int(who)].append(ann)
    for user, want in wanted.items():
        mine = sorted(have.get(user, []), key=lambda a: int(a["id"]))
        for ann, item in zip(mine, want, strict=False):
            if not _same_result(ann, item):
                ls.update_annotation(int(ann["id"]), **item)
                found.annotations_updated += 1
        for ann in mine[len(want) :]:
            ls.delete_annotation(int(ann["id"]))
            found.annotations_deleted += 1
        for item in want[len(mine) :]:
            ls.create_annotation(
                int(task["id"]),
                item["result"],
                completed_by=user,
                was_cancelled=item["was_cancelled"],
            )
            found.annotations_created += 1


def _mirror_subset(
    ls: LabelStudioClient,
    store: Store,
    sub: SubsetRow,
    users: dict[int, int],
    late: dict[str, int],
    show_predictions: bool,
    found: MirrorSummary,
) -> int:
    """Reconcile one subset's mirror project; its id."""
    project_id = _project(ls, store, sub, found)
    task_type = task_types.get(sub.task_type)
    instances = store.instances(sub.key)
    rows: dict[str, list[AnnotationRow]] = defaultdict(list)
    for row in store.annotations(sub.key):
        rows[row.hume_id].append(row)
    place = {i.hume_id: (n, len(instances)) for n, i in enumerate(instances, 1)}
    data = {
        i.hume_ref: {
            **task_type.ls_task_data(i.hume_ref, i.content, position=place[i.hume_id]),
            **_fields(sub, rows[i.hume_id], late.get(i.hume_id, 0)),
        }
        for i in instances
    }
    tasks = {task_ref(t.get("data")): t for t in ls.list_tasks(project_id)}
    missing = [{"data": d} for ref, d in data.items() if ref not in tasks]
    if missing:
        ls.import_tasks(project_id, missing)
        found.tasks_created += len(missing)
        tasks = {task_ref(t.get("data")): t for t in ls.list_tasks(project_id)}
    preds: list[dict[str, Any]] = []
    by_hume = defaultdict(list)
    if show_predictions:
        for p in store.predictions(sub.key):
            if p.answer is not None:
                by_hume[p.hume_id].append(p)
    for inst in instances:
        task = tasks[inst.hume_ref]
        if dumps(task.get("data")) != dumps(data[inst.hume_ref]):
            ls.update_task(int(task["id"]), data[inst.hume_ref])
            found.tasks_updated += 1
        wanted: dict[int, list[dict[str, Any]]] = {uid: [] for uid in users.values()}
        for row in rows[inst.hume_id]:
            if row.status != "invalid":
                wanted[users[row.slot]].append(_desired_annotation(sub, inst.content, row))
        _sync_annotations(ls, task, wanted, found)
        have = {str(x.get("model_version")) for x in task.get("predictions") or []}
        for p in by_hume[inst.hume_id]:
            if p.model_version not in have:
                item = ls_prediction_of(
                    sub, inst, p.model_version, p.answer, p.score, DEFAULT_RERANK_RULE
                )
                preds.append({"task": int(task["id"]), **item})
    if preds:
        found.predictions_created += ls.import_predictions(project_id, preds)
    return project_id


def _connect_backend(
    ls: LabelStudioClient, project_id: int, sub: SubsetRow, backend: Backend, found: MirrorSummary
) -> None:
    try:
        if connect(ls, project_id, backend) != "present":
            found.backend_connected += 1
    except SetupError as exc:
        found.backend_failures.append(f"{sub.key} (manager's project {project_id}): {exc}")


def mirror_study(store: Store, ls: LabelStudioClient) -> MirrorSummary:
    """Reconcile the manager's server with the store (see the module doc); what was written."""
    found = MirrorSummary()
    users = manager.pseudonyms(ls, [a.slot for a in store.annotators()])
    late: dict[str, int] = defaultdict(int)
    for answer in late_answers(store):
        late[answer.hume_id] += 1
    show = predictions_visible(store)
    try:
        backend = study_backend(store)
    except SetupError as exc:  # half of the backend's auth in the environment
        backend = None
        found.backend_failures.append(str(exc))
    for sub in store.subsets():
        project_id = _mirror_subset(ls, store, sub, users, late, show, found)
        if backend is not None:
            _connect_backend(ls, project_id, sub, backend, found)
    return found


def mirror_if_set_up(store: Store) -> MirrorSummary | None:
    """Mirror into the manager's server when one was set up (``hume-sync manager up``), else
    None: what ``pull`` and ``reveal`` call after their own work."""
    ls = manager.client()
    return None if ls is None else mirror_study(store, ls)
