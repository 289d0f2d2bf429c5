"""The ML backend app (Flask test client and a real gunicorn), reveal and close, the mapping of
stored answers to Label Studio results. Model-free: predictions come from a hash encoder."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from hume_sync import task_types
from hume_sync.store import PredictionRecord, Store, gold
from hume_sync.workflow.backend import (
    SEALED_MODEL_VERSION,
    StudySource,
    create_backend_app,
    read_events,
)
from hume_sync.workflow.reveal import CLOSED_AT, REVEALED_AT, RevealError, close_study, reveal_study
from ml_backend.app import create_app
from ml_backend.reveal import DEFAULT_RERANK_RULE, ls_prediction, rerank_marks, sts_level
from tests._fake_encoder import FakeEncoder
from tests.ml_backend.test_predict import CLS, CLU, RR, STS, make_study, study_spec
from tests.task_type_examples import examples

ROOT = Path(__file__).resolve().parents[2]
FAKE = "emb:test/fake"


# ----------------------------------------------------------------------------- fixtures


class FakeLabelStudio:
    """The few LabelStudioClient calls close/reveal make, over in-memory projects.

    Two annotators who speak every language of the study, so that every seat is filled; each
    has one project per subset on "their server" (this object answers for every URL).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tasks: dict[int, list[dict[str, Any]]] = {}
        self.annotated: dict[int, list[dict[str, Any]]] = {}
        self.imported = 0
        langs = sorted({s.language.split("-")[0] for s in store.subsets()})
        slots = [
            store.add_annotator(f"a{n}@x.org", langs, f"http://127.0.0.1:{7000 + n}", 2).slot
            for n in (1, 2)
        ]
        for n, sub in enumerate(store.subsets()):
            for slot in slots[: sub.overlap]:
                pid = 100 + 10 * n + slot
                insts = store.instances(sub.key)
                ids = {i.hume_id: 1000 * pid + k for k, i in enumerate(insts)}
                refs = {i.hume_id: i.hume_ref for i in insts}
                store.set_slot_project(sub.key, slot, pid, f"hume:{pid}")
                store.set_slot_tasks(sub.key, slot, ids)
                self.tasks[pid] = [
                    {"id": tid, "data": {"hume_ref": refs[hid]}, "predictions": []}
                    for hid, tid in ids.items()
                ]
                self.annotated[pid] = []

    def __call__(self, url: str) -> FakeLabelStudio:
        return self

    def finish_all(self) -> None:
        """Every annotator answers every task with the gold answer (a valid result)."""
        for p in self.store.slot_projects():
            sub = self.store.subset(p.subset_key)
            interface = task_types.get(sub.task_type)
            golds = gold(self.store, sub.key)
            by_ref = {i.hume_ref: i for i in self.store.instances(sub.key)}
            self.annotated[p.ls_project_id] = []
            for task in self.tasks[p.ls_project_id]:
                inst = by_ref[task["data"]["hume_ref"]]
                answer = examples(sub.task_type).perfect_answer(golds[inst.hume_id])
                kw = interface.ls_translation_kwargs(sub.config, inst.content)
                result = interface.ls_answer_to_result(answer, **kw)
                self.annotated[p.ls_project_id].append(
                    {
                        **task,
                        "annotations": [{"id": task["id"], "completed_by": 2, "result": result}],
                    }
                )

    def whoami(self) -> dict[str, Any]:
        return {"id": 1}

    def user_emails(self) -> dict[int, str]:
        return {1: "manager@x.org"}  # nobody but the manager and the slot's annotator

    def get_project(self, pid: int, fields: Any = ()) -> dict[str, Any]:
        from hume_sync.workflow.setup import render_subset_config

        [key] = [p.subset_key for p in self.store.slot_projects() if p.ls_project_id == pid]
        return {
            "task_number": len(self.tasks[pid]),
            "finished_task_number": len(self.annotated[pid]),
            "label_config": render_subset_config(self.store.subset(key)),
        }

    def export_annotated_tasks(self, pid: int) -> list[dict[str, Any]]:
        return json.loads(json.dumps(self.annotated[pid]))

    def list_tasks(self, pid: int) -> list[dict[str, Any]]:
        return json.loads(json.dumps(self.tasks[pid]))

    def import_predictions(self, pid: int, preds: Sequence[Mapping[str, Any]]) -> int:
        by_id = {t["id"]: t for t in self.tasks[pid]}
        for p in preds:
            by_id[p["task"]]["predictions"].append({k: v for k, v in p.items() if k != "task"})
        self.imported += len(preds)
        return len(preds)


