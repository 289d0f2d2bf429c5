"""`hume-sync demo`: the whole product on the project's own demo study, in one command.

Starts the embedded Label Studio (or uses LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY), creates the
demo study (``hume_sync/demo_data``: a few instances of each task type in English and Danish,
written for hume), sets up the projects, precomputes the packaged all-MiniLM-L6-v2's answers,
replays the recorded answers of two *example* annotators through the Label Studio API, pulls,
exports the report, and prints where it is and how to log in to annotate more.
Running it again reuses everything that exists: no duplicate projects, tasks or annotations.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import label_studio_configs
from hume_sync import server
from hume_sync.ls_client import LabelStudioClient
from hume_sync.model_view import shown_ids_from_source
from hume_sync.projects import setup_study
from hume_sync.pull import pull_study
from hume_sync.spec import load_spec
from hume_sync.store import Store, init_from_spec

EXAMPLE_DOMAIN = "example.hume.local"
USERS_FILE = ".example-annotators.json"


@dataclass
class DemoResult:
    study_dir: Path
    report_dir: Path
    url: str
    username: str | None
    credentials_file: Path | None
    replayed: int
    predicted_models: list[str]


def demo_data_dir() -> Path:
    return Path(str(resources.files("hume_sync") / "demo_data"))


def _load_answers() -> list[dict[str, Any]]:
    path = demo_data_dir() / "example_answers.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _example_users(
    client: LabelStudioClient, study_dir: Path, names: list[str]
) -> dict[str, tuple[int, str]]:
    """The example annotators' accounts: signed up once, tokens kept (0600) in the study."""
    path = study_dir / USERS_FILE
    known: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    per_server = known.setdefault(client.url, {})
    for name in names:
        if name not in per_server:
            email = f"{name}@{EXAMPLE_DOMAIN}"
            user_id, token = client.sign_up_user(email, secrets.token_urlsafe(16))
            per_server[name] = {"id": user_id, "email": email, "token": token}
            server.write_private_json(path, known)
    return {n: (int(per_server[n]["id"]), per_server[n]["token"]) for n in names}


def replay_example_answers(client: LabelStudioClient, store: Store, study_dir: Path) -> int:
    """Create the recorded example annotations that are not in Label Studio yet."""
    answers = _load_answers()
    users = _example_users(client, study_dir, sorted({a["annotator"] for a in answers}))
    subsets = {s.key: s for s in store.subsets()}
    instances = {i.hume_id: (s, i) for s in subsets.values() for i in store.instances(s.key)}
    done: set[tuple[int, int]] = set()
    for s in subsets.values():
        if s.ls_project_id is None:
            continue
        for task in client.list_tasks(s.ls_project_id):
            for ann in task.get("annotations") or []:
                who = ann.get("completed_by")
                who = who.get("id") if isinstance(who, dict) else who
                done.add((int(task["id"]), int(who)))
    clients = {name: LabelStudioClient(client.url, tok) for name, (_, tok) in users.items()}
    created = 0
    for rec in answers:
        subset, inst = instances[rec["hume_id"]]
        user_id, _ = users[rec["annotator"]]
        if inst.ls_task_id is None or (inst.ls_task_id, user_id) in done:
            continue
        module = label_studio_configs.get(subset.task_type)
        # the recordings name the demo files' own item ids; annotators see opaque ones
        answer = shown_ids_from_source(store, subset.key, inst.hume_id, rec["answer"])
        result = module.answer_to_result(
            answer,
            **label_studio_configs.translation_kwargs(
                subset.task_type, subset.config, inst.content
            ),
        )
        clients[rec["annotator"]].create_annotation(
            inst.ls_task_id, result, lead_time=rec.get("lead_time")
        )
        done.add((inst.ls_task_id, user_id))
        created += 1
    return created


def run_demo(
    study_dir: str | Path,
    *,
    data_dir: Path | None = None,
    port: int = 8080,
    say: Callable[[str], None] = print,
) -> DemoResult:
    """Run every step; each one is idempotent, so a rerun only does what is missing."""
    from hume_sync.export import export_study
    from hume_sync.predict_cmd import DEFAULT_MODELS, predict_study

    study = Path(study_dir)
    username = credentials = None
    if os.environ.get("LABEL_STUDIO_URL"):
        client = LabelStudioClient.from_env_or_embedded()
        say(f"[1/7] using Label Studio at {client.url} (LABEL_STUDIO_URL)")
    else:
        info = server.start(data_dir, port=port)
        client = LabelStudioClient(info.url, info.token)
        username, credentials = info.username, info.data_dir / "credentials.json"
        state = "already running" if info.already_running else "started"
        say(f"[1/7] embedded Label Studio {state} at {info.url}")
    study.mkdir(parents=True, exist_ok=True)
    summary = init_from_spec(study, load_spec(demo_data_dir() / "study.yaml"))
    say(f"[2/7] demo study in {study}: {summary.written} row(s) written")
    with Store.open(study) as store:
        setup = setup_study(client, store)
        say(f"[3/7] {setup.created} project(s) created, {setup.imported} task(s) imported")
        predicted = predict_study(study, store, DEFAULT_MODELS, progress=False)
        say(
            f"[4/7] sealed predictions of {', '.join(DEFAULT_MODELS)} stored "
            f"({getattr(predicted, 'predictions_added', 0)} new)"
        )
        replayed = replay_example_answers(client, store, study)
        say(f"[5/7] {replayed} recorded answer(s) of the two example annotators replayed")
        pulled = pull_study(client, store)
        say(f"[6/7] pulled: {pulled.total('added')} new annotation(s)")
    report_dir = study / "report"
    export_study(study, report_dir)
    say(f"[7/7] report written to {report_dir}")
    return DemoResult(
        study, report_dir, client.url, username, credentials, replayed, list(DEFAULT_MODELS)
    )
