"""The alternative annotator test end to end (issue 21): a study with three English annotators
and recorded LLM answers, filled through the store (tests/_report_study.py, no Label Studio,
no real LLM), exported; report and scores.json carry the winning rate, each held-out
annotator's Benjamini–Yekutieli p-value and the ε used. Every number is recomputed here from
the answers the study holds: the advantage indicators by the paper's definition, the t-test by
scipy, the Benjamini–Yekutieli step-up written out."""

from __future__ import annotations

import json

import pytest
from scipy import stats

from hume_sync.cli import main
from hume_sync.store import Store
from tests._report_study import make_study

EPSILON, ALPHA = 0.2, 0.05


def _by_adjust(p: list[float]) -> list[float]:
    """Benjamini–Yekutieli adjusted p-values: min over k ≥ i of m·c(m)·p_(k)/k, at most 1."""
    m = len(p)
    c = sum(1 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * c * p[i] / rank)
        out[i] = running
    return out


def _expected(humans: dict[str, dict], llm: dict) -> dict[str, dict]:
    """Per held-out annotator j: ρ_f, ρ_h, and the one-sided t-test of W_h − W_f against ε."""
    out = {}
    for j, mine in humans.items():
        w_h, w_f = [], []
        for item, answer in mine.items():
            others = [a[item] for k, a in humans.items() if k != j and item in a]
            s_llm = sum(llm[item] == o for o in others) / len(others)
            s_j = sum(answer == o for o in others) / len(others)
            w_f.append(float(s_llm >= s_j))
            w_h.append(float(s_j >= s_llm))
        d = [h - f for h, f in zip(w_h, w_f, strict=True)]
        res = stats.ttest_1samp(d, popmean=EPSILON, alternative="less")
        out[j] = {
            "n": len(d),
            "rho_llm": sum(w_f) / len(d),
            "rho_annotator": sum(w_h) / len(d),
            "t": float(res.statistic),
            "p": float(res.pvalue),
        }
    return out


def test_alt_test_on_a_three_annotator_study(tmp_path) -> None:
    made = make_study(tmp_path, annotators="abc", cls_eng=30, llm="mostly-right")
    out = tmp_path / "out"
    assert main(["export", str(made["study"]), "--out", str(out)]) == 0
    data = json.loads((out / "scores.json").read_text())
    sub = next(s for s in data["subsets"] if s["subset"].startswith("SIB200Classification/eng"))
    humans = made["answers"][sub["subset"]]
    assert len(humans) == 3 and all(len(a) == 30 for a in humans.values())
    with Store.open(made["study"]) as store:
        llm = {
            p.hume_id: p.answer
            for p in store.predictions(sub["subset"])
            if p.model_version == "llm:mostly-right"
        }
    assert len(llm) == 30

    test = sub["alt_test"]["llm:mostly-right"]
    assert test["status"] == "tested" and test["epsilon"] == EPSILON and test["alpha"] == ALPHA
    want = _expected(humans, llm)
    got = {a["annotator"]: a for a in test["annotators"]}
    assert set(got) == set(want)
    names = sorted(want)
    adjusted = dict(zip(names, _by_adjust([want[j]["p"] for j in names]), strict=True))
    for j in names:
        g, w = got[j], want[j]
        assert g["n_items"] == w["n"] == 30
        assert g["rho_llm"] == pytest.approx(w["rho_llm"])
        assert g["rho_annotator"] == pytest.approx(w["rho_annotator"])
        assert g["t"] == pytest.approx(w["t"]) and g["pvalue"] == pytest.approx(w["p"])
        assert g["p_adjusted"] == pytest.approx(adjusted[j])
        assert g["llm_wins"] == (adjusted[j] <= ALPHA)
    wins = sum(adjusted[j] <= ALPHA for j in names)
    assert test["winning_rate"] == pytest.approx(wins / 3)
    assert test["passed"] == (wins / 3 >= 0.5)
    # The study is built so the result is mixed: the LLM wins against some annotators, not all
    # (a test whose every p-value sat on one side of α would not tell a flipped rule apart).
    assert 0 < wins < 3

    md = (out / "report.md").read_text()
    part = md.split("## Can an LLM replace an annotator?")[1].split("\n## ")[0]
    row = next(line for line in part.splitlines() if "llm:mostly-right" in line)
    verdict = "passes" if wins / 3 >= 0.5 else "fails"
    assert f"{verdict}: ω = {wins / 3:.2f} ({wins}/3 annotators), ε = 0.2" in row
    for j in names:
        word = "LLM wins" if adjusted[j] <= ALPHA else "LLM loses"
        assert f"{j}: p = {adjusted[j]:.3f} ({word})" in row
    assert "Benjamini–Yekutieli" in md.split("## Methods")[1]