@pytest.fixture(scope="module")
def predicted_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real-data study with the hash encoder's predictions (read-only for tests)."""
    study = make_study(
        tmp_path_factory.mktemp("app") / "study", study_spec(cls_size=14, sts_size=10, rr_size=4)
    )
    from hume_sync.workflow.predict import predict_study

    with Store.open(study) as store:
        predict_study(study, store, encoders=[FakeEncoder()], progress=False)
    return study


@pytest.fixture
def study(predicted_small: Path, tmp_path: Path) -> Path:
    """A private copy (tests close and reveal it)."""
    import shutil

    copy = tmp_path / "study"
    shutil.copytree(predicted_small, copy)
    return copy


@pytest.fixture
def fake_ls(study: Path) -> Iterator[FakeLabelStudio]:
    with Store.open(study) as store:
        yield FakeLabelStudio(store)


def store_subsets(study: Path) -> list[str]:
    with Store.open(study) as store:
        return [s.key for s in store.subsets()]


def tasks_payload(study: Path, subset: str) -> list[dict[str, Any]]:
    """Tasks as Label Studio sends them to /predict (data from label_studio_configs)."""
    with Store.open(study) as store:
        sub = store.subset(subset)
        interface = task_types.get(sub.task_type)
        return [
            {"id": n + 1, "data": interface.ls_task_data(i.hume_ref, i.content), "predictions": []}
            for n, i in enumerate(store.instances(subset))
        ]


def close(study: Path) -> None:
    with Store.open(study) as store:
        close_study(store, force=True)


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


# ----------------------------------------------------------------------------- mapping


def test_sts_level_rounds_half_up_and_clips() -> None:
    assert [sts_level(c) for c in (-0.4, 0.0, 0.09, 0.1, 0.29, 0.3, 0.5, 0.95, 1.0)] == [
        0,
        0,
        0,
        1,
        1,
        2,
        3,
        5,
        5,
    ]
    with pytest.raises(ValueError):
        sts_level(float("nan"))


def test_rerank_marks_rules() -> None:
    sharp = {"a": 0.9, "b": 0.5, "c": 0.45, "d": 0.1}
    assert rerank_marks(sharp) == {"a": 1, "b": 0, "c": 0, "d": 0}
    two = {"a": 0.9, "b": 0.85, "c": 0.2, "d": 0.15}
    assert rerank_marks(two) == {"a": 1, "b": 1, "c": 0, "d": 0}
    assert rerank_marks(two, "top1") == {"a": 1, "b": 0, "c": 0, "d": 0}
    flat = {"x": 0.5, "y": 0.5}  # an exact tie: the larger id ranks first (as mteb)
    assert rerank_marks(flat) == {"x": 0, "y": 1}
    assert sum(rerank_marks({str(i): 0.1 * i for i in range(7)}).values()) < 7
    with pytest.raises(ValueError, match="rule"):
        rerank_marks(sharp, "median")


def test_ls_predictions_read_back_through_label_studio_configs(predicted_small: Path) -> None:
    with Store.open(predicted_small) as store:
        for sub in store.subsets():
            interface = task_types.get(sub.task_type)
            insts = {i.hume_id: i for i in store.instances(sub.key)}
            for p in store.predictions(sub.key, model_version=FAKE):
                content = insts[p.hume_id].content
                got = ls_prediction(
                    interface, FAKE, p.answer, p.score, config=sub.config, content=content
                )
                assert got["model_version"] == FAKE
                back = interface.ls_result_to_answer(
                    got["result"], **interface.ls_translation_kwargs(sub.config, content)
                )
                rule = DEFAULT_RERANK_RULE
                assert back == interface.ls_shown_embedding_answer(p.answer, rule=rule)
                examples(sub.task_type).check_revealed(got, p.answer, p.score)
                # no score that Label Studio would print as a percentage (a vote share)
                assert "score" not in got


# ----------------------------------------------------------------------------- close / reveal


def test_reveal_refuses_an_open_study(study: Path, fake_ls: FakeLabelStudio) -> None:
    with Store.open(study) as store:
        with pytest.raises(RevealError, match="still open"):
            reveal_study(store, fake_ls)
        with pytest.raises(RevealError, match="task\\(s\\) to do"):
            close_study(store, fake_ls)
        assert CLOSED_AT not in store.meta() and REVEALED_AT not in store.meta()
    assert fake_ls.imported == 0


