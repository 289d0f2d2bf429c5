"""Pull and status read only what changed since the last pull (issue 38), against a real Label
Studio (annotator A's own server), and come to what a full read comes to.

After each round of real changes made through Label Studio's API (answers given, changed,
deleted, skipped; an answer by another account; a Data Manager bulk delete, which does not move
the task's ``updated_at``), the study is copied: the copy is pulled with ``--full`` and the
study itself reads only the changes. Their annotations (every column but the time a deletion was
noticed) and what each saw and did not store must be the same, and ``status`` must say the same
read either way. Where a change escapes the task filter, the counts give it away and the read is
whole.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.store import Store, gold
from hume_sync.workflow import changes
from hume_sync.workflow.pull import PullSummary, pull_study
from hume_sync.workflow.status import study_status, to_json
from tests._annotate import hume_env, register
from tests._paths import REPO_ROOT

pytestmark = pytest.mark.labelstudio

DEMO = REPO_ROOT / "hume_sync" / "demo_data"


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Any:
    """A 9-item classification study on annotator A's server; nothing answered yet."""
    root = tmp_path_factory.mktemp("incremental")
    mp = hume_env(root)
    spec = root / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "incremental",
                "annotators": 1,
                "tasks": [
                    {
                        "name": "Sentiment",
                        "type": "classification",
                        "source": {"path": str(DEMO / "sentiment_en_test.jsonl")},
                        "sampling": "all",
                        "subsets": [{"language": "eng-Latn", "size": 9}],
                    }
                ],
            }
        )
    )
    study_dir = root / "study"
    assert main(["init", str(study_dir), "--spec", str(spec)]) == 0
    a = annotator_servers[0]
    register(study_dir, a, "eng", mp)
    assert main(["setup", str(study_dir)]) == 0
    module = task_types.get("classification").ls_module
    with Store.open(study_dir) as store:
        (sub,) = store.subsets()
        golds = gold(store, sub.key)
        labels = sub.config["label_set"]
        instances = store.instances(sub.key)
        tasks = store.slot_tasks(sub.key, 1)
        (project,) = store.slot_projects(sub.key)
    yield {
        "dir": study_dir,
        "root": root,
        "annotator": a.server.client(a.token),
        "admin": a.server.client(a.server.token),
        "server": a.server,
        "project": project.ls_project_id,
        "tasks": [tasks[i.hume_id] for i in instances],
        "right": [module.answer_to_result(golds[i.hume_id], labels=labels) for i in instances],
        "wrong": [
            module.answer_to_result(next(x for x in labels if x != golds[i.hume_id]), labels=labels)
            for i in instances
        ],
    }
    mp.undo()


def dump(study_dir: Path) -> tuple[list[Any], list[Any], list[Any]]:
    """Every annotation row (deleted or not, but not when the deletion was noticed), what
    each project's read saw and does not store, and each project's answers summed up (kept in
    step by the changed tasks alone on one side, summed up whole on the other)."""
    conn = sqlite3.connect(study_dir / "study.sqlite")
    try:
        rows = conn.execute(
            "SELECT slot, ls_annotation_id, hume_id, ls_task_id, annotator, answer, status, "
            "error, lead_time, created_at, updated_at, deleted_at IS NOT NULL "
            "FROM annotations ORDER BY slot, ls_annotation_id"
        ).fetchall()
        seen = conn.execute(
            "SELECT subset_key, slot, ls_project_id, uncounted FROM ls_sync ORDER BY 1, 2"
        ).fetchall()
        summaries = conn.execute("SELECT * FROM answer_summaries ORDER BY 1, 2").fetchall()
    finally:
        conn.close()
    assert summaries, "a pull sums up each project it read"
    return rows, seen, summaries


class Counting:
    """A client_for that counts the whole-project reads (exports) it was asked for."""

    def __init__(self) -> None:
        self.exports = 0

    def __call__(self, url: str) -> Any:
        client = ls_servers.client_for(url)
        real = client.export_annotated_tasks

        def export(project_id: int) -> Any:
            self.exports += 1
            return real(project_id)

        client.export_annotated_tasks = export  # type: ignore[method-assign]
        return client


def status_view(store: Store, *, full: bool, client_for: Any = ls_servers.client_for) -> Any:
    out = to_json(study_status(store, client_for, full=full))
    return {"projects": out["projects"], "annotators": out["annotators"]}


def both_ways(study: dict[str, Any], name: str) -> tuple[PullSummary, Counting]:
    """Status read both ways (before the pull), then the study pulled for its changes and a
    copy pulled whole; asserts they agree and returns the changes-pull's summary and counts."""
    status_reads = Counting()
    with Store.open(study["dir"]) as store:
        assert status_view(store, full=False, client_for=status_reads) == status_view(
            store, full=True
        )
    study["status_exports"] = status_reads.exports
    copy = study["root"] / f"full-{name}"
    shutil.copytree(study["dir"], copy)
    with Store.open(copy) as store:
        whole = pull_study(store, ls_servers.client_for, full=True)
    counting = Counting()
    with Store.open(study["dir"]) as store:
        summary = pull_study(store, counting)
        assert status_view(store, full=False) == status_view(store, full=True)
    assert dump(study["dir"]) == dump(copy)
    assert (whole.full_reads, whole.change_reads) == (1, 0)
    assert [str(p) for p in summary.invalid] == [str(p) for p in whole.invalid]
    assert (summary.cancelled, len(summary.foreign)) == (whole.cancelled, len(whole.foreign))
    return summary, counting


