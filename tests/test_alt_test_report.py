"""The alternative annotator test in an exported report and scores.json (issue 21).

The study of tests/_report_study.py has two English annotators and an LLM that always answers
the alphabetically first label: fewer than 3 annotators, so the report gives the LLM's
agreement with each annotator and, paired, each annotator − LLM against gold, checked here
against the answers the study was filled with.
"""

from __future__ import annotations

import numpy as np
import pytest

from hume_sync.store import Store, gold
from tests._report_study import export_report_study


def _bootstrap_difference(a: list[float], b: list[float], seed: int) -> tuple[float, float]:
    """Paired percentile bootstrap of mean(a) − mean(b), 2000 seeded resamples, with numpy."""
    x, y = np.array(a), np.array(b)
    idx = np.random.default_rng(seed).integers(0, len(x), (2000, len(x)))
    d = x[idx].mean(axis=1) - y[idx].mean(axis=1)
    return float(np.quantile(d, 0.025)), float(np.quantile(d, 0.975))


def _alt_rows(md: str) -> list[str]:
    part = md.split("## Can an LLM replace an annotator?")[1].split("\n## ")[0]
    return [line for line in part.splitlines() if line.startswith("| SIB200")]


def md_methods(out) -> str:
    return (out / "report.md").read_text().split("## Methods")[1]


def test_export_carries_the_alt_test_or_why_not(tmp_path):
    made, out, data = export_report_study(tmp_path)
    sub = next(s for s in data["subsets"] if s["subset"].startswith("SIB200Classification/eng"))
    (name, test), *_ = sub["alt_test"].items()
    assert "always-first" in name
    assert test["status"] == "fewer than 3 annotators" and "2 annotator(s)" in test["reason"]
    # The LLM's agreement with each annotator: the share of their answers equal to the first
    # label of the label set, counted straight from the answers the study holds.
    answers = made["answers"][sub["subset"]]
    first = min(v for a in answers.values() for v in a.values())
    for pair in test["pairwise"]:
        mine = next(a for key, a in answers.items() if key == pair["annotator"])
        want = sum(v == first for v in mine.values()) / len(mine)
        assert abs(pair["agreement"] - want) < 1e-12 and pair["n_items"] == len(mine)
        assert pair["low"] <= pair["agreement"] <= pair["high"] and pair["low"] < pair["high"]
    # And paired, each against gold on the items both answered: annotator − LLM, with the
    # difference's percentile bootstrap recomputed here from the per-item correctness.
    with Store.open(made["study"]) as store:
        golds = gold(store, sub["subset"])
    rows = _alt_rows((out / "report.md").read_text())
    for p in test["paired"]:
        mine = answers[p["annotator"]]
        right_a = [float(v == golds[i]) for i, v in mine.items()]
        right_l = [float(first == golds[i]) for i in mine]
        assert p["n_items"] == len(mine) == 12
        assert p["annotator_score"] == pytest.approx(sum(right_a) / 12)
        assert p["llm_score"] == pytest.approx(sum(right_l) / 12)
        assert p["difference"] == pytest.approx(p["annotator_score"] - p["llm_score"])
        low, high = _bootstrap_difference(right_a, right_l, seed=42)
        assert (p["low"], p["high"]) == pytest.approx((low, high))
        want = (
            f"{p['annotator']} − LLM = {p['annotator_score']:.3f} − {p['llm_score']:.3f} = "
            f"{p['difference']:.3f} [{low:.3f}, {high:.3f}] paired_bootstrap:percentile"
        )
        assert any(want in r for r in rows), (want, rows)
    assert "LLM against each annotator, paired: annotator − LLM" in md_methods(out)
    # Subsets without an LLM carry no test; the report shows the section and names the method.
    assert all(s["alt_test"] == {} for s in data["subsets"] if s is not sub)
    md = (out / "report.md").read_text()
    assert "## Can an LLM replace an annotator? (alternative annotator test)" in md
    assert "**Alternative annotator test**: Alternative Annotator Test (Calderon" in md
