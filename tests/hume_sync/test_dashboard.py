"""The dashboard's page model, page and server, on small cases checked by hand.

A real study (SIB-200, STS Benchmark) with two annotators whose answers are written into the
store as a pull would write them; the expected agreement values are worked out below from the
answers, not from the scoring code. Label Studio itself is in
tests/integration/test_dashboard_e2e.py.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.errors import LabelStudioUnreachableError
from hume_sync.report.dashboard_html import render_page
from hume_sync.report.dashboard_model import page_model, store_part
from hume_sync.store import CLOSED_AT, PULLED_AT, AnnotationRecord, Store
from hume_sync.workflow import dashboard
from tests._studies import real_data_spec, write_spec

ENG = "SIB200Classification/eng_Latn"
ARB = "SIB200Classification/arb_Arab"
STS = "STSBenchmark/default"
CLU = "SIB200Clustering/default"
RERANK = "SIB200Reranking/default"
PULLED = "2026-03-02T10:00:00Z"
URL_A, URL_B = "http://127.0.0.1:18081", "http://127.0.0.1:18082"


def _rec(n: int, hid: str, task: int, slot: int, answer: Any, status: str = "valid") -> Any:
    return AnnotationRecord(
        n, hid, task, f"annotator-{slot}", answer, status,
        "no choice" if status == "invalid" else None, 5.0,
        "2026-03-02T09:00:00Z", "2026-03-02T09:00:00Z", slot,
    )  # fmt: skip


@pytest.fixture
def study(tmp_path: Path) -> dict[str, Any]:
    """Two annotators: A (slot 1, English and Arabic) and B (slot 2, English).

    English classification, 6 items: A answers items 0-4, B items 1-5, so both answered items
    1-4, where A says [L0, L0, L1, L1] and B [L0, L0, L1, L2]. Fleiss' κ, two raters, 4 items:
    observed agreement P̄ = 3/4; label shares over the 8 ratings L0 4/8, L1 3/8, L2 1/8, so
    Pe = 1/4 + 9/64 + 1/64 = 26/64 and κ = (3/4 − 26/64) / (1 − 26/64) = 22/38 = 11/19.
    Percentage agreement 3/4. A's item 5 has only an invalid answer (to fix); B's item 1 has an
    invalid one and a valid one (nothing to fix).
    STS, 3 pairs: A rates [1, 2, 3], B [1, 3, 2]: Spearman ρ = 1 − 6·2/(3·8) = 0.5.
    Clustering: only B answered; Arabic: one seat (A); reranking: no project yet.
    """
    path = tmp_path / "study"
    spec = real_data_spec("dash", 3, cls_eng=6, cls_arb=2, sts=3, rerank=2)
    assert main(["init", str(path), "--spec", str(write_spec(path, spec))]) == 0
    with Store.open(path) as store:
        store.add_annotator("a@hume.test", ["eng", "ara"], URL_A, 11)
        store.add_annotator("b@hume.test", ["eng"], URL_B, 12)
        for n, (key, slot) in enumerate(
            [(ENG, 1), (ENG, 2), (ARB, 1), (STS, 1), (STS, 2), (CLU, 1), (CLU, 2)]
        ):
            store.set_slot_project(key, slot, 40 + n, f"marker-{n}")
        labels = store.subset(ENG).config["label_set"]
        eng = [i.hume_id for i in store.instances(ENG)]
        a_eng = [labels[3], labels[0], labels[0], labels[1], labels[1]]
        b_eng = [labels[0], labels[0], labels[1], labels[2], labels[4]]
        recs = [_rec(100 + k, eng[k], 500 + k, 1, a_eng[k]) for k in range(5)]
        recs.append(_rec(105, eng[5], 505, 1, None, "invalid"))
        recs += [_rec(200 + k, eng[k + 1], 600 + k, 2, b_eng[k]) for k in range(5)]
        recs.append(_rec(206, eng[1], 600, 2, None, "invalid"))
        store.upsert_annotations(recs, subset=ENG)
        sts = [i.hume_id for i in store.instances(STS)]
        a_sts, b_sts = [1, 2, 3], [1, 3, 2]
        store.upsert_annotations(
            [_rec(300 + k, sts[k], 700 + k, 1, a_sts[k]) for k in range(3)]
            + [_rec(400 + k, sts[k], 800 + k, 2, b_sts[k]) for k in range(3)],
            subset=STS,
        )
        clu = store.instances(CLU)[0]
        store.upsert_annotations([_rec(500, clu.hume_id, 900, 2, {"1": "group_1"})], subset=CLU)
        store.set_meta({PULLED_AT: PULLED})
    return {"dir": path, "eng": eng, "labels": labels}


def _by_subset(part: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["subset"]: a for a in part["agreement"]}


def test_agreement_so_far_on_items_both_answered(study):
    with Store.open(study["dir"]) as store:
        part = store_part(store)
    agree = _by_subset(part)
    eng = agree[ENG]
    assert eng["statistic"] == "fleiss_kappa" and eng["n_raters"] == 2 and eng["n_items"] == 4
    assert eng["value"] == pytest.approx(11 / 19)
    assert eng["others"]["mean_percentage_agreement"] == pytest.approx(0.75)
    sts = agree[STS]
    assert sts["statistic"] == "mean_pairwise_spearman" and sts["n_items"] == 3
    assert sts["value"] == pytest.approx(0.5)
    assert agree[ARB]["value"] is None and agree[ARB]["note"].startswith("one annotator")
    assert agree[CLU]["value"] is None
    assert agree[CLU]["note"] == "no item answered by all 2 annotators yet"
    assert agree[RERANK]["note"].startswith("no annotator yet")
    assert part["pulled_at"] == PULLED and part["closed_at"] is None
    assert part["headline"] is None


def test_invalid_answers_to_fix_link_into_the_annotators_label_studio(study):
    with Store.open(study["dir"]) as store:
        part = store_part(store)
    # A's item 5 only (B's invalid answer on item 1 was followed by a valid one)
    assert part["invalid_to_fix"] == [
        {
            "subset": ENG,
            "slot": 1,
            "email": "a@hume.test",
            "task_id": 505,
            "error": "no choice",
            "url": f"{URL_A}/projects/40/data?task=505",
        }
    ]


def test_no_gold_and_no_model_answers_are_read_while_the_study_is_open(study, monkeypatch):
    import hume_sync.report.model as report_model

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("read while the study is open")

    monkeypatch.setattr(report_model, "gold", forbidden)
    monkeypatch.setattr(Store, "predictions", forbidden)
    with Store.open(study["dir"]) as store:
        assert _by_subset(store_part(store))[ENG]["value"] == pytest.approx(11 / 19)


def test_after_close_the_headline_is_the_exports_human_score(study, tmp_path):
    with Store.open(study["dir"]) as store:
        store.set_meta({CLOSED_AT: "2026-03-02T12:00:00.000000Z"})
        part = store_part(store)
    out = tmp_path / "report"
    assert main(["export", str(study["dir"]), "--out", str(out)]) == 0
    scores = {s["subset"]: s for s in json.loads((out / "scores.json").read_text())["subsets"]}
    heads = {h["subset"]: h for h in part["headline"]}
    assert set(heads) == set(scores)
    for key, head in heads.items():
        human = scores[key]["human"]
        assert head["human"] == (None if human is None else pytest.approx(human["value"]))
    assert heads[ENG]["agreement"] == pytest.approx(11 / 19)
    assert heads[ENG]["agreement_statistic"] == "fleiss_kappa"


# ------------------------------------------------------------------------------ the page


class Cells(HTMLParser):
    """Rows of the page that carry ``data-slot``/``data-subset``, as {data-k: text}."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[dict[str, str], dict[str, str]]] = []
        self._key: str | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "tr":
            self.rows.append((a, {}))
        elif tag == "td" and "data-k" in a:
            self._key = a["data-k"]
            self.rows[-1][1][self._key] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._key = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._key is not None:
            self.rows[-1][1][self._key] += data


