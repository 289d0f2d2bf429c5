"""Complete answers only, and the close as a line in time, against real Label Studio servers
(two annotators, each with a Label Studio of their own: ``annotator_servers``).

- Incomplete answers written through the API by an annotator are reported by `pull` as invalid,
  with the annotator's email and a link that opens the task, and are never scored.
- In a real browser (headless Chromium, Debian's `chromium`, driven by Playwright) the
  interfaces tell the annotator at submit time what Label Studio lets them: a classification
  or STS answer without a choice is refused with our message; the clustering card counts the
  texts still unsorted, and the answer submitted with some left is reported invalid; the
  annotator opens the link `pull` printed, sorts the rest and updates, and the answer becomes
  valid; an untouched reranking card submits every candidate as not relevant.
- Answers given or changed after `close --force` are left out by `export` and kept with
  `--include-late`, with the numbers checked; answers given before the close and deleted by
  their annotators after it are listed by `pull` and still scored as at the close, unless
  `--include-late`.

Screenshots of the browser steps go to ``$HUME_TEST_SCREENSHOTS`` (else a temporary folder).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.rules.display import task_url
from hume_sync.store import Store, gold
from hume_sync.workflow.pull import pull_study
from tests._annotate import hume_env, set_up_study
from tests._browser import playwright_chromium
from tests._studies import real_data_spec

pytestmark = pytest.mark.labelstudio

CLUSTERING = "SIB200Clustering/default"
RERANKING = "SIB200Reranking/default"
CLASSIFICATION = "SIB200Classification/eng_Latn"
STS = "STSBenchmark/default"
INVALID_LINE = re.compile(
    r"warning: invalid answer, not counted: (?P<subset>\S+): task (?P<task>\d+), annotation "
    r"(?P<ann>\d+) by (?P<who>.+?): (?P<error>.+); fix it at (?P<url>\S+)$"
)


def invalid_lines(err: str) -> list[dict[str, str]]:
    return [m.groupdict() for line in err.splitlines() if (m := INVALID_LINE.match(line))]


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """A study set up for two annotators, each in a Label Studio of their own (A, slot 1,
    writes through the API; B, slot 2, uses the browser); nothing annotated yet."""
    root = tmp_path_factory.mktemp("answers")
    mp = hume_env(root)
    spec = real_data_spec("answers", 11, cls_eng=6, cls_arb=3, sts=3, rerank=3)
    a, b = annotator_servers
    study_dir = set_up_study(root / "study", spec, [(a, "eng,ara"), (b, "eng")], mp)
    with Store.open(study_dir) as store:
        subsets = {s.key: s for s in store.subsets()}
        instances = {k: store.instances(k) for k in subsets}
        golds = {k: gold(store, k) for k in subsets}
        # per slot: {subset: project id} and {subset: {hume_id: task id}}
        projects = {
            slot: {p.subset_key: p.ls_project_id for p in store.slot_projects() if p.slot == slot}
            for slot in (1, 2)
        }
        tasks = {slot: {k: store.slot_tasks(k, slot) for k in subsets} for slot in (1, 2)}
    yield {
        "dir": study_dir,
        "a": a,
        "b": b,
        "subsets": subsets,
        "instances": instances,
        "gold": golds,
        "projects": projects,
        "tasks": tasks,
    }
    mp.undo()


def pull(study: dict, capsys) -> tuple[str, str]:
    capsys.readouterr()
    assert main(["pull", str(study["dir"])]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def rows_by_id(study: dict, slot: int) -> dict[int, Any]:
    """One annotator's stored annotations by Label Studio id (ids repeat across servers)."""
    with Store.open(study["dir"]) as store:
        return {r.ls_annotation_id: r for r in store.annotations() if r.slot == slot}


def ranker_result(from_name: str, to_name: str, buckets: dict[str, list[str]]) -> list[dict]:
    value = {"ranker": buckets}
    return [{"from_name": from_name, "to_name": to_name, "type": "ranker", "value": value}]