def test_close_then_reveal_is_idempotent(study: Path, fake_ls: FakeLabelStudio) -> None:
    with Store.open(study) as store:
        first = store.instances(STS)[0]
        store.add_predictions([PredictionRecord(first.hume_id, "llm:tiny", 4)])
        result = close_study(store, force=True)
        assert not result.already and result.closed_by == "forced by the manager"
        assert close_study(store, fake_ls).already
        summary = reveal_study(store, fake_ls)
    # every annotator's project gets every prediction of its tasks
    with Store.open(study) as store:
        per_project = {
            p.ls_project_id: len(store.predictions(p.subset_key, model_version=FAKE))
            for p in store.slot_projects()
        }
        tiny_projects = len(store.slot_projects(STS))
    assert summary.created == sum(per_project.values()) + tiny_projects
    assert summary.present == 0 and len(per_project) > len(store_subsets(study))
    for tasks in fake_ls.tasks.values():
        for task in tasks:
            versions = sorted(p["model_version"] for p in task["predictions"])
            want = [FAKE, "llm:tiny"] if task["data"]["hume_ref"] == first.hume_ref else [FAKE]
            assert versions == want
    with Store.open(study) as store:
        again = reveal_study(store, fake_ls)
        assert REVEALED_AT in store.meta()
    assert again.created == 0 and again.present == summary.created


def test_reveal_closes_a_finished_study_and_reports_bad_answers(
    study: Path, fake_ls: FakeLabelStudio
) -> None:
    fake_ls.finish_all()
    with Store.open(study) as store:
        hid = store.instances(CLS)[0].hume_id
        store.add_predictions(
            [
                PredictionRecord(hid, "llm:bad", "not-a-label"),
                PredictionRecord(hid, "llm:failed", None),  # no answer: skipped silently
            ]
        )
        summary = reveal_study(store, fake_ls)
        assert CLOSED_AT in store.meta()
    assert summary.closed_now
    [bad] = [p for s in summary.subsets for p in s.invalid]
    assert "llm:bad" in bad and "not-a-label" in bad
    shown = {
        p["model_version"] for t in fake_ls.tasks.values() for x in t for p in x["predictions"]
    }
    assert shown == {FAKE}


def test_forced_reveal_does_not_close(study: Path, fake_ls: FakeLabelStudio) -> None:
    with Store.open(study) as store:
        summary = reveal_study(store, fake_ls, force=True)
        assert CLOSED_AT not in store.meta() and REVEALED_AT in store.meta()
    assert summary.created > 0 and summary.forced


# ----------------------------------------------------------------------------- the app


@pytest.fixture
def client(study: Path) -> Any:
    return create_backend_app(study).test_client()


def test_health_and_setup_follow_the_study_state(study: Path, client: Any) -> None:
    health = client.get("/health")
    assert health.status_code == 200
    assert health.get_json()["status"] == "UP" and health.get_json()["predictions"] == "sealed"
    setup = client.post("/setup", json={"project": "1.1700000000", "schema": "<View/>"})
    assert setup.status_code == 200 and setup.get_json() == {"model_version": SEALED_MODEL_VERSION}
    close(study)
    assert client.get("/health").get_json()["predictions"] == "visible"
    assert client.post("/setup", json={"project": "1.1"}).get_json() == {"model_version": FAKE}


def test_predict_is_empty_while_open_and_answers_once_closed(study: Path, client: Any) -> None:
    for subset in (CLS, CLU, STS, RR):
        tasks = tasks_payload(study, subset)
        got = client.post("/predict", json={"tasks": tasks, "project": "1.1"})
        assert got.status_code == 200
        assert got.get_json() == {"results": [[] for _ in tasks]}
    close(study)
    with Store.open(study) as store:
        subs = {s.key: s for s in store.subsets()}
        refs = {i.hume_ref: i.hume_id for i in store.instances_by_ref().values()}
        stored = {p.hume_id: p for p in store.predictions(model_version=FAKE)}
    for subset in (CLS, CLU, STS, RR):
        tasks = tasks_payload(study, subset)
        results = client.post("/predict", json={"tasks": tasks}).get_json()["results"]
        assert len(results) == len(tasks)
        module = task_types.get(subs[subset].task_type).ls_module
        for task, preds in zip(tasks, results, strict=True):
            [pred] = preds
            assert pred["model_version"] == FAKE
            p = stored[refs[task["data"]["hume_ref"]]]
            if subset == CLS:
                assert (
                    module.result_to_answer(pred["result"], labels=subs[subset].config["label_set"])
                    == p.answer
                )
                assert "score" not in pred  # the vote share is not shown as a percentage
            if subset == STS:
                assert module.result_to_answer(pred["result"]) == sts_level(p.answer)


