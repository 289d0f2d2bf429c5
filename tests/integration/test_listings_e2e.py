"""What `setup` and `pull` ask an annotator's Label Studio, read from that server's own log.

Label Studio logs every request (``django.server``) in its data folder's ``label-studio.log``,
and a page asked for past the end of a listing as an ERROR "Invalid page." with a traceback.
With page sizes of 2 (so that listings take several pages), one annotator on their own server
(``annotator_servers``, A):

- setup and pull ask for no page past the end (no "Invalid page", no 404), and still see every
  task and every annotation across the pages (a task deleted by hand makes the rerun read the
  project's task list: three pages, and the one task missing imported again);
- a setup rerun with nothing to do asks only for what tells which tasks exist: one listing of
  the server's projects (only the fields setup checks) and one count per run of recorded task
  ids, nothing else: no task list, no GET per project, no annotations, no change;
- projects whose record was lost (a run that died between creating and recording them) are
  found by their markers from one listing of the server, however many there are.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import client as ls_client
from hume_sync.store import Store, gold
from tests._annotate import gold_result, hume_env, set_up_study
from tests._studies import real_data_spec

pytestmark = pytest.mark.labelstudio

PAGE = 2
CLASSIFICATION = "SIB200Classification/eng_Latn"
REQUEST = re.compile(
    r'\[django\.server::log_message::\d+\] \[\w+\] "(?P<method>[A-Z]+) (?P<path>\S+)'
)


class ServerLog:
    """The annotator's server log from a point on (each request once: Label Studio writes a
    request line to the file through two handlers)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.mark()

    def mark(self, quiet: float = 0.5, limit: float = 10.0) -> None:
        """From here on, once the log has been still for ``quiet`` seconds: Django writes a
        request's line after sending its response, so on a loaded machine the last request
        of the step before can land after a mark taken at once (a `make test` run saw a
        request of the previous test's counted in this one)."""
        deadline = time.monotonic() + limit
        size = self.path.stat().st_size
        while time.monotonic() < deadline:
            time.sleep(quiet)
            now = self.path.stat().st_size
            if now == size:
                break
            size = now
        self.offset = size

    def lines(self) -> list[str]:
        with self.path.open("rb") as fh:
            fh.seek(self.offset)
            text = fh.read().decode("utf-8", "replace")
        out: list[str] = []
        for line in text.splitlines():
            if not out or line != out[-1]:
                out.append(line)
        return out

    def requests(self) -> list[tuple[str, str]]:
        return [(m["method"], m["path"]) for x in self.lines() if (m := REQUEST.search(x))]


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """A study of 15 tasks in 5 projects on A's server, with every listing 2 a page; the log
    marked before its first setup."""
    a = annotator_servers[0]
    root = tmp_path_factory.mktemp("listings")
    mp = hume_env(root)
    for name in ("PAGE_SIZE", "TASK_PAGE_SIZE", "REF_PAGE_SIZE"):
        if hasattr(ls_client, name):  # (the names differ in older code: a test run against it)
            mp.setattr(ls_client, name, PAGE)
    log = ServerLog(a.server.data_dir / "label-studio.log")
    spec = real_data_spec("listings", 3, cls_eng=7, cls_arb=2, sts=3, rerank=2)
    study_dir = set_up_study(root / "study", spec, [(a, "eng,ara")], mp)
    with Store.open(study_dir) as store:
        sizes = {s.key: store.instance_count(s.key) for s in store.subsets()}
        projects = {p.subset_key: p.ls_project_id for p in store.slot_projects()}
    yield {"dir": study_dir, "a": a, "log": log, "sizes": sizes, "projects": projects}
    mp.undo()


def test_setup_and_pull_ask_for_no_page_past_the_end(study, capsys):
    a, log = study["a"], study["log"]
    admin, annotator = a.server.client(), a.server.client(a.token)
    pid = study["projects"][CLASSIFICATION]
    assert study["sizes"][CLASSIFICATION] == 7
    with Store.open(study["dir"]) as store:
        first = min(store.slot_tasks(CLASSIFICATION, 1).values())
    admin.sdk.tasks.delete(id=first)  # by hand: 6 left, three pages of 2 to read
    capsys.readouterr()
    assert main(["setup", str(study["dir"])]) == 0
    assert "0 project(s) created, 1 task(s) imported" in capsys.readouterr().out
    assert admin.project_counts(pid)["task_number"] == 7

    # A answers every classification task (four pages of annotated tasks to pull).
    with Store.open(study["dir"]) as store:
        sub = store.subset(CLASSIFICATION)
        golds = gold(store, CLASSIFICATION)
        tasks = store.slot_tasks(CLASSIFICATION, 1)
        for inst in store.instances(CLASSIFICATION):
            result = gold_result(sub, inst, golds[inst.hume_id])
            annotator.create_annotation(tasks[inst.hume_id], result)
    assert main(["pull", str(study["dir"])]) == 0
    assert "7 annotation(s) added" in capsys.readouterr().out

    lines = log.lines()
    assert [x for x in lines if "Invalid page" in x] == []
    assert [x for x in lines if '" 404 ' in x] == []
    # Several pages were read by setup (its ids and data) and by pull (annotations), and every
    # task was seen: the one deleted imported again, all 7 answers stored.
    listed = [p for _, p in log.requests() if p.startswith("/api/tasks/") and of_project(p, pid)]
    refs = [p for p in listed if "include=id%2Cdata" in p]
    assert len(refs) == 3 and all(f"page={n}&" in p for n, p in enumerate(refs, 1)), refs
    pulled = [p for p in listed if "fields=all" in p]
    assert len(pulled) == 4 and all(f"page={n}&" in p for n, p in enumerate(pulled, 1)), pulled
    with Store.open(study["dir"]) as store:
        rows = [r for r in store.annotations(CLASSIFICATION) if r.status == "valid"]
    assert len(rows) == 7 and admin.project_counts(pid)["total_annotations_number"] == 7


