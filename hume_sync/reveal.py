"""Closing a study, revealing sealed model predictions in Label Studio, and the ML backend's source.

*Sealed* predictions stay out of Label Studio while annotation is open: in Label Studio
Community every signed-in user can read every prediction, so hiding them is not enough.

*Closed*: the store's meta has ``closed_at``. ``hume-sync close`` sets it when ``status`` says the
study is done (every annotator seat filled, every task of every annotator's project with a valid
answer), or at once with ``--force`` (the manager's decision). ``reveal`` also closes a study
that is done; otherwise it refuses, unless ``--force``, which reveals without closing.

``reveal`` writes each stored prediction into its task, in every annotator's project, as a Label
Studio prediction with its own ``model_version`` (mapping in ``ml_backend.reveal``). It first
reads the predictions each task already has and skips every ``model_version`` present there, so
re-running adds none. The ML
backend app (``create_backend_app``) serves the same predictions through Label Studio's
``/predict`` once the study is closed or revealed, and nothing before.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hume_sync.progress import say
from hume_sync.store import STORE_NAME, InstanceRow, Store, StoreError, SubsetRow, task_ref
from ml_backend.event_log import EventLog

if TYPE_CHECKING:
    from collections.abc import Callable

    from flask import Flask

    from hume_sync.ls_client import LabelStudioClient
    from hume_sync.status import StudyStatus

    ClientFor = Callable[[str], LabelStudioClient]

CLOSED_AT = "closed_at"
CLOSED_BY = "closed_by"
REVEALED_AT = "revealed_at"
EVENTS_PATH = Path("events") / "webhook.jsonl"
STUDY_DIR_ENV = "HUME_STUDY_DIR"
SEALED_MODEL_VERSION = "hume:sealed"  # what /setup reports while nothing may be shown
NO_MODEL_VERSION = "hume:no-predictions"


class RevealError(StoreError):
    """Revealing or closing was refused (study still open, no projects...)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _set_meta(store: Store, values: Mapping[str, str]) -> None:
    store.set_meta(values)


def is_closed(store: Store) -> bool:
    """Whether annotation is over (``close`` ran, or ``reveal`` found every project finished)."""
    return CLOSED_AT in store.meta()


def predictions_visible(store: Store) -> bool:
    """Whether predictions may be shown: the study is closed or was revealed (``--force``)."""
    meta = store.meta()
    return CLOSED_AT in meta or REVEALED_AT in meta


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
    from hume_sync.status import study_status

    meta = store.meta()
    if CLOSED_AT in meta:
        return CloseResult(meta[CLOSED_AT], meta.get(CLOSED_BY, ""), already=True)
    if force:
        how = "forced by the manager"
    else:
        if client_for is None:
            raise RevealError("checking that annotation is over needs Label Studio")
        status = study_status(store, client_for)
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