def live(study_dir: Path) -> list[tuple[int, str]]:
    with Store.open(study_dir) as store:
        return [(a.ls_task_id, a.status) for a in store.annotations()]


def test_pull_and_status_read_only_what_changed_and_agree_with_a_full_read(study):
    ann, tasks = study["annotator"], study["tasks"]
    given = [ann.create_annotation(tasks[k], study["right"][k], lead_time=3.0) for k in range(5)]

    first, counting = both_ways(study, "first")  # no state yet: a whole read
    assert (first.full_reads, first.change_reads, counting.exports) == (1, 0, 1)
    assert first.total("added") == 5

    # answers given, changed, deleted and skipped: each moves its task's updated_at
    for k in (5, 6):
        ann.create_annotation(tasks[k], study["right"][k], lead_time=4.0)
    ann.update_annotation(int(given[0]["id"]), result=study["wrong"][0])
    ann.delete_annotation(int(given[1]["id"]))
    ann.create_annotation(tasks[7], [], was_cancelled=True)
    changed, counting = both_ways(study, "changed")
    assert (changed.full_reads, changed.change_reads, counting.exports) == (0, 1, 0)
    assert study["status_exports"] == 0  # status read the store and the changes, no export
    assert (changed.total("added"), changed.total("updated"), changed.total("deleted")) == (3, 1, 1)
    assert changed.cancelled == 1
    assert len(live(study["dir"])) == 7  # 5 + 2 + 1 skip - 1 deleted

    # another account answers in A's project: seen, not stored, and the counts still add up
    study["admin"].create_annotation(tasks[8], study["right"][8])
    foreign, counting = both_ways(study, "foreign")
    assert (foreign.full_reads, foreign.change_reads, counting.exports) == (0, 1, 0)
    assert [f.ls_task_id for f in foreign.foreign] == [tasks[8]]
    assert foreign.total("added") == 0

    # nothing changed: no export, nothing written
    idle, counting = both_ways(study, "idle")
    assert (idle.full_reads, idle.change_reads, counting.exports) == (0, 1, 0)
    assert idle.total("added") == idle.total("updated") == idle.total("deleted") == 0


def test_a_bulk_delete_in_the_data_manager_is_read_as_a_change(study):
    """The Data Manager's "delete annotations" action (a queryset delete) still moves the task:
    the read of the changes finds the deletion and agrees with a full read."""
    target = study["tasks"][2]
    assert any(task == target for task, _ in live(study["dir"]))
    study["admin"].sdk.actions.create(
        id="delete_tasks_annotations",
        project=study["project"],
        selected_items={"all": False, "included": [target]},
    )
    bulk, _ = both_ways(study, "bulk")
    assert bulk.total("deleted") == 1
    assert all(task != target for task, _ in live(study["dir"]))


def test_a_deletion_no_task_filter_can_see_is_caught_by_the_counts(study, monkeypatch):
    """An answer removed without its task moving (the row deleted in Label Studio's database,
    as a restore from a backup or an operation that skips the task's save would): only Label
    Studio's own count shows it, and the read turns whole. No margin here: the task was answered
    seconds ago, and the margin alone would read it again."""
    monkeypatch.setattr(changes, "REREAD_MARGIN", timedelta(0))
    target = study["tasks"][3]
    (gone,) = [a["id"] for a in study["admin"].list_annotations(target)]
    conn = sqlite3.connect(study["server"].data_dir / "label_studio.sqlite3", timeout=30)
    try:
        conn.execute("DELETE FROM task_completion WHERE id = ?", (gone,))
        conn.commit()
    finally:
        conn.close()
    hidden, counting = both_ways(study, "hidden")
    assert hidden.total("deleted") == 1
    assert (hidden.full_reads, hidden.change_reads, counting.exports) == (1, 0, 1)
    assert study["status_exports"] == 1  # status did not trust the changes either
    assert all(task != target for task, _ in live(study["dir"]))


def test_a_recreated_project_is_read_whole(study, tmp_path):
    """A state taken of another project id (the project was made again) is not trusted."""
    copy = tmp_path / "recreated"
    shutil.copytree(study["dir"], copy)
    with Store.open(copy) as store:
        (sub,) = store.subsets()
        state = store.sync_state(sub.key, 1)
        assert state is not None
        conn = sqlite3.connect(copy / "study.sqlite")
        conn.execute("UPDATE ls_sync SET ls_project_id = ls_project_id + 1000")
        conn.commit()
        conn.close()
        counting = Counting()
        summary = pull_study(store, counting)
    assert (summary.full_reads, counting.exports) == (1, 1)
    assert dump(copy) == dump(study["dir"])