def test_predict_skips_what_the_task_has_and_unknown_tasks(study: Path, client: Any) -> None:
    close(study)
    tasks = tasks_payload(study, STS)[:3]
    tasks[0]["predictions"] = [{"model_version": FAKE, "result": []}]
    tasks[1] = {"id": 999999, "data": {"hume_ref": "no-such-ref"}}
    with Store.open(study) as store:
        inst = store.instances(STS)[2]
        slot = store.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:7001", 2).slot
        store.set_slot_tasks(STS, slot, {inst.hume_id: 4242})
    tasks[2] = {"id": 4242, "data": {"sentence1": "no hume_ref here"}}  # found by LS task id
    results = client.post("/predict", json={"tasks": tasks}).get_json()["results"]
    assert [len(r) for r in results] == [0, 0, 1]


def test_predict_reads_the_store_once_and_again_only_when_it_changes(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = StudySource(study)
    opened: list[int] = []
    real_open = source._open
    monkeypatch.setattr(source, "_open", lambda: opened.append(1) or real_open())
    tasks = tasks_payload(study, STS)
    for task in tasks:  # sealed: nothing, and one read of the store for all calls
        assert source.predict([task], "1.1") == [[]]
    assert source.model_version("1.1") == SEALED_MODEL_VERSION
    assert (len(opened), source.builds) == (1, 1)
    close(study)  # another connection commits: the next request sees it
    assert [len(r) for r in source.predict(tasks, "1.1")] == [1] * len(tasks)
    for subset in (CLS, CLU, STS, RR):
        for task in tasks_payload(study, subset):
            assert len(source.predict([task], "1.1")[0]) == 1
        assert source.model_version("1.1") == FAKE
    assert (len(opened), source.builds) == (2, 2)  # per request: no store read at all
    with Store.open(study) as store:  # a new task id on a server: seen by the next request
        inst = store.instances(STS)[0]
        slot = store.add_annotator("n@x.org", ["eng"], "http://127.0.0.1:7009", 2).slot
        store.set_slot_tasks(STS, slot, {inst.hume_id: 777})
    assert len(source.predict([{"id": 777, "data": {}}], None)[0]) == 1
    assert source.builds == 3


def test_predict_gives_what_each_stored_prediction_makes(study: Path) -> None:
    """Direct computation: every stored answer through ``ls_prediction_of``, in store order."""
    from hume_sync.workflow.reveal import ls_prediction_of
    from ml_backend.reveal import DEFAULT_RERANK_RULE

    close(study)
    source = StudySource(study)
    with Store.open(study) as store:
        for sub in store.subsets():
            preds = store.predictions(sub.key)
            tasks = tasks_payload(study, sub.key)
            got = source.predict(tasks, None)
            for task, answer in zip(tasks, got, strict=True):
                inst = store.instances_by_ref()[task["data"]["hume_ref"]]
                expected = [
                    ls_prediction_of(sub, inst, p.model_version, p.answer, p.score,
                                     DEFAULT_RERANK_RULE)
                    for p in preds
                    if p.hume_id == inst.hume_id and p.answer is not None
                ]  # fmt: skip
                assert answer == expected and expected


def test_a_replaced_store_file_is_read_again(study: Path) -> None:
    import shutil

    store_path = study / "study.sqlite"
    sealed = study / "sealed-copy.sqlite"
    shutil.copy(store_path, sealed)
    source = StudySource(study)
    close(study)
    assert source.describe()["predictions"] == "visible"
    os.replace(sealed, store_path)  # e.g. restored from a backup: a new file
    assert source.describe()["predictions"] == "sealed"
    assert source.predict(tasks_payload(study, CLS)[:2], None) == [[], []]


def test_webhook_records_events(study: Path, client: Any) -> None:
    event = {"action": "ANNOTATION_CREATED", "annotation": {"id": 7, "result": []}, "task": {}}
    got = client.post("/webhook", json=event)
    assert got.status_code == 201 and got.get_json() == {"status": "ok"}
    [recorded] = read_events(study)
    assert recorded["action"] == "ANNOTATION_CREATED" and recorded["annotation"]["id"] == 7
    assert recorded["received_at"]
    bad = client.post("/webhook", json={"annotation": {}})
    assert bad.status_code == 400 and "action" in bad.get_json()["error"]
    assert len(read_events(study)) == 1


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/predict", b"{not json", "not valid JSON"),
        ("/predict", b"", "empty"),
        ("/predict", b"[1, 2]", "JSON object"),
        ("/predict", b'{"tasks": {"a": 1}}', "'tasks' must be a list"),
        ("/predict", b'{"tasks": [1]}', "task 0 is not an object"),
        ("/predict", b'{"tasks": [{"data": "x"}]}', "'data' is not an object"),
        ("/setup", b'{"project": [1]}', "'project'"),
        ("/webhook", b"\xff\xfe", "not valid JSON"),
    ],
)
def test_malformed_requests_get_400_json(client: Any, path: str, body: bytes, message: str) -> None:
    got = client.post(path, data=body, content_type="application/json")
    assert got.status_code == 400
    assert got.is_json and message in got.get_json()["error"]
    assert "Traceback" not in got.get_data(as_text=True)


