"""Closing a study, revealing sealed model predictions in Label Studio, and the ML backend's source.

*Sealed* predictions stay out of Label Studio while annotation is open: in Label Studio
Community every signed-in user can read every prediction, so hiding them is not enough.

*Closed*: the store's meta has ``closed_at``. ``hume-sync close`` sets it when every subset's
project is finished in Label Studio (each task has its ``maximum_annotations``), or at once with
``--force`` (the manager's decision). ``reveal`` also closes a study whose projects are all
finished; otherwise it refuses, unless ``--force``, which reveals without closing.

``reveal`` writes each stored prediction into its task as a Label Studio prediction with its own
``model_version`` (mapping in ``ml_backend.reveal``). It first reads the predictions each task
already has and skips every ``model_version`` present there, so re-running adds none. The ML
backend app (``create_backend_app``) serves the same predictions through Label Studio's
``/predict`` once the study is closed or revealed, and nothing before.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hume_sync.progress import say
from hume_sync.store import STORE_NAME, InstanceRow, Store, StoreError, SubsetRow, task_ref

if TYPE_CHECKING:
    from flask import Flask

    from hume_sync.ls_client import LabelStudioClient

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


@dataclass(frozen=True)
class ProjectProgress:
    subset: str
    project_id: int | None
    instances: int
    tasks: int
    finished: int

    @property
    def done(self) -> bool:
        return (
            self.project_id is not None
            and self.tasks >= self.instances
            and (self.finished >= self.tasks)
        )


def project_progress(client: LabelStudioClient, store: Store) -> list[ProjectProgress]:
    """Per subset: instances, tasks in its project, and tasks finished there."""
    counts = client.list_project_counts()
    out = []
    for sub in store.subsets():
        n = len(store.instances(sub.key))
        if sub.ls_project_id is None:
            out.append(ProjectProgress(sub.key, None, n, 0, 0))
            continue
        c = counts.get(sub.ls_project_id) or client.project_counts(sub.ls_project_id)
        out.append(
            ProjectProgress(
                sub.key, sub.ls_project_id, n, c["task_number"], c["finished_task_number"]
            )
        )
    return out


def _unfinished(progress: Sequence[ProjectProgress]) -> str:
    parts = []
    for p in progress:
        if p.done:
            continue
        if p.project_id is None:
            parts.append(f"{p.subset} (no project; run 'hume-sync setup')")
        else:
            parts.append(f"{p.subset} ({p.finished}/{max(p.tasks, p.instances)} tasks finished)")
    shown = ", ".join(parts[:5]) + (f" and {len(parts) - 5} more" if len(parts) > 5 else "")
    return f"{len(parts)} project(s) unfinished: {shown}"


@dataclass
class CloseResult:
    closed_at: str
    closed_by: str
    already: bool


def close_study(
    store: Store, client: LabelStudioClient | None = None, *, force: bool = False
) -> CloseResult:
    """Mark the study closed: every project finished in Label Studio, or ``force``."""
    meta = store.meta()
    if CLOSED_AT in meta:
        return CloseResult(meta[CLOSED_AT], meta.get(CLOSED_BY, ""), already=True)
    if force:
        how = "forced by the manager"
    else:
        if client is None:
            raise RevealError("checking that annotation is over needs Label Studio")
        progress = project_progress(client, store)
        if not all(p.done for p in progress):
            raise RevealError(
                f"the study is still open: {_unfinished(progress)}; close it anyway with --force"
            )
        how = "every project finished"
    stamp = _now()
    _set_meta(store, {CLOSED_AT: stamp, CLOSED_BY: how})
    return CloseResult(stamp, how, already=False)


# --------------------------------------------------------------------------- reveal


@dataclass
class SubsetReveal:
    subset: str
    project_id: int | None
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
    client: LabelStudioClient,
    *,
    force: bool = False,
    rule: str | None = None,
) -> RevealSummary:
    """Write the stored predictions into the Label Studio projects; idempotent.

    Refused while the study is open (see the module doc) unless ``force``.
    """
    from label_studio_configs.errors import InvalidAnswerError, InvalidContentError
    from ml_backend.reveal import DEFAULT_RERANK_RULE

    rule = rule or DEFAULT_RERANK_RULE
    summary = RevealSummary(forced=force)
    if not is_closed(store):
        if force:
            pass
        else:
            progress = project_progress(client, store)
            if not all(p.done for p in progress):
                raise RevealError(
                    f"the study is still open: {_unfinished(progress)}; predictions stay sealed "
                    "until 'hume-sync close' (or reveal --force)"
                )
            close_study(store, client)
            summary.closed_now = True
    for sub in store.subsets():
        result = SubsetReveal(sub.key, sub.ls_project_id)
        summary.subsets.append(result)
        preds = store.predictions(sub.key)
        if sub.ls_project_id is None:
            result.without_task = len({p.hume_id for p in preds})
            continue
        tasks: dict[str, dict[str, Any]] = {}
        for task in client.list_tasks(sub.ls_project_id):
            ref = task_ref(task.get("data"))
            if ref is not None:
                tasks.setdefault(ref, task)
        instances = {i.hume_id: i for i in store.instances(sub.key)}
        batch: list[dict[str, Any]] = []
        for p in preds:
            task = tasks.get(instances[p.hume_id].hume_ref)
            if task is None:
                result.without_task += 1
                continue
            if p.answer is None:  # an LLM failure kept for the report: nothing to show
                continue
            have = {str(x.get("model_version")) for x in task.get("predictions") or []}
            if p.model_version in have:
                result.present += 1
                continue
            try:
                item = _ls_prediction(
                    sub, instances[p.hume_id], p.model_version, p.answer, p.score, rule
                )
            except (InvalidAnswerError, InvalidContentError, ValueError) as exc:
                result.invalid.append(f"{p.model_version} for {p.hume_id}: {exc}")
                continue
            batch.append({"task": int(task["id"]), **item})
        if batch:
            result.created = client.import_predictions(sub.ls_project_id, batch)
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
        self.events_path = self.study_dir / EVENTS_PATH
        self._events_lock = threading.Lock()
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
            subsets = [s for s in every if s.ls_project_id == pid] or every
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
            by_ref = store.instances_by_ref()
            by_task_id = {i.ls_task_id: i for i in by_ref.values() if i.ls_task_id is not None}
            wanted: dict[str, list[int]] = {}
            for n, task in enumerate(tasks):
                inst = by_ref.get(task_ref(task.get("data")) or "")
                if inst is None and isinstance(task.get("id"), int):
                    inst = by_task_id.get(task["id"])
                if inst is not None:
                    wanted.setdefault(inst.hume_id, []).append(n)
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
        line = json.dumps(
            {"received_at": _now(), **dict(event)}, ensure_ascii=False, sort_keys=True
        )
        with self._events_lock:
            self.events_path.parent.mkdir(parents=True, exist_ok=True)
            with self.events_path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
                fh.flush()
                os.fsync(fh.fileno())


def read_events(study_dir: str | Path) -> list[dict[str, Any]]:
    """The webhook events recorded for a study, oldest first."""
    path = Path(study_dir) / EVENTS_PATH
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


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


def _client() -> LabelStudioClient:
    from hume_sync.ls_client import LabelStudioClient

    return LabelStudioClient.from_env_or_embedded()


def cmd_close(args: argparse.Namespace) -> int:
    with _open_study(args.study_dir) as store:
        result = close_study(store, None if args.force else _client(), force=args.force)
    if result.already:
        print(f"study already closed at {result.closed_at} ({result.closed_by})")
    else:
        print(f"study closed at {result.closed_at} ({result.closed_by})")
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    with _open_study(args.study_dir) as store:
        summary = reveal_study(store, _client(), force=args.force, rule=args.rerank_rule)
    if summary.closed_now:
        say("every project is finished: the study is now closed")
    for s in summary.subsets:
        for problem in s.invalid[:5]:
            say(f"warning: not revealed: {problem}")
        where = "no project" if s.project_id is None else f"project {s.project_id}"
        print(
            f"  {s.subset:<50} {where}: {s.created} added, {s.present} already there"
            + (f", {s.without_task} without a task" if s.without_task else "")
        )
    print(f"{summary.created} prediction(s) added, {summary.present} already in Label Studio")
    return 0
