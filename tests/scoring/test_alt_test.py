"""The alternative annotator test (scoring.alt_test), hand-checked on small cases."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from scipy import stats

from hume_sync import task_types
from scoring.alt_test import alt_test

CLS = task_types.get("classification")


def _labels(s: str) -> dict[int, str]:
    return dict(enumerate(s))


def test_three_annotators_six_items_by_hand():
    humans = {"A": _labels("xxxxxx"), "B": _labels("xxxxyy"), "C": _labels("xxyyyy")}
    r = alt_test(CLS, humans, "L", _labels("xyxyyx"))
    # Held out A (others B, C), per item the mean label match with B and C, LLM vs A:
    #   i0 1 vs 1 (tie, d 0); i1 0 vs 1 (d = W_h − W_f = 1); i2 ½ vs ½; i3 ½ vs ½;
    #   i4 1 vs 0 (d −1); i5 0 vs 0. d = (0,1,0,0,−1,0): mean 0, sd √(2/5), se √(1/15),
    #   t = (0 − 0.2)/√(1/15) = −0.7746. C mirrors A. Held out B (others A, C):
    #   d = (0,1,0,0,0,0): mean 1/6, sd √(1/6), se 1/6, t = (1/6 − 0.2)·6 = −0.2.
    t_a, t_b = -0.2 * math.sqrt(15), -0.2
    by = {a.annotator: a for a in r.annotators}
    assert r.status == "tested"
    assert by["A"].t == pytest.approx(t_a) and by["C"].t == pytest.approx(t_a)
    assert by["B"].t == pytest.approx(t_b)
    p_a, p_b = stats.t.cdf(t_a, 5), stats.t.cdf(t_b, 5)
    assert by["A"].pvalue == pytest.approx(p_a) and by["B"].pvalue == pytest.approx(p_b)
    # ρ_f for A: W_f = 1 on i0, i2, i3, i4, i5 → 5/6; ρ_h = 5/6 too (i1 instead of i4).
    assert by["A"].rho_llm == pytest.approx(5 / 6) and by["A"].rho_annotator == pytest.approx(5 / 6)
    # Benjamini–Yekutieli, m = 3, c(m) = 11/6: sorted p (p_a, p_a, p_b) adjusted to
    # min over k ≥ i of m·c·p_(k)/k: p_b·11/6, and p_a·11/4 for both A and C.
    assert by["B"].p_adjusted == pytest.approx(p_b * 11 / 6)
    assert by["A"].p_adjusted == pytest.approx(min(p_a * 11 / 4, p_b * 11 / 6))
    assert r.winning_rate == 0.0 and r.passed is False


def test_an_llm_that_gives_the_majority_label_passes():
    # 20 items, gold-like majority "x"; each annotator errs ("y") on two items of its own.
    base = ["x"] * 20
    humans = {}
    for k, wrong in {"A": (0, 1), "B": (2, 3), "C": (4, 5)}.items():
        humans[k] = dict(enumerate("y" if i in wrong else v for i, v in enumerate(base)))
    r = alt_test(CLS, humans, "L", dict(enumerate(base)))
    # Held out A: d = −1 on A's two errors (LLM aligns with both others, A with none), 0
    # elsewhere: mean −0.1, sd √((2·0.81 + 18·0.01)/19), t = (−0.1 − 0.2)/(sd/√20).
    sd = math.sqrt((2 * 0.81 + 18 * 0.01) / 19)
    for a in r.annotators:
        assert a.t == pytest.approx(-0.3 / (sd / math.sqrt(20)))
        assert a.llm_wins is True
    assert r.winning_rate == 1.0 and r.passed is True


def test_fewer_than_three_annotators_give_paired_agreement_with_wilson():
    humans = {"A": _labels("xxxxx"), "B": _labels("xxyyy")}
    r = alt_test(CLS, humans, "L", _labels("xxxxy"))
    assert r.status == "fewer than 3 annotators" and r.winning_rate is None
    a, b = r.pairwise
    assert (a.annotator, a.n_items, a.agreement) == ("A", 5, 0.8)
    assert (b.agreement, b.method) == (0.6, "Wilson")
    # Wilson 4/5: centre (0.8 + 1.96²/10)/(1 + 1.96²/5).
    z = stats.norm.ppf(0.975)
    centre = (0.8 + z * z / 10) / (1 + z * z / 5)
    assert (a.low + a.high) / 2 == pytest.approx(centre, abs=1e-6) and a.low < 0.8 < a.high


def test_sts_pairwise_uses_a_t_interval_on_the_rating_distance():
    sts = task_types.get("sts")
    r = alt_test(sts, {"A": {0: 1.0, 1: 2.0, 2: 3.0}}, "L", {0: 1.0, 1: 3.0, 2: 3.0})
    (p,) = r.pairwise
    # Alignments −|a − b|/5: 0, −0.2, 0: mean −1/15, sd √(((1/15)²·2 + (2/15)²)/2).
    mean = -1 / 15
    sd = math.sqrt((2 * (1 / 15) ** 2 + (2 / 15) ** 2) / 2)
    half = stats.t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert p.agreement == pytest.approx(mean) and p.method == "t"
    assert (p.low, p.high) == (pytest.approx(mean - half), pytest.approx(mean + half))


@pytest.mark.parametrize(
    ("humans", "llm", "status", "reason"),
    [
        ({"A": _labels("xxxxxx")}, _labels("xxxxxx"), "fewer than 3 annotators", "1 annotator"),
        (  # every item identical: every difference is 0
            {k: _labels("xxxxxx") for k in "ABC"},
            _labels("xxxxxx"),
            "not estimable",
            "no variance",
        ),
        (  # two shared items only
            {k: _labels("xx") for k in "ABC"},
            _labels("xx"),
            "not estimable",
            "needs 3",
        ),
    ],
)
def test_degenerate_inputs_are_not_estimable_with_a_reason(humans, llm, status, reason):
    r = alt_test(CLS, humans, "L", llm)
    assert r.status == status and reason in r.reason
    assert r.winning_rate is None and r.passed is None
    d = r.to_dict()
    assert "nan" not in repr(d).lower()


def test_one_shared_item_pairwise_is_not_estimable():
    r = alt_test(CLS, {"A": _labels("x")}, "L", _labels("x"))
    assert r.pairwise[0].agreement is None and "needs 3" in r.pairwise[0].reason


def test_clustering_is_not_applicable_and_says_why():
    r = alt_test(task_types.get("clustering"), {k: {0: {"t": 0}} for k in "ABC"}, "L", {})
    assert r.status == "not applicable" and "partition" in r.reason


def test_every_type_but_clustering_has_an_alignment():
    for name in task_types.names():
        t = task_types.get(name)
        assert (t.score_item_alignment is None) == (name == "clustering")
        assert bool(t.score_alignment_missing) == (name == "clustering")


def test_reranking_alignment_is_the_share_of_candidates_marked_alike():
    align = task_types.get("reranking").score_item_alignment
    assert align.measure({"a": 1, "b": 0, "c": 1}, {"a": 1, "b": 1}) == pytest.approx(1 / 3)


def _bootstrap_difference(a: list[float], b: list[float], seed: int) -> tuple[float, float]:
    """A paired percentile bootstrap of mean(a) − mean(b), written out here with numpy."""
    import numpy as np

    x, y = np.array(a), np.array(b)
    idx = np.random.default_rng(seed).integers(0, len(x), (2000, len(x)))
    d = x[idx].mean(axis=1) - y[idx].mean(axis=1)
    return float(np.quantile(d, 0.025)), float(np.quantile(d, 0.975))


def test_fewer_than_three_annotators_give_the_paired_difference_against_gold():
    from scoring.subset_report import SubsetInput, evaluate_subset

    gold = _labels("xxxxxxxx")
    # A is right on 6 of the 8 items, the LLM on 4 (of the same 8): A − LLM = 6/8 − 4/8.
    # B answered items 0 and 1 only, both shared with the LLM: 2 < 3, not estimable.
    humans = {"A": _labels("xxxyxxyx"), "B": {0: "x", 1: "y"}}
    llm = _labels("xyxyxyxy")
    inp = SubsetInput("k", "T", "default", CLS, "eng-Latn", gold, humans, llms={"L": llm})
    r = evaluate_subset(inp).alt_test["L"]
    assert r.status == "fewer than 3 annotators"
    by = {p.annotator: p for p in r.paired}
    a = by["A"]
    assert a.n_items == 8 and a.annotator_score == pytest.approx(6 / 8)
    assert a.llm_score == pytest.approx(4 / 8) and a.difference == pytest.approx(2 / 8)
    right_a = [float(v == "x") for v in humans["A"].values()]
    right_l = [float(v == "x") for v in llm.values()]
    low, high = _bootstrap_difference(right_a, right_l, inp.seed)
    assert (a.low, a.high) == pytest.approx((low, high)) and a.low < a.difference < a.high
    assert a.method == "paired_bootstrap:percentile"
    b = by["B"]
    assert b.difference is None and b.low is None and b.reason == "2 shared item(s) (needs 3)"
    assert "paired" in r.to_dict() and r.to_dict()["paired"][0]["annotator"] == "A"


def test_two_annotators_with_labels_import_no_scipy_stats() -> None:
    """With two annotators of label answers (HUME's shape) the test does not run and every
    agreement is a Wilson interval: scipy.stats, 2 s of a cold export on a busy machine, is not
    imported (issue 38). Run in a fresh interpreter, where nothing imported it before."""
    code = (
        "import sys\n"
        "from hume_sync import task_types\n"
        "from scoring.alt_test import alt_test\n"
        "humans = {'A': dict(enumerate('xxyyxy')), 'B': dict(enumerate('xyyyxx'))}\n"
        "r = alt_test(task_types.get('classification'), humans, 'L', dict(enumerate('xxyxxy')))\n"
        "assert r.status == 'fewer than 3 annotators', r.status\n"
        "assert all(p.method == 'Wilson' for p in r.pairwise)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"
