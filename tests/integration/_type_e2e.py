"""One task type's study, end to end in the annotators' own Label Studio servers.

Every type's end-to-end module (``test_<type>_e2e.py``) runs the same steps a user runs:
``init`` from a spec, ``predict`` (a fake encoder), ``annotators add`` for the two servers of
``annotator_servers`` (session-scoped: the servers are started once per pytest worker and
shared by every such module), ``setup``, both annotators answering through the SDK in the
interface's own result format, ``pull``, ``close``, ``reveal`` and ``export``. Those steps, and
the reads every module checks the same way (the slot-1 project, what pull stored, the exported
subset, the revealed predictions, a screen at a laptop's size), live here once, so that a
type's module holds only what is its own: its spec, how its scripted annotators answer, and its
assertions on its report rows.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import InstanceRow, SlotProject, Store, SubsetRow, gold
from hume_sync.workflow.predict import predict_study
from tests._annotate import hume_env, register
from tests._fake_encoder import FakeEncoder
from tests._studies import write_spec

#: ``choose(subset, instance, gold)`` → {slot: answer}: what each scripted annotator answers
#: (in the type's plain answer form) on one instance; a slot left out does not answer it.
Choose = Callable[[SubsetRow, InstanceRow, Any], dict[int, Any]]


@dataclass
class TypeStudy:
    """A study set up on both annotators' servers, and what was submitted to it (by subset
    key, then ``annotator-<slot>``, then hume_id) once `answer` has run."""

    root: Path
    dir: Path
    a: Any  # AnnotatorServer of slot 1
    b: Any  # AnnotatorServer of slot 2
    encoder: Any
    submitted: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    @property
    def model_version(self) -> str:
        return str(self.encoder.model_version)

    @property
    def out(self) -> Path:
        """Where `close_and_export` writes the report."""
        return self.root / "report"

    def project(self, key: str, slot: int = 1) -> SlotProject:
        with Store.open(self.dir) as store:
            return next(p for p in store.slot_projects(key) if p.slot == slot)

    def instances_by_ref(self, key: str) -> dict[str, InstanceRow]:
        with Store.open(self.dir) as store:
            return {i.hume_ref: i for i in store.instances(key)}

    def gold(self, key: str) -> dict[str, Any]:
        with Store.open(self.dir) as store:
            return gold(store, key)

    def predictions(self, key: str) -> dict[str, Any]:
        """hume_id → the fake encoder's stored prediction."""
        with Store.open(self.dir) as store:
            return {p.hume_id: p for p in store.predictions(key, model_version=self.model_version)}

    def shown(self, key: str) -> tuple[str, list[dict[str, Any]]]:
        """Slot 1's project as Label Studio holds it: its label config and its tasks."""
        client = self.a.server.client()
        project = self.project(key).ls_project_id
        return client.get_project(project)["label_config"], client.list_tasks(project)

    def pulled(self, key: str) -> dict[str, dict[str, Any]]:
        """What pull stored, by annotator and hume_id; every row must be valid."""
        with Store.open(self.dir) as store:
            rows = store.annotations(key)
        valid: dict[str, dict[str, Any]] = {}
        for r in rows:
            assert r.status == "valid", r.error
            valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
        return valid

    def exported(self, key: str) -> dict[str, Any]:
        """The subset's entry of the export's scores.json."""
        data = json.loads((self.out / "scores.json").read_text())
        return next(s for s in data["subsets"] if s["subset"] == key)

    def report_md(self) -> str:
        return (self.out / "report.md").read_text(encoding="utf-8")

    def revealed(self, key: str) -> Iterator[tuple[InstanceRow, list[dict[str, Any]]]]:
        """Each of slot 1's tasks after reveal: its instance and the predictions of this
        study's model that Label Studio shows on it."""
        refs = self.instances_by_ref(key)
        client = self.a.server.client()
        for task in client.list_tasks(self.project(key).ls_project_id):
            mine = [p for p in task["predictions"] if p["model_version"] == self.model_version]
            yield refs[task["data"]["hume_ref"]], mine


