"""`hume-sync annotators remove` on real servers: one of two annotators leaves mid-study.

Annotator A works in an embedded Label Studio hume started for her, B in a server of his own.
Every subset is A's (one annotator per subset, A is slot 1); she finishes STS, answers part of
two more and leaves without a pull. Removing her pulls her last answers, which stay in the
store and count in the report; the seat she finished stays hers, her other English seats go to
B (created by the next setup, while her server is stopped), the Arabic one is listed as open;
her server process is stopped and its folder kept until ``--delete-server``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import server
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import Store, gold
from hume_sync.store.meta import ML_BACKEND_URL
from hume_sync.workflow.annotators import add_annotator
from tests._annotate import gold_result, hume_env, register
from tests._studies import real_data_spec, write_spec

A = "ana.leaves@hume.test"


def test_unknown_email_is_one_line(tmp_path: Path, capsys: Any) -> None:
    study = tmp_path / "study"
    spec = real_data_spec("remove-bad", 1, cls_eng=2, cls_arb=1, sts=1, rerank=1)
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    capsys.readouterr()
    assert main(["annotators", "remove", str(study), "nobody@x.org"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [
        "hume-sync annotators: error: 'nobody@x.org' is not an annotator of this study "
        f"(see 'hume-sync annotators list {study}')"
    ]


def _answer(client: LabelStudioClient, store: Store, key: str, slot: int, n: int) -> int:
    """The slot's account answers the first ``n`` tasks of a subset with gold; how many."""
    sub = store.subset(key)
    tasks = store.slot_tasks(key, slot)
    right = gold(store, key)
    instances = {i.hume_id: i for i in store.instances(key)}
    for hid in list(tasks)[:n]:
        client.create_annotation(
            tasks[hid], gold_result(sub, instances[hid], right[hid]), lead_time=4.0
        )
    return min(n, len(tasks))


@pytest.mark.labelstudio
def test_an_annotator_leaves_mid_study(annotator_servers: Any, tmp_path: Path, capsys: Any) -> None:
    b = annotator_servers[1]
    study = tmp_path / "study"
    spec = real_data_spec("remove", 5, cls_eng=3, cls_arb=2, sts=2, rerank=2)
    spec["annotators"] = 1  # one annotator per subset: all of them go to slot 1 (A)
    mp = hume_env(tmp_path)
    data_dir = ls_servers.annotator_home(A) / "label-studio"
    try:
        assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
        with Store.open(study) as store:
            added = add_annotator(store, A, ("eng", "ara"), start_timeout=300.0)
        assert added.token is not None and added.annotator.slot == 1
        register(study, b, "eng", mp)
        assert main(["setup", str(study)]) == 0
        with Store.open(study) as store:
            kind = {(s.task_type, s.language[:3]): s.key for s in store.subsets()}
            sts, cls_eng, cls_arb = (
                kind["sts", "eng"],
                kind["classification", "eng"],
                kind["classification", "arb"],
            )
            others = {kind["clustering", "eng"], kind["reranking", "eng"]}
            assert {p.slot for p in store.slot_projects()} == {1}  # B has nothing yet
            ana = LabelStudioClient(added.annotator.ls_url, added.token)
            answered = (
                _answer(ana, store, sts, 1, 99)  # finished
                + _answer(ana, store, cls_eng, 1, 1)
                + _answer(ana, store, cls_arb, 1, 1)
            )
            assert store.instance_count(sts) == 2 and answered == 4
            assert store.annotations() == []  # never pulled
        assert server.status(data_dir).running

        capsys.readouterr()
        assert main(["annotators", "remove", str(study), A]) == 0
        out = capsys.readouterr().out
        assert f"{A}: removed (slot 1, annotator-1); 4 valid answer(s) of theirs stay" in out
        assert "last pull: 4 added, 0 updated, 0 deleted" in out
        lines = {line.split()[0]: " ".join(line.split()[1:]) for line in out.splitlines()[2:]}
        assert lines[sts] == "finished: stays theirs"
        for key in {cls_eng} | others:
            assert lines[key] == f"goes to slot 2 ({b.email})"
        assert lines[cls_arb] == "open seat: no annotator for ara yet"
        assert f"its folder {data_dir.resolve()} is kept" in out
        # stopped, not deleted; 'hume-sync up' leaves it stopped
        assert not server.status(data_dir).running
        assert (data_dir / server.CREDENTIALS_FILE).is_file()
        assert data_dir.resolve() not in [d.resolve() for d in ls_servers.embedded_annotator_dirs()]

        # B gets the seats A left, A's stopped server is never asked for anything
        assert main(["setup", str(study)]) == 0
        out = capsys.readouterr().out
        assert "3 project(s) created" in out
        with Store.open(study) as store:
            b_subsets = {p.subset_key for p in store.slot_projects() if p.slot == 2}
            assert b_subsets == {cls_eng} | others
            bob = b.server.client(b.token)
            assert _answer(bob, store, cls_eng, 2, 1) == 1
        assert main(["pull", str(study)]) == 0
        assert "1 annotation(s) added" in capsys.readouterr().out
        with Store.open(study) as store:  # a study with an ML backend: only B's are checked
            store.set_meta({ML_BACKEND_URL: "http://127.0.0.1:9"})
        assert main(["annotators", "list", str(study), "--json"]) == 0
        listed = {r["slot"]: r for r in json.loads(capsys.readouterr().out)["annotators"]}
        assert listed[2]["retired_at"] is None and listed[1]["retired_at"] is not None
        assert [x["subset"] for x in listed[1]["subsets"]] == [sts]
        assert main(["status", str(study)]) == 0
        status = capsys.readouterr().out
        assert "retired (finished; server stopped, answers kept in the store)" in status
        assert "open seat: needs an annotator for ara" in status
        unconnected = [line for line in status.splitlines() if "ML backend not connected" in line]
        assert len(unconnected) == 3 and all(f"(slot 2, {b.email})" in x for x in unconnected)

        # her answers count: in the report beside B's
        out_dir = tmp_path / "report"
        assert main(["export", str(study), "--out", str(out_dir)]) == 0
        scores = json.loads((out_dir / "scores.json").read_text())
        by = {x["subset"]: x for x in scores["subsets"]}
        assert by[cls_eng]["human"]["per_rater"] == {"annotator-1": 1.0, "annotator-2": 1.0}
        assert by[sts]["coverage"]["annotations"] == 2
        assert by[cls_arb]["coverage"]["annotations"] == 1

        # again: one line, nothing changed; then the manager deletes her server
        capsys.readouterr()
        assert main(["annotators", "remove", str(study), A.upper()]) == 0
        again = capsys.readouterr().out.strip().splitlines()
        assert len(again) == 1 and again[0].startswith(f"{A} was already removed at ")
        assert "nothing changed; 4 valid answer(s) of theirs stay" in again[0]
        # coming back under the same email: refused in one line, before any server is asked
        assert main(["annotators", "add", str(study), A.upper(), "--port", "9"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "was removed from this study" in err[0] and "slot 1" in err[0]
        assert not server.status(data_dir).running
        assert main(["annotators", "remove", str(study), A, "--delete-server"]) == 0
        assert "folder is deleted" in capsys.readouterr().out
        assert not data_dir.exists()
        with Store.open(study) as store:
            assert sum(a.slot == 1 and a.status == "valid" for a in store.annotations()) == 4
    finally:
        if data_dir.exists():
            server.stop(data_dir)
        mp.undo()
