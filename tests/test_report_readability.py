"""The report reads without hovering and names what it shows (issue 13, "Readability").

A study filled directly in its store (tests/_report_study.py: two annotators with emails, an
LLM annotator, three models from an MTEB results folder) is exported and read back: axis titles
from each type's ``score_main_label``, every model's name and value as SVG text, a Borda rank
checked by hand, the best model and the human − best gap per subset, model metadata where the
results carry it, reranking disagreements as texts with marks, annotators under pseudonymous
keys unless ``--with-emails``. Then headless Chromium opens report.html at 1366×768 and
1920×1080 (screenshots in ``test-artifacts/report``): no horizontal overflow, Table 1 without
sideways scrolling in its own box, every plot with axis titles and labels, text at least 12 px
as drawn.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.report import render
from hume_sync.report.model import build_report
from hume_sync.report.safe_text import md_text
from hume_sync.store import Store
from scoring.comparison import SubsetInfo, borda_counts, rank_raters
from scoring.results import Rater, SubsetScore
from tests._browser import CHROMIUM_FLAGS, artifacts, chromium_path
from tests._report_study import EMAILS, MODELS, make_study, model_score, results_folder

OUT_FILES = ("report.md", "report.html", "scores.json", "scores.csv")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("readability")
    made = make_study(root)
    results = results_folder(root, made["subsets"])
    outs = {}
    for name, extra in (("plain", []), ("emails", ["--with-emails"])):
        out = root / name
        args = ["export", str(made["study"]), "--out", str(out), "--results", str(results)]
        assert main([*args, *extra]) == 0
        outs[name] = out
    data = json.loads((outs["plain"] / "scores.json").read_text())
    return {**made, "out": outs["plain"], "out_emails": outs["emails"], "data": data}


def svgs(html: str) -> dict[str, str]:
    return dict(re.findall(r'<svg id="([^"]+)"(.*?)</svg>', html, flags=re.S))


def texts(svg: str, cls: str) -> list[str]:
    """The text of every ``<text class=cls>`` (a ``<title>`` child left out)."""
    found = re.findall(rf'<text class="{cls}"[^>]*>(?:<title>.*?</title>)?(.*?)</text>', svg)
    return [t.replace("&amp;", "&") for t in found]


# ------------------------------------------------------------------------------------------
# Plots


def test_every_subset_plot_names_its_metric_models_and_values(exported):
    html = (exported["out"] / "report.html").read_text()
    plots = svgs(html)
    subsets = exported["data"]["subsets"]
    for i, s in enumerate(subsets, 1):
        svg = plots[f"plot-subset-{i}"]
        ttype = task_types.get(s["task_type"])
        assert texts(svg, "axis-title") == [f"{ttype.score_main_label} ({ttype.score_main_name})"]
        labels = texts(svg, "label")
        values = texts(svg, "value")
        assert len(labels) == len(values) == 1 + len(s["models"]) + len(s["llms"])
        # every model by name (long ones cut with "…", the full name in the title) and value
        for name, value in s["models"].items():
            k = next(j for j, lab in enumerate(labels) if name.startswith(lab.rstrip("…")))
            assert values[k] == f"{value:.3f}"
        assert values[labels.index("humans")] == f"{s['human']['value']:.3f}"
        assert 'viewBox="0 0 ' in svg and 'width="100%"' in svg
    # the metric names come from the types, not from the report: each is on its own plot
    labels = {task_types.get(s["task_type"]).score_main_label for s in subsets}
    assert labels == {"accuracy", "V-measure", "Spearman ρ", "MAP"}
    assert "svg text{font-size:13px" in html


def test_negative_scores_extend_the_axis_below_zero():
    from hume_sync.report import plots

    assert plots.axis_range([0.2, 0.9]) == 0.0
    assert plots.axis_range([-0.3, 0.8]) == -0.5
    assert plots.axis_range([-0.05], step=0.2) == -0.2
    bars = [plots.Bar("a", -0.3, "model", "-0.300"), plots.Bar("b", 0.5, "model", "0.500")]
    svg = plots.bar_chart(plot_id="p", title="t", axis_title="Spearman ρ", bars=bars, lo=-0.5)
    ticks = dict(
        (t, float(x))
        for x, t in re.findall(r'<text class="tick" x="([\d.]+)"[^>]*>([^<]+)</text>', svg)
    )
    assert list(ticks) == ["-0.5", "-0.25", "0", "0.25", "0.5", "0.75", "1"]
    rects = [
        (float(x), float(w))
        for x, w in re.findall(r'<rect class="model" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)
    ]
    # the negative bar ends at 0 and starts at -0.3; the positive one starts at 0
    step = ticks["0.25"] - ticks["0"]
    assert rects[0][0] + rects[0][1] == pytest.approx(ticks["0"], abs=0.1)
    assert rects[0][1] == pytest.approx(step * 0.3 / 0.25, abs=0.1)
    assert rects[1][0] == pytest.approx(ticks["0"], abs=0.1)


def test_agreement_bars_name_their_statistic(exported):
    svg = svgs((exported["out"] / "report.html").read_text())["plot-agreement"]
    by_subset = {
        s["subset"]: next(a for a in s["agreement"] if a["method"] == head)
        for s in exported["data"]["subsets"]
        if (head := task_types.get(s["task_type"]).score_headline_agreement)
        and any(a["method"] == head and a["value"] is not None for a in s["agreement"])
    }
    by_subset = {k: a for k, a in by_subset.items() if a["value"] == a["value"]}  # not NaN
    assert texts(svg, "label") == list(by_subset)
    assert texts(svg, "value") == [
        f"{a['method']} {a['value']:.3f} ({a['band']})" for a in by_subset.values()
    ]
    assert texts(svg, "axis-title")


def test_captions_name_only_what_is_drawn(exported):
    with Store.open(exported["study"]) as store:
        report = build_report(store)
    html = render.html(report)
    assert "LLM annotators (blue)" in html and "embedding models (grey)" not in html
    no_llm = replace(report, subsets=[replace(s, llm_scores={}) for s in report.subsets])
    html = render.html(no_llm)
    assert "LLM annotators (blue)" not in html and 'class="llm"' not in html
    assert "humans (red" in html
    low = [s for s in report.subsets if s.low_agreement]
    assert ("orange: low" in render.html(report)) == bool(low)
    not_low = replace(report, subsets=[s for s in report.subsets if not s.low_agreement])
    assert "orange" not in render.html(not_low)


# ------------------------------------------------------------------------------------------
# Per subset: best model; ranking: Borda; model metadata


def test_best_model_its_score_and_the_gap_per_subset(exported):
    best = max(MODELS, key=lambda m: MODELS[m][0])
    md = (exported["out"] / "report.md").read_text()
    for i, s in enumerate(exported["data"]["subsets"]):
        d = s["difficulty"]
        assert d["best_model"] == best == "intfloat/multilingual-e5-small"
        assert d["best_model_score"] == pytest.approx(model_score(i, best))
        gap = s["human"]["value"] - model_score(i, best)
        assert d["human_minus_best"] == pytest.approx(gap)
        row = next(line for line in md.splitlines() if line.startswith(f"| {s['subset']} | "))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[11:14] == [best, f"{model_score(i, best):.3f}", f"{gap:+.3f}"]


def test_borda_rank_on_a_hand_case():
    """A (0.9, 0.4), B (0.8, 0.6), C (0.7, 0.6): on s1 A beats 2, B 1; on s2 B and C tie (½
    each) and beat A. Points A 2, B 2.5, C 1.5: Borda ranks B, A, C, where the mean ties A
    and C (0.65)."""
    subsets = {sid: SubsetInfo(sid, sid, "default", "sts", "eng") for sid in ("s1", "s2")}

    def rater(name: str, v1: float, v2: float) -> Rater:
        r = Rater(name, "r", "model", Path("."))
        for sid, v in (("s1", v1), ("s2", v2)):
            r.scores[sid] = SubsetScore(sid, "default", ("eng",), "sts", v)
        return r

    raters = [rater("A", 0.9, 0.4), rater("B", 0.8, 0.6), rater("C", 0.7, 0.6)]
    assert borda_counts({r.name: r for r in raters}, subsets) == {"A": 2.0, "B": 2.5, "C": 1.5}
    rows = {r.rater.name: r for r in rank_raters(raters, subsets)}
    assert {n: r.rank for n, r in rows.items()} == {"B": 1, "A": 2, "C": 2}
    assert {n: r.borda_rank for n, r in rows.items()} == {"B": 1, "A": 2, "C": 3}


def test_table1_shows_borda_and_model_metadata_where_known(exported):
    md = (exported["out"] / "report.md").read_text()
    table, continued = md.split("## Table 1: mean")[1].split("\n## ")[0].split("### Table 1, cont")
    header = [c.strip() for c in table.splitlines()[2].strip("|").split("|")]
    assert header[:2] == ["rank (mean)", "Borda rank"]
    # Per language and model metadata moved to the second table (issue 37), row for row.
    assert "parameters" not in header and "eng" not in header
    lines = [line for line in continued.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[0] == "rater" and header[-3:] == ["parameters", "embedding dim", "max tokens"]
    rows = {
        cells[0]: cells
        for line in lines[2:]
        for cells in [[c.strip() for c in line.split("|")[1:-1]]]
    }
    first = [line.split("|")[3].strip() for line in table.splitlines()[4:] if line.startswith("|")]
    assert list(rows) == first
    assert rows["sentence-transformers/all-MiniLM-L6-v2"][-3:] == ["22.7M", "384", "256"]
    assert rows["intfloat/multilingual-e5-small"][-3:] == ["118.0M", "384", "512"]
    no_meta = next(n for n in rows if n.startswith("org-without-meta/"))
    assert rows[no_meta][-3:] == ["–", "–", "–"]
    # Borda points by hand: humans beat every model on the first four subsets (3 points
    # each) and none on reranking; e5 beats the other two models on all five and the humans
    # on reranking.
    table_json = {r["model"]: r for r in exported["data"]["table"]}
    assert table_json["baseline/Human"]["borda"] == 12.0
    assert table_json["intfloat/multilingual-e5-small"]["borda"] == 5 * 2 + 1
    assert "- **Borda rank**: as the MTEB leaderboard shows" in md


def test_model_metadata_from_the_store_and_the_results_folder():
    """What ``predict`` stored of a model (``model_facts``) fills its columns; a results
    folder's model_meta.json wins; unknown or non-finite values are left out; export never
    imports mteb for it."""
    from hume_sync.report.model import model_metadata

    minilm = "emb:sentence-transformers/all-MiniLM-L6-v2"
    stored = {
        minilm: {"n_parameters": 5, "embed_dim": 3, "max_tokens": 9},
        "emb:inf": {"embed_dim": 4, "max_tokens": float("inf")},
    }
    names = [minilm, "emb:inf", "emb:no-such-org/no-such-model"]
    assert model_metadata(names, [], stored) == {
        minilm: {"n_parameters": 5, "embed_dim": 3, "max_tokens": 9},
        "emb:inf": {"embed_dim": 4},
    }
    folder = Rater(minilm, "r", "model", Path("."), meta={"embed_dim": 7, "max_tokens": None})
    assert model_metadata([minilm], [folder], stored) == {minilm: {"embed_dim": 7}}


@pytest.mark.model
def test_the_loaded_model_reports_the_facts_mteb_registers_for_it():
    """``model_facts`` of the packaged all-MiniLM-L6-v2 equals mteb's registry entry for it
    (an independent source: mteb's ModelMeta, offline)."""
    mteb = pytest.importorskip("mteb")
    from ml_backend.encoders import load_encoder, model_facts

    facts = model_facts(load_encoder("all-MiniLM-L6-v2"))
    meta = mteb.get_model_meta("sentence-transformers/all-MiniLM-L6-v2", fetch_from_hf=False)
    assert facts == {
        "n_parameters": meta.n_parameters,
        "embed_dim": meta.embed_dim,
        "max_tokens": meta.max_tokens,
    }
    assert facts["embed_dim"] == 384


# ------------------------------------------------------------------------------------------
# Reranking disagreements; annotator names


def test_reranking_disagreements_show_texts_and_each_raters_marks(exported):
    md = (exported["out"] / "report.md").read_text()
    with Store.open(exported["study"]) as store:
        inst = store.instances("SIB200Reranking/default")[0]
    answers = exported["answers"]["SIB200Reranking/default"]
    a1, a2 = sorted(answers)
    row = next(line for line in md.splitlines() if f"| {inst.hume_id} |" in line)
    assert "{'" not in row and '{"' not in row
    lines = row.split("|")[5].split("<br>")
    assert len(lines) == len(inst.content["candidates"])
    for line, cand in zip(lines, inst.content["candidates"], strict=True):
        cid = str(cand["id"])
        marks = [answers[a][inst.hume_id][cid] for a in (a1, a2)]
        want = f"; {a1} {'✓' if marks[0] else '✗'}; {a2} {'✓' if marks[1] else '✗'}"
        assert line.strip().endswith(want), line
        assert md_text(cand["text"][:40]) in line


def test_files_name_annotators_by_pseudonymous_keys_unless_with_emails(exported):
    keys = sorted(exported["keys"].values())
    assert keys == ["annotator-1", "annotator-2"]
    for name in OUT_FILES:
        text = (exported["out"] / name).read_text()
        assert not any(e in text for e in EMAILS), name
        assert not re.search(r"[\w.]+@[\w-]+\.\w+", text), name  # no email of any kind
        assert "annotator-1" in text, name
    md = (exported["out"] / "report.md").read_text()
    assert "pseudonymous keys" in md.split("##")[0]
    rows = list(csv.DictReader(io.StringIO((exported["out"] / "scores.csv").read_text())))
    assert {r["rater"] for r in rows if r["kind"] == "annotator"} == set(keys)
    with_emails = exported["out_emails"]
    md = (with_emails / "report.md").read_text()
    assert "named by email" in md.split("##")[0]
    assert all(e in md for e in EMAILS) and "annotator-1" not in md
    data = json.loads((with_emails / "scores.json").read_text())
    assert set(data["subsets"][0]["human"]["per_rater"]) == set(EMAILS)
    assert data["annotator_names"] == "emails"


def test_annotations_keyed_by_email_get_pseudonyms(tmp_path):
    """A store whose annotations carry emails as keys (filled by hand, not by ``pull``) still
    exports pseudonyms, A1 and A2 in sorted order of the keys; emails only with the flag."""
    from hume_sync.store import AnnotationRecord, gold
    from tests._studies import real_data_spec, write_spec

    spec = real_data_spec("emailkeys", 3, cls_eng=2, cls_arb=2, sts=6, rerank=2)
    spec["tasks"] = [t for t in spec["tasks"] if t["type"] == "sts"]
    study = tmp_path / "study"
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    who = ("zed@example.org", "amy@example.org")
    with Store.open(study) as store:
        g = gold(store, "STSBenchmark/default")
        store.upsert_annotations(
            [
                AnnotationRecord(
                    k * 2 + j + 1, hid, k * 2 + j + 1, email, round(float(v)) if j == 0 else k % 3
                )
                for k, (hid, v) in enumerate(sorted(g.items()))
                for j, email in enumerate(who)
            ]
        )
    got = {}
    for extra in ([], ["--with-emails"]):
        out = tmp_path / f"out{len(extra)}"
        assert main(["export", str(study), "--out", str(out), *extra]) == 0
        data = json.loads((out / "scores.json").read_text())
        got[bool(extra)] = data["subsets"][0]["human"]["per_rater"]
        if not extra:
            for name in OUT_FILES:
                assert "@" not in (out / name).read_text(), name
    # amy sorts first (A1); zed's ratings follow gold, amy's are noisy: the scores differ
    assert got[True]["amy@example.org"] != got[True]["zed@example.org"]
    assert got[False] == {
        "A1": got[True]["amy@example.org"],
        "A2": got[True]["zed@example.org"],
    }


# ------------------------------------------------------------------------------------------
# In a real browser

VIEWPORTS = ((1366, 768), (1920, 1080))

MEASURE = """() => {
  const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
               plots: []};
  for (const svg of document.querySelectorAll('svg.plot')) {
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    const t = (sel) => [...svg.querySelectorAll(sel)];
    const sizes = t('text').map(e => parseFloat(getComputedStyle(e).fontSize) * scale);
    const outside = t('text').filter(e => {
      const b = e.getBoundingClientRect();
      return b.left < box.left - 1 || b.right > box.right + 1;
    }).map(e => e.textContent);
    out.plots.push({id: svg.id, width: box.width,
      axisTitles: t('text.axis-title').map(e => e.textContent),
      labels: t('text.label').map(e => e.textContent).length,
      minFont: Math.min(...sizes), outside});
  }
  const t1 = document.getElementById('table-1');
  const box = t1.querySelector('table').getBoundingClientRect();
  out.table1 = {scrollWidth: t1.scrollWidth, clientWidth: t1.clientWidth, right: box.right};
  return out;
}"""


def test_report_in_chromium_at_laptop_and_desktop_sizes(exported, tmp_path):
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    shots = artifacts("report")
    page_url = (exported["out"] / "report.html").resolve().as_uri()
    n_subsets = len(exported["data"]["subsets"])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            for width, height in VIEWPORTS:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(page_url)
                page.screenshot(path=str(shots / f"report-{width}x{height}.png"))
                page.screenshot(
                    path=str(shots / f"report-{width}x{height}-full.png"), full_page=True
                )
                m = page.evaluate(MEASURE)
                print(
                    f"\n{width}x{height}: scrollWidth {m['scrollWidth']} / innerWidth "
                    f"{m['innerWidth']}; {len(m['plots'])} plots, smallest text "
                    f"{min(p['minFont'] for p in m['plots']):.1f} px, widest plot "
                    f"{max(p['width'] for p in m['plots']):.0f} px"
                )
                assert m["scrollWidth"] <= m["innerWidth"], (width, m["scrollWidth"])
                # Table 1 itself fits the window: no sideways scrolling in its own box either
                # (issue 37: per-language and metadata columns moved to a second table).
                t1 = m["table1"]
                assert t1["scrollWidth"] <= t1["clientWidth"], (width, t1)
                assert t1["right"] <= width, (width, t1)
                ids = [p["id"] for p in m["plots"]]
                assert ids[:n_subsets] == [f"plot-subset-{i}" for i in range(1, n_subsets + 1)]
                assert {"plot-agreement", "plot-human-vs-llm"} <= set(ids)
                for p in m["plots"]:
                    assert p["axisTitles"] and all(t.strip() for t in p["axisTitles"]), p
                    assert p["labels"] >= 1, p
                    assert p["minFont"] >= 12, p
                    assert not p["outside"], p
                    assert p["width"] <= width
                page.close()
        finally:
            browser.close()
    print(f"\nscreenshots of the report: {shots}")