@contextlib.contextmanager
def set_up(
    annotator_servers: list[Any],
    tmp_path_factory: pytest.TempPathFactory,
    spec: dict[str, Any],
    languages: tuple[str, str] = ("eng", "eng"),
    *,
    encoder: Any = None,
    init: Callable[[Path, dict[str, Any]], None] | None = None,
) -> Iterator[TypeStudy]:
    """``init`` (the CLI from ``spec``, or ``init(study_dir, spec)``), ``predict`` with
    ``encoder`` (default: the suite's `FakeEncoder`), ``annotators add`` of A and B with their
    ``languages``, then ``setup``; hume's home and environment are the study's own until exit."""
    root = tmp_path_factory.mktemp(spec["name"])
    mp = hume_env(root)
    try:
        study_dir = root / "study"
        if init is None:
            spec_file = write_spec(study_dir, spec)
            assert main(["init", str(study_dir), "--spec", str(spec_file)]) == 0
        else:
            init(study_dir, spec)
        encoder = encoder or FakeEncoder()
        with Store.open(study_dir) as store:
            predict_study(study_dir, store, encoders=[encoder], progress=False)
        a, b = annotator_servers
        register(study_dir, a, languages[0], mp)
        register(study_dir, b, languages[1], mp)
        assert main(["setup", str(study_dir)]) == 0
        yield TypeStudy(root, study_dir, a, b, encoder)
    finally:
        mp.undo()


def answer(study: TypeStudy, keys: Iterable[str], choose: Choose, *, lead_time: float) -> None:
    """Each annotator submits ``choose``'s answers on their own server with their own token,
    translated by the type's interface into its Label Studio result; the two annotators work at
    the same time (one thread each), as people do. What was submitted is kept in
    ``study.submitted``."""
    posts: dict[int, list[tuple[int, list[dict[str, Any]]]]] = {1: [], 2: []}
    with Store.open(study.dir) as store:
        for key in keys:
            subset = store.subset(key)
            interface = task_types.get(subset.task_type)
            golds = gold(store, key)
            mine = study.submitted.setdefault(key, {})
            tasks = {slot: store.slot_tasks(key, slot) for slot in posts}
            for inst in store.instances(key):
                kw = interface.ls_translation_kwargs(subset.config, inst.content)
                for slot, given in choose(subset, inst, golds[inst.hume_id]).items():
                    result = interface.ls_answer_to_result(given, **kw)
                    posts[slot].append((tasks[slot][inst.hume_id], result))
                    mine.setdefault(f"annotator-{slot}", {})[inst.hume_id] = given
    servers = {1: study.a, 2: study.b}

    def submit(slot: int) -> None:
        client = servers[slot].server.client(servers[slot].token)
        for task, result in posts[slot]:
            client.create_annotation(task, result, lead_time=lead_time)

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(submit, posts))


def close_and_export(study: TypeStudy) -> None:
    """``pull``, ``close``, ``reveal``, then ``export`` into ``study.out``."""
    for step in ("pull", "close", "reveal"):
        assert main([step, str(study.dir)]) == 0, step
    assert main(["export", str(study.dir), "--out", str(study.out)]) == 0


@pytest.fixture(scope="module")
def page(world: TypeStudy, browser: Any) -> Iterator[Any]:
    """A page of annotator A, logged in on her own server through its login form once for a
    module's screen tests (each opens its own task); a module takes it as ``page = e2e.page``
    beside its ``world`` (a `TypeStudy`) and ``browser`` fixtures."""
    from tests.integration import test_answers_e2e as answers

    logged_in = answers.log_in(browser, world.a)
    yield logged_in
    logged_in.close()


def screen(page: Any, study: TypeStudy, key: str, shot: Path) -> Any:
    """Annotator A's first task of ``key`` at 1366×768 on ``page`` (the `page` fixture), saved to
    ``shot``; the screen's measures (`test_annotator_screens.MEASURE`), once the things every
    screen must hold are checked: nothing overflows or lies outside the view, and the position
    reads "Task 1 of <the subset's size>"."""
    from tests.integration.test_annotator_screens import MEASURE, open_stream

    n_tasks = len(study.instances_by_ref(key))
    page.set_viewport_size({"width": 1366, "height": 768})
    open_stream(page, study.a.url, study.project(key).ls_project_id)
    page.screenshot(path=shot)
    m = page.evaluate(MEASURE)
    assert m["page_overflow_px"] <= 0 and m["scroller_overflow_px"] <= 0, m
    assert m["outside"] == 0, m
    assert m["position"] == f"Task 1 of {n_tasks}", m
    return m