def of_project(path: str, project_id: int) -> bool:
    return re.search(rf"[?&]project={project_id}(&|$)", path) is not None


def id_runs(ids: list[int]) -> int:
    """How many runs of consecutive numbers ``ids`` has."""
    ordered = sorted(ids)
    return sum(1 for n, i in enumerate(ordered) if n == 0 or i != ordered[n - 1] + 1)


def test_a_setup_rerun_with_nothing_to_do_asks_only_for_counts(study, capsys):
    log = study["log"]
    log.mark()
    capsys.readouterr()
    assert main(["setup", str(study["dir"])]) == 0
    assert "0 project(s) created, 0 task(s) imported" in capsys.readouterr().out
    api = [(m, p) for m, p in log.requests() if p.startswith("/api/")]
    # The tasks: one count (a one-task page) per run of recorded ids, no list, no annotations.
    tasks = [p for _, p in api if p.startswith("/api/tasks/")]
    assert all("page_size=1&" in p and "query=" in p for p in tasks), tasks
    with Store.open(study["dir"]) as store:
        runs = {
            p.ls_project_id: id_runs(list(store.slot_tasks(p.subset_key, 1).values()))
            for p in store.slot_projects()
        }
    assert runs[study["projects"][CLASSIFICATION]] == 2  # the first import's, the re-import
    for pid, n in runs.items():
        assert sum(1 for p in tasks if of_project(p, pid)) == n
    assert len(tasks) == sum(runs.values()) == 4 + 2
    # The projects: no GET of each, no change; one listing of the server's (2 a page).
    assert [p for _, p in api if re.match(r"/api/projects/\d+/", p)] == []
    assert [m for m, _ in api if m != "GET"] == []
    listing = [p for _, p in api if p.startswith("/api/projects/?")]
    n_listed = len(study["a"].server.client().list_projects(include="id"))
    assert len(listing) == math.ceil(n_listed / PAGE) and n_listed >= len(runs)
    assert all("include=id%2Clabel_config" in p for p in listing), listing
    others = [p for _, p in api if not p.startswith(("/api/tasks/", "/api/projects/?"))]
    assert len(others) <= 1, others  # at most the token check


def test_projects_found_by_marker_cost_one_listing_of_the_server(study, capsys):
    """A run that died after creating two projects and before recording them: the rerun finds
    both by their markers (no project left twice, every task id recovered, nothing imported
    again) from one listing of the server's projects, not one per subset."""
    log = study["log"]
    lost = sorted(study["projects"])[:2]
    with Store.open(study["dir"]) as store:
        tasks = {key: store.slot_tasks(key, 1) for key in lost}
        for key in lost:
            assert store.forget_slot_project(key, 1) == len(tasks[key]) > 0
    n_projects = len(study["a"].server.client().list_projects(include="id"))
    log.mark()
    capsys.readouterr()
    assert main(["setup", str(study["dir"])]) == 0
    assert "0 project(s) created, 0 task(s) imported" in capsys.readouterr().out
    with Store.open(study["dir"]) as store:
        recorded = {p.subset_key: p.ls_project_id for p in store.slot_projects()}
        assert {key: store.slot_tasks(key, 1) for key in lost} == tasks
    assert recorded == study["projects"]
    assert len(study["a"].server.client().list_projects(include="id")) == n_projects
    searched = [p for _, p in log.requests() if "include=id%2Ctitle%2Cdescription" in p]
    # one listing, paged; it runs beside the create of the server's first project this run,
    # so it may see that project too (found a leftover, setup deletes it again: the count
    # above is unchanged)
    pages = {math.ceil(n_projects / PAGE), math.ceil((n_projects + 1) / PAGE)}
    assert len(searched) in pages, searched