def _ls_prediction(
    sub: SubsetRow,
    inst: InstanceRow,
    model_version: str,
    answer: Any,
    score: float | None,
    rule: str,
) -> dict[str, Any]:
    from ml_backend.reveal import ls_prediction

    return ls_prediction(
        sub.task_type,
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
    from hume_sync.status import study_status
    from label_studio_configs.errors import InvalidAnswerError, InvalidContentError
    from ml_backend.reveal import DEFAULT_RERANK_RULE

    rule = rule or DEFAULT_RERANK_RULE
    summary = RevealSummary(forced=force)
    if not is_closed(store) and not force:
        status = study_status(store, client_for)
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
        instances = {i.hume_id: i for i in store.instances(sub.key)}
        # One Label Studio prediction per stored one, shown in every annotator's project.
        items: dict[tuple[str, str], dict[str, Any]] = {}
        for p in preds:
            if p.answer is None:  # an LLM failure kept for the report: nothing to show
                continue
            try:
                items[p.hume_id, p.model_version] = _ls_prediction(
                    sub, instances[p.hume_id], p.model_version, p.answer, p.score, rule
                )
            except (InvalidAnswerError, InvalidContentError, ValueError) as exc:
                result.invalid.append(f"{p.model_version} for {p.hume_id}: {exc}")
        for project in projects:
            client = client_for(annotators[project.slot].ls_url)
            by_id = {tid: hid for hid, tid in store.slot_tasks(sub.key, project.slot).items()}
            tasks: dict[str, dict[str, Any]] = {}
            for task in client.list_tasks(project.ls_project_id):
                hid = by_id.get(int(task["id"]))
                if hid is not None:
                    tasks.setdefault(hid, task)
            batch: list[dict[str, Any]] = []
            for p in preds:
                task = tasks.get(p.hume_id)
                if task is None:
                    result.without_task += 1
                    continue
                item = items.get((p.hume_id, p.model_version))
                if item is None:
                    continue
                have = {str(x.get("model_version")) for x in task.get("predictions") or []}
                if p.model_version in have:
                    result.present += 1
                    continue
                batch.append({"task": int(task["id"]), **item})
            if batch:
                result.created += client.import_predictions(project.ls_project_id, batch)
    if REVEALED_AT not in store.meta():
        _set_meta(store, {REVEALED_AT: _now()})
    return summary


# --------------------------------------------------------------------------- ML backend source


def _project_id(project: str | None) -> int | None:
    """The project id of Label Studio's ``"<id>.<timestamp>"`` uid (None if absent/garbled)."""
    if not project:
        return None
    head = str(project).split(".", 1)[0]
    return int(head) if head.isdigit() else None


def _unique_task_ids(store: Store) -> dict[int, str]:
    """LS task id → hume_id over every annotator's server, ids that are unique only (a task id
    seen on two servers cannot tell which instance Label Studio asks about)."""
    seen: dict[int, set[str]] = {}
    for a in store.annotators():
        for sub in store.subsets():
            for hid, tid in store.slot_tasks(sub.key, a.slot).items():
                seen.setdefault(tid, set()).add(hid)
    return {tid: next(iter(hids)) for tid, hids in seen.items() if len(hids) == 1}


class StudySource:
    """The ML backend's view of a study: stored predictions, shown only once visible.

    Opens the store per call (SQLite connections are per thread; gunicorn may fork), keeps no
    model in memory, and appends webhook events to ``STUDY_DIR/events/webhook.jsonl``.
    """

    def __init__(self, study_dir: str | Path, *, rule: str | None = None) -> None:
        from ml_backend.reveal import DEFAULT_RERANK_RULE, RERANK_RULES

        self.study_dir = Path(study_dir)
        self.store_path = self.study_dir / STORE_NAME
        if not self.store_path.is_file():
            raise RevealError(f"{self.study_dir}: not a study (no {STORE_NAME})")
        self.rule = rule or DEFAULT_RERANK_RULE
        if self.rule not in RERANK_RULES:
            raise RevealError(f"unknown reranking rule {self.rule!r}")
        self.events = EventLog(self.study_dir / EVENTS_PATH)
        self.events_path = self.events.path
        with self._open() as store:
            self.study_name = store.meta().get("study_name", self.study_dir.name)

    def _open(self) -> Store:
        return Store.open(self.store_path)

    def describe(self) -> dict[str, Any]:
        with self._open() as store:
            visible = predictions_visible(store)
        return {"study": self.study_name, "predictions": "visible" if visible else "sealed"}

    def model_version(self, project: str | None) -> str:
        """``hume:sealed`` while sealed; else the first model version stored for the project's
        subset (or the study): Label Studio then skips tasks that already have it."""
        with self._open() as store:
            if not predictions_visible(store):
                return SEALED_MODEL_VERSION
            pid = _project_id(project)
            every = store.subsets()
            # project ids are per server: an id seen on several servers matches each subset
            subsets = [
                s for s in every if any(p.ls_project_id == pid for p in store.slot_projects(s.key))
            ] or every
            versions = sorted({p.model_version for s in subsets for p in store.predictions(s.key)})
        return versions[0] if versions else NO_MODEL_VERSION

    def predict(
        self, tasks: Sequence[Mapping[str, Any]], project: str | None
    ) -> list[list[dict[str, Any]]]:
        from label_studio_configs.errors import InvalidAnswerError, InvalidContentError

        out: list[list[dict[str, Any]]] = [[] for _ in tasks]
        with self._open() as store:
            if not predictions_visible(store):
                return out
            subsets = {s.key: s for s in store.subsets()}
            by_ref = {ref: i.hume_id for ref, i in store.instances_by_ref().items()}
            by_task_id: dict[int, str] = {}
            wanted: dict[str, list[int]] = {}
            for n, task in enumerate(tasks):
                hid = by_ref.get(task_ref(task.get("data")) or "")
                if hid is None and isinstance(task.get("id"), int):
                    if not by_task_id:
                        by_task_id = _unique_task_ids(store)
                    hid = by_task_id.get(task["id"])
                if hid is not None:
                    wanted.setdefault(hid, []).append(n)
            if not wanted:
                return out
            for key, sub in subsets.items():
                instances = {i.hume_id: i for i in store.instances(key) if i.hume_id in wanted}
                if not instances:
                    continue
                for p in store.predictions(key):
                    inst = instances.get(p.hume_id)
                    if inst is None or p.answer is None:
                        continue
                    try:
                        item = _ls_prediction(
                            sub, inst, p.model_version, p.answer, p.score, self.rule
                        )
                    except (InvalidAnswerError, InvalidContentError, ValueError):
                        continue
                    for n in wanted[p.hume_id]:
                        have = {
                            str(x.get("model_version"))
                            for x in tasks[n].get("predictions") or []
                            if isinstance(x, Mapping)
                        }
                        if p.model_version not in have:
                            out[n].append(item)
        return out

    def record_event(self, event: Mapping[str, Any]) -> None:
        """Append to ``STUDY/events/webhook.jsonl``, a bounded, rotating log (ml_backend)."""
        self.events.append({"received_at": _now(), **dict(event)})


def read_events(study_dir: str | Path) -> list[dict[str, Any]]:
    """The webhook events still kept for a study, oldest first (rotated files included)."""
    return EventLog(Path(study_dir) / EVENTS_PATH).read()


def create_backend_app(
    study_dir: str | Path | None = None,
    *,
    basic_auth: tuple[str, str] | None = None,
    rule: str | None = None,
) -> Flask:
    """The ML backend app for a study (``study_dir`` or ``$HUME_STUDY_DIR``); gunicorn's target."""
    from ml_backend.app import create_app

    study = study_dir or os.environ.get(STUDY_DIR_ENV)
    if not study:
        raise RevealError(f"no study: pass study_dir or set {STUDY_DIR_ENV}")
    return create_app(StudySource(study, rule=rule), basic_auth=basic_auth)


# --------------------------------------------------------------------------- CLI


def add_close_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "close",
        help="mark annotation as over (every project finished, or --force)",
        description="Mark the study closed so that its sealed predictions may be revealed. "
        "Without --force every subset's Label Studio project must be finished.",
    )
    p.add_argument("study_dir", metavar="STUDY_DIR")
    p.add_argument("--force", action="store_true", help="close even if projects are unfinished")
    p.set_defaults(func=cmd_close)
    return p