# ------------------------------------------------------------------------------------------
# In a real browser (first: annotator B starts on tasks nobody has answered)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("HUME_TEST_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_chromium() as b:
        yield b


def log_in(browser: Any, user: Any) -> Any:
    """A page logged in on the annotator's own server through its login form."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(f"{user.url}/user/login/")
    page.fill("input[name=email]", user.email)
    page.fill("input[name=password]", user.password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda u: "/user/login" not in u)
    return page


def open_task(page: Any, link: str, button: str) -> None:
    """Open a task by its link and wait for its labelling view (``submit`` or ``update``)."""
    page.goto(link)
    page.locator(f"[data-testid=bottombar-{button}-button]").wait_for()
    page.wait_for_timeout(1500)  # the annotation's result is applied after the view appears


def column(page: Any, n: int) -> Any:
    return page.locator(".htx-ranker-column").nth(n).locator(".htx-ranker-item")


def move_first_unsorted(page: Any, steps_right: int) -> None:
    """Drag the first unsorted text `steps_right` columns to the right, by keyboard (the
    Ranker's drag and drop library supports space / arrows / space)."""
    column(page, 0).first.focus()
    page.keyboard.press("Space")
    page.wait_for_timeout(250)
    for _ in range(steps_right):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(200)
    page.keyboard.press("Space")
    page.wait_for_timeout(500)


def note(page: Any) -> tuple[str, str]:
    """The clustering card's progress note as rendered: (CSS content, background colour)."""
    return page.locator(".hume-progress").evaluate(
        "e => { const s = getComputedStyle(e, '::after'); return [s.content, s.backgroundColor]; }"
    )


RED, GREEN = "rgb(253, 232, 232)", "rgb(230, 244, 234)"


def test_browser_tells_the_annotator_at_submit_time(study, browser, shots, capsys):
    b = study["b"]
    server, admin = b.server, b.server.client()  # B's own server, its admin (the manager)
    projects, tasks = study["projects"][2], study["tasks"][2]
    page = log_in(browser, b)

    # Classification and STS: Submit without a choice is refused with our message; nothing is
    # stored.
    for subset, message, shot in (
        (CLASSIFICATION, "Pick a label before you submit", "classification-submit-refused"),
        (STS, "Pick a similarity level before you submit", "sts-submit-refused"),
    ):
        task = tasks[subset][study["instances"][subset][0].hume_id]
        open_task(page, task_url(server.url, projects[subset], task), "submit")
        page.locator("[data-testid=bottombar-submit-button]").click()
        modal = page.locator(".ant-modal-content")
        modal.wait_for()
        assert f"{message}: an answer without one is not counted." in modal.inner_text()
        page.wait_for_timeout(800)  # let the modal finish its opening animation
        page.screenshot(path=shots / f"{shot}.png")
        modal.locator("button").click()
        modal.wait_for(state="hidden")
        assert [x for x in admin.list_annotations(task) if x["completed_by"] == b.user_id] == []

    # Reranking: an untouched card submits every candidate, all "Not relevant".
    rr_inst = study["instances"][RERANKING][1]
    rr_task = tasks[RERANKING][rr_inst.hume_id]
    open_task(page, task_url(server.url, projects[RERANKING], rr_task), "submit")
    page.locator("[data-testid=bottombar-submit-button]").click()
    page.wait_for_timeout(2500)

    # Clustering: the card counts the unsorted texts; submitting with 9 left is invalid.
    cl_task = tasks[CLUSTERING][study["instances"][CLUSTERING][0].hume_id]
    link = task_url(server.url, projects[CLUSTERING], cl_task)
    open_task(page, link, "submit")
    assert column(page, 0).count() == 12
    content, colour = note(page)
    assert "counter(hume-unsorted)" in content and "not sorted yet" in content and colour == RED
    for _ in range(3):
        move_first_unsorted(page, 1)
    assert [column(page, n).count() for n in range(4)] == [9, 3, 0, 0]
    page.screenshot(path=shots / "clustering-9-unsorted.png")
    page.locator("[data-testid=bottombar-submit-button]").click()
    page.wait_for_timeout(2500)
    mine = [x for x in admin.list_annotations(cl_task) if x["completed_by"] == b.user_id]
    assert len(mine) == 1 and len(mine[0]["result"][0]["value"]["ranker"]["_"]) == 9

    _, err = pull(study, capsys)
    listed = {int(x["ann"]): x for x in invalid_lines(err)}
    line = listed[mine[0]["id"]]
    assert line["who"] == f"{b.email} (annotator-2)"
    assert line["error"].startswith("9 item(s) left unsorted") and line["url"] == link
    rows = rows_by_id(study, 2)
    assert rows[mine[0]["id"]].status == "invalid"
    rr_mine = [x for x in admin.list_annotations(rr_task) if x["completed_by"] == b.user_id]
    cands = [c["id"] for c in rr_inst.content["candidates"]]
    assert rows[rr_mine[0]["id"]].status == "valid"
    assert rows[rr_mine[0]["id"]].answer == dict.fromkeys(cands, 0)

    # The annotator follows the link, sorts the rest, sees the note turn green, updates.
    open_task(page, line["url"], "update")
    assert column(page, 0).count() == 9 and note(page)[1] == RED
    step = 0
    while column(page, 0).count():
        move_first_unsorted(page, step % 3 + 1)
        step += 1
    assert step == 9 and sum(column(page, n).count() for n in range(1, 4)) == 12
    content, colour = note(page)
    assert content == '"Every text is in a group."' and colour == GREEN
    page.screenshot(path=shots / "clustering-all-sorted.png")
    page.locator("[data-testid=bottombar-update-button]").click()
    page.wait_for_timeout(2500)
    _, err = pull(study, capsys)
    assert mine[0]["id"] not in {int(x["ann"]) for x in invalid_lines(err)}
    row = rows_by_id(study, 2)[mine[0]["id"]]
    items = [it["id"] for it in study["instances"][CLUSTERING][0].content["items"]]
    assert row.status == "valid" and sorted(row.answer) == sorted(items)
    page.close()


# ------------------------------------------------------------------------------------------
# Through the API


def test_incomplete_answers_are_listed_with_email_and_link(study, capsys):
    a = study["a"]
    server, annotator = a.server, a.server.client(a.token)  # A's own server, A's own token
    projects, tasks = study["projects"][1], study["tasks"][1]
    items = [it["id"] for it in study["instances"][CLUSTERING][0].content["items"]]
    assert len(items) == 12
    # 7 of 12 texts sorted, 5 left in the unsorted column (the half-done answer).
    cl_task = tasks[CLUSTERING][study["instances"][CLUSTERING][0].hume_id]
    sorted_part = {"group_1": items[:3], "group_2": items[3:5], "group_3": items[5:7]}
    cl = annotator.create_annotation(
        cl_task, ranker_result("groups", "items", {**sorted_part, "_": items[7:]})
    )
    # A reranking answer that places 6 of its 7 candidates.
    rr_inst = study["instances"][RERANKING][0]
    cands = [c["id"] for c in rr_inst.content["candidates"]]
    rr_task = tasks[RERANKING][rr_inst.hume_id]
    rr = annotator.create_annotation(
        rr_task,
        ranker_result(
            "relevance", "candidates", {"relevant": cands[:1], "not_relevant": cands[1:6]}
        ),
    )
    out, err = pull(study, capsys)
    assert "(2 invalid, 0 skipped/cancelled)" in out
    listed = {int(x["ann"]): x for x in invalid_lines(err)}
    assert set(listed) == {cl["id"], rr["id"]}
    for ann, subset, task in ((cl, CLUSTERING, cl_task), (rr, RERANKING, rr_task)):
        line = listed[ann["id"]]
        assert (line["subset"], int(line["task"])) == (subset, task)
        assert line["who"] == f"{a.email} (annotator-1)"
        assert line["url"] == f"{server.url}/projects/{projects[subset]}/data?task={task}"
    assert listed[cl["id"]]["error"].startswith("5 item(s) left unsorted")
    assert listed[rr["id"]]["error"].startswith(
        f"1 candidate(s) missing from the result: '{cands[6]}'"
    )
    rows = rows_by_id(study, 1)
    assert rows[cl["id"]].status == rows[rr["id"]].status == "invalid"
    assert rows[cl["id"]].answer is None
    # The same list, as a function `status` can reuse.
    with Store.open(study["dir"]) as store:
        summary = pull_study(store, ls_servers.Clients())
    named = {p.annotation_id: p for p in summary.invalid}
    assert named[cl["id"]].email == a.email
    assert named[cl["id"]].url == task_url(server.url, projects[CLUSTERING], cl_task)
    # Never scored: the export counts them as invalid (B's valid ones from the browser test,
    # where it ran, are the only ones scored).
    out_dir = study["dir"].parent / "report-invalid"
    assert main(["export", str(study["dir"]), "--out", str(out_dir)]) == 0
    data = json.loads((out_dir / "scores.json").read_text())
    by = {s["subset"]: s for s in data["subsets"]}
    for subset in (CLUSTERING, RERANKING):
        assert by[subset]["left_out"]["invalid"] == {"annotator-1": 1}
        scored = (by[subset]["human"] or {}).get("per_rater", {})
        assert "annotator-1" not in scored


# ------------------------------------------------------------------------------------------
# The close is a line in time (runs last: it closes the study)


def test_answers_after_the_close_are_left_out_unless_include_late(study, capsys):
    a, b = study["a"], study["b"]
    annotator, other = a.server.client(a.token), b.server.client(b.token)
    sub = study["subsets"][CLASSIFICATION]
    labels = sub.config["label_set"]
    module = task_types.get("classification").ls_module
    golds = study["gold"][CLASSIFICATION]
    insts = study["instances"][CLASSIFICATION]
    wrong = {i.hume_id: next(lab for lab in labels if lab != golds[i.hume_id]) for i in insts}

    def result(label: str) -> list[dict]:
        return module.answer_to_result(label, labels=labels)

    tasks_a, tasks_b = study["tasks"][1][CLASSIFICATION], study["tasks"][2][CLASSIFICATION]
    # B: every item right before the close
    b_anns = [other.create_annotation(tasks_b[i.hume_id], result(golds[i.hume_id])) for i in insts]
    for i in insts[:3]:  # A: three wrong answers before the close
        annotator.create_annotation(tasks_a[i.hume_id], result(wrong[i.hume_id]))
    capsys.readouterr()
    assert main(["close", str(study["dir"]), "--force"]) == 0
    # After the close: A answers the other three right; B changes item 0 to a wrong label.
    for i in insts[3:]:
        annotator.create_annotation(tasks_a[i.hume_id], result(golds[i.hume_id]))
    other.sdk.annotations.update(id=b_anns[0]["id"], result=result(wrong[insts[0].hume_id]))
    _, err = pull(study, capsys)
    assert "note: 4 answer(s) given or changed after the study was closed" in err

    with Store.open(study["dir"]) as store:
        closed = store.meta()["closed_at"]
        stored = {r.ls_annotation_id: r for r in store.annotations(CLASSIFICATION) if r.slot == 2}
    # Label Studio's own times, as pulled: UTC with a Z, compared with the close as times.
    edited = stored[b_anns[0]["id"]]
    assert edited.created_at.endswith("Z") and edited.created_at < closed < edited.updated_at

    b_key, a_key = "annotator-2", "annotator-1"
    reports = {}
    for flags in ((), ("--include-late",)):
        out_dir = study["dir"].parent / ("report" + "".join(flags))
        capsys.readouterr()
        assert main(["export", str(study["dir"]), "--out", str(out_dir), *flags]) == 0
        reports[flags] = (
            json.loads((out_dir / "scores.json").read_text()),
            (out_dir / "report.md").read_text(),
            capsys.readouterr().err,
        )
    data, md, err = reports[()]
    s = next(x for x in data["subsets"] if x["subset"] == CLASSIFICATION)
    # Default: B on items 1-5 (all right), A on items 0-2 (all wrong).
    assert s["human"]["per_rater"] == {b_key: 1.0, a_key: 0.0}
    assert s["left_out"]["late"] == {b_key: 1, a_key: 3}
    assert s["left_out"]["late_edited"] == {b_key: 1}
    assert s["coverage"]["annotations"] == 5 + 3
    assert f"| {CLASSIFICATION} | {a_key} | 3 | 0 | 0 |" in md
    assert f"| {CLASSIFICATION} | {b_key} | 1 | 1 | 0 |" in md
    assert "4 answer(s) given or changed after the close" in err and "left out" in err
    data, md, err = reports[("--include-late",)]
    s = next(x for x in data["subsets"] if x["subset"] == CLASSIFICATION)
    # With them: B 5 of 6 right, A 3 of 6.
    assert s["human"]["per_rater"] == {b_key: pytest.approx(5 / 6), a_key: 0.5}
    assert s["coverage"]["annotations"] == 12 and data["include_late"] is True
    assert "4 late answer(s) included in every score (--include-late)" in md


def test_answers_deleted_after_the_close_are_scored_as_at_the_close(study, capsys):
    """After the close (the test above): each annotator deletes, through Label Studio's API with
    their own token, one answer they gave before it."""
    a, b = study["a"], study["b"]
    with Store.open(study["dir"]) as store:
        assert "closed_at" in store.meta()
    insts = study["instances"][CLASSIFICATION]
    gone = {}
    for who, srv, slot, inst in ((a, "a", 1, insts[0]), (b, "b", 2, insts[1])):
        task = study["tasks"][slot][CLASSIFICATION][inst.hume_id]
        own = who.server.client(who.token)
        [ann] = [x for x in own.list_annotations(task) if x["completed_by"] == who.user_id]
        own.sdk.annotations.delete(id=ann["id"])  # DELETE /api/annotations/<id>/
        assert own.list_annotations(task) == []
        gone[srv] = ann["id"]
    out, err = pull(study, capsys)
    assert "2 deleted" in out
    assert "note: 2 answer(s) given before the close were deleted in Label Studio after it" in err
    assert f"annotation {gone['a']} (annotator-1)" in err
    assert f"annotation {gone['b']} (annotator-2)" in err
    with Store.open(study["dir"]) as store:  # marked deleted, as any deletion
        live = {(r.slot, r.ls_annotation_id) for r in store.annotations(CLASSIFICATION)}
    assert (1, gone["a"]) not in live and (2, gone["b"]) not in live

    b_key, a_key = "annotator-2", "annotator-1"
    reports = {}
    for flags in ((), ("--include-late",)):
        out_dir = study["dir"].parent / ("report-deleted" + "".join(flags))
        assert main(["export", str(study["dir"]), "--out", str(out_dir), *flags]) == 0
        data = json.loads((out_dir / "scores.json").read_text())
        reports[flags] = (
            next(x for x in data["subsets"] if x["subset"] == CLASSIFICATION),
            data,
            (out_dir / "report.md").read_text(),
        )
    s, data, md = reports[()]
    # As at the close, as before the deletions: B on items 1-5 (all right), A on 0-2 (wrong).
    assert s["human"]["per_rater"] == {b_key: 1.0, a_key: 0.0}
    assert s["coverage"]["annotations"] == 5 + 3
    assert s["left_out"]["late_deleted"] == {b_key: 1, a_key: 1}
    assert data["late_deletions"] == 2
    assert "2 answer(s) deleted in Label Studio after the close: each still scored" in md
    s, data, md = reports[("--include-late",)]
    # The deletions count: B on items 0 (changed to wrong after the close) and 2-5 (right),
    # 4 of 5; A on items 1-2 (wrong) and 3-5 (right, after the close), 3 of 5.
    assert s["human"]["per_rater"] == {b_key: pytest.approx(4 / 5), a_key: pytest.approx(3 / 5)}
    assert s["coverage"]["annotations"] == 5 + 5
