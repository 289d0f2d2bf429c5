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

Reconciled against what the manager's server holds: a task whose data already equals what it
should be is not written, an annotation whose result and skip flag are unchanged is not
written, one whose answer changed is updated, one whose answer is gone is deleted. A second
mirror of an unchanged study writes nothing.

It costs what changed (:mod:`hume_sync.store.mirror_state`): the store records, per instance,
the manager's task id and a mark of what the task was made from, and per subset the context
(the manager's server and accounts, whether predictions are shown, the subset's config). A later
mirror reads from the manager's server only the tasks whose mark moved, chosen by id, and no
task at all of a subset where none did. A subset is reconciled whole (every task listed,
missing ones imported with their answers) the first time, when its context changed, when an
instance is new, when a chosen task is not where it was recorded, and on ``full`` (``pull
--full``, ``reveal``, ``setup``). What someone changed by hand in the manager's tasks is put
right at the next whole reconciliation, not before; the ML backend's connection is checked on
every mirror (one request a project), so one removed by hand is back at the next pull. The slot's
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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hume_sync import task_types
from hume_sync.errors import LabelStudioError, SetupError
from hume_sync.labelstudio import manager
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.labelstudio.ml_backends import Backend, connect, study_backend
from hume_sync.rules.late_answers import late_answers
from hume_sync.store import (
    AnnotationRow,
    InstanceRow,
    PredictionRecord,
    Store,
    SubsetRow,
    dumps,
    predictions_visible,
    task_ref,
)
from hume_sync.store.mirror_state import digest
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


@dataclass
class _SubsetWork:
    """One subset's mirror inputs, read from the store once."""

    sub: SubsetRow
    instances: list[InstanceRow]
    marks: dict[str, str]  # hume_ref → mark of what its task is made from
    late: dict[str, int]
    predictions: dict[str, list[PredictionRecord]]


def _subset_work(
    store: Store, sub: SubsetRow, late: dict[str, int], show_predictions: bool
) -> _SubsetWork:
    instances = store.instances(sub.key)
    answers = store.answer_marks(sub.key)
    by_hume: dict[str, list[PredictionRecord]] = defaultdict(list)
    if show_predictions:
        for p in store.predictions(sub.key):
            if p.answer is not None:
                by_hume[p.hume_id].append(p)
    marks = {}
    for n, inst in enumerate(instances, 1):
        shown = ",".join(sorted(p.model_version for p in by_hume.get(inst.hume_id, ())))
        parts = (str(n), answers.get(inst.hume_id, ""), str(late.get(inst.hume_id, 0)), shown)
        marks[inst.hume_ref] = digest("\x1d".join(parts))
    return _SubsetWork(sub, instances, marks, late, by_hume)


@dataclass
class _TaskState:
    """What one instance's task on the manager's server should hold."""

    data: dict[str, Any]
    #: pseudonymous account → its annotations, in the slot's answers' order
    wanted: dict[int, list[dict[str, Any]]]
    #: the predictions shown (Label Studio's prediction items, without the task)
    predictions: dict[str, dict[str, Any]]


def _task_states(
    store: Store, work: _SubsetWork, chosen: list[InstanceRow], users: dict[int, int]
) -> dict[str, _TaskState]:
    """hume_ref → :class:`_TaskState` of each ``chosen`` instance, read from the store."""
    sub = work.sub
    task_type = task_types.get(sub.task_type)
    rows: dict[str, list[AnnotationRow]] = defaultdict(list)
    only = None if len(chosen) == len(work.instances) else {i.hume_id for i in chosen}
    for row in store.annotations(sub.key, hume_ids=only):
        rows[row.hume_id].append(row)
    place = {i.hume_id: (n, len(work.instances)) for n, i in enumerate(work.instances, 1)}
    out = {}
    for inst in chosen:
        data = {
            **task_type.ls_task_data(inst.hume_ref, inst.content, position=place[inst.hume_id]),
            **_fields(sub, rows[inst.hume_id], work.late.get(inst.hume_id, 0)),
        }
        wanted: dict[int, list[dict[str, Any]]] = {uid: [] for uid in users.values()}
        for row in rows[inst.hume_id]:
            if row.status != "invalid":
                wanted[users[row.slot]].append(_desired_annotation(sub, inst.content, row))
        predictions = {
            p.model_version: ls_prediction_of(
                sub, inst, p.model_version, p.answer, p.score, DEFAULT_RERANK_RULE
            )
            for p in work.predictions.get(inst.hume_id, ())
        }
        out[inst.hume_ref] = _TaskState(data, wanted, predictions)
    return out


def _reconcile_tasks(
    ls: LabelStudioClient,
    states: Mapping[str, _TaskState],
    tasks: Mapping[str | None, dict[str, Any]],
    project_id: int,
    found: MirrorSummary,
) -> None:
    """Make each task (read from the manager's server, by hume_ref) hold its state: data,
    annotations, predictions."""
    preds: list[dict[str, Any]] = []
    for ref, state in states.items():
        task = tasks[ref]
        if dumps(task.get("data")) != dumps(state.data):
            ls.update_task(int(task["id"]), state.data)
            found.tasks_updated += 1
        _sync_annotations(ls, task, state.wanted, found)
        have = {str(x.get("model_version")) for x in task.get("predictions") or []}
        for version, item in state.predictions.items():
            if version not in have:
                preds.append({"task": int(task["id"]), **item})
    if preds:
        found.predictions_created += ls.import_predictions(project_id, preds)


