"""A first setup records a new project together with its tasks, in one commit after the import
(one commit less per project). A run that dies after the import and before that commit leaves
a project with every task and no record of either: the next setup must find that project by its
marker and its tasks by their ``hume_ref``, create nothing and import nothing. Against annotator
A's real Label Studio; the crash is the one fault faked (the store's write raises)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from hume_sync.cli import main
from hume_sync.store import Store
from tests._annotate import hume_env, register
from tests._paths import REPO_ROOT

pytestmark = pytest.mark.labelstudio

DEMO = REPO_ROOT / "hume_sync" / "demo_data"


def test_a_setup_that_died_before_recording_is_resumed_without_duplicates(
    annotator_servers: Any, tmp_path: Any, capsys: Any
) -> None:
    mp = hume_env(tmp_path)
    try:
        spec = tmp_path / "spec.yaml"
        spec.write_text(
            yaml.safe_dump(
                {
                    "name": "resume",
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
        study = tmp_path / "study"
        assert main(["init", str(study), "--spec", str(spec)]) == 0
        a = annotator_servers[0]
        register(study, a, "eng", mp)
        admin = a.server.client()
        before = {int(p["id"]) for p in admin.list_projects(include="id")}

        def power_cut(*args: Any, **kwargs: Any) -> int:
            raise RuntimeError("power cut before the commit")

        mp.setattr(Store, "record_new_project", power_cut)
        with pytest.raises(RuntimeError, match="power cut"):
            main(["setup", str(study)])
        mp.undo()
        mp = hume_env(tmp_path)
        made = {int(p["id"]) for p in admin.list_projects(include="id")} - before
        assert len(made) == 1  # the project was made and filled, and nothing recorded
        (project_id,) = made
        assert len(admin.list_tasks(project_id)) == 9
        with Store.open(study) as store:
            (sub,) = store.subsets()
            assert store.slot_projects() == [] and store.slot_tasks(sub.key, 1) == {}

        capsys.readouterr()
        assert main(["setup", str(study)]) == 0
        out = capsys.readouterr().out
        assert "0 project(s) created, 0 task(s) imported" in out
        assert {int(p["id"]) for p in admin.list_projects(include="id")} - before == made
        with Store.open(study) as store:
            (recorded,) = store.slot_projects()
            assert recorded.ls_project_id == project_id
            tasks = store.slot_tasks(sub.key, 1)
            refs = {i.hume_id: i.hume_ref for i in store.instances(sub.key)}
        listed = {int(t["id"]): t["data"]["hume_ref"] for t in admin.list_tasks(project_id)}
        assert len(tasks) == 9 and {tid: refs[h] for h, tid in tasks.items()} == listed
        admin.delete_project(project_id)
    finally:
        mp.undo()