def _status(email: str = "a@hume.test") -> dict[str, Any]:
    """A ``status --json`` dict by hand: one subset, one annotator who owes 3 of 5."""
    project = {
        "subset": ENG, "language": "eng", "slot": 1, "annotator": "annotator-1", "email": email,
        "project_id": 7, "project_url": f"{URL_A}/projects/7/data", "missing": False,
        "instances": 5, "tasks": 5, "finished": 3, "answered": 2, "invalid": 1, "skipped": 0,
        "to_do": 3, "median_lead_time_s": 12.5, "interface_changed": False,
    }  # fmt: skip
    annotator = {
        "slot": 1, "annotator": "annotator-1", "email": email, "languages": ["eng"],
        "label_studio": URL_A, "projects": 1, "answered": 2, "invalid": 1, "skipped": 0,
        "to_do": 3, "started": True, "median_lead_time_s": 12.5, "work_left_s": 37.5,
        "pace_per_hour": 40.0, "eta_s": 270.0, "other_accounts": [],
    }  # fmt: skip
    total = {
        "seats": 1, "open_seats": 0, "answers_needed": 5, "answered": 2, "invalid": 1,
        "skipped": 0, "to_do": 3, "finished_in_label_studio": 3, "tasks_in_label_studio": 5,
        "eta_s": 270.0, "done": False,
    }  # fmt: skip
    return {"study": "dash", "projects": [project], "annotators": [annotator],
            "open_seats": [], "total": total}  # fmt: skip


def _page(status: dict[str, Any] | None, error: str | None = None) -> str:
    stored = {
        "pulled_at": PULLED, "closed_at": None, "agreement_source": "the store",
        "agreement": [], "invalid_to_fix": [], "headline": None,
    }  # fmt: skip
    return render_page(page_model("dash", status, error, stored, generated_at="now", refresh_s=15))


