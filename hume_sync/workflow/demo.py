"""`hume-sync demo`: the whole product on the project's own demo study, in one command.

Creates the demo study (``hume_sync/demo_data``: a few instances of each task type in English and
Danish, written for hume; a small retrieval subset pooled at ``init`` with the packaged MiniLM
and BM25), registers two *example* annotators, each with an embedded Label
Studio of their own (as every annotator has: README "Blind annotation"), sets up their
projects, precomputes the packaged all-MiniLM-L6-v2's answers, replays the recorded answers of
the two example annotators through the Label Studio API with their own tokens, pulls, mirrors
the study into the manager's Label Studio, exports the report, and prints where it is and how
to log in. Running it again reuses everything that exists: no duplicate servers, accounts,
projects, tasks or annotations.

The manager's server is the one ``hume-sync manager up`` starts (``$HUME_HOME/manager``, on a
free port next to the annotators' when it is new), so that ``pull`` on the demo study keeps
mirroring into it afterwards; a team's server recorded with ``manager up --url`` is used as it
is rather than replaced. A project manager meets hume through the demo, so the demo opens on
what a manager follows a study in, not on the annotators' servers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from hume_sync import task_types
from hume_sync.labelstudio import manager, server
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import Store
from hume_sync.study.model_view import shown_ids_from_source
from hume_sync.study.spec import load_spec
from hume_sync.workflow.annotators import add_annotator
from hume_sync.workflow.changes import author_id
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.mirror import MirrorSummary, mirror_study
from hume_sync.workflow.pull import pull_study
from hume_sync.workflow.setup import setup_study

EXAMPLE_DOMAIN = "example.hume.local"
USERS_FILE = ".example-annotators.json"
#: The two example annotators and the languages they annotate (as in HUME: two on English).
EXAMPLE_ANNOTATORS: dict[str, tuple[str, ...]] = {
    "example-annotator-1": ("eng", "dan"),
    "example-annotator-2": ("eng",),
}


@dataclass
class DemoServer:
    annotator: str
    url: str
    credentials_file: Path  # the manager's login to this server (0600)


@dataclass
class ManagerServer:
    """Where the manager follows the demo study (the mirror of every subset)."""

    url: str
    #: the admin login's file of the embedded server (0600); None for a team's server
    credentials_file: Path | None
    mirrored: MirrorSummary
    projects: int  # mirror projects on it for this study, one per subset


@dataclass
class DemoResult:
    study_dir: Path
    report_dir: Path
    servers: list[DemoServer]
    replayed: int
    predicted_models: list[str]
    manager_server: ManagerServer
    manager: str = server.DEFAULT_USERNAME


def demo_data_dir() -> Path:
    return Path(str(resources.files("hume_sync") / "demo_data"))


def _load_answers() -> list[dict[str, Any]]:
    path = demo_data_dir() / "example_answers.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def email_of(name: str) -> str:
    return f"{name}@{EXAMPLE_DOMAIN}"


def _wanted_port(data_dir: Path, port: int) -> int | None:
    """``port`` for a server started for the first time (if free); else keep its own port."""
    if data_dir.is_dir() and server.read_credentials(data_dir) is not None:
        return None
    return port if server.port_is_free(port) else None


def _tokens(study_dir: Path) -> dict[str, dict[str, Any]]:
    path = study_dir / USERS_FILE
    return json.loads(path.read_text()) if path.exists() else {}


def _homes(base: Path | None) -> list[Path]:
    """The example annotators' server data folders, in ``EXAMPLE_ANNOTATORS``' order."""
    return [
        ls_servers.annotator_home(email_of(n), base) / "label-studio" for n in EXAMPLE_ANNOTATORS
    ]


def start_servers(base: Path | None, port: int) -> str:
    """Start the example annotators' servers (``port``, the next) and the manager's embedded
    one (the port after them) all at once, a cold start being mostly waiting on migrations;
    the manager's server URL (a team's recorded one is not replaced: see the module doc)."""
    starts = [(home, _wanted_port(home, port + i)) for i, home in enumerate(_homes(base))]
    team = manager.team_server_url()
    if team is None:
        home = manager.manager_data_dir()
        starts.append((home, _wanted_port(home, port + len(starts))))
    ls_servers.start_many(starts)
    # recorded as `manager up` records it (the server now runs), so that pull and setup mirror
    # here from now on
    return team or manager.up()


def register_examples(
    store: Store, study_dir: Path, base: Path | None
) -> dict[str, tuple[int, str, str]]:
    """The example annotators, each on an embedded server of their own (started by
    :func:`start_servers`): name → (slot, url, that annotator's own API token, kept 0600 in the
    study folder for the replay)."""
    homes = _homes(base)
    known = _tokens(study_dir)
    out: dict[str, tuple[int, str, str]] = {}
    for (name, langs), home in zip(EXAMPLE_ANNOTATORS.items(), homes, strict=True):
        result = add_annotator(store, email_of(name), langs, base=base, port=None)
        url = result.annotator.ls_url
        if result.token is not None:
            known.setdefault(url, {})[name] = {"email": email_of(name), "token": result.token}
            server.write_private_json(study_dir / USERS_FILE, known)
        entry = known.get(url, {}).get(name)
        if entry is None:
            raise server.ServerError(
                f"the API token of {email_of(name)} on {url} is not in {study_dir / USERS_FILE}; "
                f"run the demo in a new folder, or delete {home.parent}"
            )
        out[name] = (result.annotator.slot, url, entry["token"])
    return out


def graded_pool(
    store: Store, subset: str, hume_id: str, listed: dict[str, int], unlisted: int
) -> dict:
    """A recording that lists only some items, completed over the items the task shows.

    The retrieval recordings list, per query, the documents of the whole demo corpus their
    annotator judged relevant (source ids); the pool is built at ``init`` by the models, so the
    recording cannot name it. A record with ``unlisted`` gives that grade to every shown item it
    does not list (0: not relevant), and listed items the task does not show are dropped.
    """
    shown = [r.source_id for r in store.item_refs(subset).get(hume_id, ())]
    return {d: int(listed.get(d, unlisted)) for d in shown}


def replay_example_answers(
    store: Store, users: dict[str, tuple[int, str, str]], client_for: ls_servers.Clients
) -> int:
    """Create the recorded example annotations that are not in Label Studio yet, each with the
    annotator's own token in their own project."""
    subsets = {s.key: s for s in store.subsets()}
    instances = {i.hume_id: (s, i) for s in subsets.values() for i in store.instances(s.key)}
    by_slot = {a.slot: a for a in store.annotators()}
    done: set[tuple[int, int]] = set()  # (slot, task id) already answered by the annotator
    for p in store.slot_projects():
        a = by_slot[p.slot]
        for task in client_for(a.ls_url).list_tasks(p.ls_project_id):
            if any(author_id(ann) == a.ls_user_id for ann in task.get("annotations") or []):
                done.add((p.slot, int(task["id"])))
    clients = {name: LabelStudioClient(url, token) for name, (_, url, token) in users.items()}
    created = 0
    for rec in _load_answers():
        slot = users[rec["annotator"]][0]
        subset, inst = instances[rec["hume_id"]]
        task_id = store.slot_tasks(subset.key, slot).get(inst.hume_id)
        if task_id is None or (slot, task_id) in done:
            continue
        task_type = task_types.get(subset.task_type)
        recorded = rec["answer"]
        if "unlisted" in rec:  # a recording of some items only (retrieval: the relevant ones)
            recorded = graded_pool(store, subset.key, inst.hume_id, recorded, rec["unlisted"])
        # the recordings name the demo files' own item ids; annotators see opaque ones
        answer = shown_ids_from_source(store, subset.key, inst.hume_id, recorded)
        result = task_type.ls_answer_to_result(
            answer, **task_type.ls_translation_kwargs(subset.config, inst.content)
        )
        clients[rec["annotator"]].create_annotation(task_id, result, lead_time=rec.get("lead_time"))
        done.add((slot, task_id))
        created += 1
    return created


