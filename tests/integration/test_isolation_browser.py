"""In a real browser (headless Debian Chromium driven by Playwright), annotator B finds none of
annotator A's answers on any page she can reach.

A and B each work in a Label Studio of their own. A answers first, with results whose region
ids carry a marker. B then logs in through Label Studio's login form and visits every page her
account opens: the projects list, each project's Data Manager with every column switched on
(the "Annotation results" column included), each task, the labelling stream; then, in the same
browser (the session cookie travels to every port of the host), A's server: the projects list,
A's Data Manager, task, settings and API URLs. Neither the pages nor any response the browser
received may hold A's marker or A's email. As a control, A's own browser shows her marker.
Screenshots of every page are kept in ``test-artifacts/isolation-browser`` (or
``$HUME_TEST_ARTIFACTS``), printed at the end.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync.store import Store, gold
from tests._annotate import gold_result, hume_env, set_up_study
from tests._browser import CHROMIUM_FLAGS, chromium_path
from tests._browser import artifacts as browser_artifacts
from tests._studies import real_data_spec

pytestmark = pytest.mark.labelstudio

A_MARK = "A-ONLY-" + secrets.token_hex(6)
B_MARK = "B-ONLY-" + secrets.token_hex(6)


def artifacts() -> Path:
    return browser_artifacts("isolation-browser")


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_path()


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory):
    root = tmp_path_factory.mktemp("isolation-browser")
    mp = hume_env(root)
    spec = real_data_spec("browser", 9, cls_eng=3, cls_arb=2, sts=2, rerank=2)
    spec["tasks"] = [t for t in spec["tasks"] if t["type"] in ("classification", "clustering")]
    spec["tasks"][0]["subsets"] = spec["tasks"][0]["subsets"][:1]  # English only
    a, b = annotator_servers
    study = set_up_study(root / "study", spec, [(a, "eng"), (b, "eng")], mp)
    pages: dict[str, list[tuple[int, list[int]]]] = {}
    with Store.open(study) as store:
        for srv, mark, slot in ((a, A_MARK, 1), (b, B_MARK, 2)):
            client = srv.server.client(srv.token)
            pages[srv.email] = []
            for sub in store.subsets():
                golds = gold(store, sub.key)
                tasks = store.slot_tasks(sub.key, slot)
                for inst in store.instances(sub.key):
                    result = gold_result(sub, inst, golds[inst.hume_id])
                    result = [{**r, "id": f"{mark}-{n}"} for n, r in enumerate(result)]
                    client.create_annotation(tasks[inst.hume_id], result, lead_time=7.0)
                pid = next(p.ls_project_id for p in store.slot_projects(sub.key) if p.slot == slot)
                pages[srv.email].append((pid, sorted(tasks.values())))
    yield {"a": a, "b": b, "pages": pages}
    mp.undo()


class Browser:
    """One headless Chromium with a fresh profile; records every response body it receives."""

    def __init__(self, chromium: str, profile: Path, shots: Path, who: str) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.context = self._pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1600, "height": 1000},
        )
        self.page = self.context.new_page()
        self.bodies: list[tuple[str, str]] = []
        self.page.on("response", self._keep)
        self.shots, self.who, self.n = shots, who, 0

    def _keep(self, response: Any) -> None:
        with contextlib.suppress(Exception):  # redirects and binary bodies have no text
            self.bodies.append((response.url, response.text()))

    def go(self, url: str, name: str) -> str:
        self.page.goto(url)
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(500)
        return self.shot(name)

    def shot(self, name: str) -> str:
        self.n += 1
        self.page.screenshot(path=str(self.shots / f"{self.who}-{self.n:02d}-{name}.png"))
        return self.page.content()

    def login(self, url: str, email: str, password: str) -> None:
        self.go(f"{url}/user/login/", "login-form")
        self.page.fill("input[name=email]", email)
        self.page.fill("input[name=password]", password)
        self.page.click("button[type=submit], input[type=submit]")
        self.page.wait_for_load_state("networkidle")
        assert "/user/login" not in self.page.url, "the login form refused the account"

    def all_columns_on(self, name: str) -> str:
        """The Data Manager's Columns menu: switch on every column that is off."""
        self.page.get_by_role("button", name="Columns").click()
        self.page.wait_for_timeout(500)
        boxes = self.page.locator("input[type=checkbox]")
        for i in range(boxes.count()):
            box = boxes.nth(i)
            label = box.evaluate("e => (e.closest('label, li, div') || e).innerText || ''")
            if label.strip() and not box.is_checked():
                box.click()
                self.page.wait_for_timeout(200)
        self.page.keyboard.press("Escape")
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(800)
        return self.shot(name)

    def history(self, name: str) -> str:
        """The task view's History tab (the annotation's edit history)."""
        tab = self.page.get_by_text("History", exact=True)
        assert tab.count() > 0, "the task view has no History tab"
        tab.first.click()
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(500)
        return self.shot(name)

    def seen(self) -> str:
        return "\n".join(body for _, body in self.bodies)

    def close(self) -> None:
        self.context.close()
        self._pw.stop()


