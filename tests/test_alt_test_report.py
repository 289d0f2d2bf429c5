"""The alternative annotator test in an exported report and scores.json (issue 21).

The study of tests/_report_study.py has two English annotators and an LLM that always answers
the alphabetically first label: fewer than 3 annotators, so the report gives the LLM's
agreement with each annotator, checked here against the answers the study was filled with.
"""

from __future__ import annotations

import json

from hume_sync.cli import main
from tests._report_study import make_study, results_folder


def test_export_carries_the_alt_test_or_why_not(tmp_path):
    made = make_study(tmp_path)
    results = results_folder(tmp_path, made["subsets"])
    out = tmp_path / "out"
    args = ["export", str(made["study"]), "--out", str(out), "--results", str(results)]
    assert main(args) == 0
    data = json.loads((out / "scores.json").read_text())
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
    # Subsets without an LLM carry no test; the report shows the section and names the method.
    assert all(s["alt_test"] == {} for s in data["subsets"] if s is not sub)
    md = (out / "report.md").read_text()
    assert "## Can an LLM replace an annotator? (alternative annotator test)" in md
    assert "**Alternative annotator test**: Alternative Annotator Test (Calderon" in md
