"""A whole study against a real Label Studio: init, setup, two annotators, pull, status, faults.

Real data (SIB-200 English and Arabic, STS Benchmark, a reranking set built from SIB-200), a real
server (the session fixture), annotations created through the API by two different users.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

import label_studio_configs
from hume_sync.cli import main
from hume_sync.store import Store, gold
from tests._studies import real_data_spec, write_spec

pytestmark = pytest.mark.labelstudio


def spec(study: Path) -> Path:
    return write_spec(
        study, real_data_spec("e2e", 7, cls_eng=14, cls_arb=7, sts=10, rerank=5, train_pool=True)
    )


def dump(study: Path) -> list[str]:
    conn = sqlite3.connect(study / "study.sqlite")
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def other_answer(task_type: str, gold_answer: Any, labels: list[str]) -> Any:
    """A plausible answer that differs from gold, so that the two annotators disagree."""
    if task_type == "classification":
        return next(lab for lab in labels if lab != gold_answer)
    if task_type == "sts":
        return 5 - round(float(gold_answer))
    if task_type == "reranking":
        return {cid: 1 - int(v) for cid, v in gold_answer.items()}
    groups = sorted(set(gold_answer.values()))
    return {
        item: f"group_{(groups.index(g) + 1) % len(groups) + 1}" for item, g in gold_answer.items()
    }


def gold_answer(task_type: str, g: Any, groups: dict[str, str]) -> Any:
    if task_type == "sts":
        return round(float(g))
    if task_type == "clustering":
        return {item: groups[label] for item, label in g.items()}
    return g


@pytest.fixture(scope="module")
def study(ls_server, tmp_path_factory):
    """A study set up in Label Studio, annotated by two users, and pulled once."""
    mp = pytest.MonkeyPatch()
    mp.setenv("LABEL_STUDIO_URL", ls_server.url)
    mp.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    root = tmp_path_factory.mktemp("e2e")
    study_dir = root / "study"
    assert main(["init", str(study_dir), "--spec", str(spec(study_dir))]) == 0
    assert main(["setup", str(study_dir)]) == 0
    user = ls_server.make_user()
    admin = ls_server.client()
    annotator = ls_server.client(user.token)
    submitted: dict[tuple[str, str], Any] = {}  # (hume_id, who) -> answer
    with Store.open(study_dir) as store:
        for subset in store.subsets():
            module = label_studio_configs.get(subset.task_type)
            labels = subset.config.get("label_set") or []
            golds = gold(store, subset.key)
            kw = {
                "labels": labels if subset.task_type == "classification" else None,
                "n_groups": subset.config.get("n_groups"),
            }
            for inst in store.instances(subset.key):
                ids = module.item_ids(inst.content) if hasattr(module, "item_ids") else None
                groups = {lab: f"group_{i + 1}" for i, lab in enumerate(sorted(labels))}
                first = gold_answer(subset.task_type, golds[inst.hume_id], groups)
                admin.create_annotation(
                    inst.ls_task_id,
                    module.answer_to_result(first, item_ids=ids, **kw),
                    lead_time=10.0,
                )
                submitted[(inst.hume_id, "admin")] = first
                if subset.overlap < 2:
                    continue
                second = other_answer(subset.task_type, first, labels)
                annotator.create_annotation(
                    inst.ls_task_id,
                    module.answer_to_result(second, item_ids=ids, **kw),
                    lead_time=20.0,
                )
                submitted[(inst.hume_id, "user")] = second
        # One result that does not fit the interface, one skipped task (second English item).
        cls = store.subset("SIB200Classification/eng_Latn")
        insts = store.instances(cls.key)
        bad = [
            {
                "from_name": "label",
                "to_name": "text",
                "type": "choices",
                "value": {"choices": ["not-a-label"]},
            }
        ]
        arb = store.instances("SIB200Classification/arb_Arab")
        bad_ann = annotator.create_annotation(arb[0].ls_task_id, bad, lead_time=5.0)
        annotator.create_annotation(arb[1].ls_task_id, [], was_cancelled=True)
    yield {
        "dir": study_dir,
        "user": user,
        "admin_id": admin.whoami()["id"],
        "submitted": submitted,
        "bad_annotation": bad_ann,
        "cls_instances": insts,
        "mp": mp,
        "server": ls_server,
    }
    mp.undo()


def test_setup_projects_overlap_and_hidden_predictions(study):
    client = study["server"].client()
    with Store.open(study["dir"]) as store:
        subsets = store.subsets()
        assert len(subsets) == 5
        for s in subsets:
            project = client.get_project(s.ls_project_id)
            assert project["maximum_annotations"] == (2 if s.language.startswith("eng") else 1)
            assert project["show_collab_predictions"] is False
            tasks = client.list_tasks(s.ls_project_id)
            assert len(tasks) == len(store.instances(s.key))
            assert {t["data"]["hume_ref"] for t in tasks} == {
                i.hume_ref for i in store.instances(s.key)
            }


def test_setup_rerun_and_half_done_run_create_nothing_twice(study, capsys):
    client = study["server"].client()
    with Store.open(study["dir"]) as store:
        before = {s.key: len(client.list_tasks(s.ls_project_id)) for s in store.subsets()}
    # A run that died after importing tasks but before recording their ids:
    conn = sqlite3.connect(study["dir"] / "study.sqlite")
    with conn:
        conn.execute("UPDATE instances SET ls_task_id = NULL WHERE subset_key LIKE 'STSB%'")
    conn.close()
    capsys.readouterr()
    assert main(["setup", str(study["dir"])]) == 0
    out = capsys.readouterr().out
    assert "0 project(s) created, 0 task(s) imported" in out
    with Store.open(study["dir"]) as store:
        after = {s.key: len(client.list_tasks(s.ls_project_id)) for s in store.subsets()}
        assert all(i.ls_task_id is not None for i in store.instances("STSBenchmark/default"))
    assert after == before


def test_pull_stores_exactly_what_was_submitted(study, capsys):
    capsys.readouterr()
    assert main(["pull", str(study["dir"])]) == 0
    captured = capsys.readouterr()
    user_key = f"ls-user-{study['user'].id}"
    admin_key = f"ls-user-{study['admin_id']}"
    # The invalid result is reported with its task and annotator, and did not stop the others.
    bad = study["bad_annotation"]
    assert f"task {bad['task']}, annotation {bad['id']} by {user_key}" in captured.err
    assert "1 invalid, 1 skipped/cancelled" in captured.out
    with Store.open(study["dir"]) as store:
        rows = store.annotations()
    valid = {(r.hume_id, r.annotator): r.answer for r in rows if r.status == "valid"}
    expected = {
        (hid, admin_key if who == "admin" else user_key): ans
        for (hid, who), ans in study["submitted"].items()
    }
    assert valid == {k: json.loads(json.dumps(v)) for k, v in expected.items()}
    statuses = sorted(r.status for r in rows if r.status != "valid")
    assert statuses == ["cancelled", "invalid"]
    assert next(r for r in rows if r.status == "invalid").error


def test_second_pull_adds_nothing_and_edits_and_deletions_are_reflected(study, capsys):
    assert main(["pull", str(study["dir"])]) == 0
    assert "0 annotation(s) added, 0 updated, 0 deleted" in capsys.readouterr().out
    client = study["server"].client()
    with Store.open(study["dir"]) as store:
        rows = [r for r in store.annotations("STSBenchmark/default") if r.status == "valid"]
    sts = label_studio_configs.get("sts")
    client.sdk.annotations.update(id=rows[0].ls_annotation_id, result=sts.answer_to_result(0))
    client.sdk.annotations.delete(id=rows[1].ls_annotation_id)
    assert main(["pull", str(study["dir"])]) == 0
    assert "0 annotation(s) added, 1 updated, 1 deleted" in capsys.readouterr().out
    with Store.open(study["dir"]) as store:
        live = {r.ls_annotation_id: r for r in store.annotations("STSBenchmark/default")}
    assert live[rows[0].ls_annotation_id].answer == 0
    assert rows[1].ls_annotation_id not in live


def test_status_counts_per_project_and_annotator(study, capsys):
    assert main(["status", str(study["dir"]), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    by = {p["subset"]: p for p in report["projects"]}
    eng = by["SIB200Classification/eng_Latn"]
    assert (eng["tasks"], eng["finished_tasks"], eng["annotations"]) == (14, 14, 28)
    assert eng["remaining_annotations"] == 0
    per = {a["annotator"]: a for a in eng["annotators"]}
    assert per[f"ls-user-{study['user'].id}"]["annotations"] == 14
    assert per[f"ls-user-{study['user'].id}"]["median_lead_time_s"] == 20.0
    assert per[f"ls-user-{study['user'].id}"]["email"] == study["user"].email
    assert eng["median_lead_time_s"] == 15.0
    arb = by["SIB200Classification/arb_Arab"]
    # 7 tasks, overlap 1: the admin did all 7; the user added an invalid one and a skip.
    assert arb["skipped"] == 1 and arb["finished_tasks"] == 7
    assert main(["status", str(study["dir"])]) == 0
    assert "Total:" in capsys.readouterr().out


def test_annotator_token_cannot_read_gold(study):
    client = study["server"].client(study["user"].token)
    with Store.open(study["dir"]) as store:
        refs = {ref: i.hume_id for ref, i in store.instances_by_ref().items()}
        for s in store.subsets():
            golds = gold(store, s.key)
            for task in client.list_tasks(s.ls_project_id):
                data = task["data"]
                allowed = {
                    "classification": {"hume_ref", "text"},
                    "sts": {"hume_ref", "sentence1", "sentence2"},
                    "reranking": {"hume_ref", "query", "candidates"},
                    "clustering": {"hume_ref", "items"},
                }[s.task_type]
                assert set(data) == allowed
                assert task.get("predictions") in ([], None)  # sealed: nothing uploaded
                # Gold would have to travel in a key: items and candidates carry text only.
                for item in data.get("items", []) + data.get("candidates", []):
                    assert set(item) == {"id", "title", "body"}
                assert not task.get("meta")
                assert refs[data["hume_ref"]] in golds


class _DyingProxy(ThreadingHTTPServer):
    """Forwards to Label Studio for `budget` requests, then drops every connection unanswered."""

    def __init__(self, upstream: str, budget: int) -> None:
        self.upstream, self.budget = upstream, budget
        super().__init__(("127.0.0.1", 0), _ProxyHandler)


class _ProxyHandler(BaseHTTPRequestHandler):
    server: _DyingProxy

    def log_message(self, *args: object) -> None:
        pass

    def _forward(self) -> None:
        if self.server.budget <= 0:
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.server.budget -= 1
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in {"host"}}
        resp = httpx.request(
            self.command,
            self.server.upstream + self.path,
            headers=headers,
            content=body,
            timeout=30,
        )
        payload = resp.content
        self.send_response(resp.status_code)
        for k, v in resp.headers.items():
            if k.lower() not in {
                "content-length",
                "transfer-encoding",
                "connection",
                "content-encoding",
            }:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_DELETE = _forward


def test_server_dying_mid_pull_leaves_store_unchanged(study, capsys, monkeypatch):
    # Something new to pull, so that an interrupted pull would have had work to write.
    with Store.open(study["dir"]) as store:
        sts = store.subset("STSBenchmark/default")
        inst = store.instances(sts.key)[0]
    study["server"].client().create_annotation(
        inst.ls_task_id, label_studio_configs.get("sts").answer_to_result(3)
    )
    before = dump(study["dir"])
    proxy = _DyingProxy(study["server"].url, budget=2)  # the first project or two, then dies
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{proxy.server_address[1]}")
        capsys.readouterr()
        assert main(["pull", str(study["dir"])]) == 2
    finally:
        proxy.shutdown()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("hume-sync pull: error: Label Studio at http://127.0.0.1:")
    assert study["server"].token not in err
    assert dump(study["dir"]) == before
    # With the server back, the pull completes.
    monkeypatch.setenv("LABEL_STUDIO_URL", study["server"].url)
    assert main(["pull", str(study["dir"])]) == 0
    assert "1 annotation(s) added" in capsys.readouterr().out


def test_wrong_token_and_down_server_are_one_line_errors(study, capsys, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "definitely-wrong-token-123")
    capsys.readouterr()
    assert main(["setup", str(study["dir"])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "401" in err
    assert "definitely-wrong-token-123" not in err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{port}")
    before = dump(study["dir"])
    assert main(["pull", str(study["dir"])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not reachable" in err
    assert dump(study["dir"]) == before


def test_not_a_study_is_a_clear_error(tmp_path, capsys):
    assert main(["pull", str(tmp_path)]) == 2
    assert "not a study" in capsys.readouterr().err
