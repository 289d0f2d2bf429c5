"""A whole study against real Label Studio servers: init, setup, two annotators (each with a
Label Studio of their own), pull, status, faults.

Real data (SIB-200 English and Arabic, STS Benchmark, a reranking set built from SIB-200), real
servers (the session fixture ``annotator_servers``), annotations created through the API with
each annotator's own token. Every test runs twice: on annotator servers with SQLite, and on
annotator servers with PostgreSQL (``annotator_servers_pg``, marker ``postgres``), as
docker-compose.yml runs them.
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

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from tests._annotate import bad_label, hume_env, set_up_study
from tests._studies import real_data_spec
from tests.task_type_examples import examples

pytestmark = pytest.mark.labelstudio


E2E_SPEC = real_data_spec("e2e", 7, cls_eng=14, cls_arb=7, sts=10, rerank=5, train_pool=True)


def dump(study: Path) -> list[str]:
    conn = sqlite3.connect(study / "study.sqlite")
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


@pytest.fixture(
    scope="module",
    params=[
        "annotator_servers",
        pytest.param("annotator_servers_pg", marks=pytest.mark.postgres),
    ],
)
def study(request, tmp_path_factory):
    """A study set up for two annotators, each in a Label Studio of their own: A (English and
    Arabic) answers with gold, B (English) with other answers; pulled once by the tests. Once
    on SQLite servers and once on PostgreSQL ones."""
    annotator_servers = request.getfixturevalue(request.param)
    root = tmp_path_factory.mktemp("e2e")
    mp = hume_env(root)
    a, b = annotator_servers
    study_dir = set_up_study(root / "study", E2E_SPEC, [(a, "eng,ara"), (b, "eng")], mp)
    client_a, client_b = a.server.client(a.token), b.server.client(b.token)
    submitted: dict[tuple[str, str], Any] = {}  # (hume_id, annotator key) -> answer
    with Store.open(study_dir) as store:
        arb = store.instances("SIB200Classification/arb_Arab")
        odd = {arb[0].hume_id: "invalid", arb[1].hume_id: "skip"}
        for subset in store.subsets():
            interface = task_types.get(subset.task_type)
            simulated = examples(subset.task_type)
            labels = subset.config.get("label_set") or []
            golds = gold(store, subset.key)
            tasks_a, tasks_b = store.slot_tasks(subset.key, 1), store.slot_tasks(subset.key, 2)
            for inst in store.instances(subset.key):
                kw = interface.ls_translation_kwargs(subset.config, inst.content)
                first = simulated.perfect_answer(golds[inst.hume_id])
                what = odd.get(inst.hume_id)
                if what == "invalid":  # a result that does not fit the interface
                    bad = client_a.create_annotation(
                        tasks_a[inst.hume_id], bad_label(subset), lead_time=5.0
                    )
                elif what == "skip":
                    client_a.create_annotation(tasks_a[inst.hume_id], [], was_cancelled=True)
                else:
                    client_a.create_annotation(
                        tasks_a[inst.hume_id],
                        interface.ls_answer_to_result(first, **kw),
                        lead_time=10.0,
                    )
                    submitted[(inst.hume_id, "annotator-1")] = first
                if inst.hume_id not in tasks_b:
                    continue
                second = simulated.other_answer(first, labels)
                client_b.create_annotation(
                    tasks_b[inst.hume_id],
                    interface.ls_answer_to_result(second, **kw),
                    lead_time=20.0,
                )
                submitted[(inst.hume_id, "annotator-2")] = second
    yield {
        "dir": study_dir,
        "a": a,
        "b": b,
        "submitted": submitted,
        "bad_annotation": bad,
        "mp": mp,
    }
    mp.undo()


def test_setup_projects_overlap_and_hidden_predictions(study):
    with Store.open(study["dir"]) as store:
        subsets = store.subsets()
        assert len(subsets) == 5
        for s in subsets:
            projects = store.slot_projects(s.key)
            # one project per annotator: two for English, one for Arabic
            assert len(projects) == (2 if s.language.startswith("eng") else 1)
            for p in projects:
                client = (study["a"] if p.slot == 1 else study["b"]).server.client()
                project = client.get_project(p.ls_project_id)
                assert project["maximum_annotations"] == 1
                assert project["show_collab_predictions"] is False
                tasks = client.list_tasks(p.ls_project_id)
                assert {t["id"] for t in tasks} == set(store.slot_tasks(s.key, p.slot).values())
                assert {t["data"]["hume_ref"] for t in tasks} == {
                    i.hume_ref for i in store.instances(s.key)
                }


def test_setup_rerun_and_half_done_run_create_nothing_twice(study, capsys):
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        projects = {(p.subset_key, p.slot): p.ls_project_id for p in store.slot_projects()}
        before = {k: len(client.list_tasks(pid)) for k, pid in projects.items() if k[1] == 1}
    # A run that died after importing tasks but before recording their ids:
    conn = sqlite3.connect(study["dir"] / "study.sqlite")
    with conn:
        conn.execute("DELETE FROM ls_tasks WHERE slot = 1 AND hume_id LIKE 'STSB%'")
    conn.close()
    capsys.readouterr()
    assert main(["setup", str(study["dir"])]) == 0
    out = capsys.readouterr().out
    assert "0 project(s) created, 0 task(s) imported" in out
    with Store.open(study["dir"]) as store:
        after = {k: len(client.list_tasks(pid)) for k, pid in projects.items() if k[1] == 1}
        assert len(store.slot_tasks("STSBenchmark/default", 1)) == 10
    assert after == before


def test_pull_stores_exactly_what_was_submitted(study, capsys):
    capsys.readouterr()
    assert main(["pull", str(study["dir"])]) == 0
    captured = capsys.readouterr()
    # The invalid result is reported with its task, the annotator's email and a link to it.
    bad = study["bad_annotation"]
    a = study["a"]
    assert f"task {bad['task']}, annotation {bad['id']} by {a.email} (annotator-1): " in (
        captured.err
    )
    assert f"; fix it at {a.url}/projects/" in captured.err
    assert "1 invalid, 1 skipped/cancelled" in captured.out
    with Store.open(study["dir"]) as store:
        rows = store.annotations()
    valid = {(r.hume_id, r.annotator): r.answer for r in rows if r.status == "valid"}
    assert valid == {k: json.loads(json.dumps(v)) for k, v in study["submitted"].items()}
    statuses = sorted(r.status for r in rows if r.status != "valid")
    assert statuses == ["cancelled", "invalid"]
    assert next(r for r in rows if r.status == "invalid").error


def test_second_pull_adds_nothing_and_edits_and_deletions_are_reflected(study, capsys):
    assert main(["pull", str(study["dir"])]) == 0
    assert "0 annotation(s) added, 0 updated, 0 deleted" in capsys.readouterr().out
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        rows = [
            r
            for r in store.annotations("STSBenchmark/default")
            if r.status == "valid" and r.slot == 1
        ]
    sts = task_types.get("sts").ls_module
    client.sdk.annotations.update(id=rows[0].ls_annotation_id, result=sts.answer_to_result(0))
    client.sdk.annotations.delete(id=rows[1].ls_annotation_id)
    assert main(["pull", str(study["dir"])]) == 0
    assert "0 annotation(s) added, 1 updated, 1 deleted" in capsys.readouterr().out
    with Store.open(study["dir"]) as store:
        live = {
            r.ls_annotation_id: r for r in store.annotations("STSBenchmark/default") if r.slot == 1
        }
    assert live[rows[0].ls_annotation_id].answer == 0
    assert rows[1].ls_annotation_id not in live


def test_status_counts_per_project_and_annotator(study, capsys):
    assert main(["status", str(study["dir"]), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    by = {(p["subset"], p["slot"]): p for p in report["projects"]}
    eng_a, eng_b = by["SIB200Classification/eng_Latn", 1], by["SIB200Classification/eng_Latn", 2]
    assert (eng_a["tasks"], eng_a["finished"], eng_a["answered"]) == (14, 14, 14)
    assert (eng_b["tasks"], eng_b["finished"], eng_b["answered"], eng_b["to_do"]) == (14, 14, 14, 0)
    assert eng_b["median_lead_time_s"] == 20.0 and eng_a["median_lead_time_s"] == 10.0
    per = {x["email"]: x for x in report["annotators"]}
    assert per[study["b"].email]["to_do"] == 0 and per[study["b"].email]["started"] is True
    arb = by["SIB200Classification/arb_Arab", 1]
    # 7 tasks, one annotator: 5 answered, one invalid (finished for Label Studio, not done),
    # one skipped (neither)
    assert (arb["tasks"], arb["finished"], arb["answered"]) == (7, 6, 5)
    assert (arb["invalid"], arb["skipped"], arb["to_do"]) == (1, 1, 2)
    assert main(["status", str(study["dir"])]) == 0
    assert "Total:" in capsys.readouterr().out


def test_annotator_token_cannot_read_gold(study):
    b = study["b"]
    client = b.server.client(b.token)
    with Store.open(study["dir"]) as store:
        refs = {ref: i.hume_id for ref, i in store.instances_by_ref().items()}
        for s in store.subsets():
            golds = gold(store, s.key)
            for p in store.slot_projects(s.key):
                if p.slot != 2:
                    continue
                for task in client.list_tasks(p.ls_project_id):
                    data = task["data"]
                    allowed = {
                        "classification": {"hume_ref", "hume_position", "text"},
                        "sts": {"hume_ref", "hume_position", "sentence1", "sentence2"},
                        "reranking": {"hume_ref", "hume_position", "query", "candidates"},
                        "clustering": {"hume_ref", "hume_position", "items"},
                    }[s.task_type]
                    assert set(data) == allowed
                    # the position carries the presentation order only ("Task n of N")
                    assert data["hume_position"].startswith("Task ")
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


def _point_slot_at(study: Path, slot: int, url: str, token: str) -> str:
    """Make the store send slot ``slot``'s calls to ``url`` (with ``token``); the old URL."""
    from hume_sync.labelstudio import servers as ls_servers

    conn = sqlite3.connect(study / "study.sqlite")
    with conn:
        (old,) = conn.execute("SELECT ls_url FROM annotators WHERE slot = ?", (slot,)).fetchone()
        conn.execute("UPDATE annotators SET ls_url = ? WHERE slot = ?", (url, slot))
    conn.close()
    ls_servers.remember(url, token=token)
    return old


