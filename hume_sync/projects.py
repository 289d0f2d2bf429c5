"""`hume-sync setup`: one Label Studio project per task-subset, tasks imported, overlap set.

Idempotent and resumable: a project is found again by its recorded id (or, after a crash between
creating it and recording it, by its title); tasks already in the project are recognised by the
``hume_ref`` in their data, so a rerun imports only what is missing and never duplicates.
Gold labels never leave the store: tasks are built by ``label_studio_configs`` from the
instance content alone (opaque item ids, shuffled order) and an opaque ``hume_ref``; source ids,
which can encode gold, stay in the store, and predictions are not uploaded here (they stay sealed).

Projects set up before store schema 2 carry ``hume_id = <task>/<subset>/<source id>`` in their
task data. A store migrated from schema 1 keeps those ids (its ``hume_ref`` *is* that hume_id),
so its projects are recognised as before. A newer store never adopts such tasks: setup refuses,
naming the project, instead of mixing leaky tasks with opaque ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import label_studio_configs
from hume_sync.ls_client import LabelStudioClient
from hume_sync.progress import progress
from hume_sync.store import LEGACY_TASK_KEY, Store, StoreError, SubsetRow, task_ref


@dataclass
class ProjectSetup:
    """What setup did for one subset."""

    subset: str
    project_id: int
    created: bool
    imported: int
    recovered: int
    total_tasks: int


@dataclass
class SetupSummary:
    projects: list[ProjectSetup] = field(default_factory=list)
    #: the store dates from schema 1: its tasks show source ids (kept so annotations stay valid)
    legacy_ids: bool = False

    @property
    def created(self) -> int:
        return sum(p.created for p in self.projects)

    @property
    def imported(self) -> int:
        return sum(p.imported for p in self.projects)


def project_title(study_name: str, subset: SubsetRow) -> str:
    """A stable, readable title: ``<study> · <task>/<subset>`` (at most 50 characters)."""
    title = f"{study_name} · {subset.key}"
    return title if len(title) <= 50 else f"{title[:47]}..."


def render_subset_config(subset: SubsetRow) -> str:
    """The labelling interface of a subset, from its stored config (never from gold)."""
    module = label_studio_configs.get(subset.task_type)
    cfg = subset.config
    return module.render_config(
        labels=cfg.get("label_set") if subset.task_type == "classification" else None,
        n_groups=cfg.get("n_groups"),
        instructions=cfg.get("instructions"),
        language=subset.language,
    )


def _ensure_project(
    client: LabelStudioClient,
    store: Store,
    subset: SubsetRow,
    title: str,
    known: set[str],
) -> tuple[int, bool, dict[str, int]]:
    """The subset's project (recorded, found by title, or created) and the tasks it already
    has (``hume_ref`` → task id). A project found by title is checked before anything is
    changed or recorded, so a refused project leaves both Label Studio and the store as they
    were."""
    legacy = store.id_scheme == "source"
    if subset.ls_project_id is not None:
        project = client.get_project(subset.ls_project_id)
        if int(project.get("maximum_annotations") or 0) != subset.overlap:
            client.update_project(subset.ls_project_id, maximum_annotations=subset.overlap)
        client.assert_collab_predictions(subset.ls_project_id, False)
        pid = subset.ls_project_id
        return pid, False, _existing_tasks(client, pid, known, legacy_store=legacy)
    found = client.find_project_by_title(title)
    existing: dict[str, int] = {}
    if found is not None:
        project_id, created = int(found["id"]), False
        existing = _existing_tasks(client, project_id, known, legacy_store=legacy)
        strangers = [ref for ref in existing if ref not in known]
        if strangers:  # references are random per store: these tasks are another store's
            raise StoreError(
                f"Label Studio project {project_id} ({title!r}) holds {len(strangers)} task(s) "
                "this study did not import (another study folder with the same name?); rename "
                "or delete that project, or run setup from the study it belongs to"
            )
        client.update_project(project_id, maximum_annotations=subset.overlap)
        client.assert_collab_predictions(project_id, False)
    else:
        project = client.create_project(
            title=title,
            label_config=render_subset_config(subset),
            maximum_annotations=subset.overlap,
            show_collab_predictions=False,
            description=(
                f"HUME study task {subset.task_name}, subset {subset.hf_subset} "
                f"({subset.language}); {subset.overlap} annotator(s) per item."
            ),
        )
        project_id, created = int(project["id"]), True
    store.set_ls_ids(subset.key, project_id=project_id)
    return project_id, created, existing


def _existing_tasks(
    client: LabelStudioClient, project_id: int, known: set[str], *, legacy_store: bool
) -> dict[str, int]:
    """hume_ref → task id of the tasks already in the project.

    Unless the store itself dates from schema 1, refuses a project whose tasks carry a
    schema-1 ``hume_id`` the store does not know: such tasks show source ids to annotators, and
    adopting them would mix them with opaque ones.
    """
    out: dict[str, int] = {}
    for task in client.list_tasks(project_id):
        data = task.get("data") or {}
        ref = task_ref(data)
        if ref is None:
            continue
        if "hume_ref" not in data and ref not in known and not legacy_store:
            raise StoreError(
                f"Label Studio project {project_id} was set up by an older hume: its tasks carry "
                f"source ids ({LEGACY_TASK_KEY}, e.g. {ref!r}), which can encode gold; delete the "
                "project in Label Studio (or use the study it was set up from) and run setup again"
            )
        out.setdefault(ref, int(task["id"]))
    return out


def setup_subset(client: LabelStudioClient, store: Store, subset: SubsetRow) -> ProjectSetup:
    """Create (or find) the subset's project and import the instances it does not have yet."""
    study_name = store.meta().get("study_name", "hume")
    instances = store.instances(subset.key)
    known = {i.hume_ref for i in instances}
    project_id, created, existing = _ensure_project(
        client, store, subset, project_title(study_name, subset), known
    )
    recovered = {
        i.hume_id: existing[i.hume_ref]
        for i in instances
        if i.hume_ref in existing and i.ls_task_id != existing[i.hume_ref]
    }
    if recovered:
        store.set_ls_ids(subset.key, task_ids=recovered)
    missing = [i for i in instances if i.hume_ref not in existing]
    module = label_studio_configs.get(subset.task_type)
    tasks: list[dict[str, Any]] = [
        {"data": module.task_data(i.hume_ref, i.content)} for i in missing
    ]
    if tasks:
        ids = client.import_tasks(project_id, tasks)
        store.set_ls_ids(
            subset.key, task_ids={i.hume_id: tid for i, tid in zip(missing, ids, strict=True)}
        )
    return ProjectSetup(
        subset=subset.key,
        project_id=project_id,
        created=created,
        imported=len(tasks),
        recovered=len(recovered),
        total_tasks=len(instances),
    )


def setup_study(client: LabelStudioClient, store: Store) -> SetupSummary:
    """Set up every subset of the study; safe to run again at any point."""
    summary = SetupSummary(legacy_ids=store.id_scheme == "source")
    subsets = store.subsets()
    for subset in progress(subsets, desc="setting up projects", total=len(subsets)):
        summary.projects.append(setup_subset(client, store, subset))
    return summary