def add_reveal_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "reveal",
        help="write the sealed model predictions into the Label Studio projects",
        description="After the study is closed, add each stored prediction to its task with "
        "its model_version (re-running adds none). --force reveals an open study.",
    )
    p.add_argument("study_dir", metavar="STUDY_DIR")
    p.add_argument("--force", action="store_true", help="reveal even if the study is open")
    p.add_argument(
        "--rerank-rule",
        choices=("gap", "top1"),
        default=None,
        help="which candidates an embedding model marks relevant (default: gap)",
    )
    p.set_defaults(func=cmd_reveal)
    return p


def _open_study(study_dir: str) -> Store:
    path = Path(study_dir) / STORE_NAME
    if not path.is_file():
        raise RevealError(f"{study_dir}: not a study (no {STORE_NAME}); run 'hume-sync init' first")
    return Store.open(path)


def _clients() -> ClientFor:
    from hume_sync.ls_servers import Clients

    return Clients()


def cmd_close(args: argparse.Namespace) -> int:
    with _open_study(args.study_dir) as store:
        result = close_study(store, None if args.force else _clients(), force=args.force)
    if result.already:
        print(f"study already closed at {result.closed_at} ({result.closed_by})")
    else:
        print(f"study closed at {result.closed_at} ({result.closed_by})")
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    with _open_study(args.study_dir) as store:
        summary = reveal_study(store, _clients(), force=args.force, rule=args.rerank_rule)
    if summary.closed_now:
        say("every task of every annotator is answered: the study is now closed")
    for s in summary.subsets:
        for problem in s.invalid[:5]:
            say(f"warning: not revealed: {problem}")
        where = "no project" if not s.projects else f"{s.projects} project(s)"
        print(
            f"  {s.subset:<50} {where}: {s.created} added, {s.present} already there"
            + (f", {s.without_task} without a task" if s.without_task else "")
        )
    print(f"{summary.created} prediction(s) added, {summary.present} already in Label Studio")
    return 0