def test_unknown_routes_methods_and_failures_are_json(study: Path) -> None:
    class Exploding(StudySource):
        def predict(self, tasks: Any, project: Any) -> Any:
            raise KeyError("secret internals")

    client = create_app(Exploding(study), auth_from_env=False).test_client()
    assert client.get("/nope").status_code == 404 and client.get("/nope").is_json
    assert client.get("/predict").status_code == 405 and client.get("/predict").is_json
    got = client.post("/predict", json={"tasks": []})
    assert got.status_code == 500 and got.is_json
    text = got.get_data(as_text=True)
    assert "Traceback" not in text and "secret internals" not in text


def test_basic_auth(study: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = create_backend_app(study, basic_auth=("ls", "s3cret")).test_client()
    missing = client.get("/health")
    assert missing.status_code == 401 and missing.is_json
    assert missing.headers["WWW-Authenticate"].startswith("Basic")
    assert client.get("/health", headers=basic("ls", "wrong")).status_code == 401
    assert client.get("/health", headers=basic("ls", "s3cret")).status_code == 200
    ok = client.post("/predict", json={"tasks": []}, headers=basic("ls", "s3cret"))
    assert ok.status_code == 200

    monkeypatch.setenv("ML_BACKEND_USER", "env-user")
    monkeypatch.setenv("ML_BACKEND_PASSWORD", "env-pass")
    env_client = create_backend_app(study).test_client()
    assert env_client.get("/health").status_code == 401
    assert env_client.get("/health", headers=basic("env-user", "env-pass")).status_code == 200
    monkeypatch.delenv("ML_BACKEND_PASSWORD")
    with pytest.raises(ValueError, match="ML_BACKEND_PASSWORD"):
        create_backend_app(study)


def test_app_needs_a_study(tmp_path: Path, study: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HUME_STUDY_DIR", raising=False)
    with pytest.raises(RevealError, match="HUME_STUDY_DIR"):
        create_backend_app()
    with pytest.raises(RevealError, match="not a study"):
        create_backend_app(tmp_path / "empty")
    assert not (tmp_path / "empty" / "study.sqlite").exists()  # nothing created by a lookup
    monkeypatch.setenv("HUME_STUDY_DIR", str(study))
    assert create_backend_app().test_client().get("/health").status_code == 200


# ----------------------------------------------------------------------------- gunicorn


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_bad_study_is_one_line(tmp_path: Path, capsys: Any) -> None:
    from hume_sync.cli import backend_main

    assert backend_main(["--study-dir", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a study" in err[0]


#: ``hume-ml-backend`` as a subprocess of this interpreter (the console script's own code).
BACKEND_MAIN = (
    "import sys; from hume_sync.cli import backend_main; sys.exit(backend_main(sys.argv[1:]))"
)


def test_gunicorn_serves_the_protocol(study: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ML_BACKEND_USER", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            BACKEND_MAIN,
            "--study-dir",
            str(study),
            "--bind",
            f"127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{url}/health", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.3)
        assert health.status_code == 200 and health.json()["status"] == "UP"
        tasks = tasks_payload(study, STS)
        got = httpx.post(f"{url}/predict", json={"tasks": tasks}, timeout=10)
        assert got.json() == {"results": [[] for _ in tasks]}
        assert httpx.post(f"{url}/predict", content=b"{", timeout=10).status_code == 400
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
