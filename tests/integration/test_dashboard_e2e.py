"""`hume-sync dashboard` against real Label Studio servers, opened in headless Chromium.

Two annotators, each in a Label Studio of their own (``annotator_servers``), answer through the
API with their own tokens: English classification (4 items) and STS (3 pairs). A gives gold on
classification items 0-2 and an answer that does not fit the interface on item 3; B agrees with
A on items 0 and 1, gives another label on item 2 and leaves item 3 (so both answered items 0-2
validly, and agree on 2 of the 3). On STS, A rates all 3 pairs and B the first 2.

The dashboard runs as its own process (``hume-sync dashboard``), as a project manager starts it.
Its ``/data.json`` must carry exactly ``status --json``; the page, at 1366×768 and 1920×1080,
must show the same numbers and not overflow horizontally (screenshots in
``test-artifacts/dashboard``, or ``$HUME_TEST_ARTIFACTS/dashboard``). A pull runs while it is up
(the dashboard takes no lock); with annotator A's server unreachable the page says so in one
line and keeps serving; a second dashboard on the same port is a one-line error; after close
the page carries the export's human score per subset.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hume_sync.cli import main
from hume_sync.labelstudio.server import free_port
from hume_sync.rules.display import format_duration
from hume_sync.store import Store, gold
from tests._annotate import bad_label, gold_result, hume_env, set_up_study
from tests._browser import CHROMIUM_FLAGS, ROOT, artifacts, chromium_path
from tests._studies import real_data_spec
from tests.integration.test_study_e2e import _point_slot_at

pytestmark = pytest.mark.labelstudio

ENG = "SIB200Classification/eng_Latn"
STS = "STSBenchmark/default"
REFRESH_S = 15
VIEWPORTS = ((1366, 768), (1920, 1080))


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory):
    root = tmp_path_factory.mktemp("dashboard")
    mp = hume_env(root)
    spec = real_data_spec("dashboard", 11, cls_eng=4, cls_arb=2, sts=3, rerank=2)
    spec["tasks"] = [t for t in spec["tasks"] if t["type"] in ("classification", "sts")]
    spec["tasks"][0]["subsets"] = spec["tasks"][0]["subsets"][:1]  # English only
    a, b = annotator_servers
    study = set_up_study(root / "study", spec, [(a, "eng"), (b, "eng")], mp)
    client_a, client_b = a.server.client(a.token), b.server.client(b.token)
    with Store.open(study) as store:
        sub = store.subset(ENG)
        golds = gold(store, ENG)
        labels = sub.config["label_set"]
        insts = store.instances(ENG)
        ta, tb = store.slot_tasks(ENG, 1), store.slot_tasks(ENG, 2)
        for k, inst in enumerate(insts):
            g = golds[inst.hume_id]
            if k < 3:
                client_a.create_annotation(ta[inst.hume_id], gold_result(sub, inst, g), 9.0)
                other = next(lab for lab in labels if lab != g)
                answer_b = g if k < 2 else other
                client_b.create_annotation(tb[inst.hume_id], gold_result(sub, inst, answer_b), 21.0)
            else:
                client_a.create_annotation(ta[inst.hume_id], bad_label(sub), 4.0)
        invalid_task = ta[insts[3].hume_id]
        sts = store.subset(STS)
        golds = gold(store, STS)
        ta, tb = store.slot_tasks(STS, 1), store.slot_tasks(STS, 2)
        for k, inst in enumerate(store.instances(STS)):
            g = golds[inst.hume_id]
            client_a.create_annotation(ta[inst.hume_id], gold_result(sts, inst, g), 12.0)
            if k < 2:
                client_b.create_annotation(tb[inst.hume_id], gold_result(sts, inst, g), 30.0)
        pid_a = next(p.ls_project_id for p in store.slot_projects(ENG) if p.slot == 1)
    assert main(["pull", str(study)]) == 0
    yield {"dir": study, "a": a, "b": b, "invalid_task": invalid_task, "pid_a": pid_a, "mp": mp}
    mp.undo()


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_path()


@pytest.fixture(scope="module")
def shots() -> Iterator[Path]:
    """test-artifacts/dashboard (or $HUME_TEST_ARTIFACTS/dashboard), emptied once per run."""
    out = artifacts("dashboard")
    yield out
    print(f"\nscreenshots of the dashboard: {out}")


@pytest.fixture(scope="module")
def dashboard(world):
    """``hume-sync dashboard STUDY --port P`` in its own process; its base URL."""
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    code = "import sys; from hume_sync.cli import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "dashboard", str(world["dir"]), "--port", str(port),
         "--refresh", str(REFRESH_S)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/data.json", timeout=60).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the dashboard did not start: {out} {err}", pytrace=False)
        time.sleep(0.5)
    yield {"base": base, "port": port, "proc": proc}
    proc.terminate()
    proc.wait(timeout=30)


def status_json(study: Path, capsys: Any) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["status", str(study), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def data(base: str) -> dict[str, Any]:
    r = httpx.get(base + "/data.json", timeout=120)
    assert r.status_code == 200
    return r.json()


def fresh(base: str) -> dict[str, Any]:
    """The next snapshot (the dashboard reads Label Studio at most once per refresh)."""
    time.sleep(REFRESH_S + 0.5)
    return data(base)


def test_data_equals_status_json_and_agreement_so_far(world, dashboard, capsys):
    got = data(dashboard["base"])
    expected = status_json(world["dir"], capsys)
    assert got["status"] == expected
    assert got["label_studio_error"] is None
    # as annotated: A owes classification item 3 (invalid); B owes classification item 3 and
    # STS pair 3 (never answered)
    owed = {a["email"]: a["to_do"] for a in expected["annotators"]}
    assert owed == {world["a"].email: 1, world["b"].email: 2}
    eng = next(a for a in got["agreement"] if a["subset"] == ENG)
    assert eng["statistic"] == "fleiss_kappa" and eng["n_items"] == 3 and eng["n_raters"] == 2
    assert eng["others"]["mean_percentage_agreement"] == pytest.approx(2 / 3)
    sts = next(a for a in got["agreement"] if a["subset"] == STS)
    assert sts["statistic"] == "mean_pairwise_spearman" and sts["n_items"] == 2
    assert got["pulled_at"] is not None
    a = world["a"]
    assert got["invalid_to_fix"] == [
        {
            "subset": ENG,
            "slot": 1,
            "email": a.email,
            "task_id": world["invalid_task"],
            "error": got["invalid_to_fix"][0]["error"],
            "url": f"{a.url}/projects/{world['pid_a']}/data?task={world['invalid_task']}",
        }
    ]


_READ_PAGE = """() => ({
  overflow: [document.documentElement.scrollWidth, window.innerWidth],
  rows: Array.from(document.querySelectorAll('tr[data-slot]')).map(tr => ({
    subset: tr.dataset.subset || null, slot: Number(tr.dataset.slot),
    cells: Object.fromEntries(Array.from(tr.querySelectorAll('td[data-k]'))
      .map(td => [td.dataset.k, td.textContent.trim()]))})),
  totals: Object.fromEntries(Array.from(document.querySelectorAll('[data-total]'))
    .map(c => [c.dataset.total, c.querySelector('b').textContent.trim()])),
  errors: document.querySelectorAll('#ls-error').length,
})"""


def _expected_rows(status: dict[str, Any]) -> list[dict[str, Any]]:
    counts = ("instances", "tasks", "finished", "answered", "invalid", "skipped", "to_do")
    rows = []
    for a in status["annotators"]:
        cells = {k: str(a[k]) for k in ("answered", "to_do", "invalid", "skipped")}
        cells["median_lead_time_s"] = format_duration(a["median_lead_time_s"])
        cells["work_left_s"] = format_duration(a["work_left_s"])
        rows.append({"subset": None, "slot": a["slot"], "cells": cells})
    for p in status["projects"]:
        cells = {k: str(p[k]) for k in counts}
        cells["median_lead_time_s"] = format_duration(p["median_lead_time_s"])
        rows.append({"subset": p["subset"], "slot": p["slot"], "cells": cells})
    return rows


def test_page_in_chromium_shows_status_numbers_without_overflow(
    world, dashboard, chromium, shots, capsys
):
    from playwright.sync_api import sync_playwright

    expected = status_json(world["dir"], capsys)
    total = expected["total"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            for width, height in VIEWPORTS:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(dashboard["base"] + "/")
                page.wait_for_load_state("load")
                seen = page.evaluate(_READ_PAGE)
                page.screenshot(path=str(shots / f"dashboard-{width}x{height}.png"), full_page=True)
                page.close()
                scroll, inner = seen["overflow"]
                assert scroll <= inner, f"horizontal overflow at {width}px: {scroll} > {inner}"
                rows = [
                    {"subset": r["subset"], "slot": r["slot"],
                     "cells": {k: v for k, v in r["cells"].items() if k in e["cells"]}}
                    for r, e in zip(seen["rows"], _expected_rows(expected), strict=True)
                ]  # fmt: skip
                assert rows == _expected_rows(expected)
                assert (
                    seen["totals"]["answered"] == f"{total['answered']} / {total['answers_needed']}"
                )
                for key in ("to_do", "invalid", "skipped", "open_seats"):
                    assert seen["totals"][key] == str(total[key])
                assert seen["errors"] == 0
        finally:
            browser.close()


def test_pull_runs_while_the_dashboard_is_up(world, dashboard, capsys):
    before = data(dashboard["base"])["pulled_at"]
    time.sleep(1.1)  # pulled_at has a resolution of one second
    capsys.readouterr()
    assert main(["pull", str(world["dir"])]) == 0
    assert fresh(dashboard["base"])["pulled_at"] > before


def test_a_second_dashboard_on_the_same_port_is_a_one_line_error(world, dashboard, capsys):
    capsys.readouterr()
    assert main(["dashboard", str(world["dir"]), "--port", str(dashboard["port"])]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"hume-sync dashboard: error: port {dashboard['port']} on 127.0.0.1 is in use; "
        "choose another with --port"
    )


def test_label_studio_down_is_one_line_and_the_server_keeps_running(
    world, dashboard, chromium, shots
):
    from playwright.sync_api import sync_playwright

    dead = f"http://127.0.0.1:{free_port()}"  # a port nothing listens on
    real = _point_slot_at(world["dir"], 1, dead, world["a"].server.token)
    try:
        got = fresh(dashboard["base"])
        assert got["status"] is None
        assert got["label_studio_error"].startswith("Label Studio could not be read")
        assert dead in got["label_studio_error"] and "\n" not in got["label_studio_error"]
        assert world["a"].server.token not in json.dumps(got)
        assert any(a["subset"] == ENG and a["n_items"] == 3 for a in got["agreement"])
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium, headless=True, args=CHROMIUM_FLAGS
            )
            try:
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.goto(dashboard["base"] + "/")
                assert page.locator("#ls-error").count() == 1
                text = page.locator("#ls-error").inner_text()
                assert len(text.splitlines()) == 1 and dead in text
                page.screenshot(path=str(shots / "dashboard-label-studio-down.png"))
            finally:
                browser.close()
        assert dashboard["proc"].poll() is None
    finally:
        _point_slot_at(world["dir"], 1, real, world["a"].server.token)
    assert fresh(dashboard["base"])["label_studio_error"] is None


def test_after_close_the_page_carries_the_exports_human_score(world, dashboard, tmp_path):
    assert main(["close", str(world["dir"]), "--force"]) == 0
    got = fresh(dashboard["base"])
    out = tmp_path / "report"
    assert main(["export", str(world["dir"]), "--out", str(out)]) == 0
    scores = {s["subset"]: s for s in json.loads((out / "scores.json").read_text())["subsets"]}
    heads = {h["subset"]: h for h in got["headline"]}
    assert set(heads) == {ENG, STS}
    for key, head in heads.items():
        assert head["human"] == pytest.approx(scores[key]["human"]["value"])
    assert got["closed_at"] is not None