@pytest.fixture(scope="module")
def shots() -> Iterator[Path]:
    out = artifacts()
    yield out
    print(f"\nscreenshots of the browser test: {out}")


def test_b_sees_none_of_as_answers_in_a_real_browser(world, chromium, shots, tmp_path):
    a, b = world["a"], world["b"]
    browser = Browser(chromium, tmp_path / "profile-b", shots, "b")
    try:
        browser.login(b.url, b.email, b.password)
        pages = [browser.go(f"{b.url}/projects/", "own-projects")]
        for pid, tasks in world["pages"][b.email]:
            browser.go(f"{b.url}/projects/{pid}/data", f"own-project-{pid}-data-manager")
            pages.append(browser.all_columns_on(f"own-project-{pid}-all-columns"))
            for tid in tasks:
                pages.append(
                    browser.go(f"{b.url}/projects/{pid}/data?task={tid}", f"own-task-{tid}")
                )
            pages.append(browser.history(f"own-task-{tasks[-1]}-history"))
            pages.append(browser.go(f"{b.url}/projects/{pid}/data?labeling=1", f"own-stream-{pid}"))
            pages.append(browser.go(f"{b.url}/projects/{pid}/settings", f"own-settings-{pid}"))
        own = browser.seen()
        # the control: B's own answers do reach her pages (the "Annotation results" column)
        assert B_MARK in own
        # A's server, from the same browser: only the login page
        for pid, tasks in world["pages"][a.email]:
            for path, name in (
                ("/projects/", "a-projects"),
                (f"/projects/{pid}/data", f"a-project-{pid}"),
                (f"/projects/{pid}/data?task={tasks[0]}", f"a-task-{tasks[0]}"),
                (f"/projects/{pid}/settings/labeling", f"a-settings-{pid}"),
                (f"/api/tasks/{tasks[0]}/", f"a-api-task-{tasks[0]}"),
                (f"/api/projects/{pid}/export?exportType=JSON", f"a-api-export-{pid}"),
            ):
                html = browser.go(f"{a.url}{path}", name)
                pages.append(html)
                if path.startswith("/api/"):
                    assert '"status_code":401' in html, (path, html[:300])
                else:  # B's session cookie reached A's server and was not taken
                    assert browser.page.url.startswith(f"{a.url}/user/login"), browser.page.url
        everything = "\n".join(pages) + browser.seen()
        assert A_MARK not in everything
        assert a.email not in everything
    finally:
        browser.close()


def test_a_sees_her_own_answers_in_her_browser(world, chromium, shots, tmp_path):
    """The control: the same pages in A's browser on A's server do show her marker."""
    a = world["a"]
    browser = Browser(chromium, tmp_path / "profile-a", shots, "a")
    try:
        browser.login(a.url, a.email, a.password)
        pid, tasks = world["pages"][a.email][0]
        browser.go(f"{a.url}/projects/{pid}/data", f"own-project-{pid}-data-manager")
        browser.all_columns_on(f"own-project-{pid}-all-columns")
        browser.go(f"{a.url}/projects/{pid}/data?task={tasks[0]}", f"own-task-{tasks[0]}")
        assert A_MARK in browser.seen()
    finally:
        browser.close()