def test_server_dying_mid_pull_leaves_store_unchanged(study, capsys):
    # Something new to pull, so that an interrupted pull would have had work to write.
    a = study["a"]
    with Store.open(study["dir"]) as store:
        inst = store.instances("STSBenchmark/default")[0]
        task = store.slot_tasks("STSBenchmark/default", 2)[inst.hume_id]
    b = study["b"]
    b.server.client(b.token).create_annotation(
        task, task_types.get("sts").ls_module.answer_to_result(3)
    )
    proxy = _DyingProxy(a.url, budget=2)  # A's first project or two, then dies
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    proxy_url = f"http://127.0.0.1:{proxy.server_address[1]}"
    real = _point_slot_at(study["dir"], 1, proxy_url, a.server.token)
    try:
        before = dump(study["dir"])
        capsys.readouterr()
        assert main(["pull", str(study["dir"])]) == 2
    finally:
        proxy.shutdown()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"hume-sync pull: error: Label Studio at {proxy_url}")
    assert a.server.token not in err
    assert dump(study["dir"]) == before
    # With the server back, the pull completes.
    _point_slot_at(study["dir"], 1, real, a.server.token)
    assert main(["pull", str(study["dir"])]) == 0
    assert "1 annotation(s) added" in capsys.readouterr().out


def test_wrong_token_and_down_server_are_one_line_errors(study, capsys):
    from hume_sync.labelstudio import servers as ls_servers

    a = study["a"]
    ls_servers.remember(a.url, token="definitely-wrong-token-123")
    try:
        capsys.readouterr()
        assert main(["setup", str(study["dir"])]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "401" in err
        assert "definitely-wrong-token-123" not in err
    finally:
        ls_servers.remember(a.url, token=a.server.token)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    real = _point_slot_at(study["dir"], 1, f"http://127.0.0.1:{port}", a.server.token)
    try:
        before = dump(study["dir"])
        assert main(["pull", str(study["dir"])]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "not reachable" in err
        assert dump(study["dir"]) == before
    finally:
        _point_slot_at(study["dir"], 1, real, a.server.token)


def test_not_a_study_is_a_clear_error(tmp_path, capsys):
    assert main(["pull", str(tmp_path)]) == 2
    assert "not a study" in capsys.readouterr().err
