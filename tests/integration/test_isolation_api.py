"""Annotator B cannot reach annotator A's answers or A's projects over any Label Studio route.

A and B each work in a Label Studio of their own (``annotator_servers``, set up through
``hume-sync annotators add`` and ``setup``). A answers her tasks with results that carry a marker
(``A-ONLY-…``, kept by Label Studio in every copy of the result), and saves a draft. Then B's
credentials (her API token, her browser session cookie, and a JWT access token from her own
server) go over every route of Label Studio 1.23.2 (``ROUTES``, read from its URL
configuration) on A's server, and B's token over every route of her own server. Nothing may
carry A's marker, A's email or A's user record; B may not change or delete A's project, add an
annotation there, or sign up on A's server. The same routes with A's token on A's server do show
the marker: the check can see what it looks for.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx
import pytest

from hume_sync.cli import main
from hume_sync.store import Store, gold
from tests._annotate import gold_result, hume_env, set_up_study
from tests._studies import real_data_spec

pytestmark = pytest.mark.labelstudio

A_MARK = "A-ONLY-" + secrets.token_hex(6)
B_MARK = "B-ONLY-" + secrets.token_hex(6)

# (method, path) of every route an annotator's browser or token can call, from Label Studio
# 1.23.2's URL configuration (label_studio/*/urls.py, Data Manager API included). {pid}, {tid},
# {aid}, {did}, {uid}, {vid}, {eid} are A's project, task, annotation, draft, user, Data Manager
# view and export snapshot; 1 stands for objects A's server does not have (storages, ML
# backends, webhooks, imports, labels).
ROUTES: list[tuple[str, str]] = [
    # pages
    ("GET", "/"),
    ("GET", "/projects/"),
    ("GET", "/projects/{pid}/"),
    ("GET", "/projects/{pid}/data/"),
    ("GET", "/projects/{pid}/data/?task={tid}"),
    ("GET", "/projects/{pid}/data/?labeling=1"),
    ("GET", "/projects/{pid}/data/export"),
    ("GET", "/projects/{pid}/settings/"),
    ("GET", "/projects/{pid}/settings/labeling"),
    ("GET", "/organization/"),
    ("GET", "/people/"),
    ("GET", "/models/"),
    ("GET", "/user/account/"),
    # projects
    ("GET", "/api/projects/"),
    ("GET", "/api/projects/counts/"),
    ("GET", "/api/projects/{pid}/"),
    ("GET", "/api/projects/{pid}/next/"),
    ("GET", "/api/projects/{pid}/label-stream-history/"),
    ("GET", "/api/projects/{pid}/summary/"),
    ("GET", "/api/projects/{pid}/tasks/"),
    ("GET", "/api/projects/{pid}/annotators/"),
    ("GET", "/api/projects/{pid}/model-versions/"),
    ("POST", "/api/projects/{pid}/sample-task/"),
    ("GET", "/api/projects/{pid}/validate/"),
    ("GET", "/api/projects/{pid}/imports/1/"),
    ("GET", "/api/projects/{pid}/reimports/1/"),
    ("GET", "/api/projects/{pid}/file-uploads"),
    ("GET", "/api/templates/"),
    # tasks, annotations, drafts, predictions
    ("GET", "/api/tasks/?project={pid}"),
    ("GET", "/api/tasks/?project={pid}&fields=all"),
    ("GET", "/api/tasks/{tid}/"),
    ("GET", "/api/tasks/{tid}/annotations/"),
    ("GET", "/api/tasks/{tid}/drafts"),
    ("GET", "/api/tasks/{tid}/annotations/{aid}/drafts"),
    ("GET", "/api/tasks/{tid}/agreement/"),
    ("GET", "/api/annotations/{aid}/"),
    ("GET", "/api/drafts/{did}/"),
    ("GET", "/api/predictions/?task={tid}"),
    ("GET", "/api/predictions/?project={pid}"),
    # export
    ("GET", "/api/projects/{pid}/export?exportType=JSON"),
    ("GET", "/api/projects/{pid}/export?exportType=JSON&download_all_tasks=true"),
    ("GET", "/api/projects/{pid}/export/formats"),
    ("GET", "/api/projects/{pid}/export/files"),
    ("GET", "/api/projects/{pid}/exports/"),
    ("GET", "/api/projects/{pid}/exports/{eid}"),
    ("GET", "/api/projects/{pid}/exports/{eid}/download?exportType=JSON"),
    ("GET", "/api/auth/export/"),
    # Data Manager: views, columns, project state, actions
    ("GET", "/api/dm/views/?project={pid}"),
    ("GET", "/api/dm/views/{vid}/"),
    ("GET", "/api/dm/columns/?project={pid}"),
    ("GET", "/api/dm/project/?project={pid}"),
    ("GET", "/api/dm/actions/?project={pid}"),
    ("GET", "/api/dm/actions/delete_tasks/form/?project={pid}"),
    ("GET", "/api/tasks/?view={vid}&fields=all"),
    # users, organization, tokens
    ("GET", "/api/users/"),
    ("GET", "/api/users/{uid}/"),
    ("GET", "/api/current-user/whoami"),
    ("GET", "/api/current-user/token"),
    ("GET", "/api/current-user/hotkeys/"),
    ("GET", "/api/current-user/product-tour"),
    ("GET", "/api/organizations/"),
    ("GET", "/api/organizations/1"),
    ("GET", "/api/organizations/1/memberships"),
    ("GET", "/api/organizations/1/memberships/{uid}/"),
    ("GET", "/api/invite"),
    ("GET", "/api/jwt/settings"),
    ("GET", "/api/token/"),
    ("GET", "/api/session-policy/"),
    # ML backends, webhooks, storages, labels, import, FSM history
    ("GET", "/api/ml/?project={pid}"),
    ("GET", "/api/ml/1"),
    ("GET", "/api/webhooks/"),
    ("GET", "/api/webhooks/1/"),
    ("GET", "/api/webhooks/info/"),
    ("GET", "/api/storages/?project={pid}"),
    ("GET", "/api/storages/export?project={pid}"),
    ("GET", "/api/storages/localfiles/?project={pid}"),
    ("GET", "/api/storages/export/localfiles?project={pid}"),
    ("GET", "/api/labels/"),
    ("GET", "/api/label_links/"),
    ("GET", "/api/import/file-upload/1"),
    ("GET", "/api/fsm/entities/task/{tid}/history"),
    ("GET", "/api/fsm/entities/annotation/{aid}/history"),
    ("GET", "/api/fsm/entities/project/{pid}/history"),
    # files and the rest
    ("GET", "/tasks/{tid}/resolve/?fileuri=x"),
    ("GET", "/projects/{pid}/resolve/?fileuri=x"),
    ("GET", "/data/upload/1/x.json"),
    ("GET", "/storage-data/uploaded/?filepath=x"),
    ("GET", "/data/local-files/?d=x"),
    ("GET", "/feature-flags/"),
    ("GET", "/metrics/"),
    ("GET", "/django-rq/"),
    ("GET", "/admin/"),
    ("GET", "/api/version/"),
    ("GET", "/health/"),
]

# Routes Label Studio serves to anyone: the version, and the list of webhook event names.
OPEN = {"/api/version/", "/api/webhooks/info/"}

# What B tries to change in A's server; each must be refused and leave A's project as it was.
WRITES: list[tuple[str, str, Any]] = [
    (
        "PATCH",
        "/api/projects/{pid}/",
        {"label_config": "<View><Header value='B was here'/></View>"},
    ),
    ("PATCH", "/api/projects/{pid}/", {"title": "B was here"}),
    ("DELETE", "/api/projects/{pid}/", None),
    ("POST", "/api/tasks/{tid}/annotations/", {"result": []}),
    ("PATCH", "/api/annotations/{aid}/", {"result": []}),
    ("DELETE", "/api/annotations/{aid}/", None),
    ("POST", "/api/dm/actions/?id=delete_tasks&project={pid}", {"selectedItems": {"all": True}}),
    ("POST", "/api/projects/{pid}/import", [{"text": "B was here"}]),
    ("POST", "/api/projects/{pid}/exports/", {}),
    ("PATCH", "/api/users/{uid}/", {"first_name": "B was here"}),
]


def marked(result: list[dict[str, Any]], mark: str) -> list[dict[str, Any]]:
    """The same result with Label Studio region ids that carry ``mark``."""
    return [{**item, "id": f"{mark}-{n}"} for n, item in enumerate(result)]


def session(url: str, email: str, password: str) -> httpx.Client:
    """A browser-like session: logged in through Label Studio's own login form."""
    web = httpx.Client(base_url=url, timeout=60)
    web.get("/user/login/")
    resp = web.post(
        "/user/login/",
        data={
            "email": email,
            "password": password,
            "csrfmiddlewaretoken": web.cookies["csrftoken"],
        },
        headers={"Referer": f"{url}/user/login/"},
    )
    assert resp.status_code == 302 and "/user/login" not in resp.headers["location"]
    web.headers["X-CSRFToken"] = web.cookies["csrftoken"]
    return web


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory):
    root = tmp_path_factory.mktemp("isolation-api")
    mp = hume_env(root)
    spec = real_data_spec("routes", 5, cls_eng=3, cls_arb=2, sts=3, rerank=2)
    spec["tasks"] = [t for t in spec["tasks"] if t["type"] in ("classification", "sts")]
    a, b = annotator_servers
    study = set_up_study(root / "study", spec, [(a, "eng,ara"), (b, "eng")], mp)
    ids: dict[str, dict[str, int]] = {}
    with Store.open(study) as store:
        for srv, mark, slot in ((a, A_MARK, 1), (b, B_MARK, 2)):
            client = srv.server.client(srv.token)
            for sub in store.subsets():
                golds = gold(store, sub.key)
                tasks = store.slot_tasks(sub.key, slot)
                for inst in store.instances(sub.key):
                    if inst.hume_id in tasks:
                        result = marked(gold_result(sub, inst, golds[inst.hume_id]), mark)
                        ann = client.create_annotation(tasks[inst.hume_id], result, lead_time=9.0)
            sts = store.slot_projects("STSBenchmark/default")
            pid = next(p.ls_project_id for p in sts if p.slot == slot)
            tid = ann["task"]
            web = session(srv.url, srv.email, srv.password)
            draft = web.post(
                f"/api/tasks/{tid}/drafts", json={"result": ann["result"], "lead_time": 1}
            )
            assert draft.status_code == 201, draft.text
            view = web.post("/api/dm/views/", json={"project": pid, "data": {"title": "mine"}})
            assert view.status_code == 201, view.text
            export = web.post(f"/api/projects/{pid}/exports/", json={})
            assert export.status_code in (200, 201), export.text
            ids[srv.email] = {
                "pid": pid,
                "tid": tid,
                "aid": ann["id"],
                "did": draft.json()["id"],
                "uid": srv.user_id,
                "vid": view.json()["id"],
                "eid": export.json()["id"],
            }
            web.close()
    yield {"a": a, "b": b, "ids": ids, "study": study}
    mp.undo()


