"""The ML backend's view of a study: what ``hume-ml-backend`` serves to Label Studio.

:class:`StudySource` answers ``/predict`` from the study store's sealed predictions, and nothing
while the study is open (:func:`hume_sync.store.predictions_visible`); ``ml_backend.app`` speaks
the protocol and knows no study. ``hume-ml-backend`` (``hume_sync.cli.backend_main``) builds the
app with :func:`create_backend_app` and hands it to ``ml_backend.serve``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hume_sync.errors import RevealError
from hume_sync.steps.reveal import ls_prediction_of
from hume_sync.store import STORE_NAME, Store, predictions_visible, task_ref
from ml_backend.event_log import EventLog

if TYPE_CHECKING:
    from flask import Flask


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


EVENTS_PATH = Path("events") / "webhook.jsonl"


STUDY_DIR_ENV = "HUME_STUDY_DIR"


SEALED_MODEL_VERSION = "hume:sealed"  # what /setup reports while nothing may be shown


NO_MODEL_VERSION = "hume:no-predictions"


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
                        item = ls_prediction_of(
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
