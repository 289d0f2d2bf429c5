"""Twenty annotators at once on Label Studio with PostgreSQL, while `pull` runs again and again
(issue 14): afterwards the store equals Label Studio's own export, 0 lost, 0 duplicated.

Set-up, as realistic as two cores allow: the two annotator servers of ``annotator_servers_pg``
(Label Studio as docker-compose.yml runs it, each on its own database of one private PostgreSQL
cluster) carry 10 scripted annotators each, every one with an account and API token of their
own (signed up through the invite link) and a study slot of their own with its own project.
hume gives every annotator a server of their own (the store keeps one URL per slot); twenty
servers do not fit on a test machine, so each slot's URL here is an alias that the test's
``client_for`` sends to the server holding that slot's account. Everything below the URL is
hume's real path: per-slot projects, markers, task ids, authorship checks; server A is read
through its JSON export (as hume reads the servers it started), server B through the tasks API
(as hume reads servers elsewhere).

For RUN_S seconds (and at least until MIN_PULLS pulls have run beside them: on a loaded
machine a pull of twenty projects can take longer than the run) every annotator, in a thread
of its own and with its own token, creates, edits (PATCH), skips and deletes annotations on
random tasks of its project (0.3-1.2 s apart, still far faster than people), keeping a ledger
of what it believes is there, while the test pulls the study into its store again and again.
After the annotators stop and one last pull: the store's live annotations are exactly Label
Studio's export (ids, tasks, answers, update times), every one of them once, and the export is
exactly what the annotators' ledgers say. The accounts and projects are removed afterwards, so
the servers are as the other PostgreSQL tests expect them.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync import task_types
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import Store
from hume_sync.workflow.changes import author_id
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.pull import pull_study
from hume_sync.workflow.setup import setup_study
from tests._paths import REPO_ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.labelstudio]

PER_SERVER = 10
RUN_S = 25.0
MIN_PULLS = 2
# Seconds an annotator waits between two actions (people take far longer; without a pause
# twenty threads saturate two servers on two cores, and a pull waits behind them).
THINK_S = (0.3, 1.2)
TIMEOUT_S = 180.0  # no write may time out: an unanswered write would make the ledger unsure
DEMO = REPO_ROOT / "hume_sync" / "demo_data"
LABELS = ("positive", "negative", "neutral")


@dataclass
class Annotator:
    slot: int
    email: str
    user_id: int
    token: str = field(repr=False)
    url: str  # the real server
    alias: str  # the slot's URL in the store
    project: int = 0
    tasks: list[int] = field(default_factory=list)
    #: annotation id → (task id, label or None for a skip): what the annotator believes is there
    ledger: dict[int, tuple[int, str | None]] = field(default_factory=dict)
    actions: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


@pytest.fixture
def crowd(annotator_servers_pg) -> Any:
    """Ten more accounts on each PostgreSQL-backed annotator server; removed afterwards with
    every project they worked in."""
    servers = [a.server for a in annotator_servers_pg]
    admins = [s.client(timeout=TIMEOUT_S) for s in servers]
    before = [sorted(c.user_emails().items()) for c in admins]
    stamp = f"{int(time.time())}"

    def sign_up(k: int) -> list[Annotator]:
        out = []
        for n in range(PER_SERVER):
            slot = k * PER_SERVER + n + 1
            email = f"crowd-{stamp}-{slot}@hume.test"
            user = servers[k].make_user(email)
            out.append(
                Annotator(
                    slot, email, user.id, user.token, servers[k].url, f"http://slot-{slot}.test"
                )
            )
        return out

    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        people = [a for group in pool.map(sign_up, range(len(servers))) for a in group]
    try:
        yield servers, people
    finally:
        for admin, server in zip(admins, servers, strict=True):
            for a in people:
                if a.url == server.url and a.project:
                    admin.delete_project(a.project)
            for a in people:
                if a.url == server.url:
                    admin.sdk.users.delete(id=a.user_id)
        after = [sorted(c.user_emails().items()) for c in admins]
        assert after == before, "the crowd's accounts were not all removed"


def _result(label: str) -> list[dict[str, Any]]:
    return task_types.get("classification").ls_answer_to_result(label, labels=list(LABELS))


def _work(a: Annotator, stop: threading.Event, seed: int) -> None:
    """Create, edit, skip and delete annotations until ``stop`` is set; keep the ledger."""
    rng = random.Random(seed)
    me = LabelStudioClient(a.url, a.token, timeout=TIMEOUT_S, tries=1)
    mine: dict[int, list[int]] = {}  # task → my annotation ids there
    while not stop.wait(rng.uniform(*THINK_S)):
        task = rng.choice(a.tasks)
        there = mine.get(task) or []
        roll = rng.random()
        label = rng.choice(LABELS)
        try:
            if not there or roll < 0.15:
                skip = rng.random() < 0.1
                made = me.create_annotation(
                    task,
                    [] if skip else _result(label),
                    lead_time=round(rng.uniform(1, 30), 3),
                    **({"was_cancelled": True} if skip else {}),
                )
                mine.setdefault(task, []).append(int(made["id"]))
                a.ledger[int(made["id"])] = (task, None if skip else label)
                a.actions["skipped" if skip else "created"] += 1
            elif roll < 0.85:
                ann = rng.choice(there)
                me.sdk.annotations.update(
                    id=ann, result=_result(label), was_cancelled=False, lead_time=2.5
                )
                a.ledger[ann] = (task, label)
                a.actions["edited"] += 1
            else:
                ann = there.pop(rng.randrange(len(there)))
                me.sdk.annotations.delete(id=ann)
                del a.ledger[ann]
                a.actions["deleted"] += 1
        except Exception as exc:  # reported by the test, which then fails
            a.errors.append(f"{type(exc).__name__}: {exc}"[:300])
            return


def _export(admin: LabelStudioClient, project: int) -> list[dict[str, Any]]:
    """Label Studio's own JSON export of a project (the SDK, not hume's reader)."""
    raw = b"".join(
        admin.sdk.projects.exports.download_sync(
            id=project, export_type="JSON", download_all_tasks=False
        )
    )
    return json.loads(raw)


def test_twenty_annotators_while_pull_runs_lose_and_duplicate_nothing(crowd, tmp_path: Path):
    servers, people = crowd
    study = tmp_path / "study"
    study.mkdir()
    spec = {
        "name": "crowd",
        "annotators": len(people),
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
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study)
    # Server A read as hume reads a server it started (JSON export, its data folder known),
    # server B as a server elsewhere (tasks API).
    admins = {
        servers[0].url: servers[0].client(timeout=TIMEOUT_S, data_dir=servers[0].data_dir),
        servers[1].url: servers[1].client(timeout=TIMEOUT_S),
    }
    by_alias = {a.alias: admins[a.url] for a in people}

    def client_for(url: str) -> LabelStudioClient:
        return by_alias[url]

    with Store.open(study) as store:
        for a in people:
            assert store.add_annotator(a.email, ["eng"], a.alias, a.user_id).slot == a.slot
        done = setup_study(store, client_for)
        assert len(done.projects) == len(people) and not done.open_seats
        (subset,) = store.subsets()
        for p in store.slot_projects(subset.key):
            a = people[p.slot - 1]
            a.project = p.ls_project_id
            a.tasks = sorted(store.slot_tasks(subset.key, p.slot).values())
        assert all(len(a.tasks) == 9 for a in people)

        stop = threading.Event()
        threads = [
            threading.Thread(target=_work, args=(a, stop, a.slot), daemon=True) for a in people
        ]
        for t in threads:
            t.start()
        pulls: list[float] = []
        started = time.monotonic()
        try:
            while time.monotonic() < started + RUN_S or len(pulls) < MIN_PULLS:
                t0 = time.perf_counter()
                summary = pull_study(store, client_for)
                pulls.append(time.perf_counter() - t0)
                assert not summary.invalid and not summary.foreign and not summary.unknown_tasks
                assert not summary.missing_projects
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=TIMEOUT_S + 30)
        ran = time.monotonic() - started
        assert not any(t.is_alive() for t in threads)
        errors = [f"slot {a.slot}: {e}" for a in people for e in a.errors]
        assert not errors, errors
        t0 = time.perf_counter()
        pull_study(store, client_for)
        last = time.perf_counter() - t0
        live = store.annotations()
        # nothing moves any more, and the pulls above read only what changed (after the first):
        # a whole read finds nothing they missed
        again = pull_study(store, client_for, full=True)
        assert (again.total("added"), again.total("updated"), again.total("deleted")) == (0, 0, 0)
        assert again.total("unchanged") == len(live)

    actions = sum((a.actions for a in people), Counter())
    print(
        f"\n{len(people)} annotators, {ran:.0f} s: {dict(actions)}; {len(pulls)} pulls "
        f"during the run (median {sorted(pulls)[len(pulls) // 2]:.2f} s), the last one "
        f"{last:.2f} s; "
        f"{len(live)} annotations in the end"
    )
    # The run did what it says: every kind of action, by everyone, with pulls in between.
    assert all(actions[k] > 0 for k in ("created", "edited", "skipped", "deleted")), actions
    assert all(a.actions["created"] > 0 for a in people)
    assert len(pulls) >= MIN_PULLS, pulls

    task_type = task_types.get("classification")
    exported: dict[tuple[int, int], tuple[int, Any, str]] = {}
    ids_seen: Counter[tuple[int, int]] = Counter()
    for a in people:
        ledger_seen: dict[int, tuple[int, str | None]] = {}
        for task in _export(admins[a.url], a.project):
            for ann in task.get("annotations") or []:
                assert author_id(ann) == a.user_id  # nobody else worked in a's project
                key = (a.slot, int(ann["id"]))
                ids_seen[key] += 1
                skipped = bool(ann.get("was_cancelled"))
                answer = (
                    None
                    if skipped
                    else task_type.ls_result_to_answer(ann.get("result") or [], labels=list(LABELS))
                )
                exported[key] = (int(task["id"]), answer, ann.get("updated_at"))
                ledger_seen[int(ann["id"])] = (int(task["id"]), answer)
        # 0 lost on Label Studio's side: it holds exactly what the annotator did.
        assert ledger_seen == a.ledger, f"slot {a.slot}"
    assert all(n == 1 for n in ids_seen.values())  # no annotation twice in the export
    stored = {(r.slot, r.ls_annotation_id): (r.ls_task_id, r.answer, r.updated_at) for r in live}
    # 0 duplicated in the store (its key is (slot, annotation id)): one row per annotation.
    assert len(stored) == len(live)
    # 0 lost, 0 extra: the store is Label Studio's export.
    assert set(stored) == set(exported), (
        f"missing from the store: {sorted(set(exported) - set(stored))[:5]}, "
        f"not in Label Studio: {sorted(set(stored) - set(exported))[:5]}"
    )
    assert stored == exported
    statuses = Counter(r.status for r in live)
    assert statuses["cancelled"] == sum(v[1] is None for v in exported.values())
    assert set(statuses) <= {"valid", "cancelled"}