def run_demo(
    study_dir: str | Path,
    *,
    data_dir: Path | None = None,
    port: int = 8080,
    say: Callable[[str], None] = print,
) -> DemoResult:
    """Run every step; each one is idempotent, so a rerun only does what is missing.

    ``data_dir``: where the example annotators' servers live (default
    ``$HUME_HOME/annotators``; the manager's stays in ``$HUME_HOME/manager``, where ``pull``
    finds it); ``port``: the first one's port (the second takes the next, the manager's the
    one after, each when new and free).
    """
    from hume_sync.workflow.export import export_study
    from hume_sync.workflow.predict import DEFAULT_MODELS, predict_study

    study = Path(study_dir)
    study.mkdir(parents=True, exist_ok=True)
    summary = init_from_spec(study, load_spec(demo_data_dir() / "study.yaml"))
    say(f"[1/8] demo study in {study}: {summary.written} row(s) written")
    clients = ls_servers.Clients()
    with Store.open(study) as store:
        manager_url = start_servers(data_dir, port)
        users = register_examples(store, study, data_dir)
        say(
            "[2/8] two example annotators, each with a Label Studio of their own: "
            + ", ".join(f"{n} at {url}" for n, (_, url, _) in users.items())
            + f"; the manager's at {manager_url}"
        )
        setup = setup_study(store, clients, study_dir=str(study))
        say(f"[3/8] {setup.created} project(s) created, {setup.imported} task(s) imported")
        predicted = predict_study(study, store, DEFAULT_MODELS, progress=False)
        say(
            f"[4/8] sealed predictions of {', '.join(DEFAULT_MODELS)} stored "
            f"({getattr(predicted, 'predictions_added', 0)} new)"
        )
        for commitment in predicted.commitments:  # what a manager publishes before annotation
            say(f"      {commitment.line()}")
        replayed = replay_example_answers(store, users, clients)
        say(f"[5/8] {replayed} recorded answer(s) of the two example annotators replayed")
        pulled = pull_study(store, clients)
        say(f"[6/8] pulled: {pulled.total('added')} new annotation(s)")
        followed = mirror_to_manager(store, manager_url)
        say(
            f"[7/8] mirrored: {followed.mirrored.projects_created} project(s) created "
            f"({followed.projects} in all, one per subset); {followed.mirrored}"
        )
        servers = []
        for a in store.annotators():
            home = ls_servers.annotator_home(a.email, data_dir)
            servers.append(
                DemoServer(a.email, a.ls_url, home / "label-studio" / server.CREDENTIALS_FILE)
            )
    report_dir = study / "report"
    export_study(study, report_dir)
    say(f"[8/8] report written to {report_dir}")
    return DemoResult(study, report_dir, servers, replayed, list(DEFAULT_MODELS), followed)


def mirror_to_manager(store: Store, url: str) -> ManagerServer:
    """The manager's mirror of the study (the one ``pull`` and ``setup`` make), and where to log
    in to see it."""
    ls = ls_servers.client_for(url)
    mirrored = mirror_study(store, ls)
    projects = manager.mirror_projects(ls, store.study_uid(), [s.key for s in store.subsets()])
    creds = None if manager.team_server_url() else manager.manager_data_dir()
    return ManagerServer(url, creds and creds / server.CREDENTIALS_FILE, mirrored, len(projects))
