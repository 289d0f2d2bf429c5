"""A study with two annotators, each in a Label Studio of their own (two real servers): setup
replicates every subset to its annotators, status agrees with Label Studio's own counts and
with ``close``, pull maps both annotators back onto the same instances, reveal reaches every
annotator's project, and the ways a project gets lost or changed in Label Studio (deleted,
interface edited, a crash between creating and recording it) are reported and repaired.

Real data (SIB-200, STS Benchmark, a SIB-200 reranking set), real servers, answers submitted
through the API with each annotator's own token. The classification task is named like HUME's
``HUMEMultilingualSentimentClassification`` in a study called ``pilot``: with titles cut to 47
characters its two subsets used to collide, so that ``setup`` could never finish.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.store import PredictionRecord, Store, gold
from hume_sync.workflow.setup import TITLE_MAX, project_marker, render_subset_config, setup_study
from tests._annotate import bad_label, gold_result, hume_env, register, set_up_study
from tests._studies import real_data_spec, write_spec

pytestmark = pytest.mark.labelstudio

CLS_ENG = "HUMEMultilingualSentimentClassification/eng_Latn"
CLS_ARB = "HUMEMultilingualSentimentClassification/arb_Arab"
STS = "STSBenchmark/default"
RERANK = "SIB200Reranking/default"


def dump(study: Path) -> list[str]:
    conn = sqlite3.connect(study / "study.sqlite")
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def status_json(study: Path, capsys: Any) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["status", str(study), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def iso(annotator_servers, tmp_path_factory):
    """The study, set up for annotator A (eng, ara) and B (eng); nobody has answered yet."""
    root = tmp_path_factory.mktemp("isolation")
    mp = hume_env(root)
    spec = real_data_spec("pilot", 11, cls_eng=6, cls_arb=4, sts=5, rerank=3)
    spec["tasks"][0]["name"] = "HUMEMultilingualSentimentClassification"
    a, b = annotator_servers
    study = set_up_study(root / "study", spec, [(a, "eng,ara"), (b, "eng")], mp)
    yield {"dir": study, "a": a, "b": b, "mp": mp}
    mp.undo()


def our_projects(srv: Any, study: Path) -> dict[str, dict[str, Any]]:
    """subset → the study's project on this server, found by hume's marker (not by title), with
    all its fields (the marker search returns ids, titles and descriptions only)."""
    admin = srv.server.client()
    with Store.open(study) as store:
        uid = store.study_uid()
        slot = next(x.slot for x in store.annotators() if x.email == srv.email)
        keys = [s.key for s in store.subsets()]
    out = {}
    for key in keys:
        found = admin.find_projects_by_marker(project_marker(uid, key, slot))
        assert len(found) <= 1, (key, found)
        if found:
            out[key] = admin.get_project(int(found[0]["id"]))
    return out


def answer(srv: Any, study: Path, skip: set[str] = frozenset(), **special: Any) -> None:
    """The annotator answers every task of their projects with gold, except: hume_ids in
    ``skip`` (left untouched); ``special`` maps 'invalid'/'skipped' to a hume_id."""
    client = srv.server.client(srv.token)
    with Store.open(study) as store:
        slot = next(x.slot for x in store.annotators() if x.email == srv.email)
        for sub in store.subsets():
            tasks = store.slot_tasks(sub.key, slot)
            golds = gold(store, sub.key)
            for inst in store.instances(sub.key):
                hid = inst.hume_id
                if hid not in tasks or hid in skip:
                    continue
                if special.get("invalid") == hid:
                    client.create_annotation(tasks[hid], bad_label(sub), lead_time=4.0)
                elif special.get("skipped") == hid:
                    client.create_annotation(tasks[hid], [], was_cancelled=True)
                else:
                    client.create_annotation(
                        tasks[hid], gold_result(sub, inst, golds[hid]), lead_time=30.0
                    )


def test_every_subset_is_replicated_on_its_annotators_own_servers(iso, capsys):
    study, a, b = iso["dir"], iso["a"], iso["b"]
    on_a, on_b = our_projects(a, study), our_projects(b, study)
    # A speaks English and Arabic, B English only: Arabic (one annotator per item) is A's alone
    assert set(on_a) == {CLS_ENG, CLS_ARB, "SIB200Clustering/default", STS, RERANK}
    assert set(on_b) == {CLS_ENG, "SIB200Clustering/default", STS, RERANK}
    # the HUME-length task name: both subsets got a project, with titles apart and short
    titles = [p["title"] for p in on_a.values()]
    assert len(set(titles)) == len(titles) and all(len(t) <= TITLE_MAX for t in titles)
    assert on_a[CLS_ENG]["title"] != on_a[CLS_ARB]["title"]
    assert on_a[CLS_ARB]["title"].split(" #")[0].endswith("/arb_Arab")
    with Store.open(study) as store:
        for srv, projects in ((a, on_a), (b, on_b)):
            admin = srv.server.client()
            slot = next(x.slot for x in store.annotators() if x.email == srv.email)
            for key, p in projects.items():
                assert p["maximum_annotations"] == 1 and p["show_collab_predictions"] is False
                assert p["label_config"].strip() == render_subset_config(store.subset(key)).strip()
                tasks = {t["id"]: t for t in admin.list_tasks(p["id"])}
                assert set(tasks) == set(store.slot_tasks(key, slot).values())
                assert len(tasks) == len(store.instances(key))
    # a rerun creates nothing
    capsys.readouterr()
    assert main(["setup", str(study)]) == 0
    assert "0 project(s) created, 0 task(s) imported" in capsys.readouterr().out


def test_status_before_anyone_started(iso, capsys):
    report = status_json(iso["dir"], capsys)
    assert report["open_seats"] == []
    per = {x["email"]: x for x in report["annotators"]}
    with Store.open(iso["dir"]) as store:
        n = {s.key: len(store.instances(s.key)) for s in store.subsets()}
    owes_b = n[CLS_ENG] + 1 + n[STS] + n[RERANK]
    assert (per[iso["b"].email]["started"], per[iso["b"].email]["to_do"]) == (False, owes_b)
    assert per[iso["a"].email]["to_do"] == owes_b + n[CLS_ARB]
    capsys.readouterr()
    assert main(["status", str(iso["dir"])]) == 0
    text = capsys.readouterr().out
    assert text.count("not started") == 2 and "ETA" in text and "to do" in text


def test_status_counts_tasks_like_label_studio_and_close_agrees(iso, capsys):
    study, a, b = iso["dir"], iso["a"], iso["b"]
    with Store.open(study) as store:
        eng = [i.hume_id for i in store.instances(CLS_ENG)]
        sts = [i.hume_id for i in store.instances(STS)]
    answer(a, study, invalid=eng[0])  # one answer that does not fit the interface
    answer(b, study, skip={sts[0]}, skipped=sts[1])  # one task left, one skipped
    report = status_json(study, capsys)
    by = {(p["subset"], p["email"]): p for p in report["projects"]}
    # "finished" is Label Studio's own count, read back from its project API
    for srv in (a, b):
        admin = srv.server.client()
        for key, p in our_projects(srv, study).items():
            ls = admin.get_project(p["id"])
            row = by[key, srv.email]
            assert (row["tasks"], row["finished"]) == (
                ls["task_number"],
                ls["finished_task_number"],
            )
    a_eng, b_sts = by[CLS_ENG, a.email], by[STS, b.email]
    # Label Studio counts the invalid answer as finished; hume does not count it as done
    assert (a_eng["finished"], a_eng["answered"], a_eng["invalid"], a_eng["to_do"]) == (6, 5, 1, 1)
    # a skip is not finished for Label Studio nor done for hume; the untouched task neither
    assert (b_sts["finished"], b_sts["answered"], b_sts["skipped"], b_sts["to_do"]) == (3, 3, 1, 2)
    per = {x["email"]: x for x in report["annotators"]}
    assert per[a.email]["to_do"] == 1 and per[b.email]["to_do"] == 2
    assert per[a.email]["median_lead_time_s"] == 30.0
    assert per[b.email]["work_left_s"] == 60.0  # 2 tasks × 30 s
    assert report["total"]["done"] is False and report["total"]["to_do"] == 3

    capsys.readouterr()
    assert main(["close", str(study)]) == 2
    err = capsys.readouterr().err
    assert f"{CLS_ENG} ({a.email}): 1 task(s) to do, 1 invalid" in err
    assert f"{STS} ({b.email}): 2 task(s) to do" in err
    with Store.open(study) as store:
        assert "closed_at" not in store.meta()

    # A fixes her answer, B does the two tasks left: done for status, Label Studio and close
    client_a, client_b = a.server.client(a.token), b.server.client(b.token)
    with Store.open(study) as store:
        sub, golds = store.subset(CLS_ENG), gold(store, CLS_ENG)
        inst = store.instances(CLS_ENG)[0]
        task = store.slot_tasks(CLS_ENG, 1)[inst.hume_id]
        [ann] = client_a.list_annotations(task)
        client_a.sdk.annotations.update(id=ann["id"], result=gold_result(sub, inst, golds[eng[0]]))
        sts_sub, sts_gold = store.subset(STS), gold(store, STS)
        for n in (0, 1):
            inst = store.instances(STS)[n]
            client_b.create_annotation(
                store.slot_tasks(STS, 2)[inst.hume_id],
                gold_result(sts_sub, inst, sts_gold[inst.hume_id]),
                lead_time=30.0,
            )
    report = status_json(study, capsys)
    assert report["total"]["done"] is True and report["total"]["to_do"] == 0
    assert all(p["finished"] == p["tasks"] == p["answered"] for p in report["projects"])
    assert main(["close", str(study)]) == 0
    assert "every task of every annotator answered" in capsys.readouterr().out


def test_pull_maps_both_annotators_onto_the_same_instances(iso, capsys):
    study = iso["dir"]
    capsys.readouterr()
    assert main(["pull", str(study)]) == 0
    out = capsys.readouterr().out
    with Store.open(study) as store:
        rows = store.annotations()
        eng = {i.hume_id for i in store.instances(CLS_ENG)}
        arb = {i.hume_id for i in store.instances(CLS_ARB)}
    valid = {(r.hume_id, r.annotator) for r in rows if r.status == "valid"}
    assert {(h, w) for h in eng for w in ("annotator-1", "annotator-2")} <= valid
    assert {w for h, w in valid if h in arb} == {"annotator-1"}
    # each server numbers its annotations on its own: every one of them is in the store
    in_ls = {}
    for slot, srv in ((1, iso["a"]), (2, iso["b"])):
        admin = srv.server.client()
        for p in our_projects(srv, study).values():
            for task in admin.export_annotated_tasks(p["id"]):
                in_ls.update({(slot, x["id"]): x for x in task["annotations"]})
    assert {(r.slot, r.ls_annotation_id) for r in rows} == set(in_ls)
    assert "1 skipped/cancelled" in out
    assert main(["pull", str(study)]) == 0
    assert "0 annotation(s) added, 0 updated, 0 deleted" in capsys.readouterr().out


def test_reveal_reaches_every_annotators_project(iso, capsys):
    study, a, b = iso["dir"], iso["a"], iso["b"]
    with Store.open(study) as store:
        golds = gold(store, STS)
        store.add_predictions(
            [PredictionRecord(h, "emb:test/gold", round(float(g))) for h, g in golds.items()]
        )
    capsys.readouterr()
    assert main(["reveal", str(study)]) == 0
    n = len(golds)
    assert f"{2 * n} prediction(s) added" in capsys.readouterr().out
    for srv in (a, b):
        admin = srv.server.client()
        pid = our_projects(srv, study)[STS]["id"]
        tasks = admin.list_tasks(pid)
        assert all(
            [p["model_version"] for p in t["predictions"]] == ["emb:test/gold"] for t in tasks
        )
        assert admin.get_project(pid)["show_collab_predictions"] is False
    assert main(["reveal", str(study)]) == 0
    assert "0 prediction(s) added" in capsys.readouterr().out


def test_an_interface_edited_in_label_studio_is_flagged_and_restored(iso, capsys):
    study, b = iso["dir"], iso["b"]
    pid = our_projects(b, study)[RERANK]["id"]
    # Community lets every member edit a project they can open: B edits her own
    config = our_projects(b, study)[RERANK]["label_config"]
    end = config.rindex("</View>")
    edited = config[:end] + "<Header value='mine'/>" + config[end:]
    b.server.client(b.token).update_project(pid, label_config=edited)
    report = status_json(study, capsys)
    row = next(p for p in report["projects"] if p["subset"] == RERANK and p["email"] == b.email)
    assert row["interface_changed"] is True and report["total"]["done"] is False
    capsys.readouterr()
    assert main(["setup", str(study)]) == 0
    assert "labelling interface restored" in capsys.readouterr().out
    report = status_json(study, capsys)
    assert not any(p["interface_changed"] for p in report["projects"])


def test_someone_invited_into_an_annotators_server_is_flagged(iso, capsys):
    """Every member of a server reads its answers: an extra account there is a warning."""
    b = iso["b"]
    friend = b.server.make_user("friend-of-b@hume.test")
    try:
        report = status_json(iso["dir"], capsys)
        per = {x["email"]: x for x in report["annotators"]}
        assert per[b.email]["other_accounts"] == ["friend-of-b@hume.test"]
        assert per[iso["a"].email]["other_accounts"] == []
        assert report["total"]["done"] is False
        assert main(["status", str(iso["dir"])]) == 0
        assert (
            f"warning: {b.email}'s Label Studio also has accounts for friend-of-b@hume.test"
            in capsys.readouterr().out
        )
    finally:
        b.server.client().sdk.users.delete(id=friend.id)
    assert status_json(iso["dir"], capsys)["total"]["done"] is True


def test_a_deleted_project_is_named_and_recreated(iso, capsys):
    study, b = iso["dir"], iso["b"]
    pid = our_projects(b, study)[STS]["id"]
    with Store.open(study) as store:
        kept = [r for r in store.annotations(STS) if r.slot == 2]
    assert len(kept) == 6 and sum(r.status == "valid" for r in kept) == 5  # and one skip
    b.server.client(b.token).delete_project(pid)  # an annotator can delete her own project

    report = status_json(study, capsys)
    row = next(p for p in report["projects"] if p["subset"] == STS and p["email"] == b.email)
    assert row["missing"] is True
    before = dump(study)
    capsys.readouterr()
    assert main(["setup", str(study)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{STS} (slot 2, {b.email}): project {pid} is gone from {b.url}" in err
    assert "--recreate-missing" in err
    assert dump(study) == before

    # pull still pulls the others, and keeps what came from the lost project
    assert main(["pull", str(study)]) == 0
    captured = capsys.readouterr()
    assert f"skipped {STS} (slot 2, {b.email})" in captured.err
    with Store.open(study) as store:
        assert [r for r in store.annotations(STS) if r.slot == 2] == kept

    assert main(["setup", str(study), "--recreate-missing"]) == 0
    out = capsys.readouterr().out
    assert f"{STS:<44} slot 2 ({b.email})" in out and "(created again), 5 task(s) imported" in out
    assert "held 5 pulled answer(s): gone from Label Studio, kept in the study store" in out
    new = our_projects(b, study)[STS]
    assert new["id"] != pid and new["task_number"] == 5
    assert main(["pull", str(study)]) == 0
    with Store.open(study) as store:
        assert [r for r in store.annotations(STS) if r.slot == 2] == kept


def test_a_crash_between_creating_and_recording_a_project_makes_no_duplicate(
    iso, tmp_path, monkeypatch
):
    """A second study on A's server: setup dies right after Label Studio made a project."""
    a = iso["a"]
    spec = real_data_spec("crash", 3, cls_eng=3, cls_arb=3, sts=3, rerank=2)
    spec["tasks"] = [t for t in spec["tasks"] if t["type"] == "sts"]
    spec["annotators"] = 1
    study = tmp_path / "crash"
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    register(study, a, "eng", iso["mp"])

    def crash(*args: Any, **kwargs: Any) -> int:
        raise RuntimeError("power cut")

    # 1. the project is made in Label Studio and its tasks imported; the run dies before
    #    recording them (setup records a new project with its tasks in one commit)
    monkeypatch.setattr(Store, "record_new_project", crash)
    with Store.open(study) as store, pytest.raises(RuntimeError, match="power cut"):
        setup_study(store, ls_servers.Clients())
    monkeypatch.undo()
    assert len(our_projects(a, study)) == 1
    # 2. the rerun finds it by its marker and records it; it finds its tasks by their data,
    #    and the run dies again before recording the task ids
    monkeypatch.setattr(Store, "set_slot_tasks", crash)
    with Store.open(study) as store, pytest.raises(RuntimeError, match="power cut"):
        setup_study(store, ls_servers.Clients())
    monkeypatch.undo()
    with Store.open(study) as store:
        assert len(store.slot_projects()) == 1 and store.slot_tasks(STS, 1) == {}
        # 3. the next run finds the tasks by their data: nothing is made twice
        [p] = setup_study(store, ls_servers.Clients()).projects
        assert (p.created, p.imported, p.recovered) == (False, 0, 3)
        assert len(store.slot_tasks(STS, 1)) == 3
    [project] = our_projects(a, study).values()
    assert a.server.client().get_project(project["id"])["task_number"] == 3