def _new_task(state: _TaskState) -> dict[str, Any]:
    """A task to import as it should be, its annotations and predictions with it: one import
    request, where writing each answer to an existing task is a request of its own."""
    return {
        "data": state.data,
        "annotations": [
            {**item, "completed_by": user} for user, items in state.wanted.items() for item in items
        ],
        "predictions": list(state.predictions.values()),
    }


def _changed_only(
    ls: LabelStudioClient,
    store: Store,
    work: _SubsetWork,
    context: str,
    users: dict[int, int],
    found: MirrorSummary,
) -> int | None:
    """Reconcile only the tasks whose mark moved since the last mirror; the project's id, or
    None when the subset must be reconciled whole (see the module doc)."""
    known = store.mirrored_subset(work.sub.key)
    if known is None or known.context != context:
        return None
    if any(ref not in known.tasks for ref in work.marks):
        return None
    chosen = [i for i in work.instances if known.tasks[i.hume_ref][1] != work.marks[i.hume_ref]]
    if not chosen:
        return known.ls_project_id
    ids = [known.tasks[i.hume_ref][0] for i in chosen]
    try:
        listed = ls.tasks_by_id(known.ls_project_id, ids)
    except LabelStudioError as exc:
        if exc.status_code not in (400, 404):
            raise
        return None  # the project is gone (a new server, or removed by hand)
    tasks = {task_ref(t.get("data")): t for t in listed}
    if any(
        int(tasks.get(i.hume_ref, {}).get("id", -1)) != known.tasks[i.hume_ref][0] for i in chosen
    ):
        return None  # not where it was recorded: the manager's server changed under the mirror
    states = _task_states(store, work, chosen, users)
    _reconcile_tasks(ls, states, tasks, known.ls_project_id, found)
    marks = {i.hume_ref: (known.tasks[i.hume_ref][0], work.marks[i.hume_ref]) for i in chosen}
    store.record_mirrored(work.sub.key, known.ls_project_id, context, marks, whole=False)
    return known.ls_project_id


def _mirror_whole(
    ls: LabelStudioClient,
    store: Store,
    work: _SubsetWork,
    context: str,
    users: dict[int, int],
    found: MirrorSummary,
) -> int:
    """Reconcile every task of the subset's mirror project (made where missing, imported with
    their annotations and predictions); its id."""
    sub = work.sub
    project_id = _project(ls, store, sub, found)
    states = _task_states(store, work, work.instances, users)
    tasks = {task_ref(t.get("data")): t for t in ls.list_tasks(project_id)}
    missing = [_new_task(state) for ref, state in states.items() if ref not in tasks]
    if missing:
        ls.import_tasks(project_id, missing)
        found.tasks_created += len(missing)
        found.annotations_created += sum(len(t["annotations"]) for t in missing)
        found.predictions_created += sum(len(t["predictions"]) for t in missing)
        tasks = {task_ref(t.get("data")): t for t in ls.list_tasks(project_id)}
    _reconcile_tasks(ls, states, tasks, project_id, found)  # the imported ones: nothing to do
    marks = {ref: (int(tasks[ref]["id"]), mark) for ref, mark in work.marks.items()}
    store.record_mirrored(sub.key, project_id, context, marks, whole=True)
    return project_id


def _connect_backend(
    ls: LabelStudioClient, project_id: int, sub: SubsetRow, backend: Backend, found: MirrorSummary
) -> None:
    try:
        if connect(ls, project_id, backend) != "present":
            found.backend_connected += 1
    except SetupError as exc:
        found.backend_failures.append(f"{sub.key} (manager's project {project_id}): {exc}")


def _context(ls: LabelStudioClient, users: dict[int, int], show: bool) -> str:
    """What every mirrored task of the study was written under, but the subset's own part: the
    manager's server (its address and its admin account's creation, which a server made again
    at the same address does not share), the pseudonymous accounts, and whether predictions
    are shown."""
    me = ls.whoami()
    server = [ls.url, me.get("id"), me.get("date_joined")]
    return dumps({"server": server, "users": sorted(users.items()), "show": show})


def mirror_study(store: Store, ls: LabelStudioClient, *, full: bool = False) -> MirrorSummary:
    """Bring the manager's server up to the store (see the module doc): only what changed since
    the last mirror, or every subset whole with ``full``; what was written."""
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
    study_context = _context(ls, users, show)
    for sub in store.subsets():
        work = _subset_work(store, sub, late, show)
        context = digest(dumps([study_context, sub.config, sub.overlap, len(work.instances)]))
        project_id = None if full else _changed_only(ls, store, work, context, users, found)
        if project_id is None:
            project_id = _mirror_whole(ls, store, work, context, users, found)
        if backend is not None:  # every mirror: a connection removed by hand is put back
            _connect_backend(ls, project_id, sub, backend, found)
    return found


def mirror_if_set_up(store: Store, *, full: bool = False) -> MirrorSummary | None:
    """Mirror into the manager's server when one was set up (``hume-sync manager up``), else
    None: what ``pull``, ``reveal`` and ``setup`` call after their own work (``full``: every
    subset reconciled whole)."""
    ls = manager.client()
    return None if ls is None else mirror_study(store, ls, full=full)