def leaks(text: str, a: Any) -> list[str]:
    """What in a response belongs to A: her answers' marker, her email, her user record."""
    found = [m for m in (A_MARK, a.email) if m in text]
    if re.search(rf'"email"\s*:\s*"{re.escape(a.email)}"', text):
        found.append("A's user record")
    return found


def call(web: httpx.Client, method: str, path: str, body: Any = None) -> httpx.Response:
    return web.request(method, path, json=body, follow_redirects=False)


def refused(resp: httpx.Response) -> bool:
    """401/403, or a redirect to the login page (Django pages)."""
    if resp.status_code in (401, 403):
        return True
    return resp.status_code == 302 and "/user/login" in resp.headers.get("location", "")


@pytest.fixture(scope="module")
def b_auth(world) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """B's token, B's session cookie (from B's server) and a JWT access token from B's server:
    (headers, cookies) of each, to be aimed at A's server."""
    b = world["b"]
    own = session(b.url, b.email, b.password)
    refresh = own.post("/api/token/")  # Label Studio allows one personal access token per user
    assert refresh.status_code == 201, refresh.text
    access = own.post("/api/token/refresh/", json={"refresh": refresh.json()["token"]})
    assert access.status_code == 200, access.text
    bearer = {"Authorization": f"Bearer {access.json()['access']}"}
    # B's JWT works on B's own server...
    assert own.get("/api/current-user/whoami", headers=bearer).json()["email"] == b.email
    cookies = dict(own.cookies)
    own.close()
    return {
        "token": ({"Authorization": f"Token {b.token}"}, {}),
        "session cookie": ({"X-CSRFToken": cookies["csrftoken"]}, cookies),
        "JWT": (bearer, {}),
    }


