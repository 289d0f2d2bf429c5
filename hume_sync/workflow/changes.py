"""Read a project's changes since the last pull, and tell when that view cannot be trusted.

``pull`` and ``status`` used to read every annotated task of every project each time, the cost
of Label Studio's full export (23.5 s at 10,000 tasks; the dashboard asks every 30 s). Now the
store keeps, per project, what the last pull saw (:class:`~hume_sync.store.sync_state.SyncState`:
the project id, the newest task ``updated_at``, the annotations it saw and does not store), and
a read asks Label Studio only for the tasks changed since (:meth:`LabelStudioClient.changed_tasks`).

Why ``updated_at`` of the task: Label Studio saves the task whenever one of its annotations is
created, changed or deleted, so a deleted annotation shows as a changed task without it. What a
task filter cannot see (a bulk delete through the Data Manager, which skips that save; a server
restored from a backup; a project recreated) the read catches by checking, after the changes are
applied, that the counts add up:

- the project is the one the state was taken of (same id), and a state exists (first pull, or a
  store from before schema 8: full read);
- a task is still there at or after the newest time the last pull saw (a server restored from
  an older backup has lost it);
- the store's live annotations of the project plus the ones it saw and does not store equal
  Label Studio's own count (``total_annotations_number + skipped_annotations_number``, counted
  by the server from its annotation table, so no bulk operation escapes it).

Anything else reads the project in full, as ``--full``, ``close`` and ``annotators remove`` do
always. Each read asks for the tasks changed since the last one began, less
:data:`REREAD_MARGIN`: a transaction that commits a moment after its ``updated_at`` was stamped
is not missed, nor is a change on a server whose clock is up to that much behind hume's (the
start is hume's clock; reading a task twice writes nothing). Measured from the start of the last
read, not from the newest change: a burst of changes (an import) is read once, not again by
every later read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import AnnotatorRow, InstanceRow
from hume_sync.store.sync_state import SyncState, Uncounted

#: How far before the start of the last read each read looks again (see the module docstring).
REREAD_MARGIN = timedelta(minutes=2)


def now_text() -> str:
    """Now, on hume's clock, as the state keeps it (ISO 8601, UTC, microseconds)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 time as Label Studio writes it (``…Z``), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


#: The project fields :func:`label_studio_count` reads.
COUNT_FIELDS = ("total_annotations_number", "skipped_annotations_number")


def label_studio_count(info: Mapping[str, Any]) -> int | None:
    """How many annotations (skips included) Label Studio counts in a project, from its
    project record; None when the server did not send the counters."""
    if "total_annotations_number" not in info:
        return None
    return int(info.get("total_annotations_number") or 0) + int(
        info.get("skipped_annotations_number") or 0
    )


def author_id(annotation: Mapping[str, Any]) -> Any:
    """The Label Studio user id that made an annotation (``completed_by``)."""
    who = annotation.get("completed_by")
    return who.get("id") if isinstance(who, dict) else who


@dataclass
class ProjectSeen:
    """What one read of a project saw besides the answers it stores: the newest task time and
    the annotations it does not store (:class:`Uncounted`)."""

    watermark: str | None = None
    uncounted: list[Uncounted] = field(default_factory=list)
    #: When this read began (hume's clock): where the next one starts, less the margin.
    read_from: str = field(default_factory=now_text)
    _newest: datetime | None = None

    @classmethod
    def continuing(
        cls, state: SyncState, changed_ids: Iterable[int], read_from: str
    ) -> ProjectSeen:
        """The view of a read of the changes that began at ``read_from``: the last state's,
        less what the changed tasks will say again."""
        again = set(changed_ids)
        seen = cls(
            uncounted=[u for u in state.uncounted if u.task not in again], read_from=read_from
        )
        seen.saw_time(state.watermark)
        return seen

    def saw_time(self, value: Any) -> None:
        """Keep ``value`` as the watermark if it is the newest task time yet."""
        when = parse_time(value)
        if when is not None and (self._newest is None or when > self._newest):
            self._newest, self.watermark = when, str(value)

    def split(
        self, task: Mapping[str, Any], ours: bool, annotator: AnnotatorRow
    ) -> list[dict[str, Any]]:
        """The annotations of ``task`` that belong to the slot's annotator; the others are
        kept as uncounted (another account's, or every one on a task that is not ours)."""
        self.saw_time(task.get("updated_at"))
        task_id = int(task["id"])
        out = []
        for ann in task.get("annotations") or []:
            author = author_id(ann)
            if not ours:
                self.uncounted.append(Uncounted(task_id, int(ann["id"]), "unknown", author))
            elif annotator.ls_user_id is not None and author != annotator.ls_user_id:
                self.uncounted.append(Uncounted(task_id, int(ann["id"]), "foreign", author))
            else:
                out.append(ann)
        return out

    def state(self, subset: str, slot: int, project_id: int) -> SyncState:
        return SyncState(
            subset,
            slot,
            project_id,
            self.watermark,
            tuple(self.uncounted),
            read_from=self.read_from,
        )


def usable(state: SyncState | None, project_id: int, full: bool) -> SyncState | None:
    """The state an incremental read may start from, or None (read in full)."""
    if full or state is None or state.ls_project_id != int(project_id):
        return None
    return state


def changed_tasks(
    client: LabelStudioClient, project_id: int, state: SyncState
) -> list[dict[str, Any]] | None:
    """The project's tasks changed since the last read began (less :data:`REREAD_MARGIN`), or
    None when they cannot be trusted: no time to start from, or no task left at or after the
    newest one the last read saw (a server restored from an older backup)."""
    start = parse_time(state.read_from)
    if start is None:
        return None
    tasks = list(client.changed_tasks(project_id, start - REREAD_MARGIN))
    mark = parse_time(state.watermark)
    if mark is None or any((parse_time(t.get("updated_at")) or mark) >= mark for t in tasks):
        return tasks
    return tasks if client.count_changed_tasks(project_id, mark) else None


def counts_add_up(stored_live: int, seen: ProjectSeen, label_studio: int | None) -> bool:
    """Whether the store's live annotations of a project plus those seen and not stored are
    exactly what Label Studio counts (unknown when the server sent no counters: not trusted)."""
    return label_studio is not None and stored_live + len(seen.uncounted) == label_studio


def ours(instances: Mapping[int, InstanceRow], task: Mapping[str, Any], subset: str) -> bool:
    """Whether ``task`` is one of the subset's tasks on this slot."""
    instance = instances.get(int(task["id"]))
    return instance is not None and instance.subset_key == subset
