"""Table 1's human rows carry an interval (issue 21): HUME's aggregate and each panel entry,
as the mean over subsets with the MOVER combination of the per-subset intervals the report
prints, or "not estimable" naming the subset without one. Recomputed here from scores.json's
per-subset entries, one Wilson interval checked against scipy. A missing interval is a short
mark in the cell (``n/e¹``) with its reason as a numbered footnote under the table (issue 37)."""

from __future__ import annotations

import json
import math
import re

import pytest
from scipy.stats import binomtest

from hume_sync.report.blocks import superscript
from tests._report_study import export_report_study


def _mover(entries: list[dict]) -> tuple[float, float]:
    k = len(entries)
    mean = sum(e["value"] for e in entries) / k
    below = math.sqrt(sum((e["value"] - e["interval"]["low"]) ** 2 for e in entries))
    above = math.sqrt(sum((e["interval"]["high"] - e["value"]) ** 2 for e in entries))
    return mean - below / k, mean + above / k


def _table1(md: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Table 1's rows by rater, and its footnotes by their superscript mark (``¹``)."""
    part = md.split("## Table 1: mean over subsets (%)")[1].split("\n## ")[0].split("\n### ")[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in part.splitlines()]
    rows = [r for r in rows if len(r) > 5 and not set(r[0]) <= {"-"}]
    header = rows[0]
    notes = re.findall(r"^(\d+)\. (.+)$", part, flags=re.M)
    return (
        {r[header.index("rater")]: dict(zip(header, r, strict=True)) for r in rows[1:]},
        {superscript(int(n)): text for n, text in notes},
    )


def test_table1_human_rows_have_intervals(tmp_path) -> None:
    _, out, data = export_report_study(tmp_path)
    summary = data["human_panel_summary"]
    table, notes = _table1((out / "report.md").read_text())

    # One per-subset interval, independently: SIB200 English has a Wilson interval for the
    # aggregate's accuracy; scipy's Wilson score interval gives the same bounds.
    eng = next(s for s in data["subsets"] if s["subset"].startswith("SIB200Classification/eng"))
    agg = eng["human_panel"]["aggregate"]
    d = agg["interval"]["details"]
    ci = binomtest(d["successes"], d["n"]).proportion_ci(method="wilson")
    assert (agg["interval"]["low"], agg["interval"]["high"]) == pytest.approx((ci.low, ci.high))

    # HUME's aggregate over all five subsets (each has an interval).
    aggs = [s["human_panel"]["aggregate"] for s in data["subsets"]]
    assert all(a["interval"] for a in aggs) and len(aggs) == 5
    low, high = _mover(aggs)
    got = summary["aggregate"]
    assert got["value"] == pytest.approx(sum(a["value"] for a in aggs) / 5)
    assert (got["interval"]["low"], got["interval"]["high"]) == pytest.approx((low, high))
    human_row = next(r for r in table.values() if r["kind"] == "human")
    assert human_row["95 % interval (%)"] == f"[{100 * low:.1f}, {100 * high:.1f}]"
    assert human_row["mean %"] == f"{100 * got['value']:.1f}"

    # Dawid–Skene exists on one subset (the only label subset with two annotators): its
    # Table 1 interval is that subset's own.
    ds = [s["human_panel"]["dawid_skene"] for s in data["subsets"]]
    ds = [e for e in ds if e["value"] is not None]
    assert len(ds) == 1 and ds[0]["interval"]
    row = table["humans: Dawid–Skene"]
    want = f"[{100 * ds[0]['interval']['low']:.1f}, {100 * ds[0]['interval']['high']:.1f}]"
    assert row["95 % interval (%)"] == want

    # The best annotator has no interval on the clustering subset (one partition): the mean's
    # interval is not estimable and says where and why; never NaN nor a zero-width interval.
    # The cell holds the short mark, the reason is its footnote under the table.
    cell = table["humans: best annotator"]["95 % interval (%)"]
    assert cell.startswith("n/e") and cell[3:] in notes
    assert notes[cell[3:]].startswith("not estimable: no interval on SIB200Clustering")
    # The worst annotator has no interval for the same reason: the same footnote, not a copy.
    assert table["humans: worst annotator"]["95 % interval (%)"] == cell
    assert list(notes.values()).count(notes[cell[3:]]) == 1
    assert summary["best_annotator"]["interval"] is None
    for e in summary.values():
        iv = e.get("interval")
        assert iv is None or iv["high"] - iv["low"] > 1e-9
        assert iv is not None or e["note"]
    assert "NaN" not in json.dumps(summary)
    # Methods name the combination.
    md = (out / "report.md").read_text()
    assert "**Table 1 interval**:" in md and "MOVER" in md
    assert "**Which human**:" in md and "**Above humans**:" in md