def at(url: str, auth: tuple[dict[str, str], dict[str, str]]) -> httpx.Client:
    headers, cookies = auth
    return httpx.Client(base_url=url, timeout=60, headers=headers, cookies=cookies)


def test_b_reaches_nothing_of_a_on_any_route(world, b_auth):
    a = world["a"]
    ids = world["ids"][a.email]
    problems = []
    for how, auth in b_auth.items():
        web = at(a.url, auth)
        for method, template in ROUTES:
            path = template.format(**ids)
            resp = call(web, method, path)
            found = leaks(resp.text, a)
            if found:
                problems.append(f"{how} {method} {path}: {resp.status_code} shows {found}")
            # every route that needs a login says no (open ones: health, version, static)
            needs_login = path.startswith(("/api/", "/projects", "/user/account"))
            if needs_login and template not in OPEN and not refused(resp):
                problems.append(f"{how} {method} {path}: {resp.status_code}, not refused")
        web.close()
    assert problems == []


def test_b_cannot_change_or_delete_as_project_nor_sign_up_there(world, b_auth):
    a = world["a"]
    ids = world["ids"][a.email]
    admin = a.server.client()
    before = admin.get_project(ids["pid"])
    for how, auth in b_auth.items():
        web = at(a.url, auth)
        for method, template, body in WRITES:
            resp = call(web, method, template.format(**ids), body)
            assert refused(resp), (how, method, template, resp.status_code, resp.text[:200])
        web.close()
    after = admin.get_project(ids["pid"])
    for key in ("title", "label_config", "task_number", "total_annotations_number"):
        assert after[key] == before[key], key
    assert admin.get_task(ids["tid"])["annotations"][0]["result"][0]["id"].startswith(A_MARK)
    # sign-up needs the invite link of A's server, which B never gets
    web = httpx.Client(base_url=a.url, timeout=60)
    web.get("/user/signup/")
    resp = web.post(
        "/user/signup/",
        data={"email": "b-again@hume.test", "password": "Pw-" + secrets.token_hex(8),
              "csrfmiddlewaretoken": web.cookies["csrftoken"]},
        headers={"Referer": f"{a.url}/user/signup/"},
    )  # fmt: skip
    assert resp.status_code == 403
    assert set(admin.user_emails().values()) == {a.server.info.username, a.email}


