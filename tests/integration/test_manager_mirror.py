"""The manager's Label Studio mirror, on real servers: two annotators each on a Label Studio of
their own (``annotator_servers``) and the manager's (``ls_server``, registered with
``hume-sync manager up --url``).

After ``pull``: one project per subset, one task per instance, one annotation per valid or
skipped answer attributed to the slot's pseudonymous account, invalid answers counted on the
task, the disagreement field set by the type's rule, no gold anywhere. A second pull writes
nothing (Label Studio's ``updated_at`` stamps and counts unchanged); an edit in an annotator's
server updates the mirror; a deletion removes it; predictions appear once the study is closed
(the first mirror after ``close``: ``pull`` or ``reveal``), as the docs say, never before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.labelstudio import manager
from hume_sync.labelstudio.manager import mirror_marker
from hume_sync.store import PredictionRecord, Store, gold, task_ref
from hume_sync.workflow.mirror import mirror_study
from tests._annotate import bad_label, gold_result, hume_env, set_up_study
from tests._browser import playwright_chromium
from tests._studies import real_data_spec

pytestmark = pytest.mark.labelstudio

CLASSIFICATION = "SIB200Classification/eng_Latn"


@pytest.fixture(scope="module")
def study(annotator_servers, ls_server, tmp_path_factory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("mirror")
    mp = hume_env(root)
    spec = real_data_spec("mirror", 5, cls_eng=4, cls_arb=2, sts=2, rerank=2)
    a, b = annotator_servers
    study_dir = set_up_study(root / "study", spec, [(a, "eng,ara"), (b, "eng")], mp)
    mp.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    assert main(["manager", "up", "--url", ls_server.url]) == 0
    mp.delenv("LABEL_STUDIO_API_KEY")
    with Store.open(study_dir) as store:
        sub = store.subset(CLASSIFICATION)
        instances = store.instances(CLASSIFICATION)
        golds = gold(store, CLASSIFICATION)
        tasks = {slot: store.slot_tasks(CLASSIFICATION, slot) for slot in (1, 2)}
        n_instances = {s.key: store.instance_count(s.key) for s in store.subsets()}
        uid = store.study_uid()
    yield {
        "dir": study_dir,
        "a": a,
        "b": b,
        "sub": sub,
        "instances": instances,
        "gold": golds,
        "tasks": tasks,
        "n": n_instances,
        "uid": uid,
        "manager": ls_server,
    }
    mp.undo()


def _mirror_tasks(study: dict, subset: str) -> dict[str, dict[str, Any]]:
    """The mirror project's tasks of ``subset`` by hume_ref."""
    ls = study["manager"].client()
    (project,) = ls.find_projects_by_marker(mirror_marker(study["uid"], subset))
    return {task_ref(t["data"]): t for t in ls.list_tasks(int(project["id"]))}


def _pseudonym_ids(study: dict) -> dict[int, int]:
    return manager.pseudonyms(study["manager"].client(), [1, 2])


def _other_label(study: dict, label: str) -> str:
    return next(x for x in study["sub"].config["label_set"] if x != label)


def _choice(label: str) -> list[dict[str, Any]]:
    return [
        {"from_name": "label", "to_name": "text", "type": "choices", "value": {"choices": [label]}}
    ]


@pytest.fixture(scope="module")
def answered(study) -> dict[str, Any]:
    """A answers every English classification item with gold; B agrees on item 0, disagrees on
    item 1, skips item 2, gives an invalid answer on item 3. Then ``pull``."""
    a_ls = study["a"].server.client(study["a"].token)
    b_ls = study["b"].server.client(study["b"].token)
    inst = study["instances"]
    made: dict[str, Any] = {"a": {}, "b": {}}
    for i in inst:
        tid = study["tasks"][1][i.hume_id]
        result = gold_result(study["sub"], i, study["gold"][i.hume_id])
        made["a"][i.hume_ref] = a_ls.create_annotation(tid, result)["id"]
    g0, g1 = (study["gold"][inst[n].hume_id] for n in (0, 1))
    b_tasks = study["tasks"][2]
    made["b"][inst[0].hume_ref] = b_ls.create_annotation(b_tasks[inst[0].hume_id], _choice(g0))[
        "id"
    ]
    made["b"][inst[1].hume_ref] = b_ls.create_annotation(
        b_tasks[inst[1].hume_id], _choice(_other_label(study, g1))
    )["id"]
    b_ls.create_annotation(b_tasks[inst[2].hume_id], [], was_cancelled=True)
    b_ls.create_annotation(b_tasks[inst[3].hume_id], bad_label(study["sub"]))
    assert main(["pull", str(study["dir"])]) == 0
    return made


