"""Closing a study, and revealing its sealed model predictions in Label Studio.

*Sealed* predictions stay out of Label Studio while annotation is open: in Label Studio
Community every signed-in user can read every prediction, so hiding them is not enough.

*Closed*: the store's meta has ``closed_at``. ``hume-sync close`` sets it when ``status`` says the
study is done (every annotator seat filled, every task of every annotator's project with a valid
answer), or at once with ``--force`` (the manager's decision). ``reveal`` also closes a study
that is done; otherwise it refuses, unless ``--force``, which reveals without closing.

``reveal`` writes each stored prediction into its task, in every annotator's project, as a Label
Studio prediction with its own ``model_version`` (mapping in ``ml_backend.reveal``). It first
reads the predictions each task already has and skips every ``model_version`` present there, so
re-running adds none. The ML backend (:mod:`hume_sync.workflow.backend`) serves the same
predictions through Label Studio's ``/predict`` once the study is closed or revealed, and
nothing before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from hume_sync import task_types
from hume_sync.errors import RevealError
from hume_sync.store import (
    CLOSED_AT,
    CLOSED_BY,
    REVEALED_AT,
    InstanceRow,
    Store,
    SubsetRow,
    is_closed,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from hume_sync.labelstudio.client import LabelStudioClient
    from hume_sync.workflow.status import StudyStatus

    ClientFor = Callable[[str], LabelStudioClient]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _set_meta(store: Store, values: Mapping[str, str]) -> None:
    store.set_meta(values)


# --------------------------------------------------------------------------- close


def _unfinished(status: StudyStatus) -> str:
    parts = status.unfinished() or ["no annotator has a project yet"]
    shown = "; ".join(parts[:5]) + (f" and {len(parts) - 5} more" if len(parts) > 5 else "")
    return f"{len(parts)} thing(s) left: {shown}"


@dataclass
class CloseResult:
    closed_at: str
    closed_by: str
    already: bool


def close_study(
    store: Store, client_for: ClientFor | None = None, *, force: bool = False
) -> CloseResult:
    """Mark the study closed: ``status`` says it is done, or ``force``."""
    from hume_sync.workflow.status import study_status

    meta = store.meta()
    if CLOSED_AT in meta:
        return CloseResult(meta[CLOSED_AT], meta.get(CLOSED_BY, ""), already=True)
    if force:
        how = "forced by the manager"
    else:
        if client_for is None:
            raise RevealError("checking that annotation is over needs Label Studio")
        status = study_status(store, client_for, full=True)  # the close reads everything
        if not status.done:
            raise RevealError(
                f"the study is still open: {_unfinished(status)}; close it anyway with --force"
            )
        how = "every task of every annotator answered"
    stamp = _now()
    _set_meta(store, {CLOSED_AT: stamp, CLOSED_BY: how})
    return CloseResult(stamp, how, already=False)


# --------------------------------------------------------------------------- reveal


@dataclass
class SubsetReveal:
    subset: str
    projects: int
    created: int = 0
    present: int = 0
    without_task: int = 0
    invalid: list[str] = field(default_factory=list)


@dataclass
class RevealSummary:
    closed_now: bool = False
    forced: bool = False
    subsets: list[SubsetReveal] = field(default_factory=list)

    @property
    def created(self) -> int:
        return sum(s.created for s in self.subsets)

    @property
    def present(self) -> int:
        return sum(s.present for s in self.subsets)


def ls_prediction_of(
    sub: SubsetRow,
    inst: InstanceRow,
    model_version: str,
    answer: Any,
    score: float | None,
    rule: str,
) -> dict[str, Any]:
    from ml_backend.reveal import ls_prediction

    return ls_prediction(
        task_types.get(sub.task_type),
        model_version,
        answer,
        score,
        config=sub.config,
        content=inst.content,
        rule=rule,
    )


def reveal_study(
    store: Store,
    client_for: ClientFor,
    *,
    force: bool = False,
    rule: str | None = None,
) -> RevealSummary:
    """Write the stored predictions into every annotator's project; idempotent.

    Refused while the study is open (see the module doc) unless ``force``.
    """
    from hume_sync.workflow.status import study_status
    from ml_backend.reveal import DEFAULT_RERANK_RULE

    rule = rule or DEFAULT_RERANK_RULE
    summary = RevealSummary(forced=force)
    if not is_closed(store) and not force:
        status = study_status(store, client_for, full=True)  # the close reads everything
        if not status.done:
            raise RevealError(
                f"the study is still open: {_unfinished(status)}; predictions stay sealed "
                "until 'hume-sync close' (or reveal --force)"
            )
        close_study(store, client_for)
        summary.closed_now = True
    annotators = {a.slot: a for a in store.annotators()}
    for sub in store.subsets():
        projects = store.slot_projects(sub.key)
        result = SubsetReveal(sub.key, len(projects))
        summary.subsets.append(result)
        preds = store.predictions(sub.key)
        if not projects:
            result.without_task = len({p.hume_id for p in preds})
            continue
        items = _ls_predictions(sub, store.instances(sub.key), preds, rule, result)
        for project in projects:
            if annotators[project.slot].retired_at is not None:
                continue  # a retired annotator's server is stopped (annotators remove)
            client = client_for(annotators[project.slot].ls_url)
            by_id = {tid: hid for hid, tid in store.slot_tasks(sub.key, project.slot).items()}
            _reveal_in_project(client, project.ls_project_id, by_id, preds, items, result)
    if REVEALED_AT not in store.meta():
        _set_meta(store, {REVEALED_AT: _now()})
    return summary


def _ls_predictions(
    sub: Any, instances: Any, preds: list[Any], rule: str, result: SubsetReveal
) -> dict[tuple[str, str], dict[str, Any]]:
    """One Label Studio prediction per stored one (keyed by item and model version), to show in
    every annotator's project; answers the interface cannot show are listed as invalid."""
    from label_studio_configs.errors import InvalidAnswerError, InvalidContentError

    by_id = {i.hume_id: i for i in instances}
    items: dict[tuple[str, str], dict[str, Any]] = {}
    for p in preds:
        if p.answer is None:  # an LLM failure kept for the report: nothing to show
            continue
        try:
            items[p.hume_id, p.model_version] = ls_prediction_of(
                sub, by_id[p.hume_id], p.model_version, p.answer, p.score, rule
            )
        except (InvalidAnswerError, InvalidContentError, ValueError) as exc:
            result.invalid.append(f"{p.model_version} for {p.hume_id}: {exc}")
    return items


def _reveal_in_project(
    client: LabelStudioClient,
    ls_project_id: int,
    by_id: dict[int, str],
    preds: list[Any],
    items: dict[tuple[str, str], dict[str, Any]],
    result: SubsetReveal,
) -> None:
    """Import the predictions one project's tasks do not have yet (by model version)."""
    tasks: dict[str, dict[str, Any]] = {}
    for task in client.list_tasks(ls_project_id):
        hid = by_id.get(int(task["id"]))
        if hid is not None:
            tasks.setdefault(hid, task)
    batch: list[dict[str, Any]] = []
    for p in preds:
        shown = tasks.get(p.hume_id)
        if shown is None:
            result.without_task += 1
            continue
        item = items.get((p.hume_id, p.model_version))
        if item is None:
            continue
        have = {str(x.get("model_version")) for x in shown.get("predictions") or []}
        if p.model_version in have:
            result.present += 1
            continue
        batch.append({"task": int(shown["id"]), **item})
    if batch:
        result.created += client.import_predictions(ls_project_id, batch)
