"""`hume-sync setup`: for every subset, one project on each of its annotators' own servers.

Annotators (``hume-sync annotators add``) each have a Label Studio of their own; a subset goes to
the first ``overlap`` annotators who read its languages (``annotators.plan_seats``: a bitext
subset's two), and each of them gets a project with every instance of the subset, one
annotation per task.

Identity never depends on a title: the store records each project's id per subset and slot, and
every project carries a marker (``hume:<hash of study, subset, slot>``) in its description, so a
run that died between creating a project and recording it finds it again instead of making a
second one (the first project on each server is created while that server's projects are
listed for markers; a leftover in the listing wins, and the new project is deleted again). A
new project is recorded with its tasks' ids, in one commit after the import
(each commit waits for the disk, ~20 ms here; a first setup paid two per project). Tasks
already in a project are recognised by the ``hume_ref`` in their data, so a rerun imports only
what is missing. A rerun asks Label Studio little: one listing of each
server's projects (only the fields it checks), then, per project, a count of the tasks in each
run of recorded ids (one request for a project set up in one go); only when those do not show
exactly the recorded tasks does it read the tasks' ids and data (never their annotations).
Titles are for people: ``<study> · <task>/<subset>``, shortened in the middle to Label
Studio's 50 characters, with a short hash when shortened so that two subsets never share a
title.

A project deleted in Label Studio is reported with its subset and annotator; ``--recreate-missing``
makes it again and re-imports its tasks (answers already pulled stay in the store).
Gold labels never leave the store: tasks are built by ``label_studio_configs`` from the
instance content alone (opaque item ids, shuffled order) and an opaque ``hume_ref``; source ids,
which can encode gold, stay in the store, and predictions are not uploaded here (they stay sealed).

A store migrated from schema 1 keeps the ids its annotations already use (its ``hume_ref`` *is*
the old ``hume_id``, items keep their source ids) so that those annotations stay valid; setup
warns that its tasks show source ids. A new study folder gets opaque ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from hume_sync import task_types
from hume_sync.errors import SetupError
from hume_sync.labelstudio.annotators import plan_seats, seat_languages
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.labelstudio.ml_backends import Backend, connect
from hume_sync.progress import progress
from hume_sync.store import AnnotatorRow, InstanceRow, Store, SubsetRow, task_ref

#: Label Studio's limit on project titles (``Project.title`` max_length).
TITLE_MAX = 50
#: One annotator per task: each project belongs to exactly one annotator.
ANNOTATIONS_PER_TASK = 1

ClientFor = Callable[[str], LabelStudioClient]


@dataclass
class ProjectSetup:
    """What setup did for one subset on one annotator's server."""

    subset: str
    slot: int
    email: str
    url: str
    project_id: int
    created: bool
    recovered_project: bool
    imported: int
    recovered: int
    total_tasks: int
    config_restored: bool = False
    recreated: bool = False
    #: hume's ML backend in this project: connected / updated / present (None: no backend)
    ml_backend: str | None = None


@dataclass(frozen=True)
class OpenSeat:
    """A seat of a subset that no registered annotator can take yet."""

    subset: str
    #: what it waits for: ``eng``, ``eng+ara`` when both must be read, and for an arm "with no
    #: seat in" the other arms
    language: str


@dataclass
class SetupSummary:
    projects: list[ProjectSetup] = field(default_factory=list)
    open_seats: list[OpenSeat] = field(default_factory=list)
    kept_answers: int = 0  # answers of recreated projects that stay in the store
    #: the store dates from schema 1: its tasks show source ids (kept so annotations stay valid)
    legacy_ids: bool = False
    #: projects the study's ML backend could not be connected to, one line each
    ml_backend_failures: list[str] = field(default_factory=list)

    @property
    def created(self) -> int:
        return sum(p.created for p in self.projects)

    @property
    def imported(self) -> int:
        return sum(p.imported for p in self.projects)


@dataclass(frozen=True)
class MissingProject:
    subset: str
    slot: int
    email: str
    url: str
    project_id: int

    def __str__(self) -> str:
        return (
            f"{self.subset} (slot {self.slot}, {self.email}): project {self.project_id} is gone "
            f"from {self.url}"
        )