def test_b_on_her_own_server_sees_her_answers_only(world):
    """Every route on B's server with B's token: her own marker shows up (the check works),
    A's never does (A's answers never reach B's server)."""
    a, b = world["a"], world["b"]
    ids = world["ids"][b.email]
    web = httpx.Client(base_url=b.url, timeout=60, headers={"Authorization": f"Token {b.token}"})
    seen_own = []
    for method, template in ROUTES:
        resp = call(web, method, template.format(**ids))
        assert leaks(resp.text, a) == [], (method, template)
        if B_MARK in resp.text:
            seen_own.append(template)
    web.close()
    assert {"/api/tasks/{tid}/", "/api/annotations/{aid}/", "/api/drafts/{did}/"} <= set(seen_own)
    assert "/api/projects/{pid}/export?exportType=JSON" in seen_own


def test_the_marker_is_visible_to_a_herself(world):
    """Positive control: with A's own token on A's server the same routes show her marker."""
    a = world["a"]
    ids = world["ids"][a.email]
    web = httpx.Client(base_url=a.url, timeout=60, headers={"Authorization": f"Token {a.token}"})
    shown = [t for m, t in ROUTES if A_MARK in call(web, m, t.format(**ids)).text]
    web.close()
    assert {
        "/api/tasks/{tid}/",
        "/api/annotations/{aid}/",
        "/api/tasks/?project={pid}&fields=all",
    } <= set(shown)
    assert "/api/projects/{pid}/export?exportType=JSON" in shown


def test_the_study_keeps_only_the_slots_own_answers(world, capsys):
    """Pull counts only the slot's annotator: an answer the manager makes in B's project is
    reported and left out."""
    b, study = world["b"], world["study"]
    admin = b.server.client()
    with Store.open(study) as store:
        sub = store.subset("STSBenchmark/default")
        inst = store.instances(sub.key)[0]
        task = store.slot_tasks(sub.key, 2)[inst.hume_id]
        ann = admin.create_annotation(task, gold_result(sub, inst, 3.0))
    capsys.readouterr()
    assert main(["pull", str(study)]) == 0
    err = capsys.readouterr().err
    assert f"annotation {ann['id']} on task {task} in {b.email}'s project was made by" in err
    with Store.open(study) as store:
        assert not any(r.slot == 2 and r.ls_annotation_id == ann["id"] for r in store.annotations())