def test_one_task_per_instance_and_one_annotation_per_answer(study, answered) -> None:
    for subset, n in study["n"].items():
        assert len(_mirror_tasks(study, subset)) == n, subset
    tasks = _mirror_tasks(study, CLASSIFICATION)
    users = _pseudonym_ids(study)
    inst = study["instances"]
    by_user = {
        ref: sorted(int(a["completed_by"]) for a in t["annotations"]) for ref, t in tasks.items()
    }
    assert by_user[inst[0].hume_ref] == sorted([users[1], users[2]])
    assert by_user[inst[1].hume_ref] == sorted([users[1], users[2]])
    assert by_user[inst[2].hume_ref] == sorted([users[1], users[2]])  # B's skip is shown
    assert by_user[inst[3].hume_ref] == [users[1]]  # B's invalid answer is not an annotation
    skipped = [a for a in tasks[inst[2].hume_ref]["annotations"] if a["completed_by"] == users[2]]
    assert skipped[0]["was_cancelled"] is True
    fields = {ref: {k: v for k, v in t["data"].items() if k.startswith("hume_")} for ref, t in
              tasks.items()}  # fmt: skip
    assert fields[inst[0].hume_ref]["hume_disagree"] == 0
    assert fields[inst[1].hume_ref]["hume_disagree"] == 1
    assert fields[inst[2].hume_ref]["hume_disagree"] is None  # one valid answer: no agreement
    assert fields[inst[2].hume_ref]["hume_skipped"] == 1
    assert fields[inst[3].hume_ref]["hume_invalid"] == 1
    assert [fields[i.hume_ref]["hume_answers"] for i in inst] == [2, 2, 1, 1]
    # A's answers are gold: the mirror's result for A is that label, on the pseudonym.
    a_ann = [a for a in tasks[inst[1].hume_ref]["annotations"] if a["completed_by"] == users[1]]
    assert a_ann[0]["result"][0]["value"]["choices"] == [study["gold"][inst[1].hume_id]]


def test_no_gold_and_no_predictions_while_open(study, answered) -> None:
    """A mirrored task holds exactly the annotators' task data plus hume's count fields."""
    tasks = _mirror_tasks(study, CLASSIFICATION)
    task_type = task_types.get(study["sub"].task_type)
    counts = {"hume_answers", "hume_disagree", "hume_invalid", "hume_skipped", "hume_late"}
    n = len(study["instances"])
    for place, i in enumerate(study["instances"], 1):
        data = tasks[i.hume_ref]["data"]
        shown = task_type.ls_task_data(i.hume_ref, i.content, position=(place, n))
        assert {k: v for k, v in data.items() if k not in counts} == shown
        assert set(data) - set(shown) == counts
        assert not tasks[i.hume_ref]["predictions"]


def test_pseudonymous_accounts_cannot_log_in(study, answered) -> None:
    import httpx

    with httpx.Client(base_url=study["manager"].url) as web:
        web.get("/user/login/")
        resp = web.post(
            "/user/login/",
            data={
                "email": manager.pseudonym_email(1),
                "password": "",
                "csrfmiddlewaretoken": web.cookies.get("csrftoken", ""),
            },
            headers={"Referer": f"{study['manager'].url}/user/login/"},
        )
        assert web.get("/api/current-user/whoami").status_code in (401, 403), resp.status_code


def _stamps(study: dict) -> list[tuple[Any, ...]]:
    out = []
    for subset in study["n"]:
        for t in _mirror_tasks(study, subset).values():
            out.append((t["id"], t["updated_at"]))
            out += [(a["id"], a["updated_at"]) for a in t["annotations"]]
    return sorted(out)


def test_second_pull_changes_nothing(study, answered) -> None:
    before = _stamps(study)
    with Store.open(study["dir"]) as store:
        summary = mirror_study(store, study["manager"].client())
    assert summary.writes() == 0, summary
    assert main(["pull", str(study["dir"])]) == 0
    assert _stamps(study) == before