def project_title(study_name: str, subset_key: str) -> str:
    """``<study> · <task>/<subset>``; shortened from the middle (keeping both ends, where names
    differ) with a hash of the full key, so that titles stay readable and unique."""
    title = f"{study_name} · {subset_key}"
    if len(title) <= TITLE_MAX:
        return title
    tag = " #" + hashlib.sha256(title.encode()).hexdigest()[:4]
    room = TITLE_MAX - len(tag) - 1  # one character for the ellipsis
    tail = min(len(subset_key), room * 3 // 5)
    head = room - tail
    return f"{title[:head]}…{title[-tail:]}{tag}"


def project_marker(study_uid: str, subset_key: str, slot: int) -> str:
    """The identity mark in a project's description (a title may be renamed or shortened)."""
    digest = hashlib.sha256(f"{study_uid}\0{subset_key}\0{slot}".encode()).hexdigest()[:20]
    return f"hume:{digest}"


def render_subset_config(subset: SubsetRow) -> str:
    """The labelling interface of a subset, from its stored config (never from gold)."""
    return task_types.get(subset.task_type).ls_subset_config(
        subset.config, language=subset.language
    )


def _description(subset: SubsetRow, marker: str) -> str:
    return (
        f"HUME study task {subset.task_name}, subset {subset.hf_subset} ({subset.language}). "
        f"[{marker}]"
    )


#: The project fields setup checks on a rerun, and the only ones it asks Label Studio for (of
#: the per-project counters, only the number of tasks).
PROJECT_FIELDS = "id,label_config,maximum_annotations,show_collab_predictions,task_number"
#: What the marker search lists of each server's projects (no per-project task counters).
MARKER_FIELDS = "id,title,description"
#: At most this many runs of consecutive task ids are checked by counting (one request each)
#: before setup reads the project's task list instead.
MAX_ID_RUNS = 20


def recorded_projects(
    store: Store, client_for: ClientFor
) -> tuple[dict[tuple[str, int], dict[str, Any]], list[MissingProject]]:
    """The recorded projects as their servers list them, by (subset, slot), and those that Label
    Studio no longer has (deleted there). One listing per server (:data:`PROJECT_FIELDS` only),
    not a GET per project: a rerun with nothing to do should cost next to nothing."""
    annotators = {a.slot: a for a in store.annotators()}
    listed: dict[str, dict[int, dict[str, Any]]] = {}
    found: dict[tuple[str, int], dict[str, Any]] = {}
    missing = []
    for p in store.slot_projects():
        a = annotators[p.slot]
        if a.retired_at is not None:
            continue  # retired: their server is stopped, their projects stay as they were
        if a.ls_url not in listed:
            projects = client_for(a.ls_url).list_projects(include=PROJECT_FIELDS)
            listed[a.ls_url] = {int(x["id"]): x for x in projects}
        project = listed[a.ls_url].get(p.ls_project_id)
        if project is None:
            missing.append(MissingProject(p.subset_key, p.slot, a.email, a.ls_url, p.ls_project_id))
        else:
            found[(p.subset_key, p.slot)] = project
    return found, missing


def missing_projects(store: Store, client_for: ClientFor) -> list[MissingProject]:
    """Recorded projects that Label Studio no longer has (deleted there)."""
    return recorded_projects(store, client_for)[1]


def recreate_hint(study_dir: str) -> str:
    return (
        f"run 'hume-sync setup {study_dir} --recreate-missing' to create it again and re-import "
        "its tasks (answers already pulled stay in the store)"
    )


def _existing_tasks(client: LabelStudioClient, project_id: int) -> dict[str, int]:
    """hume_ref → task id of the tasks already in the project (a store migrated from schema 1
    keeps the ``hume_id`` its tasks were imported with as their reference: ``task_ref``). Only
    ids and data are read (:meth:`LabelStudioClient.task_refs`), never annotations."""
    out: dict[str, int] = {}
    for task_id, data in client.task_refs(project_id):
        ref = task_ref(data)
        if ref is not None:
            out.setdefault(ref, task_id)
    return out


def _id_runs(ids: list[int]) -> list[tuple[int, int]]:
    """The runs of consecutive ids in ``ids``, as (first, last)."""
    runs: list[tuple[int, int]] = []
    for i in sorted(set(ids)):
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def _recorded_tasks_all_there(
    client: LabelStudioClient, project_id: int, task_ids: list[int], task_number: Any
) -> bool:
    """Whether the project holds exactly the recorded tasks, told without reading them.

    The project has as many tasks as were recorded (``task_number``), and for each run of
    consecutive recorded ids, as many tasks with an id in that run as the run is long: so every
    recorded id is there and no other task is. One import gives consecutive ids, so a project
    set up in one go costs one request, whatever its size. More than :data:`MAX_ID_RUNS` runs,
    or an unknown count: False (the caller reads the task list)."""
    if task_number is None or int(task_number) != len(set(task_ids)) or not task_ids:
        return False
    runs = _id_runs(task_ids)
    if len(runs) > MAX_ID_RUNS:
        return False
    return all(
        client.count_tasks_between(project_id, first, last) == last - first + 1
        for first, last in runs
    )


def _check_project(
    client: LabelStudioClient, project: dict[str, Any], config: str
) -> tuple[int, bool]:
    """Put a recorded project's settings back where they drifted, in one PATCH at most (none
    when nothing drifted); (project id, labelling config restored)."""
    project_id = int(project["id"])
    fields: dict[str, Any] = {}
    if int(project.get("maximum_annotations") or 0) != ANNOTATIONS_PER_TASK:
        fields["maximum_annotations"] = ANNOTATIONS_PER_TASK
    # Community lets every member edit the interface of a project they can open: put ours
    # back (results are checked against ours on pull anyway).
    restored = str(project.get("label_config") or "").strip() != config.strip()
    if restored:
        fields["label_config"] = config
    if bool(project.get("show_collab_predictions")):  # predictions stay out of sight
        fields["show_collab_predictions"] = False
    if fields:
        updated = client.update_project(project_id, **fields)
        if bool(updated.get("show_collab_predictions")):
            raise SetupError(
                f"Label Studio at {client.url} did not keep show_collab_predictions=False "
                f"(project {project_id})"
            )
    return project_id, restored


class MarkedProjects:
    """Each server's projects with their descriptions, listed once per setup run, searched
    for a marker.

    Why: setup looks for a subset's marker on its annotator's server before creating the
    project (a run that died between creating and recording it left one there), and listing
    the server's projects for every subset made a first setup of a study with many subsets
    list each server once per subset, each listing longer than the last (issue 38). A project
    this run creates is recorded in the store at once, so it is never searched for again: the
    listing taken at the first search holds every project a search can find.

    The first listing of a server can run in the background (:meth:`start`) while setup
    creates its first project there: a request of ~50 ms on an idle embedded server, a sixth
    of a 1,000-task setup, no longer waited for before the create (issue 38).
    """

    def __init__(self) -> None:
        self._listed: dict[str, list[dict[str, Any]]] = {}
        self._pending: dict[str, Future[list[dict[str, Any]]]] = {}
        self._pool: ThreadPoolExecutor | None = None

    def listed(self, client: LabelStudioClient) -> bool:
        """Whether ``client``'s server was listed (or is being listed) in this run."""
        return client.url in self._listed or client.url in self._pending

    def start(self, client: LabelStudioClient) -> None:
        """Begin listing ``client``'s projects in the background; :meth:`find` waits for it."""
        if self.listed(client):
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hume-markers")
        self._pending[client.url] = self._pool.submit(client.list_projects, include=MARKER_FIELDS)

    def find(self, client: LabelStudioClient, marker: str) -> list[dict[str, Any]]:
        """The projects of ``client``'s server whose description carries ``marker``.

        Args:
            client: The annotator's Label Studio.
            marker: The project's marker (:func:`project_marker`).

        Returns:
            The projects found, as the server listed them (id, title, description).
        """
        if client.url not in self._listed:
            pending = self._pending.pop(client.url, None)
            self._listed[client.url] = (
                pending.result()
                if pending is not None
                else client.list_projects(include=MARKER_FIELDS)
            )
        return [p for p in self._listed[client.url] if marker in str(p.get("description") or "")]

    def close(self) -> None:
        """Wait for a listing still in flight (its error, if any, is dropped) and stop."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._pending.clear()


def _ensure_project(
    client: LabelStudioClient,
    store: Store,
    subset: SubsetRow,
    annotator: AnnotatorRow,
    study_name: str,
    marker: str,
    listed: dict[str, Any] | None = None,
    marked: MarkedProjects | None = None,
) -> tuple[int, bool, bool, bool]:
    """(project id, created, found again by its marker, labelling config restored).

    ``listed``: the recorded project as its server listed it (:func:`recorded_projects`);
    without it, a recorded project is read with one GET. ``marked``: the run's listing of
    each server's projects; without it, the server is listed for this marker alone. A project
    created here is not recorded yet: :func:`setup_slot` records it with its tasks, in one
    commit (a run that dies before finds it again by its marker)."""
    config = render_subset_config(subset)
    recorded = next((p for p in store.slot_projects(subset.key) if p.slot == annotator.slot), None)
    if recorded is not None:
        project = listed if listed is not None else client.get_project(recorded.ls_project_id)
        project_id, restored = _check_project(client, project, config)
        return project_id, False, False, restored
    if marked is not None and not marked.listed(client):
        # The server's first project this run: created while the server lists its projects,
        # and dropped again if the listing shows one left by a run that died (issue 38).
        marked.start(client)
        project = _create_project(client, subset, study_name, config, marker)
        new_id = int(project["id"])
        found = [p for p in marked.find(client, marker) if int(p["id"]) != new_id]
        if not found:
            return new_id, True, False, False
        client.delete_project(new_id)
    else:
        found = (
            client.find_projects_by_marker(marker)
            if marked is None
            else marked.find(client, marker)
        )
    if len(found) > 1:
        ids = ", ".join(str(p.get("id")) for p in found)
        raise SetupError(
            f"{subset.key}: {client.url} has {len(found)} projects marked {marker} (ids {ids}); "
            "delete the extra ones"
        )
    if not found:
        return (
            int(_create_project(client, subset, study_name, config, marker)["id"]),
            True,
            False,
            False,
        )
    project_id = int(found[0]["id"])
    client.update_project(project_id, maximum_annotations=ANNOTATIONS_PER_TASK)
    client.assert_collab_predictions(project_id, False)
    store.set_slot_project(subset.key, annotator.slot, project_id, marker)
    return project_id, False, True, False


def _create_project(
    client: LabelStudioClient, subset: SubsetRow, study_name: str, config: str, marker: str
) -> dict[str, Any]:
    """A new project for the subset's slot, its marker in the description."""
    return client.create_project(
        title=project_title(study_name, subset.key),
        label_config=config,
        maximum_annotations=ANNOTATIONS_PER_TASK,
        show_collab_predictions=False,
        description=_description(subset, marker),
    )


def task_payloads(
    subset: SubsetRow, instances: list[InstanceRow], which: list[InstanceRow] | None = None
) -> list[dict[str, Any]]:
    """The Label Studio tasks of ``which`` (by default every instance), as setup imports them:
    the task data of the subset's type, each with its place among ``instances`` ("Task n of
    N"). One function for setup and its benchmark, so that Label Studio's side of the
    comparison imports exactly the same data."""
    task_type = task_types.get(subset.task_type)
    place = {i.hume_id: (n, len(instances)) for n, i in enumerate(instances, 1)}
    return [
        {"data": task_type.ls_task_data(i.hume_ref, i.content, position=place[i.hume_id])}
        for i in (instances if which is None else which)
    ]


def setup_slot(
    client: LabelStudioClient,
    store: Store,
    subset: SubsetRow,
    annotator: AnnotatorRow,
    listed: dict[str, Any] | None = None,
    marked: MarkedProjects | None = None,
) -> ProjectSetup:
    """Create (or find) the subset's project on the annotator's server and import what is
    missing (``listed``: the recorded project as its server listed it, if known; ``marked``:
    the run's listing of the servers' projects, for the marker search)."""
    meta = store.meta()
    marker = project_marker(store.study_uid(), subset.key, annotator.slot)
    project_id, created, found, restored = _ensure_project(
        client, store, subset, annotator, meta.get("study_name", "hume"), marker, listed, marked
    )
    instances = store.instances(subset.key)
    recorded = store.slot_tasks(subset.key, annotator.slot)
    if created:
        existing: dict[str, int] = {}
    elif (
        listed is not None
        and all(i.hume_id in recorded for i in instances)
        and _recorded_tasks_all_there(
            client, project_id, list(recorded.values()), listed.get("task_number")
        )
    ):
        existing = {i.hume_ref: recorded[i.hume_id] for i in instances}  # nothing to do
    else:
        existing = _existing_tasks(client, project_id)
    recovered = {
        i.hume_id: existing[i.hume_ref]
        for i in instances
        if i.hume_ref in existing and recorded.get(i.hume_id) != existing[i.hume_ref]
    }
    if recovered:
        store.set_slot_tasks(subset.key, annotator.slot, recovered)
    missing = [i for i in instances if i.hume_ref not in existing]
    tasks = task_payloads(subset, instances, missing)
    imported: dict[str, int] = {}
    if tasks:
        ids = client.import_tasks(project_id, tasks)
        imported = {i.hume_id: tid for i, tid in zip(missing, ids, strict=True)}
    if created:  # the new project and its tasks, in one commit (record_new_project)
        store.record_new_project(subset.key, annotator.slot, project_id, marker, imported)
    elif imported:
        store.set_slot_tasks(subset.key, annotator.slot, imported)
    return ProjectSetup(
        subset=subset.key,
        slot=annotator.slot,
        email=annotator.email,
        url=annotator.ls_url,
        project_id=project_id,
        created=created,
        recovered_project=found,
        imported=len(tasks),
        recovered=len(recovered),
        total_tasks=len(instances),
        config_restored=restored,
    )


def _connect_backend(
    client: LabelStudioClient, done: ProjectSetup, backend: Backend, summary: SetupSummary
) -> None:
    try:
        done.ml_backend = connect(client, done.project_id, backend)
    except SetupError as exc:
        summary.ml_backend_failures.append(f"{done.subset} (slot {done.slot}): {exc}")


def setup_study(
    store: Store,
    client_for: ClientFor,
    *,
    recreate_missing: bool = False,
    study_dir: str = "STUDY_DIR",
    ml_backend: Backend | None = None,
) -> SetupSummary:
    """Set up every subset on its annotators' servers; safe to run again at any point.

    ``ml_backend``: connect it to every project (:mod:`hume_sync.labelstudio.ml_backends`);
    a project it cannot be connected to is listed in ``ml_backend_failures``."""
    summary = SetupSummary(legacy_ids=store.id_scheme == "source")
    listed, missing = recorded_projects(store, client_for)
    if missing and not recreate_missing:
        shown = "; ".join(str(m) for m in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise SetupError(f"{shown}{more}; {recreate_hint(study_dir)}")
    recreated = set()
    for m in missing:
        store.forget_slot_project(m.subset, m.slot)
        recreated.add((m.subset, m.slot))
        summary.kept_answers += sum(
            1 for a in store.annotations(m.subset) if a.slot == m.slot and a.status == "valid"
        )
    annotators = {a.slot: a for a in store.annotators()}
    subsets = {s.key: s for s in store.subsets()}
    seats = plan_seats(store)
    work = [(subsets[k], slot) for k, slots in seats.items() for slot in slots]
    marked = MarkedProjects()
    try:
        for subset, slot in progress(work, desc="setting up projects", total=len(work)):
            if slot is None:
                waits_for = seat_languages(subset)
                others = subset.config.get("exclusive_with") or []
                if others:  # an arm: its reader must hold no seat in the other arms
                    waits_for += f" with no seat in {', '.join(others)}"
                summary.open_seats.append(OpenSeat(subset.key, waits_for))
                continue
            annotator = annotators[slot]
            if annotator.retired_at is not None:
                continue  # a seat a retired annotator finished: nothing left to set up
            done = setup_slot(
                client_for(annotator.ls_url),
                store,
                subset,
                annotator,
                listed.get((subset.key, slot)),
                marked,
            )
            done.recreated = (subset.key, slot) in recreated
            if ml_backend is not None:
                _connect_backend(client_for(annotator.ls_url), done, ml_backend, summary)
            summary.projects.append(done)
    finally:
        marked.close()
    return summary