def test_page_shows_what_each_annotator_still_owes_as_status_gives_it():
    cells = Cells()
    cells.feed(_page(_status()))
    rows = [(attrs, c) for attrs, c in cells.rows if c]
    (ann,) = [c for attrs, c in rows if "data-subset" not in attrs]
    (proj,) = [c for attrs, c in rows if attrs.get("data-subset") == ENG]
    assert ann["to_do"] == "3" and ann["answered"] == "2" and ann["invalid"] == "1"
    assert ann["work_left_s"] == "38 s" and ann["eta_s"] == "4 min"
    assert ann["pace_per_hour"] == "40.0"
    assert proj == {
        "instances": "5", "tasks": "5", "finished": "3", "answered": "2", "invalid": "1",
        "skipped": "0", "to_do": "3", "median_lead_time_s": "12 s",
    }  # fmt: skip


def test_page_is_self_contained_refreshes_and_escapes_data():
    page = _page(_status(email="<img src=x onerror=alert(1)>@hume.test"))
    assert '<meta http-equiv="refresh" content="15">' in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;@hume.test" in page
    assert "<script" not in page and "src=" not in page.replace("&lt;img src=x", "")
    assert "http://" not in page.replace(URL_A, "")  # only links into Label Studio


def test_label_studio_down_is_one_line_and_the_store_part_still_shows():
    page = _page(None, error="Label Studio could not be read, counts not shown: down")
    cells = Cells()
    cells.feed(page)
    assert page.count('id="ls-error"') == 1
    assert "Label Studio could not be read, counts not shown: down" in page
    assert not any(c for _, c in cells.rows if "to_do" in c)
    assert PULLED in page


# ---------------------------------------------------------------------------- the server


def _down(url: str) -> Any:
    raise LabelStudioUnreachableError(
        f"Label Studio at {url} is not reachable (refused)", url=url, operation="get project"
    )


def _get(url: str, host: str | None = None) -> tuple[int, dict[str, str], str]:
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def test_server_keeps_serving_with_label_studio_down(study):
    server = dashboard.make_server(study["dir"], lambda: _down, port=0, refresh_s=1)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for _ in range(2):  # a second snapshot after the first failed
            code, headers, body = _get(base + "/data.json")
            data = json.loads(body)
            assert code == 200 and data["status"] is None
            assert data["label_studio_error"] == (
                "Label Studio could not be read, counts not shown: Label Studio at "
                f"{URL_A} is not reachable (refused)"
            )
            assert _by_subset(data)[ENG]["value"] == pytest.approx(11 / 19)
            threading.Event().wait(1.1)
        code, headers, body = _get(base + "/")
        assert code == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
        assert 'id="ls-error"' in body
        # a page elsewhere that rebinds its name to 127.0.0.1 is refused
        assert _get(base + "/", host="evil.example:80")[0] == 403
        assert _get(base + "/nothing")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_port_in_use_is_a_one_line_error(study, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["dashboard", str(study["dir"]), "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"hume-sync dashboard: error: port {port} on 127.0.0.1 is in use; "
        "choose another with --port"
    )


def test_non_loopback_host_is_refused_without_the_flag(study, capsys):
    assert main(["dashboard", str(study["dir"]), "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--host 0.0.0.0 is not a loopback address" in err and "--allow-non-loopback" in err
    server = dashboard.make_server(
        study["dir"], lambda: _down, host="0.0.0.0", port=0, allow_non_loopback=True
    )
    server.server_close()


def test_not_a_study_is_a_one_line_error(tmp_path, capsys):
    assert main(["dashboard", str(tmp_path)]) == 2
    assert "not a study" in capsys.readouterr().err


def test_effort_is_recomputed_only_when_a_pull_or_the_annotators_changed(study, monkeypatch):
    """The effort and quality signals read every stored answer: the dashboard keeps them until
    a pull writes (its time, the store's annotation rows) or the annotators change."""
    from hume_sync.workflow import status_effort

    calls: list[int] = []
    real = status_effort.effort_json

    def counted(store: Store) -> dict[str, Any]:
        calls.append(1)
        return real(store)

    monkeypatch.setattr(status_effort, "effort_json", counted)
    snaps = dashboard.Snapshots(study["dir"] / "study.sqlite", lambda: None, refresh_s=30)
    with Store.open(study["dir"]) as store:
        first = snaps._cached_effort(store)
        assert snaps._cached_effort(store) is first and len(calls) == 1
        store.upsert_annotations([_rec(107, study["eng"][0], 500, 1, study["labels"][2])])
        store.set_meta({PULLED_AT: "2026-03-02T11:00:00Z"})  # a pull edited an answer
        second = snaps._cached_effort(store)
        assert len(calls) == 2 and second == real(store)
        store.retire_annotator(2)
        snaps._cached_effort(store)
        assert len(calls) == 3
        assert snaps._cached_effort(store) == real(store) and len(calls) == 3