# ------------------------------------------------------------------------------------------
# In a real browser, as the manager


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_chromium() as b:
        yield b


def test_manager_sees_every_answer_and_sorts_by_disagreement(
    study, answered, browser, tmp_path
) -> None:
    shots = Path(os.environ.get("HUME_TEST_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    ls_server = study["manager"]
    admin = ls_server.client()
    (project,) = admin.find_projects_by_marker(mirror_marker(study["uid"], CLASSIFICATION))
    pid = int(project["id"])
    tasks = _mirror_tasks(study, CLASSIFICATION)
    both = next(t for t in tasks.values() if len(t["annotations"]) == 2)

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(f"{ls_server.url}/user/login/")  # one login: the manager's, on their own server
    page.fill("input[name=email]", ls_server.info.username)
    page.fill("input[name=password]", ls_server.info.password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda u: "/user/login" not in u)

    page.goto(f"{ls_server.url}/projects/{pid}/data?task={both['id']}")
    for name in ("slot 1", "slot 2"):  # one tab per annotator, under their pseudonym
        page.get_by_text(name, exact=True).first.wait_for()
    page.get_by_text("Compare All", exact=True).click()
    page.wait_for_timeout(3000)
    page.screenshot(path=shots / "manager-task-compare-all.png")
    assert page.locator("input[type=radio]:checked").count() == 2  # both answers, side by side

    page.goto(f"{ls_server.url}/projects/{pid}/data")
    page.get_by_text("Order by", exact=True).click()
    page.wait_for_timeout(1000)
    page.screenshot(path=shots / "manager-order-menu.png")
    page.get_by_text("hume_disagree", exact=True).last.click()
    page.wait_for_timeout(3000)
    page.screenshot(path=shots / "manager-grid-sorted.png")
    views = page.request.get(f"{ls_server.url}/api/dm/views?project={pid}").json()
    ordering = views[0]["data"].get("ordering")
    assert ordering and "hume_disagree" in ordering[0], ordering
    listed = page.request.get(
        f"{ls_server.url}/api/tasks?project={pid}&view={views[0]['id']}&page_size=100"
    ).json()["tasks"]
    values = [t["data"]["hume_disagree"] for t in listed if t["data"]["hume_disagree"] is not None]
    assert sorted(values) == [0, 1]  # item 0: both agree; item 1: they disagree
    assert values == sorted(
        values, key=lambda v: -1 if v is None else v, reverse=ordering[0][0] == "-"
    )


def test_edit_updates_and_deletion_removes(study, answered) -> None:
    inst = study["instances"]
    a_ls = study["a"].server.client(study["a"].token)
    b_ls = study["b"].server.client(study["b"].token)
    new = _other_label(study, study["gold"][inst[0].hume_id])
    a_ls.sdk.annotations.update(id=answered["a"][inst[0].hume_ref], result=_choice(new))
    b_ls.sdk.annotations.delete(id=answered["b"][inst[1].hume_ref])
    assert main(["pull", str(study["dir"])]) == 0
    tasks = _mirror_tasks(study, CLASSIFICATION)
    users = _pseudonym_ids(study)
    edited = [a for a in tasks[inst[0].hume_ref]["annotations"] if a["completed_by"] == users[1]]
    assert [a["result"][0]["value"]["choices"] for a in edited] == [[new]]
    assert tasks[inst[0].hume_ref]["data"]["hume_disagree"] == 1  # B kept gold, A moved away
    assert [a["completed_by"] for a in tasks[inst[1].hume_ref]["annotations"]] == [users[1]]
    assert tasks[inst[1].hume_ref]["data"]["hume_answers"] == 1


def _counting(ls: Any) -> list[tuple[str, int]]:
    """Record each read of tasks from the manager's server (name, tasks returned) on ``ls``."""
    reads: list[tuple[str, int]] = []
    for name in ("list_tasks", "tasks_by_id", "find_projects_by_marker"):
        real = getattr(ls, name)

        def spy(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            out = _real(*args, **kwargs)
            reads.append((_name, len(out)))
            return out

        setattr(ls, name, spy)
    return reads


def test_a_mirror_reads_only_the_tasks_that_changed(study, answered) -> None:
    """After one answer changes, the mirror asks the manager's server for that one task, by
    id, and writes what a whole reconciliation would: a whole one afterwards finds nothing to
    do. With nothing changed it reads no task at all. A task removed by hand on the manager's
    server is found missing when it next changes, and the subset is reconciled whole."""
    from hume_sync.workflow.cli_support import clients
    from hume_sync.workflow.pull import pull_study

    inst = study["instances"]
    b_ls = study["b"].server.client(study["b"].token)
    new = _other_label(study, study["gold"][inst[0].hume_id])  # A moved to it already
    b_ls.sdk.annotations.update(id=answered["b"][inst[0].hume_ref], result=_choice(new))
    ls = study["manager"].client()
    reads = _counting(ls)
    with Store.open(study["dir"]) as store:
        pull_study(store, clients())
        changed = mirror_study(store, ls)
        assert reads == [("tasks_by_id", 1)]
        assert (changed.annotations_updated, changed.tasks_updated, changed.writes()) == (1, 1, 2)
        assert _mirror_tasks(study, CLASSIFICATION)[inst[0].hume_ref]["data"]["hume_disagree"] == 0
        reads.clear()
        assert mirror_study(store, ls).writes() == 0 and reads == []  # nothing changed
        assert mirror_study(store, ls, full=True).writes() == 0  # nothing left to put right
        assert ("list_tasks", study["n"][CLASSIFICATION]) in reads
    task_id = _mirror_tasks(study, CLASSIFICATION)[inst[0].hume_ref]["id"]
    ls.sdk.tasks.delete(id=task_id)  # by hand, on the manager's server
    b_ls.sdk.annotations.update(
        id=answered["b"][inst[0].hume_ref], result=_choice(study["gold"][inst[0].hume_id])
    )
    reads.clear()
    with Store.open(study["dir"]) as store:
        pull_study(store, clients())
        again = mirror_study(store, ls)
    assert reads[0] == ("tasks_by_id", 0) and again.tasks_created == 1
    tasks = _mirror_tasks(study, CLASSIFICATION)
    assert len(tasks) == study["n"][CLASSIFICATION] and tasks[inst[0].hume_ref]["id"] != task_id
    assert (
        tasks[inst[0].hume_ref]["data"]["hume_disagree"] == 1
        and len(tasks[inst[0].hume_ref]["annotations"]) == 2
    )


def test_predictions_appear_once_the_study_is_closed(study, answered) -> None:
    """docs/deployment.md and docs/running-a-study.md: predictions reach the manager's mirror
    once the study is closed, at the next pull (reveal is not needed), and never twice."""
    inst = study["instances"]
    label = study["gold"][inst[0].hume_id]
    with Store.open(study["dir"]) as store:
        store.add_predictions([PredictionRecord(i.hume_id, "llm:test", label) for i in inst])
    assert main(["pull", str(study["dir"])]) == 0
    assert not any(t["predictions"] for t in _mirror_tasks(study, CLASSIFICATION).values())
    assert main(["close", str(study["dir"]), "--force"]) == 0
    assert main(["pull", str(study["dir"])]) == 0
    with Store.open(study["dir"]) as store:
        assert store.study_meta().revealed_at is None  # closed, not revealed
    tasks = _mirror_tasks(study, CLASSIFICATION)
    shown = [[p["model_version"] for p in tasks[i.hume_ref]["predictions"]] for i in inst]
    assert shown == [["llm:test"]] * len(inst)
    assert main(["reveal", str(study["dir"])]) == 0  # never twice
    assert main(["pull", str(study["dir"])]) == 0
    tasks = _mirror_tasks(study, CLASSIFICATION)
    assert sum(len(t["predictions"]) for t in tasks.values()) == len(inst)


def test_late_answers_are_counted_on_their_task(study, answered) -> None:
    inst = study["instances"]
    assert main(["close", str(study["dir"]), "--force"]) == 0
    a_ls = study["a"].server.client(study["a"].token)
    new = _other_label(study, study["gold"][inst[2].hume_id])
    a_ls.sdk.annotations.update(id=answered["a"][inst[2].hume_ref], result=_choice(new))
    assert main(["pull", str(study["dir"])]) == 0
    tasks = _mirror_tasks(study, CLASSIFICATION)
    assert [tasks[i.hume_ref]["data"]["hume_late"] for i in inst] == [0, 0, 1, 0]
