"""The ML backend's view of a study: what ``hume-ml-backend`` serves to Label Studio.

:class:`StudySource` answers ``/predict`` from the study store's sealed predictions, and nothing
while the study is open (:func:`hume_sync.store.predictions_visible`); ``ml_backend.app`` speaks
the protocol and knows no study. ``hume-ml-backend`` (``hume_sync.cli.backend_main``) builds the
app with :func:`create_backend_app` and hands it to ``ml_backend.serve``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hume_sync.errors import RevealError
from hume_sync.store import (
    STORE_NAME,
    InstanceRow,
    Store,
    SubsetRow,
    predictions_visible,
    task_ref,
)
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


#: One stored prediction as the index keeps it: (model_version, answer, score).
_Stored = tuple[str, Any, "float | None"]


class _StudyIndex:
    """What ``/setup`` and ``/predict`` need from one version of the store, read once.

    Built from a few whole-table reads when the store changes; a request then costs dictionary
    look-ups. Label Studio predictions are made from the stored answers the first time a task
    is asked about and kept (``items``), so nothing is decoded twice.
    """

    def __init__(self, store: Store, rule: str) -> None:
        self.rule = rule
        self.visible = predictions_visible(store)
        subsets = store.subsets()
        self.subset_of: dict[str, SubsetRow] = {}
        self.instance: dict[str, InstanceRow] = {}
        self.by_ref: dict[str, str] = {}
        for sub in subsets:
            for inst in store.instances(sub.key):
                self.subset_of[inst.hume_id] = sub
                self.instance[inst.hume_id] = inst
                self.by_ref[inst.hume_ref] = inst.hume_id
        self.by_task_id = _unique_task_ids(store)
        # Per instance, its stored answers in the store's order (model_version, then sample).
        self.stored: dict[str, list[_Stored]] = {}
        versions: dict[str, set[str]] = {s.key: set() for s in subsets}
        for p in store.predictions():
            sub = self.subset_of[p.hume_id]
            versions[sub.key].add(p.model_version)
            if p.answer is not None:
                self.stored.setdefault(p.hume_id, []).append((p.model_version, p.answer, p.score))
        # /setup: the first model version of the project's subset(s), else of the study.
        every = min((v for vs in versions.values() for v in vs), default=None)
        self.study_version = every
        by_project: dict[int, set[str]] = {}
        for sp in store.slot_projects():
            by_project.setdefault(sp.ls_project_id, set()).update(versions.get(sp.subset_key, ()))
        self.project_version: dict[int, str | None] = {
            pid: min(vs, default=None) for pid, vs in by_project.items()
        }
        self.items: dict[str, list[tuple[str, dict[str, Any]]]] = {}

    def first_version(self, pid: int | None) -> str | None:
        if pid is not None and pid in self.project_version:
            return self.project_version[pid]
        return self.study_version

    def predictions_of(self, hid: str) -> list[tuple[str, dict[str, Any]]]:
        """(model_version, Label Studio prediction) of every usable stored answer, made once."""
        made = self.items.get(hid)
        if made is None:
            from label_studio_configs.errors import InvalidAnswerError, InvalidContentError

            sub, inst = self.subset_of[hid], self.instance[hid]
            made = []
            for version, answer, score in self.stored.get(hid, ()):
                try:
                    # Imported here: the task types behind it load numpy and scipy, which
                    # ``hume-ml-backend --help`` (it reads STUDY_DIR_ENV from here) must not.
                    from hume_sync.workflow.reveal import ls_prediction_of

                    item = ls_prediction_of(sub, inst, version, answer, score, self.rule)
                except (InvalidAnswerError, InvalidContentError, ValueError):
                    continue
                made.append((version, item))
            self.items[hid] = made
        return made


class StudySource:
    """The ML backend's view of a study: stored predictions, shown only once visible.

    Reads the store once into an index (:class:`_StudyIndex`) and again only when the store has
    changed: each call asks SQLite whether another connection committed since (``PRAGMA
    data_version`` on a read-only connection of this process, reopened after a fork or when the
    file is replaced), so a close, a reveal or a new prediction is seen by the next request.
    Keeps no model in memory, and appends webhook events to ``STUDY_DIR/events/webhook.jsonl``.
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
        self._lock = threading.Lock()
        self._probe: sqlite3.Connection | None = None
        self._probe_key: tuple[int, int, int] | None = None  # (pid, device, inode)
        self._index: _StudyIndex | None = None
        self._index_version: int | None = None
        self.builds = 0  # how many times the index was read (tests, benchmarks)
        with self._open() as store:
            self.study_name = store.study_meta().study_name or self.study_dir.name

    def _open(self) -> Store:
        return Store.open(self.store_path)

    def _data_version(self) -> int | None:
        """SQLite's change counter as this process's probe connection sees it (None: unknown).

        The probe is opened per process (a connection must not cross a fork) and per file (a
        replaced store is a new file); its first answer forces a read of the store.
        """
        try:
            st = os.stat(self.store_path)
        except OSError:
            return None
        key = (os.getpid(), st.st_dev, st.st_ino)
        if self._probe is None or self._probe_key != key:
            if self._probe is not None and self._probe_key and self._probe_key[0] == key[0]:
                self._probe.close()  # same process, replaced file (a forked copy is left alone)
            self._probe = None
            self._index_version = None
            try:
                uri = f"{self.store_path.resolve().as_uri()}?mode=ro"
                self._probe = sqlite3.connect(uri, uri=True, check_same_thread=False)
            except sqlite3.Error:
                return None
            self._probe_key = key
        try:
            return int(self._probe.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            self._probe = None
            return None

    def _current(self) -> _StudyIndex:
        """The index of the store as it is now, read again only if it changed."""
        with self._lock:
            version = self._data_version()
            if self._index is None or version is None or version != self._index_version:
                with self._open() as store:
                    self._index = _StudyIndex(store, self.rule)
                self._index_version = version
                self.builds += 1
            return self._index

    def describe(self) -> dict[str, Any]:
        visible = self._current().visible
        return {"study": self.study_name, "predictions": "visible" if visible else "sealed"}

    def model_version(self, project: str | None) -> str:
        """``hume:sealed`` while sealed; else the first model version stored for the project's
        subset (or the study): Label Studio then skips tasks that already have it."""
        index = self._current()
        if not index.visible:
            return SEALED_MODEL_VERSION
        # project ids are per server: an id seen on several servers matches each subset
        return index.first_version(_project_id(project)) or NO_MODEL_VERSION

    def predict(
        self, tasks: Sequence[Mapping[str, Any]], project: str | None
    ) -> list[list[dict[str, Any]]]:
        out: list[list[dict[str, Any]]] = [[] for _ in tasks]
        index = self._current()
        if not index.visible:
            return out
        for n, task in enumerate(tasks):
            hid = index.by_ref.get(task_ref(task.get("data")) or "")
            if hid is None and isinstance(task.get("id"), int):
                hid = index.by_task_id.get(task["id"])
            if hid is None:
                continue
            made = index.predictions_of(hid)
            if not made:
                continue
            have = {
                str(x.get("model_version"))
                for x in task.get("predictions") or []
                if isinstance(x, Mapping)
            }
            out[n] = [item for version, item in made if version not in have]
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
